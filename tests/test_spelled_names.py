"""A sentence documenting one function may spell that function's name in words ("The Jinja environment
used to load templates." documents ``jinja_env``): the symbol retriever looks up the functions whose
names the sentence's plain words spell, so that the ranking's name-words rule can lift one that
neither the words nor the meaning put among their first hits."""

from __future__ import annotations

from search import Engine, Query
from search.engine.query import analyse
from search.workspace.scope import parse_scope

APP = '''
class App:
    """The application object."""

    def __init__(self, name):
        self.name = name
        self._cache = None

    def jinja_env(self):
        if self._cache is None:
            self._cache = self.make_environment()
        return self._cache

    def make_environment(self):
        return object()
'''
TEMPLATING = """
def load_templates(folder):
    return sorted(folder.iterdir())
"""
ENVIRONMENT = '''
class Environment:
    """A Jinja environment that loads templates from the application's folder."""
'''
FILES = {
    "src/app.py": APP,
    "src/templating.py": TEMPLATING,
    "src/environment.py": ENVIRONMENT,
    "web/render.js": "function renderPage() {}\n",
}


def _symbols(engine: Engine, text: str) -> list[str | None]:
    return [h.symbol for h in engine.rankings(text)["symbol"]]


def test_the_symbol_retriever_finds_the_functions_a_function_sentence_spells(indexed_engine) -> None:
    engine = indexed_engine(FILES)
    sentence = "The Jinja environment used to load templates."
    assert analyse(sentence).form == "function" and {"jinja", "env", "load"} <= analyse(sentence).spelled
    found = _symbols(engine, sentence)
    # after the sentence's words looked up as names ("environment": the class ``Environment``), by
    # path; not ``make_environment`` ("make" is not among the words)
    assert found == ["Environment", "App.jinja_env", "load_templates"]


def test_no_spelled_names_for_a_topic_a_test_s_claim_or_a_name_that_opens_the_sentence(
    indexed_engine,
) -> None:
    engine = indexed_engine(FILES)
    assert analyse("jinja environment loading").form == "area"
    assert "App.jinja_env" not in _symbols(engine, "jinja environment loading")
    claim = "When strict=False, the Jinja environment is used to load templates."
    assert "test" in analyse(claim).wants
    assert "App.jinja_env" not in _symbols(engine, claim)  # a test's claim documents the test
    named = "renderPage renders the Jinja environment used to load templates."
    assert analyse(named).opens_with_name
    assert "App.jinja_env" not in _symbols(engine, named)  # it documents the name it opens with


def test_a_spelled_function_is_kept_within_the_scope_searched(indexed_engine) -> None:
    engine = indexed_engine(FILES)
    sentence = "The Jinja environment used to load templates."
    scripts = engine.search(Query(sentence), parse_scope("ws", language="javascript")).results
    assert all(r.path.endswith(".js") for r in scripts)
    in_app = engine.search(Query(sentence), parse_scope("file:src/app.py")).results
    assert in_app and all(r.path == "src/app.py" for r in in_app)
    templating = engine.search(Query(sentence), parse_scope("dir:src", ["templating.py"])).results
    assert [r.symbol for r in templating] == ["load_templates"]


def test_a_short_mixed_case_word_of_prose_spells_a_name_as_a_word_does() -> None:
    """tomlkit's "… bundles them into an AoT." documents ``_parse_aot``: "AoT" reads as a name by its
    case, but it is prose's word for an array of tables, as "NumPy" and "URLs" are words; a name
    written as code (```toJSON```) or a long one (``ErrorTree``) is still a name it mentions."""
    read = analyse("Parses all siblings of the provided table first and bundles them into an AoT.")
    assert "AoT" in read.identifiers and "aot" in read.spelled
    assert {"numpy", "urls"} <= analyse("Read the URLs of a NumPy record array.").spelled
    assert "tojson" not in analyse("Call `toJSON` on the value before writing it.").spelled
    assert "errortree" not in analyse("Return the ErrorTree of this validation error.").spelled


def test_the_function_a_sentence_compares_its_own_with_spells_no_name() -> None:
    """ "Like :func:`escape` but treats None as the empty string." documents ``escape_silent``: it
    mentions ``escape`` as the function it compares its own with, so that mention is no word of what
    its own does and spells no name; a word written again ("… but loads from a file.") still does, and
    a mention written as an identifier (``IO#read``) was never a plain word."""
    sentence = "Like :func:`escape` but treats ``None`` as the empty string."
    read = analyse(sentence)
    assert read.form == "function" and read.relatives == ("escape",)
    assert "escape" not in read.spelled and {"none", "empty", "string"} <= read.spelled
    assert "escape" in analyse("Escape the string and treat None as the empty string.").spelled
    assert "loads" in analyse("Like :meth:`loads` but loads from a file.").spelled
    assert "read" in analyse("* +read+ behaves like IO#read .").spelled


def test_two_adjacent_words_run_together_spell_a_part_of_a_name_the_retriever_finds(indexed_engine) -> None:
    """textwrap's "Fill `text` in-place …" documents ``fill_inplace``: code writes "in-place" as one
    word, so the symbol retriever finds it among the names the sentence spells."""
    files = {
        "src/inplace.py": "def fill_inplace(text, width):\n    return text\n",
        "src/wrap.py": "def fill(text):\n    return text\n",
    }
    engine = indexed_engine(files)
    found = _symbols(engine, "Fill `text` in-place without reallocating the input string.")
    assert "fill_inplace" in found
    assert "fill_inplace" not in _symbols(engine, "Fill `text` in its place without reallocating the input.")


def test_the_initials_of_hyphenated_words_spell_a_name_the_retriever_finds(indexed_engine) -> None:
    """chronic's "Handle repeater-month-name/scalar-day" documents ``handle_rmn_sd``: a doc verb and
    one token of joined words is a function sentence, and the initials of each hyphenated run are the
    parts its name writes, so the symbol retriever finds it; ``handle_m_d`` is not spelled."""
    handlers = (
        "module Handlers\n"
        "  def handle_m_d(month, day)\n    month\n  end\n\n"
        "  def handle_rmn_sd(tokens, options)\n    tokens\n  end\nend\n"
    )
    engine = indexed_engine({"lib/handlers.rb": handlers, "lib/parser.rb": "def parse(text)\n  text\nend\n"})
    found = _symbols(engine, "Handle repeater-month-name/scalar-day")
    assert "Handlers.handle_rmn_sd" in found and "Handlers.handle_m_d" not in found


SEARCH_RS = """
/// A match found by a search: where it starts and ends in the haystack, in bytes.
///
/// Every searcher of the crate reports its matches with this type. Its offsets are byte offsets
/// into the haystack that was searched, so a caller can slice the haystack with them directly,
/// whatever the encoding of the text. The start is inclusive and the end exclusive, as in a range.
///
/// A match may be empty: a pattern that matches the empty string matches at every position, and
/// such a match has equal offsets. An overlapping search may report several matches that share
/// offsets, one for each pattern that matched there, in the order the patterns were given.
///
/// The type is small and copied freely; it holds no reference to the haystack, so it outlives the
/// search that made it, and two matches compare equal when their offsets are equal.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct Match {
    start: usize,
    end: usize,
}

impl Match {
    pub fn new(start: usize, end: usize) -> Match {
        assert!(start <= end, "a match cannot end before it starts");
        Match { start, end }
    }

    pub fn range(&self) -> core::ops::Range<usize> {
        self.start..self.end
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    pub fn offset(&self, by: usize) -> Option<Match> {
        let start = self.start.checked_add(by)?;
        let end = self.end.checked_add(by)?;
        Some(Match { start, end })
    }

    pub fn overlaps(&self, other: &Match) -> bool {
        self.start < other.end && other.start < self.end
    }

    pub fn len(&self) -> usize {
        self.end - self.start
    }
}

/// A range of the haystack that a search is confined to, in bytes, as the caller gave it.
///
/// A span is given to a search rather than found by it: the searcher reads only the bytes inside,
/// though a match may look at the bytes around it where the pattern asks for a word boundary.
/// Its offsets are checked against the haystack's length when the search begins, not here.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Span {
    start: usize,
    end: usize,
}

impl Span {
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
}
"""
DFA_RS = """
pub struct DFA {
    lens: Vec<usize>,
}

impl DFA {
    fn match_len(&self, sid: usize) -> usize {
        self.lens[sid]
    }
}
"""


def test_the_method_of_the_object_a_sentence_calls_this_is_spelled_with_its_class(indexed_engine) -> None:
    """aho-corasick's "Returns the length of this match." documents ``Match.len``: its one-part name
    is spelled with the class of "this match", before the longer name the words spell, and another
    class's ``len`` is not."""
    engine = indexed_engine({"src/search.rs": SEARCH_RS, "src/dfa.rs": DFA_RS})
    found = _symbols(engine, "Returns the length of this match.")
    assert "Match.len" in found and "DFA.match_len" in found and "Span.len" not in found
    assert found.index("Match.len") < found.index("DFA.match_len")
    # "the match" before more of the clause is not the object acted on ("in bytes" follows)
    assert "Match.len" not in _symbols(engine, "Returns the length of the match in bytes.")


# a class long enough that its methods are chunks of their own: ``clear`` is not in ``values``' chunk
_WALK = "".join(f"        node = node.get({i}, node)\n" for i in range(85))
TRIE_PY = f"""
class Trie:
    def values(self):
        return list(self._root.values())

    def walk(self, node):
{_WALK}        return node

    def clear(self):
        self._root = {{}}
"""
CACHE_PY = """
class Cache:
    def clear(self):
        self._entries = {}
"""


def test_the_words_that_close_a_clause_after_the_name_the_object_a_method_acts_on() -> None:
    """Up to three words after "the" that end a clause or the sentence name the object acted on, as
    the words after "this" do; "the" before more of the clause does not."""
    assert analyse("Removes all the values from the trie.").receivers == {"trie"}
    assert analyse("Add a single field to the Entry").receivers == {"entry"}
    assert {"cookie", "jar", "cookiejar"} <= analyse("Whether the cookie fits in the cookie jar.").receivers
    assert analyse("Update the hash state with the given bytes and return it").receivers == set()


def test_the_method_of_the_object_a_sentence_acts_on_last_is_spelled_with_its_class(indexed_engine) -> None:
    """pygtrie's "Removes all the values from the trie." documents ``Trie.clear``: "Remove all"
    spells ``clear``, and "the trie", closing the sentence, names the class whose ``clear`` it is,
    not the ``clear`` of another class."""
    engine = indexed_engine({"src/trie.py": TRIE_PY, "src/cache.py": CACHE_PY})
    found = _symbols(engine, "Removes all the values from the trie.")
    assert "Trie.clear" in found and "Cache.clear" not in found
    assert "Trie.clear" not in _symbols(engine, "Removes all the values from the trie when asked.")


def test_a_sentence_that_counts_the_items_of_its_object_spells_len() -> None:
    """bytes' "Returns the number of bytes contained in this `Bytes`." documents ``Bytes::len``:
    "number of" spells the name code gives such a count; a number alone ("Adds a number to …") does
    not."""
    assert "len" in analyse("Returns the number of bytes contained in this `Bytes`.").spelled
    assert "len" in analyse("Return the number of patterns in this collection.").spelled
    assert "len" not in analyse("Adds a number to the total of this counter.").spelled
    assert "len" not in analyse("Of the numbers given, return the largest.").spelled


BUF_RS = """
pub trait Buf {
    fn chunk(&self) -> &[u8];

    fn get_u16(&mut self) -> u16 {
        let bytes = self.chunk();
        u16::from_be_bytes([bytes[0], bytes[1]])
    }

    fn get_u32(&mut self) -> u32 {
        let bytes = self.chunk();
        u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}
"""


def test_a_numeric_type_a_sentence_names_by_its_width_spells_the_part_a_name_writes(indexed_engine) -> None:
    """bytes' "Gets an unsigned 32 bit integer from `self` …" documents ``Buf::get_u32``: the type
    the words name by its width is the name's ``u32``, so the name is spelled whole (and
    ``get_u16``'s is not)."""
    engine = indexed_engine({"src/buf.rs": BUF_RS, "src/other.rs": "pub fn get() -> u32 {\n    1\n}\n"})
    found = _symbols(engine, "Gets an unsigned 32 bit integer from `self` in the big-endian byte order.")
    assert "Buf.get_u32" in found and "Buf.get_u16" not in found


VEC_RS = """
pub struct ArrayVec {
    xs: [u8; 16],
    len: usize,
}

impl ArrayVec {
    pub fn as_ptr(&self) -> *const u8 {
        self.xs.as_ptr()
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.xs[..self.len]
    }
}
"""


def test_a_sentence_that_says_what_an_accessor_returns_spells_its_as(indexed_engine) -> None:
    """arrayvec's "Return a raw pointer to the vector's buffer." documents ``as_ptr``: an accessor that
    returns a view of its object as another type is named ``as_…`` as a getter is ``get_…``, so a
    "Return …" opening spells both prefixes; an opening that returns nothing spells neither."""
    assert {"get", "as"} <= analyse("Return a raw pointer to the vector's buffer.").spelled
    assert "as" not in analyse("Write a raw pointer to the vector's buffer.").spelled
    engine = indexed_engine({"src/vec.rs": VEC_RS, "src/other.rs": "pub fn ptr() -> usize {\n    1\n}\n"})
    found = _symbols(engine, "Return a raw pointer to the vector's buffer.")
    assert "ArrayVec.as_ptr" in found and "ArrayVec.as_slice" not in found

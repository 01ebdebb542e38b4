"""A query that asks for one definition ("class Console", "where is parse_args defined") is searched as
that name, the kind it asks for first; a sentence about code stays a sentence."""

from __future__ import annotations

import logging

import pytest

from search import Engine, Query
from search.engine.query import (
    _IDENT,
    CONSTRUCTOR_KINDS,
    KIND_WORDS,
    analyse,
    creation_request,
    definition_request,
    usage_request,
)

FUNCTION = frozenset({"function", "method"})
CLASS = frozenset({"class", "struct"})


@pytest.mark.parametrize(
    ("text", "name", "kinds", "certain"),
    [
        ("class Console", "Console", CLASS, False),
        ("Console class", "Console", CLASS, False),
        ("the Console class", "Console", CLASS, False),
        ("where is the Console class defined", "Console", CLASS, False),
        ("where's the Router struct declared?", "Router", KIND_WORDS["struct"], False),
        ("where is Console defined", "Console", frozenset(), False),
        ("definition of Console", "Console", frozenset(), False),
        ("where is compose defined", "compose", frozenset(), False),  # said to be defined: a name
        ("render function", "render", FUNCTION, False),  # a name if the symbol index defines it
        ("def print_json", "print_json", FUNCTION, True),
        ("print_json() method", "print_json", FUNCTION, True),
        ("`parse_args` function", "parse_args", FUNCTION, True),
        ("Console.print_json method", "Console.print_json", FUNCTION, True),
        ("fn main", "main", FUNCTION, True),  # after a keyword no English uses: a name as written
        ("find the HttpClient class", "HttpClient", CLASS, True),
        ("python class Console", "Console", CLASS, False),  # the language: not a second name
        ("class Live", "Live", CLASS, False),  # a capital past the first word: a name, not "live"
        ("where is the Type enum defined", "Type", KIND_WORDS["enum"], False),
        ("what is the Zone class", "Zone", CLASS, False),  # asked: the name after its copula
        ("where Console is defined", "Console", frozenset(), False),
        # modifiers before the keyword, and Go's receiver: the method of its type
        ("pub fn spawn", "spawn", FUNCTION, True),
        ("pub(crate) async fn spawn_inner", "spawn_inner", FUNCTION, True),
        ("export default function App", "App", FUNCTION, False),
        ("public static class Config", "Config", CLASS, False),
        ("func (s *Server) Serve", "Server.Serve", FUNCTION, True),
        ("func (l List[T]) Len", "List.Len", FUNCTION, True),
        ("fun main", "main", FUNCTION, False),  # Kotlin's keyword is an English word too
        ("macro_rules! select", "select", frozenset({"macro"}), False),
        ("pub mod runtime", "runtime", frozenset({"module"}), False),
    ],
)
def test_a_request_for_one_definition_is_read_as_its_name(
    text: str, name: str, kinds: frozenset[str], certain: bool
) -> None:
    request = definition_request(text)
    assert request is not None
    assert (request.name, request.kinds, request.certain) == (name, kinds, certain)


@pytest.mark.parametrize(
    "text",
    [
        "function composition utility",  # two words left: no one name
        "how does the Console class render",
        "Console",  # no kind and not said to be defined: an identifier query already
        "class",
        "where is the Console class defined in the rich package today",  # too long for a request
        "def initialize(app, logger = nil)",  # pasted with its parameters: the phrase rule finds it
        "public API function",  # a modifier only before a keyword or another modifier
        "fun facts about parsing",
        "Zone is an abstract class",  # says what Zone is (luxon's error message): the phrase rule finds it
        "Router is a struct",
    ],
)
def test_a_sentence_about_code_is_no_request(text: str) -> None:
    assert definition_request(text) is None


SHAPES = '''class Widget:
    """Draws itself."""

    def draw(self):
        return "widget"
'''
FACTORY = '''def Widget(kind):
    """Makes a widget of a kind."""
    return kind


def widget_count():
    return 3
'''
USES = "\n".join(f"from shapes import Widget\n\n\ndef use{i}():\n    return Widget()\n" for i in range(3))
PANEL = '''class Panel:
    def widget(self):
        """The panel's own widget."""
        return self._widget
'''
FILES = {"src/shapes.py": SHAPES, "src/factory.py": FACTORY, "src/uses.py": USES, "src/panel.py": PANEL}


@pytest.fixture
def engine(indexed_engine):
    return indexed_engine(FILES)


def _first(engine: Engine, text: str, **kw: object) -> tuple[str, str | None]:
    top = engine.search(Query(text, **kw)).results[0]  # type: ignore[arg-type]
    return top.path, top.kind


def test_the_kind_asked_for_comes_first_of_two_definitions_of_one_name(engine: Engine) -> None:
    assert _first(engine, "class Widget") == ("src/shapes.py", "class")
    assert _first(engine, "the Widget class") == ("src/shapes.py", "class")
    assert _first(engine, "function Widget") == ("src/factory.py", "function")
    assert _first(engine, "where is the Widget function defined?") == ("src/factory.py", "function")
    both = [r.path for r in engine.search(Query("where is Widget defined")).results[:2]]
    assert sorted(both) == ["src/factory.py", "src/shapes.py"]  # no kind asked: both definitions first


def test_a_kind_asked_for_in_another_case_is_still_that_definition(engine: Engine) -> None:
    assert _first(engine, "where is widget defined") == ("src/panel.py", "method")  # as written
    assert _first(engine, "where is the widget class defined") == ("src/shapes.py", "class")


def test_a_plain_word_is_a_name_only_where_the_symbol_index_defines_it(engine: Engine) -> None:
    read = engine.analyse("Widget class", index=engine.index)
    assert (read.shape, read.text, read.kinds, read.asked) == ("identifier", "Widget", CLASS, "Widget class")
    assert engine.analyse("Gadget class", index=engine.index).shape == "natural"  # defined nowhere
    assert engine.analyse("widget_count class", index=engine.index).shape == "identifier"  # as code
    assert engine.analyse("panel function", index=engine.index).shape == "natural"  # a class, not asked
    assert engine.analyse("panel class", index=engine.index).text == "panel"  # the class Panel
    assert engine.analyse("Widget class", index=None).shape == "natural"  # nothing to ask
    # a name written as code is a name whether or not it is defined
    assert engine.analyse("def make_gadget", index=None).shape == "identifier"


def test_ripgrep_alone_keeps_the_words_as_typed(engine: Engine) -> None:
    assert engine.analyse("class Widget", mode="text", index=engine.index).shape == "natural"
    top = engine.search(Query("class Widget", mode="text")).results[0]
    assert top.path == "src/shapes.py"  # the phrase as written


def test_explain_says_how_the_request_was_read(engine: Engine) -> None:
    notes = engine.search(Query("class Widget", explain=True)).notes
    assert "read as a search for the definition of Widget (a class or struct)" in notes
    assert not any("read as" in n for n in engine.search(Query("class Widget")).notes)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Console()", "Console"),
        ("print_json(", "print_json"),
        ("Cart.total();", "Cart.total"),
        ("(*Server).Serve", "Server.Serve"),  # Go's method expression
    ],
)
def test_a_call_pasted_without_arguments_is_a_search_for_the_name(text: str, name: str) -> None:
    query = analyse(text)
    assert (query.shape, query.text, query.identifiers) == ("identifier", name, (name,))


def test_a_call_finds_the_definition_called(engine: Engine) -> None:
    assert _first(engine, "widget_count()") == ("src/factory.py", "function")
    assert analyse("total(cart)").shape == "natural"  # with its arguments: text to find


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("where is print_json called", "print_json"),
        ("who calls print_json?", "print_json"),
        ("callers of set_renderable", "set_renderable"),
        ("usages of LiveRender", "LiveRender"),
        ("LiveRender references", "LiveRender"),
        ("where is the Console class imported", "Console"),
        ("find all call sites of `retry_call`", "retry_call"),
    ],
)
def test_a_request_for_a_names_usages_is_read_as_that_name(text: str, name: str) -> None:
    request = usage_request(text)
    assert request is not None and request.name == name
    assert definition_request(text) is None or name != definition_request(text).name  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "how are retries used in uploads",
        "where is Console defined",
        "used",
        "who calls",
        "expected call",  # a phrase: "call" asks for usages only before "sites"
        "nested calls",
        "uses tabs",
        "call stack",
        "Method called by run_forever.",  # what run_forever calls: a docstring, not its callers
    ],
)
def test_a_sentence_about_usage_is_no_request(text: str) -> None:
    assert usage_request(text) is None


def test_the_usages_come_before_the_definitions(engine: Engine) -> None:
    response = engine.search(Query("who calls Widget", explain=True))
    paths = [r.path for r in response.results]
    assert paths[0] == "src/uses.py"  # the calls, as a whole word: not widget_count, not the docstring
    defined = [p for p in paths if p in ("src/shapes.py", "src/factory.py")]
    assert defined and paths.index(defined[0]) > paths.index("src/uses.py")
    assert "src/panel.py" not in paths[:3]  # ``widget`` in another case is another name
    assert "read as a search for the usages of Widget (a whole word)" in response.notes
    text = engine.search(Query("where is Widget used", mode="text")).results
    assert text and all(r.path != "src/panel.py" for r in text)
    # a plain word is a name only where the symbol index defines it
    assert engine.analyse("where is panel used", index=engine.index).usages  # the class Panel
    assert engine.analyse("where is gadget used", index=engine.index).shape == "natural"
    assert engine.analyse("who calls make_gadget", index=None).usages  # written as code


def test_a_text_search_for_a_plain_names_usages_reads_alike_in_a_fresh_process(
    engine: Engine, caplog
) -> None:
    """A fresh process's text search reads the saved text view, which has no symbol index: "where is
    Widget used" looks ``Widget`` up in the index itself, as a process that had opened it does."""
    fresh = Engine(engine.settings)
    try:
        assert fresh._text_view() is not None  # what a text search in a fresh process reads
        with caplog.at_level(logging.WARNING, logger="search"):
            first = fresh.search(Query("where is Widget used", mode="text", explain=True))
        assert not [r for r in caplog.records if "lookup" in r.getMessage()]
        assert "read as a search for the usages of Widget (a whole word)" in first.notes
    finally:
        fresh.close()
    engine.search(Query("class Widget"))  # this engine has opened its index
    assert engine._text_view() is None
    again = engine.search(Query("where is Widget used", mode="text", explain=True))
    assert [(r.path, r.start_line) for r in first.results] == [(r.path, r.start_line) for r in again.results]
    assert all(r.path != "src/panel.py" for r in first.results)  # ``widget`` is another name


def test_a_run_of_dollars_is_read_in_linear_time() -> None:
    """A name may open with ``$`` (``$this``, ``$ZodType``): a match never starts inside a run of them,
    so a query of dollars is read once, not once per dollar (quadratic: 60 ms on 4,000, minutes here)."""
    assert analyse("$" * 200_000 + "(").identifiers == ()
    assert _IDENT.findall("x $$foo foo$bar $this->db") == ["x", "$$foo", "foo$bar", "$this->db"]


def test_usages_in_code_come_before_mentions_in_comments(indexed_engine) -> None:
    engine = indexed_engine(
        {
            "src/compute.py": "def compute_total():\n    return 1\n",
            "src/notes.py": "# compute_total is cached; see compute_total\n# compute_total compute_total\nLIMIT = 3\n",
            "src/run.py": "def run():\n    return compute_total()\n",
        }
    )
    paths = [r.path for r in engine.search(Query("who calls compute_total")).results]
    assert paths[:3] == ["src/run.py", "src/notes.py", "src/compute.py"]  # call, mentions, definition


def test_two_words_that_spell_one_defined_name_are_that_name(indexed_engine) -> None:
    engine = indexed_engine(
        {
            "src/ctx.py": "def bind_contextvars(**kw):\n    return kw\n\n\ndef bound_contextvars(**kw):\n    return kw\n",
            "src/log.py": "class Logger:\n    def bind(self, **kw):\n        return self\n",
            "src/url.py": "def parse_url(u):\n    return u\n\n\nclass ParseURL:\n    pass\n",
        }
    )
    read = engine.analyse("bind contextvars", index=engine.index)
    assert (read.shape, read.text, read.asked) == ("identifier", "bind_contextvars", "bind contextvars")
    top = engine.search(Query("bind contextvars")).results[0]
    assert (top.path, top.symbol) == ("src/ctx.py", "bind_contextvars")
    assert engine.analyse("parse url", index=engine.index).shape == "natural"  # two names: which one?
    assert engine.analyse("bind logger", index=engine.index).shape == "natural"  # spells nothing
    assert engine.analyse("Bind contextvars", index=engine.index).shape == "natural"  # typed, not lower case
    assert engine.analyse("bind the contextvars", index=engine.index).shape == "natural"  # a sentence


def test_the_words_a_definition_was_asked_in_keep_their_one_place_on_the_page(indexed_engine) -> None:
    """ "WidgetFrame constructor." is read as the search for ``WidgetFrame``'s definition; the one docstring that
    holds the words as typed comes right after the definition, above the many places that mention
    the name, where the search for the name alone ranks it below the first page. Text mode finds it
    as a phrase, first."""
    files = {
        "src/frames.py": 'class WidgetFrame:\n    """Frames a widget."""\n\n    def __init__(self, widget):\n        self.widget = widget\n',
        "src/setup.py": 'def configure(options):\n    """Options passed on to the WidgetFrame constructor."""\n'
        "    return dict(options)\n",
    }
    for i in range(14):  # the name, many times over, in files of its own
        files[f"src/use{i:02}.py"] = "".join(
            f"def widget_use{i}_{j}(w: WidgetFrame) -> WidgetFrame:\n    return WidgetFrame(w)\n\n\n"
            for j in range(3)
        )
    engine = indexed_engine(files)
    assert engine.analyse("WidgetFrame constructor.", index=engine.index).asked == "WidgetFrame constructor."
    results = engine.search(Query("WidgetFrame constructor.", explain=True)).results
    assert [(r.path, r.symbol) for r in results[:2]] == [
        ("src/frames.py", "WidgetFrame"),
        ("src/setup.py", "configure"),
    ]
    assert {"rule": "phrase", "effect": "after the definitions (the words as asked)"} in results[1].explain[
        "rules"
    ]
    assert engine.search(Query("WidgetFrame constructor.", mode="text")).results[0].path == "src/setup.py"


def test_usages_asked_for_in_words_the_code_holds_put_that_place_first(indexed_engine) -> None:
    """ "getSchema is called" reads as the usages of ``getSchema``; the code holds those words once,
    a test's message (fastify's), which is pasted from there: that place, itself a use of the name,
    comes first, above the uses in real code that the ranking otherwise lists before a test's.
    Asked in words nobody writes in code ("who calls getSchema"), the uses in real code come first."""
    files = {
        "src/schemas.js": "export function getSchema (id) {\n  return store[id]\n}\n",
        "test/schemas.test.js": "test('controller', (t) => {\n  const c = {\n    getSchema (id) {\n"
        "      t.pass('getSchema is called')\n      return null\n    }\n  }\n})\n",
    }
    for i in range(6):  # uses in real code
        files[f"src/use{i}.js"] = f"export function load{i} (id) {{\n  return getSchema(id)\n}}\n"
    engine = indexed_engine(files)
    asked = engine.analyse("getSchema is called", index=engine.index)
    assert (asked.usages, asked.literal, asked.asked) == (True, "getSchema", "getSchema is called")
    results = engine.search(Query("getSchema is called", explain=True)).results
    assert (results[0].path, results[0].start_line) == ("test/schemas.test.js", 1)
    assert {"rule": "phrase", "effect": "first (the words as asked)"} in results[0].explain["rules"]
    assert {r.path for r in results[1:7]} == {f"src/use{i}.js" for i in range(6)}
    plain = engine.search(Query("who calls getSchema")).results
    assert {r.path for r in plain[:6]} == {f"src/use{i}.js" for i in range(6)}


STORE = """class Store
  def save
    write(false)
  end

  def empty
    @rows.clear
  end
end
"""
STRICT = """class Store
  def save!
    write(true) || raise(NotSaved)
  end

  def empty?
    @rows.empty?
  end
end
"""
MACROS = """macro_rules! shout {
    ($s:expr) => { println!("{}", $s.to_uppercase()) };
}

pub fn shout_all(words: &[&str]) {
    for w in words {
        shout!(w);
    }
}
"""


def test_a_names_question_or_exclamation_mark_is_part_of_it_where_the_index_defines_it_so(
    indexed_engine, caplog: pytest.LogCaptureFixture
) -> None:
    """Ruby's ``save!`` and ``empty?`` are names of their own: asked for, that definition comes first
    (not ``save``); Rust's ``shout!`` calls the macro ``shout``, which no index names with its mark:
    read as before, without it."""
    marked = analyse("save!", dialects=True)
    assert (marked.shape, marked.identifiers) == ("identifier", ("save!",))
    assert analyse("save!()", dialects=True).text == "save!"
    assert analyse("set_cookie_header!(headers, key)", dialects=True).identifiers == ("set_cookie_header!",)
    assert analyse("does has_header? look at it", dialects=True).identifiers == ("has_header?",)
    assert analyse("who calls has_header?", dialects=True).identifiers == ("has_header",)  # a question's mark
    assert analyse("save!").shape == "natural"
    engine = indexed_engine({"lib/store.rb": STORE, "lib/strict.rb": STRICT, "src/macros.rs": MACROS})
    for text in ("save!", "empty?", "Store.save!"):
        name = text.split(".")[-1]
        assert engine.analyse(text, index=engine.index).identifiers == (text,)
        top = engine.search(Query(text)).results[0]
        assert (top.path, top.symbol) == ("lib/strict.rb", "Store." + name)
    assert engine.search(Query("save")).results[0].path == "lib/store.rb"
    # ``save`` is the same name without its mark: half a definition, after ``save!``
    second = engine.search(Query("save!", explain=True)).results[1]
    assert second.path == "lib/store.rb"
    assert any(step["rule"] == "definition (case differs)" for step in second.explain["rules"])
    assert engine.analyse("shout!", index=engine.index) == analyse("shout!")
    # ripgrep alone reads the words as typed, without looking the name up where no symbol index is open
    fresh = Engine(engine.settings)
    with caplog.at_level(logging.WARNING):
        assert fresh.search(Query("save!", mode="text")).results
    fresh.close()
    assert not [r for r in caplog.records if "lookup" in r.getMessage()]


PICKER = """local Picker = {}

function Picker:find(prompt)
  return self.finder:find(prompt)
end

return Picker
"""
FINDER = """local Finder = {}

function Finder:find(prompt)
  return vim.fn.matchfuzzy(self.items, prompt)
end

return Finder
"""
FOLD = """module Fold where

foldl :: (b -> a -> b) -> b -> [a] -> b
foldl f z xs = go z xs
  where go acc [] = acc
        go acc (y:ys) = go (f acc y) ys

foldl' :: (b -> a -> b) -> b -> [a] -> b
foldl' f z xs = go z xs
  where go !acc [] = acc
        go !acc (y:ys) = go (f acc y) ys
"""


def test_a_lua_method_and_a_haskell_prime_are_read_as_written(indexed_engine) -> None:
    """``Picker:find`` is Lua's method ``find`` of ``Picker`` (not ``Finder``'s); ``foldl'`` is Haskell's
    strict fold, not ``foldl``. A quote's end, reST's roles and JSDoc's module paths are no such names."""
    assert analyse("Picker:find", dialects=True).identifiers == ("Picker:find",)
    assert analyse("how does Picker:find start", dialects=True).identifiers == ("Picker:find",)
    assert analyse("foldl'", dialects=True).identifiers == ("foldl'",)
    assert analyse("the 'view_func' name", dialects=True).identifiers == ("view_func",)
    assert analyse("Return a :py:class:`datetime_tz` now", dialects=True).identifiers == ("datetime_tz",)
    module = analyse("same as [`groupBy`]module:Collections.groupBy", dialects=True)
    assert module.identifiers[-1] == "Collections.groupBy"
    engine = indexed_engine({"lua/picker.lua": PICKER, "lua/finder.lua": FINDER, "src/Fold.hs": FOLD})
    picked = engine.search(Query("Picker:find", explain=True)).results
    assert picked[0].symbol == "Picker.find"
    assert any(step["rule"] == "definition" for step in picked[0].explain["rules"])
    assert not any(step["rule"] == "definition" for r in picked[1:] for step in r.explain["rules"])
    assert engine.analyse("foldl'", index=engine.index).identifiers == ("foldl'",)
    assert engine.search(Query("foldl'")).results[0].symbol == "Fold.foldl'"


CALL = """package mock

// Call is one expected call.
type Call struct {
	ReturnArguments []interface{}
}

func (c *Call) Return(returnArguments ...interface{}) *Call {
	c.ReturnArguments = returnArguments
	return c
}
"""
ARGS = """package mock

// Arguments holds the arguments of a call.
type Arguments []interface{}

func (args Arguments) Get(index int) interface{} {
	return args[index]
}

func (args Arguments) Diff(objects []interface{}) string {
	return "the arguments for the expectation differ"
}
"""


def test_a_sentence_opening_with_a_common_word_that_names_a_definition_finds_it(indexed_engine) -> None:
    """Go's "Return specifies the return arguments …" documents ``Call.Return``: a word too common to
    be looked up as a word ("return") is looked up as a name where a verb in the third person follows
    it; "Get items …" opens with an imperative and a plural noun, no name."""
    said = analyse("Return specifies the return arguments for the expectation.")
    assert said.opening_word(verb=True) == "Return"
    assert analyse("Get items from the cache.").opening_word(verb=True) is None
    engine = indexed_engine({"mock/call.go": CALL, "mock/args.go": ARGS})
    top = engine.search(Query("Return specifies the return arguments for the expectation.")).results[0]
    assert (top.path, top.symbol) == ("mock/call.go", "mock.Call.Return")


FLAGS = """package pflag

import "os"

// Args returns the non-flag arguments.
func Args() []string { return os.Args[1:] }

func parseArgs(args []string) error { return nil }

// NArg is the number of arguments remaining after flags have been processed.
func NArg() int { return len(os.Args) }

func Parse() {
	_ = parseArgs(os.Args[1:])
}
"""
OPTIONS = """package cmp

type Option interface{ apply() }

func Comparer(f interface{}) Option {
	return comparer{fnc: f}
}

type comparer struct {
	fnc interface{}
}
"""


def test_a_sentence_opening_with_a_name_looks_it_up_before_the_names_it_mentions(indexed_engine) -> None:
    """Go's "Parse parses the command-line flags from os.Args[1:]." documents ``Parse``: its opening
    name is looked up first, before the ``Args`` it mentions (whose exact match would otherwise leave
    out a name looked up after it). A chunk holding two definitions the lookups find, ``Comparer`` as
    written and ``comparer`` in another case, goes by the one matched as written."""
    engine = indexed_engine({"flag.go": FLAGS, "options.go": OPTIONS})
    found = engine.rankings("Parse parses the command-line flags from os.Args[1:].", only=["symbol"])[
        "symbol"
    ]
    assert found[0].symbol == "pflag.Parse"
    said = "Comparer returns an [Option] that determines whether two values are equal to each other."
    found = engine.rankings(said, only=["symbol"])["symbol"]
    assert [
        h.symbol for h in found if h.span.path == "options.go" and h.symbol.lower() == "cmp.comparer"
    ] == ["cmp.Comparer"]


@pytest.mark.parametrize(
    ("text", "name", "certain"),
    [
        ("Create a new `Event`.", "Event", True),
        ("Creates a Receiver instance.", "Receiver", False),  # a capitalised word: a name if defined
        ("Initialize a Version object.", "Version", False),
        ("Constructs the CommanderError class", "CommanderError", True),
        ("Create a new [`Router`].", "Router", True),  # rustdoc's link
        ("Initialize a new Rack::Builder instance.", "Rack::Builder", True),
        ("Creates an empty JsonArray.", "JsonArray", True),
        ("construct `cargo`", "cargo", True),  # as code: whatever its case
        # Sphinx's roles, a relative reference and the tilde that shows the last part only
        ("Initialize the :class:`Re2PsBackend` instance.", "Re2PsBackend", True),
        ("Initializes the :class:`.PathSpec` instance.", "PathSpec", True),
        ("Create a new :py:class:`~markup.Markup`.", "markup.Markup", True),
    ],
)
def test_a_constructors_doc_that_says_only_what_it_makes_asks_for_that_constructor(
    text: str, name: str, certain: bool
) -> None:
    request = creation_request(text)
    assert request is not None
    assert (request.name, request.kinds, request.certain) == (name, CONSTRUCTOR_KINDS, certain)


@pytest.mark.parametrize(
    "text",
    [
        "Create a DateTime in UTC",  # more than what it makes: luxon's factory, a sentence
        "Create a local DateTime",  # an adjective of its own: DateTime.local, not the constructor
        "Creates a new logger.",  # a factory's product in lower case
        "Create a task group.",
        "Create a TOML date.",
        "Initialize a WebSocket client.",  # ws's initAsClient
        "Create a new",
        "Returns a new `Event`.",  # not a verb of making
    ],
)
def test_a_sentence_that_says_more_than_what_it_makes_is_no_constructor_request(text: str) -> None:
    assert creation_request(text) is None


CONSTRUCTED = {
    # a class long enough that its constructor is a chunk of its own
    "lib/widget.js": "class Widget {\n  /** The widget's parts. */\n  static parts = [];\n"
    + "".join(f"  part{i}() {{\n    return {i};\n  }}\n" for i in range(20))
    + "  constructor(size) {\n    this.size = size;\n    this.drawn = false;\n  }\n\n"
    + "".join(f"  draw{i}() {{\n    return this.size * {i};\n  }}\n" for i in range(20))
    + "}\n\nmodule.exports = { Widget };\n",
    "lib/gadget.js": "class Gadget {\n  spin() {\n    return 1;\n  }\n}\n\nmodule.exports = { Gadget };\n",
    "src/frame.py": "class Frame:\n    kind = 'frame'\n"
    + "".join(f"\n    def side{i}(self):\n        return {i}\n" for i in range(60))
    + "\n    def __init__(self, width):\n        self.width = width\n",
}


def test_a_constructor_asked_for_is_the_types_own_constructor_else_the_type(indexed_engine) -> None:
    """ "Create a new `Widget`." and "Widget constructor" find ``Widget``'s constructor, a chunk apart
    from the class's first lines, before the class; Python's ``__init__`` likewise; a class that
    declares no constructor is the answer itself. Every other class's constructor is left alone."""
    engine = indexed_engine(CONSTRUCTED)
    for text in ("Create a new `Widget`.", "Widget constructor", "Creates a Widget instance."):
        top = engine.search(Query(text)).results[0]
        assert (top.path, top.symbol, top.kind) == ("lib/widget.js", "Widget.constructor", "constructor"), (
            text
        )
    top = engine.search(Query("Initialize a Frame object.")).results[0]
    assert (top.path, top.symbol) == ("src/frame.py", "Frame.__init__")
    top = engine.search(Query("Create a new `Gadget`.")).results[0]
    assert (top.path, top.symbol, top.kind) == ("lib/gadget.js", "Gadget", "class")
    notes = engine.search(Query("Create a new `Widget`.", explain=True)).notes
    assert "read as a search for the constructor of Widget (or the type itself)" in notes
    # a capitalised word defined nowhere stays a sentence
    assert engine.analyse("Creates a Sprocket instance.", index=engine.index).shape == "natural"

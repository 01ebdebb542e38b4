"""A query decoded once: its shape, literal, search terms, BM25 tokens, words and the roles it asks for.

:func:`analyse` runs at the edge of :meth:`search.engine.engine.Engine.search` (through
:meth:`~search.engine.engine.Engine.analyse`, which also reads a request for one definition or for a
name's usages, :func:`definition_request` and :func:`usage_request`, as the search for that name); every
retriever and the ranking stage receive the resulting :class:`AnalysedQuery` and never tokenise the raw
string again.
The lexical side has one pipeline (:mod:`indexer.lexical`): the same tokenizer, stop list and stemmer
make the BM25 tokens of the query and of every chunk, and ripgrep's search terms are the prefixes
those tokens share with the words as written, so that a substring search finds every inflection the
stemmer folds together ("retries", "retrying" → ``retr``… → token ``retri``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Literal

from indexer import (
    ABBREVIATIONS,
    EXTENSIONS,
    FILENAMES,
    NAME_FORMS,
    NUMERIC_WIDTHS,
    STOP_WORDS,
    dotted,
    identifier_parts,
    normalise,
    phrase_tokens,
    short_forms,
    stem_words,
)

from .opposites import opposite_names

Shape = Literal["literal", "regex", "identifier", "natural"]
# What a sentence asks for. ``area``: where or how something lives in the code base ("how are cookies
# stored", "request routing"): a file, a module. ``function``: what one piece of code does, written
# as the sentence that would document it ("Return the running event loop or None.", "Wake up the
# first waiter"): that definition. Other shapes are ``None``.
Form = Literal["area", "function"]
_QUESTION_WORDS = frozenset(
    "how where what which why when who whose whom is are does do did can could should would".split()  # noqa: SIM905
)
_DETERMINERS = frozenset("the a an this that these those its their each every given".split())  # noqa: SIM905
_CONDITIONS = frozenset({"if", "whether"})  # "Determine if …", "Check whether …"
_QUANTIFIERS = frozenset({"all", "any", "some", "both", "every", "each", "no"})  # "Erase all content …"
# A number spelled after a sentence's first word counts what a verb acts on ("Walks one step in doc and
# returns …", "Takes two arguments"): a topic's noun is not followed by one. Not after a number: "one two
# three" is a list.
_NUMERALS = frozenset("zero one two three four five six seven eight nine ten".split())  # noqa: SIM905
# Verbs that documentation of one function opens with (imperative, or third person: "Returns …").
_DOC_VERBS = frozenset(
    "return get set create check determine convert parse trim resolve remove add build make find read"  # noqa: SIM905
    " write load handle generate validate compute calculate format encode decode normalize merge"
    " register initialize update delete apply call invoke wrap ensure start stop close open send fetch"
    " print render emit clear reset copy clone extract split join sort compare append insert push pop"
    " wait run execute dispatch transform serialize deserialize escape strip replace iterate yield".split()
)
# Verbs that say what a named definition does, in the third person after its name ("Uint looks up …",
# "String defines …", "Panic specifies …"), besides the doc verbs; too particular to keep a sentence's
# opening verb from spelling a function's name ("Accept an incoming connection.": ``accept``).
_NAMING_VERBS = frozenset(
    "define provide look report specify retrieve scan take describe represent indicate hold contain"  # noqa: SIM905
    " implement accept expose".split()
)
# Nouns that name one piece of code by what it is. A docstring without its period that opens with one,
# then what the piece does or is of ("Helper to create a parse action …", "internal factory method to
# …", "Implementation of ``|`` operator …", "Alternate constructor that returns …"), documents that
# piece, as a sentence opening with a verb does.
_PIECE_NOUNS = frozenset(
    "helper function method constructor decorator wrapper factory implementation callback hook"  # noqa: SIM905
    " shortcut alias utility action handler".split()
)
_PIECE_LINKS = frozenset({"to", "of", "that", "which", "for"})
# Question words that open statements too, when the sentence ends with a period.
_STATEMENT_OPENERS = frozenset({"do", "does", "when"})
_NAME_LINKS = frozenset({"is", "will", "can", "must", "should", "does", "may"})  # "AddFlag will add …"
# Words that make a role word before them a noun asking for files of that role ("tests for …").
_ABOUT = frozenset("for of about on covering around".split())  # noqa: SIM905
_PARTICLES = frozenset("up down out off on in into for to from with of over back all".split())  # noqa: SIM905

# ``$`` belongs to identifiers in JavaScript/TypeScript (``$ZodType``), PHP (``$this->db``) and Java.
_IDENT = re.compile(r"(?<!\$)\$*[A-Za-z_][A-Za-z0-9_$]*(?:(?:\.|::|->|#)\$*[A-Za-z_][A-Za-z0-9_$]*)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A reST/Sphinx role before a backquoted name: ":class:", ":meth:", ":py:func:", ":attr:"
_ROLE = re.compile(r"(?<![\w:])(?::[A-Za-z][\w.+-]*)+:(?=`)")
# Names as some languages write them (:func:`in_dialect`): Ruby's (and Elixir's, Crystal's) predicates and
# bang methods, ``empty?``, ``save!``; Haskell's (and OCaml's) primes, ``foldl'``; Lua's methods, ``Picker:find``
_METHOD = re.compile(rf"({_IDENT.pattern})(?::([A-Za-z_][A-Za-z0-9_]*))?")
_MARKED = re.compile(rf"{_METHOD.pattern}(?:[?!]|'+)?")
_LUA_COLON = re.compile(r"(?<!:):(?!:)")
# where a query may hold one (cheaper than reading it twice): a mark as :func:`_identifiers` takes one,
# or after a query of one word ("empty?")
MARK_HINT = re.compile(r"\w(?:[?!](?=\(|\s+\S)|'+(?![A-Za-z0-9])|:[A-Za-z_])|^\S+[?!]\s*$")
_CALLED = re.compile(rf"((?:{_METHOD.pattern})[?!]?)\(\)?;?")  # a call without its arguments: ``Console()``
# A signature line, as Python's builtins and C extensions open their docstrings: the name, its
# arguments, an arrow, then what it does or returns ("pop(index) -> remove the item at index").
_SIGNATURE = re.compile(rf"({_IDENT.pattern})\([^()]*\)\s*->\s*\S")
_METHOD_EXPRESSION = re.compile(r"\(\*?([A-Za-z_]\w*)\)\.([A-Za-z_]\w*)(?:\(\)?)?")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,31}://\S+", re.IGNORECASE)  # a scheme: 32 characters at most


def _link_name(match: re.Match[str]) -> str:
    """A link names code by its file's stem at most (``…/shared/formatProdErrorMessage.js``), never by
    its host or folders (``golang.org``, ``…/filepath/path.go`` is no ``path.go`` qualified name)."""
    last = match.group().rstrip("/.,;:)]}'\"").rsplit("/", 1)[-1]
    return " " + last.split(".", 1)[0] + " "


_EDGE = ".,;:!?()`'\""  # punctuation a sentence's word is stripped of
MAX_TERMS = 12
MAX_COMPOUNDS = 8

# Words that ask for a kind of file the ranking otherwise demotes ("tests for the retry logic"). Not
# "spec" alone: a sentence's "spec" is a specification ("the Rack spec", "the signature spec", "this
# path-spec", ``PathSpec``), where "specs" are a JavaScript project's tests.
ROLE_WORDS: dict[str, frozenset[str]] = {
    "test": frozenset(
        {
            "test",
            "tests",
            "testing",
            "tested",
            "specs",
            "unittest",
            "pytest",
            "benchmark",
            "benchmarks",
            "bench",
            "fuzz",
            "fuzzing",
            "fuzzer",
            "fuzzers",
        }
    ),
    "fixture": frozenset({"fixture", "fixtures", "testdata", "mock", "mocks", "snapshot", "snapshots"}),
    "example": frozenset({"example", "examples", "sample", "samples", "demo", "demos", "tutorial"}),
    "docs": frozenset({"doc", "docs", "documentation", "readme", "changelog", "guide", "manual"}),
    "vendored": frozenset({"vendor", "vendored", "third", "thirdparty"}),
    "generated": frozenset({"generated", "codegen", "protobuf", "pb"}),
    "compat": frozenset({"compat", "compatibility", "legacy", "deprecated", "shim", "polyfill"}),
    "stub": frozenset({"stub", "stubs", "declaration", "declarations", "typings"}),
    "hidden": frozenset(
        "hidden dotfile dotfiles github gitlab ci workflow workflows gitignore precommit editorconfig".split()  # noqa: SIM905
    ),
    "manifest": frozenset(
        {
            *("manifest", "manifests", "dependency", "dependencies", "deps", "requirements"),
            *("license", "licence", "licensing", "copyright", "build", "builds", "built"),
            *("packaging", "packaged", "publish", "install", "installation"),
            *("makefile", "pyproject", "gemspec", "gemfile", "cargo", "tox", "tsconfig"),
        }
    ),
    "reexport": frozenset({"init", "barrel", "exports", "reexport", "package"}),
}


@dataclass(frozen=True, slots=True)
class AnalysedQuery:
    """What every retriever and the ranking receive instead of the raw string."""

    text: str  # the query as given, stripped
    shape: Shape
    literal: str | None  # the text to search verbatim (literal and regex shapes)
    terms: tuple[str, ...]  # ripgrep search terms, lower-cased, most specific first
    identifiers: tuple[str, ...]  # identifier-like tokens, as written
    tokens: tuple[str, ...]  # BM25 tokens (indexer.lexical.code_tokens), distinct, in query order
    word_tokens: tuple[tuple[str, ...], ...]  # the same tokens per whitespace-separated word, in order
    words: tuple[str, ...]  # content words (three letters or more, no stop word), lower-cased
    wants: frozenset[str]  # roles the query asks for (test, docs, example, …)
    form: Form | None = None  # natural language only: what the sentence asks for (see Form)
    # Topics and questions only: runs of two or three adjacent plain words, joined, lower-cased ("json
    # element" → ``jsonelement``): the name a definition would take (``JsonElement``, ``json_element``).
    compounds: tuple[str, ...] = ()
    # Natural language only: the sentence opens by stating what a test checks ("Make sure …", "Ensure
    # …", "Test that …"): a test is what it asks for, not the code under test (see _TEST_STATED).
    states_test: bool = False
    # Natural language only: the places the text names, a stack trace's frames or a compiler's message
    # (``tornado/web.py:3413``, ``File "app/db.py", line 42``): (path as written, line), in order.
    locations: tuple[tuple[str, int], ...] = ()
    # Topics, questions and short requests: where the sentence says to look ("timeout handling in
    # simple_httpclient.py", "retries inside src/http/"): a file's path or name, or a folder ending
    # with "/", as written.
    within: tuple[str, ...] = ()
    # A request for one definition ("class Console", "where is parse_args defined"), read as a search
    # for its name: the kinds of definition it asks for (empty: any kind) and the query as it was typed
    # (see :func:`definition_request`; ``asked`` is empty for every other query).
    kinds: frozenset[str] = frozenset()
    asked: str = ""
    asked_tokens: tuple[tuple[str, ...], ...] = ()  # the ``word_tokens`` of ``asked`` (a definition's)
    # A request for a name's usages ("who calls print_json", "where is LiveRender used"), read as the
    # name quoted and matched as a whole word (see :func:`usage_request`): its usages come before the
    # chunks that define it.
    usages: bool = False
    # A function sentence only: the identifiers it compares the function it documents with ("This
    # method is like `_.findKey` except …"), which name a relative of that function, not the function
    # (see :func:`compared_with`).
    relatives: tuple[str, ...] = ()
    # …of those, the ones it compares with by likeness ("Like `memchr`, but searches for two bytes",
    # "Same as :meth:`load`, except …", "The inverse of :func:`zip`"), not the ones it stands in for
    # ("Shortcut for :meth:`route` with …"): a sibling of the function documented, which is usually
    # named from it (``memchr2``, ``loads``, ``unzip``; see :func:`compared_with`).
    siblings: tuple[str, ...] = ()
    # …of those, the ones it calls its function the opposite of ("Reverse of :meth:`dumps`.", "the
    # inverse of :func:`zip`"), which the function documented is not, whoever else shares the name; and
    # the names their opposites may have (``loads``, ``unzip``), folded as the symbol index folds names
    # (see :func:`search.engine.opposites.opposite_names`): the symbol retriever looks them up, the
    # ranking lifts a candidate that defines one.
    opposed: tuple[str, ...] = ()
    opposites: tuple[str, ...] = ()
    # A function sentence only: the identifiers it says its function overrides ("An overridden version
    # of `Time#utc` that …", "Overrides :meth:`Base.save` to …"; see :func:`overridden`): an override
    # is named as the method it overrides, in another owner. Not among ``relatives``.
    overrides: tuple[str, ...] = ()
    # A function sentence only: for a token that stands for a word code abbreviates, the tokens of the
    # short forms it writes (``configur`` → ``cfg``, ``conf``, ``config``; indexer.short_forms), which
    # the text retriever's BM25 counts as that token.
    short_forms: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # A function sentence only: the parts of names its plain words spell (see :func:`spelled_by`): the
    # symbol retriever looks up the functions so named, the ranking lifts them.
    spelled: frozenset[str] = frozenset()
    # A function sentence only: its adjacent words run together as code writes a compound (see
    # :func:`adjacent_compounds`), a part of a name of two parts or more: "in-place" spells
    # ``fill_inplace``. Not in ``spelled``: a one-part name run together from two words is spelled as
    # two parts.
    spelled_joined: frozenset[str] = frozenset()
    # A function sentence only: the numeric types it names by width ("an unsigned 64 bit integer",
    # "single-precision", "a []int32"), as names write them: ``u64``, ``i8``, ``f32`` (see
    # :func:`type_widths`). Of ``read_u16`` … ``read_u64``, the width tells which one it documents.
    widths: frozenset[str] = frozenset()
    # A function sentence only: the names (normalised) of the object it calls "this" or "the `Type`",
    # and of the object it makes new (see :func:`_receivers_named`): the symbol retriever offers the
    # methods of the first, the ranking names a method with its class.
    receivers: frozenset[str] = frozenset()
    made: frozenset[str] = frozenset()
    # Natural language only: the sentence is a test's own, by what it states (``states_test``), the
    # test's name it opens with or a claim about how code behaves (see _CLAIM): what it is about is the
    # code under test, not what it asks for. Not the language of a specification alone ("… must be
    # called without arguments"), which a definition's docstring speaks too (see _SPEC).
    tests_claim: bool = False

    @property
    def opens_with_name(self) -> bool:
        """A function sentence of the "Name verbs …" convention: its first word is its first identifier
        ("BindJSON is a shortcut for c.MustBindWith(obj, binding.JSON)."; see :func:`named_in_sentence`
        for a name the symbol index confirms). Any other function sentence names what its function
        takes, returns or works on, not the function."""
        signature = _SIGNATURE.match(self.text)
        first = (signature[1],) if signature else tuple(w.rstrip(",:;") for w in self.text.split()[:1])
        return self.form == "function" and self.identifiers[:1] == first

    def opening_word(self, *, verb: bool = False) -> str | None:
        """The first word of a function sentence that may be the name it documents, "Name verbs …"
        ("Usage puts out the usage …", "Is gets whether …"): its second word ends with an "s" (with
        ``verb``, is a doc verb in the third person, as in "Return specifies the return arguments …",
        not a plural noun, as in "Get items from the cache").
        :func:`named_in_sentence` names it where the index defines it; the symbol leg looks it up
        as written (with ``verb``) even where it is a word too common to search for."""
        words = self.text.split()
        if self.form != "function" or len(words) < 3 or not _IDENT.fullmatch(words[0]):
            return None
        second = words[1].strip(_EDGE).lower()
        if verb:
            return words[0] if names_verb(second) else None
        return words[0] if second.endswith("s") and second not in _DETERMINERS else None

    @property
    def phrase(self) -> str:
        """The query with its whitespace normalised: what "occurs verbatim" means for a sentence."""
        return collapsed(self.text)

    @property
    def spaced(self) -> str | None:
        """The query as written where its spacing is not single spaces ("spam       41.9999", a row of
        an aligned table): ripgrep, given it, finds that spacing only; ``None`` otherwise."""
        return self.text if self.text != self.phrase else None

    @property
    def names(self) -> tuple[str, ...]:
        """The names a symbol lookup should try: the identifiers, else the whole identifier query."""
        if self.identifiers:
            return self.identifiers
        return (self.text,) if self.shape == "identifier" else ()


_LETTERS = re.compile(r"[A-Za-z]+")
_GAPS = re.compile(r"[ \t\n\r\f\v]+")  # what separates the words of a phrase: ASCII whitespace


def collapsed(text: str) -> str:
    """``text`` with each run of spaces, tabs and line breaks one space, trimmed: how a phrase is
    compared when it "occurs verbatim". Only ASCII whitespace separates words; a non-breaking space or
    another Unicode space ("h\\xa0ref" in a test of CSS escapes) is a character the text holds, as
    ripgrep reads it, and a phrase holding one is found where the code holds that character."""
    return _GAPS.sub(" ", text).strip(" ")


def plain_words(text: str, identifiers: Sequence[str]) -> list[str]:
    """A sentence's words, letters only, lower-cased, once the identifiers it mentions are taken out
    ("… carries a *time.Duration.": names it mentions, not the name of the function it documents). A
    short one of letters and digits, in mixed case or with a digit and not written as code, stays a
    word: "an AoT", "a NumPy record array", "the URLs" spell ``_parse_aot``, ``numpy`` and ``urls`` as
    prose does."""
    for ident in identifiers:
        if not (_WORDLIKE.fullmatch(ident) and f"`{ident}" not in text and f"{ident}`" not in text):
            text = text.replace(ident, " ")
    return [w.lower() for w in _LETTERS.findall(text)]


_WORDLIKE = re.compile(r"(?=.*[A-Z0-9])[A-Za-z][A-Za-z0-9]{1,5}")


def adjacent_compounds(words: list[str]) -> frozenset[str]:
    """Each two adjacent plain ``words`` of a sentence written as code writes a compound, run
    together, and its stem: "in-place" is ``inplace`` (textwrap's ``fill_inplace``), "set up"
    ``setup``, "file name" ``filename``, "read-only" ``readonly``. Two letters or more each, not both
    stop words ("in it" is no ``init``)."""
    # each word as written or as a short form of it, run together: "environment variable" is
    # ``environmentvariable`` and ``envvar``, "configuration file" ``cfgfile`` (pycparser's
    # ``parse_cfgfile``)
    pairs = [
        x + y
        for a, b in pairwise(words)
        if compound_pair(a, b)
        for x in (a, *_short_forms_of(a))
        for y in (b, *_short_forms_of(b))
    ]
    return frozenset(pairs) | frozenset(stem_words(pairs)) if pairs else frozenset()


def _short_forms_of(word: str) -> tuple[str, ...]:
    """The short forms code writes for ``word`` (``indexer.ABBREVIATIONS``, ``indexer.NAME_FORMS``)."""
    return (*ABBREVIATIONS.get(word, ()), *NAME_FORMS.get(word, ()))


def compound_pair(a: str, b: str) -> bool:
    """Two adjacent lower-case words that may be one compound run together: two letters or more each,
    not both stop words."""
    return len(a) > 1 and len(b) > 1 and not (a in STOP_WORDS and b in STOP_WORDS)


def spelled_by(words: list[str]) -> frozenset[str]:
    """The parts of names that a sentence's plain ``words`` spell: the words as written and stemmed,
    the short forms code writes for them (``env`` for "environment", ``indexer.ABBREVIATIONS``; ``mut``
    for "mutable", ``indexer.NAME_FORMS``), the prefix an accessor's name carries where the opening
    says what it returns ("Returns the help option object.": ``get_help_option``; "Return a raw
    pointer to the vector's buffer.": ``as_ptr``; "Return True if the cookie should be secure.":
    ``is_secure``), the ``clear`` of a method that empties its object ("Remove all items …"), the
    ``len`` of one that counts its items ("Returns the number of bytes …"), and the ``on`` of an
    event's listener ("The listener of the socket `'data'` event.": ``socketOnData``)."""
    if not words:
        return frozenset()
    short = [a for w in words for a in _short_forms_of(w)]
    abbreviated = frozenset(short) | frozenset(stem_words(short)) if short else frozenset()
    return (
        frozenset(words)
        | frozenset(stem_words(words))
        | _accessor_words(words)
        | _emptying(words)
        | _counting(words)
        | _listening(words)
        | abbreviated
    )


# Words joined by hyphens, letters only: "repeater-month-name", "time-to-live" (not inside a name)
_HYPHENATED = re.compile(r"(?<![\w-])[A-Za-z]+(?:-[A-Za-z]+){1,4}(?![\w-])")


def initialisms(text: str) -> frozenset[str]:
    """The initials of each run of words a sentence joins by hyphens, lower-cased: the part a name
    writes for such a term ("Handle repeater-month-name/scalar-day" spells ``handle_rmn_sd``,
    "time-to-live" ``ttl``, "least-recently-used" ``lru``)."""
    return frozenset("".join(w[0] for w in m[0].split("-")).lower() for m in _HYPHENATED.finditer(text))


# The verbs a getter's or a predicate's documentation opens with (the name's other parts must still be
# the sentence's words)
GETTER_OPENERS = frozenset({"return", "returns", "get", "gets", "fetch", "fetches", "retrieve", "retrieves"})
_PREDICATE_OPENINGS = frozenset({("true", "if"), ("true", "when"), ("whether",), ("true", "iff")})
# The verbs a predicate's documentation opens with before "if" or "whether" ("Check if the given type
# maps to a Tree": ``isTree``; "Determines whether the cursor is at a boundary": ``is_boundary``)
_ASKING = frozenset(
    "check checks determine determines test tests tell tells report reports decide decides".split()  # noqa: SIM905
)


_WIDTHS = "|".join(NUMERIC_WIDTHS)
# "unsigned 64 bit integer", "signed 8-bit integers", "a 32-bit float", "64 bits"
_BITS = re.compile(rf"\b(?:(un)?signed\s+)?({_WIDTHS})[- ]?bits?\b(?:[- ](\w+))?", re.IGNORECASE)
_PRECISION = re.compile(r"\b(half|single|double)[- ]precision\b", re.IGNORECASE)
# a type written by its name: "as a int16", "the []uint32", "a `f64`" (not inside a longer name)
_TYPE_NAME = re.compile(rf"(?<![\w.])(u?int|float|[iuf])({_WIDTHS})(?!\w)", re.IGNORECASE)
_PRECISIONS = {"half": "f16", "single": "f32", "double": "f64"}
_FLOAT_WORDS = frozenset({"float", "floating", "floats", "double", "doubles", "real", "reals"})
_INTEGER_WORDS = frozenset({"integer", "integers", "int", "ints", "number", "numbers", "value", "values"})


def type_widths(text: str) -> frozenset[str]:
    """The numeric types a sentence names, each as a short type name writes it: a sign or kind letter
    and a width in bits (``u64``, ``i8``, ``f32``). "an unsigned 64 bit integer" is ``u64``, "signed
    8 bit integers" ``i8``, "a 64-bit integer" either, "a 32-bit float" and "single-precision"
    ``f32``; a type written by its name (``int16``, ``uint32``, ``float64``, ``u8``) is itself, where
    the sentence names no width in words."""
    found: set[str] = set()
    for m in _BITS.finditer(text):
        unsigned, bits, after = m[1], m[2], (m[3] or "").lower()
        if after in _FLOAT_WORDS:
            found.add(f"f{bits}")
        elif m[0].lower().startswith(("signed", "unsigned")):
            found.add(f"{'u' if unsigned else 'i'}{bits}")
        elif after in _INTEGER_WORDS:  # "the upper 64 bits of the result" is a size, not a type
            found |= {f"i{bits}", f"u{bits}"}
    found |= {_PRECISIONS[m[1].lower()] for m in _PRECISION.finditer(text)}
    if found:  # "Reads an unsigned 24 bit integer …, stored in u32": a type named beside is another's
        return frozenset(found)
    return frozenset(f"{m[1][0].lower()}{m[2]}" for m in _TYPE_NAME.finditer(text))


def implies_get(words: list[str]) -> bool:
    """Whether a sentence's opening implies a getter's ``get`` without writing it: "Returns the
    literals …" documents ``get_literals`` or a property ``literals`` alike (Go's and Rust's getters
    carry no ``get`` either); not "Get the event loop", which writes it, nor "Return True if …", whose
    ``is`` and ``has`` a predicate's name keeps."""
    return bool(words) and "get" in _accessor_words(words) and "get" not in stem_words(words)


# The prefixes of the names of accessors that return something: a getter's ``get``, and the ``as`` of
# one that returns a view of its object as another type (Rust's "Return a raw pointer to the
# vector's buffer.": ``as_ptr``; "Returns a `&str` slice of this `SmolStr`.": ``as_str``)
_GETTER_PREFIXES = frozenset({"get", "as"})


def _accessor_words(words: list[str]) -> frozenset[str]:
    """The prefixes of accessor names that the opening of a sentence's ``words`` spells: ``get`` and
    ``as`` for "Returns …" (:data:`_GETTER_PREFIXES`), ``is`` and ``has`` for a predicate's "Return
    True if …", "Returns whether …", "Check if …", "Determines whether …" and "Whether …"."""
    if words[0] == "whether" or (words[0] in _ASKING and words[1:2] in (["if"], ["whether"])):
        return frozenset({"is", "has"})
    if words[0] not in GETTER_OPENERS:
        return frozenset()
    rest = tuple(words[1:3])
    if rest[:1] in _PREDICATE_OPENINGS or rest in _PREDICATE_OPENINGS:
        return frozenset({"is", "has"})
    return _GETTER_PREFIXES


# The verbs that take things out, which a sentence opening with one and "all" says of a method that
# empties its object: "Remove all values from sorted list." documents ``SortedList.clear``, as
# "Removes all elements from the table …" does ``RawTable::clear`` and "Discard all sessions
# cookies." guzzle's ``clearSessionCookies``
_REMOVING = frozenset(
    "remove removes delete deletes erase erases drop drops discard discards unset unsets purge purges".split()  # noqa: SIM905
)


def empties(words: Sequence[str]) -> bool:
    """A sentence whose ``words`` open with a verb that takes things out and "all" ("Remove all items
    from …"): what a method that empties its object is documented with."""
    return bool(words) and words[0] in _REMOVING and list(words[1:2]) == ["all"]


def _emptying(words: list[str]) -> frozenset[str]:
    """``clear``, the name a method that empties its object is given, where a sentence's ``words``
    empty it (:func:`empties`); nothing otherwise."""
    return frozenset({"clear"}) if empties(words) else frozenset()


def _receivers_named(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names (normalised) of the object a method's documentation calls "this" ("… for this
    match.", "… in this non-contiguous NFA.", "this `Span`") or "the" with a type written as code
    ("… in the `ArrayVec`.") or with the words that close a clause ("… from the trie.",
    :func:`_closing_object`), and, where the sentence opens with a verb that makes one, of the object
    it makes new ("Create a new `BytesMut` with …", "Creates a new UTC {Timestamp}."): up to
    :data:`_RECEIVER_WORDS` words after "this" or "new", to a stop word or the end of a clause, each
    alone and run together ("cookie jar": ``CookieJar``), a qualified name by its last part too
    (``Rack::Builder``). Read once, into :attr:`AnalysedQuery.receivers` and ``made``."""
    tokens = text.split()
    opening = tokens[0].lower() if tokens else ""
    makes = opening in _MAKING_NEW or opening.removesuffix("s") in _MAKING_NEW
    this: set[str] = set()
    new: set[str] = set()
    for i, token in enumerate(tokens):
        trigger = token.strip(_NAME_EDGES).lower()
        if (
            trigger == "the"
            and tokens[i + 1 : i + 2]
            and (tokens[i + 1].startswith("`") or _closing_object(tokens, i + 1))
        ):
            # "the `ArrayVec`": a type written as code is the object meant; and so are the words that
            # close a clause after "the" ("Removes all the values from the trie.": ``Trie.clear``)
            trigger = "this"
        if trigger != "this" and not (trigger == "new" and makes):
            continue
        out = this if trigger == "this" else new
        run: list[str] = []
        for after in tokens[i + 1 : i + 1 + _RECEIVER_WORDS]:
            bare = after.strip(_NAME_EDGES).removesuffix("'s")  # "this section's header": ``Section``
            if not bare or bare.lower() in STOP_WORDS:
                break
            run.append(normalise(bare))
            out.add(run[-1])
            out.add(normalise(bare_name(bare)))
            if len(run) > 1:
                out.add("".join(run))
            if _closes_clause(after):
                break
    return frozenset(this - {""}), frozenset(new - {""})


def _closes_clause(token: str) -> bool:
    """Whether a sentence's ``token`` ends its clause: a mark after it, past closing quotes."""
    return token.rstrip("`'\"*]}")[-1:] in ",.;:!?"


def _closing_object(tokens: list[str], start: int) -> bool:
    """Whether the words from ``tokens[start]`` on, up to :data:`_RECEIVER_WORDS` of them and none a
    stop word, end a clause or the sentence: the object a method's documentation acts on, named last
    ("Add a single field to the Entry.", "… in the cookie jar", "Returns the parsed header links of
    the response, if any."). Not the words after "the" before more of the clause ("Update the hash
    state with …": the state is what the method changes, not its object)."""
    for k, token in enumerate(tokens[start : start + _RECEIVER_WORDS], start):
        bare = token.strip(_NAME_EDGES)
        if not bare or bare.lower() in STOP_WORDS:
            return False
        if _closes_clause(token) or k == len(tokens) - 1:
            return True
    return False


_RECEIVER_WORDS = 3  # the words after "this" (or "a new") that may name the object meant
_NAME_EDGES = _EDGE + "[]{}*"  # what a word of a sentence is stripped of to read it as a name
# The verbs a constructor's documentation opens with ("Create a new …", "Constructs a new …")
_MAKING_NEW = frozenset({"create", "construct", "instantiate", "make", "build"})  # and their "s" forms


# The words of a sentence that documents a function run on an event: the listener or handler itself
# ("The listener of the socket `'data'` event.", "The `Sender` error event handler."), or when it is
# fired. Not "callback", which as often documents what registers or calls one ("Add a new enter or
# exit callback.", "This function calls a provided callback …").
_LISTENING = frozenset({"listener", "listeners", "handler", "handlers", "fired", "whenever"})


def _listening(words: list[str]) -> frozenset[str]:
    """``on``, the part code names an event's listener with (``socketOnData``, ``on_partial``), where a
    sentence's ``words`` document one (:data:`_LISTENING`); nothing otherwise."""
    return frozenset({"on"}) if _LISTENING.intersection(words) else frozenset()


def _counting(words: list[str]) -> frozenset[str]:
    """``len``, the name code gives what counts the items of its object, where a sentence's ``words``
    say "number of" ("Returns the number of bytes contained in this `Bytes`."); nothing otherwise."""
    return frozenset({"len"}) if any(a == "number" and b == "of" for a, b in pairwise(words)) else frozenset()


def looks_like_identifier(token: str) -> bool:
    """``UploadSession``, ``upload_session``, ``pkg.Type.Method``, ``ns::f``, ``getX`` (not ``upload``)."""
    if not _IDENT.fullmatch(token):
        return False
    if any(sep in token for sep in (".", "::", "->", "#")) or "_" in token.strip("_"):
        return True
    # camelCase, PascalCase with a second capital, ACRONYMWord, name2: a capitalised word is not enough
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z]\d", token))


def _identifiers(text: str, dialects: bool) -> list[str]:
    """The identifier-like tokens of ``text``; with ``dialects``, names as some languages write them
    (:func:`in_dialect`): a Lua method (``Picker:find``), a predicate's or bang method's ``?`` or ``!``
    where the name is called or the sentence goes on after it ("set_cookie_header!(headers, key)", "does
    has_header? look at …"; not a question's closing mark), a prime not followed by a letter (``foldl'``,
    not ``Console's``)."""
    found = []
    pattern = _METHOD if dialects else _IDENT
    pos = 0
    while m := pattern.search(text, pos):
        name, start, end = m.group(), m.start(), m.end()
        mark = text[end : end + 1]
        if dialects and m[2] and (text[start - 1 : start] == ":" or mark in (":", ".")):
            # reST's ``:py:class:``, JSDoc's ``module:Collections.map``: no Lua method
            name, end = m[1], m.end(1)
        pos = end
        if looks_like_identifier(dotted(name)):
            found.append(name + (_mark(text, start, end) if dialects else ""))
    return found


def _mark(text: str, start: int, end: int) -> str:
    """The ``?``, ``!`` or primes that belong to the name at ``text[start:end]``: a mark where the name
    is called or the sentence goes on after it, primes not followed by a letter and not a quote's end
    ('name'); ``""`` if none."""
    mark, after = text[end : end + 1], text[end + 1 : end + 2]
    if mark in ("?", "!") and (after == "(" or (after.isspace() and text[end + 2 :].strip())):
        return mark
    if mark == "'" and text[start - 1 : start] != "'":
        primes = len(text[end:]) - len(text[end:].lstrip("'"))
        if not text[end + primes : end + primes + 1].isalnum():
            return "'" * primes
    return ""


def in_dialect(name: str) -> bool:
    """Whether ``name`` is written as only some languages write names: ``empty?``, ``save!``, ``foldl'``,
    ``Picker:find``; a query holding one reads it so only where the symbol index defines it as written."""
    return name[-1:] in ("?", "!", "'") or _LUA_COLON.search(name) is not None


def content_words(words: list[str]) -> list[str]:
    """The words (as :data:`_WORD` finds them) of three or more letters that are not stop words."""
    return [w for w in words if len(w) >= 3 and w.lower() not in STOP_WORDS]


def search_term(word: str) -> str:
    """The substring ripgrep looks for so that every word the stemmer folds with ``word`` matches:
    the prefix the word shares with its stem (``configuration`` → ``configur``), at least 4 letters."""
    low = word.lower()
    stem = stem_words([low])[0] if low.isalpha() else low
    n = next((i for i, (a, b) in enumerate(zip(low, stem, strict=False)) if a != b), min(len(low), len(stem)))
    common = low[:n]
    return common if len(common) >= 4 else low


_TEST_NAME = re.compile(r"(?:Test[A-Z0-9_]|test_)\w")  # a test's name: Go's TestXxx, Python's test_xxx
# The language of a specification: an expectation ("… should …", "… must …", "… is raised if …") or an
# opening that asks for one to hold ("Ensure …", "Verify …", "Make sure …", "Check that …", "Assert
# …", "Raises ValueError if …").
_SPEC = re.compile(
    r"\b(?:should|shouldn't|must|(?:is|are) raised)\b|^(?:ensures?|verify|verifies|make sure|checks? that|asserts?|raises)\b",
    re.IGNORECASE,
)
# Words ending in "ing" that are no verb's -ing form: a sentence opening with one is no gerund's topic.
_ING_NOUNS = frozenset(
    "string thing nothing something anything everything during sibling ring spring king wing ceiling"  # noqa: SIM905
    " morning evening".split()
)
# Words ending in "ing" that are a verb's -ing form and a noun as often ("the encoding", "a mapping").
_NOUN_GERUNDS = frozenset({"encoding", "setting", "mapping", "binding", "padding"})
# A claim about how code behaves, which a test's docstring makes and a definition's does not. Each form
# below, counted on the quality corpora's docstrings (and, from the forty-ninth session, on fresh
# projects' too); none of them matches a query of the peer suite's tuning half.
_CLAIM_FORMS = (
    # A call as the sentence's subject ("copy() preserves the name.", "optional() doesn't crash when …",
    # "retry_with(enabled=False) disables retrying.", under a condition: "With a name, str() returns the
    # given name.", or equal to another: "Specifier(str(Specifier(s))) == Specifier(s)."); a
    # definition's own documentation does not write itself as a call, a signature line does with its
    # arguments: "pop(index) -> remove the item …".
    r"^(?:(?:if|when|with|without|given|once|unless)\b[^,]{1,60},\s*)?`*[\w.]+"
    r"\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)`*"
    r"(?:\s+(?!->)[a-z']|\s*(?:==|!=|<=|>=)\s)",
    # That it can be done ("Retrying objects can be pickled.", "slots can be deactivated.", participles
    # that do not end in -ed too: "can be set"); not a relative clause, "… that can be reused", nor what
    # it can be used for, which documents it: "NoFileCompletions can be used to disable …" ("A custom
    # handler can be used." says nothing of what for).
    r"^(?=.*\.$)(?!(?:can|whether)\b)(?:[^\s,]+\s+){1,6}?(?<!that )(?<!which )(?<!it )can(?:not|'t)? be "
    r"(?:(?!used\s+(?:to|for|as|in|with|by|when|instead|like)\b)\w+ed|set|made|done|read|run|put|built|found|kept"
    r"|thrown|written|given|taken|shown|seen|sent|hidden|held|bound|split|reset|unset)\b",
    # That something works ("Importing from attrs.setters works.", "Pickle serialization works on all
    # kinds of classes."): a sentence with its period, not a complaint, "retry doesn't work", not a
    # comparison, "This works exactly like …", nor a relative clause, "… that only works when …".
    r"^(?=.*\.$)(?!works?\b).*(?<!\bthat)(?<!which)(?<!\bonly)(?<!\bthis)(?<!\bit)(?<!n't)(?<!\bnot)\sworks?"
    r"(?:[.!]?$|\s+(?:with|on|for|as|correctly|properly|again|fine|too|even)\b)",
    # The case a keyword argument's setting sets up, written as Python writes it outside code markup
    # ("When enabled=False, the function is called directly.", "Pre-releases are excluded when
    # prereleases=False."), where a definition's docstring marks code up (``strict=True``) or says "If
    # strict is true"; Go's field settings ("Hidden=false") are not Python's constants, and a search of
    # fewer than five words ("retry with reraise=True") looks for the setting, not for a test's sentence.
    r"^(?=(?:\S+\s+){4}\S).*?(?-i:(?<![\w`'\"=.])[a-z_][a-z0-9_]*=(?:True|False|None)\b(?![`'\"]))",
    # A case followed by what then holds, its subject first ("If a converter is used, it is piped
    # through the hooks.", "If the value is callable, nothing happens.", "If …, then we traverse …"),
    # where a definition's docstring goes on with what the function does then ("If the file is missing,
    # return None."): 23 of the tests' docstrings (in eight projects) and 5 of real code's.
    r"^(?:if|when|unless|once)\b[^,]{3,80},\s+(?:then\s+)?"
    r"(?:it|they|there|nothing|no|the|a|an|this|that|we|its|their)\b",
    # That something is possible ("It's possible to unbind a value.").
    r"^it(?:'s| is) (?:not )?possible to\b",
    # What the code under test will do, its subject a pronoun ("It will trigger an error when less
    # than 2 blank lines are found …", "This will deadlock on a cache that uses a regular lock."): 20
    # of the tests' docstrings (in two projects), none of real code's, which opens with its verb.
    r"^(?:it|this) will\s",
    # What happens, in the passive, its subject first ("Newlines in values are escaped.", "Calls to a
    # closed pool get rejected."), where a definition's docstring opens with its verb ("Return the
    # headers that are sent") or puts the passive in a condition ("Check if the cookie is expired.",
    # "Whether debug mode is enabled.") or in a clause that says how or what ("Override how a
    # particular field is handled."): 30 of the tests' and one of real code's (a Go doc comment,
    # "Reset is intended for testing").
    r"^(?=.*\.$)(?!(?:returns?|this)\b)(?:(?!(?:if|whether|when|whenever|before|after|that|which|while|until|once|unless|where|because|how|what|why)\b)[\w'`-]+\s+){1,5}?"
    r"(?<!\bto )(?:is|are|get|gets)\s+(?:not\s+|also\s+|always\s+|never\s+|correctly\s+|properly\s+)?(?!used\b)[a-z]+ed\b(?!\s+(?:if|when|whenever)\b)",
    # A subject with an article, then what it does or is ("A broken ``__repr__`` does not break the hook
    # call.", "A block stays attached to its key."), where a definition's docstring is a noun phrase ("A
    # context manager that …", "The base class for …"), says what a class is ("A `CanceledError` is an
    # object that …") or a predicate's condition ("A stream is misconfigured if …"): none of real code's.
    r"^(?=.*\.$)(?:a|an|the)\s+(?:(?!(?:that|which|who|whose|where|when|if|to|for)\b)[\w'`@.()-]+\s+){1,5}?"
    r"(?:(?:is|are)\s+(?!(?:a|an|one|the|used|simple)\b)(?!\w+\s+if\b)|(?:does|do|has|have|stays|becomes|takes|raises|emits|sorts|keeps|wins|gets|carries)\s)",
    # A test's narration, in the first person ("We don't traverse into an anyOf …", "Our fallback
    # handling …"), or what does not happen ("There is no RecursionError when …"): 15 of the tests',
    # none of real code's.
    r"^(?:we|our)\s",
    r"^there (?:is|are) no\b",
    # What doing something does, a gerund its subject ("Incrementing the last release segment produces
    # a greater version.", "Nesting beyond the depth limit raises ParseError.", "Using a global name in
    # a decorator results in no warnings."): 24 of the tests', none of real code's, which says what a
    # setting permits in the passive ("Removing files … is not permitted."); a gerund that is a noun as
    # often ("Encoding", "Mapping", "Setting") does not count.
    rf"^(?=.*\.$)(?!(?:{'|'.join(sorted(_ING_NOUNS | _NOUN_GERUNDS))})\b)[a-z]+ing\b(?:\s+[^\s,]+){{1,8}}?\s+"
    r"(?:results?\s+in|causes?|raises?|gives?|produces?|leads?\s+to|works?|fails?|triggers?|emits?|generates?"
    r"|can(?:not)?|should|does(?:n't)?|doesn't)\b",
)
_CLAIM = re.compile("|".join(_CLAIM_FORMS), re.IGNORECASE)


# Imperatives only: "Ensures the directory exists." and "Verifies the signature." document code. "Test"
# (or "Benchmark", a test that times what it names: "Benchmark ljust() with an ASCII string.") with
# what it tests ("Test structuring Optional primitive types."), not a predicate's "Test for …",
# "Test whether …", "Test if …" or "Test to see if …".
_TEST_STATED = re.compile(
    r"^(?:this\s+tests?\s+that|this\s+test|regression\s+test|make\s+sure|ensure|verify)\b"
    r"|^(?:tests?|benchmarks?)\s+(?!(?:whether|if|for|to)\b)(\w+)",
    re.IGNORECASE,
)


_STATED_WORDS = 5  # a stated test is a sentence: fewer words than this are a search for code


def _states_a_test(text: str) -> bool:
    """A test's own docstring states what it checks ("Test that the cookie is kept.", "Tests that no
    JSON is rendered …", "This tests that one can reset the flags.", "This test makes sure …", "Make
    sure ``next`` advances the iterator", "Ensure tabulate accepts a count", "Verify …", "Regression
    test for …", "Test structuring Optional primitive types.", "Tests prepending in front of an empty
    iterable"), where "Test for executable file." or "Test whether the path exists." is a predicate's,
    "Test sets the test struct variable …" names a definition ``Test`` and "Check that an object is
    callable, else raise …" is how a validator documents itself as often as a test does. Of the Python
    docstrings opening so in the development corpora and the peer suite's tuning half, 126 are in test
    files and 4 in code (paths with "test" in them or not)."""
    found = _TEST_STATED.search(text)
    if found is None:
        return False
    after = (found[1] or "").lower()
    if after == "that" or text[:5].lower() == "this ":
        return True  # "Test that …", "This test …": a test's, however short
    if len(text.split()) < _STATED_WORDS and not (found[1] and text.rstrip().endswith(".")):
        # "verify jwt signature", "ensure dir exists", "test runner config": words for code; "Test the
        # Bytes() function." and "Test repr of ``Node``." end as sentences do, a test's docstring
        return False
    return not names_verb(after)


def _a_statement(text: str, words: list[str]) -> bool:
    """Not a question: no question mark, no question word first ("where should retries happen")."""
    return not text.endswith("?") and bool(words) and words[0].lower() not in _QUESTION_WORDS


def _roles(words: list[str]) -> frozenset[str]:
    """The roles ``words`` ask for: a role's word, alone or as a part of a name the query writes
    ("returns a ``MockResponse``" is about mocks, "``TestClient``" about tests)."""
    low = {w.lower() for w in words}
    low |= {p.lower() for w in words if looks_like_identifier(w) for p in identifier_parts(w)}
    return frozenset(role for role, asks in ROLE_WORDS.items() if low & asks)


def _read_words(
    text: str,
) -> tuple[list[str], tuple[tuple[str, ...], ...], tuple[str, ...], tuple[str, ...]]:
    """``text``'s words (:data:`_WORD`), its BM25 tokens per word (the one tokenisation of a query),
    those tokens distinct in order, and its content words lower-cased, distinct."""
    all_words = _WORD.findall(text)
    per_word = phrase_tokens(text)
    tokens = tuple(dict.fromkeys(t for word in per_word for t in word))
    return all_words, per_word, tokens, tuple(dict.fromkeys(w.lower() for w in content_words(all_words)))


def analyse(text: str, *, regex: bool = False, dialects: bool = False) -> AnalysedQuery:
    """Decode ``text``: quoted → literal; ``regex`` → regex; one identifier (or up to three
    identifier-like tokens, or a name called without arguments, ``Console()``) → identifier; anything
    else → natural language. With ``dialects``, a name's ``?``, ``!`` or prime and a Lua method's colon
    are part of it (Ruby's ``empty?``, ``save!``, Haskell's ``foldl'``, Lua's ``Picker:find``); without,
    they are read as punctuation (Rust's ``println!`` calls the macro ``println``): a search reads them
    so where its symbol index defines such a name (:meth:`search.engine.engine.Engine.analyse`)."""
    q = text.strip()
    all_words, per_word, tokens, words = _read_words(q)
    wants = _roles(all_words)
    if regex:
        return AnalysedQuery(q, "regex", q, (), (), tokens, per_word, words, wants)
    if len(q) >= 2 and q[0] == q[-1] and q[0] in "\"'`":
        inner = q[1:-1]
        idents = tuple(_IDENT.findall(inner))
        return AnalysedQuery(q, "literal", inner, (inner.lower(),), idents, tokens, per_word, words, wants)
    if _ROLE.search(q):
        # ":class:`Arrow`", ":meth:`Flask.route`": reST's markup says what the name is, it is no word of
        # the sentence ("class" would match every class): the words are read without it
        all_words, per_word, tokens, words = _read_words(_ROLE.sub(" ", q))
    expression = _METHOD_EXPRESSION.fullmatch(q)
    if expression:  # Go's method expression ``(*Server).Serve``: the method ``Server.Serve``
        return analyse(f"{expression[1]}.{expression[2]}", dialects=dialects)
    called = _CALLED.fullmatch(q)
    if called and (dialects or not in_dialect(called[1])):
        return analyse(called[1], dialects=dialects)  # "Console()", "print_json(": the name called
    spaced = q.split()
    file = names_a_file(q)
    # "… adapted from https://golang.org/src/path/filepath/path.go": a link, not golang.org or path.go
    # … and a file's name is no qualified name: ``segment.py`` is not ``py`` in ``segment``
    identifiers = tuple(t for t in _identifiers(_URL.sub(_link_name, q), dialects) if not names_a_file(t))
    signature = _SIGNATURE.match(q)
    if signature and signature[1] not in identifiers:  # "pop(index) -> …": ``pop``, however plain
        identifiers = (signature[1], *identifiers)
    if file:
        identifiers = ()  # ``live_render.py`` names a file, not ``py`` in ``live_render``
    elif len(spaced) == 1 and (_IDENT.fullmatch(q) or (dialects and _MARKED.fullmatch(q))):
        return AnalysedQuery(q, "identifier", None, (q.lower(),), (q,), tokens, per_word, words, wants)
    terms: list[str] = []
    for w in all_words:
        low = w.lower()
        if low in STOP_WORDS or len(low) < 3:
            continue
        t = low if looks_like_identifier(w) else search_term(low)
        if t not in terms:
            terms.append(t)
    if not terms:
        terms = [w.lower() for w in all_words if len(w) >= 2][:8]
    if (
        not file
        and len(spaced) <= 3
        and all(_IDENT.fullmatch(t) and looks_like_identifier(t) for t in spaced)
    ):
        return AnalysedQuery(q, "identifier", None, tuple(terms), identifiers, tokens, per_word, words, wants)
    form = sentence_form(q)
    stated = _states_a_test(q)
    if form == "function" and _roles(all_words[:1]) and not stated:
        wants = _roles(all_words[1:])  # "Test for executable file.", "Mock the clock": a verb, no role asked
    claimed = bool(all_words) and (_TEST_NAME.match(all_words[0]) is not None or _CLAIM.search(q) is not None)
    specifies = claimed or _SPEC.search(q) is not None
    a_statement = form == "function" or _a_statement(q, all_words)
    if stated or (specifies and a_statement):
        # "TestReportCaller verifies that …" documents a test; "A 303 redirect should remove the request
        # body.", "Ensure headers containing leading whitespace raise …" and, without the period of a
        # function sentence, "Name normalization function should be called only once" are how tests
        # state what they check: tests are asked for as much as code, and more than code where the
        # sentence opens by stating one (``stated``). A question is not a statement ("where should
        # retries happen").
        wants |= {"test"}
    # A function sentence spells what its definition takes or returns ("Return the running event
    # loop"), not the definition: compounds are looked for in topics and questions only.
    joined = compounds(spaced) if form == "area" else ()
    overrides = overridden(spaced, identifiers) if form == "function" else ()
    relatives = compared_with(spaced, identifiers) if form == "function" else ()
    relatives = tuple(r for r in relatives if r not in overrides)
    siblings = compared_with(spaced, identifiers, _LIKENESS) if relatives else ()
    siblings = tuple(r for r in siblings if r not in overrides)
    opposed = compared_with(spaced, siblings, _OPPOSING) if siblings else ()
    opposites = tuple(dict.fromkeys(n for r in opposed for n in opposite_names(bare_name(r))))
    plain = plain_words(q, identifiers) if form == "function" else []
    # "Like :func:`escape` but treats None as the empty string." names ``escape`` as the function it
    # compares its own with, not as a word of what its own does: that mention spells no name (a word
    # written again, "Like :meth:`loads` but loads from a file.", still does; a mention written as an
    # identifier, ``IO#read``, is no plain word already)
    taken = {bare_name(i).lower() for i in identifiers}
    for relative in dict.fromkeys(bare_name(r).lower() for r in relatives):
        if relative in plain and relative not in taken:
            plain.remove(relative)
    receivers, made = _receivers_named(q) if form == "function" else (frozenset(), frozenset())
    return AnalysedQuery(
        q,
        "natural",
        None,
        tuple(terms[:MAX_TERMS]),
        identifiers,
        tokens,
        per_word,
        words,
        wants,
        form,
        joined,
        stated,
        ((q, 1),) if file else locations(q),
        # a short request ("split cells in segment.py"), not a function's documentation that mentions a
        # file ("Read the settings in setup.py and return them.")
        within_paths(spaced)
        if form == "area" or (len(spaced) <= _WITHIN_WORDS and not q.endswith("."))
        else (),
        relatives=relatives,
        overrides=overrides,
        siblings=siblings,
        opposed=opposed,
        opposites=opposites,
        # a function's documentation writes in words what its code names in short forms (the
        # configuration it loads, ``cfg``); a topic's words name a concept, whose short forms are
        # every handler's variables (``req``, ``res``)
        short_forms=short_forms(tokens) if form == "function" else (),
        spelled=spelled_by(plain) | initialisms(q) if len(plain) >= 2 else frozenset(),
        spelled_joined=adjacent_compounds(plain),
        widths=type_widths(q) if form == "function" else frozenset(),
        receivers=receivers,
        made=made,
        tests_claim=stated or (claimed and a_statement),
    )


# What a doc sentence says before the name of another function it calls its own the opposite of:
# "the reverse of :func:`pluralize`", "Inverse of :func:`os.path.expanduser`".
_OPPOSING = (
    ("opposite", "of"), ("inverse", "of"), ("reverse", "of"), ("counterpart", "of"), ("counterpart", "to"),
)  # fmt: skip
# What a doc sentence says before the name of another function it compares its own with: "like
# `_.findKey`", "the same as `groupBy`", "similar to :func:`pass_context`", "a version of `_.filter`".
_LIKENESS = (
    ("like",), ("unlike",), ("same", "as"), ("similar", "to"), ("equivalent", "to"), ("version", "of"),
    ("variant", "of"), ("relative", "of"), *_OPPOSING,
)  # fmt: skip
_COMPARED = (
    *_LIKENESS,
    # what it stands in for: "Shortcut for :meth:`route` with …", "Alias for :meth:`main`.", "Wrapper
    # for :func:`itertools.pairwise`."
    ("shortcut", "for"), ("shorthand", "for"), ("alias", "for"), ("alias", "of"), ("wrapper", "for"),
    ("wrapper", "around"),
)  # fmt: skip
_NOT_LETTER = re.compile(r"[^a-z]")


def compared_with(
    spaced: Sequence[str], identifiers: Sequence[str], cues: Sequence[tuple[str, ...]] = _COMPARED
) -> tuple[str, ...]:
    """The ``identifiers`` a sentence names right after words that compare with them ("This method is
    like `_.findKey` except that it iterates from the right", "The same as [`groupBy`]module:
    Collections.groupBy but runs one at a time", "A specialized version of `_.filter` for arrays"): a
    function's documentation never says it is like itself, so these name relatives of the function it
    documents, each where it is first written; and a plain word written as code there ("Like
    iteritems(), but with all lowercase keys.")."""
    lows = [_NOT_LETTER.sub("", w.lower()) for w in spaced]
    out = []
    for name in identifiers:
        at = _written_at(spaced, name)
        if at is not None and _compares(lows, at, cues):
            out.append(name)
    # a plain word written as code (quoted, or called) right after such words: "Like iteritems(),
    # but …", "the same as `map`"
    for at, word in enumerate(spaced):
        code = _CODE_WORD.match(word)
        if code is not None and _compares(lows, at, cues):
            out.append(code[1] or code[2])
    return tuple(dict.fromkeys(out))


def overridden(spaced: Sequence[str], identifiers: Sequence[str]) -> tuple[str, ...]:
    """The ``identifiers`` a sentence says its function overrides: written within the three words after
    a form of the verb "override" ("An overridden version of `DateTime#england` that preserves …",
    "Overrides `Base.save` to …", "Override of :meth:`Mapping.get`"), each where it is first written.
    An override has the name of the method it overrides: it documents a method of that name."""
    lows = [_NOT_LETTER.sub("", w.lower()) for w in spaced]
    out = []
    for name in identifiers:
        at = _written_at(spaced, name)
        if at is not None and any(w.startswith("overrid") for w in lows[max(0, at - 3) : at]):
            out.append(name)
    return tuple(out)


def _written_at(spaced: Sequence[str], name: str) -> int | None:
    """The first word of ``spaced`` that holds ``name`` whole (not ``getUser`` in ``getUserMap``)."""
    whole = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
    return next((i for i, w in enumerate(spaced) if whole.search(w)), None)


def _opens_comparing(spaced: Sequence[str]) -> bool:
    """The sentence opens with words that compare and a name written as code ("Like ``is_partial_args``
    for the given signature spec", "Like `either`, but …", "Shortcut for :meth:`route` …"): a function's
    documentation, with or without its period; a topic does not open so."""
    lows = [_NOT_LETTER.sub("", w.lower()) for w in spaced[:3]]
    for cue in _COMPARED:
        if len(spaced) > len(cue) and tuple(lows[: len(cue)]) == cue:
            name = spaced[len(cue)]
            return bool(_CODE_WORD.match(name)) or looks_like_identifier(name.strip(_EDGE + "[]*"))
    return False


def _compares(lows: Sequence[str], at: int, cues: Sequence[tuple[str, ...]] = _COMPARED) -> bool:
    """The (lower-cased, letters only) words before word ``at`` end with words that compare (``cues``)."""
    before = tuple(lows[max(0, at - 2) : at])
    return any(before[-len(cue) :] == cue for cue in cues if len(before) >= len(cue))


# `map`, iteritems(), a reST role's :meth:`route`
_CODE_WORD = re.compile(r"[\[(]*(?::[\w.:]+:)?`~?([A-Za-z_$][\w$]*)`|([A-Za-z_$][\w$]*)\(\)")


_WITHIN = frozenset({"in", "inside", "within"})
_WITHIN_WORDS = 6


def within_paths(spaced: Sequence[str]) -> tuple[str, ...]:
    """The files or folders a sentence says to look in: a file's name or path, or a folder ending with
    "/", after "in", "inside" or "within" ("… in simple_httpclient.py", "… inside src/http/", "…
    (in `client.py`)")."""
    out = []
    for before, word in pairwise(spaced):
        # a path may open with a dot (``.github/``, ``./http/client.py``): only its end is punctuation
        bare = word.strip("`'\"()").rstrip(_EDGE)
        if before.lower().lstrip("(") not in _WITHIN:
            continue
        folder = len(bare) > 1 and bare.endswith("/") and all(c in _PATH_CHARS for c in bare)
        if folder or names_a_file(bare):
            out.append(bare)
    return tuple(dict.fromkeys(out))


def names_a_file(text: str) -> bool:
    """``text`` is one file's name or path and nothing else (``live_render.py``, ``src/cart.ts``,
    ``Makefile``, ``package.json``): its last part is a file name the indexer knows by its name or by
    its extension, as written (``errgroup.Go`` is a method, ``console.log`` a call)."""
    if not text or len(text) > _MAX_PATH or any(c not in _PATH_CHARS for c in text):
        return False
    name = text.replace("\\", "/").rsplit("/", 1)[-1]
    if name in FILENAMES:
        return True
    stem, _, extension = name.rpartition(".")
    return bool(stem.strip(".")) and "." + extension in EXTENSIONS and _FILE_NAME.fullmatch(name) is not None


# Words that name a kind of definition, and the kinds of the symbol index each asks for (the first
# is what the word names; the others are how other languages declare the same thing).
KIND_WORDS: dict[str, frozenset[str]] = {
    "class": frozenset({"class", "struct"}),
    "struct": frozenset({"struct", "class"}),
    "record": frozenset({"class", "struct"}),
    "interface": frozenset({"interface", "trait", "class"}),
    "protocol": frozenset({"interface", "trait", "class"}),
    "trait": frozenset({"trait", "interface"}),
    "enum": frozenset({"enum"}),
    "type": frozenset({"type", "struct", "class", "interface", "enum", "trait"}),
    "typedef": frozenset({"type", "struct"}),
    "function": frozenset({"function", "method"}),
    "func": frozenset({"function", "method"}),
    "fn": frozenset({"function", "method"}),
    "fun": frozenset({"function", "method"}),  # Kotlin's; a plain word: a name only where it is defined
    "def": frozenset({"function", "method"}),
    "method": frozenset({"method", "function"}),
    "constructor": frozenset({"constructor", "method"}),
    "macro": frozenset({"macro"}),
    "macro_rules": frozenset({"macro"}),  # Rust's ``macro_rules! name``
    "constant": frozenset({"constant"}),
    "const": frozenset({"constant"}),
    "module": frozenset({"module"}),
    "namespace": frozenset({"module"}),
    "mod": frozenset({"module"}),  # Rust's
}
# Not "field", "property", "attribute" or "member": a message pasted from a log opens with them as often
# ("Field 'Config#port' is not accessible"), and a member's name alone finds it.
# Keywords that declare a definition and are no English word: what follows is a name however it is
# written ("def parse", "fn main", "func open").
_CODE_KEYWORDS = frozenset({"def", "func", "fn"})
# Words that say the name is defined somewhere ("where is compose defined", "definition of Style").
_DEFINED = frozenset({"defined", "definition", "declared", "declaration", "implemented", "implementation"})
# The rest of a request for a definition: question words, determiners, "find", "show me", "located".
_REQUEST_FILLERS = frozenset(
    "where where's what what's which is are was the a an of for find show me locate located lives live"  # noqa: SIM905
    " go goto jump to get see look up does do can i its whose".split()
) | frozenset(  # the language a name is in ("python class Console", "golang struct Command")
    "python golang rust java javascript typescript js ts ruby php kotlin swift scala cpp csharp haskell lua"  # noqa: SIM905
    " bash shell".split()
)
MAX_REQUEST_WORDS = 8
# A name that opens the words and is followed by one of these is a statement about it, not a request.
_COPULAS = frozenset({"is", "are", "was"})
# Modifiers a declaration opens with ("pub fn spawn", "export default function App", "public static class
# Config"): no name where another modifier or a keyword follows them.
_MODIFIERS = frozenset(
    "pub export default async static public private protected internal abstract final override virtual"  # noqa: SIM905
    " inline extern unsafe open suspend sealed partial".split()
)
# Go's method declaration "func (s *Server) Serve": the method ``Server.Serve``
_GO_RECEIVER = re.compile(
    r"^\s*func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)\s*(?=[A-Za-z_])"
)
_PUB_IN = re.compile(r"\bpub\([^)]*\)")  # Rust's ``pub(crate)``


@dataclass(frozen=True, slots=True)
class NameRequest:
    """A query that asks for one definition, or one name's usages, by its name (see
    :func:`definition_request`, :func:`usage_request`)."""

    name: str
    kinds: frozenset[str]  # the symbol index's kinds asked for; empty: any
    certain: bool  # the name is written as code; otherwise the symbol index must define it


def definition_request(text: str) -> NameRequest | None:
    """``text`` as a request for one definition: one name, with words that say what kind of definition
    it is ("class Console", "the Console class", "fn main", "print_json() method") or that it is
    defined ("where is parse_args defined", "definition of Style", "where's the Router struct
    declared?"), and nothing else but question words, determiners and "find", "show me" and the like
    (at most :data:`MAX_REQUEST_WORDS` words), modifiers before a keyword included ("pub async fn
    connect", "export default function App"), and Go's "func (s *Server) Serve" as the method
    ``Server.Serve``; a declaration pasted with its parameters ("def initialize(app, logger = nil)") is
    no request: the phrase rule finds it as written, and so is a statement that opens with the name
    ("Zone is an abstract class", an error's message). The name is ``certain`` when it is written as code
    (an identifier-like token, ``pkg.Type``, or after ``def``, ``func`` or ``fn``). A plain word ("Console
    class", "render function", "where is compose defined") is a name only where the symbol index
    defines it, of the kind asked for (:meth:`search.engine.engine.Engine.analyse`): "class loader"
    and "retry function" stay sentences unless a class ``Loader`` or a function ``retry`` exists, and
    then that definition is what they ask for."""
    words = _PUB_IN.sub("pub", _GO_RECEIVER.sub(r"func \1.", text, count=1)).split()
    if not 2 <= len(words) <= MAX_REQUEST_WORDS:
        return None
    kinds: set[str] = set()
    defined = False
    name = None
    after_keyword = False
    bares = [w.strip(_EDGE + "`") for w in words]
    lows = [b.lower() for b in bares]
    for n, (bare, low) in enumerate(zip(bares, lows, strict=True)):
        # past the first word, a capital makes a name of a word ("class Live", "the Type enum")
        plain = n == 0 or bare == low
        if low in KIND_WORDS and plain:
            kinds |= KIND_WORDS[low]
        elif low in _DEFINED:
            defined = True
        elif (
            plain
            and low in _MODIFIERS
            and n + 1 < len(lows)
            and (lows[n + 1] in _MODIFIERS or lows[n + 1] in KIND_WORDS)
        ):
            continue
        elif low not in _REQUEST_FILLERS or not plain:
            if name is not None or len(bare) < 2 or not _IDENT.fullmatch(bare):
                return None
            name = bare
            after_keyword = n > 0 and lows[n - 1] in _CODE_KEYWORDS
    if name is None or not (kinds or defined):
        return None
    if bares[0] == name and lows[1] in _COPULAS:  # two words at least (above)
        return None  # "Zone is an abstract class" says what Zone is (a message, a doc's sentence): no request
    return NameRequest(name, frozenset(kinds), after_keyword or looks_like_identifier(name))


# A constructor's documentation that names only what it makes: a verb of making, at most a determiner
# and one of these adjectives, the name, and at most one of these nouns ("Create a new `Event`.",
# "Creates a Receiver instance.", "Initialize a Version object.", "Constructs the CommanderError class").
_MAKING = frozenset(
    "create creates construct constructs initialize initializes initialise initialises instantiate instantiates".split()  # noqa: SIM905
)
_MADE_ADJECTIVES = frozenset({"new", "empty", "fresh"})
_MADE_NOUNS = frozenset({"instance", "object", "class"})
_DETERMINERS_OF_MADE = frozenset({"a", "an", "the"})
#: What a request for a type's constructor accepts: the constructor (a method in the languages that name
#: it ``__init__``, ``initialize`` or ``new``) and the type itself, which is the answer where it declares none.
CONSTRUCTOR_KINDS = frozenset({"constructor", "method", "class", "struct"})


def creation_request(text: str) -> NameRequest | None:
    """``text`` as a constructor's documentation that says only what it makes ("Create a new `Event`.",
    "Creates a Receiver instance.", "Initialize a Version object.", "Create a new [`Router`]."): a
    request for that type's constructor, read as "Event constructor" is (:data:`CONSTRUCTOR_KINDS`).
    The name is a type's: written as code (backticks, an identifier's shape: ``certain``) or a
    capitalised word, which is a name only where the symbol index defines it. Anything more ("Create
    a DateTime from an ISO 8601 string", "Create a task group.") is a sentence, and a factory's doc
    that names its product in lower case ("Creates a new logger.") too. Sphinx's markup of the name is
    no word of it: "Initialize the :class:`~pkg.Pattern` instance." makes a ``pkg.Pattern``."""
    words = _ROLE.sub("", text).replace("`~", "`").split()
    if not 2 <= len(words) <= 5 or words[0].lower() not in _MAKING:
        return None
    rest = [w.strip(_EDGE).lower() for w in words[1:]]
    at = 1 if rest[0] in _DETERMINERS_OF_MADE else 0
    at += 1 if at < len(rest) and rest[at] in _MADE_ADJECTIVES else 0
    tail = rest[at + 1 :]  # nothing, or one noun: "instance", "object", "class"
    if at >= len(rest) or len(tail) > 1 or (tail and tail[0] not in _MADE_NOUNS):
        return None
    written = words[1 + at]
    name = written.strip(_EDGE + "`[]")
    if not _IDENT.fullmatch(name) or not ("`" in written or name[:1].isupper()):
        return None
    return NameRequest(name, CONSTRUCTOR_KINDS, "`" in written or looks_like_identifier(name))


def as_definition(query: AnalysedQuery, request: NameRequest) -> AnalysedQuery:
    """``query`` read as ``request``: the search for its name alone, with the kinds it asks for."""
    return replace(
        analyse(request.name), kinds=request.kinds, asked=query.text, asked_tokens=query.word_tokens
    )


# Words that ask where a name is used, not where it is defined: whatever their place ("where is X
# called", "callers of X", "X references"), and verbs that do only after who or what ("who calls X",
# "what imports X"): "nested calls" and "uses tabs" are phrases. "call" counts only before "sites".
_USED = frozenset(
    "used called invoked referenced imported caller callers usage usages invocations references importers"  # noqa: SIM905
    " callsites".split()
)
_USED_VERBS = frozenset({"calls", "uses", "imports", "references", "invokes", "call", "use", "import"})
_ASKERS = frozenset({"who", "what", "which"})
_USAGE_FILLERS = _REQUEST_FILLERS | frozenset({"all", "every", "sites", "site", "from", "list"})


def usage_request(text: str) -> NameRequest | None:
    """The name ``text`` asks the usages of: one name with words that ask where it is used ("where is
    print_json called", "who calls print_json", "callers of set_renderable", "usages of LiveRender",
    "LiveRender references", "find all call sites of retry_call", "where is the Console class
    imported") and nothing else but question words, determiners and kind words (at most
    :data:`MAX_REQUEST_WORDS` words); ``None`` otherwise. The name is ``certain`` when it is written
    as code; a plain word ("expected call", "where is retry used") is a name only where the symbol
    index defines it (:meth:`search.engine.engine.Engine.analyse`)."""
    words = text.split()
    if not 2 <= len(words) <= MAX_REQUEST_WORDS:
        return None
    bares = [w.strip(_EDGE + "`") for w in words]
    lows = [b.lower() for b in bares]
    used = False
    name = None
    for n, (bare, low) in enumerate(zip(bares, lows, strict=True)):
        plain = n == 0 or bare == low  # past the first word, a capital makes a name of a word
        asked = n > 0 and lows[n - 1] in _ASKERS
        sites = low == "call" and n + 1 < len(lows) and lows[n + 1] in ("sites", "site")
        if plain and (low in _USED or (asked and low in _USED_VERBS) or sites):
            if n + 1 < len(lows) and lows[n + 1] == "by":
                return None  # "Method called by run_forever.": what run_forever calls, not its callers
            used = True
        elif not ((low in _USAGE_FILLERS or low in _ASKERS or low in KIND_WORDS) and plain):
            if name is not None or len(bare) < 2 or not _IDENT.fullmatch(bare):
                return None
            name = bare
    if not used or name is None:
        return None
    return NameRequest(name, frozenset(), looks_like_identifier(name))


def as_usages(query: AnalysedQuery, request: NameRequest) -> AnalysedQuery:
    """``query`` read as asking for ``request``'s name's usages: the name quoted, matched as a whole
    word."""
    return replace(analyse(f'"{request.name}"'), usages=True, asked=query.text)


_TRACEBACK_FRAME = re.compile(r'File "([^"\n]{1,400})", line (\d+)')  # Python's
_LINE_REF = re.compile(r":(?:line )?(\d+)(?!\d)")  # after a path: ``:42``, ``:42:7``, C#'s ``:line 42``
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$@+~-/\\")
_FILE_NAME = re.compile(r"[^/\\]*\.[A-Za-z]\w{0,9}")  # a name with an extension: ``cart.py``, ``Bar.java``
MAX_LOCATIONS = 16
_MAX_REFS = 64  # ``:N`` read per query: the work stays linear in a query's length
_MAX_PATH = 400


def locations(text: str) -> tuple[tuple[str, int], ...]:
    """The places ``text`` names as ``path:line`` (compilers, grep, Go, Rust, Node, Java's
    ``Bar.java:42``, C#'s ``:line 42``; ``file://`` dropped, links left out) or as a Python traceback's
    ``File "path", line N``: ``(path, line)``, the innermost frame first (a Python traceback prints the
    most recent call last, so its frames are read from the end; every other form in order), at most
    :data:`MAX_LOCATIONS`, line 1 or more. A path is the run of path characters before ``:N`` whose
    last part has an extension."""
    text = _URL.sub(" ", text.replace("file://", ""))
    frames: list[tuple[str, int]] = []  # a Python traceback's, outermost first
    for m in _TRACEBACK_FRAME.finditer(text):
        frame = (m[1], int(m[2]))
        if frame[1] >= 1 and frame not in frames:
            frames.append(frame)
    out: list[tuple[str, int]] = []
    for n, m in enumerate(_LINE_REF.finditer(text)):
        if n == _MAX_REFS:
            break
        end = start = m.start()
        while start > 0 and end - start < _MAX_PATH and text[start - 1] in _PATH_CHARS:
            start -= 1
        path = text[start:end]
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        place = (path, int(m[1]))
        if place[1] >= 1 and _FILE_NAME.fullmatch(name) and place not in out and place not in frames:
            out.append(place)
    return tuple([*reversed(frames), *out][:MAX_LOCATIONS])


def compounds(spaced: Sequence[str]) -> tuple[str, ...]:
    """Runs of two or three adjacent plain words of a sentence (letters only, no stop word, none an
    identifier already), joined and lower-cased, at most :data:`MAX_COMPOUNDS`."""
    plain = [w.strip(_EDGE) for w in spaced]
    ok = [
        w.isalpha() and len(w) >= 2 and w.lower() not in STOP_WORDS and not looks_like_identifier(w)
        for w in plain
    ]
    out: list[str] = []
    for size in (2, 3):
        for i in range(len(plain) - size + 1):
            if all(ok[i : i + size]):
                out.append("".join(plain[i : i + size]).lower())
    return tuple(dict.fromkeys(out))[:MAX_COMPOUNDS]


# Words joined by hyphens or slashes into one token ("repeater-month-name/scalar-day"): what a
# two-word query's second word holds when it names several things, not one topic.
_COMPOUND = re.compile(r"[a-z]+(?:[-/][a-z]+)+")

# A label of at most three words, capitalised, then a colon and a space: how documentation files a
# sentence ("Output: plain with multiline cells without headers", "Internal: wrap wide characters",
# "Deprecated: use NewDecoder.", "Note: this deviates from the spec"), not how a topic is typed.
_LABELLED = re.compile(r"[A-Z][\w-]*(?: [\w-]+){0,2}: +\S")


def sentence_form(text: str) -> Form:
    """``function`` for a sentence written as one piece of code's documentation: it opens with a verb
    (not a question word, not a gerund naming a topic: "parsing a JSON field") and reads as a full
    sentence — ending with a period, with a determiner, a quantifier or a condition right after the
    verb ("Return the …", "Wake up the …", "Erase all content …", "Determine if a value is a Buffer"),
    opening with one of the verbs doc comments open with ("Trim excess whitespace …", "Returns a
    string …") or an imperative seldom used as a noun ("Traverse from offset …"), with "It" ("It
    encodes a string …"), as JSDoc first lines often do without a period, or with a name and a verb
    in the third person ("OnlyValidArgs returns an error if …"), or with a gerund that is the subject
    of a finite verb ("Renaming files … is not permitted") or, with the period, of a verb in the third
    person acting on what a determiner names ("Warning logs a message …"), or with an article, as a
    field's or a value's documentation does ("The field name found in the", "A safe Kernel::load,
    issuing the hooks …"; a topic typed as a query does not), or with a capitalised label and a
    colon ("Output: plain with multiline cells", "Deprecated: use …"), or with words that compare and
    a name written as code ("Like `either`, but provide some context …"), or with a doc verb and one
    token of words joined by hyphens or slashes ("Handle repeater-month-name/scalar-day": several
    words, where two plain words, "handle errors", are a topic);
    ``area`` for questions ("how does …"; "Do basic configuration …." and "When X, Y." with their
    period are statements), topics ("cookie persistence") and requests for files of a role ("tests for
    the retry logic", where "tests" is no verb)."""
    spaced = text.split()
    low = [w.strip(_EDGE).lower() for w in spaced]
    end = text.rstrip()[-1:]
    if _SIGNATURE.match(text):
        return "function"  # a signature line: "pop(index) -> remove the item at index"
    if (
        len(low) == 2
        and end != "?"
        and _COMPOUND.fullmatch(low[1])
        and (is_doc_verb(low[0]) or _imperative(low[0]))
    ):
        return "function"  # "Handle repeater-month-name/scalar-day": a verb, then words joined as one
    if len(low) < 3 or end == "?":
        return "area"
    if _LABELLED.match(text):
        return "function"  # "Output: plain with multiline cells", "Deprecated: use the decoder"
    if _opens_comparing(spaced):
        return "function"  # "Like `either`, but provide some context …": a relative's documentation
    # "String gets the argument …" and "Is gets whether …." name a definition, then say what it does:
    # not a gerund, not a question (a question does not end with its period: "what returns the config").
    # So does Go's "walk recursively descends path …", "cycle endlessly cycles …": an adverb between
    # the name and its verb, which in the third person is any word ending in one "s"; and "indent
    # indents the lines …", "Swap swaps arguments …": the name, then itself as a verb in the third person.
    adverbed = low[1].endswith("ly") and low[2].endswith("s") and not low[2].endswith("ss")
    itself = low[0] in _bare_verbs(low[1])
    names_first = (names_verb(low[1]) or adverbed or itself) and _IDENT.fullmatch(spaced[0]) is not None
    identifier_first = looks_like_identifier(spaced[0].strip(_EDGE))
    named = identifier_first or names_first
    # "UsageString" is a name, not a gerund; "String emulates …" and "Nothing happens …" open with a noun
    gerund = low[0].endswith("ing") and not named and low[0] not in _ING_NOUNS
    # "Do basic configuration …." and "When the key is unset, … ." end as statements: an imperative
    # or a condition that documents code, not a question.
    stated = end == "." and (low[0] in _STATEMENT_OPENERS or names_first)
    if gerund and (_finite_after(low) or _acts_on(low, end)):
        return "function"
    if (low[0] in _QUESTION_WORDS and not stated) or gerund:
        return "area"
    if _asks_for_role(low, period=end == "."):
        return "area"  # "tests for the retry logic", "examples of streaming": files of that role
    if low[0] in _ARTICLES:
        return "function"
    if _names_a_piece(low):
        return "function"
    if names_first:
        # "OnlyValidArgs returns an error if …", "setenv sets or unsets …", "Error returns the
        # formatted error" (no period): a name, plain or not, then what it does.
        return "function"
    if identifier_first and low[1] in _NAME_LINKS:
        # "AddFlag will add the flag to the FlagSet", "VarPF is like VarP, but returns the flag
        # created": a definition's name, then what it is or will do (Go's convention, no period).
        return "function"
    if end == ".":
        return "function"
    after_verb = low[2] if low[1] in _PARTICLES else low[1]
    counted = low[1] in _QUANTIFIERS or (low[1] in _NUMERALS and low[0] not in _NUMERALS)
    if after_verb in _DETERMINERS or after_verb in _CONDITIONS or counted or low[0] == "it":
        return "function"
    return "function" if is_doc_verb(low[0]) or _imperative(low[0]) else "area"


# Verbs a function's documentation opens with that a topic does not, being seldom nouns ("save",
# "release", "trigger" and "attempt" are topics' nouns too): "Enable HTTP body compression", "Traverse
# from offset to …", "Cleans up decompressor references …". Kept apart from the doc verbs, which also
# decide what a sentence's opening word names.
_IMPERATIVES = frozenset(
    "enable disable rewrite finalize traverse skip clean prepare consume allow ignore collect notify"  # noqa: SIM905
    " configure attach detach connect disconnect acquire abort cancel restore spawn assign unwrap inject"
    " reject listen subscribe unsubscribe rename truncate increment decrement coerce collapse flatten"
    " compress decompress sanitize infer detect".split()
)


def _imperative(word: str) -> bool:
    return word in _IMPERATIVES or any(b in _IMPERATIVES for b in _bare_verbs(word))


_ARTICLES = frozenset({"the", "a", "an"})  # what documentation opens with, and a topic typed does not
_FINITE = frozenset(
    "is are was were will would can could cannot must should does do has have may might isn't aren't wasn't"  # noqa: SIM905
    " weren't won't wouldn't can't couldn't mustn't shouldn't doesn't don't hasn't haven't".split()
)
# Words after which a verb is not the sentence's: a relative clause's ("… that are folded") or an
# infinitive's ("… what to do")
_NOT_ITS_VERB = frozenset("that which who whom whose when where if to".split())  # noqa: SIM905


def _finite_after(low: list[str]) -> bool:
    """A gerund opening is the subject of a finite verb after it (not a relative clause's verb, nor
    one after "to")."""
    return any(w in _FINITE and low[i] not in _NOT_ITS_VERB for i, w in enumerate(low[2:], start=1))


def _acts_on(low: list[str], end: str) -> bool:
    """A gerund opening is the subject of a verb in the third person that acts on what a determiner
    names, in a statement ending with its period: "Warning logs a message at level Warn …" (Go's
    convention, a function named with a gerund), "Removing listeners removes the correct listener …"
    (a test's claim). A plural noun after a gerund is followed by a preposition in a topic ("parsing
    logs of a server"), not by a determiner."""
    return end == "." and any(
        w.endswith("s") and not w.endswith("ss") and low[i + 1] in _DETERMINERS
        for i, w in enumerate(low[1:3], start=1)
        if i + 1 < len(low)
    )


def _names_a_piece(low: list[str]) -> bool:
    """The sentence opens by naming a piece of code: at most two words before (a determiner or
    adjectives: "Internal helper", "Class decorator", "'Do-nothing' debug action"), one of
    :data:`_PIECE_NOUNS`, then "to", "of", "that", "which" or "for"."""
    return any(low[i] in _PIECE_NOUNS and low[i + 1] in _PIECE_LINKS for i in range(min(3, len(low) - 1)))


def _asks_for_role(low: list[str], *, period: bool) -> bool:
    """A plural role noun and a preposition, not a documented verb: "tests for the retry logic" asks
    for test files, where "Test for executable file." and "Tests for equality." document a function
    (singular imperative, or a sentence with its period)."""
    plural = low[0].endswith("s") and any(low[0] in words for words in ROLE_WORDS.values())
    return plural and low[1] in _ABOUT and not period


def is_doc_verb(word: str) -> bool:
    """``word`` (lower case) is one of :data:`_DOC_VERBS`, the verbs documentation opens with, bare or
    in the third person (``returns``, ``fetches``, ``applies``): too common to name a definition by
    itself."""
    return word in _DOC_VERBS or any(b in _DOC_VERBS for b in _bare_verbs(word))


def names_verb(word: str) -> bool:
    """``word`` (lower case) is a verb in the third person that says what a definition named before it
    does: a doc verb's (``returns``, ``applies``) or one of :data:`_NAMING_VERBS`' (``looks``, ``specifies``)."""
    return any(b in _DOC_VERBS or b in _NAMING_VERBS for b in _bare_verbs(word))


def _bare_verbs(word: str) -> tuple[str, ...]:
    """What ``word`` may be the third person of: ``returns`` → ``return``, ``fetches`` → ``fetch``,
    ``applies`` → ``apply``; none where it does not end with an "s"."""
    if not word.endswith("s"):
        return ()
    return (word[:-1], word[:-2], word[:-3] + "y") if word.endswith("ies") else (word[:-1], word[:-2])


def named_in_sentence(query: AnalysedQuery, definitions: Sequence[str]) -> AnalysedQuery:
    """``query`` reading as naming a definition when it follows the "Name verbs …" convention of doc
    comments (Go's, and common elsewhere: "Usage puts out the usage for the command.", "Print is a
    convenience method …"): a function sentence whose first word is, exactly, the bare name of one of
    ``definitions`` (the symbol retriever's best, qualified names) and whose second is a verb in the
    third person. Imperatives are not: "Add one or more newlines" does not name the class ``Add``. The
    name goes first among the sentence's identifiers ("Info uses fmt.Sprint to construct …" names
    ``Info``, not ``fmt.Sprint``). A sentence of another form is returned as it is. A topic or question
    whose adjacent words spell one of ``definitions`` ("JSON element hierarchy": ``JsonElement``, see
    :attr:`AnalysedQuery.compounds`) names it too, when it holds no identifier of its own."""
    if not query.identifiers:
        named = _compound_names(query, definitions)
        if named:
            return replace(query, identifiers=named)
    first = query.opening_word()
    if first is None:
        return query
    if first in query.identifiers or not any(bare_name(d) == first for d in definitions):
        return query
    return replace(query, identifiers=(first, *query.identifiers))


def _compound_names(query: AnalysedQuery, definitions: Sequence[str]) -> tuple[str, ...]:
    """The bare names of ``definitions`` that adjacent words of the sentence spell ("JSON element
    hierarchy" names ``JsonElement``), in the order of the sentence."""
    if not query.compounds:
        return ()
    by_norm: dict[str, str] = {}
    for d in definitions:
        by_norm.setdefault(normalise(bare_name(d)), bare_name(d))  # as the symbol index compares names
    return tuple(dict.fromkeys(by_norm[c] for c in query.compounds if c in by_norm))


def bare_name(name: str) -> str:
    """The last part of a qualified name: ``cobra.Command.Usage`` → ``Usage``, ``$this->db`` → ``db``,
    ``Picker:find`` → ``find``."""
    for sep in ("::", "->", "#", ".", ":"):
        name = name.rsplit(sep, 1)[-1]
    return name.lstrip("$")

"""File-aware ranking after fusion: RRF chooses the candidates, these rules order them.

Fusion scores chunks one by one, but a person looking for code is looking for a *file* and a place in
it. The rules below judge each candidate with what the fused list knows about its file and its path.
Each is a pure function of the fused candidates and the :class:`~search.engine.query.AnalysedQuery`, each
can be switched off or re-weighted under ``[ranking]`` in ``plait.toml``, and each records what it did
in the candidate's explanation (``plait search --explain``). In order:

1. **coherence** — a file with several candidates is likely the right file: its best chunk gains
   ``coherence × top score × file sum / largest file sum``.
2. **definition** — for an identifier query, a chunk that defines the name asked for gains
   ``definition × top score`` (half as much for an identifier inside a sentence); ×1.5 when the
   file's stem is the name too (``router.go`` for ``Router``); a chunk of a file named after the
   identifier that defines nothing of that name gains as much as a definition (for an identifier, or
   a topic naming one: the module named after a concept is where it lives, where its type may be
   declared elsewhere; not for a function sentence, which names what its definition takes or returns;
   not for a constant in capitals, ``ERROR``, by its plural or stem: errors.py is no module of it;
   nor by its name as written where a candidate defines it so: ``STRATEGIES`` is the member
   ``Merger.STRATEGIES``, not strategies.py). The name defined is the one the symbol index found in
   the chunk, or the chunk's label; once a candidate defines it as written, one defining it in
   another case only gains half. A function sentence names what its definition takes, returns or
   works on ("Return a copy of this RequestsCookieJar."): its identifiers gain nothing, unless it
   opens with one, the "Name verbs …" convention ("BindJSON is a shortcut for c.MustBindWith(…)."),
   which alone gains, or names the method its function overrides ("An overridden version of
   `DateTime#england` that …": ``england``, whose definitions gain as a sentence's name does, except
   the overridden ``DateTime.england`` itself). Such a sentence naming nothing else ("Trace logs a
   message at level Trace.") names one definition: those after the symbol index's first (the
   shortest qualified name, a function before a method) gain ``named_others`` of it; where that first
   is a method, another definition that the text and the dense leg both rank above it is the one
   (among methods of one name the order says nothing: mux's ``Route.Headers`` and ``Router.Headers``).
   One that also names the owner of one definition ("Serialize allows StringSlice to fulfill
   Serializer") names that one, the others gaining ``named_others`` of it. A topic or a
   question that asks for tests of a name ("tests for ConsoleRenderer", "how is ConsoleRenderer
   tested") gains for the tests named after it (``TestConsoleRenderer``), not for its definition;
   where the query says nothing but the name, one whose name adds words the query lacks (objx's
   ``TestEachInt16`` for "Tests for Int16") tests something else that holds it, and gains half once a
   test named after it alone is among them.
   **name words** — a function sentence that does not open with a name gains for each function or
   method whose name its plain words spell (the chunk's own, or one of the short functions it holds
   after its first, as the symbol index knows them), every part of it ("Returns the month name for …":
   ``month_name``; "… runs a maximum of ``limit`` async operations": ``mapLimit``, with "map"),
   ``name_words × top score``; a one-part name counts unless it is the sentence's opening verb and that
   verb is a getter's ("Returns a ``date`` object …": ``date``; "Encode a list of sentences.":
   ``encode``; "Seek to a specific point": ``seek``; "Get the event loop": not ``get``); the function
   it compares its own with ("Like :func:`escape` but …") is no word of it and spells nothing; a
   method whose class's name of two parts or more the words spell ("Update sorted list by …":
   ``SortedList.update`` before ``SortedSet.update``) gains a quarter of the gain more, as does a
   method of the object the sentence calls "this" (or "the `Type`", or closes a clause on: "… from
   the trie."), which is also named with its class ("Return the pattern ID for this match.":
   ``Match.pattern``, as whole as ``match_pattern``), as the constructor of the object a sentence
   makes new is ("Creates a new `BytesMut` with …": ``BytesMut::new``, half the gain, as a one-part
   name: the words that follow may name another constructor). A getter's opening spells ``get`` and
   ``as`` ("Returns the help option object.": ``get_help_option``; "Return a raw pointer to …":
   ``as_ptr``) and a predicate's ``is`` and ``has`` ("Return True if …", "Returns whether …"), a
   removal of all the ``clear`` of a method that empties its object ("Remove all values from sorted
   list."), a count ("the number of") the ``len`` of one that counts its items (with the class of
   "this" object: ``Bytes::len``), an event's listener its ``on`` ("The listener of the socket
   `'data'` event.": ``socketOnData``), and a word the short form code writes for it ("Initialize
   …": ``init``, "… the local address": ``local_addr``), and the initials of words it joins by
   hyphens ("Handle repeater-month-name/scalar-day": ``handle_rmn_sd``; "… in the little-endian byte
   order": ``get_u32_le``). A function is usually named with the words its documentation uses. A name spelled only as a part of a longer one
   spelled gains nothing ("Allow unknown options on the command line": ``allowUnknownOption``, not
   ``unknownOption``; but one that adds only the ``get`` a getter's opening implies names the same
   getter, ``get_literals`` and the property ``literals`` for "Return a set of all literals …", and
   both gain), and a one-part name half as much (unless the text and the dense retrievers both rank
   its chunk first: "Returns the root state ID, and if it doesn't exist, creates it." spells ``root``
   and ``create_state``, and documents the first; such a chunk's name counts with fewer than four
   letters too, "Create and send an HTTP PUT request.": ``put``), as does a name of three parts or
   more of which the words spell two thirds ("Display an error message if conflicting options are
   used …": ``_checkForConflictingLocalOptions``) where the chunk has no name spelled whole: the more
   of a name the words spell, the less likely by chance.
   Python's special methods are named for what the language does with them, and their documentation
   says it in words: "Return string representation of sorted list." spells ``__repr__``, "Return
   the size of …" ``__len__``, "Lookup value at ``index`` …" ``__getitem__`` (a one-part name: half).
   A numeric type named by its width is a part spelled as names write it: "Writes signed 64 bit
   integers …" spells ``write_i64_into``, and of ``write_u64_into`` two parts of three. Two adjacent
   words (not both stop words) run together are a part as code writes a compound: "Fill `text`
   in-place …" spells ``fill_inplace``, "… used to warm-up the application." ``warmup`` (a one-part
   name run together from two words is spelled as two parts, in full), and so are their short forms
   ("Parse the configuration file …": ``parse_cfgfile``). A name built of a name the sentence
   mentions and its words is spelled too ("The base implementation of `_.isArguments`.": lodash's
   ``baseIsArguments``; "Default function for `datetime.date` instances": ``date_default``), not the
   mentioned name itself.
   A test's own sentence (a claim, "copy() preserves the name.", or one found in tests, rule 4)
   spells the code under test: only tests and fixtures gain.
3. **path** — for a sentence, the query's words found among the file stem's and parent directory's
   words (``retry`` in ``http/retry_policy.py``) add ``path × top score × share of words matched``,
   each word weighted by how few of the candidate files it names.
4. **roles** — tests (benchmarks, fuzz targets, stress tests and a Rust file's ``mod tests`` included),
   fixtures (scaffolding templates included), examples, vendored, generated and compat code (an older
   version directory beside a later one, ``v3/`` beside ``v4/``, included; not where no candidate is
   code of no role: then the compat folder is the project, ``deprecated/``), docs, the import blocks of
   package ``__init__`` files (not the definitions some of them hold), type stubs, hidden files (a
   repository's housekeeping: ``.github/``, ``.gitignore``) and manifests and build settings
   (``pyproject.toml``, ``package.json``, ``Makefile``, ``LICENSE``) are multiplied by a penalty (a
   file of several roles, ``docs/examples/``, by the strongest one only; Go's runnable examples,
   ``example_test.go``, are examples and tests, asked for as either), unless the query asks for that
   role ("tests for the retry logic"), or the candidate is each retriever's first (its words, its name
   and its meaning agree), or its file is an example that holds more of the query's words than any
   candidate of no role (the text retriever's share of their term weight; not for a function sentence:
   ply's grammar rules, "plist : plist COMMA pitem", only its examples' parsers write), or the query is
   a function sentence and the candidate is the text retriever's first and within the dense retriever's
   first ``agreed_top`` (both retrievers put it first: the one function the sentence documents, a
   test's own docstring included) or the symbol retriever's first (its words and its name: a test named
   for what it checks, "Newlines are mandatory breaks when replace_whitespace is False." for
   ``test_wrap_replace_whitespace_false_newlines_are_mandatory``; not a declaration file's copy of a
   definition that real code among the candidates makes, first by the words and the meaning it
   copies: attrs' ``_version_info.pyi`` beside ``_version_info.py``), or it is a test named in the
   sentence's words (``named_tests``: two words or more beside ``test``, not the name of a function the
   sentence or real code among the candidates names; ``test_center_ambiguous`` for "Center respects
   ambiguous_width parameter."; not for a sentence that says what something returns, unless the
   test's name says so too), or a chunk holding such a test of three words or more beside ``test`` (a
   test class of short methods, chunked whole), or the query is a function sentence found almost only
   in tests (at least ``tests_found`` of the text and the dense retrievers' first ten hits each are
   tests or fixtures, or the first three of each are: a test's own docstring in words that do not say
   so; then tests and fixtures keep their role), or the query opens with a name only Python files define and a
   verb in the third person ("before_log uses the name parameter …": a Python docstring does not open
   with its own name, so this is a test's claim about it; Go's doc comments do), or the candidate
   defines a name the query asks for (rule 2) and, unless the query is a function sentence, no
   candidate in real code defines one (a test's own ``ZodType`` or the legacy ``v3/`` copy beside the
   current class stays demoted).
5. **undefined** — a sentence that documents a function ("Return True if the future is done.") asks
   for a definition: a chunk that defines nothing (module-level code, an import block, a test's
   calls) is multiplied by ``undefined_penalty``; and one that compares its function with another
   ("This method is like `_.findKey` except …", "Alias for :meth:`main`.") documents a relative of
   it: the one candidate that defines the name compared with is multiplied by ``relative_penalty``
   (none where several do, nor one whose chunk holds another function beside it), while one that
   defines a name holding it and more, where the sentence compares by likeness ("Like `memchr`, but
   searches for two bytes …": ``memchr2``; not "Shortcut for :meth:`route` …"), gains as a name its
   words spell does (rule 2). One that calls its function the opposite of another ("Reverse of
   :meth:`dumps`.") documents the function that undoes it, never one of the same name: every candidate
   defining the name compared with is multiplied (but one whose chunk writes the opposite beside it),
   and one defining a name the opposite may have (``loads``; :mod:`search.engine.opposites`) gains.
6. **saturation** — past the first ``saturation_after`` chunks of a file, each further chunk is
   multiplied by ``saturation`` once more (``saturation^k`` for the k-th beyond), so one file does
   not fill the page.
7. **tiers** — results that hold the query itself come first: for literal and regex queries the
   chunks ripgrep verified (for a request for a name's usages, those that define it after the rest,
   and a few that hold the request's words verbatim, "getSchema is called", before it); for identifiers the definitions of that exact name (those in files of a
   demoted role after the others, where a definition in a package's ``__init__.py`` is real code as
   in rule 4, and so is a type that only a declaration file declares, then those of another kind
   than a request asks for, "class Console", then those in a file named after it first, and a macro
   that shares the name with a function or a type after them: ``#define kmalloc(size, flags)
   malloc(size)`` is a shim of ``kmalloc``, not its definition); for an unquoted
   phrase of two words or more, or one token of code joined by punctuation (``name:endblock``), that
   occurs verbatim in a few places (``phrase_places``), those places (the *phrase rule*; a phrase with
   a capital letter puts the places holding it as written first, as ripgrep's smart case would, and
   a phrase found in more places is still rare where few hold it within a line, as ripgrep reads, or,
   typed in lower case, where few hold it so; a
   declaration file's copy, ``index.d.ts`` or ``.pyi``, and a compiler's source map, ``escape.js.map``
   (generated code), follow the code that holds the phrase too, and a document that quotes it (a
   README repeating a function's doc comment) comes between the code and those copies, unless the
   query asks for documentation; a sentence that documents a function and that only documents and
   source maps hold (a README's copy of a docstring the code words otherwise) puts no place first:
   it asks for the function, which the ranking finds, while the text retriever's first keeps a place
   (rule 8);
   a place that holds it only across a line break, a message split over two literals or a sentence
   wrapped over two comment lines, follows one that holds it within a line, and a format string that
   it fills, a message pasted as a program printed it, follows both; the lines the query names, such
   as a stack trace's frames or ``web.py:3413``, come before them all, however many; a definition
   asked for in words, "HTTPSConnection constructor.", is searched for by its name, and the few places
   holding those words verbatim follow its definitions; names written as a phrase, "div.console
   div.inner", put the few places holding them as written before the definitions). Where none of
   these is found, a topic or question that says where to look ("timeout handling in
   simple_httpclient.py", "… inside src/http/") puts the candidates in that file or folder first.
   Within a tier the score decides.
8. **keep** — the text retriever's best hit for a sentence keeps a place on the first page: where
   its hits match little of the query the dense retriever outweighs it, and the dense ten best can
   otherwise push out the one chunk that holds the most of the query's rare words. For a function
   sentence the dense retriever's best hit (``keep_dense_top``) keeps one too: two middling ranks in
   both lists otherwise outscore it when its words are not the code's. And where a function sentence's
   page lists no test at all, the best test that the text or the dense retriever ranks within its
   first ``keep_test_top`` keeps a place at its end: the demotion of tests is a prior, and the sentence
   may be a test's own docstring in words that do not say so ("Unicode strings get encoded."). A
   result that both the text and the dense retrievers rank within their first three does not make way
   for a kept one: the page's last result that neither holds so high does.

Scores stay monotonic in rank: a tier adds a whole number to the score (1 per tier above the rest),
and within a tier a result shows at least the score of any result below it.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache
from itertools import pairwise
from pathlib import PurePosixPath
from typing import Any

from indexer import (
    DATA_KINDS,
    FUNCTION_KINDS,
    STOP_WORDS,
    SYMBOL_LANGUAGES,
    TYPE_KINDS,
    detect_language,
    dotted,
    identifier_parts,
    name_widths,
    name_words,
    normalise,
    stem_words,
    words_of_parts,
)
from models import ConfigError
from search.engine.fusion import Fused
from search.engine.query import (
    GETTER_OPENERS,
    AnalysedQuery,
    bare_name,
    compound_pair,
    empties,
    implies_get,
    plain_words,
    spelled_by,
)
from search.types import FILLED, LOCATED, VERBATIM, WRAPPED

# --- configuration -------------------------------------------------------------------------------

_COUNTS_FROM_ZERO = frozenset(
    {"keep_dense_top", "agreed_top", "keep_test_top", "rerank_pool", "rerank_topic_pool"}
)  # integer settings that 0 switches off


@dataclass(frozen=True, slots=True)
class RankingConfig:
    """The ``[ranking]`` table. Weights are multiples of the best fused score; penalties multiply."""

    enabled: bool = True
    pool: int = 60  # candidates of each retriever ranked, whatever the limit (more asked for: 3 × it)
    verified_pool: int = 30  # …for a name, a quoted string or a regex (the verifier orders their first)
    usage_pool: int = 200  # …for a request for a name's usages ("who calls send"): every use is verified
    coherence: float = 0.2
    definition: float = 3.0
    path: float = 1.0
    saturation: float = 0.5
    saturation_after: int = 1  # chunks of a file listed before the decay starts
    test_penalty: float = 0.3
    example_penalty: float = 0.3
    fixture_penalty: float = 0.3
    vendored_penalty: float = 0.3
    generated_penalty: float = 0.3
    compat_penalty: float = 0.3
    docs_penalty: float = 0.5
    reexport_penalty: float = 0.5
    stub_penalty: float = 0.7
    hidden_penalty: float = 0.5  # hidden files and folders: CI, VCS, editor and tool settings
    manifest_penalty: float = 0.5  # a project's manifests, build settings and licence: package.json, Makefile
    code_penalty: float = (
        0.5  # a sentence that opens by stating a test ("Make sure …"): candidates not in tests
    )
    agreed_top: int = (
        2  # a function sentence's text first within this dense rank (or symbol first) keeps its role
    )
    named_tests: bool = True  # a function sentence's test named in its words keeps its role
    named_others: float = 0.5  # "Name verbs …": other definitions of the name than the symbol index's first
    name_words: float = (
        0.2  # a function sentence's plain words spell a function's name (0: off; one part: half)
    )
    undefined_penalty: float = 0.5  # a function sentence's candidates that define nothing
    relative_penalty: float = 0.5  # a function sentence's one candidate defining the name it compares with
    phrase_rule: bool = True
    phrase_places: int = 5  # a phrase found in more places than this is not rare: no tier
    where_to_look: bool = True  # "timeout handling in simple_httpclient.py": that file's candidates first
    keep_text_top: bool = True
    keep_dense_top: int = 1  # for a function sentence: the dense retriever's first n (0: none)
    keep_test_top: int = 3  # …and a test within a retriever's first n when the page lists none (0: off)
    # A function sentence found almost only in tests (this share of the text and the dense retrievers'
    # first ten hits each, or their first three; 0: off) is a test's docstring: tests are not demoted.
    tests_found: float = 0.8
    # A sentence that documents one function ("Return the running loop.") asks for that definition:
    # the file-level rules (coherence, path, saturation) would push it below its file's other chunks.
    function_sentences_by_span: bool = True
    # Until the full tier is complete, a sentence's candidates (each retriever's first n) are ranked by
    # the full tier's model at search time (search.engine.rerank; 0: off): n for a sentence documenting
    # one function, which asks for one definition, and more for a topic or a question, which asks about
    # an area (several files) whose places the retrievers rank deeper.
    rerank_pool: int = 10
    rerank_topic_pool: int = 25
    # A full tier's sentence that documents one function: its dense ranking fused is the whole-index
    # dense order of those same candidates (each retriever's first rerank_pool), as a fast tier's
    # re-ranking has it (search.engine.rerank.among_candidates).
    dense_among_candidates: bool = True
    # Where dense_among_candidates is off: such a sentence's full-tier dense leg counts in full where its
    # first hit's cosine exceeds its tenth's by this much, in proportion below
    # (search.engine.engine.fusion_weights; 0: off).
    dense_margin: float = 0.15

    def rerank_depth(self, query: AnalysedQuery) -> int:
        """Candidates per retriever that a fast tier's sentence has ranked by the full model (0: none)."""
        return self.rerank_pool if query.form == "function" else self.rerank_topic_pool

    @property
    def reranks(self) -> bool:
        """Whether any sentence of a fast tier is re-ranked (the ranking on, a pool above 0); the
        settings' side of what ``plait status`` reports as the re-rank (``indexer.status``)."""
        return self.enabled and bool(self.rerank_pool or self.rerank_topic_pool)

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> RankingConfig:
        """Validate the raw ``[ranking]`` table: unknown keys and wrong types are errors."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in known:
                raise ConfigError(
                    f"[ranking] has no setting {key!r}; known settings: {', '.join(sorted(known))}."
                )
            default = getattr(cls(), key)
            if isinstance(default, bool):
                if not isinstance(value, bool):
                    raise ConfigError(f"[ranking] {key} must be true or false, got {value!r}")
            elif isinstance(default, int):
                least = 0 if key in _COUNTS_FROM_ZERO else 1
                if isinstance(value, bool) or not isinstance(value, int) or value < least:
                    kind = "an integer ≥ 0" if least == 0 else "a positive integer"
                    raise ConfigError(f"[ranking] {key} must be {kind}, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"[ranking] {key} must be a number ≥ 0, got {value!r}")
            values[key] = float(value) if isinstance(default, float) else value
        return cls(**values)


# --- roles of files, read from their paths --------------------------------------------------------
# Directory names in any case: Swift's packages keep their tests in ``Tests/``, PHP, C# and Java
# projects name directories as they name classes (Laravel's ``Foundation/Testing/``, ``Fixtures/``).

# Test files by each language's own convention (a bash library named test_functions.bash is not a
# test: its language has no such convention, its tests are *.bats files). A Rust module's tests kept
# beside it (``#[cfg(test)] mod tests;`` reads ``src/set/tests.rs``) and a Django app's ``tests.py``
# are named for what they hold; a ``testing`` module is a library's helpers for its users' tests.
_TEST_FILE = re.compile(
    r"(?:^|/)(?:"
    r"(?:test_[^/]+|[^/]+_test|tests)\.(?:py|go|c|cc|cpp|cxx|h|hpp|lua|dart|rb|rs|exs?)"
    r"|[^/]+[._-](?:test|spec)\.(?:[cm]?[jt]sx?|vue|svelte)"
    r"|[^/]*[a-z0-9](?:Tests?|IT|Spec|Suite)\.(?:java|kt|kts|scala|groovy|cs|swift|php|m|hs)"
    r"|[^/]+_spec\.(?:rb|lua|ex|exs)|[^/]+\.bats|conftest\.py|test_helpers?\.[a-z]+|Spec\.hs"
    r")$"
)
# A test folder, or one named for the tests it holds: toml's internal/toml-test/ (the runner of the
# TOML test suite), integration_tests/, e2e-tests/, json/output-tests/
_TEST_DIR = re.compile(
    r"(?:^|/)(?:tests?|__tests__|specs?|testing|t|[^/]+[_-](?:tests?|specs?|testing))/", re.IGNORECASE
)
# Benchmarks, fuzz targets and stress tests are tests that time the code, feed it random input or race
# it (sqlparse's benchmarks/bench_grouping.py, attrs's bench/, jsonpickle_benchmarks.py, jsonpickle's
# fuzzing/, simplejson's tsan_stress_simplejson.py): harness code that exercises the library, asked for
# as tests or by name ("benchmarks for the lexer", "fuzz targets"). Not a module named benchmark.py or
# fuzz.go alone: a benchmarking or fuzzing library's own.
_HARNESS = re.compile(
    r"(?:^|/)(?:benchmarks?|bench|fuzz|fuzzing|fuzzers?|stress)/"
    r"|(?:^|/)(?:bench|benchmarks?)_[^/]+$|_(?:bench|benchmarks?)\.[^/.]+$"
    r"|(?:^|/)(?:[^/]+[_-])?(?:fuzz|fuzzer|stress)[_-][^/]+$|[_-](?:fuzz|fuzzer|stress)\.[^/.]+$",
    re.IGNORECASE,
)
_FIXTURE_DIR = re.compile(
    r"(?:^|/)(?:fixtures?|__fixtures__|testdata|test-data|__snapshots__|__mocks__|mocks)/"
    # (a folder of doubles is plural, mocks/ or __mocks__/: a singular mock/ is a mocking library's own
    # package, testify's mock or undici's lib/mock/, MockAgent)
    # a file of test doubles (mocks.rs, mock_db.py, db_mock.go; not a mocking library's own mock.py)
    r"|(?:^|/)(?:mocks\.|mock_)[^/]+$|[^/]_mocks?\.[^/]+$"
    r"|\.stub$",  # scaffolding templates a generator copies (Laravel's make:controller stubs)
    re.IGNORECASE,
)
_EXAMPLE_DIR = re.compile(r"(?:^|/)(?:_?examples?|samples?|demos?|docs_src|tutorials?)/", re.IGNORECASE)
# Go keeps its documentation's runnable examples (``func ExampleRouter_Host``) in test files named for
# them: example_test.go, example_route_test.go, route_example_test.go
_EXAMPLE_TEST = frozenset({"example", "test"})
_GO_EXAMPLES = re.compile(r"(?:^|/|_)examples?(?:_[^/]*)?_test\.go$")
_VENDORED_DIR = re.compile(
    r"(?:^|/)(?:vendor|vendored|third[_-]?party|node_modules|external|extern)/", re.IGNORECASE
)
# Source maps a compiler writes beside its output (escape.js.map): one line of JSON that carries the
# sources' text verbatim, every comment and message included.
_SOURCE_MAP = r"\.(?:[cm]?[jt]sx?|css|scss|less)\.map$"
_GENERATED_FILE = re.compile(
    r"(?:_pb2(?:_grpc)?\.pyi?|\.pb\.(?:go|cc|h)|\.g\.dart|\.generated\.[A-Za-z]+|\.min\.(?:js|css)|_generated\.[A-Za-z]+)$"
    rf"|{_SOURCE_MAP}"
    # Dependency lock files a package manager writes: pins and checksums, whose package names match
    # every query about a dependency and whose vectors are noise.
    r"|(?:^|/)(?:go\.sum|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock"
    r"|poetry\.lock|Pipfile\.lock|uv\.lock|pdm\.lock|composer\.lock|Gemfile\.lock|Podfile\.lock"
    r"|mix\.lock|pubspec\.lock|flake\.lock|packages\.lock\.json|gradle\.lockfile|bun\.lockb?)$"
)
_COMPAT_DIR = re.compile(r"(?:^|/)(?:_?compat|legacy|deprecated|polyfills?)/", re.IGNORECASE)
_DOCS_FILE = re.compile(
    r"\.(?:md|mdx|rst|txt|adoc|asciidoc|texi|pod|[1-9])$|(?:^|/)(?:docs?|man|doc-src)/"
    # a Python source distribution's metadata, which carries the README whole
    r"|(?:^|/)PKG-INFO$",
    re.IGNORECASE,
)
# Package markers that mostly re-export. JavaScript's index.js is left alone: it is as often a
# directory's real module (axios's lib/defaults/index.js) as a barrel.
_REEXPORT_NAMES = frozenset({"__init__.py", "package-info.java", "module-info.java"})
_STUB_FILE = re.compile(r"\.d\.[cm]?ts$|\.pyi$")
# A repository's housekeeping, in hidden files and folders: CI workflows, VCS, editor, linter and tool
# settings (.github/workflows/test.yml, .gitignore, .pre-commit-config.yaml), never what a sentence
# about the code asks for, whose words their boilerplate still shares.
_HIDDEN = re.compile(r"(?:^|/)\.[^./][^/]*(?:/|$)")
# A project's manifests, build settings and licence: its name, what it depends on, how it is built,
# tested and packaged (pyproject.toml, package.json, go.mod, Makefile, LICENSE). They repeat the
# project's own words (its name, its description, its modules' paths) and say nothing of how the code
# works. Declarative files only: setup.py, noxfile.py or a Rakefile hold functions a query documents.
# So is the metadata a Python build writes beside the sources (``zipp.egg-info/``).
_MANIFEST_FILE = re.compile(
    r"(?:^|/)(?:"
    r"pyproject\.toml|setup\.cfg|MANIFEST\.in|(?:tox|pytest|mypy)\.ini|Pipfile"
    r"|package\.json|[jt]sconfig(?:\.[\w-]+)?\.json|composer\.json|bower\.json|deno\.jsonc?"
    r"|go\.mod|go\.work|Cargo\.toml|Gemfile|[^/]+\.gemspec"
    r"|pom\.xml|(?:build|settings)\.gradle(?:\.kts)?|CMakeLists\.txt|meson\.build|BUILD(?:\.bazel)?|WORKSPACE"
    r"|(?:GNU)?[Mm]akefile"
    r"|(?:LICEN[CS]E|COPYING|NOTICE)(?:[.-][^/]*)?"
    r")$"
    # a Python distribution's metadata, written by its build (file lists, requirements, entry points)
    r"|(?:^|/)[^/]+\.(?:egg|dist)-info/"
)
_SOURCE_MAP_FILE = re.compile(_SOURCE_MAP)

ROLES = ("test", "fixture", "example", "vendored", "generated", "compat", "docs", "reexport", "stub", "hidden", "manifest")  # fmt: skip


_VERSION_DIR = re.compile(r"(?:^|/)v(\d{1,3})/")


def superseded(paths: Sequence[str]) -> frozenset[str]:
    """The paths under a version directory (``src/v3/``) when another of ``paths`` lies under a later
    version beside it (``src/v4/``): the older major version kept for compatibility, which a search
    for a name both define should not put first."""
    latest: dict[str, int] = {}
    found: list[tuple[str, str, int]] = []
    for path in paths:
        for m in _VERSION_DIR.finditer(path):
            base, number = path[: m.start()], int(m.group(1))
            found.append((path, base, number))
            latest[base] = max(latest.get(base, number), number)
    return frozenset(path for path, base, number in found if number < latest[base])


def file_roles(path: str, generated: Callable[[str], bool] | None = None) -> tuple[str, ...]:
    """The roles of a workspace-relative path that the ranking demotes (see the module docstring);
    ``compat`` for an older version directory is decided among the candidates (:func:`superseded`)."""
    roles = _path_roles(path)
    if "generated" not in roles and generated is not None and generated(path):
        roles = tuple(r for r in ROLES if r in roles or r == "generated")  # in ROLES order, as below
    return roles


@lru_cache(maxsize=1 << 16)
def _is_document(path: str) -> bool:
    """A document: a file of the docs role that is no source code (``README.rst``, ``docs/guide.md``,
    ``man/tool.1``, a built ``doc/usage.html``; not cobra's Go package ``doc/``)."""
    return "docs" in _path_roles(path) and detect_language(path) not in SYMBOL_LANGUAGES


@lru_cache(maxsize=1 << 16)
def _path_roles(path: str) -> tuple[str, ...]:
    """:func:`file_roles` from the path alone (memoised: the same files come back query after query)."""
    roles = []
    if _TEST_FILE.search(path) or _TEST_DIR.search(path) or _HARNESS.search(path):
        roles.append("test")
    if _FIXTURE_DIR.search(path):
        roles.append("fixture")
    if _EXAMPLE_DIR.search(path) or _GO_EXAMPLES.search(path):
        roles.append("example")
    if _VENDORED_DIR.search(path):
        roles.append("vendored")
    if _GENERATED_FILE.search(path):
        roles.append("generated")
    if _COMPAT_DIR.search(path):
        roles.append("compat")
    if _DOCS_FILE.search(path):
        roles.append("docs")
    if PurePosixPath(path).name in _REEXPORT_NAMES:
        roles.append("reexport")
    if _STUB_FILE.search(path):
        roles.append("stub")
    if _HIDDEN.search(path):
        roles.append("hidden")
    if _MANIFEST_FILE.search(path):
        roles.append("manifest")
    return tuple(roles)


# --- path words ------------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def path_words(path: str) -> frozenset[str]:
    """Lower-cased words of a file's stem and of its parent directory's name (``http/RetryPolicy.py``
    → ``http``, ``retry``, ``policy``, ``retrypolicy``)."""
    p = PurePosixPath(path)
    stem = p.name.split(".", 1)[0] if not p.name.startswith(".") else p.name
    out: set[str] = set()
    for piece in (stem, p.parent.name):
        for chunk in re.split(r"[^A-Za-z0-9]+", piece):
            if not chunk:
                continue
            out.add(chunk.lower())
            out.update(w.lower() for w in identifier_parts(chunk))
    return frozenset(w for w in out if len(w) >= 2)


def _word_matches(word: str, parts: frozenset[str]) -> bool:
    """``word`` is one of ``parts``, or has the same stem as one (the lexical pipeline's stemmer:
    ``quantize`` and ``quantization``, ``validates`` and ``validator``), or one is a prefix (4+
    letters) of the other (``config`` and ``configuration``, ``dependency`` and ``dependencies``
    through ``dependenc``)."""
    if word in parts or _stem(word) in _stems(parts):
        return True
    for part in parts:
        short, long = (word, part) if len(word) <= len(part) else (part, word)
        if len(short) >= 4 and long.startswith(short):
            return True
        if len(short) >= 5 and long.startswith(short[:-1]) and len(long) - len(short) <= 3:
            return True  # dependency / dependencies, query / queries
    return False


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    return stem_words([word])[0]


@lru_cache(maxsize=1 << 16)
def _stems(parts: frozenset[str]) -> frozenset[str]:
    return frozenset(stem_words(list(parts)))


def _stem_is(path: str, name: str, *, loose: bool = True) -> bool:
    """``path``'s file is named after ``name``: its stem as written, less separators or a plural "s",
    or (``loose``) the lexical stemmer's stem of a one-word name."""
    bare = name.rsplit(".", 1)[-1].rsplit("::", 1)[-1].rsplit("->", 1)[-1].lstrip("$").lower()
    forms = _stem_forms(path)
    return bare in forms or (loose and bare.isalpha() and _stem(bare) == forms[-1])


def _constant_file(path: str, names: Sequence[str], defined: bool) -> bool:
    """Every name is written in capitals (``ERROR``, ``MAX_SIZE``) and ``path``'s file is named after
    none as written, only after its plural or stem (``errors.py``), or a candidate defines one as
    written (``defined``: jsonmerge's ``Merger.STRATEGIES`` beside its ``strategies.py``): a constant,
    whose module a file is not named after. A name in capitals that nothing defines as written may
    be an acronym its module is named after (``URL``, url.py)."""
    bares = [bare_name(n) for n in names]
    return all(b.isupper() for b in bares) and (
        defined or not any(b.lower() in _stem_forms(path)[:2] for b in bares)
    )


@lru_cache(maxsize=1 << 16)
def _stem_forms(path: str) -> tuple[str, ...]:
    """A file's stem as a name may match it: ``retry_policy.py`` → retry_policy, retrypolicy, …"""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    flat = stem.replace("_", "").replace("-", "")
    # last: the lexical stemmer's stem of a one-word file name (quantization.py: "quantiz")
    return (stem, flat, stem.rstrip("s"), flat.rstrip("s"), _stem(stem) if stem.isalpha() else "\0")


# --- the ranking ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Ranked:
    """One candidate after the rules: the fused candidate, its final score and what was done to it."""

    fused: Fused
    score: float
    tier: int = 0  # 0: ordinary; 1 and up: holds the query itself (see the module docstring)
    # order within a tier: (demoted role, stem is the name or the phrase as written, depth of the
    # file, verifier's rank)
    lead: tuple[int, int, int, int] = (0, 0, 0, 0)
    roles: tuple[str, ...] = ()  # the demoting roles of its file that the query does not ask for
    steps: list[tuple[str, str]] = field(default_factory=list)  # (rule, effect) in the order applied

    def explain(self) -> dict[str, Any]:
        """Why this result ranks where it does: each retriever's rank, the fused score and each rule."""
        return {
            "ranks": dict(self.fused.ranks),
            "fused": round(self.fused.score, 6),
            "rules": [{"rule": r, "effect": e} for r, e in self.steps],
            "tier": self.tier,
        }


def rank(
    fused: Sequence[Fused],
    query: AnalysedQuery,
    config: RankingConfig,
    *,
    generated: Callable[[str], bool] | None = None,
    text_top: Fused | None = None,
    dense_top: Sequence[Fused] = (),
    limit: int = 10,
    functions_within: Callable[[str, int, int], Sequence[str]] | None = None,
) -> list[Ranked]:
    """Order fused candidates by the rules of the module docstring. Deterministic: ties go by span.
    ``functions_within`` names the functions and methods defined on a file's lines (the symbol
    index's), for the name-words and relatives rules; without it a chunk is known by its label only."""
    ranked = [Ranked(f, f.score) for f in fused]
    if not ranked:
        return []
    by_file = not (config.function_sentences_by_span and query.form == "function")
    if config.enabled:
        top = max(r.score for r in ranked) or 1.0
        roles = _candidate_roles(ranked, generated)
        if by_file:
            _coherence(ranked, config, top)
        _definition(ranked, query, config, top)
        found = _tests_found(ranked, query, config, roles)  # reads the definition rule's steps
        tests_only = roles if query.tests_claim or found else None
        _name_words(ranked, query, config, top, functions_within, tests_only)
        _siblings(ranked, query, config, top, functions_within)
        if by_file:
            _path(ranked, query, config, top)
        _roles(ranked, query, config, roles, found, functions_within)
        _undefined(ranked, query, config)
        _relatives(ranked, query, config, functions_within)
        _tiers(ranked, query, config)
        if config.where_to_look:
            _within(ranked, query)
    ranked.sort(key=_order)
    if config.enabled and by_file and config.saturation < 1.0:
        ranked = _saturate(ranked, config)
    if config.enabled:
        kept = [text_top] if config.keep_text_top and text_top is not None else []
        if config.keep_dense_top and query.form == "function":
            kept += dense_top[: config.keep_dense_top]
        _keep(ranked, kept, limit)
        if config.keep_test_top and query.form == "function":
            test = _best_test(ranked, config.keep_test_top, limit)
            last = ranked[limit - 1] if len(ranked) >= limit else None
            # the page's last place, unless a result kept above already holds it
            if test is not None and last is not None and not any(rule == "keep" for rule, _ in last.steps):
                _keep(ranked, [test.fused], limit)
    _monotonic(ranked)
    return ranked


def _order(r: Ranked) -> tuple[int, tuple[int, int, int, int], float, Any]:
    return (-r.tier, r.lead if r.tier else (0, 0, 0, 0), -r.score, r.fused.span)


def _monotonic(ranked: list[Ranked]) -> None:
    """Final scores that never rise down the list: a tier adds a whole number (scores below it are
    < 1), and within a tier ordered by its verifier a result shows at least the score of any below it."""
    floor = 0.0
    for r in reversed(ranked):
        score = r.score + r.tier
        if score > floor:
            floor = score
        r.score = floor


def _coherence(ranked: list[Ranked], config: RankingConfig, top: float) -> None:
    if not config.coherence:
        return
    file_sum: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    best: dict[str, Ranked] = {}
    for r in ranked:
        path = r.fused.span.path
        file_sum[path] += r.score
        count[path] += 1
        if path not in best or (r.score, best[path].fused.span) > (best[path].score, r.fused.span):
            best[path] = r
    largest = max(file_sum.values())
    if largest <= 0:
        return
    for path, r in best.items():
        if count[path] < 2:
            continue  # one candidate: nothing cohering
        gain = config.coherence * top * file_sum[path] / largest
        r.score += gain
        r.steps.append(("coherence", f"+{gain:.4f}"))


def _definition(ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig, top: float) -> None:
    if not config.definition or query.shape not in ("identifier", "natural") or not query.names:
        return
    names = query.names
    overridden = ""
    if query.form == "function":
        # A sentence documenting one function names what it takes, returns or works on ("Return a
        # copy of this RequestsCookieJar."), not the function, unless it opens with its name, or names
        # the method it overrides ("An overridden version of `Time#utc` …"): a method of that name,
        # not the one overridden.
        names = names[:1] if query.opens_with_name else ()
        if not names and query.overrides:
            names = (bare_name(query.overrides[0]),)
            overridden = "." + dotted(query.overrides[0])
        if not names:
            return
    scale = 1.0 if query.shape == "identifier" else 0.5
    exact = {bare_name(n) for n in names}
    # … and ``transform_keys`` where ``transform_keys!`` is asked for, Rust's ``println`` for ``println!``
    folded = {n.lower() for n in exact} | {n.rstrip("?!'").lower() for n in exact}
    # "how does Console.print handle markup": Console.print as written, a plain ``print`` as if in
    # another case
    qualified = tuple("." + dotted(n) for n in names if bare_name(n) != n)
    match = [_defines(r, exact, folded, qualified) for r in ranked]
    if overridden:
        match = [
            0 if m and _defines(r, exact, folded, (overridden,)) == 2 else m
            for r, m in zip(ranked, match, strict=True)
        ]
    tests = "test" in query.wants and query.form != "function"
    if tests:
        # "tests for ConsoleRenderer": the tests named after it (``TestConsoleRenderer``,
        # ``test_console_renderer_pads``) are what is asked for, not the definition they test
        wanted = {normalise(bare_name(n)) for n in names}
        words = _test_words(query) if _names_only(query, names) else None
        match = [
            _tests_of(r, wanted, words) if "test" in _path_roles(r.fused.span.path) else 0 for r in ranked
        ]
    # Most languages tell genBashCompletion from GenBashCompletion: once a candidate defines the name
    # as written, one that defines it only in another case gains half.
    written = 2 in match  # some candidate defines a name as written
    other_case = 0.5 if written else 1.0
    first = None
    if config.named_others != 1.0 and query.opens_with_name:
        first = _first_named(ranked, match) if _names_itself(query) else _owned(ranked, match, query)
    # "Slotted classes support …", "before_log uses …": a claim a test's docstring makes about a name
    # only Python defines, which the name's own docstring would not open with; its definition gains
    # nothing, the tests that make the claim keep their role (:func:`_roles`)
    claim = query.form == "function" and _claims_about(
        query, [r.fused.span.path for r, m in zip(ranked, match, strict=True) if m]
    )
    stems: dict[str, bool] = {}  # per file: a file's chunks come many to a list
    for r, m in zip(ranked, match, strict=True):
        path = r.fused.span.path
        stem = stems.get(path)
        if stem is None:
            stem = stems[path] = any(_stem_is(path, n) for n in names)
        if m:
            later = first is not None and r is not first and m == 2
            gain = config.definition * top * scale * (1.5 if stem else 1.0) * (1.0 if m == 2 else other_case)
            gain *= config.named_others if later else 1.0
            # a field, variant or variable of the name is a line of its owner's chunk: half a definition,
            # below the module named after the name (axum's `Router.path_router`, its path_router.rs)
            member = _defines_data(r)
            gain *= 0.5 if member else 1.0
            gain *= 0.0 if claim else 1.0
            r.score += gain
            rule = (
                ("a test of it" if tests else "definition")
                + ("+stem" if stem else "")
                + (
                    ""
                    if m == 2 or other_case == 1.0
                    else " (a longer name)"
                    if tests
                    else " (case differs)"
                    if not qualified
                    else " (not as written)"
                )
                + (" (not the symbol index's first)" if later else "")
                + (" (a member)" if member else "")
                + (" (a test's claim about it)" if claim else "")
            )
            r.steps.append((rule, f"+{gain:.4f}"))
        elif stem and query.form != "function" and not tests and not _constant_file(path, names, written):
            # A file named after the name (tokenizer.py for Tokenizer) is its module even where no
            # single definition there carries the name: what a topic naming it asks for, not what a
            # function sentence naming what its definition takes or returns does.
            gain = config.definition * top * scale
            r.score += gain
            r.steps.append(("file named after it", f"+{gain:.4f}"))


def _name_words(
    ranked: list[Ranked],
    query: AnalysedQuery,
    config: RankingConfig,
    top: float,
    functions_within: Callable[[str, int, int], Sequence[str]] | None = None,
    tests_only: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Rule 2's second half: the functions whose names a function sentence's plain words spell, the
    chunk's own or (``functions_within``: the symbol index's functions defined on a span's lines) one
    of the short functions a chunk holds after its first. With ``tests_only`` (each candidate file's
    roles), for a test's own sentence, the chunks of tests and fixtures only: "copy() preserves the
    name." spells the code under test, which the test is about, not what documents it."""
    if not config.name_words or query.form != "function" or query.opens_with_name:
        return
    if not query.spelled:  # analysed with the query: its plain words' parts, two words or more
        return
    # a width it names is a part it spells: "Writes signed 64 bit integers …" spells ``write_i64_into``
    # and not ``write_u64_into``
    spelled = query.spelled | query.widths
    # two adjacent words run together are a part of a longer name ("in-place": ``fill_inplace``); a
    # one-part name they spell is two parts run together (below), not one word
    compound = spelled | query.spelled_joined
    words = plain_words(query.text, query.identifiers)
    sentence = tuple(words)
    # "Encode a list of sentences." names ``encode``, "Seek to a specific point in a file" ``seek``: a
    # function is named for what it does; "Get the event loop" and "Returns the date" say what a getter
    # returns, and do not name ``get`` (its name's other parts must be spelled: ``get_event_loop``)
    # "Remove all values from sorted list." empties the list (``clear``), and spells ``remove`` by its
    # opening verb alone: that method takes out one value
    opener = stem_words(words[:1])[0] if words[0] in GETTER_OPENERS or empties(words) else None
    receivers, created = query.receivers, query.made
    spelled_names: set[frozenset[str]] = set()  # those not named with a receiver's class (below)
    gain = config.name_words * top
    found: list[tuple[Ranked, list[frozenset[str]]]] = []
    partly: list[Ranked] = []  # a long name of which the words spell all but a few parts
    # the names the sentence mentions, by their parts' stems
    mentioned = [
        stems for i in query.identifiers if (stems := frozenset(stem_words(name_words(bare_name(i)))))
    ]
    for r in ranked:
        if tests_only is not None and not _TESTING.intersection(tests_only[r.fused.span.path]):
            continue
        names = _functions_defined(r, functions_within)
        both_first = _first_by_words_and_meaning(r.fused.ranks)
        own: list[frozenset[str]] = []
        for name in dict.fromkeys(names):
            if not name:
                continue
            if name.endswith("__") and _SPECIAL_METHODS.get(bare := bare_name(name), frozenset()) & spelled:
                own.append(frozenset({bare}))
                spelled_names.add(own[-1])
                continue
            owner = _owner(name)
            held = normalise(owner) if owner else ""
            if held in created and normalise(bare_name(name)) in _CONSTRUCTORS:
                # "Create a new `BytesMut` with default capacity." documents ``BytesMut::new``: the
                # constructor of the object it makes, gaining as a one-part name does (half): of a
                # class's constructors, the words that follow tell which ("… containing `len` zeros.":
                # ``zeroed``)
                own.append(frozenset({f"{held}.new"}))
                continue
            called = held in receivers
            # a short name is a part of two with its class's: "Returns the length of this match." names
            # ``Match.len``, as ``match_len``; and it counts alone in the chunk its words and its meaning
            # both put first ("Create and send an HTTP PUT request.": guzzle's ``put``)
            parts = _name_parts(name, typed=bool(query.widths), short=called or both_first)
            if not parts:
                continue
            whole, stems, single = parts
            if called:
                # "Return the pattern ID for this match." documents ``Match.pattern``: the method of
                # the object the sentence calls "this match" is named by both, as ``match_pattern`` is
                whole, stems, single = whole | {held}, stems | {held}, None
            # every part as written or every part's stem among the words (or their stems); one part
            # alone counts when it has four letters or more and is not the sentence's opening verb,
            # when that is a getter's ("Returns", "Gets")
            within = spelled if single is not None else compound
            if called:
                within = within | {held}  # the receiver's class is named, written as code or not
            # a converter's name holds its "to" or "from" (read once a sentence: cached by name)
            reading = _reads_as_converter(name, sentence) if whole & _CONNECTIVES else None
            if (whole <= within or stems <= within) and (single is None or single != opener):
                if reading is False:
                    continue
                own.append(stems)
                if not called:
                    spelled_names.add(stems)
            elif reading and (words[0] in _CONVERTING or ("to" in whole and "into" in words)):
                # a converter's other name for what the sentence converts: "Convert a &str to
                # `NotNan`." documents ordered-float's ``from_str``, "Turns a name into hex"
                # ``hex_from_name``; and "into" writes a converter's "to" whatever the verb: "Renders
                # a sequence of Fragments into lines." documents mistletoe's ``fragments_to_lines``
                own.append(stems)
                spelled_names.add(stems)
            elif any(m < stems and stems - m <= within for m in mentioned):
                # a name built of a name the sentence mentions and its words: "The base implementation
                # of `_.isArguments`." documents lodash's ``baseIsArguments``
                own.append(stems)
                spelled_names.add(stems)
            elif single is not None and (run := _run_together(next(iter(whole)), spelled, words)):
                own.append(run)  # ``naturalday``, ``readlines``: as ``natural_day`` and ``read_lines``
                spelled_names.add(run)
            elif len(stems) > 2 and _mostly_spelled(whole, stems, compound):  # two parts: spelled or not
                partly.append(r)
        if own:
            found.append((r, own))
    # "Allow unknown options on the command line" spells ``allowUnknownOption``, and ``unknownOption``
    # only as a part of it: a name whose parts all belong to a longer name spelled gains nothing, unless
    # the longer names extend it by the alternatives the sentence lists (:func:`_dispatches`). A longer
    # name that adds only the ``get`` the opening implies is the same getter named the other
    # way: "Return a set of all literals …" spells ``get_literals`` and the property ``literals`` alike
    # (not a predicate's ``is``: ``is_help_option`` and the decorator ``help_option`` are not one)
    # A method named with its receiver's class (``Repeater.next`` for "… that this Repeater
    # represents") takes nothing from its overrides (``RepeaterTime.next``): which class documents it
    # is not known, only that one of its name is meant.
    implied = frozenset({"get"}) if implies_get(words) else frozenset()
    for r, own in found:
        kept = [
            stems
            for stems in own
            if not any(stems < longer and not longer - stems <= implied for longer in spelled_names)
            or _dispatches(stems, spelled_names, words)
        ]
        if not kept:
            continue
        # a sentence spells a one-part name (``command``, ``invoke``) with any plain word of it: half,
        # unless the chunk is the one its words and its meaning both put first ("Returns the root state
        # ID, and if it doesn't exist, creates it." documents ``root``, not ``create_state``)
        full = any(len(stems) > 1 for stems in kept) or _first_by_words_and_meaning(r.fused.ranks)
        share = 1.0 if full else 0.5
        r.score += gain * share
        r.steps.append(("name words", f"+{gain * share:.4f}"))
    # "Display an error message if conflicting options are used together in this." documents
    # ``_checkForConflictingLocalOptions``: a long name carries words its documentation leaves out, and
    # two thirds of its parts spelled are as rare by chance as a one-part name spelled
    spelling = {id(r) for r, _ in found}
    for r in partly:
        if id(r) not in spelling:
            spelling.add(id(r))  # one gain a chunk
            r.score += gain * 0.5
            r.steps.append(("name words (most of it)", f"+{gain * 0.5:.4f}"))
    # "Update sorted list by adding all values from `iterable`." documents ``SortedList.update``, not
    # ``SortedSet.update``: a method's documentation calls its object by its class's name ("this cookie
    # jar", "the sorted dict"). A class name of two parts or more spelled whole is seldom chance, and
    # the class of the object called "this" ("… of this match.") is named outright, but neither names
    # a method of it in particular: a quarter of the gain, a tie-breaker among same-named methods
    for r in ranked:
        if tests_only is not None and not _TESTING.intersection(tests_only[r.fused.span.path]):
            continue
        label = r.fused.label
        owner = _owner(label.symbol or "") if label.kind in FUNCTION_KINDS else None
        parts = _name_parts(owner) if owner else None  # memoised: the same classes query after query
        if owner is None or parts is None:
            continue
        spelled_class = len(parts[0]) > 1 and (parts[0] <= compound or parts[1] <= compound)
        if spelled_class or normalise(owner) in receivers:
            r.score += gain * _OWNER_SHARE
            r.steps.append(("name words (its class)", f"+{gain * _OWNER_SHARE:.4f}"))


_OWNER_SHARE = 0.25  # of the name-words gain, for a method whose class's name the sentence spells
# What a class's constructor is named (Rust's ``new``, Python's ``__init__``, Ruby's ``initialize``)
_CONSTRUCTORS = frozenset({"new", "init", "initialize", "constructor"})


# Python's special methods, and the words their documentation says what the language does with them
# in, each rare in other documentation (beside the name's own part where it has four letters or more:
# "Return an iterator …", a short form of "iterator", spells ``__iter__``). Not "string" for
# ``__str__``, "element" for ``__contains__``, "equal" for ``__eq__`` or "loop" for ``__iter__``: "… in
# the string", "two elements tuple", "… if they are equal", "a for loop" document other functions.
_SPECIAL_METHODS: dict[str, frozenset[str]] = {
    "__repr__": frozenset({"representation"}),
    "__len__": frozenset({"length", "size"}),
    "__eq__": frozenset({"equality"}),
    "__ne__": frozenset({"inequality"}),
    "__bool__": frozenset({"truth", "truthy", "falsy"}),
    "__getitem__": frozenset({"lookup", "indexing", "subscript"}),
    "__reduce__": frozenset({"pickle", "pickling", "pickled"}),
}


def _functions_defined(
    r: Ranked, functions_within: Callable[[str, int, int], Sequence[str]] | None
) -> list[str | None]:
    """The functions ``r``'s chunk defines, for rule 2's gains: the one it is known by (the symbol
    retriever's definition there, else its label's, where that is a function or a method) and, with
    ``functions_within``, every function the symbol index has on its lines (a ``None`` where the
    label has no symbol)."""
    label = r.fused.label
    names: list[str | None] = [label.symbol] if label.kind in FUNCTION_KINDS else []
    return [*names, *_functions_on(r, functions_within)]


def _functions_on(
    r: Ranked, functions_within: Callable[[str, int, int], Sequence[str]] | None
) -> Sequence[str]:
    """The functions the symbol index has on the lines of ``r``'s chunk (none without the index's)."""
    if functions_within is None:
        return ()
    span = r.fused.span
    return functions_within(span.path, span.start_line, span.end_line)


_CONNECTIVES = frozenset({"to", "from"})  # the parts a converter's name joins its sides with


def _verb_forms(*verbs: str) -> frozenset[str]:
    """Each of ``verbs`` as an opening writes it, bare and in the third person ("write", "writes";
    "copy", "copies")."""
    return frozenset(
        form for verb in verbs for form in (verb, verb[:-1] + "ies" if verb.endswith("y") else verb + "s")
    )


# The verbs of a sentence whose "to" tells where things go, not what they become ("Writes the JSON
# for jsonElement to writer.")
_SENDING = _verb_forms("write", "send", "print", "save", "dump", "emit", "output", "append", "copy", "add")
# The verbs of a sentence that converts one thing into another ("Convert a &str to `NotNan`.")
_CONVERTING = _verb_forms("convert", "transform", "turn", "cast", "change", "translate", "coerce")


@lru_cache(maxsize=1 << 12)
def _reads_as_converter(name: str, words: tuple[str, ...]) -> bool | None:
    """A converter's name read against a sentence: ``None`` where ``name`` is none, else whether the
    sentence reads its way. A converter is ``<from>_to_<into>`` or ``<into>_from_<from>``, each side
    one part or more, or one side none (``to_vec``, ``from_slice``); the sentence reads its way where a
    "to" or "into" among ``words`` has every part of the one side spelled before it and of the other
    after it, or a "from" the other way round ("Build a color name from a hexadecimal value").
    - ``name_to_hex`` converts a name into hex: "Convert a hexadecimal color value to its
      corresponding color name" spells it whole and documents ``hex_to_name``; "Converts a buffer to
      an `ArrayBuffer`." documents ``toArrayBuffer``, not ``toBuffer``; ``from_elem`` makes one from an
      element, and "Remove all elements from the vector." spells it and documents ``clear``.
    - Not a converter: a ``to_<into>`` under a verb that sends ("Writes the JSON for jsonElement to
      writer." documents gson's ``toJson``: its "to" tells where the JSON goes), nor a test's name, a
      phrase of its own (``test_wrap_text_to_colwidths``)."""
    parts = name_words(bare_name(name))
    if not parts or parts[0] == "test":
        return None
    at = next((i for i, p in enumerate(parts[:-1]) if p in _CONNECTIVES), -1)
    if at < 0 or (at == 0 and parts[0] == "to" and words[0] in _SENDING):
        return None
    before, after = parts[:at], parts[at + 1 :]
    source, target = (before, after) if parts[at] == "to" else (after, before)
    source_stems, target_stems = stem_words(source), stem_words(target)  # once, not at each word

    def spells(side: list[str], stems: list[str], span: tuple[str, ...]) -> bool:
        found = spelled_by(list(span))
        return all(p in found or s in found for p, s in zip(side, stems, strict=True))

    return any(
        (
            w in ("to", "into")
            and spells(source, source_stems, words[:i])
            and spells(target, target_stems, words[i + 1 :])
        )
        or (
            w == "from"
            and spells(target, target_stems, words[:i])
            and spells(source, source_stems, words[i + 1 :])
        )
        for i, w in enumerate(words)
    )


def _run_together(part: str, spelled: frozenset[str], words: Sequence[str]) -> frozenset[str] | None:
    """The two words that a one-part name runs together, both among a sentence's words (as written,
    as stems or as the short forms code writes for them): Python's lower-case names are often words
    joined with no mark between them, ``naturalday`` for "Return a natural day.", ``readlines`` for
    "Reads the lines of a file."; or two adjacent ``words``, however short: ``warmup`` for "… used
    to warm-up the application."; ``None`` where neither finds both."""
    for i in range(3, len(part) - 2):
        if part[:i] in spelled and part[i:] in spelled:
            return frozenset((part[:i], part[i:]))
    return next(
        (frozenset((a, b)) for a, b in pairwise(words) if a + b == part and compound_pair(a, b)), None
    )


def _dispatches(stems: frozenset[str], spelled_names: set[frozenset[str]], words: list[str]) -> bool:
    """A dispatcher documented by what it dispatches to: a name of two parts or more (``stems``) that
    two longer names spelled extend, one by each of two alternatives the sentence lists ("DER or PEM",
    "PEM and DER"). rsa's "Loads a key in PKCS#1 DER or PEM format." spells ``_load_pkcs1_der`` and
    ``_load_pkcs1_pem`` and documents ``load_pkcs1``, which loads either."""
    extras = {longer - stems for longer in spelled_names if stems < longer}
    if len(stems) < 2 or len(extras) < 2:
        return False
    stemmed = stem_words(words)
    return any(
        joined in ("or", "and") and any(a in x and b in y for x in extras for y in extras if x != y)
        for a, joined, b in zip(stemmed, words[1:], stemmed[2:], strict=False)
    )


def _mostly_spelled(whole: frozenset[str], stems: frozenset[str], spelled: frozenset[str]) -> bool:
    """Two parts of a name or more, and two thirds of its parts, among the words (as written or as
    stems): a name of three parts or more that the words spell all but a third of."""
    found = max(len(whole & spelled), len(stems & spelled))
    return found >= 2 and 3 * found >= 2 * len(stems)


@lru_cache(maxsize=1 << 14)
def _name_parts(
    name: str, *, typed: bool = False, short: bool = False
) -> tuple[frozenset[str], frozenset[str], str | None] | None:
    """The parts of ``name``'s bare name of two letters or more, lower-cased, and their stems, and
    the stem of the one part of a one-part name (``None`` for a name of several); ``None`` for a name
    with no such part or of one part shorter than four letters (with ``short``, one that is a stop
    word: ``Expression.__and__`` is no "and" of a sentence). ``typed`` (a sentence that names a
    numeric type by its width): the numeric types the name writes are parts of it too, each as one
    (``write_i64_into``: write, into, ``i64``; ``ReadUint64``: read, ``u64``)."""
    bare = bare_name(name)
    widths, rest = name_widths(identifier_parts(bare)) if typed else (frozenset(), [])
    if widths:
        parts = words_of_parts(rest)
        return frozenset(parts) | widths, frozenset(stem_words(parts)) | widths, None
    parts = name_words(bare)
    if not parts or (len(parts) == 1 and len(parts[0]) < 4 and (not short or parts[0] in STOP_WORDS)):
        return None
    stems = stem_words(parts)
    return frozenset(parts), frozenset(stems), stems[0] if len(parts) == 1 else None


def _names_itself(query: AnalysedQuery) -> bool:
    """A "Name verbs …" sentence naming nothing else ("Trace logs a message at level Trace.")."""
    return query.opens_with_name and len(query.identifiers) == 1


def _first_named(ranked: Sequence[Ranked], match: Sequence[int]) -> Ranked | None:
    """Of the candidates defining the name, the one the symbol retriever ranks first: its order (the
    shortest qualified name, a function before a method) is what tells the package's ``Trace`` from
    ``Logger.Trace`` when the rest of the sentence cannot (a wrapper whose body is one call). Where
    that first is no function, the order tells one method from another by nothing, and a definition
    that both the text and the dense leg rank above it is taken instead (of several, the best by both)."""
    best = max(match, default=0)  # 2 once some candidate defines it as written (another case: halved)
    found = [
        (symbol, n)
        for n, (r, m) in enumerate(zip(ranked, match, strict=True))
        if m and m == best and (symbol := r.fused.ranks.get("symbol"))
    ]
    if not found:
        return None
    first = ranked[min(found)[1]]
    if first.fused.label.kind == "function":
        return first
    behind = _sentence_ranks(first)
    agreed = [
        (1 / text + 1 / dense, n)
        for _, n in found
        for text, dense in [_sentence_ranks(ranked[n])]
        if text < behind[0] and dense < behind[1]
    ]
    return ranked[max(agreed)[1]] if agreed else first


def _owned(ranked: Sequence[Ranked], match: Sequence[int], query: AnalysedQuery) -> Ranked | None:
    """Of the candidates defining the name a "Name verbs …" sentence opens with, the one whose owner
    the sentence names too ("Serialize allows StringSlice to fulfill Serializer": ``StringSlice.Serialize``
    of a dozen ``Serialize`` methods); none where no candidate, or several, are owned by a name it holds."""
    named = {bare_name(n) for n in query.identifiers[1:]}
    owned = [
        r
        for r, m in zip(ranked, match, strict=True)
        if m == 2 and any(_owner(s) in named for s in (r.fused.defines, r.fused.hit.symbol) if s)
    ]
    return owned[0] if len({r.fused.span for r in owned}) == 1 else None


def _owner(symbol: str) -> str | None:
    """The part of a qualified name before its last: ``cli.StringSlice.Serialize`` → ``StringSlice``."""
    parts = dotted(symbol).split(".")
    return parts[-2] if len(parts) > 1 else None


def _sentence_ranks(r: Ranked) -> tuple[float, float]:
    """A candidate's ranks on the text and the dense leg (infinite where a leg did not find it)."""
    ranks = r.fused.ranks
    return (ranks.get("text") or math.inf, ranks.get("vector") or math.inf)


def _defines(r: Ranked, exact: set[str], folded: set[str], qualified: tuple[str, ...] = ()) -> int:
    """2: a verified definition of a name asked for, as written; 1: in another case only, or of a
    qualified name asked for (``.Console.print``, dotted, ``qualified``) by its last part alone; 0:
    neither. Verified: the symbol index found it (or it holds the query); the name is the one the
    symbol index found there or the chunk's label (a chunk of several definitions is labelled with its
    first)."""
    if not (r.fused.exact or r.fused.ranks.get("symbol") is not None):
        return 0
    found = [s for s in (r.fused.defines, r.fused.hit.symbol) if s]
    names = [bare_name(s) for s in found]
    if any(n in exact for n in names):
        if qualified and not any(("." + dotted(s)).endswith(q) for s in found for q in qualified):
            return 1
        return 2
    return 1 if any(n.lower() in folded for n in names) else 0


def _defines_data(r: Ranked) -> bool:
    """The symbol retriever found a field, variant or variable here (:data:`indexer.DATA_KINDS`)."""
    return r.fused.definition is not None and r.fused.definition.kind in DATA_KINDS


def _names_only(query: AnalysedQuery, names: Sequence[str]) -> bool:
    """The query asks for the tests of ``names`` and says nothing more ("Tests for Int16 (int16 and
    []int16)", "how is ConsoleRenderer tested"): every word it has beside the function words and
    "test" is a part of a name. One that tells a behaviour ("Test slicing on a fresh iterable each
    time") may be naming its test in other words (``test_slicing_reset``)."""
    parts = {p for n in names for p in name_words(bare_name(n))} | {normalise(bare_name(n)) for n in names}
    said = set(plain_words(query.text, ())) - STOP_WORDS - _TEST_WORDS
    return said <= parts


_TEST_WORDS = frozenset({"test", "tests", "tested", "testing"})


def _tests_of(r: Ranked, wanted: set[str], words: frozenset[str] | None) -> int:
    """2 where the test ``r`` holds is named after a name asked for (normalised: ``wanted``), else 0;
    where the query asks for nothing but a name's tests (``words``: its words, :func:`_names_only`),
    2 only for a test named after it and otherwise in the query's words (``TestInt16`` or
    ``test_int16`` for "tests for Int16"), 1 where its name holds the name among words the query
    lacks (``TestEachInt16``, ``TestInt16Slice``: tests of other functions whose names hold it, or of
    one case of it)."""
    names = [s for s in (r.fused.defines, r.fused.label.symbol) if s]
    # a test's stand-in named as the name itself (go-schema's ``S22.UnmarshalText``, a fake type's
    # method of the interface) is another definition of it, not a test of it; a test asked for by its
    # own name (``TestMemFsDataRace``) is itself
    found = [
        normalise(s)
        for s in names
        if (bare := normalise(bare_name(s))).startswith("test") or bare not in wanted
    ]
    held = [w for w in wanted if w and any(w in f for f in found)]
    if not held:
        return 0
    if words is None:
        return 2
    # the test's own name or its class's: ``TestConsoleRenderer.test_pads`` tests ConsoleRenderer
    for part in {p for name in names for p in dotted(name).split(".") if p}:
        extra = "".join(p for p in name_words(part) if p not in ("test", "tests") and not _spelled(p, words))
        if any(w in normalise(part) and extra in w for w in held):
            return 2
    return 1


def _spelled(part: str, words: frozenset[str]) -> bool:
    """A name's part is one of the query's words, stemmed, or the short form of one (``attrib`` for
    "attribute", ``config`` for "configuration"). Not a word a sentence's index leaves out: a name's
    ``Where`` or ``Each`` is a function's (objx's ``TestWhereFloat64``), not a filler."""
    return (
        part in words
        or stem_words([part])[0] in words
        or (len(part) >= 4 and any(w.startswith(part) for w in words))
    )


def _path(ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig, top: float) -> None:
    """A word counts by how few candidate files it names: "event" in nearly every file of an asyncio
    package tells nothing, "cookie" in one file of forty tells a lot (1 - files matched / files)."""
    if not config.path or query.shape != "natural" or not query.words:
        return
    files = sorted({r.fused.span.path for r in ranked})
    matched = {p: [_word_matches(w, path_words(p)) for w in query.words] for p in files}
    named = [sum(m[i] for m in matched.values()) for i in range(len(query.words))]
    specific = [1.0 - n / len(files) if len(files) > 1 else 1.0 for n in named]
    share_of = {
        p: sum(s for s, hit in zip(specific, m, strict=True) if hit) / len(query.words)
        for p, m in matched.items()
    }
    for r in ranked:
        share = share_of[r.fused.span.path]
        if share > 0:
            gain = config.path * top * share
            r.score += gain
            r.steps.append(("path", f"+{gain:.4f}"))


_TESTING = frozenset({"test", "fixture"})  # the roles of a file a stated test may be found in


def _candidate_roles(
    ranked: list[Ranked], generated: Callable[[str], bool] | None
) -> dict[str, tuple[str, ...]]:
    """Each candidate file's roles (:func:`file_roles`; ``compat`` for an older version directory
    beside a later one among the candidates). Where no candidate is code of no role (one that
    defines something), a compat folder holds the project itself, not its old code beside the current:
    the Deprecated library's ``deprecated/`` package. It is no role then."""
    cache: dict[str, tuple[str, ...]] = {}
    older = superseded(sorted({r.fused.span.path for r in ranked}))
    for path in dict.fromkeys(r.fused.span.path for r in ranked):
        roles = file_roles(path, generated)
        cache[path] = (*roles, "compat") if path in older and "compat" not in roles else roles
    if any("compat" in roles for roles in cache.values()) and not any(
        r.fused.label.symbol and not cache[r.fused.span.path] for r in ranked
    ):
        cache = {path: tuple(role for role in roles if role != "compat") for path, roles in cache.items()}
    return cache


def _tests_found(
    ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig, cache: Mapping[str, tuple[str, ...]]
) -> str:
    """Why tests keep their role for a query that does not ask for them, decided from the candidates
    (empty where they do not): the sentence is found in tests, or is a claim about a Python name."""
    if "test" in query.wants:
        return ""
    if _found_in_tests(ranked, query, config, cache):
        return "the sentence is found in tests"
    if _claims_of_a_python_name(ranked, query):
        return "a claim about a Python name, which its own docstring would not open with"
    return ""


def _roles(
    ranked: list[Ranked],
    query: AnalysedQuery,
    config: RankingConfig,
    cache: Mapping[str, tuple[str, ...]],
    found: str,
    functions_within: Callable[[str, int, int], Sequence[str]] | None = None,
) -> None:
    """Rule 4: the penalty of each candidate's strongest role the query does not ask for (``found``:
    why tests keep theirs, :func:`_tests_found`; ``functions_within``: the tests a chunk holds)."""
    agreed = config.agreed_top if query.form == "function" else 0
    named = _test_words(query) if agreed and config.named_tests else frozenset()
    tested = _tested_names(ranked, query, cache) if named else frozenset()
    opener = query.text.split(maxsplit=1)[0].lower() if named else ""
    returns = stem_words([opener])[0] if opener in GETTER_OPENERS else None  # "Returns …": see _named_for
    wants = query.wants | {"test"} if found else query.wants
    only = _examples_hold_words(ranked, query, cache)
    in_code: set[str | None] | None = None  # the names real code among the candidates defines, once asked
    for r in ranked:
        path = r.fused.span.path
        roles = cache[path] or (("test",) if _inline_test(r) else ())
        if query.states_test and config.code_penalty != 1.0 and not _TESTING.intersection(roles):
            # "Make sure ``peek()`` takes a default": the test that checks it, not the code it checks
            r.score *= config.code_penalty
            r.steps.append(("code: a test is stated", f"×{config.code_penalty:g}"))
        if not roles:
            continue  # most candidates: r.roles stays ()
        r.roles = tuple(
            role
            for role in roles
            if role not in wants
            and not (role == "fixture" and "test" in wants)
            # Go's examples are test files too: asked for as either ("This example demonstrates …")
            and not (role in _EXAMPLE_TEST and set(roles) >= _EXAMPLE_TEST and _EXAMPLE_TEST & wants)
        )
        if found and (testing := [role for role in roles if role in _TESTING]):
            r.steps.append((f"role:{testing[0]}", f"×1: {found}"))
        if r.roles and r.roles[0] == "stub":
            # A declaration file's copy of a definition that real code among the candidates makes
            # (wrapt's ``__init__.pyi`` beside ``caching.py``) is first by the words and the meaning it
            # copies, and keeps its role: the code it declares is what a sentence documents.
            if in_code is None:
                in_code = {c.fused.label.symbol for c in ranked if not cache[c.fused.span.path]} - {None}
            if r.fused.label.symbol in in_code:
                continue
        if r.roles and agreed and r.fused.ranks.get("text") == 1:
            if 0 < (r.fused.ranks.get("vector") or 0) <= agreed:
                r.steps.append((f"role:{r.roles[0]}", "×1: first by its words and by its meaning"))
                r.roles = ()  # the one chunk both retrievers put first is what the sentence documents
            elif r.fused.ranks.get("symbol") == 1:
                r.steps.append((f"role:{r.roles[0]}", "×1: first by its words and by its name"))
                r.roles = ()
        if r.roles and _first_everywhere(r.fused.ranks):
            r.steps.append((f"role:{r.roles[0]}", "×1: first by its words, its name and its meaning"))
            r.roles = ()  # for any query: ply's cparse.py rule for "exclusive_or_expression : …"
        if r.roles and path in only:
            r.steps.append((f"role:{r.roles[0]}", "×1: it holds words that only examples hold"))
            r.roles = ()  # ply's grammar rules, "plist : plist COMMA pitem", are its examples' own
        if r.roles and named and _named_for(r, named, tested, functions_within, returns):
            r.steps.append((f"role:{r.roles[0]}", "×1: a test named for the sentence"))
            r.roles = ()  # ``test_center_ambiguous`` for "Center respects ambiguous_width parameter."
    # A file that defines a name the query asks for is what the query asks for, whatever its role,
    # unless real code defines it too and the query is a topic, a question or a name: then the test's
    # own ``ZodType``, the legacy ``v3/`` copy, the declaration file's or the example's are shadows of
    # the code it asks about, and keep their penalty. A sentence documenting one function documents
    # it wherever it is, a test's helper or a mock's method (testify's ``mock.Call.Run``) included.
    defined_in_code = query.form != "function" and any(_defines_asked(r) and not _demoting(r) for r in ranked)
    for r in ranked:
        if not r.roles:
            continue
        if _defines_asked(r) and not defined_in_code:
            continue  # it defines a name the query asks for: the query asks for this file
        # One prior, not one per name the file goes by: ``docs/examples/x.py`` (docs and example) or
        # ``tests/fixtures/x.py`` is multiplied by its strongest role's penalty only.
        penalties = [(float(getattr(config, f"{role}_penalty")), role) for role in _demoting(r)]
        penalty, role = min(penalties, default=(1.0, ""))
        if penalty != 1.0:
            r.score *= penalty
            r.steps.append((f"role:{role}", f"×{penalty:g}"))


def _first_by_words_and_meaning(ranks: Mapping[str, int | None]) -> bool:
    """The text retriever and the dense one both rank the candidate first."""
    return ranks.get("text") == 1 and ranks.get("vector") == 1


def _first_everywhere(ranks: Mapping[str, int | None]) -> bool:
    """Every retriever of a hybrid search ranks the candidate first."""
    return _first_by_words_and_meaning(ranks) and ranks.get("symbol") == 1


def _examples_hold_words(
    ranked: Sequence[Ranked], query: AnalysedQuery, cache: Mapping[str, tuple[str, ...]]
) -> frozenset[str]:
    """The example files among the candidates that hold more of the query's words than any candidate
    of no role does (by the text retriever's share of the query's term weight, ``Fused.coverage``): a
    query whose words only examples hold asks for examples (ply's grammar rules, "plist : plist COMMA
    pitem", which only its examples' parsers write). Not a sentence documenting one function, which
    asks for the function: examples narrate their use of it in its words ("Parse a string with respect
    to the parser definition." is a comment in pyparsing's macro expander)."""
    if query.form == "function" or not any("example" in roles for roles in cache.values()):
        return frozenset()  # most queries: no example among the candidates, nothing to weigh
    held = max((r.fused.coverage for r in ranked if not cache[r.fused.span.path]), default=0.0)
    return frozenset(
        r.fused.span.path for r in ranked if r.fused.coverage > held and "example" in cache[r.fused.span.path]
    )


def _inline_test(r: Ranked) -> bool:
    """A Rust test written beside the code it tests, in the file's test module: a function of a
    ``mod tests`` or ``mod test`` (textwrap's ``tests.fill_inplace_empty`` in ``src/lib.rs``), which
    is a test whatever its file's path says."""
    label = r.fused.label
    if label.language != "rust" or not label.symbol:
        return False
    owners = dotted(label.symbol).split(".")[:-1]
    return "tests" in owners or "test" in owners


def _test_words(query: AnalysedQuery) -> frozenset[str]:
    """The words of a function sentence that a test's name may spell: every word, the parts of the
    names it mentions included ("grapheme_boundary_before with emoji and wide Unicode."), as written
    and stemmed."""
    words = plain_words(query.text, ())  # every word, the names' parts added below
    words += [p for ident in query.identifiers for p in name_words(bare_name(ident))]
    return frozenset(words) | frozenset(stem_words(words)) if words else frozenset()


def _tested_names(
    ranked: list[Ranked], query: AnalysedQuery, cache: Mapping[str, tuple[str, ...]]
) -> frozenset[str]:
    """The names, normalised, of the functions a test may be named after: those the query mentions
    and those that candidates outside tests and fixtures define."""
    names = [bare_name(n) for n in query.identifiers]
    names += [
        bare_name(n)
        for r in ranked
        if r.fused.label.kind in FUNCTION_KINDS
        and (n := r.fused.label.symbol)
        and not _TESTING.intersection(cache[r.fused.span.path])
    ]
    return frozenset(normalise(n) for n in names)


def _named_for(
    r: Ranked,
    words: frozenset[str],
    tested: frozenset[str],
    functions_within: Callable[[str, int, int], Sequence[str]] | None,
    returns: str | None,
) -> bool:
    """``r`` is a test, or a chunk holding one (a test class of short methods, chunked whole, as
    ``functions_within`` knows them), named for the sentence (:func:`_test_named_for`). A sentence
    that says what something returns (``returns``: the stem of its getter's opening, "Returns
    whether this instance …") documents an accessor, unless the test's name says it returns too
    (``test_returns_Attr`` for "Returns an instance of _CountingAttr."): a test checks a behaviour
    and returns nothing."""
    if not _TESTING.intersection(r.roles):
        return False
    if any(
        _test_named_for(n, words, tested, returns, _NAMED_WORDS) for n in _functions_defined(r, None) if n
    ):
        return True
    # a test among a chunk's others is weaker evidence: the chunk is mostly the others' code, and two
    # words of a long sentence (``test_toon_strings``) spell a test of its topic by chance
    held = dict.fromkeys(_functions_defined(r, functions_within)) if functions_within else {}
    return any(_test_named_for(n, words, tested, returns, _NAMED_WORDS + 1) for n in held if n)


_NAMED_WORDS = 2  # the words beside ``test`` that a test named for a sentence has at least


def _test_named_for(
    name: str, words: frozenset[str], tested: frozenset[str], returns: str | None, least: int
) -> bool:
    """A test function's ``name``, its ``test`` part aside, is ``least`` words or more that ``words``
    all spell (``test_center_ambiguous``, ``TestEncodeSkipInvalidType``): a test named for what it
    checks, in the words of the sentence that documents it. A test is named for a behaviour, a
    function for an action: such a name is seldom spelled by chance. Not one named after a function
    of ``tested`` (``test_glibc_version_string`` for "Fallback implementation of
    glibc_version_string using ctypes."): that is a test of the function the sentence documents."""
    parts = name_words(bare_name(name))
    if not parts or (parts[0] != "test" and parts[-1] != "test"):
        return False
    rest = [p for p in parts if p != "test"]
    if "".join(rest) in tested:  # ``test_glibc_version_string``: a test of that function
        return False
    if returns is not None and returns not in stem_words(rest):
        return False  # an accessor's documentation, unless the test is named for what it returns
    return len(rest) >= least and all(
        p in words or s in words for p, s in zip(rest, stem_words(rest), strict=True)
    )


_FOUND_DEPTH = 10  # the hits of each retriever that say where a sentence is found
_FOUND_TOP = 3  # …and the first hits that do so by themselves
_PYTHON = (".py", ".pyi")


def _claims_of_a_python_name(ranked: list[Ranked], query: AnalysedQuery) -> bool:
    """A function sentence that opens with a name and a verb in the third person ("__gt__ returns
    NotImplemented if classes differ.", "AttemptManager supports async with …") documents that name
    in Go, whose doc comments open so, but not in Python: PEP 257 asks a docstring to prescribe its
    function's effect as a command ("Return …"), so a sentence about a name that only Python files
    define (the definition rule found it there) is a claim a test's docstring makes about it. Of the
    quality corpora's 2,998 docstrings, the query analysis reads 446 of real code's in Go so and 46 of
    the tests' in Go; in Python, 5 of the tests' and none of real code's."""
    return _claims_about(query, [r.fused.span.path for r in ranked if _defines_asked(r)])


def _claims_about(query: AnalysedQuery, defining: list[str]) -> bool:
    """:func:`_claims_of_a_python_name`, given the paths that define the name the query asks for."""
    if not query.opens_with_name or query.opening_word() is None:
        return False
    return bool(defining) and all(path.endswith(_PYTHON) for path in defining)


def _found_in_tests(
    ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig, roles: Mapping[str, tuple[str, ...]]
) -> bool:
    """A sentence documenting one piece of code whose words and meaning are found almost only in
    tests documents a test: of the text and the dense retrievers' first ten hits each, at least
    ``tests_found`` are in tests or fixtures, or each retriever's first ``_FOUND_TOP`` are (where the
    words and the meaning both put tests first, what lies further down does not make the sentence
    code's). Not a topic or a question, which asks where something lives: the tests that exercise it
    may outnumber it ("how custom serializers are registered")."""
    if not config.tests_found or query.form != "function":
        return False
    return all(_tested_top(ranked, leg, roles) for leg in ("text", "vector")) or all(
        _tested_share(ranked, leg, roles) >= config.tests_found for leg in ("text", "vector")
    )


def _tested_top(ranked: list[Ranked], leg: str, roles: Mapping[str, tuple[str, ...]]) -> bool:
    """``leg``'s first ``_FOUND_TOP`` hits are all in tests or fixtures."""
    top = [r for r in ranked if 0 < (r.fused.ranks.get(leg) or 0) <= _FOUND_TOP]
    return len(top) == _FOUND_TOP and all(_TESTING.intersection(roles[r.fused.span.path]) for r in top)


def _tested_share(ranked: list[Ranked], leg: str, roles: Mapping[str, tuple[str, ...]]) -> float:
    """The share of ``leg``'s first ``_FOUND_DEPTH`` hits in tests or fixtures (0 where it has fewer
    than half that many)."""
    found = [r for r in ranked if 0 < (r.fused.ranks.get(leg) or 0) <= _FOUND_DEPTH]
    if len(found) < _FOUND_DEPTH // 2:
        return 0.0
    return sum(1 for r in found if _TESTING.intersection(roles[r.fused.span.path])) / len(found)


def _defines_asked(r: Ranked) -> bool:
    """The definition rule found a name the query asks for defined in ``r``."""
    return any(rule.startswith("definition") for rule, _ in r.steps)


def _demoting(r: Ranked) -> tuple[str, ...]:
    """``r``'s roles that the query does not ask for and that demote it (a definition in a package's
    ``__init__.py`` is real code, not a re-export)."""
    return tuple(role for role in r.roles if not (role == "reexport" and r.fused.hit.symbol))


def _undefined(ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig) -> None:
    """A chunk with no definition at all (the symbol index labels every chunk that holds one, with
    its first) is not what a function's documentation describes. Only "none at all" is known: a
    chunk labelled with a constant may hold the function after it."""
    penalty = config.undefined_penalty
    if query.form != "function" or penalty == 1.0:
        return
    for r in ranked:
        if r.fused.label.symbol is None:
            r.score *= penalty
            r.steps.append(("defines nothing", f"×{penalty:g}"))


def _siblings(
    ranked: list[Ranked],
    query: AnalysedQuery,
    config: RankingConfig,
    top: float,
    functions_within: Callable[[str, int, int], Sequence[str]] | None = None,
) -> None:
    """Rule 5's other side, a gain as rule 2's: a function sentence that compares its function with
    another by likeness ("Like `memchr`, but searches for two bytes instead of one.", "Same as
    :meth:`load`, except …", "The inverse of :func:`zip`", ``AnalysedQuery.siblings``) documents a
    sibling of that one, which is usually named from it: a candidate defining a function whose name
    holds the name compared with and more (``memchr2``, ``loads``, ``unzip``, ``escape_silent``; case
    and underscores aside) gains as a name the words spell does; so does one defining a name the
    opposite of one it calls its function the reverse of may have ("Reverse of :meth:`dumps`.":
    ``loads``; ``AnalysedQuery.opposites``). Not a function it stands in for ("Shortcut for
    :meth:`route` with ``methods=["GET"]``" documents ``get``)."""
    if not config.name_words or query.form != "function" or not query.siblings:
        return
    compared = {_squashed(n) for n in query.siblings} - {""}
    opposites = set(query.opposites)
    gain = config.name_words * top
    for r in ranked:
        names = [n for n in _functions_defined(r, functions_within) if n]
        found = next((c for c in sorted(compared) for n in names if _named_from(n, c)), None)
        if found is not None:
            r.score += gain
            r.steps.append((f"named from {found} (compared with)", f"+{gain:.4f}"))
        elif any(_squashed(n) in compared for n in names):
            continue  # ``dumps`` beside ``loads`` in one chunk: the one compared with, not its opposite
        elif opposite := next((n for n in names if normalise(bare_name(n)) in opposites), None):
            r.score += gain
            r.steps.append((f"the opposite ({bare_name(opposite)})", f"+{gain:.4f}"))


def _named_from(name: str, compared: str) -> bool:
    """``name`` holds ``compared`` (squashed) and more: within it (``memchr2``, ``unzip``) where
    ``compared`` has three letters or more, as one of its parts where it is shorter (``eq_cmp`` from
    ``eq``; ``request`` is not named from ``eq``)."""
    squashed = _squashed(name)
    if squashed == compared:
        return False
    if len(compared) >= 3:
        return compared in squashed
    return compared in (p.lower() for p in identifier_parts(bare_name(name)))


def _squashed(name: str) -> str:
    """A name's bare form, lower-cased, without underscores: ``memchr2`` holds ``memchr``,
    ``escape_silent`` ``escape``, ``zipBroadcast`` ``zip``."""
    return bare_name(name).lower().replace("_", "")


def _relatives(
    ranked: list[Ranked],
    query: AnalysedQuery,
    config: RankingConfig,
    functions_within: Callable[[str, int, int], Sequence[str]] | None = None,
) -> None:
    """A function sentence that compares its function with another ("This method is like `_.findKey`
    except that it iterates from the right") documents a relative of that one: the one candidate that
    defines the name compared with (``AnalysedQuery.relatives``) is multiplied by
    ``relative_penalty``. Where several candidates define that name, none is: the function documented
    may share it (attrs' new ``asdict``, "Same as `attr.asdict`, except …", beside the old one), unless
    the sentence calls it the opposite of that name ("Reverse of :meth:`dumps`.": every ``dumps``). Nor
    is one whose chunk holds another function too (``functions_within``): relatives are written side by
    side, and a chunk labelled ``get_token`` may hold ``get_token_from_utf8`` after it ("Same as
    get_token(), but …"), one labelled ``Sprintf`` ``Sprint`` ("Sprint is a convenience wrapper for
    fmt.Sprintf.")."""
    penalty = config.relative_penalty
    if query.form != "function" or not query.relatives or penalty == 1.0:
        return
    wanted = {bare_name(n) for n in query.relatives}
    defining: dict[str, list[Ranked]] = defaultdict(list)
    for r in ranked:
        symbol = r.fused.label.symbol
        if symbol and bare_name(symbol) in wanted:
            defining[bare_name(symbol)].append(r)
    opposed = {bare_name(n) for n in query.opposed}
    for name, found in defining.items():
        if len(found) > 1 and name not in opposed:
            continue
        for r in found:
            if name in opposed:
                held = _opposite_within(r, query.opposites, functions_within)
            else:
                held = _holds_others(r, wanted, functions_within)
            if not held:
                r.score *= penalty
                r.steps.append((f"a relative ({name})", f"×{penalty:g}"))


def _opposite_within(
    r: Ranked, opposites: Sequence[str], functions_within: Callable[[str, int, int], Sequence[str]] | None
) -> bool:
    """``r``'s chunk holds a function named as the opposite of the one compared with may be
    (``AnalysedQuery.opposites``): ``dumps`` and ``loads`` written side by side."""
    return any(normalise(bare_name(f)) in opposites for f in _functions_on(r, functions_within))


def _holds_others(
    r: Ranked, names: set[str], functions_within: Callable[[str, int, int], Sequence[str]] | None
) -> bool:
    """``r``'s chunk holds a function not named ``names`` (by the symbol index's functions on its lines),
    other than one nested in its own: click's ``pass_context`` defines ``new_func`` within it, and
    holds no other function beside it."""
    own = r.fused.label.symbol
    nested = f"{own}." if own else None
    return any(
        bare_name(f) not in names and not (nested and f.startswith(nested))
        for f in _functions_on(r, functions_within)
    )


def _tiers(ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig) -> None:
    """Literal/regex: the chunks ripgrep verified, a quoted string's places that hold it as typed
    first, then those in real code, then in ripgrep's order; identifiers: the definitions of the
    name, those in a file named after it first, then in the symbol index's order; a rare verbatim
    phrase: its places, one that defines a name it holds first, then in the text retriever's (BM25's)
    order. Only the verifier can tell one exact result from another: a chunk that mentions a name
    often is no better a definition of it."""
    unranked = 10**6
    if query.shape in ("literal", "regex", "identifier"):
        leader = "symbol" if query.shape == "identifier" else "text"
        # cobra's `Args` is its args.go as much as the field `Command.Args`: where a file is named after
        # the name, a field, variant or variable of that name does not go before it, unless it is
        # declared in that file (cobra's `commands`, the field of command.go's `Command`), where it goes
        # as a definition elsewhere would: that file is its owner's module, not its own (flask's
        # `Request.blueprint` before `BlueprintSetupState.blueprint` of blueprints.py). Named after it
        # as written (a plural file's stem less its "s" too), not by the stemmer alone: mux's field
        # `routes` is not route.go's module
        named_file = (
            query.shape == "identifier"
            and any(r.fused.exact and _defines_data(r) for r in ranked)  # the files' names only then
            and any(_stem_is(r.fused.span.path, n, loose=False) for r in ranked for n in query.names)
        )
        # `sk_buff.len`: the `len` of `sk_buff` before the other `len`s, nearer the root or not, and a
        # member so named before a file named after its last part (`task_struct.pid`, not pid.c); a name
        # qualified by something that owns no such definition (`self.console.print`) finds them alike
        qualified = (
            tuple("." + dotted(n) for n in query.names if bare_name(n) != n)
            if query.shape == "identifier"
            else ()
        )
        # `#define kmalloc(size, flags) malloc(size)` in a decompressor built outside the kernel: a macro
        # that shares its name with a function or a type is a shim or a wrapper of it, which is the
        # definition (include/linux/slab.h's kmalloc), nearer the root or not
        shadowed = query.shape == "identifier" and any(
            r.fused.exact and r.fused.label.symbol and r.fused.label.kind not in (None, "macro", *DATA_KINDS)
            for r in ranked
        )
        # a quoted string: the places holding it as typed before those holding it in another case only
        # (ripgrep's smart case finds "user-agent" in "User-Agent" too)
        typed = query.shape == "literal" and not query.usages
        as_written: set[int] = set()  # the ids of the candidates that define the qualified name itself
        if qualified:
            exact_names = {bare_name(n) for n in query.names}
            folded = {n.lower() for n in exact_names}
            as_written = {id(r) for r in ranked if _defines(r, exact_names, folded, qualified) == 2}
            if not as_written:
                qualified = ()
        # handlebars' `PathExpression`: the AST node's interface in types/index.d.ts, and visitor methods
        # of that name in the JavaScript, which defines no such type. A declaration file is demoted as
        # a copy of real code's definitions; a type that real code does not define is no copy, and
        # goes as a definition in real code would.
        declared_types = query.shape == "identifier" and not any(
            r.fused.exact and r.fused.label.kind in TYPE_KINDS and not r.roles for r in ranked
        )
        for r in ranked:
            stem = query.shape == "identifier" and any(_stem_is(r.fused.span.path, n) for n in query.names)
            if r.fused.exact and not (
                named_file and _defines_data(r) and not stem and id(r) not in as_written
            ):
                # a definition in a package's __init__.py is real code, as in rule 4; a name that
                # is only re-exported there (the kind ``reexport``) is not
                label = r.fused.label
                real = label.symbol is not None and label.kind != "reexport"
                # a name's definitions and usages, a string's or a pattern's places: those in real
                # code before those in tests, docs or stubs (the code that raises a message before
                # the test that asserts it)
                declared = declared_types and r.roles == ("stub",) and label.kind in TYPE_KINDS
                # …and a Rust `pub use` of the name, where the repository defines it too (textwrap's
                # `pub use optimal_fit::{wrap_optimal_fit, …}` in wrap_algorithms.rs): after it
                demoted = not declared and (
                    any(role != "reexport" or not real for role in r.roles) or label.kind == "reexport"
                )
                # "class Console": the class before a method or a constant of that name
                other_kind = bool(query.kinds) and r.fused.label.kind not in query.kinds
                # Of two definitions of one name, the one nearer the root is the one a project is
                # organised around (http/Request.php, not http/client/Request.php).
                depth = r.fused.span.path.count("/") if query.shape == "identifier" else 0
                # "who calls print_json": the calls, then the definition
                definition = query.usages and _defines_literal(r, query)
                member = _defines_data(r)
                shim = shadowed and r.fused.label.kind == "macro"
                case_differs = typed and not r.fused.exact_case
                r.tier = 1
                # usages in real code, then in tests, docs or stubs, then the definitions; definitions
                # and places in real code, of the kind asked for first, then the others
                first = (
                    2 * int(definition) + int(demoted)
                    if query.usages
                    else 8 * int(case_differs)
                    + 4 * int(bool(qualified) and id(r) not in as_written)
                    + 2 * int(demoted)
                    + int(other_kind)
                )
                r.lead = (
                    first,
                    (0 if stem and not member else 1) + int(shim),
                    depth,
                    r.fused.ranks.get(leader) or unranked,
                )
                r.steps.append(
                    (
                        "exact",
                        (
                            "after the usages (it defines the name)"
                            if definition
                            else ("case differs" if case_differs else "as typed")
                            + (", after real code" if demoted else "")
                            if typed
                            else "after real code"
                            if demoted
                            else "first"
                        )
                        + (", another kind" if other_kind else "")
                        + (", not as written" if qualified and id(r) not in as_written else "")
                        + (", a macro beside a definition of another kind" if shim else "")
                        + (", a type only a declaration file declares" if declared else "")
                        + (
                            ", declared in the file named after it"
                            if stem and member
                            else ", file named after it"
                            if stem
                            else ""
                        ),
                    )
                )
        if query.shape == "identifier" and config.phrase_rule and len(query.phrase.split(" ")) >= 2:
            # Names written as a phrase ("div.console div.inner", a CSS selector): where the words are
            # found as written, within a line, in a few places, those come first, as the phrase rule
            # has it for any unquoted query of two words or more
            for r in _rare(
                [r for r in ranked if r.fused.exact_case], config, [lambda r: r.fused.loose == VERBATIM]
            ):
                r.tier = 1
                r.lead = (-1, 0, r.fused.loose, r.fused.ranks.get("text") or unranked)
                r.steps.append(("phrase", "first"))
        if query.asked:
            _asked_places(ranked, query, config)
        return
    if not config.phrase_rule or not _pasted(query.phrase):
        return
    places = [r for r in ranked if r.fused.exact]
    # The lines the query names (a stack trace's frames, ``web.py:3413``) are what it asks for however
    # many there are (at most AnalysedQuery.locations' bound), first, in the text retriever's order
    # (the innermost frame first); the rarity below is the text's.
    for r in places:
        if r.fused.loose == LOCATED:
            r.tier = 1
            r.lead = (0, 0, LOCATED, r.fused.ranks.get("text") or unranked)
            r.steps.append(("phrase", f"first ({_LOOSE[LOCATED]})"))
    places = [r for r in places if r.fused.loose != LOCATED]
    # A phrase with a capital letter asks for its case, as ripgrep's smart case reads it: the text as
    # written before the places that hold it in another case (an error message pasted from a log before
    # a comment that repeats its words), and rare if it is rare as written ("Should not match" once,
    # "should not match" in ten tests). An all-lowercase phrase may be typed: any case counts, unless
    # that makes it common (below).
    cased = any(c.isupper() for c in query.phrase)
    # And rare if it is rare within a line, as ripgrep reads it: a deprecation message written whole
    # once and split over two literals in six other places is pasted from the one that holds it whole.
    narrowings: list[Callable[[Ranked], bool]] = [lambda r: r.fused.exact_case] if cased else []
    narrowings.append(lambda r: r.fused.loose == VERBATIM)
    if not cased:
        # An all-lowercase phrase held in too many places in any case is still rare where few hold
        # it as typed: text copied from the code keeps its case, lowercase too ("unexpected error:
        # %s" once so in go-flags, "Unexpected error: %s" in five of its tests).
        narrowings.append(lambda r: r.fused.exact_case)
    rare = _rare(places, config, narrowings)
    if (
        query.form == "function"
        and "docs" not in query.wants
        and all(_is_document(r.fused.span.path) or _SOURCE_MAP_FILE.search(r.fused.span.path) for r in rare)
    ):
        # A sentence that documents a function, held verbatim by documents only (a README's or a man
        # page's copy of a docstring that the code words otherwise, or no longer holds) or by a source
        # map (one line of JSON carrying the sources a build compiled, their comments included): the
        # function it documents is what it asks for, not the page or the map that quotes it; the
        # ranking decides, and the text retriever's first keeps a place on the page (rule 8).
        rare = []
    for r in rare:
        differs = cased and not r.fused.exact_case
        # A declaration file (``index.d.ts``, ``.pyi``) repeats the documentation of code found
        # elsewhere, a source map its text: where both hold the phrase, the code that does what it
        # says comes first.
        path = r.fused.span.path
        stub = _STUB_FILE.search(path) is not None
        copy = (stub and "stub" not in query.wants) or _SOURCE_MAP_FILE.search(path) is not None
        # A place that holds the phrase within a line is the text as it was copied; one that holds
        # it only across a line break (a message split over two literals, a sentence wrapped over
        # two comment lines) joins lines to match, and a format string that the phrase fills
        # matches only the words around its placeholders: they follow, in that order.
        loose = r.fused.loose
        # A token of code ("#setupDecompressorEvents", a private method) is held by its definition
        # and by its uses: the definition first, as for a name.
        defines = _defines_asked(r)
        r.tier = 1
        # A document that holds it (a README, a guide) quotes the code's text as a declaration file
        # does, after the code and before the copies, unless the query asks for documentation: by its
        # path's role, as a declaration file is by its path, so also where the text and dense
        # retrievers both rank it first (which lifts its role's penalty, rule 4)
        quoted = _is_document(path) and "docs" not in query.wants
        r.lead = (
            4 * int(copy) + 2 * int(quoted) + int(not defines),
            int(differs),
            loose,
            r.fused.ranks.get("text") or unranked,
        )
        where = (
            f"after the code ({'a declaration' if stub else 'a source map'})"
            if copy
            else "after the code (documentation)"
            if quoted
            else "first"
        )
        notes = [
            n
            for n, on in (
                ("its definition", defines),
                ("case differs", differs),
                (_LOOSE.get(loose, ""), loose),
            )
            if on
        ]
        r.steps.append(("phrase", where + (f" ({', '.join(notes)})" if notes else "")))


def _rare(
    places: list[Ranked], config: RankingConfig, narrowings: Sequence[Callable[[Ranked], bool]]
) -> list[Ranked]:
    """``places`` of a phrase if they are rare: on at most ``phrase_places`` lines, once narrowed, in
    turn and only while they are more, to those each of ``narrowings`` keeps (as written, within a
    line); ``[]`` otherwise."""
    for keep in narrowings:
        if _place_count(places) > config.phrase_places:
            places = [r for r in places if keep(r)]
    return places if 0 < _place_count(places) <= config.phrase_places else []


#: ``Ranked.lead[0]`` of a place of the words a definition was asked in: after every definition (whose
#: first part is at most 7: not as written, demoted, another kind).
_AFTER_DEFINITIONS = 8


def _asked_places(ranked: list[Ranked], query: AnalysedQuery, config: RankingConfig) -> None:
    """A definition asked for in words ("HTTPSConnection constructor.") is searched for by its name
    alone; the places that hold those words verbatim (``Fused.asked``), when they are few, follow
    the definitions, in the text retriever's order: what the phrase rule would put first had the query
    not been read as a definition request, kept on the page. The usages of a name asked for in words
    that the code holds ("getSchema is called", a test's message) put those places first: they are
    uses of the name too, and a page of many uses would push them off it. Rarity and case as the
    phrase rule has them: a query with a capital letter is rare if it is rare as written, those places
    first."""
    if not config.phrase_rule:
        return
    cased = any(c.isupper() for c in query.asked)
    as_written = [lambda r: r.fused.asked == 2] if cased else []
    # "getSchema is called" held by the code (a test's message) is pasted from it: for a request for
    # usages, that place, itself a use of the name, goes before the other uses
    lead, where = (-1, "first") if query.usages else (_AFTER_DEFINITIONS, "after the definitions")
    for r in _rare([r for r in ranked if r.fused.asked], config, as_written):
        if r.tier and not query.usages:
            continue  # a definition that holds the words too stays a definition
        differs = cased and r.fused.asked != 2
        r.tier = 1
        r.lead = (lead, int(differs), 0, r.fused.ranks.get("text") or 10**6)
        r.steps.append(("phrase", f"{where} (the words as asked" + (", case differs)" if differs else ")")))


def _defines_literal(r: Ranked, query: AnalysedQuery) -> bool:
    """The symbol retriever found a definition of the quoted name in ``r``'s chunk."""
    defined = r.fused.defines
    return (
        defined is not None and query.literal is not None and bare_name(defined) == bare_name(query.literal)
    )


def _within(ranked: list[Ranked], query: AnalysedQuery) -> None:
    """A topic or question that says where to look ("timeout handling in simple_httpclient.py"): the
    candidates in that file (one whose path ends with the path named) or under that folder come
    first, in their order, unless the query's text or the lines it names are found (tiered) already."""
    if not query.within or any(r.tier for r in ranked):
        return
    files = tuple(_rooted(w) for w in query.within if not w.endswith("/"))
    folders = tuple(_rooted(w) + "/" for w in query.within if w.endswith("/"))
    for r in ranked:
        path = "/" + r.fused.span.path
        if path.endswith(files) or any(f in path for f in folders):
            r.tier = 1
            r.steps.append(("within", "first (where the query says to look)"))


def _rooted(path: str) -> str:
    """``path`` as written (``./http/client.py``, ``src\\http\\``, ``.github/``) with ``/`` before each
    part and no ``.`` part, to compare with the end of ``"/" + a workspace path``."""
    return "".join("/" + part for part in re.split(r"[/\\]+", path) if part not in ("", "."))


_LOOSE = {LOCATED: "the line it names", WRAPPED: "across a line break", FILLED: "a format string it fills"}


def _place_count(places: Sequence[Ranked]) -> int:
    return len({(r.fused.span.path, r.fused.span.start_line) for r in places})


_JOINED = re.compile(r"[^\w\s]")  # punctuation: what a plain word or a name does not hold
_WORDISH = re.compile(r"[^\W_]")  # a letter or a digit: "->" alone is no text to find


def _pasted(phrase: str) -> bool:
    """Whether an unquoted query reads as text copied from the code: two words or more ("checksum
    mismatch"), or one token that is not a plain word or name, its pieces joined by punctuation
    (``name:endblock``, ``[blue]Title``, ``$Version=%s``, ``text-align:center``)."""
    return len(phrase.split()) >= 2 or (
        _JOINED.search(phrase) is not None and _WORDISH.search(phrase) is not None
    )


def _saturate(ranked: list[Ranked], config: RankingConfig) -> list[Ranked]:
    """Greedy: take the best remaining candidate, decaying each file's later chunks, so the list is
    re-sorted after every decay (a decayed chunk may fall below another file's)."""
    seen: dict[str, int] = defaultdict(int)
    for r in ranked:
        n = seen[r.fused.span.path]
        seen[r.fused.span.path] = n + 1
        excess = n - config.saturation_after + 1
        if excess > 0 and not r.tier:
            factor = config.saturation**excess
            r.score *= factor
            r.steps.append(("saturation", f"×{factor:g}"))
    return sorted(ranked, key=_order)


_BOTH_FIRST = 3  # a result the text and the dense retrievers both rank within their first this many


def _make_way(ranked: list[Ranked], first: int, limit: int) -> None:
    """Order the page's ``limit`` results so that the ``limit - first`` that make way for kept results
    are its last that both retrievers do not rank near the top (``_BOTH_FIRST``); where those are too
    few, the page's last, as before."""

    def both_first(r: Ranked) -> bool:
        text, dense = r.fused.ranks.get("text"), r.fused.ranks.get("vector")
        return text is not None and dense is not None and max(text, dense) <= _BOTH_FIRST

    page = ranked[:limit]
    held = [both_first(r) and not r.tier for r in page]
    fixed = [h or r.tier > 0 for r, h in zip(page, held, strict=True)]  # a verified result stays too
    if not any(held[first:]) or sum(fixed) > first:
        return
    room = first - sum(fixed)  # the places left for the other results, the best of them first
    stay: list[Ranked] = []
    go: list[Ranked] = []
    for at, (r, f) in enumerate(zip(page, fixed, strict=True)):
        room -= 0 if f else 1
        (stay if f or room >= 0 else go).append(r)
        if held[at] and at >= first:
            r.steps.append(("keep", f"stays: within the text and the dense retrievers' first {_BOTH_FIRST}"))
    ranked[:limit] = stay + go


def _best_test(ranked: Sequence[Ranked], within: int, limit: int) -> Ranked | None:
    """The first demoted test below the page that the text or the dense retriever ranks within its
    first ``within``, when the page lists no demoted test."""
    if any("test" in r.roles for r in ranked[:limit]):
        return None
    for r in ranked[limit:]:
        if "test" in r.roles:
            text, dense = r.fused.ranks.get("text"), r.fused.ranks.get("vector")
            if (text is not None and text <= within) or (dense is not None and dense <= within):
                return r
    return None


def _keep(ranked: list[Ranked], kept: Sequence[Fused], limit: int) -> None:
    """Each of ``kept`` keeps a place in the first ``limit``: those below it move to its last slots,
    in their order, never in place of a verified (tiered) result, nor of one that the text and the
    dense retrievers both rank within their first ``_BOTH_FIRST`` (the page's later results make way
    for it instead: two retrievers' agreement outweighs one retriever's best), and into its second half
    only (a search for one result gets the best one)."""
    spans = {f.span for f in kept}
    below = [i for i, r in enumerate(ranked) if i >= limit and r.fused.span in spans]
    free = min(limit - sum(1 for r in ranked[:limit] if r.tier), limit // 2)
    movers = below[: max(0, free)]
    if not movers:
        return
    moved = [ranked[i] for i in movers]
    for i in reversed(movers):
        ranked.pop(i)
    first = limit - len(moved)
    _make_way(ranked, first, limit)
    for n, (r, at) in enumerate(zip(moved, movers, strict=True)):
        r.score = max(r.score, ranked[first + n].score)  # what it displaces will follow it
        r.steps.append(("keep", f"moved from {at + 1} to {first + n + 1}"))
        ranked.insert(first + n, r)

"""The evaluation set: doc extraction per language, blanking that keeps line numbers, sampling, JSON."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest

from benchmarks import evalset
from benchmarks.evalset import EvalSetError, blank
from benchmarks.extract import clean_doc, extract, first_sentence
from indexer import load_settings

PYTHON = b'''import os


class Loader:
    """Loads things."""

    def read_config(self, path):
        """Read the configuration file from disk and parse it.

        Returns a dict.
        """
        return open(path).read()

    @staticmethod
    def only_doc():
        """A function whose body is nothing but this docstring."""


def plain():
    return "no doc here at all"
'''

JAVASCRIPT = b"""/**
 * Compute the total price of the cart items.
 * @param {Item[]} items
 */
export function total(items) {
  return items.reduce((a, b) => a + b.price, 0);
}

class Cart {
  /** Remove every item from the cart at once. */
  clear() { this.items = []; }
}

/** Format a price as a string with currency. */
const formatPrice = (p) => `$${p}`;
"""

TYPESCRIPT = b"""/**
 * Parse a duration string such as 5m into seconds.
 */
export function parseDuration(text: string): number {
  return Number(text.slice(0, -1)) * 60;
}
"""

GO = b"""package server

// Serve starts the HTTP server on the given port.
// It blocks until the server stops.
func Serve(port int) error {
	return nil
}

// Close shuts the server down gracefully.
func (s *Server) Close() error { return nil }
"""

RUST = b"""/// Split the input text into whitespace separated tokens.
#[inline]
pub fn tokenize(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

impl Lexer {
    /// Create a new lexer over the given source.
    pub fn new(src: &str) -> Self { Lexer { src } }
}
"""

JAVA = b"""public class Account {
    /**
     * Withdraw the given amount from the account balance.
     * @param amount how much
     */
    @Override
    public void withdraw(int amount) {
        balance -= amount;
    }

    /** Create an empty account with no balance. */
    public Account() {}
}
"""


def docs(source: bytes, language: str) -> dict[str, tuple[int, int, str]]:
    facts = extract(source, language, "f")
    return {
        d.qualified_name: (d.start_line, d.end_line, first_sentence(d.doc.text))
        for d in facts.definitions
        if d.doc
    }


def test_python_docstrings_belong_to_their_functions() -> None:
    assert docs(PYTHON, "python") == {
        "Loader.read_config": (7, 12, "Read the configuration file from disk and parse it."),
        "Loader.only_doc": (15, 16, "A function whose body is nothing but this docstring."),
    }


def test_jsdoc_comments_belong_to_functions_methods_and_arrow_functions() -> None:
    assert docs(JAVASCRIPT, "javascript") == {
        "total": (5, 7, "Compute the total price of the cart items."),
        "Cart.clear": (11, 11, "Remove every item from the cart at once."),
        "formatPrice": (15, 15, "Format a price as a string with currency."),
    }


def test_typescript_jsdoc_is_found() -> None:
    assert docs(TYPESCRIPT, "typescript") == {
        "parseDuration": (4, 6, "Parse a duration string such as 5m into seconds.")
    }


def test_go_line_comments_above_a_func_are_its_doc() -> None:
    assert docs(GO, "go") == {
        "Serve": (5, 7, "Serve starts the HTTP server on the given port."),
        "Close": (10, 10, "Close shuts the server down gracefully."),
    }


def test_rust_doc_comments_allow_attributes_between_doc_and_fn() -> None:
    assert docs(RUST, "rust") == {
        "tokenize": (3, 5, "Split the input text into whitespace separated tokens."),
        "new": (9, 9, "Create a new lexer over the given source."),
    }


def test_javadoc_belongs_to_methods_and_constructors() -> None:
    assert docs(JAVA, "java") == {
        "Account.withdraw": (6, 9, "Withdraw the given amount from the account balance."),
        "Account.Account": (12, 12, "Create an empty account with no balance."),
    }


def test_a_comment_separated_by_a_blank_line_is_not_a_doc() -> None:
    src = b"// Package notes.\n\nfunc Lonely() {}\n"
    assert docs(src, "go") == {}


def test_clean_doc_strips_quotes_and_markers() -> None:
    assert clean_doc('r"""Hello there."""') == "Hello there."
    assert clean_doc("/**\n * One.\n * Two.\n */") == "One.\nTwo."
    assert clean_doc("/// One.\n/// Two.") == "One.\nTwo."
    assert first_sentence("Use {@link Foo} to do it. More.") == "Use Foo to do it."
    assert first_sentence("Cache it, e.g. in a dict. Then more.") == "Cache it, e.g. in a dict."
    assert (
        first_sentence(clean_doc("/// <summary>\n/// Adds two numbers.\n/// </summary>"))
        == "Adds two numbers."
    )


def test_string_literals_belong_to_their_function_and_docstrings_are_not_literals() -> None:
    facts = extract(PYTHON, "python", "f")
    owners = [(lit.text, facts.definitions[lit.definition].name) for lit in facts.literals]
    assert owners == [("no doc here at all", "plain")]


@pytest.mark.parametrize(
    ("source", "language"),
    [(PYTHON, "python"), (JAVASCRIPT, "javascript"), (GO, "go"), (RUST, "rust"), (JAVA, "java")],
)
def test_blanking_keeps_every_line_number_and_removes_the_docs(source: bytes, language: str) -> None:
    facts = extract(source, language, "f")
    regions = [(d.doc.start_byte, d.doc.end_byte, d.doc.python) for d in facts.definitions if d.doc]
    out = blank(source, regions)
    before, after = source.split(b"\n"), out.split(b"\n")
    assert len(after) == len(before)
    for start, end, _ in regions:
        assert out[start:end].strip() in (b"", b'""')
    doc_lines = {
        ln
        for d in facts.definitions
        if d.doc
        for ln in range(_line(source, d.doc.start_byte), _line(source, d.doc.end_byte) + 1)
    }
    for i, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if i not in doc_lines:
            assert old == new, f"line {i} changed"
    # the code after the docs is still where it was, so definitions keep their spans
    assert [(d.name, d.start_line, d.end_line) for d in extract(out, language, "f").definitions] == [
        (d.name, d.start_line, d.end_line) for d in facts.definitions
    ]


def _line(source: bytes, offset: int) -> int:
    return source.count(b"\n", 0, offset) + 1


def test_blanked_python_stays_valid_even_when_a_body_was_only_a_docstring() -> None:
    facts = extract(PYTHON, "python", "f")
    out = blank(PYTHON, [(d.doc.start_byte, d.doc.end_byte, True) for d in facts.definitions if d.doc])
    ast.parse(out)
    assert b"configuration" not in out
    assert b'"""Loads things."""' in out  # class docstrings are not targets and stay


def write_repo(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "loader.py").write_bytes(PYTHON)
    (root / "web").mkdir()
    (root / "web" / "cart.js").write_bytes(JAVASCRIPT)
    (root / "server.go").write_bytes(GO)
    (root / "lex.rs").write_bytes(RUST)
    (root / "Account.java").write_bytes(JAVA)
    # the same first sentence on two functions: ambiguous, so never a query
    (root / "twins.py").write_text(
        'def one():\n    """Return the answer to the question."""\n    return 1\n\n\n'
        'def two():\n    """Return the answer to the question."""\n    return 2\n'
    )


def corpus_of(root: Path, tmp_path: Path) -> evalset.Corpus:
    return evalset.scan(load_settings(root, overrides={"index_dir": str(tmp_path / "idx")}))


def test_build_samples_every_family_with_targets_and_drops_ambiguous_texts(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repo(root)
    corpus = corpus_of(root, tmp_path)
    es = evalset.build(corpus, seed=7, size=50, min_words=4)
    by_family = {f: [q for q in es.queries if q.family == f] for f in evalset.FAMILIES}
    doc_texts = {q.text: (q.path, q.start_line, q.end_line) for q in by_family["docstring"]}
    assert doc_texts["Read the configuration file from disk and parse it."] == ("pkg/loader.py", 7, 12)
    assert doc_texts["Withdraw the given amount from the account balance."] == ("Account.java", 6, 9)
    assert "Return the answer to the question." not in doc_texts
    assert len(by_family["docstring"]) == 11
    symbols = {q.text: (q.path, q.start_line) for q in by_family["symbol"]}
    assert symbols["read_config"] == ("pkg/loader.py", 7)
    assert symbols["tokenize"] == ("lex.rs", 3)
    assert "new" not in symbols  # too generic a name
    literals = {q.text: (q.path, q.start_line, q.end_line) for q in by_family["literal"]}
    assert literals == {"no doc here at all": ("pkg/loader.py", 19, 20)}
    assert es.files["pkg/loader.py"] == hashlib.sha256(PYTHON).hexdigest()


def test_sampling_is_seeded_and_bounded(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repo(root)
    corpus = corpus_of(root, tmp_path)
    a = evalset.build(corpus, seed=1, size=3)
    assert a == evalset.build(corpus, seed=1, size=3)
    assert sum(q.family == "docstring" for q in a.queries) == 3
    seeds = {tuple(q.text for q in evalset.build(corpus, seed=s, size=3).queries) for s in range(6)}
    assert len(seeds) > 1


def test_query_set_round_trips_through_json_and_refuses_a_changed_repo(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_repo(root)
    corpus = corpus_of(root, tmp_path)
    es = evalset.build(corpus, seed=3, size=4)
    path = tmp_path / "queries.json"
    evalset.save(es, path)
    loaded = evalset.load(path)
    assert loaded == es
    evalset.check_matches(loaded, corpus)
    assert json.loads(path.read_text())["version"] == evalset.FORMAT_VERSION
    (root / "pkg" / "loader.py").write_bytes(PYTHON + b"\n# edited\n")
    with pytest.raises(EvalSetError, match="changed since the query set was built"):
        evalset.check_matches(loaded, corpus_of(root, tmp_path))


def test_a_malformed_query_set_is_an_error_that_names_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text("[1, 2]")
    with pytest.raises(EvalSetError, match="--save-queries"):
        evalset.load(path)
    path.write_text(json.dumps({"version": 1, "seed": 0, "queries": [{"qid": "x"}]}))
    with pytest.raises(EvalSetError, match="malformed"):
        evalset.load(path)


def test_phrases_are_the_multi_word_literals_searched_unquoted_and_literals_are_quoted() -> None:
    lit = evalset.EvalQuery("literal-001", "literal", "checksum mismatch", "a.py", 1, 5, "python")
    one = evalset.EvalQuery("literal-002", "literal", "key=value", "b.py", 1, 5, "python")
    es = evalset.with_phrases(evalset.EvalSet(0, (lit, one)))
    phrases = [q for q in es.queries if q.family == "phrase"]
    assert [(q.qid, q.text, q.path) for q in phrases] == [("phrase-001", "checksum mismatch", "a.py")]
    assert es.families() == ["literal", "phrase"]
    assert evalset.query_text(lit) == '"checksum mismatch"'
    assert evalset.query_text(phrases[0]) == "checksum mismatch"
    quoted = evalset.EvalQuery("literal-003", "literal", 'say "hi" now', "c.py", 1, 5, "python")
    assert evalset.query_text(quoted) == "'say \"hi\" now'"
    assert evalset.with_phrases(es) is es  # derived once


MEMBERS = {
    "python": (
        b"class Client:\n    timeout: float = 5.0\n    def send(self):\n        local_name = 1\n",
        ["Client.timeout"],
    ),
    "go": (b"package p\n\ntype Server struct {\n\tAddr string\n}\n", ["Server.Addr"]),
    "rust": (
        b"struct Store { capacity: usize }\nenum Event { Evicted, Put(u8) }\n",
        ["Store.capacity", "Event.Evicted", "Event.Put"],
    ),
    "java": (b"class Bank { private int balance = 0; void f() { int local = 1; } }\n", ["Bank.balance"]),
    "typescript": (
        b"class Cart { items = []; }\ninterface Props { label: string }\n",
        ["Cart.items", "Props.label"],
    ),
    "c": (
        b"struct buffer { char *data; };\nenum mode { MODE_READ };\nint f(void) { int local = 0; return local; }\n",
        ["buffer.data", "mode.MODE_READ"],
    ),
}


@pytest.mark.parametrize("language", sorted(MEMBERS))
def test_data_members_are_found_in_their_owner_and_locals_are_not(language: str) -> None:
    source, expected = MEMBERS[language]
    assert [m.qualified_name for m in extract(source, language, "x").members] == expected


def test_the_member_family_asks_for_a_member_defined_once_by_its_name(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/client.py").write_text(
        "class Client:\n    max_redirects: int = 20\n    name = 'a'\n\n\nclass Other:\n    name = 'b'\n"
    )
    es = evalset.build(corpus_of(root, tmp_path), seed=1, size=10)
    members = {q.text: (q.path, q.start_line, q.end_line) for q in es.queries if q.family == "member"}
    assert members == {"max_redirects": ("pkg/client.py", 2, 2)}  # "name" is defined twice

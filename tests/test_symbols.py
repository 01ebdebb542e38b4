"""Symbols from the per-language tags queries match the hand-written fixtures exactly.

Each ``tests/fixtures/symbols/<language>/`` holds one source file and ``expected.json``, written
by reading that file: the specification of what plait reports for the language.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from indexer.errors import GrammarUnavailableError
from indexer.parsing import parse
from indexer.symbols import SYMBOL_LANGUAGES, extract_symbols, symbols_from_tree
from indexer.types import Symbol

FIXTURES = Path(__file__).parent / "fixtures" / "symbols"
KINDS = {
    "class",
    "function",
    "method",
    "interface",
    "struct",
    "enum",
    "trait",
    "type",
    "constant",
    "module",
    "variable",
    "field",
    "constructor",
    "macro",
}


def _fixture(language: str) -> tuple[str, bytes, list[dict[str, Any]]]:
    spec = json.loads((FIXTURES / language / "expected.json").read_text(encoding="utf-8"))
    return spec["file"], (FIXTURES / language / spec["file"]).read_bytes(), spec["symbols"]


def _plain(symbols: list[Symbol]) -> list[dict[str, Any]]:
    keys = ("name", "kind", "qualified_name", "start_line", "end_line")
    return [{k: getattr(s, k) for k in keys} for s in symbols]


def test_every_symbol_language_has_a_fixture() -> None:
    assert {p.name for p in FIXTURES.iterdir() if p.is_dir()} == SYMBOL_LANGUAGES
    assert len(SYMBOL_LANGUAGES) == 16


@pytest.mark.parametrize("language", sorted(SYMBOL_LANGUAGES))
def test_symbols_match_the_fixture_exactly(language: str) -> None:
    name, source, expected = _fixture(language)
    symbols = extract_symbols(source, language, f"src/{name}")
    assert _plain(symbols) == expected
    assert {s.kind for s in symbols} <= KINDS
    assert all(s.path == f"src/{name}" and s.language == language for s in symbols)


@pytest.mark.parametrize("language", sorted(SYMBOL_LANGUAGES))
def test_symbols_are_sorted_by_start_then_longest_first(language: str) -> None:
    name, source, _ = _fixture(language)
    symbols = extract_symbols(source, language, name)
    assert symbols == sorted(symbols, key=lambda s: (s.start_line, -s.end_line))


def test_symbols_from_a_parsed_tree_equal_those_from_source() -> None:
    name, source, _ = _fixture("rust")
    tree = parse(source, "rust")
    assert symbols_from_tree(tree, source, "rust", name) == extract_symbols(source, "rust", name)


@pytest.mark.parametrize(
    ("language", "qualified_name", "signature"),
    [
        ("python", "load_polygon", "async def load_polygon(path: str) -> Polygon:"),
        ("python", "Polygon.perimeter", "def perimeter(self) -> float:"),
        ("go", "httpx.Server.Start", "func (s *Server) Start() error {"),
        ("typescript", "Repository", "export abstract class Repository<T extends Entity> {"),
        ("c", "buffer_t", "typedef struct {"),
    ],
)
def test_signature_is_the_stripped_first_line(language: str, qualified_name: str, signature: str) -> None:
    name, source, _ = _fixture(language)
    by_name = {s.qualified_name: s for s in extract_symbols(source, language, name)}
    assert by_name[qualified_name].signature == signature


def test_signature_skips_annotation_lines_and_is_capped() -> None:
    long_params = ", ".join(f"int p{i}" for i in range(60))
    source = f"class A {{\n    @Override\n    @Deprecated\n    public void run({long_params}) {{}}\n}}\n"
    symbols = extract_symbols(source.encode(), "java", "A.java")
    run = next(s for s in symbols if s.name == "run")
    assert (run.start_line, run.end_line) == (2, 4)
    assert run.signature.startswith("public void run(int p0")
    assert len(run.signature) == 200


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "c",
            "typedef struct node { int v; } node_t;\ntypedef enum { A, B } letter;\n",
            [("node_t", "type"), ("node", "struct"), ("letter", "enum")],
        ),
        (
            "cpp",
            "template <class T> struct Box { bool operator<(const Box&) const; };\n"
            "template <class T> void Box<T>::put(T v) {}\n"
            "Box::Box() {}\n"
            "namespace a::b { int f() { return 0; } }\n"
            "int a::b::g() { return 1; }\n",
            [
                ("Box", "struct"),
                ("Box.put", "method"),
                ("Box.Box", "constructor"),
                ("a.b", "module"),
                ("a.b.f", "function"),
                ("a.b.g", "function"),
            ],
        ),
        (
            "javascript",
            "function Foo() {}\nFoo.prototype.bar = function () {};\nexports.baz = () => 1;\n"
            "const obj = { notReported() {} };\n",
            [("Foo", "function"), ("Foo.bar", "method"), ("baz", "function")],
        ),
        (
            "ruby",
            "class Version\n  def <=>(other) = 0\n  def [](i); end\nend\n",
            [("Version", "class"), ("Version.<=>", "method"), ("Version.[]", "method")],
        ),
        (
            "bash",
            "lib::util() { :; }\n",
            [("lib::util", "function")],
        ),
        (
            "go",
            "package p\n\ntype (\n\tA int\n\tB = string\n)\n",
            [("p.A", "type"), ("p.B", "type")],
        ),
        (
            "python",
            "class A:\n    @staticmethod\n    def s():\n        class Local:\n            pass\n",
            [("A", "class"), ("A.s", "method"), ("A.s.Local", "class")],
        ),
    ],
)
def test_language_edge_cases(language: str, source: str, expected: list[tuple[str, str]]) -> None:
    symbols = extract_symbols(source.encode(), language, "x")
    assert [(s.qualified_name, s.kind) for s in symbols] == expected


def test_python_decorators_are_outside_the_span() -> None:
    source = b"@a\n@b\ndef f():\n    pass\n"
    (f,) = extract_symbols(source, "python", "x.py")
    assert (f.start_line, f.end_line, f.signature) == (3, 4, "def f():")


def test_invalid_utf8_does_not_crash_and_names_are_still_found() -> None:
    source = b"def caf\xe9():\n    return '\xff\xfe'\n\nclass Ok:\n    def m(self):\n        pass\n"
    symbols = extract_symbols(source, "python", "bad.py")
    assert ("Ok", "class") in {(s.qualified_name, s.kind) for s in symbols}
    assert ("Ok.m", "method") in {(s.qualified_name, s.kind) for s in symbols}


@pytest.mark.parametrize("language", sorted(SYMBOL_LANGUAGES))
def test_a_file_of_syntax_errors_does_not_crash(language: str) -> None:
    garbage = b"}}} class def fn func ((( <?php ::: @@ \x00\xff struct { impl ] end\n" * 40
    symbols = extract_symbols(garbage, language, "garbage")
    assert all(s.name and 1 <= s.start_line <= s.end_line for s in symbols)
    assert extract_symbols(b"", language, "empty") == []


def test_definitions_around_a_syntax_error_are_still_found() -> None:
    source = b"def before():\n    pass\n\ndef broken(:\n    pass\n\ndef after():\n    pass\n"
    names = {s.name for s in extract_symbols(source, "python", "x.py")}
    assert {"before", "after"} <= names


def test_a_language_without_a_grammar_is_a_clear_error() -> None:
    with pytest.raises(GrammarUnavailableError, match="no tree-sitter grammar for 'cobol-ish'"):
        extract_symbols(b"x", "cobol-ish", "x")


def test_a_bundled_grammar_without_a_tags_query_is_a_clear_error() -> None:
    with pytest.raises(GrammarUnavailableError, match="no tags query for 'lua'"):
        extract_symbols(b"x = 1", "lua", "x.lua")

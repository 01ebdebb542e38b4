"""Symbols from the per-language tags queries match the hand-written fixtures exactly.

Each ``tests/fixtures/symbols/<language>/`` holds one source file and ``expected.json``, written
by reading that file: the specification of what plait reports for the language.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from indexer.chunks import chunk_file
from indexer.config import ChunkSettings
from indexer.errors import GrammarUnavailableError
from indexer.parsing import digest_of_queries, parse, queries_digest
from indexer.symbols import SYMBOL_LANGUAGES, extract_symbols, symbols_from_tree
from indexer.types import DATA_KINDS, Symbol

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
    "variant",
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
    assert len(SYMBOL_LANGUAGES) == 18


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
            "const obj = { reported() {}, too: () => 1, data: 2 };\n"
            "res.send = function send() {};\nreq.get = req.header = function () {};\n"
            "const LIMITS = { check(n) {} };\n"
            "module.exports = { create(context) { return { Identifier(n) {} }; } };\n"
            "function make() { return { notReported() {} }; }\n"
            "Emitter.prototype = { on(name, fn) {}, off: function (name) {} };\n"
            "const proto = module.exports = { get origin() {}, accepts: () => 1, data: 2 };\n",
            [
                ("Foo", "function"),
                ("Foo.bar", "method"),
                ("baz", "function"),
                ("obj.reported", "method"),
                ("obj.too", "method"),
                ("res.send", "function"),
                ("req.header", "function"),
                ("LIMITS", "constant"),
                ("LIMITS.check", "method"),
                ("make", "function"),
                ("Emitter.on", "method"),
                ("Emitter.off", "method"),
                ("origin", "function"),
                ("accepts", "function"),
            ],
        ),
        (
            "ruby",
            "class Version\n  def <=>(other) = 0\n  def [](i); end\nend\n",
            [("Version", "class"), ("Version.<=>", "method"), ("Version.[]", "method")],
        ),
        (
            "haskell",
            "module M where\ninstance F.Foldable Box where\n  foldr = undefined\nderiving instance Eq Box\n"
            "(|||) :: a -> a -> a\n(|||) = const\n",
            [
                ("M.Foldable Box", "class"),
                ("M.Foldable Box.foldr", "method"),
                ("M.Eq Box", "class"),
                ("M.|||", "function"),
            ],
        ),
        *(
            (  # ecmascript-objects.scm, appended to each of the three tags queries
                language,
                "export const api = { fetchAll(): number { return 1; } };\n"
                "module.exports = { isDecimal(node: Node) {}, isX: (n: number) => n };\n",
                [("api.fetchAll", "method"), ("isDecimal", "function"), ("isX", "function")],
            )
            for language in ("typescript", "tsx")
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
    # Fields, variants and variables have their own cases below; these are about the definitions around them.
    assert [(s.qualified_name, s.kind) for s in symbols if s.kind not in DATA_KINDS] == expected


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        (
            "python",
            "class A:\n    x: int = 1\n    y = 2\n    def __init__(self, a):\n        self.z = a\n"
            "        self.x = a\n        other.w = a\n    def f(self):\n        self.q = 1\n",
            [("A.x", "field", 2), ("A.y", "field", 3), ("A.z", "field", 5)],
        ),
        (
            "rust",
            "struct S {\n    /// the size\n    pub a: u32,\n}\nenum E { A, B(u8) }\n",
            [("S.a", "field", 2), ("E.A", "variant", 5), ("E.B", "variant", 5)],
        ),
        (
            "go",
            "package p\ntype S struct {\n\tA int\n\tb, c string\n\tsync.Mutex\n}\n",
            [("p.S.A", "field", 3), ("p.S.b", "field", 4), ("p.S.c", "field", 4)],
        ),
        ("swift", "enum E {\n  case one, two\n}\n", [("E.one", "variant", 2), ("E.two", "variant", 2)]),
        (
            "scala",
            "case class P(x: Int)\nclass C {\n  val b = 1\n}\nenum Color { case Red, Green }\n",
            [
                ("P.x", "field", 1),
                ("C.b", "field", 3),
                ("Color.Red", "variant", 5),
                ("Color.Green", "variant", 5),
            ],
        ),
        (
            "haskell",
            "data P = P { px :: Int, py, pz :: Int }\n",
            [("P.px", "field", 1), ("P.py", "field", 1), ("P.pz", "field", 1)],
        ),
        (
            "ruby",
            "class A\n  attr_accessor :name, :age\n  def x; end\nend\n",
            [("A.name", "field", 2), ("A.age", "field", 2)],
        ),
        (
            "typescript",
            "class A { x = 1; h = () => 1 }\ninterface I { a: string; m(): void }\nenum E { P, Q = 2 }\n",
            [("A.x", "field", 1), ("I.a", "field", 2), ("E.P", "variant", 3), ("E.Q", "variant", 3)],
        ),
        (
            # a type alias of an object type names its members; the object types inside a member's
            # type (a function's result) hold no members of its own
            "tsx",
            "type A<T> = {\n  type: T\n  s: (o: X) => { unsub: U }\n}\ntype F = (x: { inner: number }) => void\n",
            [("A.type", "field", 2), ("A.s", "field", 3)],
        ),
        (
            # so does an object type the alias intersects with another (undici's `BuildOptions`) or a
            # variant of a union, the first of four included; a parameter's object type is no member,
            # nor are a member's own type's members
            "typescript",
            "type O = (A | B) & {\n  port?: number\n}\n"
            "type U = { w: 1 } | { x: 2 } | { y: { no: 3 } } | { z: 4 }\n"
            "type F = (a: { no: 1 } & B) => void\n",
            [
                ("O.port", "field", 2),
                ("U.w", "field", 4),
                ("U.x", "field", 4),
                ("U.y", "field", 4),
                ("U.z", "field", 4),
            ],
        ),
        (
            "java",
            "class A {\n  /** doc */\n  private int x = 1, y;\n  static final int MAX = 3;\n  enum E { ONE }\n}\n",
            [("A.x", "field", 2), ("A.y", "field", 3), ("A.E.ONE", "variant", 5)],
        ),
        (
            "c",
            "struct s { int a; char *b; void (*fn)(int); struct { int d; } e; };\nenum c { RED };\n",
            [
                ("s.a", "field", 1),
                ("s.b", "field", 1),
                ("s.fn", "field", 1),
                ("s.d", "field", 1),
                ("s.e", "field", 1),
                ("c.RED", "variant", 2),
            ],
        ),
        (
            # function pointers returning pointers, and an array of them (Linux's `inode_operations`)
            "c",
            "struct ops {\n  struct dentry * (*lookup)(struct inode *);\n  char ** (*names)(void);\n"
            "  int (*handlers[4])(void);\n};\n",
            [("ops.lookup", "field", 2), ("ops.names", "field", 3), ("ops.handlers", "field", 4)],
        ),
        (
            "kotlin",
            "class A(val p: Int, q: Int) {\n  val x = 1\n}\n",
            [("A.p", "field", 1), ("A.x", "field", 2)],
        ),
        ("php", "<?php class A { public int $x = 1; const C = 1; }", [("A.x", "field", 1)]),
    ],
)
def test_fields_and_variants(language: str, source: str, expected: list[tuple[str, str, int]]) -> None:
    """A data member is named by its owner (``self.x`` in ``__init__`` by the class, a C field in an
    anonymous struct by the outer one), once (where it comes first), never as a second symbol for a
    constant, and never as a method (a field holding a function is one already)."""
    symbols = extract_symbols(source.encode(), language, "x")
    members = [(s.qualified_name, s.kind, s.start_line) for s in symbols if s.kind in ("field", "variant")]
    assert members == expected
    kinds = {s.qualified_name: s.kind for s in symbols}
    assert kinds.get("A.h", "method") == "method" and kinds.get("A.MAX", "constant") == "constant"


def test_fields_and_variants_start_no_chunk() -> None:
    """Chunks are cut at definitions; a struct's fields are lines of its chunk, so adding them to the
    symbols left every chunk as it was."""
    source = "struct S {\n    a: u32,\n    b: u32,\n}\n\nenum E {\n    A,\n    B,\n}\n"
    symbols = extract_symbols(source.encode(), "rust", "x.rs")
    assert {s.kind for s in symbols} >= {"field", "variant"}
    cfg = ChunkSettings(max_lines=2, overlap_lines=0, min_lines=1)
    with_members = chunk_file("x.rs", source, symbols, "rust", cfg)
    without = chunk_file(
        "x.rs", source, [s for s in symbols if s.kind not in ("field", "variant")], "rust", cfg
    )
    assert with_members == without


def test_a_decorated_python_function_starts_at_its_doc_comment_and_decorators() -> None:
    source = (
        b"import functools\n\n# Cached.\n# Twice.\n@functools.cache\n@b(\n    1,\n)\ndef f():\n    pass\n"
    )
    (f,) = extract_symbols(source, "python", "x.py")
    assert (f.start_line, f.end_line, f.name_line, f.signature) == (3, 10, 9, "def f():")


def test_an_annotated_java_method_starts_at_its_javadoc() -> None:
    source = (
        b"class A {\n    int x;\n\n    /**\n     * Runs.\n     */\n    @Override\n    @Deprecated\n"
        b"    public void run() {}\n}\n"
    )
    run = next(s for s in extract_symbols(source, "java", "A.java") if s.name == "run")
    assert (run.start_line, run.end_line, run.name_line, run.signature) == (4, 9, 9, "public void run() {}")


def test_rust_pub_use_of_another_crate_is_a_reexport_and_crate_internal_ones_are_not() -> None:
    source = (
        b"pub use axum_core::extract::{FromRef, FromRequest};\n"
        b"pub use tokio_util::sync::CancellationToken;\n"
        b"pub use bytes::Bytes as RawBytes;\n"
        b"pub use self::query::Query;\n"
        b"pub use crate::Json;\n"
        b"pub(crate) use http_body::Body;\n"
        b"use std::fmt;\n"
    )
    found = [(s.kind, s.name, s.start_line) for s in extract_symbols(source, "rust", "extract/mod.rs")]
    assert found == [
        ("reexport", "FromRef", 1),
        ("reexport", "FromRequest", 1),
        ("reexport", "CancellationToken", 2),
        ("reexport", "RawBytes", 3),
    ]


@pytest.mark.parametrize("language", ["javascript", "typescript", "tsx"])
def test_an_exported_member_of_another_module_under_its_own_name_is_a_reexport(language: str) -> None:
    """fs-extra's lib/esm.mjs: ``export const emptyDirSync = _empty.emptyDirSync`` makes another
    module's definition public; it defines nothing. A member under another name, a local alias and a
    constant in capitals stay what they were."""
    source = (
        b"import _empty from './empty/index.js'\n"
        b"export const emptyDirSync = _empty.emptyDirSync\n"
        b"export var legacy = _empty.legacy\n"
        b"export const emptydir = _empty.emptyDir\n"
        b"const local = _empty.local\n"
        b"export const MAX = limits.MAX\n"
    )
    found = [(s.kind, s.name, s.start_line) for s in extract_symbols(source, language, "lib/esm.mjs")]
    assert found == [
        ("reexport", "emptyDirSync", 2),
        ("reexport", "legacy", 3),
        ("variable", "emptydir", 4),
        ("variable", "local", 5),
        ("constant", "MAX", 6),
    ]


def test_the_fingerprint_digest_follows_every_query_file(tmp_path: Path) -> None:
    folder = resources.files("indexer") / "queries"
    for entry in folder.iterdir():
        if entry.name.endswith(".scm"):
            (tmp_path / entry.name).write_bytes(entry.read_bytes())
    assert digest_of_queries(tmp_path) == queries_digest()
    (tmp_path / "rust.scm").write_bytes((tmp_path / "rust.scm").read_bytes() + b"\n; one more line\n")
    assert digest_of_queries(tmp_path) != queries_digest()


def test_a_rust_fn_starts_at_its_doc_comment_and_attributes() -> None:
    source = b"//! Crate doc.\n/// Purges.\n///\n/// Returns n.\n#[inline]\n#[cfg(test)] #[must_use]\nfn purge() {}\n"
    (f,) = extract_symbols(source, "rust", "lib.rs")
    assert (f.start_line, f.end_line, f.name_line, f.signature) == (2, 7, 7, "fn purge() {}")


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        # A blank line between a comment and the definition: the comment is not its doc.
        ("go", "package p\n\n// Section.\n\n// Run runs.\nfunc Run() {}\n", (5, 6, 6)),
        # A comment after code on the line above is that code's.
        ("python", "x = 1  # note\ndef f():\n    pass\n", (2, 3, 2)),
        # A shebang and Rust's inner doc comments document something else.
        ("bash", "#!/bin/bash\nusage() { :; }\n", (2, 2, 2)),
        ("rust", "//! Module.\nfn f() {}\n", (2, 2, 2)),
        # Haskell's `-- ^` documents the item above; a signature and its equations are one symbol.
        ("haskell", "x = 1\n-- ^ about x\ny = 2\n", (3, 3, 3)),
        ("haskell", "x = 1\n\n-- | About f.\nf :: Int\n{-# INLINE f #-}\nf = 2\n", (3, 6, 4)),
        # C++ `template <...>` and a JavaScript `export` are part of the definition.
        ("cpp", "// Max.\ntemplate <class T>\nT max(T a) { return a; }\n", (1, 3, 3)),
        ("typescript", "/** Doc. */\n@Component({})\nexport class C {}\n", (1, 3, 3)),
        ("lua", "local M = {}\n--- Opens.\n---@param o table\nfunction M.open(o) end\n", (2, 4, 4)),
    ],
)
def test_leading_doc_comments_and_attributes(
    language: str, source: str, expected: tuple[int, int, int]
) -> None:
    symbols = extract_symbols(source.encode(), language, "x")
    last = symbols[-1]
    assert (last.start_line, last.end_line, last.name_line) == expected


def test_a_doc_comment_inside_an_earlier_definition_is_left_to_it() -> None:
    # tree-sitter-scala ends `parse` after the next definition's doc comment: the comment is cut
    # from `parse` (it is not indented under it) and given to `format`.
    source = b"def parse(t: String): Int =\n  t.length\n\n/** Formats. */\ndef format(p: Int): String = p.toString\n"
    by_name = {s.name: (s.start_line, s.end_line) for s in extract_symbols(source, "scala", "C.scala")}
    assert by_name == {"parse": (1, 2), "format": (4, 5)}


def test_haskell_definitions_join_signature_and_equations() -> None:
    name, source, _ = _fixture("haskell")
    by_name = {s.qualified_name: s for s in extract_symbols(source, "haskell", name)}
    depth = by_name["Data.Queue.depth"]
    assert (depth.kind, depth.start_line, depth.end_line, depth.signature) == (
        "function",
        43,
        45,
        "depth :: Queue a -> Int",
    )
    assert [q for q, s in by_name.items() if s.name == "drain"] == [
        "Data.Queue.Drain.drain",
        "Data.Queue.Drain Queue.drain",
    ]
    assert by_name["Data.Queue.<+>"].kind == "function"


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
    with pytest.raises(GrammarUnavailableError, match="no tags query for 'elixir'"):
        extract_symbols(b"x = 1", "elixir", "x.ex")


def test_rust_definitions_inside_item_level_macro_calls_are_found() -> None:
    """tokio writes a third of its files inside ``cfg_*! { … }``: a token tree to the grammar."""
    source = (
        "use crate::x;\n"  # 1
        "\n"
        "cfg_rt! {\n"  # 3
        "    /// Runs a blocking function.\n"  # 4
        "    pub fn spawn_blocking() {}\n"  # 5
        "    cfg_net! {\n"  # 6
        "        pub struct Listener { port: u16 }\n"  # 7
        "    }\n"
        "}\n"
        "impl Handle {\n"  # 10
        "    cfg_net! {\n"
        "        pub fn bind(&self) {}\n"  # 12
        "    }\n"
        "}\n"
        "fn body() {\n"  # 15
        "    quote! { fn not_an_item() {} }\n"
        "    let v = vec![1];\n"
        "}\n"
    )
    symbols = extract_symbols(source.encode(), "rust", "x.rs")
    assert [(s.qualified_name, s.kind, s.start_line, s.end_line) for s in symbols] == [
        ("spawn_blocking", "function", 4, 5),
        ("Listener", "struct", 7, 7),
        ("Listener.port", "field", 7, 7),
        ("Handle.bind", "method", 12, 12),
        ("body", "function", 15, 18),
    ]
    chunks = chunk_file(
        "x.rs", source, symbols, "rust", ChunkSettings(max_lines=3, overlap_lines=0, min_lines=1)
    )
    assert {c.symbol for c in chunks} >= {"spawn_blocking", "Handle.bind"}


def test_a_macro_call_that_holds_no_items_yields_what_parses() -> None:
    source = (
        "lazy_static! {\n    static ref TABLE: Vec<u8> = vec![];\n}\nfn after() {}\nbroken! {\n    fn (\n"
    )
    names = [s.qualified_name for s in extract_symbols(source.encode(), "rust", "x.rs")]
    assert "after" in names  # the rest of the file is read as before


@pytest.mark.parametrize(
    ("language", "source", "expected"),
    [
        ("python", "MAX = 3\napp = Flask(__name__)\ndef f():\n    y = 2\napp = other()\n", [("app", 2)]),
        (
            "go",
            'package p\n// ErrX is bad\nvar ErrX = errors.New("x")\nvar (\n\ta = 1\n\tb, c int\n)\nfunc f() { var z = 1 }\n',
            [("p.ErrX", 2), ("p.a", 5), ("p.b", 6), ("p.c", 6)],
        ),
        (
            "javascript",
            "const express = require('express');\nconst app = express();\nconst f = () => 1;\nconst MAX = 3;\n"
            "export const config = { a: 1 };\nfunction g() { const inner = 1; }\n",
            [("app", 2), ("config", 5)],
        ),
        (
            "typescript",
            "export const routes: Route[] = [];\nconst handler = async () => {};\n",
            [("routes", 1)],
        ),
        ("kotlin", "const val K = 1\nval defaultTimeout = 30\n", [("defaultTimeout", 2)]),
        ("swift", "let k = 1\nvar counter = 0\n", [("counter", 2)]),
        ("scala", "val Max = 3\nval timeout = 30\n", [("timeout", 2)]),
        (
            "c",
            "static struct ops my_ops = { .open = f };\nconst int K = 3;\nint f(int);\nextern int z;\n"
            "static const char *names[] = {0};\nint g(void) { static int local = 1; return local; }\n",
            [("my_ops", 1), ("names", 5)],
        ),
    ],
)
def test_file_level_variables(language: str, source: str, expected: list[tuple[str, int]]) -> None:
    """A variable a file or package defines, once (where first assigned), not a constant (UPPER_CASE,
    `const val`, Swift `let`), a function (`const f = () => 1`), an import (`require`) or a local."""
    symbols = extract_symbols(source.encode(), language, "x")
    assert [(s.qualified_name, s.start_line) for s in symbols if s.kind == "variable"] == expected


@pytest.mark.parametrize("language", ["typescript", "tsx"])
def test_a_constructors_parameter_properties_are_fields_of_its_class(language: str) -> None:
    """TypeScript's ``constructor(private readonly http: HttpClient)`` declares a field of the class,
    with its doc comment; a plain parameter does not, nor does another method's parameter."""
    source = (
        "export class Decoder {\n"
        "    constructor(\n"
        "        /** The tree used to decode entities. */\n"
        "        private readonly decodeTree: Uint16Array,\n"
        "        protected emitCodePoint: (cp: number) => void,\n"
        "        readonly errors?: string,\n"
        "        plain: number,\n"
        "        override level = 1,\n"
        "    ) {}\n"
        "    write(chunk: string) {}\n"
        "}\n"
    )
    fields = [
        (s.qualified_name, s.start_line, s.end_line)
        for s in extract_symbols(source.encode(), language, "x")
        if s.kind == "field"
    ]
    assert fields == [
        ("Decoder.decodeTree", 3, 4),
        ("Decoder.emitCodePoint", 5, 5),
        ("Decoder.errors", 6, 6),
        ("Decoder.level", 8, 8),
    ]


@pytest.mark.parametrize(
    ("language", "source"),
    [
        ("go", "package p\nvar _ Iface = (*T)(nil)\n"),
        ("python", "_ = setup()\n"),
        ("rust", "const _: () = ();\n"),
    ],
)
def test_the_blank_identifier_names_nothing(language: str, source: str) -> None:
    assert extract_symbols(source.encode(), language, "x") == []


def test_macro_calls_in_modules_nested_thousands_deep_are_read_without_recursion() -> None:
    depth = 3000  # deeper than Python's recursion limit
    source = "mod a {\n" * depth + "cfg_x! { fn deep() {} }\n" + "}\n" * depth
    names = [s.qualified_name for s in extract_symbols(source.encode(), "rust", "x.rs") if s.name == "deep"]
    assert names == [".".join(["a"] * depth + ["deep"])]


def test_every_one_of_many_macro_calls_is_read() -> None:
    source = "".join(f"cfg_x! {{ fn f{i}() {{}} }}\n" for i in range(5000))
    symbols = extract_symbols(source.encode(), "rust", "x.rs")
    assert [(s.name, s.start_line) for s in symbols] == [(f"f{i}", i + 1) for i in range(5000)]


def test_cpp_attribute_like_macros_are_read_past() -> None:
    """A namespace opener written as a macro, an export marker, an attribute with arguments before the
    type and one after the parameter list: what a compiler sees once they expand, not what the grammar
    recovers around them (abseil, fmt, nlohmann-json)."""
    source = (
        "namespace absl {\n"  # 1
        "ABSL_NAMESPACE_BEGIN\n"  # 2
        "class Mutex {\n"  # 3
        " public:\n"
        "  ABSL_MUST_USE_RESULT bool TryLock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true);\n"  # 5
        "  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() {}\n"  # 6
        "  constexpr FMT_INLINE Mutex(int x FMT_BUILTIN) : owner_(x) {}\n"  # 7
        "};\n"
        "FMT_API __attr_size(1) void *vformat(int n) {\n"  # 9
        "  return nullptr;\n"
        "}\n"
        "TEST(MutexTest, Locks) {\n"  # 12
        "  EXPECT_EQ(1, 1);\n"
        "}\n"
        "ABSL_NAMESPACE_END\n"
        "}  // namespace absl\n"
    )
    symbols = extract_symbols(source.encode(), "cpp", "x.cc")
    found = {(s.qualified_name, s.kind, s.start_line) for s in symbols}
    assert {
        ("absl.Mutex", "class", 3),
        ("absl.Mutex.Lock", "method", 6),
        ("absl.Mutex.Mutex", "constructor", 7),
        ("absl.vformat", "function", 9),
    } <= found
    assert all(s.name != "owner_" for s in symbols)  # a member initializer, not a method
    vformat = next(s for s in symbols if s.name == "vformat")
    assert vformat.signature.startswith("FMT_API __attr_size(1) void *vformat")  # read as written
    assert all(s.name not in {"ABSL_NAMESPACE_BEGIN", "FMT_API", "__attr_size"} for s in symbols)


def test_a_cpp_file_without_such_macros_is_parsed_once_and_a_lone_enum_constant_stays() -> None:
    from indexer.c_attributes import macro_spans, read_past

    clean = b"int f(int x) {\n  return x;\n}\n"
    assert read_past(parse(clean, "cpp"), clean, "cpp") is None  # no syntax error: no second parse
    enum = b"enum Mode {\n  FAST,\nSLOW_PATH\n};\n"
    assert macro_spans(enum) == []  # the last constant of an enum written flush left is no macro
    typed = (
        b"static HANDLE h;\nINLINE static HANDLE get_handle(int fd);\nconstexpr FMT_INLINE value(T x) {}\n"
    )
    blanked = bytearray(typed)
    for start, end in macro_spans(typed):
        blanked[start:end] = b" " * (end - start)
    # a variable keeps the only word left to be its type; a function or a constructor needs none
    assert bytes(blanked).split() == [
        b"static", b"HANDLE", b"h;", b"static", b"get_handle(int", b"fd);", b"constexpr", b"value(T", b"x)", b"{}",
    ]  # fmt: skip
    c_words = b"static __init int setup(void)\n{\n  return 0;\n}\n"
    assert macro_spans(c_words, words=False) == []  # C: tree-sitter reads a bare word's function well


def test_c_functions_behind_attribute_macros_with_arguments_are_found() -> None:
    """Linux's allocators: ``kmalloc`` was no definition at all, and one broken declaration hid the
    next ones (``kzalloc``, ``kcalloc``), found in later readings of the errors left."""
    body = "{\n\treturn __kmalloc(size, flags);\n}\n\n"
    source = (
        "void *__kmalloc(size_t size, gfp_t flags) __assume_kmalloc_alignment __alloc_size(1);\n"
        + "static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)\n" + body
        + "static inline __alloc_size(1, 2) void *kcalloc(size_t n, size_t size, gfp_t flags)\n" + body
        + "static inline __alloc_size(1) void *kzalloc(size_t size, gfp_t flags)\n" + body
        + "static __printf(2, 3) int log_it(int level, const char *fmt, ...)\n" + body
        + "SYSCALL_DEFINE3(open, const char __user *, filename, int, flags, umode_t, mode)\n" + body
    )  # fmt: skip
    symbols = extract_symbols(source.encode(), "c", "slab.h")
    names = {s.name: (s.kind, s.start_line) for s in symbols}
    assert {n: names.get(n) for n in ("kmalloc", "kcalloc", "kzalloc", "log_it")} == {
        "kmalloc": ("function", 2),
        "kcalloc": ("function", 7),
        "kzalloc": ("function", 12),
        "log_it": ("function", 17),
    }
    assert "__alloc_size" not in names and "__printf" not in names


def test_functions_that_macros_define_are_named_by_the_macros_arguments() -> None:
    """``SYSCALL_DEFINE3(open, …) { … }`` defines the system call ``open`` (Linux has hundreds), and
    googletest's ``TEST(Suite, Name) { … }`` a test ``Suite.Name``; neither is a definition of the
    macro. A loop macro inside a function body defines nothing."""
    c_source = (
        b"#include <linux/syscalls.h>\n"  # 1
        b"SYSCALL_DEFINE3(open, const char __user *, filename, int, flags, umode_t, mode)\n"  # 2
        b"{\n\treturn do_sys_open(AT_FDCWD, filename, flags, mode);\n}\n"  # 3-5
        b"#ifdef CONFIG_COMPAT\n"  # 6
        b"COMPAT_SYSCALL_DEFINE2(ftruncate, unsigned int, fd, compat_ulong_t, length)\n"  # 7
        b"{\n\treturn ksys_ftruncate(fd, length);\n}\n"  # 8-10
        b"#endif\n"  # 11
        b"SYSCALL_DEFINE0(getpid)\n{\n\treturn task_tgid_vnr(current);\n}\n"  # 12-15
        b"PHP_METHOD(Phar, running)\n{\n\tRETURN_TRUE;\n}\n"  # 16-19
        b"static void walk(struct head *head)\n{\n\tstruct item *var;\n"  # 20-22
        b"\tTAILQ_FOREACH(var, head, link) {\n\t\tvisit(var);\n\t}\n}\n"  # 23-26
    )
    found = {
        (s.qualified_name, s.kind, s.start_line, s.end_line) for s in extract_symbols(c_source, "c", "open.c")
    }
    assert found == {
        ("open", "function", 2, 5),
        ("ftruncate", "function", 7, 10),
        ("getpid", "function", 12, 15),
        ("Phar.running", "function", 16, 19),
        ("walk", "function", 20, 26),
    }
    cpp_source = (
        b'#include "gtest/gtest.h"\n'  # 1
        b'TEST(StrCatTest, Ints) {\n  EXPECT_EQ(StrCat(1), "1");\n}\n'  # 2-4
        b'TEST_F(CordTest, AppendSmall) {\n  cord_.Append("x");\n}\n'  # 5-7
        b"class Widget {\n public:\n  Widget(int x) {}\n};\n"  # 8-11
    )
    tests = {
        (s.qualified_name, s.kind, s.start_line)
        for s in extract_symbols(cpp_source, "cpp", "str_cat_test.cc")
    }
    assert tests == {
        ("StrCatTest.Ints", "function", 2),
        ("CordTest.AppendSmall", "function", 5),
        ("Widget", "class", 8),
        ("Widget.Widget", "constructor", 10),
    }

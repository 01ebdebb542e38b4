"""Chunking: one chunk per definition, large ones split, small neighbours merged, windows elsewhere."""

from __future__ import annotations

import pytest

from indexer.chunks import chunk_file, split_lines
from indexer.config import ChunkSettings
from indexer.symbols import extract_symbols
from indexer.types import Symbol

CFG = ChunkSettings(max_lines=20, overlap_lines=4, min_lines=4, window_lines=10, max_chars=4000)


def sym(name: str, kind: str, start: int, end: int, qn: str | None = None) -> Symbol:
    return Symbol(name, qn or name, kind, "m.py", "python", start, end, "")


def spans(chunks) -> list[tuple[int, int, str | None]]:
    return [(c.start_line, c.end_line, c.symbol) for c in chunks]


def test_one_chunk_per_definition_with_header_and_hash() -> None:
    text = "\n".join(
        ["import os", ""] + ["def f():"] + ["    x = 1"] * 6 + [""] + ["def g():"] + ["    y = 2"] * 6
    )
    symbols = [sym("f", "function", 3, 9), sym("g", "function", 11, 17)]
    chunks = chunk_file("m.py", text, symbols, "python", CFG)
    assert spans(chunks) == [(1, 9, "f"), (11, 17, "g")]  # the import line merges into f's chunk
    assert chunks[1].text.startswith("# m.py · g\ndef g():")
    assert chunks[0].content_hash != chunks[1].content_hash


def test_a_reexport_neither_starts_nor_ends_a_chunk() -> None:
    text = "\n".join(["pub use ext::{A, B};", "", "pub fn f() {"] + ["    g();"] * 6 + ["}"])
    symbols = [sym("A", "reexport", 1, 1), sym("B", "reexport", 1, 1), sym("f", "function", 3, 10)]
    assert spans(chunk_file("m.rs", text, symbols, "rust", CFG)) == spans(
        chunk_file("m.rs", text, symbols[2:], "rust", CFG)
    )


def test_large_class_splits_into_header_and_methods() -> None:
    lines = ["class K:", "    '''Doc.'''", "    A = 1"]
    for i in range(3):
        lines += [f"    def m{i}(self):"] + ["        pass"] * 9
    symbols = [sym("K", "class", 1, len(lines))] + [
        sym(f"m{i}", "method", 4 + 10 * i, 13 + 10 * i, f"K.m{i}") for i in range(3)
    ]
    chunks = chunk_file("m.py", "\n".join(lines), symbols, "python", CFG)
    assert spans(chunks) == [(1, 13, "K.m0"), (14, 23, "K.m1"), (24, 33, "K.m2")]


def test_long_leaf_definition_becomes_overlapping_windows() -> None:
    lines = ["def big():"] + ["    x = 1"] * 44
    chunks = chunk_file("m.py", "\n".join(lines), [sym("big", "function", 1, 45)], "python", CFG)
    assert spans(chunks) == [(1, 20, "big"), (17, 36, "big"), (33, 45, "big")]


def test_files_without_symbols_become_line_windows_and_blank_files_none() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 26))
    assert spans(chunk_file("notes.md", text, [], "markdown", CFG)) == [
        (1, 10, None), (7, 16, None), (13, 22, None), (19, 25, None)
    ]  # fmt: skip
    assert chunk_file("e.md", "\n\n  \n", [], "markdown", CFG) == []


def test_line_splitting_matches_ripgrep_and_tree_sitter() -> None:
    assert split_lines("a\r\nb\x0cc\nd") == ["a", "b\x0cc", "d"]
    assert split_lines("a\n") == ["a"]


def _real_chunks(path: str, text: str, language: str) -> list:
    return chunk_file(path, text, extract_symbols(text.encode(), language, path), language, CFG)


def test_a_doc_comment_and_decorators_are_in_their_definitions_chunk_only() -> None:
    text = "\n".join(
        ["import os", "", "x = os.sep", "y = 2", "z = 3", "w = 4", ""]
        + ["# Doc for f.", "# Second line.", "@decorator", "def f():"]
        + ["    a = 1"] * 6
    )
    chunks = _real_chunks("m.py", text, "python")
    assert spans(chunks) == [(1, 6, None), (8, 17, "f")]
    assert [c.symbol for c in chunks if "# Doc for f." in c.text] == ["f"]
    assert chunks[1].text.startswith("# m.py · f\n# Doc for f.\n# Second line.\n@decorator\ndef f():")


def test_a_split_class_keeps_each_methods_javadoc_out_of_the_header_chunk() -> None:
    lines = ["class K {", "    int a;", "    int b;", "    int c;", "    int d;", ""]
    for i in range(3):
        lines += [f"    /** Checks {i}. */", "    @Override", f"    void m{i}() {{"]
        lines += ["        run();"] * 6 + ["    }", ""]
    lines += ["}"]
    chunks = _real_chunks("K.java", "\n".join(lines), "java")
    assert spans(chunks) == [(1, 5, "K"), (7, 16, "K.m0"), (18, 27, "K.m1"), (29, 40, "K.m2")]
    for i in range(3):
        holders = [c for c in chunks if f"/** Checks {i}. */" in c.text]
        assert [c.symbol for c in holders] == [f"K.m{i}"]
        assert holders[0].text.split("\n")[1] == f"    /** Checks {i}. */"


def test_short_definitions_merge_into_chunks_of_at_most_merge_lines() -> None:
    # eight three-line functions with a blank line after each (32 lines): a chunk holds as many as fit
    # in merge_lines, not max_lines, so that the model, which reads the start of a chunk, sees each one
    lines: list[str] = []
    symbols = []
    for i in range(8):
        start = len(lines) + 1
        lines += [f"def f{i}(x):", "    y = x", "    return y", ""]
        symbols.append(sym(f"f{i}", "function", start, start + 2))
    text = "\n".join(lines)
    cfg = ChunkSettings(
        max_lines=80, overlap_lines=4, min_lines=6, window_lines=10, max_chars=4000, merge_lines=12
    )
    got = spans(chunk_file("m.py", text, symbols, "python", cfg))
    assert got == [(1, 11, "f0"), (13, 23, "f3"), (25, 31, "f6")]
    assert all(end - start + 1 <= 12 for start, end, _ in got)
    # without the cap (merge_lines above max_lines) one chunk takes all eight
    wide = ChunkSettings(
        max_lines=80, overlap_lines=4, min_lines=6, window_lines=10, max_chars=4000, merge_lines=200
    )
    assert spans(chunk_file("m.py", text, symbols, "python", wide)) == [(1, 31, "f0")]
    # and max_lines still bounds a merged chunk where it is the smaller
    narrow = ChunkSettings(
        max_lines=8, overlap_lines=2, min_lines=6, window_lines=10, max_chars=4000, merge_lines=40
    )
    assert (
        max(end - start + 1 for start, end, _ in spans(chunk_file("m.py", text, symbols, "python", narrow)))
        <= 8
    )


def test_merge_lines_is_read_from_plait_toml_and_is_part_of_the_fingerprint(tmp_path) -> None:
    from indexer import load_settings
    from indexer.fingerprint import fingerprint
    from models import ConfigError

    env = {"PLAIT_INDEX_DIR": str(tmp_path / "index")}
    default = load_settings(tmp_path, env=env)
    assert default.chunks.merge_lines == ChunkSettings().merge_lines == 40
    (tmp_path / "plait.toml").write_text("[chunks]\nmerge_lines = 24\n")
    narrower = load_settings(tmp_path, env=env)
    assert narrower.chunks.merge_lines == 24
    assert fingerprint(narrower) != fingerprint(default)  # chunks made otherwise: a build starts afresh
    (tmp_path / "plait.toml").write_text("[chunks]\nmerge_lines = 0\n")
    with pytest.raises(ConfigError, match=r"chunks\.merge_lines must be at least 1"):
        load_settings(tmp_path, env=env)

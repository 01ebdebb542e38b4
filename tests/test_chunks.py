"""Chunking: one chunk per definition, large ones split, small neighbours merged, windows elsewhere."""

from __future__ import annotations

from indexer.chunks import chunk_file, split_lines
from indexer.config import ChunkSettings
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

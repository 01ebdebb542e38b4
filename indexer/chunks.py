"""Chunking: the spans that get embedded and returned by searches.

One chunk per definition, over the definition's span as :mod:`indexer.symbols` reports it: from
its doc comment and decorators to its end, so a doc comment is embedded with what it documents
and never lands in a gap chunk or in the previous definition's chunk. A definition longer than
``max_lines`` is split: its nested definitions become chunks of their own and the code between
them (a class header, module-level statements inside it) is chunked as that definition's; a long
definition with nothing nested is cut into overlapping windows. Consecutive small chunks at one level are merged up to
``merge_lines`` (about what the transformer reads of a chunk: a chunk of ten short methods would
embed as its first few). Files without symbols become line windows. Blank-only spans are dropped.

The embedded text starts with a short header (path and enclosing scope) so that a chunk carries
where it lives; ``content_hash`` is the sha256 of that text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from indexer.config import ChunkSettings
from indexer.types import DATA_KINDS, Chunk, Symbol, sha256_hex

_NOT_CHUNKED = DATA_KINDS | {"reexport"}

# 2: definitions start at their decorators, attributes and doc comment; 3: and Rust's definitions inside
# item-level macro calls (``cfg_rt! { … }``, indexer/macro_items.py) are chunked as definitions; 4: C++
# read past attribute-like macros (indexer/c_attributes.py), and a ``.h`` that shows C++ is C++; 5: C too;
# 6: small definitions are merged up to ``merge_lines``, not ``max_lines``
CHUNKER_VERSION = 6


@dataclass(slots=True)
class _Node:
    symbol: Symbol | None
    start: int
    end: int
    children: list[_Node] = field(default_factory=list)


@dataclass(slots=True)
class _Piece:
    start: int
    end: int
    symbol: str | None
    kind: str | None


def _tree(symbols: Sequence[Symbol], n_lines: int) -> _Node:
    root = _Node(None, 1, n_lines)
    stack = [root]
    for sym in sorted(symbols, key=lambda s: (s.start_line, -s.end_line)):
        start, end = max(1, sym.start_line), min(n_lines, sym.end_line)
        if end < start:
            continue
        while len(stack) > 1 and not (stack[-1].start <= start and end <= stack[-1].end):
            stack.pop()
        parent = stack[-1]
        if parent.children and parent.children[-1].end >= start:
            continue  # overlaps a sibling (e.g. decorators or odd grammars): keep the first
        node = _Node(sym, start, end)
        parent.children.append(node)
        stack.append(node)
    return root


def _windows(start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    if end - start + 1 <= size:
        return [(start, end)]
    out = []
    step = max(1, size - overlap)
    s = start
    while True:
        e = min(end, s + size - 1)
        out.append((s, e))
        if e >= end:
            return out
        s += step


def _is_blank(lines: Sequence[str], start: int, end: int) -> bool:
    return all(not lines[i - 1].strip() for i in range(start, end + 1))


def _pieces(node: _Node, lines: Sequence[str], cfg: ChunkSettings) -> list[_Piece]:
    sym = node.symbol
    name = sym.qualified_name if sym else None
    kind = sym.kind if sym else None
    size = node.end - node.start + 1
    if sym is not None and size <= cfg.max_lines:
        return [_Piece(node.start, node.end, name, kind)]
    if not node.children:
        span = cfg.max_lines if sym is not None else cfg.window_lines
        return [
            _Piece(s, e, name, kind)
            for s, e in _windows(node.start, node.end, span, cfg.overlap_lines)
            if not _is_blank(lines, s, e)
        ]
    out: list[_Piece] = []
    cursor = node.start
    max_lines = cfg.max_lines
    for child in node.children:
        if child.start > cursor:
            out.extend(_gap(cursor, child.start - 1, name, kind, lines, cfg))
        child_symbol = child.symbol
        if child_symbol is not None and child.end - child.start + 1 <= max_lines:
            # what _pieces makes of a definition that fits (most of them: no call for each)
            out.append(_Piece(child.start, child.end, child_symbol.qualified_name, child_symbol.kind))
        else:
            out.extend(_pieces(child, lines, cfg))
        cursor = child.end + 1
    if cursor <= node.end:
        out.extend(_gap(cursor, node.end, name, kind, lines, cfg))
    return _merge_small(out, cfg)


def _gap(
    start: int, end: int, name: str | None, kind: str | None, lines: Sequence[str], cfg: ChunkSettings
) -> list[_Piece]:
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    if end < start:
        return []
    size = cfg.max_lines if name else cfg.window_lines
    return [_Piece(s, e, name, kind) for s, e in _windows(start, end, size, cfg.overlap_lines)]


def _merge_small(pieces: list[_Piece], cfg: ChunkSettings) -> list[_Piece]:
    merged: list[_Piece] = []
    for piece in pieces:
        if merged:
            last = merged[-1]
            last_small = last.end - last.start + 1 < cfg.min_lines
            this_small = piece.end - piece.start + 1 < cfg.min_lines
            if (
                (last_small or this_small)
                and piece.end - last.start + 1 <= min(cfg.merge_lines, cfg.max_lines)
                and piece.start > last.end
            ):
                keep_this = last.symbol is None or (last_small and not this_small)
                merged[-1] = _Piece(
                    last.start,
                    piece.end,
                    piece.symbol if keep_this else last.symbol,
                    piece.kind if keep_this else last.kind,
                )
                continue
        merged.append(piece)
    return merged


def split_lines(text: str) -> list[str]:
    """Lines as ripgrep and tree-sitter count them: split on ``\n`` only, ``\r`` stripped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" not in text:
        return lines
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def header(path: str, scope: str | None) -> str:
    return f"# {path}" + (f" · {scope}" if scope else "") + "\n"


def chunk_text(
    path: str, lines: Sequence[str], start: int, end: int, scope: str | None, max_chars: int
) -> str:
    """What a chunk of ``path`` over lines ``start``..``end`` (1-based, inclusive) holds and is embedded
    as: a header naming the file and the chunk's scope, then its lines, cut at ``max_chars``."""
    return (header(path, scope) + "\n".join(lines[start - 1 : end]))[:max_chars]


def chunk_file(
    path: str,
    text: str,
    symbols: Sequence[Symbol],
    language: str | None,
    cfg: ChunkSettings,
) -> list[Chunk]:
    """Split one file's text into chunks (see the module docstring)."""
    lines = split_lines(text)
    if not lines:
        return []
    # A re-export names code that lives elsewhere, and a field, variant or variable is a line of the
    # code around it: neither starts nor ends a chunk.
    root = _tree([s for s in symbols if s.kind not in _NOT_CHUNKED], len(lines))
    pieces = _pieces(root, lines, cfg)
    chunks: list[Chunk] = []
    for p in pieces:
        embedded = chunk_text(path, lines, p.start, p.end, p.symbol, cfg.max_chars)
        chunks.append(Chunk(path, p.start, p.end, p.symbol, p.kind, language, embedded, sha256_hex(embedded)))
    return chunks

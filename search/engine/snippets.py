"""Snippets that show why a result matched: the matched lines, or the definition line, not the top of a span.

A result is a chunk-sized span; its first lines are often a module docstring, imports or another
definition's tail. :func:`focus_results` picks, inside each span, the line that matched the query (the
literal, the regex, the identifier, or the line holding most of a sentence's terms), else the line
that defines the result's symbol, and shows a window around it: decorators and attributes above a
definition are included, and the window is cut to a per-search token budget shared by the results in
rank order (what one result leaves unused goes to the next). A window that stops before the span ends
says where to read on (``read_file offset=N``).

Pure functions over the files on disk; no index, no model. The engine and the front ends share them.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from indexer import open_beneath
from search.engine.query import analyse
from search.types import Result

DEFAULT_MAX_TOKENS = 2000
# Results after the snippets that the MCP search tool names by location only (about 20 tokens each).
# On the peer suite's 780 queries, 10 have no target among the first 10 results and 5 of those have one
# among the next 10 (benchmarks §8): an agent sees where to look for the price of a heading line.
DEFAULT_MORE = 10
MAX_LINES = 16  # at most this many lines per result, whatever the budget
MIN_LINES = 3  # a result shows at least its focus line and a little context, budget or not
CONTEXT_BEFORE = 2  # lines shown above a matched line that is not a definition
LINE_CHARS = 240  # longer lines are cut (minified code)
CHARS_PER_TOKEN = 4  # the usual estimate for code and English with BPE tokenizers
MAX_SPAN_LINES = 4000  # lines read per span at most
DECORATOR = re.compile(r"^\s*(@|#\[|\[[A-Z]|#!\[)")
_DEF_WORDS = re.compile(
    r"\b(def|class|fn|func|function|interface|struct|enum|trait|impl|type|module|object|record|fun|sub|"
    r"val|var|let|const|macro|protocol|extension|namespace|package)\b"
)


@dataclass(frozen=True, slots=True)
class Snippet:
    """The lines shown for a result: ``lines[0]`` is line ``start_line`` of the file."""

    start_line: int
    lines: tuple[str, ...]
    focus_line: int  # the matched (or defining) line
    read_on: int | None  # the next line of the span not shown, if any

    @property
    def end_line(self) -> int:
        return self.start_line + len(self.lines) - 1

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def numbered(self, hint: str = "read on with read_file offset={line}") -> str:
        """The lines with their numbers (``37│ def f():``), and ``hint`` if the span goes on."""
        width = len(str(self.end_line))
        out = [f"{n:>{width}}│ {line}" for n, line in enumerate(self.lines, start=self.start_line)]
        if self.read_on is not None:
            out.append(f"{'':>{width}}┆ … {hint.format(line=self.read_on)}")
        return "\n".join(out)


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def line_matcher(query: str, *, regex: bool = False) -> Callable[[str], float]:
    """How well one line matches the query: 0 for not at all; higher is better.

    Literal, regex and identifier queries match a line or not (case-insensitively, as smart case
    would for a lower-case query); a sentence scores the share of its terms found in the line.
    """
    shape = analyse(query, regex=regex)
    if shape.shape == "regex":
        try:
            rx = re.compile(shape.literal or query)
        except re.error:
            return lambda line: 0.0
        return lambda line: 1.0 if rx.search(line) else 0.0
    if shape.shape == "literal":
        needle = (shape.literal or "").lower()
        return lambda line: 1.0 if needle and needle in line.lower() else 0.0
    if shape.shape == "identifier":
        idents = [i.lower() for i in shape.identifiers] or list(shape.terms)
        # The last part of a qualified name is what a line holds: `def backoff` for RetryPolicy.backoff.
        parts = [re.split(r"\.|::|->|#", i)[-1] for i in idents]
        return lambda line: float(sum(p in line.lower() for p in parts if p)) / max(1, len(parts))
    terms = [t for t in shape.terms if t]
    if not terms:
        return lambda line: 0.0

    def natural(line: str) -> float:
        low = line.lower()
        return sum(1.0 for t in terms if t in low) / len(terms)

    return natural


def definition_line(lines: Sequence[str], symbol: str | None) -> int | None:
    """Index in ``lines`` of the line that defines ``symbol`` (its last name part), else ``None``."""
    if not symbol:
        return None
    name = re.split(r"\.|::|->|#", symbol)[-1]
    if not name:
        return None
    word = re.compile(rf"(?<![A-Za-z0-9_$]){re.escape(name)}(?![A-Za-z0-9_$])")
    first = None
    for i, line in enumerate(lines):
        if word.search(line):
            if _DEF_WORDS.search(line.split(name, 1)[0]):
                return i
            if first is None:
                first = i
    return first


def read_span(root: str, path: str, start: int, end: int) -> list[str]:
    """Lines ``start..end`` (1-based, inclusive) of a file, without line ends; ``[]`` if unreadable.

    Only a regular file beneath ``root`` is read: a file replaced by a FIFO or a device since it was
    indexed is opened without blocking and refused, and no symlink on the way is followed.
    """
    end = min(end, start + MAX_SPAN_LINES - 1)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        # resolved beneath the root, component by component: a directory swapped for a symlink
        # during the call is refused, not followed out of the workspace
        fd = open_beneath(root, path, flags)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        with open(fd, encoding="utf-8", errors="replace", newline="", closefd=False) as fh:
            lines = fh.read().split("\n", end)
    except OSError:
        return []
    finally:
        os.close(fd)
    if len(lines) <= end and lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines[start - 1 : end]]


def focus(
    lines: Sequence[str],
    start_line: int,
    *,
    matcher: Callable[[str], float] | None,
    symbol: str | None,
    max_lines: int = MAX_LINES,
    max_chars: int | None = None,
) -> Snippet:
    """The window of ``lines`` (line ``start_line`` first) to show, around the best line.

    The focus is the best-matching line (the first of equals; a definition of the symbol wins a tie),
    else the symbol's definition line, else the first line. A definition's decorators come with it.
    """
    if not lines:
        return Snippet(start_line, (), start_line, None)
    scores = [matcher(line) for line in lines] if matcher is not None else [0.0] * len(lines)
    best = max(scores)
    define = definition_line(lines, symbol)
    if best > 0:
        candidates = [i for i, s in enumerate(scores) if s == best]
        at = define if define in candidates else candidates[0]
    else:
        at = define if define is not None else 0
    top = at
    if at == define or _DEF_WORDS.search(lines[at]):
        while top > 0 and at - top < 6 and DECORATOR.match(lines[top - 1]):
            top -= 1
    else:
        top = max(0, at - CONTEXT_BEFORE)
        while top < at and not lines[top].strip():
            top += 1
    shown: list[str] = []
    chars = 0
    for line in lines[top : top + max(1, max_lines)]:
        cut = line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + "…"
        if (
            max_chars is not None
            and len(shown) >= max(1, min(MIN_LINES, at - top + 1))
            and (chars + len(cut) + 1 > max_chars)
        ):
            break
        shown.append(cut)
        chars += len(cut) + 1
    while len(shown) > at - top + 1 and not shown[-1].strip():
        shown.pop()
    last = top + len(shown)
    read_on = start_line + last if last < len(lines) else None
    return Snippet(start_line + top, tuple(shown), start_line + at, read_on)


class Located(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def symbol(self) -> str | None: ...


def focus_spans(
    spans: Sequence[Located],
    root: str | Callable[[Any], str],
    query: str,
    *,
    regex: bool = False,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_lines: int = MAX_LINES,
) -> list[Snippet]:
    """The focused snippet of each span, within ``max_tokens`` for all of them, in rank order.

    ``root`` is the workspace root of every span, or a function giving a span's root.
    """
    matcher = line_matcher(query, regex=regex)
    out: list[Snippet] = []
    budget = max(0, max_tokens) * CHARS_PER_TOKEN
    for i, r in enumerate(spans):
        share = budget // max(1, len(spans) - i)
        base = root(r) if callable(root) else root
        snip = focus(
            read_span(base, r.path, r.start_line, r.end_line),
            r.start_line,
            matcher=matcher,
            symbol=r.symbol,
            max_lines=max_lines,
            max_chars=share,
        )
        budget = max(0, budget - sum(len(line) + 1 for line in snip.lines))
        out.append(snip)
    return out


def focus_results(
    results: Sequence[Result],
    root: str,
    query: str,
    *,
    regex: bool = False,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_lines: int = MAX_LINES,
) -> list[tuple[Result, Snippet]]:
    """:func:`focus_spans` for engine results: each result carries its snippet's text."""
    snippets = focus_spans(results, root, query, regex=regex, max_tokens=max_tokens, max_lines=max_lines)
    return [(replace(r, snippet=snip.text), snip) for r, snip in zip(results, snippets, strict=True)]


def monotonic_scores(results: Sequence[Result]) -> list[Result]:
    """Scores that never rise down the list: each is at most the one above it.

    The engine may order exact results (the literal, the identifier's definition) ahead of higher
    fused scores; a reader expects the score to fall with the rank. A result scored above its
    predecessor gets its predecessor's score, so the order is kept and the numbers agree with it.
    """
    out: list[Result] = []
    ceiling = float("inf")
    for r in results:
        score = min(r.score, ceiling)
        ceiling = score
        out.append(r if score == r.score else replace(r, score=score))
    return out


def location_line(
    rank: int, path: str, start: int, end: int, symbol: str | None, kind: str | None, score: float
) -> str:
    """A result's heading: ``11. src/retry.py:40-72  backoff (function)  score 0.0123``; the whole line
    of a result listed without its snippet, the start of one shown with it."""
    sym = f"  {symbol} ({kind})" if symbol else ""
    return f"{rank}. {path}:{start}-{end}{sym}  score {score:.4f}"

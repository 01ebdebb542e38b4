"""Two outside baselines a user would otherwise reach for, implementing :class:`~benchmarks.systems.System`.

**ripgrep**: the query's words (lower-cased, English stop words dropped) OR-ed as fixed strings,
case-insensitive, over every file of the indexed copy; files ranked by total match count (ties by
path). A file hit is reported as its best line (the one matching the most distinct words, first on
ties) -- what a user reading ``rg`` output would look at -- so span-level metrics credit ripgrep only
when that line lies inside the target; file-level recall is its natural measure.

**BM25** (``bm25s``, Lucene variant, k1=1.5, b=0.75) over the same chunks plait indexed, with the
exact text plait embedded for each (its path/scope header, then the lines). The tokenizer is code-aware, so
the baseline is a fair one: identifiers are kept whole and also split on ``snake_case`` and
``camelCase``, then lower-cased, stop words dropped, and stemmed (Snowball English). It is
:func:`indexer.lexical.code_tokens`, the tokenizer of plait's own BM25 ranking, so the baseline
differs from plait's lexical leg only in the library that scores it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.metrics import SpanTuple
from indexer import STOP_WORDS, code_tokens, load_settings
from models import PlaitError
from search import RgCommand, RgLine, run_rg

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


class BaselineError(PlaitError):
    """A baseline could not run (ripgrep failed, no chunks to index)."""


def words(text: str) -> list[str]:
    """The query words ripgrep ORs: lower-cased, de-duplicated, stop words and 1-letter words dropped."""
    seen = dict.fromkeys(w.lower() for w in _IDENT.findall(text))
    return [w for w in seen if len(w) > 1 and w not in STOP_WORDS]


class RipgrepBaseline:
    """Plain ripgrep over ``root`` (see the module docstring), through plait's ripgrep gateway with
    nothing ignored but the version-control and index folders."""

    name = "ripgrep"

    def __init__(self, root: Path, *, timeout: float = 30.0) -> None:
        self.settings = load_settings(root, env={})
        self.timeout = timeout

    def search(self, query_text: str, limit: int) -> list[SpanTuple]:
        terms = words(query_text)
        if not terms:
            return []
        command = RgCommand(
            "json",
            tuple(terms),
            fixed=True,
            case="insensitive",
            include_ignored=True,
            size_limit=False,
            max_columns=None,
        )
        try:
            lines = run_rg(self.settings, command, timeout=self.timeout).lines
        except PlaitError as exc:
            raise BaselineError(f"ripgrep failed on {query_text!r}: {exc}") from exc
        return rank_files(count_matches(lines))[:limit]


@dataclass
class _FileMatches:
    count: int = 0
    best_line: int = 0
    best_key: tuple[int, int] = (-1, -1)


def count_matches(lines: Iterable[RgLine]) -> dict[str, _FileMatches]:
    """Per file: total submatches and the best line (most distinct words, then most matches)."""
    files: dict[str, _FileMatches] = {}
    for line in lines:
        distinct = len({s.lower() for s in line.submatches})
        entry = files.setdefault(line.path, _FileMatches())
        entry.count += len(line.submatches)
        key = (distinct, len(line.submatches))
        if key > entry.best_key:  # strictly better: the first line wins ties
            entry.best_key = key
            entry.best_line = line.line
    return files


def rank_files(files: dict[str, _FileMatches]) -> list[SpanTuple]:
    ranked = sorted(files.items(), key=lambda kv: (-kv[1].count, kv[0]))
    return [(path, m.best_line, m.best_line) for path, m in ranked]


@dataclass(frozen=True, slots=True)
class ChunkText:
    path: str
    start_line: int
    end_line: int
    text: str


class BM25Baseline:
    """BM25 over chunks (see the module docstring)."""

    name = "bm25"

    def __init__(self, chunks: Sequence[ChunkText]) -> None:
        if not chunks:
            raise BaselineError("BM25 has no chunks to index; is the repository empty?")
        import bm25s

        self._chunks = list(chunks)
        self._bm25 = bm25s.BM25()
        self._bm25.index([code_tokens(c.text) for c in self._chunks], show_progress=False)

    def search(self, query_text: str, limit: int) -> list[SpanTuple]:
        tokens = code_tokens(query_text)
        if not tokens or limit < 1:
            return []
        k = min(limit, len(self._chunks))
        docs, scores = self._bm25.retrieve([tokens], k=k, show_progress=False)
        hits: list[SpanTuple] = []
        for doc, value in zip(docs[0].tolist(), scores[0].tolist(), strict=True):
            if value > 0:
                c = self._chunks[int(doc)]
                hits.append((c.path, c.start_line, c.end_line))
        return hits

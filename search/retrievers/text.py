"""Text retrieval with ripgrep over the live files.

Commands are built with ``ripgrepy`` and run through the one subprocess gateway
(:mod:`indexer.procs`) with a timeout and an output cap; results are read from ``rg --json``.
ripgrep honours the same ignore rules as the indexer (``.gitignore`` even outside git, ``.ignore``,
configured excludes), searches hidden files but never ``.git``, and never follows symlinks.

Ranking: a literal or regex query ranks spans by match count. A natural-language query becomes
an OR of its terms (stems, case-insensitive); a span scores Σ idf(term) over the distinct terms it
contains, idf from the number of files each term occurs in, plus a small bonus for repeats.

A term query can match tens of thousands of lines (a common word in a large repository), so it
reads ripgrep's compact ``--only-matching --null`` output (path, line number and the matched text,
nothing else) instead of ``--json``, which would carry every matching line and cost ~10× more to
decode.
"""

from __future__ import annotations

import base64
import bisect
import concurrent.futures as cf
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Any, NamedTuple

import ripgrepy

from indexer import Index, IndexStoreError, Settings, glob_matcher
from indexer.languages import EXTENSIONS, FILENAMES
from indexer.procs import rg_binary, run
from search.errors import QueryError
from search.query_shape import QueryShape
from search.retrievers import ResolvedScope
from search.types import Hit, Span

MAX_OUTPUT = 24 * 1024 * 1024
MAX_COUNT_PER_FILE = 200
BM25_K1 = 1.2
BM25_B = 0.75
AVG_CHUNK_LINES = 30.0
NAME_BOOST = 0.6  # a term in the definition's own name counts for more than a mention in its body
_PHRASE_POOL = cf.ThreadPoolExecutor(max_workers=4, thread_name_prefix="plait-rg-phrase")


class LineMatch(NamedTuple):  # a tuple: tens of thousands are made per query, and tuples are cheap
    path: str
    line: int
    text: str
    submatches: tuple[str, ...]


def parse_rg_json(lines: Sequence[bytes] | Iterator[bytes]) -> Iterator[LineMatch]:
    """Matches from ``rg --json`` output lines (paths and text may come base64-encoded)."""
    for raw in lines:
        if not raw.startswith(b'{"type":"match"'):
            continue
        try:
            data = json.loads(raw)["data"]
        except (ValueError, KeyError):
            continue
        path = rg_text(data["path"])
        path = path[2:] if path.startswith("./") else path
        subs = tuple(rg_text(s["match"]) for s in data.get("submatches", ()))
        yield LineMatch(path, int(data["line_number"]), rg_text(data["lines"]), subs)


def parse_rg_only_matching(stdout: bytes) -> list[LineMatch]:
    """Matches from ``rg --only-matching --null --line-number --with-filename`` output: one
    ``path NUL line:match`` per match, grouped into one :class:`LineMatch` per line (without its text)."""
    out: list[LineMatch] = []
    key: tuple[bytes, bytes] | None = None
    subs: list[str] = []
    for raw in stdout.split(b"\n"):
        path, sep, rest = raw.partition(b"\0")
        number, colon, match = rest.partition(b":")
        if not sep or not colon or not number.isdigit():
            continue
        if key != (path, number):
            if key is not None:
                out.append(_line_match(key, subs))
            key, subs = (path, number), []
        subs.append(match.decode("utf-8", "replace"))
    if key is not None:
        out.append(_line_match(key, subs))
    return out


def _line_match(key: tuple[bytes, bytes], subs: list[str]) -> LineMatch:
    path = key[0].decode("utf-8", "replace")
    return LineMatch(path[2:] if path.startswith("./") else path, int(key[1]), "", tuple(subs))


def rg_text(obj: Any) -> str:
    """The text of an ``rg --json`` data element (``{"text": ...}``, or base64 ``{"bytes": ...}`` for
    non-UTF-8 data); ``""`` for anything else."""
    if isinstance(obj, dict):
        if "text" in obj:
            return str(obj["text"])
        if "bytes" in obj:
            return base64.b64decode(obj["bytes"]).decode("utf-8", "replace")
    return ""


def language_globs(language: str) -> list[str]:
    exts = [f"*{ext}" for ext, lang in EXTENSIONS.items() if lang == language]
    names = [name for name, lang in FILENAMES.items() if lang == language]
    return exts + names


def rg_command(
    settings: Settings,
    patterns: Sequence[str],
    scope: ResolvedScope,
    *,
    fixed: bool,
    ignore_case: bool,
    extra: Sequence[str] = (),
    compact: bool = False,
    cap: bool = True,
) -> list[str]:
    """The full ``rg`` argv: flags via ripgrepy, then ``-e`` patterns, ``--`` and the paths.
    Output is ``--json``, or with ``compact`` only the matches (see :func:`parse_rg_only_matching`).
    ``cap`` stops reading a file after :data:`MAX_COUNT_PER_FILE` matching lines."""
    rg = ripgrepy.Ripgrepy("", ".", rg_path=rg_binary()).hidden().no_config()
    rg = rg.only_matching().null().line_number().with_filename().no_heading() if compact else rg.json()
    rg = rg.max_filesize(str(settings.max_file_bytes)).max_columns(2000)
    if cap:
        rg = rg.max_count(MAX_COUNT_PER_FILE)
    rg = rg.glob("!.git")
    if fixed:
        rg = rg.fixed_strings()
    rg = rg.ignore_case() if ignore_case else rg.smart_case()
    if settings.index_is_local:
        try:
            rel = Path(settings.index_dir).resolve().relative_to(settings.root)
            rg = rg.glob(f"!/{rel.as_posix()}")
        except ValueError:
            pass
    for pattern in settings.exclude:
        rg = rg.glob(f"!{pattern}")
    for pattern in settings.include:
        rg = rg.glob(pattern)
    for g in scope.globs:
        rg = rg.glob(g)
    if scope.language:
        for g in language_globs(scope.language):
            rg = rg.glob(g)
    argv = [*rg.command, "--no-require-git", *(["--color=never"] if compact else []), *extra]
    for p in patterns:
        argv += ["-e", p]
    argv.append("--")
    if scope.paths is not None:
        argv += list(scope.paths)
    elif scope.path:
        argv.append(scope.path)
    else:
        argv.append(".")
    return argv


def run_rg(settings: Settings, argv: list[str], *, timeout: float) -> tuple[list[LineMatch], bool]:
    """Run rg; returns (matches, truncated), read as ``--json`` or compact output, whichever ``argv``
    asks for. Exit 1 is "no match"; exit 2 with no output is an error."""
    res = run(argv, cwd=settings.root, timeout=timeout, max_output=MAX_OUTPUT)
    if res.timed_out:
        raise TimeoutError(f"ripgrep took longer than {timeout:.0f}s; narrow the query or scope")
    if res.returncode == 2 and not res.stdout:
        msg = res.stderr.splitlines()
        detail = " ".join(line.strip() for line in msg[:6] if line.strip()) or "ripgrep failed"
        if "regex" in res.stderr.lower() or "parse error" in res.stderr.lower():
            raise QueryError(f"invalid regex: {detail}; fix the pattern or search it as a literal.")
        if not any("No such file" in m or "os error" in m for m in msg):
            raise QueryError(f"ripgrep failed: {detail}")
    if "--json" not in argv:
        return [m for m in parse_rg_only_matching(res.stdout) if m.path], res.truncated
    return [m for m in parse_rg_json(res.stdout.splitlines()) if m.path], res.truncated


class SpanMapper:
    """Maps a (path, line) to the chunk that holds it, or to a line window for unindexed files."""

    def __init__(self, index: Index | None, window: int, paths: Iterable[str]) -> None:
        self.chunks = index.chunk_spans(paths) if index is not None else {}
        self.starts = {p: [c.start_line for c in spans] for p, spans in self.chunks.items()}
        self.window = window

    def span(self, path: str, line: int) -> tuple[Span, str | None, str | None, str | None]:
        key, sym, kind, lang = self.locate(path, line)
        return Span(*key), sym, kind, lang

    def locate(self, path: str, line: int) -> tuple[tuple[str, int, int], str | None, str | None, str | None]:
        """:meth:`span` as a plain ``(path, start, end)`` tuple, for loops over many matches."""
        spans = self.chunks.get(path)
        if spans:
            i = bisect.bisect_right(self.starts[path], line) - 1
            best = None
            # Overlapping windows: prefer the smallest chunk containing the line.
            for j in range(max(0, i - 3), min(len(spans), i + 1)):
                c = spans[j]
                if c.start_line <= line <= c.end_line and (
                    best is None or c.end_line - c.start_line < best.end_line - best.start_line
                ):
                    best = c
            if best is not None:
                return (path, best.start_line, best.end_line), best.symbol, best.kind, best.language
        start = (line - 1) // self.window * self.window + 1
        return (path, start, start + self.window - 1), None, None, None


class TextRetriever:
    name = "text"

    def __init__(self, settings: Settings, index: Index | None, *, timeout: float = 8.0) -> None:
        self.settings = settings
        self.index = index
        self.timeout = timeout

    def search(self, query: str, shape: QueryShape, scope: ResolvedScope, *, limit: int) -> list[Hit]:
        index = self.index if self.index is not None and self.index.exists() else None
        if shape.shape in ("literal", "regex"):
            assert shape.literal is not None
            argv = rg_command(
                self.settings, [shape.literal], scope, fixed=shape.shape == "literal", ignore_case=False
            )
            matches, _ = run_rg(self.settings, argv, timeout=self.timeout)
            hits = self._rank_counts(matches, self._mapper(index, matches), limit)
            return [Hit(h.span, h.score, h.symbol, h.kind, h.language, exact=True) for h in hits]
        terms = [t for t in shape.terms if t]
        phrase = " ".join(query.split())
        if not terms and len(phrase) < 3:
            return []
        matches = self._term_matches(terms, phrase, scope)
        n_files = index.snapshot().count("files") if index is not None else 0
        found = self._rank_terms(phrase.lower(), terms, matches, self._mapper(index, matches), limit, n_files)
        if index is None:
            return found
        try:
            ranked = bm25_hits(index, query, scope, limit)
        except IndexStoreError:
            return found  # an unreadable chunks table: ripgrep's ranking still answers
        return merge_live(index, ranked, found, limit) if ranked else found

    def _term_matches(self, terms: list[str], phrase: str, scope: ResolvedScope) -> list[LineMatch]:
        """Two searches at once: the terms, capped per file (a common word matches thousands of lines),
        and the whole query verbatim, uncapped, so that an occurrence late in a big file is seen."""
        verbatim = None
        if len(phrase) >= 3 and phrase.lower() not in terms:
            argv = rg_command(
                self.settings, [phrase], scope, fixed=True, ignore_case=True, compact=True, cap=False
            )
            verbatim = _PHRASE_POOL.submit(run_rg, self.settings, argv, timeout=self.timeout)
        matches: list[LineMatch] = []
        if terms:
            argv = rg_command(self.settings, terms, scope, fixed=True, ignore_case=True, compact=True)
            matches, _ = run_rg(self.settings, argv, timeout=self.timeout)
        if verbatim is not None:
            matches += verbatim.result()[0]
        return matches

    def _mapper(self, index: Index | None, matches: list[LineMatch]) -> SpanMapper:
        return SpanMapper(index, self.settings.chunks.window_lines, {m.path for m in matches})

    def _rank_counts(self, matches: list[LineMatch], mapper: SpanMapper, limit: int) -> list[Hit]:
        scores: dict[Span, float] = defaultdict(float)
        meta: dict[Span, tuple[str | None, str | None, str | None]] = {}
        for m in matches:
            span, sym, kind, lang = mapper.span(m.path, m.line)
            scores[span] += 1.0 + 0.1 * len(m.submatches)
            meta[span] = (sym, kind, lang)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [Hit(span, score, *meta[span]) for span, score in ranked]

    def _rank_terms(
        self,
        phrase: str,
        terms: list[str],
        matches: list[LineMatch],
        mapper: SpanMapper,
        limit: int,
        n_files: int,
    ) -> list[Hit]:
        """BM25 over chunk spans (tf from ripgrep's submatches, df per file), plus a boost for terms in the
        chunk's definition name and for a verbatim occurrence of the whole query."""
        keys = terms or [phrase]
        verbatim = phrase if phrase not in terms else None  # a one-term query has no phrase to find
        files_with: dict[str, set[str]] = {t: set() for t in keys}
        Key = tuple[str, int, int]
        tf: dict[Key, dict[str, int]] = {}
        meta: dict[Key, tuple[str | None, str | None, str | None]] = {}
        exact: set[Key] = set()
        found: dict[
            str, tuple[str, ...]
        ] = {}  # matched text → the terms it holds (a handful of distinct texts)
        for m in matches:
            span, sym, kind, lang = mapper.locate(m.path, m.line)
            counts = tf.get(span)
            if counts is None:
                counts = tf[span] = defaultdict(int)
                meta[span] = (sym, kind, lang)
            for sub in m.submatches:
                held = found.get(sub)
                if held is None:
                    low = sub.lower()
                    held = found[sub] = tuple(t for t in keys if t in low)
                    if low == verbatim:
                        found[sub] = held = (*held, "")  # "" marks the whole query
                for t in held:
                    if t:
                        files_with[t].add(m.path)
                        counts[t] += 1
                    else:
                        exact.add(span)
        n_files = max(n_files, len({m.path for m in matches}), 1)
        idf = {
            t: math.log(1 + (n_files - len(files_with[t]) + 0.5) / (len(files_with[t]) + 0.5)) for t in keys
        }
        total_idf = sum(idf.values()) or 1.0
        scored = []
        for span, counts in tf.items():
            if not counts:
                continue
            dl = span[2] - span[1] + 1
            norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / AVG_CHUNK_LINES)
            score = sum(idf[t] * c * (BM25_K1 + 1) / (c + norm) for t, c in counts.items())
            name = (meta[span][0] or "").rsplit(".", 1)[-1].lower()
            score += sum(idf[t] * NAME_BOOST for t in counts if t in name)
            if span in exact:
                score += sum(idf.values())
            scored.append((score, span, sum(idf[t] for t in counts) / total_idf))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [
            Hit(Span(*span), score, *meta[span], exact=span in exact, coverage=cov)
            for score, span, cov in scored[:limit]
        ]


def bm25_hits(index: Index, query: str, scope: ResolvedScope, limit: int) -> list[Hit]:
    """BM25 over the indexed chunks within ``scope`` (see :mod:`indexer.lexical`)."""
    lexical = index.lexical()
    allow = None
    if scope.kind != "ws" or scope.globs or scope.language:
        glob_ok = glob_matcher(scope.globs)

        def keep(path: str, language: str | None) -> bool:
            if scope.language and language != scope.language:
                return False
            return scope.allows(path) and (glob_ok is None or glob_ok(path))

        allow = lexical.file_mask(keep)
    return [
        Hit(
            Span(h.path, h.start_line, h.end_line), h.score, h.symbol, h.kind, h.language, coverage=h.coverage
        )
        for h in lexical.search(query, limit, allow=allow)
    ]


def merge_live(index: Index, ranked: list[Hit], found: list[Hit], limit: int) -> list[Hit]:
    """The BM25 ranking of indexed chunks, corrected by what ripgrep saw in the live files.

    Chunks holding the whole query verbatim come first. Files changed since the index was built (or
    not indexed at all) are ranked by ripgrep instead of by their stale chunks, interleaved by rank
    (at equal rank the hit that holds more of the query's term weight goes first).
    """
    manifest = index.manifest_for({h.span.path for h in found})
    stale = {h.span.path for h in found if index.is_stale(h.span.path, manifest)}
    verbatim = [h for h in found if h.exact]
    live = [h for h in found if h.span.path in stale and not h.exact]
    indexed = [h for h in ranked if h.span.path not in stale]
    woven = [  # rank by rank; at equal rank, the hit holding more of the query first
        h
        for pair in zip_longest(indexed, live)
        for h in sorted((h for h in pair if h is not None), key=lambda h: -h.coverage)
    ]
    out: list[Hit] = []
    seen: set[Span] = set()
    for h in verbatim + woven:
        if h.span not in seen:
            seen.add(h.span)
            out.append(h)
    return out[:limit]

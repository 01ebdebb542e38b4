"""``latency``: warm query latency per system, through the library and the MCP server; CLI cold start.

- **library**: each system answers every query of the set in-process after one untimed warm-up
  query (plait's engine is also ``warm()``-ed first, which loads the model and tables); systems are
  interleaved query by query, for ``passes`` passes. The repository is indexed as it is (docs not
  blanked), so an earlier index of it in the same work directory supplies every vector from cache.
- **mcp-stdio**: a real ``plait serve`` subprocess over stdio, driven by the ``mcp`` client; every
  query of the set through the ``search`` tool per mode, after one warm-up call per mode. Server
  start-up (spawn to initialised session) is reported as its own row.
- **cli-warm**: ``plait search --json`` as a fresh process per call while that ``plait serve`` runs
  (``cli_repeats`` per mode): the CLI forwards the search to the server's local endpoint
  (:mod:`search.frontends.remote`), so it includes interpreter start, the CLI's imports, the HTTP round
  trip and the warm server's search; a call that did not go through the server is an error.
- **cli-cold**: ``plait search --json --no-daemon`` as a fresh process per call (``repeats`` per mode),
  so it includes interpreter start, imports, opening the index and, for semantic modes, loading
  the model.

Percentiles are nearest-rank over the samples (p50 of 4 samples is the 2nd smallest).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import report
from benchmarks.progress import Ticker
from benchmarks.systems import System
from indexer import run
from models import PlaitError


class LatencyError(PlaitError):
    """A process under measurement failed (the CLI exited non-zero, the server did not answer)."""


def percentile(samples: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (``p`` in 0..100) of ``samples``; ``nan`` when there are none."""
    if not samples:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class LatencyRow:
    system: str
    path: str  # library | mcp-stdio | mcp-start | cli-cold
    samples_ms: list[float] = field(default_factory=list)

    @property
    def p50(self) -> float:
        return percentile(self.samples_ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.samples_ms, 95)

    @property
    def max(self) -> float:
        return max(self.samples_ms) if self.samples_ms else math.nan

    def as_dict(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "path": self.path,
            "n": len(self.samples_ms),
            "p50_ms": round(self.p50, 3),
            "p95_ms": round(self.p95, 3),
            "max_ms": round(self.max, 3),
            "samples_ms": [round(s, 3) for s in self.samples_ms],
        }


def time_systems(
    systems: Sequence[System], queries: Sequence[str], *, limit: int = 10, passes: int = 1
) -> list[LatencyRow]:
    """Warm in-process latency of each system over ``queries`` (one untimed warm-up query each).

    Systems are interleaved query by query (``q1`` on every system, then ``q2``, …), for ``passes``
    passes over the queries, so a machine that drifts (other load, CPU clocks, caches warming) affects
    every system alike and their ratios stay comparable."""
    rows = {system.name: LatencyRow(system.name, "library") for system in systems}
    if queries:
        for system in systems:
            system.search(queries[0], limit)
    ticker = Ticker("latency library", passes * len(queries) * len(systems))
    for _ in range(passes):
        for q in queries:
            for system in systems:
                ticker.tick()
                start = time.perf_counter()
                system.search(q, limit)
                rows[system.name].samples_ms.append((time.perf_counter() - start) * 1000)
    return list(rows.values())


def plait_command() -> list[str]:
    """How to start ``plait``: the console script beside this Python, else ``python -m search.frontends.cli``."""
    script = Path(sys.executable).parent / "plait"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "search.frontends.cli"]


def common_flags(index_dir: str, model: str) -> list[str]:
    return ["--index-dir", index_dir, "--model", model]


def time_cli_cold(
    root: Path,
    flags: Sequence[str],
    queries: Sequence[str],
    modes: Sequence[str],
    *,
    repeats: int = 3,
    timeout: float = 300.0,
) -> list[LatencyRow]:
    """Wall time of ``plait search`` as a fresh process, ``repeats`` times per mode."""
    rows = []
    ticker = Ticker("latency cli-cold", len(modes) * repeats)
    for mode in modes:
        row = LatencyRow(f"plait-{mode}", "cli-cold")
        for i in range(repeats):
            ticker.tick()
            q = queries[i % len(queries)]
            args = [*plait_command(), "search", "--root", str(root), "--mode", mode, "--json", "--no-daemon"]
            start = time.perf_counter()
            res = run([*args, *flags, "--", q], cwd=root, timeout=timeout)  # `--`: a query may start with -
            elapsed = (time.perf_counter() - start) * 1000
            if res.returncode not in (0, 1) or res.timed_out:  # 1: nothing found, as rg
                raise LatencyError(
                    f"`plait search --mode {mode}` failed (exit {res.returncode}): {res.stderr[-500:]}"
                )
            row.samples_ms.append(elapsed)
        rows.append(row)
    return rows


def time_cli_warm(
    root: Path,
    flags: Sequence[str],
    queries: Sequence[str],
    modes: Sequence[str],
    *,
    repeats: int = 5,
    timeout: float = 60.0,
) -> list[LatencyRow]:
    """Wall time of ``plait search`` as a fresh process that a running ``plait serve`` answers,
    ``repeats`` times per mode (one untimed call first). Raises LatencyError when a call was not
    answered by the server (the CLI says so on stderr with ``--verbose``)."""
    rows = []
    ticker = Ticker("latency cli-warm", len(modes) * repeats)
    for mode in modes:
        row = LatencyRow(f"plait-{mode}", "cli-warm")
        for i in range(repeats + 1):
            q = queries[i % len(queries)] if queries else "def "
            args = [*plait_command(), "search", "--root", str(root), "--mode", mode, "--json", "--verbose"]
            start = time.perf_counter()
            res = run([*args, *flags, "--", q], cwd=root, timeout=timeout)
            elapsed = (time.perf_counter() - start) * 1000
            if res.returncode not in (0, 1) or res.timed_out:
                raise LatencyError(
                    f"`plait search --mode {mode}` failed (exit {res.returncode}): {res.stderr[-500:]}"
                )
            if "searched through the running plait process" not in res.stderr:
                raise LatencyError(
                    f"`plait search --mode {mode}` did not reach the server: {res.stderr[-500:]}"
                )
            if i:  # the first call is a warm-up (page cache, the server's first request)
                ticker.tick()
                row.samples_ms.append(elapsed)
        rows.append(row)
    return rows


def time_cli_start(root: Path, *, repeats: int = 5, timeout: float = 60.0) -> list[LatencyRow]:
    """Wall time of ``plait --version``, ``plait --help`` and a text search of a tree with no index, each
    as a fresh process ``repeats`` times: interpreter start plus imports, what every CLI call pays."""
    import tempfile

    rows = []
    with tempfile.TemporaryDirectory(prefix="plait-bench-start-") as empty:
        runs = {
            "plait --version": ["--version"],
            "plait --help": ["--help"],
            "plait search --mode text (no index)": [
                "search", "def ", "--mode", "text", "--root", str(root), "--json", "--no-daemon",
                "--index-dir", empty,
            ],
        }  # fmt: skip
        ticker = Ticker("latency cli-start", len(runs) * repeats)
        for name, args in runs.items():
            row = LatencyRow(name, "cli-start")
            for _ in range(repeats):
                ticker.tick()
                start = time.perf_counter()
                res = run([*plait_command(), *args], cwd=root, timeout=timeout)
                row.samples_ms.append((time.perf_counter() - start) * 1000)
                if res.returncode not in (0, 1) or res.timed_out:
                    raise LatencyError(f"`{name}` failed (exit {res.returncode}): {res.stderr[-500:]}")
            rows.append(row)
    return rows


def time_mcp(
    root: Path,
    flags: Sequence[str],
    env: Mapping[str, str],
    queries: Sequence[str],
    modes: Sequence[str],
    *,
    log_path: Path,
    limit: int = 10,
    passes: int = 1,
    cli_repeats: int = 0,
    timeout: float = 120.0,
) -> list[LatencyRow]:
    """Warm latency of the ``search`` tool of a ``plait serve`` subprocess over stdio, per mode.
    Modes are interleaved query by query, for ``passes`` passes, as in :func:`time_systems`. Then,
    with ``cli_repeats``, ``plait search`` run as fresh processes that the running server answers."""
    import anyio

    async def measure() -> list[LatencyRow]:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        cmd = plait_command()
        params = StdioServerParameters(
            command=cmd[0], args=[*cmd[1:], "serve", "--root", str(root), *flags], env=dict(env), cwd=root
        )
        rows: list[LatencyRow] = []
        with log_path.open("w", encoding="utf-8") as errlog:
            start = time.perf_counter()
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                with anyio.fail_after(timeout):
                    await session.initialize()
                rows.append(LatencyRow("plait-serve", "mcp-start", [(time.perf_counter() - start) * 1000]))
                timed = {mode: LatencyRow(f"plait-{mode}", "mcp-stdio") for mode in modes}

                async def call(q: str, mode: str) -> float:
                    t = time.perf_counter()
                    with anyio.fail_after(timeout):
                        result = await session.call_tool("search", {"query": q, "mode": mode, "limit": limit})
                    if getattr(result, "is_error", False) or getattr(result, "isError", False):
                        raise LatencyError(f"the MCP search tool failed in mode {mode}: {result}")
                    return (time.perf_counter() - t) * 1000

                for mode in modes if queries else ():
                    await call(queries[0], mode)  # warm-up, untimed
                ticker = Ticker("latency mcp-stdio", passes * len(queries) * len(modes))
                for _ in range(passes):
                    for q in queries:
                        for mode in modes:
                            ticker.tick()
                            timed[mode].samples_ms.append(await call(q, mode))
                rows += timed.values()
                if cli_repeats:
                    rows += await anyio.to_thread.run_sync(
                        lambda: time_cli_warm(root, flags, queries, modes, repeats=cli_repeats)
                    )
        return rows

    try:
        return anyio.run(measure)
    except TimeoutError as exc:
        raise LatencyError(f"the MCP server did not answer within {timeout:.0f}s; see {log_path}") from exc


@dataclass
class LatencyReport:
    rows: list[LatencyRow]
    setup: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it was not measured

    def as_dict(self) -> dict[str, Any]:
        return {"setup": self.setup, "rows": [r.as_dict() for r in self.rows], "skipped": self.skipped}


def render(rep: LatencyReport, *, markdown: bool = False) -> str:
    rows: list[list[report.Cell]] = [
        [r.system, r.path, len(r.samples_ms), r.p50, r.p95, r.max] for r in rep.rows
    ]
    parts = [
        report.heading("Query latency (ms)", markdown=markdown),
        report.key_values(rep.setup, markdown=markdown),
        "",
        report.table(["system", "via", "n", "p50", "p95", "max"], rows, markdown=markdown),
    ]
    if rep.skipped:
        parts += [
            "",
            report.bullets([f"{k}: not measured ({v})" for k, v in rep.skipped.items()], markdown=markdown),
        ]
    return "\n".join(parts)

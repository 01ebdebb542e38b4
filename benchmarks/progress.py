"""Progress of a benchmark run on stderr (stdout carries the report): a line per phase, and for long
loops a line at most every two seconds, ``benchmarks: latency library 120/240 (50%) 14s``.

Through ``logging`` (logger ``benchmarks``), which ``python -m benchmarks`` sends to stderr; ``--quiet``
silences it. :class:`BuildProgress` is an ``indexer.Progress`` for the index builds of a run.
"""

from __future__ import annotations

import logging
import sys
import time

log = logging.getLogger("benchmarks")
EVERY = 2.0


def progress_to_stderr(*, quiet: bool) -> None:
    """Send the ``benchmarks`` logger's lines to the current ``sys.stderr`` (once per run)."""
    for old in [h for h in log.handlers if getattr(h, "plait_progress", False)]:
        log.removeHandler(old)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("benchmarks: %(message)s"))
    handler.plait_progress = True  # type: ignore[attr-defined]
    log.addHandler(handler)
    log.setLevel(logging.WARNING if quiet else logging.INFO)
    log.propagate = False


def phase(message: str) -> None:
    log.info("%s", message)


class Ticker:
    """Counts ``total`` steps of ``what``; logs when it starts, every :data:`EVERY` s, and at the end."""

    def __init__(self, what: str, total: int, *, every: float = EVERY) -> None:
        self.what = what
        self.total = total
        self.done = 0
        self.every = every
        self.began = time.monotonic()
        self.last = self.began
        log.info("%s 0/%d", what, total)

    def tick(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= self.every or 0 < self.total <= self.done:
            self.last = now
            share = f" ({100 * self.done // self.total}%)" if self.total else ""
            log.info("%s %d/%d%s %.0fs", self.what, self.done, self.total, share, now - self.began)


class BuildProgress:
    """``indexer.Progress`` for a benchmark's index builds: one :class:`Ticker` per phase."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.ticker: Ticker | None = None

    def start(self, phase: str, total: int) -> None:
        self.ticker = Ticker(f"{self.label}: {phase}", total)

    def advance(self, n: int = 1) -> None:
        if self.ticker is not None:
            self.ticker.tick(n)

    def set_total(self, total: int) -> None:
        if self.ticker is not None:
            self.ticker.total = total

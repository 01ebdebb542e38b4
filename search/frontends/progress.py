"""Progress of long work, for people: a rich bar on a terminal, one line every few seconds otherwise.

Both implement ``indexer.Progress`` (``start(phase, total)``, ``advance(n)``) plus ``stop()``. The
line printer writes to stderr (stdout carries results), at most every ``every`` seconds and at each
phase's start and end, so a log of ``plait index`` run by cron or CI shows that work goes on.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any


class RichProgress:
    """A rich progress bar on stderr (a terminal)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            transient=False, console=Console(stderr=True),
        )  # fmt: skip
        self.task: Any = None

    def start(self, phase: str, total: int) -> None:
        if self.task is None:
            self.bar.start()
        self.task = self.bar.add_task(phase, total=total or None)  # None: not known yet

    def advance(self, n: int = 1) -> None:
        if self.task is not None:
            self.bar.advance(self.task, n)

    def set_total(self, total: int) -> None:
        if self.task is not None:
            self.bar.update(self.task, total=total)

    def stop(self) -> None:
        if self.task is not None:
            self.bar.stop()


class LineProgress:
    """``plait: embedding 1,200/5,000 (24%) 12s`` on ``stream``, at most every ``every`` seconds."""

    def __init__(self, stream: IO[str] | None = None, *, every: float = 2.0, prefix: str = "plait: ") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.every = every
        self.prefix = prefix
        self.phase = ""
        self.total = 0
        self.done = 0
        self._began = time.monotonic()
        self._last = 0.0
        self._lock = threading.Lock()

    def start(self, phase: str, total: int) -> None:
        with self._lock:
            if self.phase and self.done < self.total:
                self._emit()
            self.phase, self.total, self.done = phase, total, 0
            self._began = time.monotonic()
            self._emit()

    def advance(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            now = time.monotonic()
            if now - self._last >= self.every or (self.total and self.done >= self.total):
                self._emit()

    def set_total(self, total: int) -> None:
        with self._lock:
            self.total = total

    def stop(self) -> None:
        pass

    def _emit(self) -> None:
        self._last = time.monotonic()
        took = self._last - self._began
        if self.total:
            count = f"{self.done:,}/{self.total:,} ({100 * self.done // self.total}%)"
        else:  # the total is not known yet (a first build still walking the tree)
            count = f"{self.done:,}"
        self.stream.write(f"{self.prefix}{self.phase} {count} {took:.0f}s\n")
        self.stream.flush()


def for_stream(*, quiet: bool = False) -> RichProgress | LineProgress | None:
    """The progress reporter for stderr: a bar on a terminal, lines otherwise, none when ``quiet``."""
    if quiet:
        return None
    return RichProgress() if sys.stderr.isatty() else LineProgress()

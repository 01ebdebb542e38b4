"""Background index work of the server: index jobs with their progress, and reindexing after writes.

Each job runs ``Index.build`` in a daemon thread of its own; its phase and counts are what
``index_status`` and the search notes report, and what ``reindex(wait=true)`` sends as MCP progress.
A job that builds an index with no vectors yet embeds the fast tier first (seconds: searches rank
with vectors at once) and then the full tier behind it in a second, incremental build; an index
that has only the fast tier (what ``plait index`` builds for a new index) gets the full tier at start,
in one incremental build.
The :class:`Reindexer` coalesces the files the write and edit tools report, per root, and reindexes
them so the next search sees the change. No exception ends either thread: a failed build is logged
and recorded on its job.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from indexer import IndexState, IndexStatus
from models import PlaitError
from search.frontends.server.served import Workspace

log = logging.getLogger(__name__)

REINDEX_WAIT_SECONDS = 60.0


class Reindexer:
    """Reindexes changed files in the background, coalescing bursts of writes per root."""

    def __init__(self, workspaces: dict[Path, Workspace]) -> None:
        self.workspaces = workspaces
        self._pending: dict[Path, set[str]] = {}
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None
        self.builds = 0
        self.failures = 0  # unexpected failures survived
        self.last_error: str | None = None

    def schedule(self, root: Path, relpath: str) -> None:
        with self._cond:
            self._pending.setdefault(root, set()).add(relpath)
            if self._thread is None or not self._thread.is_alive():  # started again if it ever died
                self._thread = threading.Thread(target=self._run, name="plait-reindex", daemon=True)
                self._thread.start()
            self._cond.notify()

    def idle(self) -> bool:
        with self._cond:
            return not self._pending

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                batch, self._pending = self._pending, {}
            for root, paths in batch.items():
                self._build(self.workspaces[root], sorted(paths))

    def _build(self, ws: Workspace, paths: list[str]) -> None:
        try:
            if not ws.index.exists():
                return  # no index yet: nothing to keep fresh, and a partial one would mislead
            ws.index.build(paths=paths, vectors=True, wait=REINDEX_WAIT_SECONDS)
            self.builds += 1
        except PlaitError as exc:
            self.last_error = str(exc)
            log.warning("reindexing %d file(s) of %s failed: %s", len(paths), ws.root, exc)
        except Exception as exc:  # top of the thread's loop: log it and keep serving later writes
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.failures += 1
            log.exception("reindexing %d file(s) of %s failed", len(paths), ws.root)


class JobView(Protocol):
    """What a description of an index job reads: a live :class:`IndexJob` or its snapshot."""

    reason: str
    state: str
    phase: str
    done: int
    total: int
    started: float
    finished: float | None
    error: str | None


def describe_job(job: JobView, *, now: float | None = None) -> str:
    """One line on ``job``; with ``now``, a running job also says how long it has run."""
    if job.state == "running":
        counts = f" {job.done:,}/{job.total:,}" if job.total else f" {job.done:,}" if job.done else ""
        so_far = f", {now - job.started:.0f}s so far" if now is not None else ""
        return f"indexing ({job.reason}): {job.phase}{counts}{so_far}"
    if job.state == "failed":
        return f"indexing failed: {job.error}"
    took = (job.finished or job.started) - job.started
    return f"indexed ({job.reason}) in {took:.1f}s"


@dataclass
class IndexJob:
    """One background build of a root's index, as ``index_status`` and ``reindex`` report it."""

    root: str
    reason: str  # missing | stale | reindex | schema_mismatch | corrupt
    scope: str = "root"
    state: str = "running"  # running | done | failed
    phase: str = "starting"
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.time)
    finished: float | None = None
    error: str | None = None
    report: dict[str, Any] | None = None

    def describe(self) -> str:
        return describe_job(self, now=time.time())

    def as_dict(self) -> dict[str, Any]:
        return {
            "root": self.root, "reason": self.reason, "scope": self.scope, "state": self.state,
            "phase": self.phase, "done": self.done, "total": self.total, "started": self.started,
            "finished": self.finished, "error": self.error, "report": self.report,
        }  # fmt: skip


class _JobProgress:
    """``indexer.Progress`` that records a job's phase and counts and wakes the waiters."""

    def __init__(self, job: IndexJob, cond: threading.Condition) -> None:
        self.job = job
        self.cond = cond

    def start(self, phase: str, total: int) -> None:
        with self.cond:
            self.job.phase, self.job.total, self.job.done = phase, total, 0
            self.cond.notify_all()

    def advance(self, n: int = 1) -> None:
        with self.cond:
            self.job.done += n
            self.cond.notify_all()

    def set_total(self, total: int) -> None:
        with self.cond:
            self.job.total = total
            self.cond.notify_all()


class IndexJobs:
    """Background builds, at most one per root at a time; a thread per running build."""

    def __init__(self, workspaces: dict[Path, Workspace]) -> None:
        self.workspaces = workspaces
        self.jobs: dict[Path, IndexJob] = {}
        self.cond = threading.Condition()
        self.closed = False

    def running(self, root: Path) -> IndexJob | None:
        with self.cond:
            job = self.jobs.get(root)
            return job if job is not None and job.state == "running" else None

    def read(self, jobs: Sequence[IndexJob]) -> list[dict[str, Any]]:
        """``jobs`` as dicts, each job's state, report and error from one moment (they are set together
        under this lock when a build ends)."""
        with self.cond:
            return [j.as_dict() for j in jobs]

    def start(
        self,
        root: Path,
        *,
        reason: str,
        full: bool = False,
        vectors: bool = True,
        paths: list[str] | None = None,
        scope: str = "root",
    ) -> tuple[IndexJob, bool]:
        """Start a build of ``root`` unless one runs; returns (the job, whether it was started now)."""
        with self.cond:
            job = self.jobs.get(root)
            if job is not None and job.state == "running":
                return job, False
            job = IndexJob(str(root), reason, scope)
            self.jobs[root] = job
        ws = self.workspaces[root]
        thread = threading.Thread(
            target=self._run, args=(ws, job, full, vectors, paths), name="plait-index", daemon=True
        )
        thread.start()
        return job, True

    def _run(self, ws: Workspace, job: IndexJob, full: bool, vectors: bool, paths: list[str] | None) -> None:
        progress = _JobProgress(job, self.cond)
        try:
            # A first build embeds the fast tier (seconds), so searches rank with vectors at once,
            # then the full tier in a second, incremental build (nothing is parsed again); searches
            # switch to the full tier once it covers every chunk.
            first = vectors and paths is None and ws.index.unembedded()
            report = ws.index.build(
                full=full,
                vectors=vectors,
                paths=paths,
                progress=progress,
                wait=REINDEX_WAIT_SECONDS,
                tier="fast" if first else "full",
            )
            if first and not self.closed:
                report.add_vectors(ws.index.build(vectors=True, progress=progress, wait=REINDEX_WAIT_SECONDS))
            outcome, error, data = "done", None, report.as_dict()
        except PlaitError as exc:
            outcome, error, data = "failed", str(exc), None
        except Exception as exc:  # top of a thread: report it on the job, never kill the server
            log.warning("indexing %s failed: %s", ws.root, exc, exc_info=True)
            outcome, error, data = "failed", f"{type(exc).__name__}: {exc}", None
        with self.cond:
            job.state, job.error, job.report = outcome, error, data
            job.phase = outcome
            job.finished = time.time()
            self.cond.notify_all()
        if error is not None:
            log.warning("indexing %s failed: %s", ws.root, error)

    def wait(
        self,
        jobs: Sequence[IndexJob],
        timeout: float,
        on_change: Callable[[], None] | None = None,
        every: float = 0.5,
    ) -> bool:
        """Wait until ``jobs`` are finished or ``timeout`` passes, calling ``on_change`` as they advance;
        returns whether all finished."""
        deadline = time.monotonic() + timeout
        while True:
            with self.cond:
                if all(j.state != "running" for j in jobs) or self.closed:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.cond.wait(min(every, left))
            if on_change is not None:
                on_change()
        return all(j.state != "running" for j in jobs)

    def close(self) -> None:
        with self.cond:
            self.closed = True
            self.cond.notify_all()


def needs_build(status: IndexStatus) -> str | None:
    """Why an index should be built now (its state), or ``None`` when it is fresh."""
    if status.state == IndexState.FRESH:
        return None
    return status.state.value


def needs_upgrade(status: IndexStatus) -> str | None:
    """Why a fresh index should be built again for its vectors: it has another tier's (the fast one,
    what ``plait index`` builds for a new index) but not every chunk's full-tier vector. An index built
    without vectors at all was asked for that way and is left so."""
    if status.state != IndexState.FRESH or not status.chunks:
        return None
    full = status.tiers.get("full")
    if full is not None and full.get("complete"):
        return None
    others = any(t != "full" and d.get("complete") for t, d in status.tiers.items())
    return "full tier incomplete" if others else None

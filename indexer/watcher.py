"""``Watcher``: keeps one workspace's index fresh, one debounced batch at a time.

The contract (events, batches, startup, coexistence, what readers see, stopping) is in
:mod:`indexer.daemon`, which also holds the entry points that run a watcher.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from indexer.build import BuildReport
from indexer.config import Settings
from indexer.daemon_state import write_watcher_state
from indexer.errors import IndexLockedError
from indexer.index import Index
from indexer.lock import PidLock, lock_path
from indexer.watch_events import Batch, EventFilter
from models import PlaitError

log = logging.getLogger("indexer.daemon")  # one log for the daemon and its entry points

MAX_BACKOFF = 300.0
UPGRADE_SLICE = 256  # chunks the background tier upgrade embeds per writer-lock hold (seconds, not minutes)
MAX_DEGRADED_PAUSE = 30.0  # while file events fail, a whole-workspace check at least this often


class WatcherRunningError(PlaitError):
    """Another watcher already keeps this index fresh."""

    def __init__(self, location: str, holder: str) -> None:
        super().__init__(
            f"a watcher ({holder}) already keeps the index at {location} fresh; "
            "stop it first, or use that one (`plait status` shows it)."
        )


class WatcherFailedError(PlaitError):
    """Watching the file system failed (the root vanished, the backend broke)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the watcher stopped: {detail}; check that the root still exists, then restart it.")


@dataclass(frozen=True, slots=True)
class WatchOptions:
    quiet_ms: int = 300  # a batch closes after this long without a new event ...
    max_batch_ms: int = 2000  # ... or this long after its first event
    lock_wait: float = 1.0  # seconds each attempt waits for another writer's lock (new events merge between)
    full_check_threshold: int = 5000  # more files than this: one whole-workspace incremental check
    force_polling: bool = False  # poll instead of inotify/FSEvents (network file systems)
    poll_delay_ms: int = 500


class _StopFlag:
    """A stop flag that a signal handler may set (no locks, unlike ``threading.Event``)."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


class Watcher:
    """Keeps one workspace's index fresh. ``run()`` blocks until ``stop()``; see the module docstring."""

    def __init__(
        self, settings: Settings, *, vectors: bool = True, options: WatchOptions | None = None
    ) -> None:
        self.settings = settings
        self.vectors = vectors
        self.options = options or WatchOptions()
        self.root = settings.root.resolve()
        self._events = EventFilter(
            settings, quiet=self.options.quiet_ms / 1000, window=self.options.max_batch_ms / 1000
        )
        self._flag = _StopFlag()
        self._cv = threading.Condition()
        self._incoming = Batch()
        self._collector_done = False
        self._lock = PidLock(_watcher_lock_path(settings.index_dir))
        self._upgraded = False  # the full tier was complete after the last batch
        self.error: BaseException | None = None
        self.watch_errors = 0  # backend failures survived (reopened each time)
        self.restarts = 0  # times the whole watcher failed and was started again
        self.stop_requested = False
        self.state: dict[str, Any] = {
            "pid": os.getpid(),
            "root": str(self.root),
            "index_dir": settings.index_dir,
            "vectors": vectors,
            "started": time.time(),
            "running": True,
            "phase": "starting",
            "batches": 0,
            "last_batch": None,
            "lag": None,
            "queue": 0,
            "last_error": None,
        }

    # -- lifecycle ------------------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the events of a failed run (the next run starts with a whole-workspace check)."""
        with self._cv:
            self._incoming = Batch()
            self._collector_done = False
            if not self.stop_requested:
                self._flag = _StopFlag()

    def claim(self) -> None:
        """Take the one-watcher-per-index lock (WatcherRunningError if another watcher holds it)."""
        holder = self._lock.acquire()
        if holder is not None:
            raise WatcherRunningError(self.settings.index_dir, holder)

    def release(self) -> None:
        self._lock.release()

    def request_stop(self) -> None:
        """Ask ``run()`` to return after the current batch; safe to call from a signal handler."""
        self.stop_requested = True
        self._flag.set()

    def stop(self) -> None:
        """Like :meth:`request_stop`, and wakes the loop at once (not for signal handlers)."""
        self.stop_requested = True
        self._halt()

    def _halt(self) -> None:
        """End this run (its collector too) without asking the restart loop to give up."""
        self._flag.set()
        with self._cv:
            self._cv.notify_all()

    @property
    def stopping(self) -> bool:
        return self._flag.is_set()

    def run(self) -> None:
        """Check the workspace against the index, then index changes until stopped."""
        self.claim()
        try:
            notify = self._open_notify()
        except BaseException:
            self.release()
            raise
        collector = threading.Thread(
            target=self._collect, args=(notify,), name="plait-watch-events", daemon=True
        )
        collector.start()
        log.info("watching %s (index %s)", self.root, self.settings.index_dir)
        try:
            pending = Batch(full=True, reason="startup check", first_event=time.time())
            backoff = 0.0
            while not self.stopping:
                if not pending:
                    pending = self._take(block=not self._upgrade_step())
                    continue
                outcome = self._process(pending)
                if outcome == "done":
                    pending, backoff = Batch(), 0.0
                    if self.stopping:
                        log.info("stop requested during the batch: finished it first")
                    continue
                if outcome == "failed":  # back off: 1 s, 2 s, 4 s ... at most MAX_BACKOFF
                    backoff = min(MAX_BACKOFF, max(1.0, backoff * 2))
                    self._idle(backoff)
                pending.merge(self._take(block=False))  # locked: build() already waited lock_wait
        finally:
            self._halt()
            collector.join(timeout=5.0)
            with contextlib.suppress(Exception):
                notify.close()
            self.state.update(running=False, phase="stopped", queue=0)
            self._write_state()
            self.release()
            log.info("watcher stopped")

    # -- events ---------------------------------------------------------------------------------
    def _open_notify(self) -> Any:
        from watchfiles._rust_notify import RustNotify  # watchfiles.watch() minus its generator

        opts = self.options
        try:
            return RustNotify([str(self.root)], False, opts.force_polling, opts.poll_delay_ms, True, True)
        except (OSError, RuntimeError) as exc:  # e.g. the inotify watch limit (WatchfilesRustInternalError)
            log.warning(
                "file notifications unavailable (%s); polling every %d ms instead. On Linux, raise "
                "fs.inotify.max_user_watches to watch large trees without polling.", exc, opts.poll_delay_ms,
            )  # fmt: skip
            return RustNotify([str(self.root)], False, True, opts.poll_delay_ms, True, True)

    def _collect(self, notify: Any) -> None:
        """Collector thread: grouped raw events → filtered :class:`~indexer.watch_events.Batch` merged into ``_incoming``.

        It never gives up while the watcher runs: when the backend fails (a symlink loop in the tree,
        a directory that vanished under it, a permission error), the failure is logged and counted,
        the backend is opened again, and a whole-workspace check is queued so nothing changed in
        between is missed; while it cannot be opened, that check runs every ``poll_delay_ms`` · 10.
        """
        opts = self.options
        failures = 0  # in a row: a backend that fails at every poll (a symlink loop) is not reopened hot
        try:
            while not self.stopping:
                try:
                    raw = notify.watch(opts.max_batch_ms, opts.quiet_ms, 0, self._flag)
                    failures = 0
                except Exception as exc:  # the backend broke: report, reopen, keep indexing
                    failures += 1
                    notify = self._recover(notify, exc, failures)
                    continue
                if isinstance(raw, str):  # 'stop', 'signal' or 'timeout'
                    if raw == "stop":
                        break
                    continue
                try:
                    batch = self._events.filter(raw)
                except Exception as exc:  # one bad event must not end the collector
                    log.warning("dropping a batch of file events: %s; checking the workspace instead", exc)
                    batch = Batch(full=True, reason="events lost", first_event=time.time())
                if batch:
                    self._queue(batch)
        finally:
            with contextlib.suppress(Exception):
                notify.close()
            with self._cv:
                self._collector_done = True
                self._cv.notify_all()

    def _queue(self, batch: Batch) -> None:
        with self._cv:
            self._incoming.merge(batch)
            self.state["queue"] = len(self._incoming.paths)
            self._cv.notify_all()

    def _recover(self, notify: Any, exc: Exception, failures: int) -> Any:
        """Log a backend failure, queue a whole-workspace check, pause (longer after each failure in a
        row, at most :data:`MAX_DEGRADED_PAUSE`) and open the backend again, retrying while that fails.
        Returns the backend to use next. A backend that keeps failing (polling over a symlink loop)
        thus degrades to a whole-workspace check per pause: the index stays fresh, more slowly."""
        self.watch_errors += 1
        self.state["last_error"] = f"file watching failed: {exc}"
        log.warning("file watching failed (%s); checking the whole workspace and watching again", exc)
        with contextlib.suppress(Exception):
            notify.close()
        pause = min(MAX_DEGRADED_PAUSE, self.options.poll_delay_ms / 1000 * 2 ** (failures - 1))
        while not self.stopping:
            self._queue(Batch(full=True, reason="file watching restarted", first_event=time.time()))
            self._wait_stop(pause)
            try:
                return self._open_notify()
            except Exception as again:  # still failing: the checks keep the index fresh meanwhile
                log.warning("file watching still unavailable (%s); checking again in %.0f s", again, pause)
                pause = min(MAX_DEGRADED_PAUSE, pause * 2)
        return _Stopped()

    def _wait_stop(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        with self._cv:
            while not self.stopping and time.monotonic() < deadline:
                self._cv.wait(min(0.5, max(0.0, deadline - time.monotonic())))

    def _take(self, *, block: bool = True) -> Batch:
        """Everything queued so far (waiting for something when ``block``)."""
        with self._cv:
            if block:
                self._cv.wait_for(lambda: bool(self._incoming) or self.stopping or self._collector_done, 1.0)
            batch, self._incoming = self._incoming, Batch()
            self.state["queue"] = 0
        return batch

    def _idle(self, seconds: float) -> None:
        with self._cv:
            self._cv.wait_for(lambda: self.stopping, seconds)

    # -- batches --------------------------------------------------------------------------------
    def _process(self, batch: Batch) -> Literal["done", "locked", "failed"]:
        """Write one batch; "locked" or "failed" when it must be retried."""
        index = Index(self.settings)  # a fresh store per batch: never a stale table handle
        paths: list[str] | None = None
        if not batch.full:
            paths = self._events.expand(batch.paths, index.manifest, self.options.full_check_threshold)
            if not paths:
                return "done"
            if len(paths) > self.options.full_check_threshold:
                paths = None
        what = (batch.reason or "whole workspace") if paths is None else _describe(paths)
        # Another writer holds the lock: each attempt waits lock_wait for it, and the batch stays
        # "waiting for the writer lock" (logged once) until one gets it, not "indexing" between tries.
        waiting = self.state["phase"] == "waiting for the writer lock"
        if not waiting:
            log.info("indexing %s", what)
            self.state.update(phase="reconciling" if paths is None else "indexing")
            self._write_state()
        # An index with no vectors yet gets the fast tier first (seconds); _upgrade_step fills in the
        # full tier behind it between batches.
        first = self.vectors and paths is None and index.unembedded()
        try:
            report = index.build(
                vectors=self.vectors,
                paths=paths,
                wait=self.options.lock_wait,
                tier="fast" if first else "full",
            )
        except IndexLockedError as exc:
            if not waiting:
                log.warning("%s; the batch (%s) waits for it", exc, what)
            self.state.update(phase="waiting for the writer lock")
            self._write_state()
            return "locked"
        except PlaitError as exc:
            return self._failed(what, exc)
        except Exception as exc:  # top of the daemon loop: one bad batch must not end the watcher
            return self._failed(what, exc, trace=True)
        self._done(batch, paths, report)
        return "done"

    def _upgrade_step(self) -> bool:
        """Background tier upgrade, between batches: embed one slice of the chunks the full
        (transformer) tier lacks; searches switch to it once it is complete. True when it did work."""
        if not self.vectors or self._upgraded or self.stopping:
            return False
        try:
            left = Index(self.settings).upgrade("full", limit=UPGRADE_SLICE, wait=self.options.lock_wait)
        except IndexLockedError:
            return False  # another writer: try again after the next wait
        except Exception as exc:  # a failed upgrade must not end the watcher; retried after the next batch
            log.error("upgrading the vectors to the full tier failed: %s", exc, exc_info=True)
            self._upgraded = True
            return False
        self._upgraded = left == 0
        self.state["full_tier_missing"] = left
        self._write_state()
        return True

    def _failed(self, what: str, exc: BaseException, *, trace: bool = False) -> Literal["failed"]:
        log.error("indexing %s failed: %s; retrying", what, exc, exc_info=trace)
        self.state.update(phase="retrying", last_error=f"{time.strftime('%H:%M:%S')} {exc}")
        self._write_state()
        return "failed"

    def _done(self, batch: Batch, paths: list[str] | None, report: BuildReport) -> None:
        self._upgraded = False  # the batch may have left chunks the full tier lacks
        finished = time.time()
        lag = max(0.0, finished - batch.first_event) if batch.first_event != float("inf") else None
        self.state["batches"] += 1
        self.state.update(
            phase="watching",
            lag=None if lag is None else round(lag, 3),
            last_error=None,
            last_batch={
                "kind": "check" if paths is None else "files",
                "reason": batch.reason or None,
                "files": report.changed + report.deleted,
                "checked": len(paths) if paths is not None else report.files,
                "changed": report.changed,
                "deleted": report.deleted,
                "chunks": report.chunks,
                "embedded": report.embedded,
                "from_cache": report.from_cache,
                "seconds": round(report.seconds, 3),
                "finished": finished,
                "lag": None if lag is None else round(lag, 3),
                "errors": report.errors[:5],
            },
        )
        self._write_state()
        changed = report.changed + report.deleted
        if paths is None or changed or report.embedded:
            log.info(
                "indexed %s: %d changed, %d deleted, %d chunks written, %d embedded, %d from cache, "
                "in %.2fs (lag %s)",
                _describe(paths) if paths is not None else (batch.reason or "whole workspace"),
                report.changed, report.deleted, report.chunks, report.embedded, report.from_cache,
                report.seconds, "-" if lag is None else f"{lag:.2f}s",
            )  # fmt: skip
        for err in report.errors[:5]:
            log.warning("%s", err)

    def _write_state(self) -> None:
        try:
            write_watcher_state(self.settings, self.state)
        except OSError as exc:
            log.warning("cannot write the watcher state: %s", exc)


class _Stopped:
    """The backend stand-in once the watcher stops while the real one could not be reopened."""

    def watch(self, *_args: Any) -> str:
        return "stop"

    def close(self) -> None:
        pass


def _watcher_lock_path(index_dir: str) -> Path:
    if "://" not in index_dir:
        return Path(index_dir) / "watcher.lock"
    return lock_path(index_dir).with_suffix(".watcher.lock")


def _describe(paths: list[str]) -> str:
    head = ", ".join(paths[:3])
    return f"{len(paths)} file(s) ({head}{', ...' if len(paths) > 3 else ''})"

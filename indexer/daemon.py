"""The reindex daemon: watch a workspace and keep its index fresh, one debounced batch at a time.

``plait watch`` runs :func:`run_watch` in the foreground; ``plait serve --watch`` runs the same
:class:`Watcher` in a thread through :func:`start_background_watcher`.

Contract:

* **Events.** File events come from ``watchfiles`` (its Rust ``notify`` backend), started *before*
  the startup check so nothing saved meanwhile is missed. Paths in ``.git`` (and the other VCS
  dirs), in the index directory, or ignored by the indexer's rules (:meth:`Walker.is_ignored`) are
  dropped as they arrive and never wake the indexer. A change to a ``.gitignore``, ``.ignore`` or
  ``.git/info/exclude`` turns the next batch into a whole-workspace check.
* **Batches.** The backend groups events until ``quiet_ms`` pass without a new one, or at most
  ``max_batch_ms``; events that arrive while a batch is being written are merged into the next
  one, so a ``git checkout`` or a formatter run costs one or two batches. A batch re-indexes only
  its files through ``Index.build(paths=...)`` (a new directory is walked; a vanished one deletes
  the indexed files under it); a batch of more than ``full_check_threshold`` files runs the
  incremental whole-workspace check instead. Embeddings of content seen before come from the
  embedding cache.
* **Startup.** The first batch is always a whole-workspace incremental check: what changed while
  no watcher ran is indexed before the watcher settles.
* **Coexistence.** The writer lock is held only while a batch is written (``Index.build``), so
  ``plait index`` run by hand waits (``--wait``) or says who holds it; when another writer holds
  it, the daemon keeps the batch, merges new events into it, and retries. One watcher per index
  (``watcher.lock``): a second one raises :class:`WatcherRunningError`.
* **What readers see.** Each LanceDB commit is atomic per table and readers never take a lock.
  Between the commits of one batch a reader can see, for the files of that batch only: no symbols
  (between the symbols delete and add, milliseconds), no chunks (likewise), the previous vectors
  (until the vectors phase), then briefly no vectors for their changed chunks (between the orphan
  delete and the add, which waits on the model). Files outside the batch are never affected, and
  text search reads the live files. See ``indexer/build.py`` for the commit order.
* **Stopping.** ``stop()`` (or SIGINT/SIGTERM in :func:`run_watch`) lets the current batch finish,
  then returns; events not yet written are left to the next start's check. A second signal aborts
  the batch, which is as safe as SIGKILL: the build's commit order lets the next start complete it.
* **Tier upgrade.** Between batches, with nothing queued, the watcher embeds the chunks the full
  (transformer) tier lacks, :data:`UPGRADE_SLICE` at a time under the writer lock, so a new batch
  waits one slice at most; searches rank with the fast tier until the full one is complete.
* **State.** ``watcher.json`` in the index directory (see :mod:`indexer.daemon_state`) says whether
  a watcher runs, its phase, last batch, lag (first event of a batch to its commit) and queue.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Literal

from indexer.build import BuildReport
from indexer.config import Settings
from indexer.daemon_state import write_watcher_state
from indexer.errors import IndexLockedError
from indexer.index import Index
from indexer.lock import PidLock, lock_path
from indexer.workspace import ALWAYS_SKIP_DIRS, Walker
from models.errors import PlaitError

log = logging.getLogger(__name__)

RULE_FILES = frozenset({".gitignore", ".ignore"})
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


@dataclass(slots=True)
class _Batch:
    """Changes gathered for one build: workspace-relative paths, or the whole workspace."""

    paths: set[str] = field(default_factory=set)
    full: bool = False
    reason: str = ""
    first_event: float = float("inf")  # wall-clock estimate of the earliest change

    def __bool__(self) -> bool:
        return self.full or bool(self.paths)

    def merge(self, other: _Batch) -> None:
        self.paths |= other.paths
        if other.full and not self.full:
            self.full, self.reason = True, other.reason
        self.first_event = min(self.first_event, other.first_event)


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
        self._root_prefix = str(self.root).rstrip(os.sep) + os.sep
        self._index_rel = _relative_inside(self.root, settings.index_dir) if settings.index_is_local else None
        self._walker = Walker(settings)
        self._flag = _StopFlag()
        self._cv = threading.Condition()
        self._incoming = _Batch()
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
            self._incoming = _Batch()
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
            pending = _Batch(full=True, reason="startup check", first_event=time.time())
            backoff = 0.0
            while not self.stopping:
                if not pending:
                    pending = self._take(block=not self._upgrade_step())
                    continue
                outcome = self._process(pending)
                if outcome == "done":
                    pending, backoff = _Batch(), 0.0
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
        """Collector thread: grouped raw events → filtered ``_Batch`` merged into ``_incoming``.

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
                    batch = self._filter(raw)
                except Exception as exc:  # one bad event must not end the collector
                    log.warning("dropping a batch of file events: %s; checking the workspace instead", exc)
                    batch = _Batch(full=True, reason="events lost", first_event=time.time())
                if batch:
                    self._queue(batch)
        finally:
            with contextlib.suppress(Exception):
                notify.close()
            with self._cv:
                self._collector_done = True
                self._cv.notify_all()

    def _queue(self, batch: _Batch) -> None:
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
            self._queue(_Batch(full=True, reason="file watching restarted", first_event=time.time()))
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

    def _filter(self, raw: Iterable[tuple[int, str]]) -> _Batch:
        now = time.time()
        batch = _Batch()
        verdicts: dict[str, bool] = {}
        canonical: dict[str, str | None] = {}
        for _change, abspath in raw:
            if not abspath.startswith(self._root_prefix):
                continue
            rel = abspath[len(self._root_prefix) :].replace(os.sep, "/")
            rel = self._canonical(rel, canonical)  # type: ignore[assignment]
            if rel is None:
                continue  # reached through a symlink that leads out of the root
            parts = rel.split("/")
            if self._index_rel is not None and (
                rel == self._index_rel or rel.startswith(self._index_rel + "/")
            ):
                continue
            if rel == ".git/info/exclude":
                self._walker = Walker(self.settings)
                batch.full, batch.reason = True, "ignore rules changed"
                continue
            if any(p in ALWAYS_SKIP_DIRS for p in parts):
                continue
            if parts[-1] in RULE_FILES:
                batch.full, batch.reason = True, "ignore rules changed"
            if self._ignored(rel, os.path.isdir(abspath), verdicts):
                continue
            batch.paths.add(rel)
        if batch:
            opts = self.options
            batch.first_event = _first_event(
                self.root, batch.paths, now, opts.quiet_ms / 1000, opts.max_batch_ms / 1000
            )
        return batch

    def _canonical(self, rel: str, memo: dict[str, str | None]) -> str | None:
        """The event path without symlinks in its directories: the backend reports a directory that
        is reachable twice (``src/self -> .``) under either name, and plait indexes each file under its
        one real path. ``None`` when the real directory lies outside the root. Only a hint: the
        build opens the path again without following any symlink."""
        parent, sep, name = rel.rpartition("/")
        if not sep:
            return rel
        real = memo.get(parent, "")
        if real == "":
            resolved = Path(os.path.realpath(self.root / parent))
            real = memo[parent] = (
                resolved.relative_to(self.root).as_posix() if resolved.is_relative_to(self.root) else None
            )
        if real is None:
            return None
        return name if real == "." else f"{real}/{name}"

    def _ignored(self, rel: str, is_dir: bool, memo: dict[str, bool]) -> bool:
        """``Walker.is_ignored`` with the verdicts of ancestor directories memoised per event group."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if parent not in memo:
                memo[parent] = self._walker.is_ignored(parent, is_dir=True)
            if memo[parent]:
                return True
        return self._walker.is_ignored(rel, is_dir=is_dir)

    def _take(self, *, block: bool = True) -> _Batch:
        """Everything queued so far (waiting for something when ``block``)."""
        with self._cv:
            if block:
                self._cv.wait_for(lambda: bool(self._incoming) or self.stopping or self._collector_done, 1.0)
            batch, self._incoming = self._incoming, _Batch()
            self.state["queue"] = 0
        return batch

    def _idle(self, seconds: float) -> None:
        with self._cv:
            self._cv.wait_for(lambda: self.stopping, seconds)

    # -- batches --------------------------------------------------------------------------------
    def _process(self, batch: _Batch) -> Literal["done", "locked", "failed"]:
        """Write one batch; "locked" or "failed" when it must be retried."""
        index = Index(self.settings)  # a fresh store per batch: never a stale table handle
        paths: list[str] | None = None
        if not batch.full:
            paths = self._expand(batch.paths, index)
            if not paths:
                return "done"
            if len(paths) > self.options.full_check_threshold:
                paths = None
        what = (batch.reason or "whole workspace") if paths is None else _describe(paths)
        if self.state["phase"] != "waiting for the writer lock":
            log.info("indexing %s", what)
        self.state.update(phase="reconciling" if paths is None else "indexing")
        self._write_state()
        try:
            report = index.build(vectors=self.vectors, paths=paths, wait=self.options.lock_wait)
        except IndexLockedError as exc:
            if self.state["phase"] != "waiting for the writer lock":
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

    def _done(self, batch: _Batch, paths: list[str] | None, report: BuildReport) -> None:
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

    def _expand(self, rels: set[str], index: Index) -> list[str]:
        """Files to check: new directories walked, vanished ones replaced by their indexed files."""
        out: set[str] = set()
        manifest: list[str] | None = None
        for rel in rels:
            path = self.root / rel
            if path.is_dir() and not path.is_symlink():
                out.update(self._walk(rel))
            elif path.exists() or path.is_symlink():
                out.add(rel)
            else:  # gone: an indexed file, or a directory whose indexed files are gone with it
                if manifest is None:
                    manifest = sorted(index.manifest())
                i = bisect.bisect_left(manifest, rel)
                if i < len(manifest) and manifest[i] == rel:
                    out.add(rel)
                out.update(_under(manifest, rel))
            if len(out) > self.options.full_check_threshold:
                break
        return sorted(out)

    def _walk(self, rel: str) -> Iterator[str]:
        memo: dict[str, bool] = {}
        for dirpath, dirnames, filenames in os.walk(self.root / rel):
            base = Path(dirpath).relative_to(self.root).as_posix()
            dirnames[:] = [
                d for d in dirnames
                if d not in ALWAYS_SKIP_DIRS and f"{base}/{d}" != self._index_rel
                and not self._ignored(f"{base}/{d}", True, memo)
            ]  # fmt: skip
            for name in filenames:
                yield f"{base}/{name}"

    def _write_state(self) -> None:
        try:
            write_watcher_state(self.settings, self.state)
        except OSError as exc:
            log.warning("cannot write the watcher state: %s", exc)


# -- entry points ---------------------------------------------------------------------------------
def run_watch(settings: Settings, *, verbose: bool = False, vectors: bool = True) -> int:
    """``plait watch``: run a :class:`Watcher` in the foreground until SIGINT/SIGTERM.

    The first signal lets the current batch finish (exit 0); a second one aborts it (exit 130; the
    next start completes it). Raises WatcherRunningError when another watcher holds this index.
    """
    if verbose:
        log.setLevel(logging.INFO)
    watcher = Watcher(settings, vectors=vectors)
    watcher.claim()
    received: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        if len(received) > 1:
            raise KeyboardInterrupt
        watcher.request_stop()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        watcher.run()
    except KeyboardInterrupt:
        log.warning("stopped mid-batch; the next start completes it")
        return 130
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        watcher.release()
    if watcher.error is not None:
        raise WatcherFailedError(str(watcher.error)) from watcher.error
    if received:
        log.info("stopped by %s after the current batch", signal.Signals(received[0]).name)
    return 0


def start_background_watcher(
    settings: Settings, vectors: bool = True, options: WatchOptions | None = None
) -> Callable[[], None]:
    """Run a :class:`Watcher` in a daemon thread (``plait serve --watch``); returns its stop function.

    The stop function lets the current batch finish and joins the thread (at most ``timeout``
    seconds, default 60). Raises WatcherRunningError at once when another watcher holds the index.
    """
    watcher = Watcher(settings, vectors=vectors, options=options)
    watcher.claim()
    thread = threading.Thread(target=_run_logged, args=(watcher,), name=f"plait-watch {settings.root.name}")
    thread.daemon = True
    thread.start()

    def stop(timeout: float = 60.0) -> None:
        watcher.stop()
        thread.join(timeout)

    return stop


def _run_logged(watcher: Watcher) -> None:
    """Run the watcher; if it ever fails (any exception), log it and run it again after a pause that
    grows to :data:`MAX_BACKOFF`, until it is stopped. The server keeps serving throughout."""
    pause = 1.0
    while not watcher.stop_requested:
        try:
            watcher.claim()
            watcher.run()
        except WatcherRunningError as exc:  # another watcher keeps this index fresh: leave it to it
            log.warning("%s", exc)
            return
        except Exception:  # top of a thread: log, then watch again
            log.exception("the watcher for %s failed; restarting it in %.0f s", watcher.root, pause)
            watcher.release()
            watcher.restarts += 1
            watcher.reset()
            watcher._wait_stop(pause)
            pause = min(MAX_BACKOFF, pause * 2)


class _Stopped:
    """The backend stand-in once the watcher stops while the real one could not be reopened."""

    def watch(self, *_args: Any) -> str:
        return "stop"

    def close(self) -> None:
        pass


# -- helpers --------------------------------------------------------------------------------------
def _watcher_lock_path(index_dir: str) -> Path:
    if "://" not in index_dir:
        return Path(index_dir) / "watcher.lock"
    return lock_path(index_dir).with_suffix(".watcher.lock")


def _relative_inside(root: Path, location: str) -> str | None:
    try:
        return Path(location).resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def _under(sorted_paths: list[str], rel: str) -> list[str]:
    prefix = rel.rstrip("/") + "/"
    start = bisect.bisect_left(sorted_paths, prefix)
    end = bisect.bisect_left(sorted_paths, prefix[:-1] + "0")  # "0" sorts right after "/"
    return sorted_paths[start:end]


def _first_event(root: Path, paths: set[str], seen: float, quiet: float, window: float) -> float:
    """When the earliest change of an event group happened.

    The backend returns a group ``quiet`` seconds after its last event and at most ``window`` seconds
    after its first; a file's mtime inside that window dates its change more closely (an older mtime,
    as after a rename or ``cp -p``, says nothing about the event and is ignored).
    """
    earliest = seen - quiet
    for rel in list(paths)[:20]:
        with contextlib.suppress(OSError):
            mtime = (root / rel).stat().st_mtime
            if seen - window <= mtime < earliest:
                earliest = mtime
    return earliest


def _describe(paths: list[str]) -> str:
    head = ", ".join(paths[:3])
    return f"{len(paths)} file(s) ({head}{', ...' if len(paths) > 3 else ''})"

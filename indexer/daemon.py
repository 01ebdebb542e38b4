"""The reindex daemon: watch a workspace and keep its index fresh, one debounced batch at a time.

``plait watch`` runs :func:`run_watch` in the foreground; ``plait serve --watch`` runs the same
:class:`~indexer.watcher.Watcher` in a thread through :func:`start_background_watcher`. The
watcher's file events are filtered by :mod:`indexer.watch_events`; its one-per-index lock is a
:class:`~indexer.lock.PidLock`. Both entry points and the watcher log to ``indexer.daemon``.

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
* **What readers see.** Readers never take a lock: they read the table versions the writer last
  *published* (:mod:`indexer.snapshot`), and one search reads one snapshot for all its retrievers
  (``Index.pinned``). A batch publishes once, at its end, so a search sees all of a batch or none
  of it, never a file whose symbols are gone and chunks not yet. A batch that embeds more than one
  vector batch (the startup check of a fresh clone) also publishes after its symbols half and after
  each vector batch: text and symbol search see its files first, semantic coverage grows as vectors
  land. Each tier-upgrade slice publishes too. ripgrep reads the live files, not the index.
* **Stopping.** ``stop()`` (or SIGINT/SIGTERM in :func:`run_watch`) lets the current batch finish,
  then returns; events not yet written are left to the next start's check. A second signal aborts
  the batch, which is as safe as SIGKILL: the build's commit order lets the next start complete it.
* **Tier upgrade.** A whole-workspace batch on an index with no vectors yet (a first start) embeds
  the fast tier only, in seconds. Between batches, with nothing queued, the watcher embeds the chunks the full
  (transformer) tier lacks, :data:`UPGRADE_SLICE` at a time under the writer lock, so a new batch
  waits one slice at most; searches rank with the fast tier until the full one is complete.
* **State.** ``watcher.json`` in the index directory (see :mod:`indexer.daemon_state`) says whether
  a watcher runs, its phase, last batch, lag (first event of a batch to its commit) and queue.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType

from indexer.config import Settings
from indexer.watcher import (
    MAX_BACKOFF,
    UPGRADE_SLICE,
    Watcher,
    WatcherFailedError,
    WatcherRunningError,
    WatchOptions,
)

__all__ = [
    "UPGRADE_SLICE",
    "WatchOptions",
    "Watcher",
    "WatcherFailedError",
    "WatcherRunningError",
    "run_watch",
    "start_background_watcher",
]

log = logging.getLogger(__name__)


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

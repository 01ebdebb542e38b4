"""The BM25 index's lifecycle beside :class:`~indexer.lexical.LexicalIndex`: one per published
chunks version, built on first use, kept in memory, and saved on disk for the next process.

For a local index each chunks version's BM25 index is saved as ``lexical/chunks-v<N>.bm25`` in the
index directory (:mod:`indexer.bm25_file`); only the newest file is kept. A fresh process maps that
file instead of re-tokenising every chunk, after checking the chunks' content hashes against it; a
process that finds only an older version's file takes it whole when it holds the same chunks (a
compaction made a new version of the same rows: the file is hard-linked), else reuses the tokens of
its unchanged chunks. A build saves the file as soon as its chunks are published, before the vectors
(``prepare(keep=False)``), so a build stopped later still leaves a fast text search. The index is
built from the chunks a window at a time (:data:`WINDOW`): the texts of a million chunks never sit
in memory at once. An older plait's ``.npz`` file is never read, and deleted at the next save. An index on object storage keeps the same file beside its tables
(:mod:`indexer.shared_lexical`): the writer uploads it after a build, a reader's first search
downloads it. Saving is best effort: a read-only or full disk costs the next process a rebuild,
never an error.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from indexer import shared_lexical
from indexer.heap import release_heap
from indexer.lexical import COLUMNS as LEXICAL_COLUMNS
from indexer.lexical import LexicalIndex
from indexer.memo import VersionMemo
from indexer.parent_watch import watched_pool
from indexer.snapshot import Snapshot
from indexer.textview import SAVED_SUFFIX, lexical_path

if TYPE_CHECKING:
    from concurrent.futures import Executor

    import pyarrow as pa

#: Chunks read at once when the BM25 index is built (their texts are what a window holds). A window's
#: tokenising holds several times its texts: on the Linux tree the build's peak was 1,667 MiB with
#: 16,384 a window and 842 MiB with 4,096, in the same time.
WINDOW = 4_096
#: From this many chunks a build saves the BM25 file in a child process (:func:`save_in_child`):
#: the parent's heap does not keep the ~1 GB the build of a million chunks' index takes at its peak.
CHILD_MIN_CHUNKS = 100_000
#: From this many chunks, all to tokenise, worker processes tokenise for the BM25 build
#: (:func:`_helpers`); fewer take seconds, about what starting them costs.
HELPED_MIN_CHUNKS = 100_000
#: Those workers: tokenising is four fifths of a build, so one would only move the wait; two take turns.
HELPERS = 2

log = logging.getLogger(__name__)


class Bm25Store:
    """The BM25 index of a snapshot's chunks. ``directory``: where the saved files live (``None``:
    never saved on disk); ``remote``: the URI of an index on object storage, whose saved file lives
    beside its tables. Thread-safe: concurrent searches of a new version wait for one build."""

    def __init__(self, directory: Path | None, *, remote: str | None = None) -> None:
        self.directory = directory
        self.remote = remote
        self._memo: VersionMemo[int, LexicalIndex] = VersionMemo()

    def get(self, snap: Snapshot) -> LexicalIndex:
        """The BM25 index of ``snap``'s chunks. Raises IndexStoreError when the chunks are unreadable."""
        version = snap.versions.get("chunks", -1)
        if version < 0:  # an index without a published snapshot: nothing to key it by, never kept
            return LexicalIndex(snap.read("chunks", LEXICAL_COLUMNS), self._memo.kept())
        return self._memo.get(version, lambda previous: self._make(snap, version, previous))

    def forget(self) -> None:
        """A writer published a new version: keep the tokens (for its unchanged chunks), not the version."""
        self._memo.forget(keep_value=True)

    def saved_file(self, version: int) -> Path | None:
        """Where the BM25 index of a chunks version is saved (``None``: not saved for this index)."""
        if version < 0 or self.directory is None:
            return None
        return lexical_path(self.directory, version)

    def prepare(self, snap: Snapshot, *, keep: bool = True) -> None:
        """Build and save ``snap``'s BM25 index unless it is saved already, so the next search,
        maybe in another process, finds it ready. For an index on object storage: upload it (only a
        writer calls this). ``keep=False`` (a build, before its vectors): save it without keeping it
        in memory, and only for a local index."""
        version = snap.versions.get("chunks", -1)
        if self.remote is not None:
            if keep and version >= 0 and not shared_lexical.saved(self.remote, version):
                shared_lexical.save(self.remote, version, self.get(snap))
            return
        saved = self.saved_file(version)
        if saved is not None and not saved.exists():
            if keep:
                self.get(snap)
            else:
                self._make(snap, version, None)

    def _make(self, snap: Snapshot, version: int, previous: LexicalIndex | None) -> LexicalIndex:
        if self.remote is not None and previous is None:  # a fresh process: what the writer saved
            loaded = shared_lexical.load(self.remote, version, snap.read("chunks", ["content_hash"]))
            if loaded is not None:
                return loaded
        saved = self.saved_file(version)
        if saved is not None and previous is None:  # a fresh process: map what another one saved
            hashes = snap.read("chunks", ["content_hash"]).column("content_hash")
            loaded = LexicalIndex.load_saved(saved)
            if loaded is not None and loaded.holds(hashes):
                return loaded
            # Another version's file: of the same chunks (a compaction, a publish that changed no
            # chunk) it is this version's too; else its tokens serve the unchanged chunks.
            found = _latest_saved(saved)
            if found is not None and found[1].holds(hashes):
                _link_quietly(found[0], saved)
                return found[1]
            previous = found[1] if found is not None else None
        # Every chunk to tokenise, and many: worker processes tokenise beside this one (a build waits
        # for this with its cores idle). Reusing a previous index's tokens, few are new: no helpers.
        with _helpers(previous is None and snap.count("chunks") >= HELPED_MIN_CHUNKS) as helper:
            built = LexicalIndex.build(_windows(snap), previous, helper=helper)
        if saved is None:
            return built
        _save_quietly(built, saved)
        return LexicalIndex.load_saved(saved) or built  # mapped: the built arrays are freed


def _windows(snap: Snapshot) -> Iterator[pa.RecordBatch]:
    """The chunks' rows a window at a time: a million chunks' texts are never read at once."""
    return snap.scan("chunks", LEXICAL_COLUMNS, batch_size=WINDOW)


def _version_of(path: Path) -> int:
    digits = path.name.removeprefix("chunks-v").removesuffix(SAVED_SUFFIX)
    return int(digits) if digits.isdigit() else -1


def _latest_saved(path: Path) -> tuple[Path, LexicalIndex] | None:
    """The newest BM25 index saved beside ``path`` (for another chunks version), and its file."""
    others = sorted(path.parent.glob(f"chunks-v*{SAVED_SUFFIX}"), key=_version_of, reverse=True)
    for other in others:
        if other != path and (index := LexicalIndex.load_saved(other)) is not None:
            return other, index
    return None


def _link_quietly(other: Path, path: Path) -> None:
    """Save ``other``'s index, which holds the same chunks, as ``path``'s: a hard link, no copy."""
    try:
        os.link(other, path)
        other.unlink()
    except OSError as exc:
        log.debug("could not link %s to %s: %s", other, path, exc)


def _save_quietly(index: LexicalIndex, path: Path) -> None:
    """Save the BM25 index for the next process and drop those of other versions (and the files of
    an older format); a read-only or full disk only costs that process a rebuild."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        index.save(path)
        for other in [*path.parent.glob(f"chunks-v*{SAVED_SUFFIX}"), *path.parent.glob("chunks-v*.npz")]:
            if other != path:
                other.unlink(missing_ok=True)
        _remove_unfinished(path.parent)
    except OSError as exc:
        log.debug("could not save the BM25 index at %s: %s", path, exc)


def _remove_unfinished(directory: Path) -> None:
    """Remove the unfinished BM25 files (``.chunks-vN.bm25.PID.THREAD.tmp``, :func:`bm25_file.save`'s)
    of processes that are gone: a process killed while it saved (SIGKILL, the OOM killer) leaves one,
    as large as the index (a gigabyte for the Linux tree). A live process's file is left alone."""
    for tmp in directory.glob(f".chunks-v*{SAVED_SUFFIX}.*.*.tmp"):
        pid = tmp.name.split(".")[-3]
        try:
            if not pid.isdigit() or _alive(int(pid)) or not stat.S_ISREG(tmp.lstat().st_mode):
                continue
            tmp.unlink()
        except OSError:
            continue


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def save_published(location: str) -> None:
    """Build and save the BM25 index of the chunks published at the local index ``location``, unless
    it is saved already (the body of :func:`save_in_child`)."""
    from indexer.snapshot import current
    from indexer.store import Store

    Bm25Store(Path(location)).prepare(current(Store(location)), keep=False)


@contextlib.contextmanager
def _helpers(wanted: bool) -> Iterator[Executor | None]:
    """Where ``wanted`` and there is more than one core: spawned worker processes (numpy, pyarrow and
    the tokenizer; 100–300 MiB each with the windows they hold) that tokenise the next windows of a
    BM25 build while this process counts one (:meth:`LexicalIndex.build`; on the Linux tree 0.64× the
    time, BENCHMARKS §9); ended on leaving, also when the build failed. Else ``None``: this process
    tokenises."""
    workers = min(HELPERS, os.cpu_count() or 1)
    if not wanted or workers < 2:
        yield None
        return
    pool = watched_pool(workers)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def save_in_child(location: str) -> None:
    """:func:`save_published` in a spawned process (never forked: the parent holds LanceDB threads),
    so that the memory it takes goes back when it ends. Raises what the child raised. The parent first
    gives back the heap it freed (:func:`release_heap`): both are resident while the child works."""
    release_heap()

    with watched_pool(1) as pool:
        pool.submit(save_published, location).result()

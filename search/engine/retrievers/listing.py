"""The files a search reads, listed by ``rg --files`` and kept while nothing says they changed, and
which of them differ from the index.

Listing a workspace costs ripgrep a walk with all its ignore rules (~10 ms for 1,200 files here), too
much to pay on every query. A listing is therefore kept with the modification times of the
directories that hold its files (and of their ancestors) and of the ignore files in them: a file
created, deleted or renamed changes its directory's mtime, and an edited ignore file its own, so
the listing is redone as soon as one of those differs. A new file in a directory that held no listed
file cannot be seen that way; :data:`LISTING_TTL` bounds how long such a file can go unnoticed. A
listing is not kept while any of those times is under :data:`SETTLE_NS` old, since the kernel stamps
times from a coarse clock and a second change in the same tick would leave them equal.

Which listed files differ from the index (new, or another size or mtime than the manifest says) is
found by a stat of every file: ~3 µs each here, 4 ms per query for 1,200 files. On Linux, a workspace
listing that is used again (a long-lived process: the server, the daemon, a benchmark) is watched
instead: inotify on the listing's directories, not recursive, so ignored trees are never watched
(:mod:`search.engine.retrievers.inotify`). The kernel queues an event inside the write that caused it, and a
query reads the queue without waiting, so it sees every change made before it began. An event on a
listed file re-stats that file alone; a file created, deleted or renamed, an ignore file touched, or a
lost event (the queue overflowed) redoes the listing. Every :data:`LISTING_TTL` the listing and the
full stat are redone anyway, which bounds what no event reports (a write through a memory mapping, a
network filesystem).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass

from indexer import IGNORE_FILES, Settings, read_beneath, sha256_hex, skips_content
from models import PlaitError
from search.engine.retrievers import ResolvedScope
from search.engine.retrievers.inotify import ADDED, GONE, REMOVED, WRITTEN, DirWatch, open_watch
from search.workspace import ripgrep

log = logging.getLogger(__name__)

LISTING_TTL = 10.0  # seconds
MAX_LISTINGS = 32
MAX_WATCHED_DIRS = 10_000  # more directories than this: stat every file instead of watching them
SETTLE_NS = 100_000_000  # file times advance in coarse clock ticks: trust an mtime only once this old

Manifest = Mapping[str, tuple[str, int, int]]  # path → (content hash, size, mtime_ns) of the indexed copy


@dataclass(frozen=True, slots=True)
class Listing:
    paths: tuple[str, ...]  # workspace-relative files, as a search would read them
    present: frozenset[str]
    watched: tuple[tuple[str, int], ...]  # (absolute path, mtime_ns, -1 when absent)
    made: float


class _Kept:
    """A kept listing and, once it is used again, the watcher of its directories and the set of its
    files that differ from the last manifest it was compared with."""

    def __init__(self, listing: Listing, root: str, whole: bool, max_bytes: int) -> None:
        self.listing = listing
        self.root = root
        self.max_bytes = max_bytes
        self.whole = whole  # the whole workspace, unfiltered: the listing worth watching
        self.lock = threading.Lock()
        self.notify: DirWatch | None = None
        self.dirs: tuple[str, ...] = ()
        self.manifest: Manifest | None = None
        self.changed: set[str] = set()
        self.unwatchable = False  # too many directories, or notifications failed: do not try again
        self.spent = False  # once found out of date, it stays so (the events that said so are read)

    def answer(self, manifest: Manifest | None) -> tuple[Listing, list[str] | None] | None:
        """The listing and its changed files, or ``None`` when the listing must be redone: then and
        every later time, as the notifications that told so have been consumed."""
        found = None if self.spent else self._answer(manifest)
        if found is None:
            self.spent = True
        return found

    def _answer(self, manifest: Manifest | None) -> tuple[Listing, list[str] | None] | None:
        listing = self.listing
        if time.monotonic() - listing.made >= LISTING_TTL:
            return None
        if self.notify is None:
            if not _unchanged(listing.watched):
                return None
            if not (self.whole and not self.unwatchable and self.watch(None)):  # used again: watch it
                return listing, None if manifest is None else differing(
                    self.root, listing.paths, manifest, self.max_bytes
                )
        touched = self._touched()
        if touched is None:
            return None
        if self.manifest is not None:
            for path in touched:
                if differing(self.root, (path,), self.manifest, self.max_bytes):
                    self.changed.add(path)
                else:
                    self.changed.discard(path)
        if manifest is None:
            return listing, None
        if manifest is not self.manifest:  # a new index version: compare every file once
            self.changed = set(differing(self.root, listing.paths, manifest, self.max_bytes))
            self.manifest = manifest
        return listing, sorted(self.changed)

    def _touched(self) -> set[str] | None:
        """Listed files written since the last read; ``None`` when the listing itself may have
        changed (a file created, deleted or renamed, an ignore file touched, events lost)."""
        assert self.notify is not None
        events = self.notify.read()
        if events is None:
            return None
        touched = set()
        cut = len(self.root) + 1
        present = self.listing.present
        for mask, abspath in events:
            rel = abspath[cut:].replace(os.sep, "/")
            if mask & GONE or os.path.basename(rel) in IGNORE_FILES or rel == ".git/info/exclude":
                return None
            if (mask & ADDED and rel not in present) or (mask & REMOVED and rel in present):
                return None
            if mask & (WRITTEN | ADDED) and rel in present:
                touched.add(rel)
        return touched

    def watch(self, previous: _Kept | None) -> bool:
        """Watch this listing's directories, taking over ``previous``'s watcher when it watches the
        same ones. False when they cannot be watched (too many, notifications unavailable) or changed
        before the watch began."""
        dirs = _dirs(self.listing.paths)
        if len(dirs) > MAX_WATCHED_DIRS:
            self.unwatchable = True
            return False
        paths = [os.path.join(self.root, d) if d else self.root for d in sorted(dirs)]
        info = os.path.join(self.root, ".git", "info")
        if os.path.isdir(info):
            paths.append(info)
        if previous is not None and previous.notify is not None and previous.dirs == tuple(paths):
            self.notify, self.dirs, previous.notify = previous.notify, previous.dirs, None
            return True
        self.notify = open_watch(paths)
        if self.notify is None:  # not Linux, or the inotify watch limit: stat instead
            log.info("not watching %s; stat-ing its files on each query instead", self.root)
            self.unwatchable = True
            return False
        self.dirs = tuple(paths)
        if not _unchanged(self.listing.watched):  # something changed before the watch began
            self.close()
            return False
        return True

    def close(self) -> None:
        if self.notify is not None:
            self.notify.close()
            self.notify = None


_kept: dict[tuple[str, ...], _Kept] = {}
_lock = threading.Lock()


def list_scope(settings: Settings, scope: ResolvedScope, *, timeout: float) -> Listing | None:
    """The files of ``scope`` (same filters as a search); ``None`` when ripgrep could not list them."""
    found = live_files(settings, scope, None, timeout=timeout)
    return None if found is None else found[0]


def kept_files(
    settings: Settings, scope: ResolvedScope, manifest: Manifest | None
) -> tuple[Listing, list[str] | None] | None:
    """What :func:`live_files` answers when a kept listing still holds (no ripgrep run, no thread:
    the common case of a warm server, answered in the caller); ``None`` when it must list."""
    return _kept_answer(_listing_key(settings, scope)[1], manifest)[1]


def _listing_key(settings: Settings, scope: ResolvedScope) -> tuple[ripgrep.RgCommand, tuple[str, ...]]:
    command = ripgrep.RgCommand("files", targets=scope.targets, globs=scope.globs, language=scope.language)
    return command, (str(settings.root), *ripgrep.argv(settings, command))


def _kept_answer(
    key: tuple[str, ...], manifest: Manifest | None
) -> tuple[_Kept | None, tuple[Listing, list[str] | None] | None]:
    """The listing kept under ``key`` (if any) and its answer for ``manifest`` (``None``: list again)."""
    with _lock:
        kept = _kept.get(key)
    if kept is None:
        return None, None
    with kept.lock:
        return kept, kept.answer(manifest)


def live_files(
    settings: Settings, scope: ResolvedScope, manifest: Manifest | None, *, timeout: float
) -> tuple[Listing, list[str] | None] | None:
    """The files of ``scope`` and, given the index's ``manifest``, those of them that differ from it;
    ``None`` when ripgrep could not list them."""
    command, key = _listing_key(settings, scope)
    kept, answer = _kept_answer(key, manifest)
    if answer is not None:
        return answer
    made = time.monotonic()
    try:
        res = ripgrep.run_rg(settings, command, timeout=timeout)
    except PlaitError:  # timed out or failed: the caller searches without a listing
        return None
    if res.truncated or res.errors:
        return None
    paths = tuple(res.files)
    root = str(settings.root)
    listing = Listing(paths, frozenset(paths), _times(root, paths), made)
    whole = scope.kind == "ws" and not scope.globs and not scope.language
    fresh = _Kept(listing, root, whole, settings.max_file_bytes)
    settled = not any(m > time.time_ns() - SETTLE_NS for _, m in listing.watched)
    if kept is not None:
        with kept.lock:
            if settled and fresh.whole and kept.notify is not None:
                fresh.watch(kept)  # was watched: go on watching
            kept.close()
    answer = None
    if fresh.notify is not None:
        with fresh.lock:
            answer = fresh.answer(manifest)
        if answer is None:  # changed again while it was listed
            fresh.close()
            settled = False
    if answer is None:
        answer = listing, None if manifest is None else differing(root, paths, manifest, fresh.max_bytes)
    if not settled:
        return answer  # changed a moment ago: a change within the same clock tick would go unseen
    with _lock:
        if len(_kept) >= MAX_LISTINGS:
            for old in _kept.values():
                old.close()
            _kept.clear()
        _kept[key] = fresh
    return answer


def differing(root: str, paths: tuple[str, ...], manifest: Manifest, max_bytes: int) -> list[str]:
    """The files of ``paths`` that are new or differ (size or mtime) from the indexed copy. A file the
    index lacks because the walker leaves it out (binary, over ``max_bytes``) is not new: searching
    it on every query would find nothing, or read what a whole-workspace search skips."""
    prefix, stat = f"{root}{os.sep}", os.stat  # thousands of files: keep the loop lean
    changed = []
    for path in paths:
        known = manifest.get(path)
        try:
            st = stat(prefix + path)
        except OSError:
            continue
        if known is None:
            if not _skipped(prefix + path, st.st_size, st.st_mtime_ns, max_bytes):
                changed.append(path)
        elif st.st_size != known[1] or (
            st.st_mtime_ns != known[2] and not _same_content(root, path, st.st_size, st.st_mtime_ns, known[0])
        ):
            changed.append(path)
    return changed


_digests: dict[str, tuple[int, int, str]] = {}  # absolute path → (size, mtime_ns, sha256)


def _same_content(root: str, path: str, size: int, mtime_ns: int, indexed_sha: str) -> bool:
    """Whether a file whose mtime differs from the indexed copy still holds the same bytes (a checkout
    on another machine of the commit a shared index was built from, a ``touch``): hashed once per
    size and mtime, so such files are not searched live on every query."""
    key = f"{root}{os.sep}{path}"
    kept = _digests.get(key)
    if kept is None or kept[0] != size or kept[1] != mtime_ns:
        try:
            digest = sha256_hex(read_beneath(root, path, 1 << 30))  # no symlink, no FIFO
        except OSError:
            return False
        if len(_digests) >= MAX_VERDICTS:
            _digests.clear()
        kept = _digests[key] = (size, mtime_ns, digest)
    return kept[2] == indexed_sha


_verdicts: dict[str, tuple[int, int, bool]] = {}  # absolute path → (size, mtime_ns, skipped)
MAX_VERDICTS = 200_000


def _skipped(path: str, size: int, mtime_ns: int, max_bytes: int) -> bool:
    """:func:`indexer.skips_content`, remembered per path while its size and mtime stay (the files a
    workspace's index skips are looked at again on every query that stats them)."""
    kept = _verdicts.get(path)
    if kept is not None and kept[0] == size and kept[1] == mtime_ns:
        return kept[2]
    skipped = skips_content(path, size, max_bytes)
    if len(_verdicts) >= MAX_VERDICTS:
        _verdicts.clear()
    _verdicts[path] = (size, mtime_ns, skipped)
    return skipped


def _dirs(paths: tuple[str, ...]) -> set[str]:
    """The directories holding ``paths``, and their ancestors (``""`` is the root)."""
    dirs = {""}
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in dirs:
            dirs.add(parent)
            parent = os.path.dirname(parent)
    return dirs


def _times(root: str, paths: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    watched = [os.path.join(root, ".git", "info", "exclude")]
    for d in sorted(_dirs(paths)):
        base = os.path.join(root, d) if d else root
        watched.append(base)
        watched += [os.path.join(base, name) for name in IGNORE_FILES]
    return tuple((p, _mtime(p)) for p in watched)


def _unchanged(watched: tuple[tuple[str, int], ...]) -> bool:
    return all(_mtime(p) == m for p, m in watched)


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1

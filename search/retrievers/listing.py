"""The files a search reads, listed by ``rg --files`` and kept while nothing says they changed.

Listing a workspace costs ripgrep a walk with all its ignore rules (~10 ms for 1,200 files here), too
much to pay on every query. A listing is therefore kept with the modification times of the
directories that hold its files (and of their ancestors) and of the ignore files in them: a file
created, deleted or renamed changes its directory's mtime, and an edited ignore file its own, so
the listing is redone as soon as one of those differs. A new file in a directory that held no listed
file cannot be seen that way; :data:`LISTING_TTL` bounds how long such a file can go unnoticed. A
listing is not kept while any of those times is under :data:`SETTLE_NS` old, since the kernel stamps
times from a coarse clock and a second change in the same tick would leave them equal.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

from indexer import Settings
from indexer.procs import run
from search.retrievers import ResolvedScope
from search.retrievers.rg import MAX_OUTPUT, rg_files_command

LISTING_TTL = 10.0  # seconds
MAX_LISTINGS = 32
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
SETTLE_NS = 100_000_000  # file times advance in coarse clock ticks: trust an mtime only once this old


@dataclass(frozen=True, slots=True)
class Listing:
    paths: tuple[str, ...]  # workspace-relative files, as a search would read them
    present: frozenset[str]
    watched: tuple[tuple[str, int], ...]  # (absolute path, mtime_ns, -1 when absent)
    made: float


_listings: dict[tuple[str, ...], Listing] = {}
_lock = threading.Lock()


def list_scope(settings: Settings, scope: ResolvedScope, *, timeout: float) -> Listing | None:
    """The files of ``scope`` (same filters as a search); ``None`` when ripgrep could not list them."""
    argv = rg_files_command(settings, scope)
    key = (str(settings.root), *argv)
    with _lock:
        kept = _listings.get(key)
    if kept is not None and time.monotonic() - kept.made < LISTING_TTL and _unchanged(kept.watched):
        return kept
    made = time.monotonic()
    res = run(argv, cwd=settings.root, timeout=timeout, max_output=MAX_OUTPUT)
    if res.timed_out or res.truncated or res.returncode not in (0, 1):
        return None
    text = res.stdout.decode("utf-8", "replace")
    paths = tuple(p[2:] if p.startswith("./") else p for p in text.split("\0") if p)
    listing = Listing(paths, frozenset(paths), _watch(str(settings.root), paths), made)
    if any(m > time.time_ns() - SETTLE_NS for _, m in listing.watched):
        return listing  # changed a moment ago: a change within the same clock tick would go unseen
    with _lock:
        if len(_listings) >= MAX_LISTINGS:
            _listings.clear()
        _listings[key] = listing
    return listing


def _watch(root: str, paths: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    dirs = {""}
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in dirs:
            dirs.add(parent)
            parent = os.path.dirname(parent)
    watched = [os.path.join(root, ".git", "info", "exclude")]
    for d in sorted(dirs):
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

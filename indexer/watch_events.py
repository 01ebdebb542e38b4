"""The watcher's file events: which paths a group of backend events names, and what to re-index.

:class:`EventFilter` turns a group of ``watchfiles`` events into a :class:`Batch` of
workspace-relative paths: events outside the root, in the index directory, in VCS directories
or ignored by the indexer's rules (:meth:`~indexer.workspace.Walker.is_ignored`) are dropped; a
change to a ``.gitignore``, ``.ignore`` or ``.git/info/exclude`` makes the batch a whole-workspace
check. Before a batch is built, :meth:`EventFilter.expand` turns its paths into files: a new
directory is walked, a vanished one stands for the indexed files under it.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from indexer.config import Settings
from indexer.workspace import ALWAYS_SKIP_DIRS, IGNORE_FILES, Walker

RULE_FILES = frozenset(IGNORE_FILES)  # editing one changes what the workspace holds


@dataclass(slots=True)
class Batch:
    """Changes gathered for one build: workspace-relative paths, or the whole workspace."""

    paths: set[str] = field(default_factory=set)
    full: bool = False
    reason: str = ""
    first_event: float = float("inf")  # wall-clock estimate of the earliest change

    def __bool__(self) -> bool:
        return self.full or bool(self.paths)

    def merge(self, other: Batch) -> None:
        self.paths |= other.paths
        if other.full and not self.full:
            self.full, self.reason = True, other.reason
        self.first_event = min(self.first_event, other.first_event)


class EventFilter:
    """Decides which event paths matter for one workspace (see the module docstring).

    ``quiet`` and ``window`` (seconds): how the backend groups events (a group closes ``quiet``
    after its last event, at most ``window`` after its first), used to date a batch's first change.
    The watcher calls :meth:`filter` from its event collector thread and :meth:`expand` from its
    batch loop; they share only the ignore rules (a :class:`~indexer.workspace.Walker`), which a rule
    change replaces whole instead of changing in place.
    """

    def __init__(self, settings: Settings, *, quiet: float, window: float) -> None:
        self.settings = settings
        self.root = settings.root.resolve()
        self.quiet, self.window = quiet, window
        self._root_prefix = str(self.root).rstrip(os.sep) + os.sep
        self._index_rel = _relative_inside(self.root, settings.index_dir) if settings.index_is_local else None
        self._walker = Walker(settings)

    def filter(self, raw: Iterable[tuple[int, str]]) -> Batch:
        """The batch of one group of backend events (``(change, absolute path)``): paths outside the
        root or in the index, VCS dirs and ignored paths dropped; a rule file's change makes it a
        whole-workspace check."""
        now = time.time()
        batch = Batch()
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
            batch.first_event = _first_event(self.root, batch.paths, now, self.quiet, self.window)
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

    def expand(self, rels: set[str], indexed: Callable[[], Iterable[str]], limit: int) -> list[str]:
        """Files to check: new directories walked, vanished ones replaced by their indexed files
        (``indexed()``: every indexed path, read only when something vanished). Stops adding once
        past ``limit`` files (the caller then checks the whole workspace)."""
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
                    manifest = sorted(indexed())
                i = bisect.bisect_left(manifest, rel)
                if i < len(manifest) and manifest[i] == rel:
                    out.add(rel)
                out.update(_under(manifest, rel))
            if len(out) > limit:
                break
        return sorted(out)

    def _walk(self, rel: str) -> Iterator[str]:
        """The files under directory ``rel``, pruned like the indexer's walk."""
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

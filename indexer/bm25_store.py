"""The BM25 index's lifecycle beside :class:`~indexer.lexical.LexicalIndex`: one per published
chunks version, built on first use, kept in memory, and saved on disk for the next process.

For a local index each chunks version's BM25 index is saved as ``lexical/chunks-v<N>.npz`` in the
index directory; only the newest file is kept. A fresh process loads that file instead of
re-tokenising every chunk; a process that finds only an older version's file reuses the tokens of
its unchanged chunks. An index on object storage keeps the same file beside its tables
(:mod:`indexer.shared_lexical`): the writer uploads it after a build, a reader's first search
downloads it. Saving is best effort: a read-only or full disk costs the next process a rebuild,
never an error.
"""

from __future__ import annotations

import logging
from pathlib import Path

from indexer import shared_lexical
from indexer.lexical import COLUMNS as LEXICAL_COLUMNS
from indexer.lexical import LexicalIndex
from indexer.memo import VersionMemo
from indexer.snapshot import Snapshot
from indexer.textview import lexical_path

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

    def prepare(self, snap: Snapshot) -> None:
        """Build and save ``snap``'s BM25 index unless it is saved already, so the next search,
        maybe in another process, finds it ready. For an index on object storage: upload it (only a
        writer calls this)."""
        version = snap.versions.get("chunks", -1)
        if self.remote is not None:
            if version >= 0 and not shared_lexical.saved(self.remote, version):
                shared_lexical.save(self.remote, version, self.get(snap))
            return
        saved = self.saved_file(version)
        if saved is not None and not saved.exists():
            self.get(snap)

    def _make(self, snap: Snapshot, version: int, previous: LexicalIndex | None) -> LexicalIndex:
        if self.remote is not None and previous is None:  # a fresh process: what the writer saved
            columns = [c for c in LEXICAL_COLUMNS if c != "text"]
            loaded = shared_lexical.load(self.remote, version, snap.read("chunks", columns))
            if loaded is not None:
                return loaded
        saved = self.saved_file(version)
        if saved is not None and previous is None:  # a fresh process: load what another one saved
            loaded = LexicalIndex.load(
                saved, snap.read("chunks", [c for c in LEXICAL_COLUMNS if c != "text"])
            )
            if loaded is not None:
                return loaded
            previous = _latest_saved_tokens(saved)  # another version's saved tokens will do
        built = LexicalIndex(snap.read("chunks", LEXICAL_COLUMNS), previous)
        if saved is not None:
            _save_quietly(built, saved)
        return built


def _latest_saved_tokens(path: Path) -> LexicalIndex | None:
    """The tokens of the newest BM25 index saved beside ``path`` (another chunks version), if any."""

    def version(p: Path) -> int:
        digits = p.stem.removeprefix("chunks-v")
        return int(digits) if digits.isdigit() else -1

    for other in sorted(path.parent.glob("chunks-v*.npz"), key=version, reverse=True):
        if other != path and (tokens := LexicalIndex.load_tokens(other)) is not None:
            return tokens
    return None


def _save_quietly(index: LexicalIndex, path: Path) -> None:
    """Save the BM25 index for the next process and drop those of other versions; a read-only or full
    disk only costs that process a rebuild."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        index.save(path)
        for other in path.parent.glob("chunks-v*.npz"):
            if other != path:
                other.unlink(missing_ok=True)
    except OSError as exc:
        log.debug("could not save the BM25 index at %s: %s", path, exc)

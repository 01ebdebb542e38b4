"""What a text search reads from an index, saved beside its tables so that a fresh process (``plait
search --mode text``) can read it without importing LanceDB or pyarrow.

A text search needs, of the published snapshot: the BM25 index of the chunks and the chunks' spans
(both in the saved lexical index, :meth:`indexer.lexical.LexicalIndex.load_saved`), and the manifest
(sha256, size, mtime of each indexed file: which files changed since). After a build, the index
writes ``lexical/published.json``: the manifest, the chunks version whose lexical index is saved, and
the version of the ``meta`` table it read them under. The snapshot is published through ``meta``, so
while ``meta``'s latest version on disk is still that one, nothing was published since and the saved
files are the snapshot's. Any later write to ``meta`` (a build, a tier upgrade) makes the saved view
stale until the next one is written; :func:`open_view` then returns ``None`` and the search reads the
tables as before. Local indexes only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from indexer.beneath import read_beneath
from indexer.config import Settings
from indexer.errors import IndexStoreError
from indexer.types import ChunkSpan, sha256_hex

if TYPE_CHECKING:
    from indexer.lexical import LexicalIndex
    from indexer.lookup import SymbolMatch, SymbolRow

VIEW_FILE = "published.json"
VIEW_FORMAT = 1
SAVED_SUFFIX = ".bm25"  # the BM25 index's file (:mod:`indexer.bm25_file`); ``.npz`` before
_U64 = 1 << 64


def view_path(location: Path) -> Path:
    return location / "lexical" / VIEW_FILE


def lexical_path(location: Path, version: int) -> Path:
    """Where the BM25 index of a chunks version is saved."""
    return location / "lexical" / f"chunks-v{version}{SAVED_SUFFIX}"


def meta_version(location: Path) -> int | None:
    """The latest version of the ``meta`` table, read from its manifest files' names (LanceDB names a
    version's manifest ``V.manifest``, or ``2**64 - 1 - V`` with its newer naming scheme);
    ``None`` when there is none."""
    latest = _latest_manifest(location / "meta.lance")
    return latest[0] if latest is not None else None


def _latest_manifest(table: Path) -> tuple[int, str] | None:
    """(version, file name) of a table's latest manifest, from the names in its ``_versions``."""
    try:
        names = os.listdir(table / "_versions")
    except OSError:
        return None
    best: tuple[int, str] | None = None
    for name in names:
        stem, dot, ext = name.partition(".")
        if ext == "manifest" and dot and stem.isdigit():
            n = int(stem)
            version = _U64 - 1 - n if n >= 1 << 63 else n
            if best is None or version > best[0]:
                best = (version, name)
    return best


def table_marks(location: Path) -> dict[str, list[Any]]:
    """Each table's latest manifest as (file name, size, mtime in ns): manifests are written once and
    never changed, so the same marks later mean no table was written, replaced or damaged since."""
    marks: dict[str, list[Any]] = {}
    try:
        tables = sorted(e.name for e in os.scandir(location) if e.name.endswith(".lance") and e.is_dir())
    except OSError:
        return marks
    for name in tables:
        latest = _latest_manifest(location / name)
        if latest is None:
            continue
        try:
            st = os.stat(location / name / "_versions" / latest[1])
        except OSError:
            continue
        marks[name] = [latest[1], st.st_size, st.st_mtime_ns]
    return marks


def write_view(
    location: Path,
    meta: int,
    chunks_version: int,
    manifest: Mapping[str, tuple[str, int, int]],
    status: Mapping[str, Any] | None = None,
) -> None:
    """Record that ``meta`` version ``meta`` published chunks ``chunks_version`` (whose lexical index
    is saved), ``manifest`` and ``status``, the snapshot's counts and tiers that ``plait status``
    reports (:func:`indexer.status.snapshot_record`), atomically: a temporary file, then rename."""
    target = view_path(location)
    data = {"format": VIEW_FORMAT, "meta": meta, "chunks": chunks_version, "manifest": manifest}
    if status is not None:
        data["status"] = dict(status)
        data["tables"] = table_marks(location)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, separators=(",", ":"))
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def file_is_stale(root: Path, path: str, manifest: Mapping[str, tuple[str, int, int]]) -> bool:
    """Whether the live file differs from what was indexed (cheap: size and mtime first)."""
    old = manifest.get(path)
    if old is None:
        return True
    try:
        st = os.stat(root / path)
    except OSError:
        return True
    if st.st_size == old[1] and st.st_mtime_ns == old[2]:
        return False
    try:
        return sha256_hex(read_beneath(root, path, 1 << 30)) != old[0]  # no symlink, no FIFO
    except OSError:
        return True


class SymbolReads(Protocol):
    """The symbol reads of :class:`indexer.Index` that a text search may make."""

    @property
    def lookup_many(self) -> Callable[..., list[list[SymbolMatch]]]: ...

    def symbols_in_file(self, path: str) -> list[SymbolRow]: ...


class TextView:
    """The reads of :class:`indexer.Index` that a text search makes (``exists``, ``pinned``,
    ``lexical``, ``chunk_spans``, ``whole_manifest``, ``manifest_for``, ``is_stale`` and
    ``snapshot().count``), answered from the saved files of one published snapshot; and the two
    symbol reads a sentence found in a declaration file's doc comment makes (``lookup_many``,
    ``symbols_in_file``: :mod:`search.engine.retrievers.declared`), which the view holds no table for,
    answered by the index that ``index`` opens then (the text retriever reads that sentence alike in
    every process, whether it had opened the index or not; without ``index`` they fail as a store
    that cannot be read does, and the text search answers without them)."""

    def __init__(
        self,
        settings: Settings,
        lexical: LexicalIndex,
        manifest: dict[str, tuple[str, int, int]],
        meta: int | None = None,
        index: Callable[[], SymbolReads] | None = None,
    ) -> None:
        self.settings = settings
        self.meta = meta  # the meta version it belongs to
        self._lexical = lexical
        self._manifest = manifest
        self._spans: dict[str, list[ChunkSpan]] = {}  # read from the mapped arrays per file, once
        self._index = index

    def _symbols(self) -> SymbolReads:
        if self._index is None:
            raise IndexStoreError("a text view reads no symbols without the index to open for them")
        return self._index()

    def lookup_many(self, names: Sequence[tuple[str, bool]], **options: Any) -> list[list[SymbolMatch]]:
        return self._symbols().lookup_many(names, **options)

    def symbols_in_file(self, path: str) -> list[SymbolRow]:
        return self._symbols().symbols_in_file(path)

    def is_current(self) -> bool:
        """Whether nothing was published since this view was opened (a directory listing)."""
        return self.meta is not None and meta_version(Path(self.settings.index_dir)) == self.meta

    def exists(self) -> bool:
        return True

    def pinned(self) -> TextView:
        return self  # one snapshot already

    def snapshot(self) -> TextView:
        return self

    def count(self, name: str) -> int:
        """Rows of ``files`` or ``chunks`` in the snapshot."""
        return len(self._manifest) if name == "files" else self._lexical.size if name == "chunks" else 0

    def lexical(self) -> LexicalIndex:
        return self._lexical

    def chunk_spans(self, paths: Iterable[str]) -> dict[str, list[ChunkSpan]]:
        out = {}
        for p in paths:
            if p not in self._spans:
                self._spans[p] = [ChunkSpan(*row) for row in self._lexical.spans_of(p)]
            out[p] = self._spans[p]
        return out

    def whole_manifest(self) -> Mapping[str, tuple[str, int, int]]:
        return self._manifest

    def manifest_for(self, paths: Iterable[str]) -> dict[str, tuple[str, int, int]]:
        return {p: self._manifest[p] for p in dict.fromkeys(paths) if p in self._manifest}

    def is_stale(self, path: str, manifest: Mapping[str, tuple[str, int, int]]) -> bool:
        return file_is_stale(self.settings.root, path, manifest)


def _read_saved(location: Path) -> tuple[dict[str, Any], dict[str, tuple[str, int, int]]] | None:
    """The saved view's JSON and its manifest, when it is readable and ``meta`` was not written since
    it was saved; ``None`` otherwise."""
    try:
        with open(view_path(location), encoding="utf-8") as fh:
            data: Any = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != VIEW_FORMAT:
        return None
    rows = data.get("manifest")
    if not isinstance(rows, dict) or data.get("meta") != meta_version(location):
        return None
    try:
        manifest = {str(p): (str(v[0]), int(v[1]), int(v[2])) for p, v in rows.items()}
    except (TypeError, ValueError, IndexError):
        return None
    return data, manifest


def read_status_view(location: Path) -> tuple[dict[str, Any], dict[str, tuple[str, int, int]]] | None:
    """The published snapshot's status record and manifest, saved by the last build, while they are
    still the current ones (``meta`` not written since, every table's latest manifest the same file);
    ``None`` otherwise (the caller reads the tables, which also tells a damaged index). No LanceDB:
    what lets ``plait status`` answer in a fraction of a second."""
    saved = _read_saved(location)
    if saved is None:
        return None
    data, manifest = saved
    status = data.get("status")
    if not isinstance(status, dict) or data.get("tables") != table_marks(location):
        return None  # no record, or a table written or damaged since: the caller reads the tables
    return (status, manifest) if meta_version(location) == data["meta"] else None


def open_view(settings: Settings, index: Callable[[], SymbolReads] | None = None) -> TextView | None:
    """The saved view of the published snapshot, or ``None`` when there is none, it is not the
    current one, or it cannot be read (the caller then opens the index itself). ``index`` gives the
    index its few symbol reads go to (:class:`TextView`)."""
    if not settings.index_is_local:
        return None
    location = Path(settings.index_dir)
    saved = _read_saved(location)
    if saved is None:
        return None
    data, manifest = saved
    chunks, meta = data.get("chunks"), data["meta"]
    if not isinstance(chunks, int):
        return None
    from indexer.lexical import LexicalIndex

    lexical = LexicalIndex.load_saved(lexical_path(location, chunks))
    if lexical is None:
        return None
    # The view was written after the snapshot was read, so a meta version still current then is
    # current now only if no publish came between: check once more, after reading everything.
    return TextView(settings, lexical, manifest, meta, index) if meta_version(location) == meta else None

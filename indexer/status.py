"""What ``plait status`` and the ``index_status`` tool report about one index: its state and counts.

:func:`read_status` is the one place that decides an index's :class:`IndexState`; a new field of
:class:`IndexStatus` is filled there. It reads the tables at their latest versions (not a pinned
snapshot: status describes what the writer has written, including a build in progress).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer import ownership
from indexer.beneath import read_beneath
from indexer.embedding import TIERS, make_embedder, search_tier_of, snapshot_tiers, tier_config
from indexer.errors import IndexStoreError, PlaitError
from indexer.fingerprint import fingerprint
from indexer.lock import writer_active
from indexer.revision import REVISION_KEY, tree_revision
from indexer.textview import read_status_view
from indexer.types import sha256_hex
from indexer.workspace import Walker, WalkStats

if TYPE_CHECKING:
    from indexer.config import Settings
    from indexer.index import Index
    from indexer.snapshot import Snapshot

INTERRUPTED_DETAIL = (
    "interrupted build: run plait index again (searches use the last published snapshot meanwhile)"
)
MAX_LISTED_FILES = 200  # changed files listed per kind in ``as_dict`` (the count says how many in all)


class IndexState(StrEnum):
    MISSING = "missing"
    CORRUPT = "corrupt"
    SCHEMA_MISMATCH = "schema_mismatch"
    INTERRUPTED = "interrupted"  # a build was killed; searches read the last published snapshot
    STALE = "stale"
    FRESH = "fresh"


@dataclass
class IndexStatus:
    state: IndexState
    root: str
    location: str
    files: int = 0
    symbols: int = 0
    chunks: int = 0
    vectors: int = 0
    model: str | None = None
    stale_files: list[str] = field(default_factory=list)
    new_files: list[str] = field(default_factory=list)
    deleted_files: list[str] = field(default_factory=list)
    last_build: dict[str, Any] | None = None
    size_bytes: int | None = None
    detail: str | None = None
    watcher: dict[str, Any] | None = None
    search_tier: str | None = None  # the tier searches rank with (``model`` and ``vectors`` are its)
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)  # tier → {model, vectors, complete}
    # The fast tier searched: whether a sentence's candidates are ranked by the full tier's model
    # (``ready``), or not until its export is made (``needs the model's export``), or not at all (``off``).
    rerank: str | None = None
    revision: dict[str, Any] | None = None  # the git commit (and dirty flag) of the tree last indexed
    checkout: dict[str, Any] | None = None  # the same of the tree under the root now (with check_files)

    @property
    def coverage(self) -> str:
        return f"{self.vectors:,} of {self.chunks:,} chunks embedded"

    def tier_line(self) -> str:
        """``fast 4,151/4,151 (searched), full 1,024/4,151``: each tier's coverage in one line."""
        parts = []
        for tier in TIERS:
            entry = self.tiers.get(tier)
            if entry is not None:
                mark = " (searched)" if tier == self.search_tier else ""
                parts.append(f"{tier} {entry['vectors']:,}/{self.chunks:,}{mark}")
        return ", ".join(parts) or "no vectors"

    def rerank_line(self) -> str | None:
        """What the fast tier's re-ranking does for searches now, in words; None with the full tier."""
        return None if self.rerank is None else RERANK_LINES.get(self.rerank, self.rerank)

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``plait status --json`` and ``index_status``. Written out rather than
        ``dataclasses.asdict``: it adds ``vector_coverage`` and ``changed_count`` in their places and
        caps the file lists at :data:`MAX_LISTED_FILES`."""
        return {
            "state": self.state.value,
            "root": self.root,
            "location": self.location,
            "files": self.files,
            "symbols": self.symbols,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "vector_coverage": self.coverage,
            "model": self.model,
            "stale_files": self.stale_files[:MAX_LISTED_FILES],
            "new_files": self.new_files[:MAX_LISTED_FILES],
            "deleted_files": self.deleted_files[:MAX_LISTED_FILES],
            "changed_count": len(self.stale_files) + len(self.new_files) + len(self.deleted_files),
            "last_build": self.last_build,
            "size_bytes": self.size_bytes,
            "detail": self.detail,
            "watcher": self.watcher,
            "search_tier": self.search_tier,
            "tiers": self.tiers,
            "rerank": self.rerank,
            "revision": self.revision,
            "checkout": self.checkout,
        }


def read_status(index: Index, *, check_files: bool = True) -> IndexStatus:
    """State, counts, coverage and (with ``check_files``) which files changed since the last build.

    A local index whose last build saved its status beside the text search view
    (:func:`indexer.textview.read_status_view`), with nothing published since and no writer at work,
    is answered from that record without opening LanceDB (whose import is most of a second); any
    other from its tables. Never raises for an unreadable index: that is the CORRUPT state, with the
    reason as ``detail``.
    """
    settings = index.settings
    root = str(settings.root)
    saved = saved_status(settings, check_files=check_files)
    if saved is not None:
        return saved
    if not index.exists():
        if _interrupted_first_build(index.location, settings.index_is_local):
            return IndexStatus(IndexState.INTERRUPTED, root, index.location, detail=INTERRUPTED_DETAIL)
        return IndexStatus(IndexState.MISSING, root, index.location, detail=f"run `plait index {root}`")
    try:
        store = index.store
        meta = store.get_meta()
        st = _from_record(
            IndexStatus(IndexState.FRESH, root, index.location), _record(meta, store.count, store.has)
        )
        if _interrupted(index.location, meta):
            st.state = IndexState.INTERRUPTED
            st.detail = INTERRUPTED_DETAIL
            return st
        if not _same_fingerprint(st, meta.get("fingerprint"), settings):
            return st
        _same_model(st, settings)
        _rerank(st, settings)
        if check_files:
            from indexer.tables import read_manifest  # pyarrow: not on the saved record's path

            _compare_files(settings, st, read_manifest(store))
            st.checkout = tree_revision(settings.root)
    except IndexStoreError as exc:
        return IndexStatus(IndexState.CORRUPT, root, index.location, detail=str(exc))
    if settings.index_is_local:
        st.size_bytes = _dir_size(Path(index.location))
    return st


def snapshot_record(snap: Snapshot) -> dict[str, Any]:
    """What :func:`read_status` reports of a published snapshot, as JSON: saved after each build."""
    return _record(snap.meta, snap.count, snap.has)


def _record(
    meta: Mapping[str, Any], count: Callable[[str], int], has: Callable[[str], bool]
) -> dict[str, Any]:
    """Counts, tiers and build facts of an index, from its ``meta`` and its tables' row counts."""
    chunks = count("chunks")
    entries = snapshot_tiers(meta)
    counts = {t: count(str(e["table"])) if has(str(e["table"])) else 0 for t, e in entries.items()}
    by_table = {str(e["table"]): counts[t] for t, e in entries.items()}
    return {
        "files": count("files"),
        "symbols": count("symbols"),
        "chunks": chunks,
        "tiers": {
            t: {"model": e.get("id"), "vectors": counts[t], "complete": bool(chunks) and counts[t] >= chunks}
            for t, e in entries.items()
        },
        "search_tier": search_tier_of(entries, by_table.__getitem__, chunks),
        "last_build": meta.get("last_build"),
        "revision": meta.get(REVISION_KEY),
        "fingerprint": meta.get("fingerprint"),
    }


def _from_record(st: IndexStatus, record: Mapping[str, Any]) -> IndexStatus:
    st.files, st.symbols, st.chunks = int(record["files"]), int(record["symbols"]), int(record["chunks"])
    st.tiers = {str(t): dict(e) for t, e in record["tiers"].items()}
    st.search_tier = record["search_tier"]
    if st.search_tier is not None:
        st.model = str(st.tiers[st.search_tier]["model"])
        st.vectors = int(st.tiers[st.search_tier]["vectors"])
    st.last_build = record["last_build"]
    st.revision = record["revision"]
    return st


def _same_fingerprint(st: IndexStatus, found: Any, settings: Settings) -> bool:
    """False (and the state says so) when another plait version or chunk settings built the index."""
    if found == fingerprint(settings):
        return True
    st.state = IndexState.SCHEMA_MISMATCH
    st.detail = "built by another plait version or chunk settings; the next `plait index` rebuilds it"
    return False


def _same_model(st: IndexStatus, settings: Settings) -> None:
    """A search ranks with the vectors of the configured model only: when the tier it would search
    holds another model's (``[model]`` changed since the build), the index is stale and says why."""
    tier = st.search_tier
    if tier is None:
        return
    try:
        configured = make_embedder(tier_config(settings.model, tier)).model_id
    except PlaitError:  # the configured model cannot be found: a search says so, status reports the index
        return
    built = st.tiers[tier].get("model")
    if built == configured:
        return
    if st.state is IndexState.FRESH:
        st.state = IndexState.STALE
    st.detail = (
        f"the {tier} tier's vectors were built by {built}, not the configured {configured}; "
        "the next `plait index` embeds with it"
    )


#: What ``plait status`` says of the fast tier's re-ranking (:mod:`search.engine.rerank`).
RERANK_LINES = {
    "ready": "sentences ranked by the full model over their candidates until the full tier is complete",
    "needs the model's export": "not until the full model's ONNX export is made: `python -m indexer.prepare "
    "ROOT` (about 20 s) or any full-tier build makes it",
    "off": "off ([ranking] enabled is false, or rerank_pool and rerank_topic_pool are 0)",
}


def reranks(table: Mapping[str, Any]) -> bool:
    """Whether the raw ``[ranking]`` table lets a fast tier's sentences be re-ranked: the ranking on and
    a pool above 0 (``search.engine.ranking.RankingConfig.reranks`` of the validated table)."""
    if table.get("enabled", True) is False:
        return False
    return any(table.get(key, 1) != 0 for key in ("rerank_pool", "rerank_topic_pool"))


def _rerank(st: IndexStatus, settings: Settings) -> None:
    """While searches rank with the fast tier, whether a sentence's candidates are re-ranked by the full
    tier's model: a search does that only when the model runs without a long wait first (its export
    made: :meth:`models.Embedder.ready`), the ranking is on and its ``[ranking]`` pools are not both 0
    (``search.engine.ranking.RankingConfig.reranks``, read here from the raw table, as ``indexer`` does
    not import ``search``: the search side validates it)."""
    if st.search_tier != "fast":
        return
    if not reranks(settings.ranking):
        st.rerank = "off"
        return
    try:
        ready = make_embedder(tier_config(settings.model, "full")).ready()
    except PlaitError:  # the configured model cannot be found: a search says so
        return
    st.rerank = "ready" if ready else "needs the model's export"


def saved_status(settings: Settings, *, check_files: bool = True) -> IndexStatus | None:
    """The status of a local index from the record its last build saved, or ``None`` when there is
    none that is current, or a writer is at work (status then shows what it has written so far), or
    the index is not local. Needs neither LanceDB nor pyarrow: ``plait status`` asks this first."""
    if not settings.index_is_local:
        return None
    location = Path(settings.index_dir)
    saved = read_status_view(location)
    if saved is None or writer_active(settings.index_dir):
        return None
    record, manifest = saved
    try:
        st = _from_record(IndexStatus(IndexState.FRESH, str(settings.root), settings.index_dir), record)
    except (KeyError, TypeError, ValueError):  # a record of another shape: read the tables
        return None
    if _same_fingerprint(st, record.get("fingerprint"), settings):
        _same_model(st, settings)
        _rerank(st, settings)
        if check_files:
            _compare_files(settings, st, manifest)
            st.checkout = tree_revision(settings.root)
    st.size_bytes = _dir_size(location)
    return st


def _interrupted(location: str, meta: Mapping[str, Any]) -> bool:
    """A build started and did not finish, and no writer holds the lock now (it was killed)."""
    build = meta.get("build")
    running = isinstance(build, dict) and build.get("state") == "running"
    return (running or "fingerprint" not in meta) and not writer_active(location)


def _interrupted_first_build(location: str, local: bool) -> bool:
    """A first build was killed before it made the files table: plait's tables are there, and no
    writer is at work."""
    if not local:
        return False
    try:
        started = ownership.read_marker(Path(location)) is not None and any(
            e.name.endswith(".lance") for e in os.scandir(location)
        )
    except OSError:
        return False
    return started and not writer_active(location)


def _compare_files(settings: Settings, st: IndexStatus, manifest: Mapping[str, tuple[str, int, int]]) -> None:
    seen = set()
    for f in Walker(settings).walk(WalkStats()):
        seen.add(f.path)
        old = manifest.get(f.path)
        if old is None:
            st.new_files.append(f.path)
        elif old[1] != f.size or old[2] != f.mtime_ns:
            try:
                if sha256_hex(read_beneath(settings.root, f.path, 1 << 30)) != old[0]:
                    st.stale_files.append(f.path)
            except OSError:
                st.stale_files.append(f.path)
    st.deleted_files = sorted(set(manifest) - seen)
    if st.stale_files or st.new_files or st.deleted_files:
        st.state = IndexState.STALE


def _dir_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total

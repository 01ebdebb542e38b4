"""The saved BM25 index of an index on object storage: ``<uri>/lexical/chunks-v<N>.bm25``, beside its tables.

A local index saves its BM25 index in its own folder (:mod:`indexer.bm25_store`); without this, every
process reading an index on object storage tokenised all its chunks on its first text search (2.2 s
for 5,821 chunks, measured with ``python -m benchmarks object-storage``). The writer uploads the file
after each build (:meth:`~indexer.bm25_store.Bm25Store.prepare`, where the local index saves
its own), in the same format, and deletes the files of other versions (names only plait makes, under
the index's own prefix); a reader's first search downloads the one of its snapshot's chunks version
and loads it as a local one is loaded: checked against the chunks' content hashes, so a missing,
stale or unreadable file only costs a rebuild. Readers never write to the store.

Best effort on both sides: a failure is logged and the search (or the build) goes on.
"""

from __future__ import annotations

import logging
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

    from indexer.lexical import LexicalIndex

log = logging.getLogger(__name__)

PREFIX = "lexical/"
MAX_BYTES = 1 << 30  # a file larger than this is not downloaded (the index is rebuilt instead)
_NAME = re.compile(r"lexical/chunks-v(\d+)\.(bm25|npz)")  # .npz: an older plait's


def key(version: int) -> str:
    return f"{PREFIX}chunks-v{version}.bm25"


def _store(uri: str) -> Any:
    from obstore.store import from_url

    return from_url(uri)


def load(uri: str, version: int, table: pa.Table) -> LexicalIndex | None:
    """The BM25 index saved at ``uri`` for chunks ``version``, checked against ``table`` (the chunks'
    ``content_hash`` column); ``None`` when there is none, or it is unreadable or for other chunks."""
    import obstore

    from indexer.lexical import LexicalIndex

    try:
        got = obstore.get(_store(uri), key(version))
        if int(got.meta["size"]) > MAX_BYTES:
            return None
        data = bytes(got.bytes())
    except FileNotFoundError:
        return None
    except Exception as exc:  # obstore's own errors (network, credentials): the index is rebuilt
        log.info("could not read the saved BM25 index at %s: %s", uri, exc)
        return None
    return LexicalIndex.load(data, table)


def save(uri: str, version: int, index: LexicalIndex) -> bool:
    """Upload ``index`` as chunks ``version``'s and delete other versions' files; whether it was saved."""
    import obstore

    store = _store(uri)
    try:
        with tempfile.TemporaryDirectory(prefix="plait-bm25-") as tmp:
            path = Path(tmp) / "chunks.bm25"
            index.save(path)
            obstore.put(store, key(version), path.read_bytes())
        for batch in obstore.list(store, prefix=PREFIX):
            for entry in batch:
                name = str(entry["path"])
                match = _NAME.fullmatch(name)
                if match is not None and name != key(version):
                    obstore.delete(store, name)
    except Exception as exc:  # best effort: readers then build the index themselves
        log.warning("could not save the BM25 index at %s: %s", uri, exc)
        return False
    return True


def saved(uri: str, version: int) -> bool:
    """Whether chunks ``version``'s BM25 index is saved at ``uri`` (one HEAD request)."""
    import obstore

    try:
        obstore.head(_store(uri), key(version))
    except Exception:  # not found, or unreachable: either way not known to be there
        return False
    return True

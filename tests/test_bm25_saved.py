"""The saved BM25 index at scale: saved by a build before its vectors, one file read memory-mapped,
built a window at a time with the same results as in one pass, and an older format rebuilt."""

from __future__ import annotations

import contextlib
import mmap
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from process_harness import alive

import indexer.lexical as lexical_module
import indexer.vector_build as vector_build
from indexer import Index, bm25_file, bm25_store
from indexer.heap import release_heap
from indexer.lexical import COLUMNS, LexicalIndex, phrase_tokens
from models import HashingEmbedder

QUERIES = [
    "retry the failed upload",
    "drain pending queue items",
    "handler_7",
    "UploadQueue retries",
    "journal commit",
    "nothing matches zebra",
]


def chunk_table(n: int) -> pa.Table:
    """``n`` chunks over ``n // 3`` files, symbols and kinds present and missing, repeated contents."""
    texts = [
        f"def handler_{i % 40}(request):\n    return retry_upload(request, {i % 7})\n# journal commit {i % 11}"
        if i % 5
        else f"class UploadQueue{i % 9}:\n    retries = {i}\n    # drain the pending items"
        for i in range(n)
    ]
    return pa.table(
        {
            "path": [f"src/m{i // 3:03d}.py" if i % 4 else f"docs/p{i // 3}.md" for i in range(n)],
            "start_line": [1 + 10 * (i % 3) for i in range(n)],
            "end_line": [9 + 10 * (i % 3) for i in range(n)],
            "symbol": [f"handler_{i}" if i % 2 else None for i in range(n)],
            "kind": ["function" if i % 2 else None for i in range(n)],
            "language": ["python" if i % 4 else "markdown" for i in range(n)],
            "content_hash": [f"h{i}:{texts[i]}" for i in range(n)],
            "text": texts,
        }
    )


def mapped(array: np.ndarray) -> bool:
    """Whether ``array`` is a view of a file mapping."""
    base = array.base
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "obj", None) if isinstance(base, memoryview) else getattr(base, "base", None)
    return base is not None


def same_answers(a: LexicalIndex, b: LexicalIndex) -> None:
    for query in QUERIES:
        assert a.search(query, 25) == b.search(query, 25), query
    mask_a = a.file_mask(lambda p, lang: p.startswith("docs/"))
    mask_b = b.file_mask(lambda p, lang: p.startswith("docs/"))
    assert a.search("drain pending", 10, allow=mask_a) == b.search("drain pending", 10, allow=mask_b)
    for phrase in ("retry_upload request", "journal commit", "pending zebra items"):
        assert a.files_holding(phrase_tokens(phrase)) == b.files_holding(phrase_tokens(phrase))
    for path in ("src/m001.py", "docs/p4.md", "src/absent.py"):
        assert a.spans_of(path) == b.spans_of(path)
    assert a.rows() == b.rows()


@pytest.mark.parametrize("spill", [1 << 30, 100])
def test_windows_and_postings_buckets_give_the_one_pass_index(
    monkeypatch: pytest.MonkeyPatch, spill: int, tmp_path: Path
) -> None:
    table = chunk_table(300)
    whole = LexicalIndex(table)
    monkeypatch.setattr(lexical_module, "POSTINGS_BUCKET", 50)  # many token ranges, sorted apart
    monkeypatch.setattr(lexical_module, "SPILL_BYTES", spill)  # 100: token lists through a temporary file
    windowed = LexicalIndex.build(table.to_batches(max_chunksize=37))
    assert len(table.to_batches(max_chunksize=37)) > 5
    assert whole.search("handler_7", 3)  # the queries find something
    same_answers(windowed, whole)
    windowed.save(tmp_path / "chunks-v1.bm25")  # the token lists copied from the temporary file
    saved = LexicalIndex.load(tmp_path / "chunks-v1.bm25", table)
    assert saved is not None
    same_answers(saved, whole)
    grown = pa.concat_tables([table, chunk_table(305).slice(300)])
    reused = LexicalIndex(grown, windowed)  # the previous index's token lists read from the file
    assert reused.search("retry upload", 30) == LexicalIndex(grown).search("retry upload", 30)


def test_the_saved_file_is_mapped_and_answers_as_the_index_it_was_saved_from(tmp_path: Path) -> None:
    table = chunk_table(200)
    built = LexicalIndex(table)
    path = tmp_path / "chunks-v7.bm25"
    built.save(path)
    loaded = LexicalIndex.load(path, table.select(["content_hash"]))
    assert loaded is not None
    assert mapped(loaded._docs) and mapped(loaded._doc_tokens)  # read in place, not copied
    same_answers(loaded, built)
    again = LexicalIndex.load(path.read_bytes(), table)  # from the bytes, as a reader of object storage
    assert again is not None
    same_answers(again, built)
    # for other chunks (a content hash differs, or one row more) the file is not trusted
    changed = table.set_column(
        6, "content_hash", pa.array(["x", *table.column("content_hash").to_pylist()[1:]])
    )
    assert LexicalIndex.load(path, changed) is None
    assert LexicalIndex.load(path, chunk_table(201)) is None
    # a new version reuses the mapped tokens of the unchanged chunks and scores as a fresh build
    grown = pa.concat_tables([table, chunk_table(203).slice(200)])
    assert LexicalIndex(grown, loaded).search("handler_7", 20) == LexicalIndex(grown).search("handler_7", 20)


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b""),
        lambda p: p.write_bytes(b"not a bm25 file"),
        lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),  # cut short
        lambda p: bm25_file.write(p, {"docs": np.zeros(3, "int32")}, {"format": 3}),
    ],
)
def test_an_unreadable_or_older_file_is_refused(tmp_path: Path, damage) -> None:
    table = chunk_table(50)
    path = tmp_path / "chunks-v1.bm25"
    LexicalIndex(table).save(path)
    damage(path)
    assert LexicalIndex.load_saved(path) is None
    assert LexicalIndex.load(path, table) is None


FILES = {
    f"src/m{i}.py": f"def handler_{i}(request):\n    return retry_upload(request, {i})\n" for i in range(24)
}


class Stopped(Exception):
    """The build was stopped (a kill, in real life) after its chunks were published."""


def test_a_build_stopped_in_its_vectors_has_saved_the_bm25_file(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch, count_tokenising
) -> None:
    settings = settings_for(make_repo(FILES))
    monkeypatch.setattr(vector_build, "VECTOR_BATCH", 4)  # 24 chunks: a long vectors phase
    monkeypatch.setattr(vector_build, "FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.FAST_VECTOR_BATCH", 4)

    def stop(self, texts):
        raise Stopped

    monkeypatch.setattr(HashingEmbedder, "embed_documents", stop)
    with pytest.raises(Stopped):
        Index(settings).build()
    monkeypatch.undo()
    reader = Index(settings)
    snap = reader.snapshot()
    version = snap.versions["chunks"]
    assert snap.count("chunks") == 24 and reader.coverage()[0] == 0  # chunks published, no vector
    saved = Path(settings.index_dir) / "lexical" / f"chunks-v{version}.bm25"
    assert saved.exists()
    tokenised = count_tokenising()
    hits = reader.lexical().search("handler_7", 3)
    assert not tokenised  # mapped from the file, nothing tokenised
    assert hits == LexicalIndex(snap.read("chunks", COLUMNS)).search("handler_7", 3)
    assert hits[0].path == "src/m7.py"


def test_a_whole_build_tokenises_once_though_compaction_makes_a_new_chunks_version(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch, count_tokenising
) -> None:
    settings = settings_for(make_repo(FILES))
    monkeypatch.setattr(vector_build, "VECTOR_BATCH", 4)
    monkeypatch.setattr(vector_build, "FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.COMPACT_FILES", 1)  # compacts: the chunks get a new version
    tokenised = count_tokenising()
    index = Index(settings)
    index.build()
    version = index.snapshot().versions["chunks"]
    saved = sorted((Path(settings.index_dir) / "lexical").glob("chunks-v*"))
    assert [p.name for p in saved] == [f"chunks-v{version}.bm25"]  # the final version's, only
    assert len(tokenised) == 1  # before the vectors; after compaction the same file, linked
    assert Index(settings).lexical().search("handler_7", 1)[0].path == "src/m7.py"
    assert len(tokenised) == 1


def test_an_older_plaits_npz_file_is_rebuilt_and_removed(make_repo, settings_for) -> None:
    settings = settings_for(make_repo(FILES))
    Index(settings).build()
    lexical = Path(settings.index_dir) / "lexical"
    version = Index(settings).snapshot().versions["chunks"]
    for p in lexical.glob("chunks-v*"):
        p.unlink()
    old = lexical / f"chunks-v{version}.npz"
    old.write_bytes(b"PK\x03\x04 an older plait's zip of arrays")
    assert Index(settings).lexical().search("handler_7", 1)[0].path == "src/m7.py"
    assert [p.name for p in lexical.glob("chunks-v*")] == [f"chunks-v{version}.bm25"]


def test_a_large_build_saves_the_bm25_file_in_a_child_process(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch, count_tokenising
) -> None:
    settings = settings_for(make_repo(FILES))
    monkeypatch.setattr(vector_build, "FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr(vector_build, "VECTOR_BATCH", 4)
    monkeypatch.setattr(bm25_store, "CHILD_MIN_CHUNKS", 10)  # 24 chunks: "large"
    tokenised = count_tokenising()
    index = Index(settings)
    index.build()
    assert not tokenised  # not in this process: the child built it
    version = index.snapshot().versions["chunks"]
    saved = Path(settings.index_dir) / "lexical" / f"chunks-v{version}.bm25"
    assert saved.exists()
    assert Index(settings).lexical().search("handler_7", 1)[0].path == "src/m7.py"
    assert not tokenised


def test_an_unfinished_file_of_a_process_that_is_gone_is_removed_when_the_index_is_saved(
    make_repo, settings_for
) -> None:
    # A process killed while it saved the BM25 file (the OOM killer, SIGKILL) leaves its temporary
    # file, as large as the index; the next save removes it. A live process's file is its own.
    settings = settings_for(make_repo(FILES))
    lexical = Path(settings.index_dir) / "lexical"
    lexical.mkdir(parents=True)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead = lexical / f".chunks-v3.bm25.{int(gone.stdout)}.140000.tmp"
    live = lexical / f".chunks-v3.bm25.{os.getpid()}.140000.tmp"
    other = lexical / ".chunks-v3.bm25.notes.tmp"
    for p in (dead, live, other):
        p.write_bytes(b"partial")
    Index(settings).build()
    assert not dead.exists()
    assert live.exists() and other.exists()


def test_the_parent_gives_back_its_freed_heap_before_the_child_builds() -> None:
    # Both processes are resident while the child builds: the freed heap the parent's parse left would
    # count twice. glibc keeps medium blocks freed between live ones until malloc_trim.
    import platform

    blocks = [bytes(2000) + i.to_bytes(4, "little") for i in range(50_000)]  # ~100 MB
    kept = blocks[::100]
    del blocks
    given = release_heap()
    assert len(kept) == 500
    if platform.libc_ver()[0] == "glibc":
        assert given > 50 << 20
    else:
        assert given == 0


def _helpers(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


def test_helpers_that_tokenise_ahead_give_the_index_of_one_process(tmp_path: Path) -> None:
    # A large build's child has worker processes tokenise the next windows while it counts one.
    table = chunk_table(300)
    alone = LexicalIndex.build(table.to_batches(max_chunksize=37))
    with _helpers(2) as pool:
        helped = LexicalIndex.build(table.to_batches(max_chunksize=37), helper=pool)
        with pytest.raises(RuntimeError, match="shutdown"):  # shut down by the build, its windows read
            pool.submit(int)
    same_answers(helped, alone)
    alone.save(tmp_path / "chunks-v1.bm25")
    helped.save(tmp_path / "chunks-v2.bm25")
    assert (tmp_path / "chunks-v1.bm25").read_bytes() == (tmp_path / "chunks-v2.bm25").read_bytes()
    grown = pa.concat_tables([table, chunk_table(305).slice(300)])
    with _helpers(1) as pool:  # only the chunks the previous index lacks are tokenised, by the helper
        reused = LexicalIndex.build(grown.to_batches(max_chunksize=50), helped, helper=pool)
    assert reused.search("retry upload", 30) == LexicalIndex(grown).search("retry upload", 30)
    assert reused.rows() == LexicalIndex(grown).rows()


@pytest.mark.parametrize("broken_before", [True, False])
def test_a_helper_that_dies_leaves_its_windows_to_this_process(broken_before: bool, count_tokenising) -> None:
    table = chunk_table(200)
    alone = LexicalIndex.build(table.to_batches(max_chunksize=30))
    pool = _helpers(1)
    if broken_before:  # gone before the build starts: nothing can be handed to it
        pool.submit(os._exit, 1)
        with pytest.raises(BrokenProcessPool):
            pool.submit(int).result()
    else:  # dies with windows handed to it and not yet tokenised
        pool.submit(time.sleep, 1.0)
        pool.submit(os._exit, 1)
    tokenised = count_tokenising()
    helped = LexicalIndex.build(table.to_batches(max_chunksize=30), helper=pool)
    pool.shutdown()
    assert tokenised  # this process tokenised what the helper could not
    same_answers(helped, alone)


def test_a_large_first_bm25_build_has_helpers_tokenise_and_a_later_one_reuses_tokens_itself(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch, count_tokenising
) -> None:
    root = make_repo(FILES)
    settings = settings_for(root)
    monkeypatch.setattr(bm25_store, "HELPED_MIN_CHUNKS", 10)  # 24 chunks: "many"
    tokenised = count_tokenising()
    index = Index(settings)
    index.build(vectors=False)  # the BM25 file saved in this process, at the end of the build
    assert not tokenised  # every chunk tokenised by the helpers
    snap = index.snapshot()
    assert (Path(settings.index_dir) / "lexical" / f"chunks-v{snap.versions['chunks']}.bm25").exists()
    fresh = LexicalIndex(snap.read("chunks", COLUMNS))
    same_answers(Index(settings).lexical(), fresh)
    (root / "src/m3.py").write_text("def drain_queue():\n    return pending_items\n")
    index.build(vectors=False)
    assert tokenised  # one changed chunk: tokenised here, the others' tokens reused
    snap = index.snapshot()
    same_answers(Index(settings).lexical(), LexicalIndex(snap.read("chunks", COLUMNS)))


HELPERS_OF_A_KILLED_BUILD = """
import os, time
from indexer import bm25_store
with bm25_store._helpers(True) as pool:
    if pool is None:
        print(flush=True)
    else:
        pids = set()
        for _ in range(50):  # until both workers have taken a job
            pids.update(f.result() for f in [pool.submit(os.getpid) for _ in range(200)])
            if len(pids) == bm25_store.HELPERS:
                break
        print(*sorted(pids), flush=True)
    time.sleep(600)
"""


def test_the_helpers_end_when_the_process_they_tokenise_for_is_killed() -> None:
    # A build (or the child saving its BM25 file) killed with SIGKILL cannot shut its pool down; the
    # helpers, which hold their task queue's write end, would wait for work forever.
    proc = subprocess.Popen(
        [sys.executable, "-c", HELPERS_OF_A_KILLED_BUILD], stdout=subprocess.PIPE, text=True
    )
    helpers: list[int] = []
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.strip():
            pytest.skip("one usable core: no helpers")
        helpers = [int(p) for p in line.split()]
        assert len(helpers) == bm25_store.HELPERS and proc.pid not in helpers and all(map(alive, helpers))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30
        while any(alive(p) for p in helpers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(p) for p in helpers), "a killed build's helpers kept running"
    finally:
        proc.kill()
        proc.wait()
        for pid in helpers:  # a failed run leaves none behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_postings_dealt_to_their_token_ranges_are_those_read_range_by_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(7)
    lengths = rng.integers(0, 40, 500)
    doc_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    width = 300
    tokens = np.minimum(rng.zipf(1.3, int(doc_offsets[-1])) - 1, width - 1).astype(np.int32)  # a few common
    counts = rng.integers(1, 9, len(tokens)).astype(np.uint16)

    def parts(values: np.ndarray) -> lexical_module._Parts:
        made = lexical_module._Parts(values.dtype)
        for i in range(0, len(values), 333):
            made.append(values[i : i + 333])
        return made

    monkeypatch.setattr(lexical_module, "POSTINGS_BUCKET", 400)  # blocks of 400 and several token ranges
    monkeypatch.setattr(lexical_module, "SPILL_BYTES", 1000)
    offsets, docs, tf = lexical_module._postings(doc_offsets, parts(tokens), parts(counts), width)
    # what they must be: for each token, the documents holding it, ascending, with the counts there
    doc_of = np.repeat(np.arange(len(lengths)), lengths)
    order = np.lexsort((np.arange(len(tokens)), tokens))
    assert np.array_equal(offsets, np.concatenate(([0], np.cumsum(np.bincount(tokens, minlength=width)))))
    assert np.array_equal(docs.array(), doc_of[order]) and np.array_equal(tf.array(), counts[order])
    assert len(np.unique(np.searchsorted(offsets, offsets[:-1] + 400, "right"))) > 3  # ranges were dealt

    def no_space(*args: object, **kwargs: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lexical_module.tempfile, "TemporaryFile", no_space)  # each range read alone
    again = lexical_module._postings(doc_offsets, parts(tokens), parts(counts), width)
    assert np.array_equal(again[0], offsets)
    assert np.array_equal(again[1].array(), docs.array()) and np.array_equal(again[2].array(), tf.array())

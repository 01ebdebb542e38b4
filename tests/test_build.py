"""The incremental build: symbols, chunks, manifest and vectors stay exact through every change."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest

from indexer import Index, IndexLockedError, IndexState, Settings
from indexer.lock import writer_lock
from indexer.store import Store

PY_A = '''"""Module a."""


class Alpha:
    """An alpha."""

    def run(self, x):
        return x + 1


def helper(y):
    return y * 2
'''
PY_B = "def beta():\n    return 'b'\n"


def rows(index: Index, table: str, *cols: str) -> list[tuple]:
    data = index.store.read(table, list(cols))
    if data.num_rows == 0:
        return []
    return sorted(zip(*(data.column(c).to_pylist() for c in cols), strict=True))


def symbol_rows(index: Index) -> list[tuple]:
    return rows(index, "symbols", "path", "qualified_name", "kind", "start_line", "end_line")


def assert_consistent(index: Index) -> None:
    """No duplicate rows; manifest, symbols, chunks and vectors agree."""
    syms = symbol_rows(index)
    assert len(syms) == len(set(syms)), "duplicate symbols"
    chunk_ids = [r[0] for r in rows(index, "chunks", "chunk_id")]
    assert len(chunk_ids) == len(set(chunk_ids)), "duplicate chunks"
    manifest = index.manifest()
    files = rows(index, "files", "path")
    assert len(files) == len(set(files)) == len(manifest), "duplicate manifest rows"
    assert {r[0] for r in rows(index, "chunks", "path")} <= set(manifest)
    assert {r[0] for r in syms} <= set(manifest)
    counts = Counter(r[0] for r in rows(index, "chunks", "chunk_id", "path") for r in [r[1:]])
    for path, (_h, _s, _m) in manifest.items():
        assert counts.get(path, 0) >= 0
    vec_table = index.store.get_meta().get("model", {}).get("table")
    if vec_table:
        vec_ids = [r[0] for r in rows(index, vec_table, "chunk_id")]
        assert sorted(vec_ids) == sorted(chunk_ids), "vectors and chunks disagree"


def test_build_then_no_change_rebuild_parses_nothing(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A, "b.py": PY_B, "README.md": "# Title\n\nSome words.\n"})
    index = Index(settings_for(root))
    first = index.build()
    assert (first.files, first.changed) == (3, 3)
    assert ("a.py", "Alpha.run", "method", 7, 8) in symbol_rows(index)
    assert first.vectors == first.chunks_total > 0
    again = index.build()
    assert (again.changed, again.deleted, again.unchanged, again.embedded) == (0, 0, 3, 0)
    assert_consistent(index)
    assert index.status().state == IndexState.FRESH


def test_modify_add_delete_rename_are_reflected_exactly(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A, "b.py": PY_B})
    index = Index(settings_for(root))
    index.build()
    (root / "a.py").write_text(PY_A.replace("def helper(y)", "def helper2(y)"))
    (root / "c.py").write_text("def gamma():\n    pass\n")
    (root / "b.py").rename(root / "b_renamed.py")
    report = index.build()
    assert (report.changed, report.deleted) == (3, 1)
    names = {(p, q) for p, q, *_ in symbol_rows(index)}
    assert ("a.py", "helper2") in names and ("a.py", "helper") not in names
    assert ("c.py", "gamma") in names
    assert ("b_renamed.py", "beta") in names and ("b.py", "beta") not in names
    (root / "c.py").unlink()
    index.build()
    assert "c.py" not in index.manifest()
    assert not [r for r in symbol_rows(index) if r[0] == "c.py"]
    assert_consistent(index)


def test_touch_without_content_change_reparses_nothing(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A})
    index = Index(settings_for(root))
    index.build()
    os.utime(root / "a.py", (time.time() + 5, time.time() + 5))
    report = index.build()
    assert (report.changed, report.embedded) == (0, 0)
    assert index.status().state == IndexState.FRESH


def test_editing_one_function_reembeds_only_changed_chunks(make_repo, settings_for) -> None:
    funcs = "\n\n".join(
        f"def f{i}(x):\n    '''Doc {i}.'''\n" + "    y = x\n" * 8 + "    return y" for i in range(6)
    )
    root = make_repo({"m.py": funcs + "\n"})
    index = Index(settings_for(root))
    first = index.build()
    assert first.embedded == first.chunks_total
    (root / "m.py").write_text(funcs.replace("'''Doc 3.'''", "'''Doc three.'''") + "\n")
    report = index.build()
    assert report.changed == 1
    assert report.embedded == 1  # only the chunk holding f3 has new text
    assert_consistent(index)


def test_embedding_cache_survives_delete_and_restore(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A, "b.py": PY_B})
    index = Index(settings_for(root))
    index.build(tier="full")
    (root / "b.py").unlink()
    index.build(tier="full")
    (root / "b.py").write_text(PY_B)  # like switching back to a branch
    report = index.build(tier="full")  # the transformer's vectors are cached (the fast tier's cost less)
    assert report.changed == 1
    assert report.tiers["full"]["embedded"] == 0 and report.tiers["full"]["from_cache"] >= 1


def test_lock_refuses_a_second_writer_with_a_clear_message(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A})
    settings = settings_for(root)
    index = Index(settings)
    Path(settings.index_dir).mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys,time; from indexer.lock import writer_lock\n"
         "with writer_lock(sys.argv[1]):\n    print('locked', flush=True); time.sleep(60)", settings.index_dir],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(IndexLockedError, match=rf"another plait process \(pid {holder.pid}\)"):
            index.build()
    finally:
        holder.kill()
        holder.wait()
    assert index.build().changed == 1  # free again once the holder is gone
    with writer_lock(settings.index_dir):  # and the lock is not held after a build
        pass


def test_schema_change_rebuilds_without_manual_delete(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A})
    index = Index(settings_for(root))
    index.build()
    index.store.set_meta(fingerprint={"schema": -1})
    assert index.status().state == IndexState.SCHEMA_MISMATCH
    report = index.build()
    assert report.rebuilt_reason is not None and report.changed == 1
    assert index.status().state == IndexState.FRESH


def test_corrupt_index_is_rebuilt(make_repo, settings_for) -> None:
    root = make_repo({"a.py": PY_A})
    settings = settings_for(root)
    index = Index(settings)
    index.build()
    for manifest_dir in Path(settings.index_dir, "symbols.lance", "_versions").iterdir():
        manifest_dir.write_bytes(b"garbage")
    fresh = Index(settings)
    assert fresh.status().state == IndexState.CORRUPT
    report = fresh.build()
    assert report.rebuilt_reason is not None
    assert ("a.py", "Alpha", "class", 4, 8) in symbol_rows(fresh)


BUILD_SCRIPT = """
import sys
from pathlib import Path
from indexer import Index, load_settings
s = load_settings(Path(sys.argv[1]), env={}, overrides={"index_dir": sys.argv[2], "model_name": "hashing"})
Index(s).build()
"""


def test_killed_build_leaves_a_usable_index_and_the_next_build_completes_it(
    make_repo, settings_for, tmp_path
) -> None:
    files = {
        f"pkg{i // 100}/mod{i}.py": f"class C{i}:\n    def m{i}(self):\n        return {i}\n\n\ndef f{i}():\n    return C{i}()\n"
        for i in range(1500)
    }
    root = make_repo(files)
    settings = settings_for(root)
    index = Index(settings)
    index.build()  # a committed index to keep usable
    for i in range(1500):  # change everything, so the next build rewrites every batch
        (root / f"pkg{i // 100}/mod{i}.py").write_text(files[f"pkg{i // 100}/mod{i}.py"] + f"\nX{i} = {i}\n")
    proc = subprocess.Popen([sys.executable, "-c", BUILD_SCRIPT, str(root), settings.index_dir])
    versions = Path(settings.index_dir, "files.lance", "_versions")
    start = len(list(versions.iterdir()))
    deadline = time.monotonic() + 120
    while len(list(versions.iterdir())) == start and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the build finished before it could be killed"
    # Readers still get an index: every symbol is there exactly once (old or new version).
    reader = Index(settings)
    syms = symbol_rows(reader)
    assert len(syms) == len(set(syms))
    assert len({(p, q) for p, q, *_ in syms if q.startswith("C") and "." not in q}) == 1500
    report = reader.build()
    assert report.changed > 0
    assert_consistent(reader)
    clean = Index(settings_for(root, index_dir=str(tmp_path / "clean")))
    clean.build()
    assert symbol_rows(reader) == symbol_rows(clean)


STORE_ADD, STORE_DELETE_IN = Store.add, Store.delete_in


def stop_at_add(monkeypatch: pytest.MonkeyPatch, table: str, nth: int) -> None:
    """Make the ``nth`` addition of rows to ``table`` fail as a full disk would (undo: :func:`resume`)."""
    add, calls = STORE_ADD, {"n": 0}

    def failing(self: Store, name: str, *args: object, **kwargs: object) -> None:
        if name == table:
            calls["n"] += 1
            if calls["n"] == nth:
                raise OSError("disk full")
        add(self, name, *args, **kwargs)

    monkeypatch.setattr(Store, "add", failing)


def resume(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, set[str]]]:
    """Undo :func:`stop_at_add`; from now on record each delete of rows (table, paths)."""
    monkeypatch.setattr(Store, "add", STORE_ADD)
    deleted: list[tuple[str, set[str]]] = []
    delete_in = STORE_DELETE_IN

    def recording(self: Store, name: str, column: str, values: Iterable[str]) -> None:
        values = list(values)
        if values:
            deleted.append((name, set(values)))
        delete_in(self, name, column, values)

    monkeypatch.setattr(Store, "delete_in", recording)
    return deleted


def assert_as_clean(index: Index, root: Path, settings_for, tmp_path: Path) -> None:
    """``index`` is consistent and holds the rows of a build from scratch of ``root``."""
    assert_consistent(index)
    clean = Index(settings_for(root, index_dir=str(tmp_path / "clean")))
    clean.build()
    assert symbol_rows(index) == symbol_rows(clean)
    assert rows(index, "chunks", "chunk_id") == rows(clean, "chunks", "chunk_id")


def numbered_files(numbers: range, name: str = "f") -> dict[str, str]:
    return {f"pkg/mod{i}.py": f"def {name}{i}():\n    return {i}\n" for i in numbers}


def stopped_update(
    make_repo,
    settings_for,
    monkeypatch: pytest.MonkeyPatch,
    first: range,
    update: dict[str, str],
    stop: tuple[str, int],
) -> tuple[Path, Settings, list[tuple[str, set[str]]]]:
    """Index ``first``'s files, write ``update``, stop the next build at ``stop`` (:func:`stop_at_add`);
    the root, its settings and the deletes recorded from then on (:func:`resume`)."""
    root = make_repo(numbered_files(first))
    settings = settings_for(root)
    Index(settings).build()
    for rel, text in update.items():
        (root / rel).write_text(text)
    stop_at_add(monkeypatch, *stop)
    with pytest.raises(OSError, match="disk full"):
        Index(settings).build()
    return root, settings, resume(monkeypatch)


def test_a_first_build_stopped_between_its_rows_and_its_manifest_leaves_no_duplicate_when_resumed(
    make_repo, settings_for, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A first build deletes nothing before adding a batch (its tables hold no row); the build that
    # resumes it finds rows, so it does, and a batch whose manifest was never written is not doubled.
    root = make_repo(numbered_files(range(700)))
    settings = settings_for(root)
    stop_at_add(monkeypatch, "files", 2)  # the second batch's symbols and chunks are in, its manifest not
    with pytest.raises(OSError, match="disk full"):
        Index(settings).build()
    deleted = resume(monkeypatch)
    resumed = Index(settings)
    kept = set(resumed.manifest())
    assert 0 < len(kept) < 700
    orphans = {p for (p,) in rows(resumed, "chunks", "path") if p not in kept}
    assert orphans  # the second batch's rows, with no manifest row
    report = resumed.build()
    assert report.changed == 700 - 300
    assert_as_clean(resumed, root, settings_for, tmp_path)
    # Those rows are deleted once, before the batches; the batches' new files had none to delete.
    assert deleted == [("symbols", orphans), ("chunks", orphans)]


def test_a_few_new_files_whose_rows_a_stopped_build_left_are_replaced_batch_by_batch(
    make_repo, settings_for, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Too few new files for a sweep: their batch deletes their rows before adding them, orphans or not.
    new_files = numbered_files(range(20, 25))
    root, settings, deleted = stopped_update(
        make_repo, settings_for, monkeypatch, range(20), new_files, ("files", 1)
    )
    resumed = Index(settings)
    new = set(new_files)
    assert new <= {p for (p,) in rows(resumed, "chunks", "path")} and not new & set(resumed.manifest())
    assert resumed.build().changed == 5
    assert deleted == [("symbols", new), ("chunks", new)]
    assert_as_clean(resumed, root, settings_for, tmp_path)


def test_a_build_stopped_between_its_symbols_and_its_chunks_leaves_no_duplicate_when_resumed(
    make_repo, settings_for, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Half the files change (their rows are replaced batch by batch) and 400 new ones come; the third
    # batch's symbols are in, its chunks and manifest rows not.
    update = numbered_files(range(0, 700, 2), "g") | numbered_files(range(700, 1100))
    root, settings, _ = stopped_update(
        make_repo, settings_for, monkeypatch, range(700), update, ("chunks", 3)
    )
    resumed = Index(settings)
    resumed.build()
    assert_as_clean(resumed, root, settings_for, tmp_path)


def test_search_through_an_ann_index_returns_as_many_hits_as_asked(make_repo, settings_for) -> None:
    """LanceDB refuses an HNSW beam narrower than limit × refine factor; deep searches must still work."""
    files = {f"m{i}.py": f"def handler_{i}(event):\n    return event.get('k{i}')\n" for i in range(300)}
    root = make_repo(files)
    index = Index(settings_for(root))
    index.build()
    table = index.store.get_meta()["model"]["table"]
    assert index.store.ensure_ann(table, min_rows=100) is not None
    index.build()  # nothing changed, but the build publishes the table version that carries the index
    pinned = index.pinned()
    assert pinned.snapshot().has_ann(table)
    hits = pinned.nearest("handle an event", limit=60)
    assert len(hits) == 60


def handler_files(n: int) -> dict[str, str]:
    """``n`` one-function modules under ``pkg/``."""
    return {f"pkg/m{i}.py": f"def handler_{i}(event):\n    return event.get('k{i}')\n" for i in range(n)}


def fragments(store: Store, name: str) -> int:
    return int(store.table(name).stats()["fragment_stats"]["num_fragments"])


def test_a_large_build_compacts_the_parsed_tables_while_it_writes_the_vectors(
    make_repo, settings_for, monkeypatch
) -> None:
    # The vectors phase leaves a core partly idle: the tables the parsing wrote (one fragment a batch
    # of files) are compacted on a thread meanwhile, the vectors' reads of the chunks unaffected.
    import indexer.build
    from indexer.report import BuildReport
    from indexer.vector_build import VectorWriter

    monkeypatch.setattr(indexer.build, "FILE_BATCH", 50)
    root = make_repo(handler_files(260))
    index = Index(settings_for(root))
    seen: list[int] = []
    build_tiers = VectorWriter.build_tiers

    def observed(self: VectorWriter, report: BuildReport) -> tuple[str, ...]:
        seen.append(fragments(self.store, "chunks"))  # as the vectors phase starts: one per batch
        deadline = time.monotonic() + 30
        while fragments(self.store, "chunks") > 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.append(fragments(self.store, "chunks"))  # compacted while the phase runs
        return build_tiers(self, report)

    monkeypatch.setattr(VectorWriter, "build_tiers", observed)
    report = index.build()
    assert report.changed == 260
    assert seen[0] > 1 and seen[1] == 1
    assert_consistent(index)
    assert len(rows(index, "chunks", "chunk_id")) >= 260


def test_an_ann_index_asked_to_compact_first_is_built_over_one_fragment(tmp_path) -> None:
    import numpy as np
    import pyarrow as pa

    from indexer.store import vectors_schema

    rng = np.random.default_rng(3)
    stores = {flag: Store(str(tmp_path / str(flag))) for flag in (False, True)}
    for flag, store in stores.items():
        for part in range(6):  # six writes: six fragments
            n = 200
            vectors = rng.standard_normal((n, 16)).astype(np.float32)
            rows_ = {
                "chunk_id": [f"c{part}-{k}" for k in range(n)], "path": ["a.py"] * n, "start_line": [1] * n,
                "end_line": [2] * n, "symbol": [None] * n, "kind": ["function"] * n, "language": ["python"] * n,
                "content_hash": [f"h{part}-{k}" for k in range(n)], "text": ["def f(): pass"] * n,
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 16),
            }  # fmt: skip
            store.add("vectors_t", pa.table(rows_, schema=vectors_schema(16)), vectors_schema(16))
        assert fragments(store, "vectors_t") == 6
        assert store.ensure_ann("vectors_t", min_rows=1000, compact_first=flag) is not None
        assert fragments(store, "vectors_t") == (1 if flag else 6)
        assert store.count("vectors_t") == 1200
        assert store.ensure_ann("vectors_t", min_rows=1000, compact_first=flag) is None  # it covers them


def test_a_failing_compaction_beside_the_vectors_loses_nothing(
    make_repo, settings_for, monkeypatch, caplog
) -> None:
    import logging

    import indexer.build

    caplog.set_level(logging.WARNING, logger="indexer.build")

    monkeypatch.setattr(indexer.build, "FILE_BATCH", 50)
    root = make_repo(handler_files(210))
    compact = Store.compact
    failed: list[str] = []

    def broken(self: Store, name: str, **kwargs: object) -> None:
        import threading

        if threading.current_thread().name == "plait-compact":
            failed.append(name)
            raise OSError("disk gone")
        compact(self, name, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "compact", broken)
    index = Index(settings_for(root))
    report = index.build()
    assert report.changed == 210 and failed == ["files", "symbols", "chunks"]
    assert_consistent(index)
    assert fragments(index.store, "chunks") == 1  # the build's last compaction did it
    assert "compaction of chunks beside the vectors failed: disk gone" in caplog.text  # said, not a traceback


def _vector_table(index: Index) -> str:
    return str(index.store.get_meta()["tiers"]["fast"]["table"])


def test_a_new_vectors_table_holds_no_text_and_an_older_one_keeps_it_until_a_full_build(
    make_repo, settings_for
) -> None:
    import pyarrow as pa

    from indexer.store import CHUNK_FIELDS

    root = make_repo({"a.py": PY_A, "b.py": PY_B})
    settings = settings_for(root)
    Index(settings).build(tier="fast")
    index = Index(settings)
    table = _vector_table(index)
    assert "text" not in index.store.table(table).schema.names
    # An older plait's table: each chunk's text beside its vector.
    vectors = index.store.read(table, None)
    text_of = dict(rows(index, "chunks", "chunk_id", "text"))
    old_schema = pa.schema([*CHUNK_FIELDS, vectors.schema.field("vector")])
    columns = {f.name: vectors.column(f.name) for f in CHUNK_FIELDS if f.name != "text"}
    columns["text"] = pa.array([text_of[c] for c in vectors.column("chunk_id").to_pylist()])
    old = pa.table({**columns, "vector": vectors.column("vector")}).select(old_schema.names).cast(old_schema)
    index.store.drop(table)
    index.store.add(table, old, old_schema)

    (root / "b.py").write_text(PY_B + "\n\ndef gamma():\n    return 'g'\n")
    report = Index(settings).build(tier="fast")
    assert report.changed == 1 and report.embedded > 0
    index = Index(settings)
    assert "text" in index.store.table(table).schema.names  # written as it was made
    texts = dict(rows(index, "chunks", "chunk_id", "text"))
    held = rows(index, table, "chunk_id", "text")
    assert len(held) == len(texts) and all(texts[c] == t for c, t in held)

    Index(settings).build(full=True, tier="fast")
    index = Index(settings)
    assert "text" not in index.store.table(table).schema.names
    assert index.store.count(table) == index.store.count("chunks")


def test_the_fast_tier_adds_its_vectors_many_batches_at_a_time(make_repo, settings_for, monkeypatch) -> None:
    import indexer.vector_build as vector_build

    monkeypatch.setattr(vector_build, "FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr(vector_build, "FAST_WRITE_ROWS", 10)
    settings = settings_for(make_repo({f"m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(23)}))
    added: list[int] = []
    original = Store.add

    def spy(self: Store, name: str, table, schema) -> None:
        if name.startswith("vectors_"):
            added.append(table.num_rows)
        original(self, name, table, schema)

    monkeypatch.setattr(Store, "add", spy)
    Index(settings).build(tier="fast")
    assert added == [12, 11]  # batches of 4 held until 10 rows are: 12, then the last 11
    index = Index(settings)
    assert index.store.count(_vector_table(index)) == index.store.count("chunks") == 23


def test_a_fast_tier_filled_from_empty_keeps_its_large_fragments_under_its_ann_index(
    make_repo, settings_for, monkeypatch
) -> None:
    import indexer.vector_build as vector_build

    monkeypatch.setattr(vector_build, "FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr("indexer.build.FAST_VECTOR_BATCH", 4)
    monkeypatch.setattr(vector_build, "FAST_WRITE_ROWS", 10)
    monkeypatch.setattr(vector_build, "ANN_MIN_ROWS", 20)
    files = {f"m{i}.py": f"def handler_{i}(event):\n    return event.get('k{i}')\n" for i in range(23)}
    settings = settings_for(make_repo(files))
    report = Index(settings).build(tier="fast")
    index = Index(settings)
    table = _vector_table(index)
    assert report.ann is not None and index.store.count(table) == 23
    assert fragments(index.store, table) == 2  # the adds of 12 and 11 rows, neither compacted nor remapped
    assert fragments(index.store, "chunks") == 1  # the parsed tables are compacted as before
    full = Index(settings).build(full=True, tier="fast")  # a full build drops old versions: compacted
    assert full.ann is not None and fragments(Index(settings).store, table) == 1


def test_a_first_build_adds_the_manifest_and_a_later_one_merges_into_it(
    make_repo, settings_for, monkeypatch
) -> None:
    calls: list[str] = []
    add, upsert = Store.add, Store.upsert

    def spy_add(self: Store, name: str, table, schema) -> None:
        calls.append(f"add {name}") if name == "files" else None
        add(self, name, table, schema)

    def spy_upsert(self: Store, name: str, key: str, table, schema) -> None:
        calls.append(f"upsert {name}") if name == "files" else None
        upsert(self, name, key, table, schema)

    monkeypatch.setattr(Store, "add", spy_add)
    monkeypatch.setattr(Store, "upsert", spy_upsert)
    root = make_repo({"a.py": PY_A, "b.py": PY_B})
    settings = settings_for(root)
    Index(settings).build(tier="fast")
    assert calls == ["add files"]
    calls.clear()
    (root / "b.py").write_text(PY_B + "\n\ndef gamma():\n    return 'g'\n")
    (root / "c.py").write_text("def c():\n    return 3\n")
    Index(settings).build(tier="fast")
    assert calls == ["upsert files"]
    index = Index(settings)
    assert [p for (p,) in rows(index, "files", "path")] == ["a.py", "b.py", "c.py"]
    assert_consistent(index)


def test_a_build_that_finds_every_vector_still_makes_the_missing_ann_index(
    make_repo, settings_for, monkeypatch
) -> None:
    """A build killed after its last vectors and before their ANN index: the next build has nothing to
    embed, and makes the index all the same (searches would scan every vector otherwise)."""
    import indexer.vector_build as vector_build

    monkeypatch.setattr(vector_build, "ANN_MIN_ROWS", 20)
    files = {f"m{i}.py": f"def handler_{i}(event):\n    return event.get('k{i}')\n" for i in range(40)}
    settings = settings_for(make_repo(files))
    Index(settings).build(tier="fast")
    table = _vector_table(Index(settings))

    def vector_indexes() -> list[str]:
        return [
            i.name for i in Index(settings).store.table(table).list_indices() if "vector" in list(i.columns)
        ]

    names = vector_indexes()
    assert names  # the first build made it
    Index(settings).store.table(table).drop_index(names[0])  # as if killed before it was made
    assert not vector_indexes()
    report = Index(settings).build(tier="fast")
    assert report.embedded == 0 and report.changed == 0
    assert report.ann is not None
    assert vector_indexes()
    assert Index(settings).build(tier="fast").ann is None  # covered: not made again

"""Snapshot reads: a search never sees a half-applied batch of a build running beside it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from indexer import Index
from indexer.store import Store
from indexer.vector_build import VECTOR_BATCH
from search import Engine, Query

OLD = "def old_name(x):\n    return x + 1\n\n\ndef keeper():\n    return 'kept'\n"
NEW = "def new_name(x):\n    return x + 2\n\n\ndef keeper():\n    return 'kept'\n"


def _state(index: Index, path: str) -> tuple[set[str], set[str], str | None]:
    """(symbol names, chunk symbols, manifest hash) of ``path`` as ``index`` reads it."""
    snap = index.snapshot()
    where = f"path = '{path}'"
    syms = set(snap.read("symbols", ["name"], where).column("name").to_pylist())
    chunks = set(snap.read("chunks", ["symbol"], where).column("symbol").to_pylist())
    row = index.manifest_for([path]).get(path)
    return syms, chunks, row[0] if row else None


def _latest(store: Store, table: str, path: str) -> set[str]:
    column = "name" if table == "symbols" else "symbol"
    return set(store.read(table, [column], f"path = '{path}'").column(column).to_pylist())


def _hook_before_chunks_add(monkeypatch: pytest.MonkeyPatch, check: Callable[[], None]) -> list[int]:
    """Run ``check`` inside the writer's batch: after the symbols were replaced, before the chunks."""
    calls: list[int] = []
    original = Store.add

    def add(self: Store, name: str, rows: Any, schema: Any) -> None:
        if name == "chunks" and not calls:
            calls.append(1)
            check()
        original(self, name, rows, schema)

    monkeypatch.setattr(Store, "add", add)
    return calls


def test_reader_sees_the_old_state_in_the_middle_of_a_batch(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo({"m.py": OLD, "other.py": "def other():\n    return 0\n"})
    settings = settings_for(root)
    Index(settings).build()
    reader = Index(settings)  # another connection, as the server or a CLI search would have
    before = _state(reader, "m.py")
    assert "old_name" in before[0] and "old_name" in before[1]

    seen: dict[str, Any] = {}

    def check() -> None:
        # The writer's tables really are half-applied here: new symbols, old chunks.
        probe = Store(settings.index_dir)
        seen["latest_symbols"] = _latest(probe, "symbols", "m.py")
        seen["latest_chunks"] = _latest(probe, "chunks", "m.py")
        seen["reader"] = _state(reader, "m.py")
        engine = Engine(settings, index=reader)
        try:
            seen["search"] = engine.search(Query("new_name", mode="symbol")).results
        finally:
            engine.close()

    (root / "m.py").write_text(NEW)
    calls = _hook_before_chunks_add(monkeypatch, check)
    Index(settings).build()
    assert calls == [1]
    assert "new_name" in seen["latest_symbols"] and "new_name" not in seen["latest_chunks"]
    assert seen["reader"] == before  # the published snapshot: old symbols, old chunks, old hash
    assert [r for r in seen["search"] if r.symbol == "new_name"] == []

    after = _state(reader, "m.py")
    assert "new_name" in after[0] and "new_name" in after[1] and "old_name" not in after[0]
    assert after[2] != before[2]


def test_one_pinned_search_reads_one_snapshot(make_repo, settings_for) -> None:
    root = make_repo({"m.py": OLD})
    settings = settings_for(root)
    writer = Index(settings)
    writer.build()
    reader = Index(settings)
    pinned = reader.pinned()
    (root / "m.py").write_text(NEW)
    writer.build()
    assert "old_name" in _state(pinned, "m.py")[0]  # still the snapshot it was pinned to
    assert "new_name" in _state(reader, "m.py")[0]  # an unpinned read sees the new publication
    assert [m.symbol.name for m in reader.lookup_symbols("new_name")] == ["new_name"]
    assert all(m.symbol.name != "new_name" for m in pinned.lookup_symbols("new_name", limit=5))


def test_concurrent_searches_never_mix_generations(make_repo, settings_for) -> None:
    """A writer flips one file between two generations while readers check every snapshot."""
    gen = "def gen_{n}_a():\n    return {n}\n\n\ndef gen_{n}_b():\n    return {n}\n"
    root = make_repo({"g.py": gen.format(n=0)})
    settings = settings_for(root)
    Index(settings).build()
    stop = threading.Event()
    problems: list[str] = []
    checks = [0]

    def read_loop() -> None:
        reader = Index(settings)
        while not stop.is_set():
            syms, chunks, _ = _state(reader.pinned(), "g.py")
            gens = {s.split("_")[1] for s in syms | {c for c in chunks if c}}
            if len(gens) != 1 or len(syms) != 2:
                problems.append(f"symbols {sorted(syms)} chunks {sorted(c for c in chunks if c)}")
            checks[0] += 1

    thread = threading.Thread(target=read_loop)
    thread.start()
    try:
        writer = Index(settings)
        for n in range(1, 9):
            (root / "g.py").write_text(gen.format(n=n))
            writer.build()
    finally:
        stop.set()
        thread.join()
    assert checks[0] > 0
    assert problems == []


def test_big_builds_publish_progress_small_ones_publish_once(
    make_repo, settings_for, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo({f"m{i}.py": f"def f{i}(x):\n    return x + {i}\n" for i in range(VECTOR_BATCH + 40)})
    settings = settings_for(root)
    published: list[dict[str, int]] = []
    import indexer.build as build

    original = build.publish

    def spy(store: Store, names: Any) -> dict[str, int]:
        versions = original(store, names)
        published.append(versions)
        return versions

    monkeypatch.setattr(build, "publish", spy)
    report = Index(settings).build(tier="full")  # the transformer's tier embeds VECTOR_BATCH at a time
    assert report.embedded > VECTOR_BATCH
    assert len(published) >= 3  # symbols half, each vector batch, the end
    published.clear()
    (root / "small.py").write_text("def small():\n    return 1\n")
    Index(settings).build()
    assert len(published) == 1

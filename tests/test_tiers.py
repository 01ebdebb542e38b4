"""Vector tiers (issue 16): ``plait index`` builds the fast tier by default (a full index stays full),
the full tier on request or in the background, one tier per search, and a build killed with SIGKILL
resuming from what it committed.

The machinery runs with the hashing embedder, whose fast tier is ``hashing-128`` beside the full
``hashing`` (256): two real models with their own tables. The static model itself is tested in
``tests/test_static_model.py``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from cli_harness import plait as run_plait

from indexer import Index, Settings, load_settings
from indexer.build import vector_matrix
from indexer.daemon import start_background_watcher
from indexer.embedding import tier_config
from models.hashing import HashingEmbedder

pytestmark = pytest.mark.timeout(180)
REPO = Path(__file__).resolve().parents[1]
T = TypeVar("T")


def source(i: int) -> str:
    topic = ["parse the config file", "retry a failed upload", "hash a password", "render a template"][i % 4]
    return f"def task_{i}(value):\n    '''{topic} number {i}.'''\n    return value * {i}\n"


def repo(root: Path, files: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (root / f"pkg/m{i:03d}.py").parent.mkdir(parents=True, exist_ok=True)
        (root / f"pkg/m{i:03d}.py").write_text(source(i))
    return root


def settings(root: Path, index_dir: Path) -> Settings:
    return load_settings(root, env={}, overrides={"index_dir": str(index_dir), "model_name": "hashing"})


def cli_env(index_dir: Path) -> dict[str, str]:
    """What a ``plait`` subprocess needs to index with the hashing embedder into ``index_dir``."""
    return {**os.environ, "PLAIT_INDEX_DIR": str(index_dir), "PLAIT_MODEL": "hashing", "HF_HUB_OFFLINE": "1"}


def wait_for(what: str, probe: Callable[[], T], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    last = probe()
    while not last:
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what} (last: {last!r})")
        time.sleep(0.05)
        last = probe()
    return last


def exact_scores(index: Index, tier: str, query: str, k: int) -> list[float]:
    """The top ``k`` cosine similarities of the chunks to ``query`` under ``tier``'s model, computed here."""
    chunks = index.store.read("chunks", ["text"])
    dim = int(tier_config(index.settings.model, tier).name.partition("-")[2] or 256)
    model = HashingEmbedder(dim)
    scores = model.embed_documents(chunks.column("text").to_pylist()) @ model.embed_query(query)
    return [round(float(x), 4) for x in np.sort(scores)[::-1][:k]]


def test_default_build_is_the_full_tier_and_fast_is_asked_for(tmp_path: Path) -> None:
    s = settings(repo(tmp_path / "repo", 6), tmp_path / "index")
    index = Index(s)
    report = index.build()
    assert set(report.tiers) == {"full"} and report.tiers["full"]["model"] == "hashing-v1-256"
    status = index.status()
    assert status.search_tier == "full" and status.model == "hashing-v1-256"
    assert status.tiers["full"] == {"model": "hashing-v1-256", "vectors": status.chunks, "complete": True}
    assert status.tiers.get("fast", {}).get("vectors", 0) == 0  # a full build never makes the static model
    assert status.vectors == status.chunks > 0

    report = Index(s).build(tier="fast")
    assert report.tiers["fast"]["embedded"] == status.chunks
    status = Index(s).status()
    assert status.search_tier == "full"  # complete: searches keep ranking with it
    assert {t: e["complete"] for t, e in status.tiers.items()} == {"fast": True, "full": True}
    with pytest.raises(ValueError, match="tier must be one of"):
        Index(s).build(tier="medium")


def test_a_small_change_keeps_a_complete_full_tier_complete(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", 6)
    s = settings(root, tmp_path / "index")
    Index(s).build(tier="full")
    (root / "pkg/m000.py").write_text(source(0) + "\n\ndef extra():\n    return 'a new helper'\n")
    report = Index(s).build(tier="fast")  # the full tier is topped up, a few chunks only
    assert report.tiers["full"]["embedded"] >= 1
    status = Index(s).status()
    assert status.search_tier == "full" and all(e["complete"] for e in status.tiers.values())


def test_vectors_are_embedded_window_by_window_each_chunk_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory is bounded by a window of chunks, not by the tree: with a window of 7 chunks, a first
    build (the table streamed) and an incremental one (rows read by id) still give every chunk the
    vector of its own text, once."""
    import indexer.vector_build as vector_build

    monkeypatch.setattr(vector_build, "WINDOW", 7)
    root = repo(tmp_path / "repo", 30)
    s = settings(root, tmp_path / "index")
    for step in ("first build", "changed files", "one file"):
        if step == "changed files":  # more than a window: the table scanned, the missing rows kept
            for i in range(0, 30, 3):
                (root / f"pkg/m{i:03d}.py").write_text(source(i) + f"\n\ndef more_{i}():\n    return {i}\n")
        if step == "one file":  # less than a window: rows read by id
            (root / "pkg/m001.py").write_text(source(1) + "\n\ndef one_more():\n    return 'x'\n")
        report = Index(s).build(tier="fast")
        index = Index(s)
        chunks = index.store.read("chunks", ["chunk_id", "text"])
        table = str(tier_entries_of(index)["fast"]["table"])
        vectors = index.store.read(table, ["chunk_id", "vector"])
        assert sorted(vectors.column("chunk_id").to_pylist()) == sorted(chunks.column("chunk_id").to_pylist())
        assert (report.tiers["fast"]["embedded"] > 7) == (step != "one file"), report.tiers
        model = HashingEmbedder(int(tier_config(s.model, "fast").name.partition("-")[2] or 256))
        want = dict(
            zip(
                chunks.column("chunk_id").to_pylist(),
                model.embed_documents(chunks.column("text").to_pylist()),
                strict=True,
            )
        )
        got = dict(
            zip(vectors.column("chunk_id").to_pylist(), vector_matrix(vectors.column("vector")), strict=True)
        )
        assert all(np.allclose(got[c], want[c], atol=1e-5) for c in want), step


def tier_entries_of(index: Index) -> dict[str, Any]:
    from indexer.embedding import tier_entries

    return tier_entries(index.store.get_meta().get("tiers"))


def test_a_search_ranks_with_one_complete_tier_never_two(tmp_path: Path) -> None:
    s = settings(repo(tmp_path / "repo", 40), tmp_path / "index")
    index = Index(s)
    index.build(tier="fast")
    query = "retry a failed upload"
    k = 5

    def ranking() -> list[float]:
        return [round(1.0 - h.distance, 4) for h in Index(s).nearest(query, limit=k)]

    fast_only = ranking()
    assert fast_only == exact_scores(index, "fast", query, k)
    left = Index(s).upgrade("full", limit=7)  # the full tier now holds 7 of 40 vectors
    assert left == Index(s).status().chunks - 7
    status = Index(s).status()
    assert status.search_tier == "fast" and status.tiers["full"] == {
        "model": "hashing-v1-256", "vectors": 7, "complete": False
    }  # fmt: skip
    assert ranking() == fast_only  # the partial full tier is not mixed in
    assert Index(s).coverage() == (status.chunks, status.chunks)
    while Index(s).upgrade("full", limit=16):
        pass
    assert Index(s).status().search_tier == "full"
    assert ranking() == exact_scores(index, "full", query, k)  # now the full tier alone
    assert ranking() != fast_only


def test_a_sentences_dense_leg_counts_less_with_the_fast_tier(tmp_path: Path) -> None:
    """Fused with the fast tier's vectors a sentence's dense leg has weight 0.5, with the full tier's
    2.0: read from the explanation of a result only the dense leg found (fused = w / (60 + rank)).
    0.5 is the weight of the static vectors themselves, with the re-ranking by the full model off
    (re-ranked, they are the full model's ranking: tests/test_rerank.py)."""
    from search import Engine, Query
    from search.engine.engine import FAST_TIER_SENTENCE_VECTOR, WEIGHTS

    s = settings(repo(tmp_path / "repo", 40), tmp_path / "index")
    Index(s).build(tier="fast")
    static = dataclasses.replace(s, ranking={"rerank_pool": 0, "rerank_topic_pool": 0})

    def dense_weights(s: Settings = s) -> set[float]:
        engine = Engine(s)
        try:
            found = engine.search(Query("where is a failed upload retried", limit=30, explain=True)).results
        finally:
            engine.close()
        seen = set()
        for r in found:
            assert r.explain is not None
            ranks = r.explain["ranks"]
            if ranks["vector"] is not None and ranks["text"] is None and ranks["symbol"] is None:
                seen.add(round(r.explain["fused"] * (60 + ranks["vector"]), 3))
        assert seen, "no result found by the dense leg alone"
        return seen

    assert dense_weights(static) == {FAST_TIER_SENTENCE_VECTOR} == {0.5}
    while Index(s).upgrade("full", limit=64):
        pass
    assert dense_weights() == {WEIGHTS["natural"]["vector"]} == {2.0}


def test_watcher_upgrades_to_the_full_tier_in_the_background(tmp_path: Path) -> None:
    s = settings(repo(tmp_path / "repo", 30), tmp_path / "index")
    Index(s).build(tier="fast")
    assert Index(s).status().search_tier == "fast"
    stop = start_background_watcher(s)
    try:
        wait_for("the full tier to complete", lambda: Index(s).status().search_tier == "full")
        status = Index(s).status()
        assert status.tiers["full"]["vectors"] == status.chunks
        table = Index(s).store.get_meta()["tiers"]["full"]["table"]
        rows = Index(s).store.read(table, ["chunk_id", "vector"])
        chunks = Index(s).store.read("chunks", ["chunk_id", "text"])
        text_of = dict(
            zip(chunks.column("chunk_id").to_pylist(), chunks.column("text").to_pylist(), strict=True)
        )
        vectors = vector_matrix(rows.column("vector"))
        texts = [text_of[cid] for cid in rows.column("chunk_id").to_pylist()]
        assert np.allclose(vectors, HashingEmbedder(256).embed_documents(texts), atol=1e-6)
    finally:
        stop()


def test_a_watcher_started_on_a_bare_workspace_embeds_the_fast_tier_first(tmp_path: Path) -> None:
    s = settings(repo(tmp_path / "repo", 30), tmp_path / "index")
    stop = start_background_watcher(s)
    try:
        wait_for("the full tier to complete", lambda: Index(s).status().search_tier == "full")
        status = Index(s).status()
        # the first batch built the fast tier (a full build alone never makes one), the upgrade the full
        assert {t: (d["vectors"], d["complete"]) for t, d in status.tiers.items()} == {
            "fast": (status.chunks, True),
            "full": (status.chunks, True),
        }
    finally:
        stop()


_KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import indexer.build as build
    import indexer.vector_build as vector_build
    from indexer import Index, load_settings

    root, index_dir, phase, after = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    build.FILE_BATCH, vector_build.VECTOR_BATCH = 5, 8

    class KillMidway:
        phase = ""
        done = 0

        def start(self, phase, total):
            self.phase, self.done = phase, 0

        def advance(self, n=1):
            self.done += n
            if self.phase == phase and self.done >= after:
                os.kill(os.getpid(), signal.SIGKILL)

        def set_total(self, total):
            pass

    settings = load_settings(Path(root), env={}, overrides={"index_dir": index_dir, "model_name": "hashing"})
    Index(settings).build(tier="full", progress=KillMidway())
    print("not killed")
    """
)


def kill_midway(root: Path, index_dir: Path, phase: str, after: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _KILLER, str(root), str(index_dir), phase, str(after)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stdout, done.stderr[-2000:])


def test_sigkill_mid_build_keeps_committed_work_and_the_next_build_resumes(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", 23)
    index_dir = tmp_path / "index"
    s = settings(root, index_dir)

    kill_midway(root, index_dir, "parsing", 12)  # file batches of 5: two committed, the third cut short
    assert len(Index(s).manifest()) == 10
    report = Index(s).build(tier="fast")
    assert report.changed == 13 and report.unchanged == 10  # only the files not committed are parsed
    chunks = Index(s).status().chunks

    kill_midway(root, index_dir, "full vectors", 16)  # vector batches of 8: two committed, then killed
    partial = Index(s).status()
    assert partial.search_tier == "fast" and partial.tiers["full"]["vectors"] == 16 and chunks > 16
    resumed = Index(s).build(tier="full")
    full = resumed.tiers["full"]
    assert (
        int(str(full["embedded"])) + int(str(full["from_cache"])) == chunks - 16
    )  # committed vectors are not redone
    assert resumed.changed == 0 and resumed.tiers["fast"]["embedded"] == 0
    status = Index(s).status()
    assert status.search_tier == "full" and status.tiers["full"]["vectors"] == chunks

    clean = settings(root, tmp_path / "clean")
    Index(clean).build(tier="full")

    def rows(st: Settings) -> Any:
        store = Index(st).store
        table = store.get_meta()["tiers"]["full"]["table"]
        return sorted(store.read(table, ["chunk_id", "path", "start_line"]).to_pylist(), key=json.dumps)

    assert rows(s) == rows(clean)  # no duplicates, nothing missing: the same as an uninterrupted build


def test_plait_index_defaults_to_the_fast_tier_and_keeps_a_full_index_full(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", 4)
    env = cli_env(tmp_path / "index")
    s = settings(root, tmp_path / "index")
    assert Index(s).default_tier() == "fast"  # no index yet

    first = run_plait("index", str(root), env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    n = Index(s).status().chunks
    assert f"fast tier {n})" in first.stdout and "full tier" not in first.stdout.split("searches rank")[0]
    assert "fill in" in first.stdout and "plait index --tier full" in first.stdout  # says how to get more
    assert Index(s).status().search_tier == "fast" and Index(s).default_tier() == "fast"

    assert run_plait("index", str(root), "--tier", "full", "--quiet", env=env, timeout=120).returncode == 0
    assert Index(s).default_tier() == "full"
    (root / "pkg/m000.py").write_text(source(0) + "\n\ndef extra():\n    return 'retry a failed upload'\n")
    again = json.loads(run_plait("index", str(root), "--json", env=env, timeout=120).stdout)
    # A full index stays full: the changed file's chunks get the transformer's vectors, searches keep it.
    assert again["changed"] == 1 and again["tiers"]["full"]["embedded"] >= 1
    status = Index(s).status()
    assert status.search_tier == "full" and status.tiers["full"]["complete"]


def test_index_tier_flag_and_status_show_both_tiers(tmp_path: Path) -> None:
    root = repo(tmp_path / "repo", 4)
    env = cli_env(tmp_path / "index")

    def plait(*args: str) -> subprocess.CompletedProcess[str]:
        return run_plait(*args, env=env, timeout=120)

    built = json.loads(plait("index", str(root), "--tier", "fast", "--json").stdout)
    n = built["chunks_total"]
    assert set(built["tiers"]) == {"fast"} and built["vectors"] == n > 0
    assert f"tiers:     fast {n}/{n} (searched)" in plait("status", str(root)).stdout  # full: never built
    human = plait("index", str(root), "--tier", "full").stdout
    assert f"fast tier {n}, full tier {n}" in human
    status = json.loads(plait("status", str(root), "--json").stdout)
    assert status["search_tier"] == "full" and status["model"] == "hashing-v1-256"
    assert status["tiers"]["full"] == {"model": "hashing-v1-256", "vectors": n, "complete": True}
    bad = plait("index", str(root), "--tier", "medium")
    assert bad.returncode == 2 and "invalid choice: 'medium'" in bad.stderr

    from server_harness import build_index, connect, serve_args, server_env, text

    from search.frontends.server.main import build

    other = repo(tmp_path / "served", 3)
    build_index(other, tmp_path / "served-index")
    state, server = build(serve_args([other]), env=server_env(tmp_path / "served-index"))
    try:
        with connect(server) as client:
            result = client.call("index_status", {"check_files": False})
            out = client.ok("index_status", {"check_files": False})["roots"][0]
    finally:
        state.close()
    chunks = out["chunks"]
    # build_index builds the default (full) tier only
    assert out["search_tier"] == "full" and out["tiers"]["full"]["vectors"] == chunks
    assert out["tiers"]["full"]["complete"] is True
    assert f"full {chunks}/{chunks}" in text(result) and "searches use full" in text(result)


def test_punctuation_drop_in_plait_toml_reaches_the_full_tier_only(tmp_path: Path) -> None:
    from models import ConfigError, load_embedder

    root = repo(tmp_path / "ws", 1)
    (root / "plait.toml").write_text('[model]\npunctuation = "drop"\n')
    config = load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "idx")}).model
    assert config.punctuation == "drop"
    full, fast = (load_embedder(tier_config(config, t)).model_id for t in ("full", "fast"))
    assert full.endswith("/int8/seq256/nopunct")
    assert not fast.endswith("/nopunct")  # the static table reads every text as written
    (root / "plait.toml").write_text('[model]\npunctuation = "strip"\n')
    with pytest.raises(ConfigError, match=r"model\.punctuation must be keep .* or drop .*'strip'"):
        load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "idx")})


def test_status_is_stale_while_the_vectors_are_another_models_than_the_configured_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.status

    root, index_dir = repo(tmp_path / "ws", 3), tmp_path / "idx"
    Index(settings(root, index_dir)).build(tier="full")
    assert Index(settings(root, index_dir)).status().state == "fresh"
    other = load_settings(root, env={}, overrides={"index_dir": str(index_dir), "model_name": "hashing-64"})
    status = Index(other).status()  # [model] changed since the build: a search could not use the vectors
    assert status.state == "stale" and status.model == "hashing-v1-256"
    assert status.detail == (
        "the full tier's vectors were built by hashing-v1-256, not the configured hashing-v1-64; "
        "the next `plait index` embeds with it"
    )
    with monkeypatch.context() as m:  # the same from the tables, without the build's saved record
        m.setattr(indexer.status, "saved_status", lambda *_a, **_k: None)
        assert Index(other).status().detail == status.detail
    Index(other).build(tier="full")
    assert Index(other).status().state == "fresh"

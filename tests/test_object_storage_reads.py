"""Warm reads of an index on object storage, against a real S3 API (moto in server mode on 127.0.0.1).

What a warm search asks of the store is counted from the server's own request log (werkzeug's, one
record per request): within the snapshot re-check interval a search makes no request at all, and
with the interval at 0 exactly one (the listing of ``meta``'s versions). A publish by another
process is seen within the interval; the in-memory exact vector search answers what LanceDB's flat
search of the same table answers.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from indexer import Index, load_settings
from indexer.config import DEFAULT_REMOTE_RECHECK, Settings
from indexer.nearest import search_tier
from indexer.store import model_slug, sql_str
from models import ConfigError
from search import Engine, Query, parse_scope
from tests.cli_harness import plait as run_plait
from tests.s3_server import S3
from tests.server_harness import make_workspace

pytest.importorskip("moto", reason="the object-storage tests need the dev extra (moto[server])")

NEW_DEF = "\n\ndef jitter_backoff(attempt: int) -> float:\n    return 0.1 * attempt\n"


class RequestLog(logging.Handler):
    """The S3 server's requests, as its werkzeug logger records them (``"GET /bucket?… HTTP/1.1"``)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        if "HTTP/1." in line and "/moto-api/" not in line:
            self.lines.append(line)


@pytest.fixture
def requests() -> Iterator[RequestLog]:
    logger = logging.getLogger("werkzeug")
    handler, level = RequestLog(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


def settings_for(root: Path, uri: str, **overrides: object) -> Settings:
    return load_settings(root, env={}, overrides={"index_dir": uri, "model_name": "hashing", **overrides})


def test_the_recheck_interval_defaults_to_one_second_on_object_storage_and_zero_locally(
    tmp_path: Path,
) -> None:
    assert settings_for(tmp_path, "s3://b/x").recheck == DEFAULT_REMOTE_RECHECK == 1.0
    assert settings_for(tmp_path, str(tmp_path / "idx")).recheck == 0.0
    assert settings_for(tmp_path, "s3://b/x", snapshot_recheck=0).recheck == 0.0
    from_env = load_settings(tmp_path, env={"PLAIT_INDEX_DIR": "s3://b/x", "PLAIT_SNAPSHOT_RECHECK": "2.5"})
    assert from_env.recheck == 2.5
    (tmp_path / "plait.toml").write_text("[index]\nsnapshot_recheck = 7\n")
    assert settings_for(tmp_path, "s3://b/x").recheck == 7.0
    for bad in ("-1", "61", "soon"):
        with pytest.raises(ConfigError, match="snapshot_recheck"):
            load_settings(tmp_path, env={"PLAIT_SNAPSHOT_RECHECK": bad})


def test_a_warm_search_within_the_recheck_interval_makes_no_request(
    aws: S3, tmp_path: Path, requests: RequestLog
) -> None:
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/warm"
    Index(settings_for(root, uri)).build()
    for recheck, expected in ((60.0, 0), (0.0, 1)):
        engine = Engine(settings_for(root, uri, snapshot_recheck=recheck))
        try:
            first = engine.search(Query("retry policy backoff", mode="hybrid", limit=5), parse_scope("ws"))
            assert first.results and not first.degraded
            for text in ("RetryPolicy", "fetch the page", "parse_config"):
                requests.lines.clear()
                found = engine.search(Query(text, mode="hybrid", limit=5), parse_scope("ws"))
                assert found.results and not found.degraded
                assert len(requests.lines) == expected, (recheck, text, requests.lines)
                if expected:  # the one request: whether meta has a newer version
                    assert "meta.lance/_versions" in requests.lines[0]
        finally:
            engine.close()


def test_a_reader_keeps_its_snapshot_within_the_interval_and_a_writer_always_reads_the_latest(
    aws: S3, tmp_path: Path
) -> None:
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/kept"
    Index(settings_for(root, uri)).build()
    patient = Index(settings_for(root, uri, snapshot_recheck=60))
    eager = Index(settings_for(root, uri, snapshot_recheck=0))
    before = patient.snapshot().versions
    assert eager.snapshot().versions == before and not patient.lookup_symbols("jitter_backoff")
    retry = root / "pkg/retry.py"
    retry.write_text(retry.read_text() + NEW_DEF)
    Index(settings_for(root, uri)).build()  # another writer (its own store): publishes a new snapshot
    assert patient.snapshot().versions == before  # read less than 60 s ago: not asked again
    assert not patient.lookup_symbols("jitter_backoff")
    assert patient.store.get_meta()["snapshot"] != before  # a writer's read always asks
    assert eager.snapshot().versions != before
    assert [m.symbol.path for m in eager.lookup_symbols("jitter_backoff")] == ["pkg/retry.py"]


def test_a_publish_by_another_process_is_visible_within_the_recheck_interval(aws: S3, tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/visible"
    env = {
        **os.environ,
        **aws.env(),
        "PLAIT_MODEL": "hashing",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONHASHSEED": "0",
    }

    def index() -> None:
        done: subprocess.CompletedProcess[str] = run_plait(
            "index", str(root), "--index-dir", uri, env=env, cwd=root
        )
        assert done.returncode == 0, done.stderr

    index()
    interval = 0.5
    engine = Engine(settings_for(root, uri, snapshot_recheck=interval))
    try:

        def sees_it() -> bool:
            found = engine.search(Query("jitter_backoff", mode="symbol", limit=3), parse_scope("ws"))
            return any(r.path == "pkg/retry.py" for r in found.results)

        assert not sees_it()
        retry = root / "pkg/retry.py"
        retry.write_text(retry.read_text() + NEW_DEF)
        index()  # a second process publishes the change, and has exited: the publish is done
        published = time.monotonic()
        deadline = published + 60
        late: list[float] = []  # start times of searches that began a full interval after the publish
        while time.monotonic() < deadline:
            started = time.monotonic()
            seen = sees_it()
            if started >= published + interval:
                assert seen, f"a search {started - published:.2f} s after the publish still missed it"
                late.append(started)
                if len(late) >= 3:
                    break
        assert len(late) >= 3, "no search ran in 60 s"
    finally:
        engine.close()


def test_kept_vectors_rank_as_lancedbs_flat_search_of_the_same_table(aws: S3, tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/vectors"
    index = Index(settings_for(root, uri))
    index.build()
    snap = index.snapshot()
    found = search_tier(snap)
    assert found is not None
    tier, entry = found
    name = f"vectors_{model_slug(index.tier_embedder(tier).model_id)}"
    assert entry["table"] == name and not snap.has_ann(name)
    cases: list[dict[str, object]] = [
        {"query": "retry policy backoff"},
        {"query": "fetch the page", "path_prefix": "pkg"},
        {"query": "configuration parser", "language": "python"},
        {"query": "client", "paths": ["pkg/client.py", "pkg/retry.py"]},
    ]
    for case in cases:
        text = str(case.pop("query"))
        kept = index.nearest(text, limit=50, **case)  # type: ignore[arg-type]
        query = snap.table(name).search(index.tier_embedder(tier).embed_query(text).tolist()).metric("cosine")
        clauses = []
        if "path_prefix" in case:
            clauses.append("(path = 'pkg' OR path LIKE 'pkg/%')")
        if "language" in case:
            clauses.append(f"language = {sql_str(str(case['language']))}")
        if "paths" in case:
            clauses.append("path IN ('pkg/client.py', 'pkg/retry.py')")
        if clauses:
            query = query.where(" AND ".join(clauses), prefilter=True)
        lance = query.limit(50).select(["path", "start_line", "_distance"]).to_arrow().to_pylist()
        assert kept, text
        assert [(h.path, h.start_line) for h in kept] == [(r["path"], r["start_line"]) for r in lance], text
        assert [h.distance for h in kept] == pytest.approx([r["_distance"] for r in lance], abs=1e-5)
    assert index._readers.vectors.kept is not None and index._readers.vectors.kept.kept() is not None


def stored_keys(s3: S3, prefix: str) -> list[str]:
    import boto3

    client = boto3.client(
        "s3", endpoint_url=s3.endpoint, region_name="us-east-1",
        aws_access_key_id=s3.key_id, aws_secret_access_key=s3.secret,
    )  # fmt: skip
    listed = client.list_objects_v2(Bucket=s3.bucket, Prefix=prefix)
    return sorted(o["Key"] for o in listed.get("Contents", []))


def test_the_writer_saves_the_bm25_index_beside_the_tables_and_a_fresh_reader_loads_it(
    aws: S3, tmp_path: Path, requests: RequestLog
) -> None:
    from indexer.lexical import COLUMNS, LexicalIndex

    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/bm25"
    Index(settings_for(root, uri)).build()
    first = Index(settings_for(root, uri)).snapshot().versions["chunks"]
    assert stored_keys(aws, "bm25/lexical/") == [f"bm25/lexical/chunks-v{first}.bm25"]
    retry = root / "pkg/retry.py"
    retry.write_text(retry.read_text() + NEW_DEF)
    Index(settings_for(root, uri)).build()
    reader = Index(settings_for(root, uri))
    snap = reader.snapshot()
    version = snap.versions["chunks"]
    assert version != first  # the new version's file replaced the old one's
    assert stored_keys(aws, "bm25/lexical/") == [f"bm25/lexical/chunks-v{version}.bm25"]
    requests.lines.clear()
    loaded = reader.lexical()
    fetched = [line for line in requests.lines if "/lexical/" in line]
    assert len(fetched) == 1 and f"GET /{aws.bucket}/bm25/lexical/chunks-v{version}.bm25" in fetched[0]
    assert not [line for line in requests.lines if '"PUT ' in line or '"DELETE ' in line]  # a reader
    built = LexicalIndex(snap.read("chunks", COLUMNS))
    for query in ("jitter backoff attempt", "retry policy", "fetch the page"):
        assert loaded.search(query, 10) == built.search(query, 10), query
    assert [h.path for h in loaded.search("jitter_backoff", 3)][:1] == ["pkg/retry.py"]


def test_an_unreadable_saved_bm25_index_is_rebuilt_from_the_chunks(aws: S3, tmp_path: Path) -> None:
    import boto3

    from indexer.lexical import COLUMNS, LexicalIndex

    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/bm25-bad"
    Index(settings_for(root, uri)).build()
    (saved,) = stored_keys(aws, "bm25-bad/lexical/")
    boto3.client(
        "s3", endpoint_url=aws.endpoint, region_name="us-east-1",
        aws_access_key_id=aws.key_id, aws_secret_access_key=aws.secret,
    ).put_object(Bucket=aws.bucket, Key=saved, Body=b"not an npz file")  # fmt: skip
    reader = Index(settings_for(root, uri))
    found = reader.lexical().search("retry policy", 5)
    assert found and found == LexicalIndex(reader.snapshot().read("chunks", COLUMNS)).search(
        "retry policy", 5
    )


def test_each_build_compacts_meta_and_drops_its_old_versions(
    aws: S3, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.store

    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/compacted"
    Index(settings_for(root, uri)).build()
    # a build writes meta several times: versions and data files pile up until they are old enough
    assert len(stored_keys(aws, "compacted/meta.lance/_versions/")) > 1
    monkeypatch.setattr(indexer.store, "META_KEEP", timedelta(milliseconds=1))  # "old": at once
    for generation in range(2):
        (root / "pkg/extra.py").write_text(
            f"def generation_{generation}() -> int:\n    return {generation}\n"
        )
        Index(settings_for(root, uri)).build()
        assert len(stored_keys(aws, "compacted/meta.lance/_versions/")) == 1
        assert len(stored_keys(aws, "compacted/meta.lance/data/")) == 1
    reader = Index(settings_for(root, uri))
    assert [m.symbol.path for m in reader.lookup_symbols("generation_1")] == ["pkg/extra.py"]
    assert reader.store.get_meta()["build"] == {"state": "done"}

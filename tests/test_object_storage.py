"""A team index on object storage, against a real S3 API: moto in server mode on 127.0.0.1.

No mock of LanceDB or of the object store: ``plait index`` and ``plait search`` run as real processes
with the standard ``AWS_*`` variables pointing at the server, and the writer lease is exercised with
real conditional puts (``If-None-Match: *``, ``If-Match``). The server checks credentials (moto's
authentication is on), so a wrong secret is refused as AWS would refuse it.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from indexer import Index, load_settings, shared_lexical
from indexer.errors import IndexLockedError, IndexStoreError
from indexer.lease import ObjectLease
from indexer.lock import writer_active
from search.engine.retrievers.listing import differing
from search.frontends.server.main import build
from tests.cli_harness import plait as run_plait
from tests.s3_server import S3
from tests.server_harness import connect, make_workspace, serve_args, server_env

pytest.importorskip("moto", reason="the object-storage tests need the dev extra (moto[server])")


def plait(args: list[str], env: Mapping[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full = {
        **os.environ,
        **env,
        "PLAIT_MODEL": "hashing",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "PYTHONHASHSEED": "0",
    }
    return run_plait(*args, env=full, cwd=cwd)


def test_an_index_published_to_s3_is_searched_by_a_second_process(aws: S3, tmp_path: Path) -> None:
    s3 = aws
    root = make_workspace(tmp_path)
    uri = f"s3://{s3.bucket}/published"
    built = plait(["index", str(root), "--index-dir", uri, "--json"], s3.env(), root)
    assert built.returncode == 0, built.stderr
    found = plait(["search", "RetryPolicy", "--index-dir", uri, "--no-daemon", "--json"], s3.env(), root)
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)
    assert results[0]["path"] == "pkg/retry.py" and results[0]["sources"]["symbol"] == 1
    status = plait(["status", str(root), "--index-dir", uri, "--json"], s3.env(), root)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["state"] == "fresh"
    # nothing of the lease is left behind once the writer is done
    assert not writer_active(uri)


def test_a_full_rebuild_on_s3_is_what_the_next_text_search_reads(aws: S3, tmp_path: Path) -> None:
    """The BM25 file kept beside the tables is named by the chunks version: a full build must not
    start the versions over, or the next process would take the old file for the new chunks."""
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/rebuilt"
    assert plait(["index", str(root), "--index-dir", uri], aws.env(), root).returncode == 0
    (root / "pkg" / "extra.py").write_text("def marmalade_quota():\n    return 'zebra crossing'\n")
    rebuilt = plait(["index", str(root), "--index-dir", uri, "--full"], aws.env(), root)
    assert rebuilt.returncode == 0, rebuilt.stderr
    args = ["--mode", "text", "--index-dir", uri, "--no-daemon", "--json"]
    found = plait(["search", "marmalade quota", *args], aws.env(), root)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)[0]["path"] == "pkg/extra.py"
    # The file the writer keeps for the published chunks version is that version's, not the old one's
    # (a reader would otherwise re-tokenise every chunk at its first search).
    snap = Index(
        load_settings(root, env={}, overrides={"index_dir": uri, "model_name": "hashing"})
    ).snapshot()
    hashes = snap.read("chunks", ["content_hash"])
    assert shared_lexical.load(uri, snap.versions["chunks"], hashes) is not None


def test_missing_bucket_and_refused_credentials_are_clear_errors(s3: S3, tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    missing = plait(["index", str(root), "--index-dir", "s3://no-such-bucket/x"], s3.env(), root)
    assert missing.returncode == 2
    assert "the bucket of s3://no-such-bucket/x does not exist; create it" in missing.stderr, missing.stderr
    refused = plait(
        ["index", str(root), "--index-dir", f"s3://{s3.bucket}/x"],
        s3.env(AWS_SECRET_ACCESS_KEY="wrong"),
        root,
    )
    assert refused.returncode == 2
    assert "refused the credentials" in refused.stderr and "AWS_SECRET_ACCESS_KEY" in refused.stderr
    assert "Traceback" not in missing.stderr + refused.stderr


def test_a_second_writer_gets_a_clear_error_naming_the_lease_holder(aws: S3, tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    uri = f"s3://{aws.bucket}/contended"
    settings = load_settings(root, env={}, overrides={"index_dir": uri, "model_name": "hashing"})
    first = ObjectLease(uri)
    first.acquire()
    try:
        assert writer_active(uri)
        with pytest.raises(IndexLockedError, match=r"pid \d+ on .*lease for \d+s more.*s3://team/contended"):
            Index(settings).build()
    finally:
        first.release()
    assert not writer_active(uri)
    report = Index(settings).build()  # the lease is free again: the build goes through
    assert report.files > 0 and Index(settings).exists()


def test_a_waiting_writer_takes_the_lease_when_the_holder_releases_it(aws: S3) -> None:
    uri = f"s3://{aws.bucket}/waiting"
    first, second = ObjectLease(uri), ObjectLease(uri)
    first.acquire()
    assert second.try_acquire() is not None  # held: the conditional create failed
    errors: list[BaseException] = []

    def wait_for_it() -> None:
        try:
            second.acquire(wait=60, poll=0.2)
        except BaseException as exc:  # reported to the test below
            errors.append(exc)

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    first.release()
    waiter.join(timeout=90)
    assert not waiter.is_alive() and not errors
    held = second.current()
    assert held is not None and held.token == second.token
    second.release()
    assert second.current() is None


def test_an_expired_lease_is_taken_over_by_exactly_one_writer(aws: S3) -> None:
    uri = f"s3://{aws.bucket}/expired"
    now = 1_000_000.0
    dead = ObjectLease(uri, ttl=10, clock=lambda: now)
    assert dead.try_acquire() is None  # holds it until now + 10, then "dies" (never renews)
    later = [ObjectLease(uri, ttl=10, clock=lambda: now + 60) for _ in range(2)]
    found = later[0].read()
    assert found is not None and found[0].token == dead.token
    _, etag = found
    # both saw the same expired record; the put conditional on its ETag lands for one only
    wins = [lease._put({"e_tag": etag}) for lease in later]
    assert sorted(wins) == [False, True]
    winner = later[wins.index(True)]
    current = winner.read()
    assert current is not None and current[0].token == winner.token
    assert dead._put({"e_tag": dead._etag}) is False  # the dead holder's renewal now fails
    # and through the public path: a writer that finds an expired record takes it over
    third = ObjectLease(uri, ttl=10, clock=lambda: now + 1000)
    assert third.try_acquire() is None
    third.release()


def test_object_store_errors_in_process_are_index_store_errors(aws: S3, tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    settings = load_settings(
        root, env={}, overrides={"index_dir": "s3://no-such-bucket/y", "model_name": "hashing"}
    )
    with pytest.raises(IndexStoreError, match="does not exist; create it"):
        Index(settings).build()


def test_a_readers_own_edits_are_searched_live_on_top_of_the_shared_index(aws: S3, tmp_path: Path) -> None:
    ci = make_workspace(tmp_path, name="ci")
    uri = f"s3://{aws.bucket}/shared"
    built = plait(["index", str(ci), "--index-dir", uri], aws.env(), ci)
    assert built.returncode == 0, built.stderr
    # A laptop's checkout of the same commit: same contents, other mtimes; then one local edit.
    laptop = make_workspace(tmp_path, name="laptop")
    retry = laptop / "pkg/retry.py"
    retry.write_text(retry.read_text() + "\n\ndef jitter_backoff(attempt: int) -> float:\n    return 0.1\n")
    args = ["--root", str(laptop), "--index-dir", uri, "--no-daemon", "--json", "--limit", "5"]
    edited = json.loads(plait(["search", "jitter_backoff", *args], aws.env(), laptop).stdout)
    assert (edited[0]["path"], edited[0].get("stale")) == ("pkg/retry.py", True)
    assert any("jitter_backoff" in r["snippet"] for r in edited[:2])
    # files the laptop did not touch are answered from the shared index, not as local changes
    untouched = json.loads(plait(["search", "fetch", *args], aws.env(), laptop).stdout)
    client = [r for r in untouched if r["path"] == "pkg/client.py"]
    assert client and not client[0].get("stale")
    # the local delta is the one edited file, not every file whose mtime differs from CI's checkout
    settings = load_settings(laptop, env={}, overrides={"index_dir": uri, "model_name": "hashing"})
    manifest = Index(settings).whole_manifest()
    assert manifest is not None
    files = tuple(sorted(manifest))
    assert {f: os.stat(laptop / f).st_mtime_ns for f in files} != {f: manifest[f][2] for f in files}
    assert differing(str(laptop), files, manifest, settings.max_file_bytes) == ["pkg/retry.py"]


def test_a_read_only_server_on_a_laptop_serves_the_shared_index(aws: S3, tmp_path: Path) -> None:
    ci = make_workspace(tmp_path, name="ci")
    uri = f"s3://{aws.bucket}/served"
    assert plait(["index", str(ci), "--index-dir", uri], aws.env(), ci).returncode == 0
    laptop = make_workspace(tmp_path, name="laptop")
    env = {k: v for k, v in server_env(tmp_path / "unused").items() if k != "PLAIT_INDEX_DIR"}
    state, server = build(serve_args([laptop], read_only=True, index_dir=uri), env=env)
    with connect(server) as client:
        status = client.ok("index_status")["roots"][0]
        assert (status["location"], status["state"], status["changed_count"]) == (uri, "fresh", 0)
        found = client.ok("search", {"query": "RetryPolicy", "limit": 3})["results"]
        assert found[0]["path"] == "pkg/retry.py" and found[0]["root"] == str(laptop)
        assert "read-only" in client.error("write_file", {"path": "x.py", "content": "x"}).lower()
    state.close()


def test_a_held_lease_is_renewed_while_the_writer_works(aws: S3) -> None:
    uri = f"s3://{aws.bucket}/renewed"
    lease = ObjectLease(uri, ttl=0.9)  # renewed every 0.3 s
    lease.acquire()
    try:
        first = lease.current()
        assert first is not None and first.token == lease.token
        deadline = time.monotonic() + 30
        renewed = first
        while renewed.expires == first.expires and time.monotonic() < deadline:
            found = lease.read()
            assert found is not None
            renewed = found[0]
        assert renewed.expires > first.expires and renewed.token == lease.token and not lease.lost
    finally:
        lease.release()
    assert lease.read() is None

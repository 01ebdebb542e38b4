"""A reader's checkout on top of a team index on object storage (moto's S3 server on 127.0.0.1).

CI indexes a git work tree into ``s3://``; a laptop holds a clone of the same commit and edits it. The
snapshot names the commit it was built from, ``plait status`` shows it beside the laptop's own commit
and the files that differ, and the laptop's symbol searches answer from its own edit (the local delta),
not from CI's copy of the file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.cli_harness import plait as run_plait
from tests.s3_server import S3
from tests.server_harness import FIXTURE, make_workspace

pytest.importorskip("moto", reason="the object-storage tests need the dev extra (moto[server])")
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

# The fixture's retry module with parse_config renamed on the laptop.
EDITED_RETRY = FIXTURE["pkg/retry.py"].replace("def parse_config(", "def load_settings_file(")
assert FIXTURE["pkg/retry.py"] != EDITED_RETRY


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.invalid", "-c", "init.defaultBranch=main",
         *args],
        cwd=cwd, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def plait(args: list[str], env: Mapping[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env, "PLAIT_MODEL": "hashing", "HF_HUB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    return run_plait(*args, env=full, cwd=cwd)


@pytest.fixture
def shared(s3: S3, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, str, Path]:
    """CI's commit indexed into the bucket, and a laptop's clone of it: (uri, commit, laptop)."""
    ci = make_workspace(tmp_path, name="ci")
    git(ci, "init", "-q")
    git(ci, "add", "-A")
    git(ci, "commit", "-q", "-m", "fixture")
    commit = git(ci, "rev-parse", "HEAD")
    uri = f"s3://{s3.bucket}/{request.node.name}"
    built = plait(["index", str(ci), "--index-dir", uri], s3.env(), ci)
    assert built.returncode == 0, built.stderr
    laptop = tmp_path / "laptop"
    git(tmp_path, "clone", "-q", str(ci), str(laptop))
    return uri, commit, laptop.resolve()


def test_status_names_the_snapshots_commit_and_the_readers_local_delta(
    s3: S3, shared: tuple[str, str, Path]
) -> None:
    uri, commit, laptop = shared
    (laptop / "pkg/retry.py").write_text(EDITED_RETRY)
    done = plait(["status", str(laptop), "--index-dir", uri, "--json"], s3.env(), laptop)
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["revision"] == {"commit": commit, "branch": "main", "dirty": False}
    assert status["checkout"] == {"commit": commit, "branch": "main", "dirty": True}
    # the delta is the edited file alone: the clone's other files have other mtimes, the same bytes
    assert (status["changed_count"], status["stale_files"]) == (1, ["pkg/retry.py"])
    text = plait(["status", str(laptop), "--index-dir", uri], s3.env(), laptop)
    assert f"indexed:   {commit[:12]} (main)" in text.stdout
    assert f"checkout:  {commit[:12]} (main, dirty)" in text.stdout


def test_a_symbol_defined_only_in_the_readers_edit_is_found_by_symbol_search(
    s3: S3, shared: tuple[str, str, Path]
) -> None:
    uri, _, laptop = shared
    (laptop / "pkg/retry.py").write_text(EDITED_RETRY)
    (laptop / "pkg/jitter.py").write_text(
        "def jitter_backoff(attempt: int) -> float:\n    return 0.1 * attempt\n"
    )
    args = ["--root", str(laptop), "--index-dir", uri, "--no-daemon", "--json", "--mode", "symbol"]
    renamed = json.loads(plait(["search", "load_settings_file", *args], s3.env(), laptop).stdout)
    assert renamed, "the renamed function is not found"
    top = renamed[0]
    assert (top["path"], top["symbol"], top["stale"], top["sources"]) == (
        "pkg/retry.py", "load_settings_file", True, {"symbol": 1}
    )  # fmt: skip
    assert top["start_line"] <= 14 <= top["end_line"]  # the chunk of the laptop's copy that holds it
    added = json.loads(plait(["search", "jitter_backoff", *args], s3.env(), laptop).stdout)
    assert [(r["path"], r["symbol"]) for r in added[:1]] == [("pkg/jitter.py", "jitter_backoff")]
    # the name the edit removed is no longer answered from CI's copy of the file
    gone = json.loads(plait(["search", "parse_config", *args], s3.env(), laptop).stdout)
    assert all(r["path"] != "pkg/retry.py" for r in gone)
    # the semantic leg ranks the new file by its own embedding (the snapshot has no vector of it)
    semantic = [a if a != "symbol" else "semantic" for a in args]
    near = json.loads(plait(["search", "jitter backoff attempt", *semantic], s3.env(), laptop).stdout)
    assert near and near[0]["path"] == "pkg/jitter.py" and near[0]["sources"] == {"vector": 1}
    # and hybrid search ranks the local definition first as well
    hybrid = [a for a in args if a not in ("--mode", "symbol")]
    mixed = json.loads(plait(["search", "load_settings_file", *hybrid], s3.env(), laptop).stdout)
    assert (mixed[0]["path"], mixed[0]["sources"].get("symbol")) == ("pkg/retry.py", 1)


def test_a_local_index_keeps_its_own_writer_unless_the_delta_is_asked_for(make_repo, settings_for) -> None:
    from indexer import Index
    from search import Engine, Query

    root = make_repo({"m.py": "def old_name(x):\n    return x\n"})
    settings = settings_for(root)
    Index(settings).build()
    (root / "m.py").write_text("def old_name(x):\n    return x\n\n\ndef fresh_name(y):\n    return y\n")
    plain, delta = Engine(settings), Engine(settings, local_delta=True)
    try:
        assert plain.search(Query("fresh_name", mode="symbol")).results == []  # until the index catches up
        found = delta.search(Query("fresh_name", mode="symbol")).results
        assert [(r.path, r.symbol, r.stale) for r in found] == [("m.py", "fresh_name", True)]
    finally:
        plain.close()
        delta.close()

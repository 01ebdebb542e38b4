"""Fleet indexing through a real local Ray instance (``ray.init(num_cpus=2)``), two small repositories.

One Ray task per repository builds its index with the ordinary builder; a rerun rebuilds nothing (one
repository is a clean git commit already indexed, the other has no file that differs), and after one
file of one repository changes, only that repository is built again, and only that file re-parsed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer import Index, fleet
from indexer.fleet import FleetError
from tests.server_harness import make_workspace

ray = pytest.importorskip("ray", reason="fleet indexing needs the cluster extra (ray)")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("git") is None, reason="needs git")]

BETA = {
    "lib/ledger.go": "package lib\n\n// Balance sums the entries.\nfunc Balance(entries []int) int {\n"
    "\ttotal := 0\n\tfor _, e := range entries {\n\t\ttotal += e\n\t}\n\treturn total\n}\n",
    "lib/notes.md": "# Ledger\n\nBalance sums entries.\n",
}


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def commit(root: Path) -> str:
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.invalid", *args],
            cwd=root, capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        return done.stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "fixture")
    return git("rev-parse", "HEAD")


def test_two_repositories_indexed_on_ray_and_a_rerun_redoes_only_the_changed_one(
    local_ray: None, tmp_path: Path
) -> None:
    alpha = make_workspace(tmp_path, name="alpha")
    head = commit(alpha)  # a clean git tree: "unchanged" is decided by its commit
    beta = make_workspace(tmp_path, BETA, name="beta")  # no git: decided by comparing files
    base = tmp_path / "shared"
    jobs = fleet.plan_fleet([alpha, beta], base=str(base), env={"PLAIT_MODEL": "hashing"})
    assert [j.index_dir for j in jobs] == [str(base / "alpha"), str(base / "beta")]

    first = fleet.run_fleet_on_ray(jobs)
    assert [(r.outcome, r.root) for r in first] == [("built", str(alpha)), ("built", str(beta))], first
    assert all(r.files > 0 and r.chunks > 0 and r.embedded > 0 for r in first)
    found = Index(jobs[1]).lookup_symbols("Balance")
    assert [(m.symbol.path, m.symbol.name) for m in found[:1]] == [("lib/ledger.go", "Balance")]
    status = Index(jobs[0]).status()
    assert status.revision is not None and status.revision["commit"] == head
    versions = [Index(j).snapshot().versions for j in jobs]

    second = fleet.run_fleet_on_ray(jobs)
    assert [r.outcome for r in second] == ["unchanged", "unchanged"], second
    assert second[0].detail == f"commit {head[:12]} already indexed"
    assert second[1].detail == "no file differs from the index"
    assert [Index(j).snapshot().versions for j in jobs] == versions  # no table written

    ledger = beta / "lib/ledger.go"
    ledger.write_text(
        ledger.read_text() + "\n// Audit checks the ledger.\nfunc Audit() bool {\n\treturn true\n}\n"
    )
    third = fleet.run_fleet_on_ray(jobs)
    assert [r.outcome for r in third] == ["unchanged", "built"], third
    assert third[1].changed == 1
    assert Index(jobs[0]).snapshot().versions == versions[0]
    assert [m.symbol.name for m in Index(jobs[1]).lookup_symbols("Audit")[:1]] == ["Audit"]


def test_repositories_of_one_name_get_their_parents_name_under_one_base(tmp_path: Path) -> None:
    one = make_workspace(tmp_path / "a", BETA, name="app")
    two = make_workspace(tmp_path / "b", BETA, name="app")
    jobs = fleet.plan_fleet([one, two, one], base="s3://bucket/plait/", env={})
    assert [j.index_dir for j in jobs] == ["s3://bucket/plait/a/app", "s3://bucket/plait/b/app"]
    with pytest.raises(FleetError, match="is not a directory"):
        fleet.plan_fleet([tmp_path / "nowhere"], base=None, env={})


def test_plait_index_cluster_auto_indexes_several_roots(local_ray: None, tmp_path: Path) -> None:
    one = make_workspace(tmp_path, BETA, name="one")
    two = make_workspace(tmp_path, name="two")
    base = tmp_path / "indexes"
    env = {**os.environ, "PLAIT_MODEL": "hashing", "HF_HUB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    argv = [sys.executable, "-m", "search.frontends.cli", "index", "--cluster", "auto", str(one), str(two),
            "--index-dir", str(base), "--json"]  # fmt: skip
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["built"], report["unchanged"], report["failed"]) == (2, 0, 0)
    assert [r["index_dir"] for r in report["repositories"]] == [str(base / "one"), str(base / "two")]
    bad = subprocess.run([*argv[:5], "ray://127.0.0.1:1", str(one), "--index-dir", str(base)],
                         env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert bad.returncode == 2 and "cannot reach the Ray cluster at ray://127.0.0.1:1" in bad.stderr

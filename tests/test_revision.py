"""The git revision of a tree (indexer.revision): what a snapshot records and status shows."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from indexer import describe_revision, tree_revision

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=trunk", *args],
        cwd=cwd, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def test_commit_branch_and_dirty_flag_of_a_subtree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "svc").mkdir(parents=True)
    (repo / "svc/a.py").write_text("A = 1\n")
    (repo / "other.txt").write_text("x\n")
    git(repo, "init", "-q")
    assert tree_revision(repo) is None  # no commit yet
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    head = git(repo, "rev-parse", "HEAD")
    assert tree_revision(repo / "svc") == {"commit": head, "branch": "trunk", "dirty": False}
    (repo / "other.txt").write_text("y\n")  # a change outside the indexed subtree
    assert tree_revision(repo / "svc") == {"commit": head, "branch": "trunk", "dirty": False}
    (repo / "svc/new.py").write_text("B = 2\n")  # untracked inside it
    assert tree_revision(repo / "svc") == {"commit": head, "branch": "trunk", "dirty": True}
    git(repo, "checkout", "-q", "--detach")
    assert tree_revision(repo)["branch"] is None  # type: ignore[index]
    assert describe_revision({"commit": head, "branch": None, "dirty": True}) == f"{head[:12]} (dirty)"
    assert describe_revision({"commit": head, "branch": "trunk", "dirty": False}) == f"{head[:12]} (trunk)"


def test_a_tree_outside_git_has_no_revision(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    assert tree_revision(tmp_path) is None
    assert describe_revision(None) == "unknown (not a git work tree)"

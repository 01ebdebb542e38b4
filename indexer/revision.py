"""Which git revision a tree is at: the commit the writer indexed, and the commit a reader has checked out.

A shared index is built by one machine (CI) and read on others. Its snapshot records the commit of
the tree the writer walked and whether that tree had uncommitted changes (``dirty``), so a reader can
tell what it is looking at. A reader's own tree is described the same way; which of its *files*
differ from the snapshot is decided by content (size, then sha256), not by comparing commits, since a
checkout of another commit still shares most files with the snapshot.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from indexer.procs import git_status, run

REVISION_KEY = "revision"  # the key in ``meta`` that holds the indexed tree's revision


def tree_revision(root: Path, *, timeout: float = 10.0) -> dict[str, Any] | None:
    """``{"commit": sha, "branch": name or None, "dirty": bool}`` for the git work tree holding
    ``root``; ``None`` when ``root`` is not in one (or git is missing). ``dirty`` counts only changes
    under ``root`` (modified, deleted or untracked files that are not ignored)."""
    git = shutil.which("git")
    if git is None:
        return None
    head = run([git, "rev-parse", "--verify", "--quiet", "HEAD"], cwd=root, timeout=timeout)
    if head.returncode != 0 or head.timed_out:
        return None  # not a work tree, or one without a commit yet
    commit = head.stdout.decode("ascii", "replace").strip()
    ref = run([git, "symbolic-ref", "--quiet", "--short", "HEAD"], cwd=root, timeout=timeout)
    branch = ref.stdout.decode("utf-8", "replace").strip() if ref.returncode == 0 else None
    status = git_status(root, timeout=timeout)
    dirty = status is None or bool(status.changed or status.deleted)  # unknown counts as dirty
    return {"commit": commit, "branch": branch or None, "dirty": dirty}


def describe_revision(revision: Any) -> str:
    """``1a2b3c4d5e6f (main, dirty)``; ``unknown (not a git work tree)`` for ``None``."""
    if not isinstance(revision, dict) or not revision.get("commit"):
        return "unknown (not a git work tree)"
    notes = [n for n in (revision.get("branch"), "dirty" if revision.get("dirty") else None) if n]
    return str(revision["commit"])[:12] + (f" ({', '.join(notes)})" if notes else "")

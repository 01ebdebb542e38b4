"""``python -m benchmarks static-train``: what it refuses before any work (the fit itself needs the
peer suite's tuning half indexed, which tests do not have; its steps are tested in
tests/test_static_model.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", "static-train", *args],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_without_a_peer_suite_it_says_where_it_looked(tmp_path: Path) -> None:
    done = _run("--suite", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and not done.stdout
    assert f"no peer suite at {tmp_path / 'nowhere'}" in done.stderr and "--suite" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_repository_outside_the_tuning_half_is_refused(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    (suite / "peerbench").mkdir(parents=True)
    (suite / "peerbench" / "__init__.py").write_text("")
    (suite / "peerbench" / "common.py").write_text(
        "import json, pathlib\n"
        "DEFAULT_CACHE = pathlib.Path('/nonexistent')\n"
        "def corpus_root(cache, name):\n    return cache / name\n"
        "def manifest_repos():\n"
        "    return json.loads((pathlib.Path(__file__).parents[1] / 'manifest.json').read_text())['repos']\n"
    )
    (suite / "peerbench" / "tasks.py").write_text("def build_tasks(*a):\n    raise AssertionError\n")
    repos = [{"name": n} for n in ("alpha", "beta", "gamma")]  # tuning half: alpha, gamma
    (suite / "manifest.json").write_text(json.dumps({"repos": repos}))
    done = _run("--suite", str(suite), "--repo", "beta")
    assert done.returncode == 2
    assert "not in the tuning half: beta; choose from alpha, gamma" in done.stderr
    assert "Traceback" not in done.stderr

"""The `plait` command end to end, as a user runs it (real subprocesses, real index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import plait

SRC = {
    "app/retry.py": "def retry_upload(session, attempts=3):\n    '''Retry a failed upload.'''\n"
    "    for _ in range(attempts):\n        if session.send():\n            return True\n    return False\n",
    "app/session.py": "class UploadSession:\n    def send(self):\n        raise IOError('checksum mismatch')\n",
}


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PLAIT_INDEX_DIR=str(tmp_path / "index"), PLAIT_MODEL="hashing", HF_HUB_OFFLINE="1")
    return env


def test_a_first_plait_index_parses_in_workers_while_it_opens_the_index(
    make_repo, cli_env: dict[str, str]
) -> None:
    from indexer.parse_ahead import AHEAD_MIN_FILES

    root = make_repo({f"pkg/m{i:03}.py": f"def f{i}():\n    return {i}\n" for i in range(AHEAD_MIN_FILES)})
    built = plait("index", str(root), "--json", env=cli_env)
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    many_cores = len(os.sched_getaffinity(0)) > 1
    assert report["parsed_ahead"] == (AHEAD_MIN_FILES if many_cores else 0)
    assert report["changed"] == report["symbols"] == AHEAD_MIN_FILES and not report["errors"]
    (root / "pkg/m000.py").write_text("def changed():\n    return 0\n")
    again = json.loads(plait("index", str(root), "--json", env=cli_env).stdout)
    assert (again["parsed_ahead"], again["changed"]) == (0, 1)  # the index has tables now


def test_index_status_search_round_trip(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    built = plait("index", str(root), "--json", env=cli_env)
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert (report["files"], report["changed"]) == (2, 2)
    assert report["vectors"] == report["chunks_total"] > 0

    status = json.loads(plait("status", str(root), "--json", env=cli_env).stdout)
    assert status["state"] == "fresh" and status["model"].startswith("hashing")
    assert status["vectors"] == status["chunks"] and status["watcher"] is None

    found = plait("search", "UploadSession", "--root", str(root), "--json", env=cli_env)
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)
    assert results[0]["path"] == "app/session.py" and results[0]["symbol"] == "UploadSession"
    assert set(results[0]) == {"path", "start_line", "end_line", "score", "symbol", "kind", "language", "snippet",
                               "snippet_line", "sources"}  # fmt: skip
    assert results[0]["sources"]["symbol"] == 1

    (root / "app/new.py").write_text("X = 1\n")
    stale = json.loads(plait("status", str(root), "--json", env=cli_env).stdout)
    assert stale["state"] == "stale" and stale["new_files"] == ["app/new.py"]


def test_a_tree_whose_ignore_files_exclude_everything_is_told_so(make_repo, cli_env: dict[str, str]) -> None:
    """Debian's source packages ship a .gitignore holding "/*": indexed as it is, nothing is indexed."""
    root = make_repo({**SRC, ".gitignore": "/*\n!/debian/\n"})
    built = plait("index", str(root), env=cli_env)
    assert built.returncode == 0 and "0 files" in built.stdout, built.stdout
    assert "no file of" in built.stderr and "exclude every entry" in built.stderr and "!*" in built.stderr
    (root / ".ignore").write_text("!*\n")  # what the warning suggests
    rebuilt = plait("index", str(root), "--json", env=cli_env)
    assert json.loads(rebuilt.stdout)["files"] >= 2 and "no file of" not in rebuilt.stderr


def test_human_output_shows_path_line_and_symbol(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    plait("index", str(root), env=cli_env)
    out = plait("search", "retry failed upload", "--root", str(root), "--limit", "2", env=cli_env)
    assert out.returncode == 0, out.stderr
    assert "app/retry.py:1-6" in out.stdout and "retry_upload" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "", "--mode", "text"], "the query is empty"),
        (["search", "(", "--regex", "--mode", "text"], "invalid regex"),
        (["search", "x", "--scope", "dir:../.."], "outside the workspace"),
        (["index", "/definitely/not/here"], "does not exist"),
    ],
)
def test_input_errors_exit_2_with_one_line(
    make_repo, cli_env: dict[str, str], args: list[str], message: str
) -> None:
    root = make_repo(SRC)
    if args[0] == "search":
        args = [*args, "--root", str(root)]
    out = plait(*args, env=cli_env)
    assert out.returncode == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_hybrid_cli_search_uses_a_running_server(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    assert plait("index", str(root), env=cli_env).returncode == 0
    server = subprocess.Popen(
        [sys.executable, "-m", "search.frontends.cli", "serve", "--root", str(root), "--no-preload"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=cli_env,
    )  # fmt: skip
    try:
        endpoint = Path(cli_env["PLAIT_INDEX_DIR"]) / "endpoint.json"
        import time

        deadline = time.monotonic() + 120
        while not endpoint.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.1)
        assert endpoint.exists(), "the server did not advertise its endpoint"
        out = plait("--verbose", "search", "UploadSession", "--root", str(root), "--json", env=cli_env)
        assert out.returncode == 0, out.stderr
        assert f"searched through the running plait process (pid {server.pid})" in out.stderr
        assert json.loads(out.stdout)[0]["symbol"] == "UploadSession"
        local = plait("--verbose", "search", "UploadSession", "--root", str(root), "--no-daemon", env=cli_env)
        assert "running plait process" not in local.stderr
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.terminate()
        server.wait(timeout=30)
    assert not endpoint.exists(), "the endpoint file outlived the server"

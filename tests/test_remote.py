"""``plait search`` through a running server (search/frontends/remote.py and endpoint.py).

* The warm path's shortcut to the index location (``settings.index_location``) gives what the full
  settings resolution gives, on several layouts and configurations, or declines.
* A search that a running ``plait serve`` answers prints the same stdout and stderr and exits with the
  same code as the same search done in the ``plait`` process (``--no-daemon``), for every output
  format, no results, and input errors; a server whose settings are not the command's is not used.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cli_harness import plait
from conftest import write_tree

from indexer import find_root
from search.frontends.remote import post
from search.frontends.settings import ROOT_MARKERS, command_settings, index_location

SRC = {
    "app/retry.py": "import time\n\n\n@staticmethod\ndef retry_upload(session, attempts=3):\n"
    "    '''Retry a failed upload.'''\n    for _ in range(attempts):\n        if session.send():\n"
    "            return True\n        time.sleep(1)\n    return False\n",
    "app/session.py": "class UploadSession:\n    def send(self):\n        raise IOError('checksum mismatch')\n",
    "README.md": "# Uploads\n\nThe session retries a failed upload three times.\n",
}


def flags(**given: object) -> argparse.Namespace:
    return argparse.Namespace(
        index_dir=given.get("index_dir"), model=given.get("model"), device=None, exclude=given.get("exclude")
    )


# -- the shortcut to the index location -----------------------------------------------------------------
def test_the_root_markers_are_the_workspace_walkers() -> None:
    from indexer.workspace import ROOT_MARKERS as WALKER_MARKERS

    assert ROOT_MARKERS == WALKER_MARKERS


LAYOUTS: dict[str, dict[str, str]] = {
    "git": {".git/HEAD": "ref: refs/heads/main\n", "src/a.py": "A = 1\n"},
    "pyproject below git": {".git/HEAD": "x\n", "pkg/pyproject.toml": "[project]\nname = 'p'\n", "pkg/src/a.py": ""},
    "no marker": {"src/a.py": "A = 1\n"},
    "plait.toml without index_dir": {
        ".git/HEAD": "x\n", "plait.toml": "[model]\nname = 'hashing'\n[index]\nexclude = ['*.md']\n", "src/a.py": "",
    },
    "tool.plait without index_dir": {
        "pyproject.toml": "[project]\nname = 'p'\n[tool.plait.model]\nname = 'hashing'\n", "src/a.py": "",
    },
    "plait.toml naming index_dir": {".git/HEAD": "x\n", "plait.toml": "index_dir = 'mine'\n", "src/a.py": ""},
    "tool.plait naming index_dir": {"pyproject.toml": "[tool.plait]\nindex_dir = 'theirs'\n", "src/a.py": ""},
    "broken plait.toml": {".git/HEAD": "x\n", "plait.toml": "[model\n", "src/a.py": ""},
}  # fmt: skip


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize(
    ("given", "env"),
    [
        ({}, {}),
        ({"index_dir": "FLAG"}, {}),
        ({}, {"PLAIT_INDEX_DIR": "ENV"}),
        ({"index_dir": "s3://bucket/idx"}, {}),
        ({}, {"XDG_CACHE_HOME": "XDG"}),
        ({}, {"XDG_CACHE_HOME": "relative/cache"}),
        ({}, {"HOME": "HOMEDIR/"}),
        ({"exclude": ["*.md"]}, {}),
    ],
)
@pytest.mark.parametrize("how", ["detect", "--root"])
def test_index_location_gives_what_the_full_resolution_gives(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    layout: str,
    given: dict[str, object],
    env: dict[str, str],
    how: str,
) -> None:
    top = tmp_path / "work"
    write_tree(top, LAYOUTS[layout])
    cwd = next(p.parent for p in sorted(top.rglob("a.py")))
    monkeypatch.chdir(cwd)
    subst = {"FLAG": str(tmp_path / "flag-index"), "ENV": str(tmp_path / "env-index"), "XDG": str(tmp_path / "xdg"),
             "HOMEDIR": str(tmp_path / "home")}  # fmt: skip
    for key in ("PLAIT_INDEX_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(
            key, value.replace(value.rstrip("/"), subst.get(value.rstrip("/"), value.rstrip("/")))
        )
    args = flags(**{k: subst.get(v, v) if isinstance(v, str) else v for k, v in given.items()})
    root_arg = None if how == "detect" else str(find_root(cwd))
    fast = index_location(root_arg, args, os.environ)
    try:
        full = command_settings(root_arg, args, env=os.environ)
    except Exception as exc:  # the full resolution refuses: the shortcut must not have been sure
        assert fast is None or "broken" in layout, exc
        return
    if fast is not None:
        assert fast == (full.root, full.index_dir)
    # The shortcut declines only where it says it does.
    declines = (
        "naming index_dir" in layout and not (given.get("index_dir") or env.get("PLAIT_INDEX_DIR"))
    ) or (env.get("XDG_CACHE_HOME") == "relative/cache" and not given.get("index_dir"))
    assert (fast is None) == declines, (fast, full.index_dir)


def test_index_location_declines_a_config_that_is_a_link(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "elsewhere.toml").write_text("[model]\nname = 'hashing'\n")
    (root / "plait.toml").symlink_to(tmp_path / "elsewhere.toml")
    assert index_location(str(root), flags(), {"HOME": str(tmp_path)}) is None
    os.mkfifo(tmp_path / "fifo")
    (root / "plait.toml").unlink()
    (root / "plait.toml").symlink_to(tmp_path / "fifo")
    assert index_location(str(root), flags(), {"HOME": str(tmp_path)}) is None  # never opened, never blocks


# -- a running server answers ---------------------------------------------------------------------------
@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(PLAIT_INDEX_DIR=str(tmp_path / "index"), PLAIT_MODEL="hashing", HF_HUB_OFFLINE="1")
    env.pop("NO_COLOR", None)
    return env


@contextmanager
def serving(root: Path, env: dict[str, str], *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """``plait serve --root ROOT``, once its endpoint is advertised, until the block ends."""
    server = subprocess.Popen(
        [sys.executable, "-m", "search.frontends.cli", "serve", "--root", str(root), "--no-auto-index", *extra],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        endpoint = Path(env["PLAIT_INDEX_DIR"]) / "endpoint.json"
        deadline = time.monotonic() + 120
        while not endpoint.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        assert endpoint.exists(), "the server did not advertise its endpoint"
        yield server
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.terminate()
        server.wait(timeout=30)


CASES = [
    ["UploadSession", "--json"],
    ["retry failed upload", "--jsonl"],
    ["retry failed upload", "--limit", "2"],
    ["send", "--mode", "symbol", "--explain"],
    ["retry_upload", "--color", "always", "--max-tokens", "40"],
    ["checksum", "--mode", "text", "--glob", "app/*.py"],
    ["zzqqxx_nothing", "--mode", "text"],
    ["zzqqxx_nothing", "--mode", "symbol", "--json"],
    ["", "--mode", "text"],
    ["(", "--regex", "--mode", "text"],
    ["x", "--scope", "dir:../.."],
]


def test_a_search_answered_by_the_server_prints_what_one_done_here_prints(
    make_repo, cli_env: dict[str, str]
) -> None:
    root = make_repo(SRC)
    assert plait("index", str(root), "--quiet", env=cli_env).returncode == 0
    with serving(root, cli_env) as server:
        pid = server.pid
        codes = set()
        for case in CASES:
            args = ["search", case[0], "--root", str(root), *case[1:]]
            here = plait(*args, "--no-daemon", env=cli_env)
            warm = plait("--verbose", *args, env=cli_env)
            head, _, rest = warm.stderr.partition("\n")
            assert head == f"plait: searched through the running plait process (pid {pid})", warm.stderr
            assert (warm.returncode, warm.stdout, rest) == (here.returncode, here.stdout, here.stderr), case
            codes.add(here.returncode)
        assert codes == {0, 1, 2}


def test_a_server_with_other_settings_is_not_used(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    assert plait("index", str(root), "--quiet", env=cli_env).returncode == 0
    with serving(root, cli_env, "--exclude", "*.md") as server:
        pid = server.pid
        args = ["search", "failed upload", "--root", str(root), "--mode", "text", "--json"]
        same = plait("--verbose", *args, "--exclude", "*.md", env=cli_env)
        assert f"searched through the running plait process (pid {pid})" in same.stderr
        other = plait("--verbose", *args, env=cli_env)
        assert f"the running plait process (pid {pid}) started with other settings" in other.stderr
        assert other.stdout == plait(*args, "--no-daemon", env=cli_env).stdout  # searched here
        # A plait.toml written since the server started is the same: the command's settings decide.
        (root / "plait.toml").write_text("[chunks]\nmax_lines = 60\n")
        later = plait("--verbose", *args, "--exclude", "*.md", env=cli_env)
        assert "started with other settings" in later.stderr


def test_the_endpoint_refuses_a_wrong_token_and_another_protocol(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    assert plait("index", str(root), "--quiet", env=cli_env).returncode == 0
    with serving(root, cli_env):
        info = json.loads((Path(cli_env["PLAIT_INDEX_DIR"]) / "endpoint.json").read_text())
        with pytest.raises(ValueError, match="HTTP 401"):
            post(info["url"], b"{}", "not-the-token")
        with pytest.raises(ValueError, match="HTTP 400"):
            post(info["url"], json.dumps({"v": 1, "root": str(root)}).encode(), info["token"])
        with pytest.raises(ValueError, match="not a local plait endpoint"):
            post("http://example.com:80/search", b"{}", info["token"])
        # A broken plait.toml is the server's error as it would be the command's: exit 2, one line.
        (root / "plait.toml").write_text("[model\n")
        out = plait("search", "x", "--root", str(root), env=cli_env)
        here = plait("search", "x", "--root", str(root), "--no-daemon", env=cli_env)
        assert (out.returncode, out.stderr) == (here.returncode, here.stderr) == (2, here.stderr)
        assert "fix the TOML syntax" in out.stderr


def test_the_request_carries_the_settings_environment_but_no_secret() -> None:
    from search.frontends.remote import settings_env

    env = {"PLAIT_MODEL": "hashing", "PLAIT_INDEX_DIR": "/x", "PLAIT_TOKEN": "s3cret", "HOME": "/root"}
    assert settings_env(env) == {"PLAIT_MODEL": "hashing", "PLAIT_INDEX_DIR": "/x"}

"""Security battery, the index and the smaller items (family F and the rest of issue 15).

* F — another root's index and a folder of user files are never deleted, whatever the configuration:
  ``--index-dir``, ``PLAIT_INDEX_DIR``, a repository's ``plait.toml`` (which cannot move the index out
  of plait's cache directory at all), ``--full``, an unreadable ``meta.lance``.
* An interrupted build says so ("interrupted build: run plait index again") and searches keep using
  the last published snapshot.
* Unknown languages, grep patterns over the 128 KiB argument limit, HTTP tokens and the Bearer scheme.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from cli_harness import plait
from security_harness import counts, snapshot
from server_harness import (
    HttpServer,
    SyncClient,
    build_index,
    connect,
    make_workspace,
    serve_args,
    server_env,
)

from indexer import load_settings
from indexer.index import Index, IndexState
from indexer.ownership import MARKER
from models.errors import ConfigError
from search.engine.engine import Engine
from search.frontends.server.http import check_bind
from search.frontends.server.main import build
from search.frontends.settings import root_settings
from search.types import Query

pytestmark = pytest.mark.slow

REPO = {"pkg/app.py": "def handler(request):\n    return request\n", "README.md": "# app\n"}
LONG_PATTERN = "|".join(f"ident_{i:05d}" for i in range(12_000))  # 144 KB: e.g. every name of a list
USER_FILES = {
    "notes.txt": "my notes\n",
    "photos/cat.jpg": "not really a cat\n",
    "meta.lance": "garbage, unreadable\n",
}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The CLI's environment with plait's cache directory (XDG_CACHE_HOME) inside tmp_path."""
    out = {k: v for k, v in os.environ.items() if k != "PLAIT_INDEX_DIR"}
    out.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PLAIT_MODEL="hashing", HF_HUB_OFFLINE="1")
    return out


def user_folder(base: Path) -> Path:
    folder = base / "precious"
    for rel, content in USER_FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(content)
    return folder


def test_a_folder_of_user_files_is_never_written_into_or_wiped(
    tmp_path: Path, env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_workspace(tmp_path, REPO, name="repo")
    folder = user_folder(tmp_path)
    before = snapshot(folder)
    attempts = [
        ("index", str(root), "--index-dir", str(folder)),
        ("index", str(root), "--index-dir", str(folder), "--full"),
        ("index", str(root), "--index-dir", str(folder / "photos")),
    ]
    refused = 0
    for args in attempts:
        done = plait(*args, env=env)
        assert done.returncode == 2 and "not a plait index" in done.stderr, done.stderr
        refused += 1
    done = plait("index", str(root), env={**env, "PLAIT_INDEX_DIR": str(folder)})
    assert done.returncode == 2 and "not a plait index" in done.stderr
    refused += 1
    # A repository's own plait.toml cannot point plait at the folder at all.
    (root / "plait.toml").write_text(f'index_dir = "{folder}"\n')
    done = plait("index", str(root), env=env)
    assert done.returncode == 2 and "cannot choose where plait writes" in done.stderr, done.stderr
    refused += 1
    for escape in ("../../precious", "s3://bucket/elsewhere", str(tmp_path)):
        (root / "plait.toml").write_text(f'index_dir = "{escape}"\n')
        assert plait("index", str(root), env=env).returncode == 2
        refused += 1
    assert snapshot(folder) == before  # not one byte changed, nothing added
    with capsys.disabled():
        print("\n[security index] " + counts(refused=refused, user_files_kept=len(before)))


def test_another_roots_index_is_never_replaced(tmp_path: Path, env: dict[str, str]) -> None:
    first = make_workspace(tmp_path, REPO, name="first")
    second = make_workspace(tmp_path, {"other.py": "def other():\n    return 2\n"}, name="second")
    shared = tmp_path / "shared-index"
    assert plait("index", str(first), "--index-dir", str(shared), env=env).returncode == 0
    marker = (shared / MARKER).read_text()
    assert str(first) in marker
    tables = snapshot(shared)
    for args in (("index", str(second)), ("index", str(second), "--full")):
        done = plait(*args, "--index-dir", str(shared), env=env)
        assert done.returncode == 2 and "holds the index of another workspace" in done.stderr, done.stderr
    done = plait("index", str(second), env={**env, "PLAIT_INDEX_DIR": str(shared)})
    assert done.returncode == 2
    after = snapshot(shared)
    assert {k for k in after if not k.endswith(".lock")} == {k for k in tables if not k.endswith(".lock")}
    settings = load_settings(first, env={}, overrides={"index_dir": str(shared), "model_name": "hashing"})
    assert Index(settings).status(check_files=False).files == 2  # the first index is whole


def test_a_repository_config_may_only_choose_a_folder_inside_the_cache(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = make_workspace(tmp_path, {**REPO, "plait.toml": 'index_dir = "team/app"\n'}, name="repo")
    done = plait("index", str(root), "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cache" / "plait" / "team" / "app" / MARKER).is_file()
    # The user's own choice (flag or env) wins over the repository's and may be anywhere.
    mine = tmp_path / "mine"
    assert plait("index", str(root), "--index-dir", str(mine), env=env).returncode == 0
    assert (mine / MARKER).is_file()


def test_one_meaning_of_plait_index_dir_for_every_command(tmp_path: Path) -> None:
    one = make_workspace(tmp_path, REPO, name="one")
    two = make_workspace(tmp_path, REPO, name="two")
    location = str(tmp_path / "idx")
    assert load_settings(one, env={"PLAIT_INDEX_DIR": location}).index_dir == location
    [served] = root_settings(serve_args([one]), env={"PLAIT_INDEX_DIR": location})
    assert served.index_dir == location  # serve: the index itself, as for plait index
    with pytest.raises(ConfigError, match="names the index of one workspace"):
        root_settings(serve_args([one, two]), env={"PLAIT_INDEX_DIR": location})


def test_an_interrupted_build_says_so_and_searches_keep_the_last_snapshot(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, REPO, name="repo")
    settings = load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )
    index = Index(settings)
    index.build()
    # What a SIGKILL mid-build leaves: the build marked running and no writer holding the lock.
    index.store.set_meta(build={"state": "running"})
    status = Index(settings).status(check_files=False)
    assert status.state == IndexState.INTERRUPTED
    assert status.detail is not None and status.detail.startswith("interrupted build: run plait index again")
    found = Engine(settings).search(Query("handler", mode="symbol"))
    assert [r.path for r in found.results] == ["pkg/app.py"]  # the last published snapshot answers
    Index(settings).build()
    assert Index(settings).status(check_files=False).state == IndexState.FRESH


def test_a_first_build_killed_before_it_published_is_reported_as_interrupted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" * 20 for i in range(400)}
    root = make_workspace(tmp_path, files, name="repo")
    location = tmp_path / "index"
    proc = subprocess.Popen(
        [sys.executable, "-m", "search.frontends.cli", "index", str(root), "--index-dir", str(location)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        while proc.poll() is None and not any(p.suffix == ".lance" for p in location.glob("*")):
            time.sleep(0.01)  # poll until the first table appears (bounded by the build itself)
    finally:
        proc.kill()
        proc.wait()
    done = plait("status", str(root), "--index-dir", str(location), "--json", env=env)
    state = done.stdout
    if '"fresh"' in state or '"stale"' in state:
        pytest.skip("the build finished before it could be interrupted on this machine")
    assert '"interrupted"' in state and "interrupted build: run plait index again" in state, state


# --- the smaller items --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncClient]:
    base = tmp_path_factory.mktemp("small")
    root = make_workspace(base, {**REPO, "big/needle.py": "x = ident_07777\n"}, name="repo")
    build_index(root, base / "index")
    state, server = build(serve_args([root]), env=server_env(base / "index"))
    with connect(server) as client:
        yield client
    state.close()


def test_an_unknown_language_is_a_clear_error_in_grep_search_and_find_symbol(mcp: SyncClient) -> None:
    for name, args in (
        ("grep", {"pattern": "handler", "language": "klingon"}),
        ("search", {"query": "handler", "language": "klingon"}),
        ("find_symbol", {"name": "handler", "language": "klingon"}),
    ):
        message = mcp.error(name, args)
        assert "unknown language 'klingon'" in message and "python" in message, message


def test_a_grep_pattern_over_the_argument_limit_goes_to_ripgreps_standard_input(mcp: SyncClient) -> None:
    assert len(LONG_PATTERN) > 128 * 1024  # one argv string may hold 128 KiB
    found = mcp.ok("grep", {"pattern": LONG_PATTERN, "output_mode": "files_with_matches"})
    assert [f["path"] for f in found["files"]] == ["big/needle.py"]


def test_searches_leave_nothing_in_the_temporary_directory(tmp_path: Path, env: dict[str, str]) -> None:
    """Each process that ran ripgrep used to leave an empty ``plait-patterns-*`` folder behind."""
    root = make_workspace(tmp_path, {**REPO, "big/needle.py": "x = ident_07777\n"}, name="repo")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    quiet = {**env, "TMPDIR": str(scratch)}
    for args in (("handler",), ("ident_07777", "--mode", "text"), ("return request", "--mode", "text")):
        done = plait("search", *args, "--root", str(root), env=quiet)
        assert done.returncode == 0, done.stderr
    assert plait("index", str(root), env=quiet).returncode == 0
    assert plait("search", "handler", "--root", str(root), env=quiet).returncode == 0
    assert sorted(p.name for p in scratch.iterdir()) == []


def test_http_tokens_are_long_and_the_bearer_scheme_is_case_insensitive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="at least 16"):
        check_bind("0.0.0.0", "short")
    with pytest.raises(ConfigError, match="at least 16"):
        check_bind("127.0.0.1", "x")
    root = make_workspace(tmp_path, REPO, name="repo")
    token = "a-long-enough-token-1234"
    server = HttpServer(
        ["--root", str(root), "--token", token, "--no-preload"], server_env(tmp_path / "index")
    )
    try:
        assert server.url is not None, "".join(server.lines)
        hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        codes = {}
        for scheme in ("Bearer", "bearer", "BEARER"):
            reply = httpx.post(
                server.url, json=hello, headers={**headers, "authorization": f"{scheme} {token}"}
            )
            codes[scheme] = reply.status_code
        wrong = httpx.post(server.url, json=hello, headers={**headers, "authorization": f"Bearer {token}x"})
        assert all(code != 401 for code in codes.values()), codes
        assert wrong.status_code == 401
    finally:
        server.stop()
    short = HttpServer(
        ["--root", str(root), "--token", "tiny", "--no-preload"], server_env(tmp_path / "index")
    )
    try:
        assert short.wait_exit() == 2 and "at least 16" in "".join(short.lines)
    finally:
        short.stop()

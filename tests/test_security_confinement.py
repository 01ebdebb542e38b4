"""Security battery, confinement (families A, B, C and G of issue 15): on the real file system, with
the real ripgrep and the MCP client, nothing outside the workspace root is ever read or written.

* B — a directory swapped for a symlink to the outside while every path-taking tool runs against it
  (renameat2 RENAME_EXCHANGE in a loop, bounded in count and time): zero answers hold outside content,
  and the outside folder is byte for byte unchanged. The counts are printed.
* A — an untracked symlink to an outside secret is not part of the ``changed`` scope or guard target.
* C — the watcher never indexes a file through a symlinked directory.
* G — no user glob makes grep or search read ``.git`` or an ignored file.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from security_harness import (
    SECRET,
    Swapper,
    counts,
    leaked,
    make_secure_workspace,
    snapshot,
    wait_for,
)
from server_harness import SyncClient, build_index, connect, serve_args, server_env, text

from indexer import beneath, load_settings
from indexer.beneath import has_openat2
from indexer.daemon import start_background_watcher
from indexer.index import Index
from indexer.sandbox import landlock_available
from search.frontends.server.main import build

pytestmark = pytest.mark.slow

ROUNDS = 12  # rounds of every tool against the swapped directory (bounded: the battery's budget)
MAX_SWAPS = 5_000_000
MAX_SWAP_SECONDS = 240.0


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("security")
    root, outside = make_secure_workspace(base)
    build_index(root, base / "index")
    return root, outside, base / "index"


@pytest.fixture(scope="module")
def mcp(secure: tuple[Path, Path, Path]) -> Iterator[SyncClient]:
    root, _, index = secure
    state, server = build(serve_args([root]), env=server_env(index))
    with connect(server) as client:
        yield client
    state.close()


def _race_calls(i: int) -> list[tuple[str, dict[str, Any]]]:
    race = "src/race"
    return [
        ("read_file", {"path": f"{race}/data.txt"}),
        ("file_info", {"path": f"{race}/data.txt"}),
        ("list_directory", {"path": race}),
        ("glob", {"pattern": "*", "path": race}),
        ("grep", {"pattern": "data|TOPSECRET", "path": race}),
        ("grep", {"pattern": "data|TOPSECRET", "path": "src"}),
        ("grep", {"pattern": "data", "path": f"{race}/data.txt", "fixed_strings": True}),
        ("search", {"query": "TOPSECRET", "mode": "text", "scope": f"dir:{race}"}),
        ("search", {"query": "data line", "mode": "hybrid", "scope": f"file:{race}/data.txt"}),
        ("search", {"query": "outside data line", "mode": "text"}),
        ("outline", {"path": f"{race}/data.py"}),
        (
            "ast_query",
            {"query": "(function_definition name: (identifier) @n)", "path": race, "language": "python"},
        ),
        ("edit_insert", {"path": f"{race}/data.txt", "line": 1, "text": "dry\n", "dry_run": True}),
        ("edit_insert", {"path": f"{race}/data.py", "line": 1, "text": f"# edit {i}\n"}),
        (
            "edit_replace",
            {"path": f"{race}/data.txt", "old_string": "data", "new_string": "DATA", "dry_run": True},
        ),
        ("write_file", {"path": f"{race}/new_{i}.txt", "content": f"written {i}\n"}),
        ("write_file", {"path": f"{race}/deeper/new_{i}.txt", "content": f"written {i}\n"}),
        ("guard", {"target": f"dir:{race}", "rules": [{"id": "s", "type": "regex", "pattern": "TOPSECRET"}]}),
    ]


def test_a_directory_swapped_for_a_symlink_while_every_tool_runs_leaks_nothing(
    secure: tuple[Path, Path, Path], mcp: SyncClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, outside, _ = secure
    before = snapshot(outside)
    swapper = Swapper(root, tmp_path / "stop", max_swaps=MAX_SWAPS, max_seconds=MAX_SWAP_SECONDS)
    calls = answered = refused = leaks = 0
    per_tool: dict[str, list[int]] = {}
    try:
        for i in range(ROUNDS):
            for name, args in _race_calls(i):
                result = mcp.call(name, args)
                calls += 1
                tally = per_tool.setdefault(name, [0, 0])
                if result.is_error:
                    refused += 1
                    tally[1] += 1
                    assert "did not answer" not in text(result), text(result)
                else:
                    answered += 1
                    tally[0] += 1
                if leaked(result, args):
                    leaks += 1
                    print(f"LEAK via {name} {args}: {text(result)[:300]}")
    finally:
        swaps = swapper.stop()
    after = snapshot(outside)
    with capsys.disabled():
        print(
            "\n[security race] "
            + counts(
                swaps=swaps, mode=swapper.mode, calls=calls, answered=answered, refused=refused, leaks=leaks,
                outside_changed=int(before != after), openat2=has_openat2(), landlock=landlock_available(),
            )
        )  # fmt: skip
        print(
            "[security race] per tool (answered/refused): "
            + counts(**{k: f"{a}/{r}" for k, (a, r) in per_tool.items()})
        )
    assert swaps > calls  # the directory really changed under the calls
    assert leaks == 0
    assert after == before  # zero bytes written outside: no new file, no edit
    assert not list(outside.glob("new_*")) and not (outside / "deeper").exists()
    assert answered > 0  # the tools still work while the directory churns

    # Settled: the index never took in outside content either.
    assert not os.path.islink(root / "src" / "race")
    mcp.ok("reindex", {})
    for mode in ("text", "symbol", "hybrid"):
        args = {"query": f"{SECRET}_fn", "mode": mode}
        result = mcp.call("search", args)
        assert not leaked(result, args), text(result)
    assert not leaked(mcp.call("find_symbol", {"name": f"{SECRET}_fn"}), {"name": f"{SECRET}_fn"})


def test_symlinks_into_the_outside_are_refused_by_every_tool_without_a_race(
    secure: tuple[Path, Path, Path], mcp: SyncClient
) -> None:
    _, outside, _ = secure
    before = snapshot(outside)
    for name, args in _race_calls(999):
        for path_key in ("path",):
            if path_key in args:
                args = {**args, path_key: str(args[path_key]).replace("src/race", "src/race_link")}
        if "scope" in args:
            args = {**args, "scope": str(args["scope"]).replace("src/race", "src/race_link")}
        if name == "guard":
            args = {**args, "target": "dir:src/race_link"}
        result = mcp.call(name, args)
        assert not leaked(result, args), f"{name}: {text(result)[:300]}"
    assert snapshot(outside) == before


def test_the_changed_scope_and_guard_never_follow_an_untracked_symlink(
    secure: tuple[Path, Path, Path], mcp: SyncClient
) -> None:
    root, outside, index = secure
    link = root / "src" / "new_link.txt"
    link.symlink_to(outside / "secret.txt")
    try:
        for mode in ("text", "hybrid"):
            args = {"query": SECRET, "mode": mode, "scope": "changed"}
            result = mcp.call("search", args)
            assert not leaked(result, args), text(result)
        report = mcp.ok(
            "guard",
            {"target": "changed", "rules": [{"id": "secret", "type": "regex", "pattern": "TOP.ECRET"}]},
        )
        assert report["violations"] == [] and not leaked(mcp.call("guard", {"target": "changed"}))
        env = {**os.environ, **server_env(index)}
        cli = subprocess.run(
            [sys.executable, "-m", "search.frontends.cli", "search", SECRET, "--scope", "changed", "--mode", "text",
             "--root", str(root), "--json"],
            capture_output=True, text=True, env=env, timeout=300,
        )  # fmt: skip
        assert cli.returncode in (0, 1), cli.stderr  # rg's convention: 1 when nothing is found
        assert cli.stdout.strip() == "[]" and SECRET not in cli.stderr  # nothing found, nothing shown
    finally:
        link.unlink()


def test_no_user_glob_brings_back_git_internals_or_ignored_files(
    secure: tuple[Path, Path, Path], mcp: SyncClient
) -> None:
    root, _, _ = secure
    assert (root / ".git" / "config").is_file()
    for glob in ("*", "**", "**/*", ".git/**", "*.log", "config"):
        files = mcp.ok(
            "grep", {"pattern": "core|IGNORED_MARK", "glob": glob, "output_mode": "files_with_matches"}
        )
        paths = {f["path"] for f in files["files"]}
        assert not any(p.startswith(".git/") or p.endswith(".log") for p in paths), (glob, paths)
        found = mcp.ok("search", {"query": "repositoryformatversion", "mode": "text", "glob": [glob]})
        assert not any(r["path"].startswith(".git/") for r in found["results"]), (glob, found["results"])
        ignored = mcp.ok("search", {"query": "IGNORED_MARK", "mode": "text", "glob": [glob]})
        assert ignored["results"] == [], (glob, ignored["results"])
    # ignored files only on request (grep's and glob's include_ignored), .git never
    asked = mcp.ok("grep", {"pattern": "core|IGNORED_MARK", "glob": "*", "include_ignored": True})
    assert {f["path"] for f in asked["files"]} == {"notes/debug.log"}
    plain = mcp.ok("glob", {"pattern": "**"})
    wanted = mcp.ok("glob", {"pattern": "**", "include_ignored": True})
    assert "notes/debug.log" not in {m["path"] for m in plain["matches"]}
    assert "notes/debug.log" in {m["path"] for m in wanted["matches"]}
    assert not any(m["path"].startswith(".git/") for m in wanted["matches"])


def test_the_watcher_never_indexes_through_a_symlinked_directory(tmp_path: Path) -> None:
    root, outside = make_secure_workspace(tmp_path)
    settings = load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )
    index = Index(settings)
    index.build()
    stop = start_background_watcher(settings)
    try:
        (outside / "leak.py").write_text(f"def {SECRET}_watched():\n    return '{SECRET}'\n")
        (root / "src" / "fresh.py").write_text("def fresh_inside_marker():\n    return 2\n")
        wait_for(
            "the watcher to index src/fresh.py", lambda: Index(settings).lookup_symbols("fresh_inside_marker")
        )
        index = Index(settings)
        assert not [m for m in index.lookup_symbols(f"{SECRET}_watched") if SECRET in m.symbol.name]
        assert not any(p.startswith("src/race_link") for p in index.manifest())
    finally:
        stop()


@pytest.mark.parametrize("resolver", ["openat2", "nofollow-walk"])
def test_descriptor_resolution_holds_under_the_race_with_either_resolver(
    tmp_path: Path, resolver: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if resolver == "openat2" and not has_openat2():
        pytest.skip("this kernel has no openat2")
    if resolver == "nofollow-walk":
        monkeypatch.setattr(beneath, "_openat2", None)  # the portable O_NOFOLLOW walk
    root, outside = make_secure_workspace(tmp_path)
    before = snapshot(outside)
    with pytest.raises(OSError) as loop:
        beneath.read_beneath(root, "src/race_link/data.txt", 1000)
    assert loop.value.errno == errno.ELOOP
    with pytest.raises(OSError) as up:
        beneath.read_beneath(root, "src/../../outside/data.txt", 1000)
    assert up.value.errno == errno.EXDEV
    swapper = Swapper(root, tmp_path / "stop", max_swaps=MAX_SWAPS, max_seconds=MAX_SWAP_SECONDS)
    reads = writes = refused = leaks = 0
    try:
        for i in range(2000):
            try:
                data = beneath.read_beneath(root, "src/race/data.txt", 1000)
                reads += 1
                leaks += SECRET.encode() in data
            except OSError:
                refused += 1
            try:
                with beneath.root_fd(root) as rfd:
                    dfd = beneath.makedirs_beneath(rfd, "src/race/made")
                try:
                    beneath.write_atomic(dfd, f"w{i}.txt", b"inside\n")
                    writes += 1
                finally:
                    os.close(dfd)
            except OSError:
                refused += 1
    finally:
        swaps = swapper.stop()
    with capsys.disabled():
        print(
            f"\n[security resolver {resolver}] "
            + counts(swaps=swaps, reads=reads, writes=writes, refused=refused, leaks=leaks)
        )
    assert leaks == 0 and snapshot(outside) == before and not (outside / "made").exists()
    assert reads > 0 and writes > 0

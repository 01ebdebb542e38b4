"""The file, edit and guard tools over MCP (a real ``plait serve`` subprocess over stdio): results,
reindex after writes, and the safety points — confinement, read-only, size limits, stale edits,
generated paths."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import (
    MUTATING,
    SyncClient,
    build_index,
    connect,
    make_workspace,
    serve_args,
    server_env,
    stdio_params,
    text,
)

from search.frontends.server.main import build

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("files")
    root = make_workspace(base)
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    (root / "link_out.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "big.txt").write_text("x" * 9000)
    build_index(root, base / "index")
    return root, outside, base / "index"


@pytest.fixture(scope="module")
def mcp(workspace: tuple[Path, Path, Path]) -> Iterator[SyncClient]:
    root, _, index = workspace
    with connect(stdio_params(["--root", str(root), "--no-preload"], server_env(index))) as client:
        yield client


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- reading -----------------------------------------------------------------------------------------


def test_read_file_numbers_lines_and_returns_the_sha256(
    mcp: SyncClient, workspace: tuple[Path, Path, Path]
) -> None:
    root = workspace[0]
    out = mcp.ok("read_file", {"path": "pkg/retry.py", "offset": 4, "limit": 2})
    assert out["text"].splitlines() == [
        "     4\tclass RetryPolicy:",
        '     5\t    """Exponential backoff between attempts."""',
    ]
    assert out["sha256"] == sha(root / "pkg/retry.py") and out["truncated"]
    assert "offset=6" in out["note"]


def test_list_directory_file_info_and_glob(mcp: SyncClient) -> None:
    notes = mcp.ok("list_directory", {"path": "notes"})
    assert notes["entries"] == [] and notes["ignored"] == 1
    assert [
        e["name"] for e in mcp.ok("list_directory", {"path": "notes", "include_ignored": True})["entries"]
    ] == ["debug.log"]
    listing = mcp.ok("list_directory")
    assert {"pkg", "cmd", "README.md"} <= {e["name"] for e in listing["entries"]}
    info = mcp.ok("file_info", {"path": "pkg/retry.py"})
    assert (info["type"], info["language"], info["line_count"], info["indexed"], info["fresh"]) == (
        "file", "python", 16, True, True,
    )  # fmt: skip
    found = mcp.ok("glob", {"pattern": "*.py", "path": "pkg"})
    assert {m["path"] for m in found["matches"]} == {"pkg/__init__.py", "pkg/retry.py", "pkg/client.py"}


# --- writing and editing -----------------------------------------------------------------------------


def test_a_written_file_is_reindexed_for_the_next_search(
    mcp: SyncClient, workspace: tuple[Path, Path, Path]
) -> None:
    out = mcp.ok("write_file", {"path": "pkg/jitter.py", "content": "def add_jitter(delay: float) -> float:\n"
                                "    return delay * 1.1\n"})  # fmt: skip
    assert out["created"] and (workspace[0] / "pkg/jitter.py").is_file()
    deadline = time.monotonic() + 120
    while not mcp.ok("find_symbol", {"name": "add_jitter"})["symbols"]:
        assert time.monotonic() < deadline, "the written file never reached the index"
    hits = mcp.ok("search", {"query": "add_jitter", "mode": "symbol"})["results"]
    assert hits[0]["path"] == "pkg/jitter.py"


def test_edit_replace_returns_a_diff_and_chains_sha256(
    mcp: SyncClient, workspace: tuple[Path, Path, Path]
) -> None:
    path = workspace[0] / "pkg/edit_me.py"
    path.write_text("A = 1\nB = 2\nC = 3\n")
    first = mcp.ok("edit_replace", {"path": "pkg/edit_me.py", "old_string": "B = 2", "new_string": "B = 20",
                                    "expected_sha256": sha(path)})  # fmt: skip
    assert "-B = 2\n+B = 20" in first["diff"] and first["written"] and first["sha256_after"] == sha(path)
    dry = mcp.ok("edit_replace", {"path": "pkg/edit_me.py", "old_string": "A = 1", "new_string": "A = 0",
                                  "dry_run": True})  # fmt: skip
    assert "+A = 0" in dry["diff"] and not dry["written"] and path.read_text() == "A = 1\nB = 20\nC = 3\n"
    many = mcp.ok("edit_replace", {"path": "pkg/edit_me.py", "expected_sha256": first["sha256_after"], "edits": [
        {"old_string": "A = 1", "new_string": "A = 10"}, {"old_string": "C = 3", "new_string": "C = 30"}]})  # fmt: skip
    assert many["replacements"] == 2 and path.read_text() == "A = 10\nB = 20\nC = 30\n"
    inserted = mcp.ok("edit_insert", {"path": "pkg/edit_me.py", "line": 2, "text": "# between\n"})
    assert "+# between" in inserted["diff"]
    deleted = mcp.ok("edit_delete", {"path": "pkg/edit_me.py", "start_line": 1, "end_line": 2,
                                     "expected_sha256": inserted["sha256_after"]})  # fmt: skip
    assert "-A = 10\n-# between" in deleted["diff"] and path.read_text() == "B = 20\nC = 30\n"


def test_refused_edits_lose_nothing(mcp: SyncClient, workspace: tuple[Path, Path, Path]) -> None:
    path = workspace[0] / "pkg/keep.py"
    path.write_text("x = 1\nx = 1\ny = 2\n")
    before = path.read_bytes()
    stale = "0" * 64
    assert "changed since it was read" in mcp.error("edit_replace", {"path": "pkg/keep.py", "old_string": "y = 2",
                                                    "new_string": "y = 3", "expected_sha256": stale})  # fmt: skip
    assert "changed since it was read" in mcp.error("write_file", {"path": "pkg/keep.py", "content": "gone\n",
                                                    "expected_sha256": stale})  # fmt: skip
    assert "changed since" in mcp.error("edit_delete", {"path": "pkg/keep.py", "start_line": 1, "end_line": 1,
                                        "expected_sha256": stale})  # fmt: skip
    assert "2 matches" in mcp.error(
        "edit_replace", {"path": "pkg/keep.py", "old_string": "x = 1", "new_string": "z"}
    )
    atomic = mcp.error("edit_replace", {"path": "pkg/keep.py", "edits": [
        {"old_string": "y = 2", "new_string": "y = 3"}, {"old_string": "nowhere", "new_string": "q"}]})  # fmt: skip
    assert "edit 2" in atomic and "not found" in atomic
    assert "line" in mcp.error("edit_delete", {"path": "pkg/keep.py", "start_line": 9, "end_line": 12})
    assert path.read_bytes() == before


def test_generated_paths_and_git_internals_are_not_written(
    mcp: SyncClient, workspace: tuple[Path, Path, Path]
) -> None:
    root = workspace[0]
    before = (root / "gen/api_pb.py").read_bytes()
    assert "regenerate with protoc" in mcp.error("write_file", {"path": "gen/api_pb.py", "content": "x\n"})
    assert "generated" in mcp.error(
        "edit_replace", {"path": "gen/api_pb.py", "old_string": "3", "new_string": "4"}
    )
    assert "generated" in mcp.error("write_file", {"path": "gen/new_pb.py", "content": "x\n"})
    assert ".git" in mcp.error("write_file", {"path": ".git/config", "content": "[core]\n"})
    assert (root / "gen/api_pb.py").read_bytes() == before and not (root / "gen/new_pb.py").exists()


def test_size_limits_apply_to_reads_writes_and_edits(
    mcp: SyncClient, workspace: tuple[Path, Path, Path]
) -> None:
    assert "read limit" in mcp.error("read_file", {"path": "big.txt"})
    assert "write limit" in mcp.error("write_file", {"path": "huge.txt", "content": "y" * 5000})
    assert "write limit" in mcp.error("edit_replace", {"path": "README.md", "old_string": "# Fixture",
                                      "new_string": "z" * 5000})  # fmt: skip
    assert not (workspace[0] / "huge.txt").exists()


# --- confinement -------------------------------------------------------------------------------------

ESCAPES = [
    ("../outside/secret.txt", "outside the workspace"),
    ("pkg/../../outside/secret.txt", "outside the workspace"),
    ("link_out.txt", "outside the workspace"),  # a symlink pointing out
    ("linkdir/secret.txt", "outside the workspace"),  # a symlinked parent directory
    ("pkg\\retry.py", "Windows path"),
    ("C:/Windows/win.ini", "Windows path"),
    ("pkg/retry.py\x00.txt", "NUL byte"),
    ("pkg/" + "a" * 300 + ".py", "255-byte limit"),
]


@pytest.mark.parametrize(("path", "expected"), ESCAPES)
def test_paths_outside_the_roots_are_refused_by_every_file_tool(
    mcp: SyncClient, workspace: tuple[Path, Path, Path], path: str, expected: str
) -> None:
    outside = workspace[1]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {"path": path}),
        ("file_info", {"path": path}),
        ("write_file", {"path": path, "content": "pwned\n"}),
        ("edit_replace", {"path": path, "old_string": "secret", "new_string": "pwned"}),
        ("edit_insert", {"path": path, "line": 1, "text": "pwned\n"}),
        ("edit_delete", {"path": path, "start_line": 1, "end_line": 1}),
    ]
    for tool, arguments in calls:
        assert expected in mcp.error(tool, arguments), tool
    assert (outside / "secret.txt").read_text() == "secret\n" and os.listdir(outside) == ["secret.txt"]


def test_absolute_paths_elsewhere_are_refused(mcp: SyncClient, workspace: tuple[Path, Path, Path]) -> None:
    secret = str(workspace[1] / "secret.txt")
    for tool, arguments in [
        ("read_file", {"path": secret}),
        ("write_file", {"path": str(workspace[1] / "new.txt"), "content": "x"}),
        ("list_directory", {"path": str(workspace[1])}),
        ("glob", {"pattern": "*.txt", "path": "/etc"}),
        ("grep", {"pattern": "secret", "path": secret}),
        ("guard", {"target": f"file:{secret}"}),
    ]:
        assert "outside the workspace" in mcp.error(tool, arguments), tool
    assert not (workspace[1] / "new.txt").exists()


# --- guard -------------------------------------------------------------------------------------------


def test_guard_checks_configured_and_inline_rules(mcp: SyncClient) -> None:
    report = mcp.ok("guard")
    assert not report["ok"]
    assert [(v["rule_id"], v["path"], v["line"]) for v in report["violations"]] == [
        ("no-print", "pkg/client.py", 6)
    ]
    inline = mcp.ok("guard", {"target": "dir:pkg", "rules": [
        {"id": "no-open", "type": "regex", "pattern": r"open\(", "message": "use pathlib"},
        {"id": "no-retry-import", "type": "import", "prefixes": ["pkg.retry"]}]})  # fmt: skip
    assert {(v["rule_id"], v["path"]) for v in inline["violations"]} == {
        ("no-open", "pkg/retry.py"), ("no-retry-import", "pkg/client.py"),
    }  # fmt: skip
    assert mcp.ok("guard", {"target": "file:cmd/main.go"})["ok"]
    bad = mcp.error("guard", {"rules": [{"id": "r", "type": "regex"}]})
    assert "needs a non-empty pattern" in bad
    assert "unknown guard target" in mcp.error("guard", {"target": "everything"})


# --- read-only ---------------------------------------------------------------------------------------


def test_read_only_refuses_every_mutating_tool_even_as_a_dry_run(workspace: tuple[Path, Path, Path]) -> None:
    root, _, index = workspace
    state, server = build(serve_args([root], read_only=True), env=server_env(index))
    before = (root / "README.md").read_bytes()
    with connect(server) as client:
        assert not MUTATING & set(client.tools())
        for tool, arguments in [
            ("write_file", {"path": "README.md", "content": "x"}),
            (
                "edit_replace",
                {"path": "README.md", "old_string": "Fixture", "new_string": "F", "dry_run": True},
            ),
            ("edit_insert", {"path": "README.md", "line": 1, "text": "x\n", "dry_run": True}),
            ("edit_delete", {"path": "README.md", "start_line": 1, "end_line": 1}),
        ]:
            result = client.call(tool, arguments)
            assert result.is_error and "read-only" in text(result) and "--read-only" in text(result)
        assert client.ok("read_file", {"path": "README.md"})["total_lines"] == 3
    state.close()
    assert (root / "README.md").read_bytes() == before

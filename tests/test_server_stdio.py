"""``plait serve`` as a real subprocess, driven over stdio by the ``mcp`` package's own client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import (
    ALL_TOOLS,
    MUTATING,
    SyncClient,
    build_index,
    check_bad_input,
    check_grep_modes,
    check_index_tools,
    check_search,
    check_symbols_outline_ast,
    check_tool_listing,
    connect,
    make_workspace,
    server_env,
    stdio_params,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("stdio")
    root = make_workspace(base)
    build_index(root, base / "index")
    return root, base / "index"


@pytest.fixture(scope="module")
def mcp(workspace: tuple[Path, Path]) -> Iterator[SyncClient]:
    root, index = workspace
    with connect(stdio_params(["--root", str(root)], server_env(index))) as client:
        yield client


def test_lists_every_tool_with_its_schema(mcp: SyncClient) -> None:
    check_tool_listing(mcp)
    assert "search_guide" in mcp.prompts()


def test_search_returns_structured_results(mcp: SyncClient, workspace: tuple[Path, Path]) -> None:
    check_search(mcp, workspace[0])


def test_grep_in_all_three_output_modes(mcp: SyncClient) -> None:
    check_grep_modes(mcp)


def test_find_symbol_outline_and_ast_query(mcp: SyncClient) -> None:
    check_symbols_outline_ast(mcp)


def test_index_status_reindex_and_server_info(mcp: SyncClient, workspace: tuple[Path, Path]) -> None:
    check_index_tools(mcp, workspace[0])


def test_bad_input_over_the_wire_is_an_error_and_the_server_keeps_serving(mcp: SyncClient) -> None:
    check_bad_input(mcp)


def test_read_only_server_hides_mutating_and_disabled_tools(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    args = ["--root", str(root), "--read-only", "--disable", "tool:search", "--no-preload"]
    with connect(stdio_params(args, server_env(index))) as client:
        assert set(client.tools()) == ALL_TOOLS - MUTATING - {"search"}
        before = (root / "pkg/retry.py").read_bytes()
        for tool, arguments in [
            ("write_file", {"path": "pkg/new.py", "content": "x = 1\n"}),
            ("edit_replace", {"path": "pkg/retry.py", "old_string": "0.5", "new_string": "1.5"}),
            ("edit_insert", {"path": "pkg/retry.py", "line": 1, "text": "# hi\n"}),
            ("edit_delete", {"path": "pkg/retry.py", "start_line": 1, "end_line": 2}),
        ]:
            assert "read-only" in client.error(tool, arguments)
        assert "disabled" in client.error("search", {"query": "RetryPolicy"})
        assert client.ok("grep", {"pattern": "RetryPolicy", "output_mode": "count"})["total_files"] == 3
        assert client.ok("server_info")["read_only"] is True
    assert (root / "pkg/retry.py").read_bytes() == before and not (root / "pkg/new.py").exists()


def test_watch_keeps_the_index_fresh_for_files_changed_on_disk(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    build_index(root, tmp_path / "index")
    args = ["--root", str(root), "--watch", "--no-preload"]
    with connect(stdio_params(args, server_env(tmp_path / "index"))) as client:
        assert client.ok("server_info")["watching"] is True
        (root / "pkg" / "limits.py").write_text("class RateLimiter:\n    pass\n")
        deadline = time.monotonic() + 120
        while True:  # until the watcher has committed a batch with the new file
            watcher = client.ok("index_status", {"check_files": False})["roots"][0]["watcher"] or {}
            if (watcher.get("last_batch") or {}).get("kind") == "files":
                break
            assert time.monotonic() < deadline, f"the watcher never indexed the new file: {watcher}"
        deadline = time.monotonic() + 10
        while not client.ok("find_symbol", {"name": "RateLimiter"})["symbols"]:
            assert time.monotonic() < deadline, "the server does not see the watcher's commit"

"""The search-side tools are module-level functions of ``(state, ...)``: a test calls them directly, and
the server registers them bound to its state with the same schema, ``state`` left out."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server_harness import connect, make_workspace, serve_args, server_env

from search.frontends.server import tools_files, tools_guard, tools_search
from search.frontends.server.main import build

TOOLS: dict[str, Callable[..., Any]] = {
    "search": tools_search.search,
    "grep": tools_search.grep,
    "find_symbol": tools_search.find_symbol,
    "guard": tools_guard.guard,
    "read_file": tools_files.read_file,
    "write_file": tools_files.write_file,
    "list_directory": tools_files.list_directory,
    "file_info": tools_files.file_info,
    "glob": tools_files.glob,
}


def test_a_tool_called_directly_answers_as_through_the_server(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    state, server = build(serve_args([root]), server_env(tmp_path / "index"))
    try:
        direct = tools_search.grep(state, "def ", output_mode="files_with_matches")
        listing = tools_files.glob(state, "*.py")
        checked = tools_guard.guard(state, "ws")
        with connect(server) as client:
            assert client.ok("grep", {"pattern": "def ", "output_mode": "files_with_matches"}) == (
                direct.structured_content
            )
            assert (
                client.ok("glob", {"pattern": "*.py"})["matches"]
                == (listing.structured_content or {})["matches"]
            )
            assert (
                client.ok("guard", {})["files_checked"] == (checked.structured_content or {})["files_checked"]
            )
            schemas = client.tools()
        assert (direct.structured_content or {})["files"]
        for name, tool in TOOLS.items():
            params = list(inspect.signature(tool).parameters)
            assert params[0] == "state"
            assert set(schemas[name].input_schema["properties"]) == set(params[1:]), name
            assert schemas[name].description, name
    finally:
        state.close()

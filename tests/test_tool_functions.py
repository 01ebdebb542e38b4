"""MCP tools are module-level functions of the server state: tests call them directly, and
``boundary.bound`` registers them with the state bound and the same name, description and schema."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import build_index, make_workspace, serve_args, server_env, text

from search.errors import ReadOnlyError
from search.frontends.server.boundary import bound
from search.frontends.server.main import build
from search.frontends.server.state import ServerState
from search.frontends.server.tools_edit import edit_replace_tool
from search.frontends.server.tools_index import reindex
from search.frontends.server.tools_structure import outline


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("toolfns")
    ws = make_workspace(base)
    build_index(ws, base / "index")
    return ws, base / "index"


@pytest.fixture
def state(root: tuple[Path, Path]) -> Iterator[ServerState]:
    ws, index = root
    state, _ = build(serve_args([ws]), env=server_env(index))
    yield state
    state.close()


def test_a_tool_is_a_plain_function_of_the_state(state: ServerState) -> None:
    result = outline(state, "pkg/retry.py")
    assert result.structured_content is not None
    names = [node["name"] for node in result.structured_content["symbols"]]
    assert names == ["RetryPolicy", "parse_config"]
    assert "RetryPolicy" in text(result)


def test_an_edit_tool_called_directly_follows_the_write_policy(
    root: tuple[Path, Path], state: ServerState
) -> None:
    ws, index = root
    before = (ws / "pkg/retry.py").read_text()
    result = edit_replace_tool(state, "pkg/retry.py", "0.5 * 2**attempt", "0.25 * 2**attempt", dry_run=True)
    assert "+        return 0.25 * 2**attempt" in text(result)
    assert (ws / "pkg/retry.py").read_text() == before  # dry run: nothing written
    read_only, _ = build(serve_args([ws], read_only=True), env=server_env(index))
    try:
        with pytest.raises(ReadOnlyError):
            edit_replace_tool(read_only, "pkg/retry.py", "0.5", "0.25")
    finally:
        read_only.close()
    assert (ws / "pkg/retry.py").read_text() == before


def test_bound_keeps_name_description_and_signature_without_the_state(state: ServerState) -> None:
    tool = bound(reindex, state)
    assert tool.__name__ == "reindex" and tool.__doc__ == reindex.__doc__
    assert list(inspect.signature(tool).parameters) == list(inspect.signature(reindex).parameters)[1:]
    assert "state" not in tool.__annotations__ and "ctx" in tool.__annotations__


def test_an_outline_of_definitions_nested_thousands_deep_stops_nesting_at_its_depth() -> None:
    from indexer import extract_symbols
    from search.frontends.server.models import OutlineOutput
    from search.frontends.server.tools_structure import MAX_OUTLINE_DEPTH, _render_outline, _tree

    depth = 2000  # deeper than Python's recursion limit allows a recursive render or serialisation
    source = "mod a {\n" * depth + "fn deep() {}\n" + "}\n" * depth
    symbols = extract_symbols(source.encode(), "rust", "deep.rs")
    nodes = _tree(symbols)
    levels, level = 0, nodes
    while level:
        levels, level = levels + 1, level[-1].children
    assert levels == MAX_OUTLINE_DEPTH
    lines = _render_outline(nodes, 0)
    assert len(lines) == depth + 1 and lines[-1].strip().endswith("fn deep() {}")
    dumped = OutlineOutput(
        path="deep.rs", root="/", language="rust", symbols=nodes, total=len(symbols), truncated=False
    )
    assert dumped.model_dump()["total"] == depth + 1

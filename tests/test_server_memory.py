"""The MCP server through the SDK's in-memory ``Client(server)``: schemas, tools, configuration, errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import (
    ALL_TOOLS,
    MUTATING,
    SyncClient,
    build_index,
    connect,
    make_workspace,
    serve_args,
    server_env,
    text,
)

from models.errors import ConfigError
from search.frontends.server.http import check_bind, transport_security
from search.frontends.server.main import build
from search.frontends.server.registry import CATEGORIES, TOOLS, resolve_tools

INTERNAL = {
    "state",
    "roots",
    "read_only",
    "on_write",
    "guard_rules",
    "max_bytes",
    "settings",
    "ctx",
    "engine",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("memory")
    root = make_workspace(base)
    build_index(root, base / "index")
    return root, base / "index"


@pytest.fixture(scope="module")
def mcp(workspace: tuple[Path, Path]) -> Iterator[SyncClient]:
    root, index = workspace
    state, server = build(serve_args([root]), env=server_env(index))
    with connect(server) as client:
        yield client
    state.close()


# --- listing -----------------------------------------------------------------------------------------


def test_every_tool_is_listed_with_a_description_and_described_parameters(mcp: SyncClient) -> None:
    tools = mcp.tools()
    assert set(tools) == ALL_TOOLS
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 60, name
        assert tool.output_schema is not None, name
        props = tool.input_schema.get("properties", {})
        assert not INTERNAL & set(props), (name, props)
        for param, schema in props.items():
            assert schema.get("description"), f"{name}.{param} has no description"


def test_annotations_tell_the_truth(mcp: SyncClient) -> None:
    for name, tool in mcp.tools().items():
        ann = tool.annotations
        assert ann is not None, name
        assert ann.open_world_hint is False, name
        if name in MUTATING:
            assert ann.read_only_hint is False, name
        elif name == "reindex":
            assert (ann.read_only_hint, ann.destructive_hint, ann.idempotent_hint) == (False, False, True)
        else:
            assert ann.read_only_hint is True and ann.destructive_hint is False, name
    tools = mcp.tools()
    assert tools["write_file"].annotations.destructive_hint is True
    assert tools["edit_insert"].annotations.destructive_hint is False
    assert tools["edit_replace"].annotations.idempotent_hint is False


def test_search_guide_prompt_teaches_when_to_use_which_tool(mcp: SyncClient) -> None:
    assert "search_guide" in mcp.prompts()
    guide = mcp.prompt_text("search_guide", {"task": "find the retry logic"})
    for word in ("hybrid", "grep", "find_symbol", "scope", "find the retry logic"):
        assert word in guide


# --- search tools ------------------------------------------------------------------------------------


def test_search_returns_the_design_result_schema(mcp: SyncClient, workspace: tuple[Path, Path]) -> None:
    out = mcp.ok("search", {"query": "RetryPolicy backoff"})
    top = out["results"][0]
    assert top["path"] == "pkg/retry.py" and top["root"] == str(workspace[0])
    assert set(top) >= {
        "path",
        "start_line",
        "end_line",
        "score",
        "symbol",
        "kind",
        "language",
        "snippet",
        "sources",
    }
    assert set(top["sources"]) <= {"text", "symbol", "vector"} and top["start_line"] <= top["end_line"]
    assert out["degraded"] == {}


def test_search_explains_each_result_when_asked(mcp: SyncClient) -> None:
    plain = mcp.ok("search", {"query": "RetryPolicy backoff"})
    assert all(r.get("explain") is None for r in plain["results"])
    out = mcp.ok("search", {"query": "RetryPolicy backoff", "explain": True})
    why = out["results"][0]["explain"]
    assert set(why) == {"ranks", "fused", "rules", "tier"}
    assert why["ranks"] == out["results"][0]["sources"]
    assert all(set(rule) == {"rule", "effect"} for rule in why["rules"])
    scores = [r["score"] for r in out["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_lists_the_results_after_limit_by_location_only(mcp: SyncClient) -> None:
    wide = mcp.ok("search", {"query": "retry policy", "limit": 6, "more": 0})
    assert wide["more"] == [] and len(wide["results"]) >= 3
    call = mcp.call("search", {"query": "retry policy", "limit": 1, "more": 2})
    out = call.structured_content or {}
    assert [r["path"] for r in out["results"]] == [wide["results"][0]["path"]]
    listed = out["more"]
    assert [(m["path"], m["start_line"], m["end_line"]) for m in listed] == [
        (r["path"], r["start_line"], r["end_line"]) for r in wide["results"][1:3]
    ]
    assert all("snippet" not in m for m in listed)
    shown = text(call)
    assert "more results, by location only" in shown
    first = listed[0]
    assert f"2. {first['path']}:{first['start_line']}-{first['end_line']}" in shown
    assert shown.count("\n") < text(
        mcp.call("search", {"query": "retry policy", "limit": 3, "more": 0})
    ).count("\n")


def test_search_scope_glob_and_language_narrow_the_results(mcp: SyncClient) -> None:
    go = mcp.ok("search", {"query": "Serve", "scope": "dir:cmd"})
    assert go["results"] and {r["path"] for r in go["results"]} == {"cmd/main.go"}
    py = mcp.ok("search", {"query": "attempt", "mode": "text", "language": "python", "glob": ["pkg/**"]})
    assert py["results"] and all(r["path"].startswith("pkg/") for r in py["results"])


def test_grep_has_three_output_modes_context_and_a_head_limit(mcp: SyncClient) -> None:
    content = mcp.ok("grep", {"pattern": r"def \w+", "context": 1, "glob": "*.py"})
    lines = [ln for f in content["files"] for ln in f["lines"]]
    assert any(ln["match"] for ln in lines) and any(not ln["match"] for ln in lines)
    files = mcp.ok("grep", {"pattern": "RetryPolicy", "output_mode": "files_with_matches"})
    assert sorted(f["path"] for f in files["files"]) == ["README.md", "pkg/client.py", "pkg/retry.py"]
    counts = mcp.ok("grep", {"pattern": "RetryPolicy", "output_mode": "count"})
    assert {f["path"]: f["count"] for f in counts["files"]}["pkg/client.py"] == 2
    limited = mcp.call("grep", {"pattern": "attempt", "head_limit": 2})
    assert limited.structured_content is not None and limited.structured_content["truncated"]
    assert "truncated" in text(limited) and "narrow with" in text(limited)


def test_find_symbol_and_outline_come_from_the_symbol_index_and_the_live_file(mcp: SyncClient) -> None:
    found = mcp.ok("find_symbol", {"name": "backoff", "kind": ["method"]})
    assert found["symbols"][0]["qualified_name"] == "RetryPolicy.backoff"
    outline = mcp.ok("outline", {"path": "pkg/retry.py"})
    cls = next(n for n in outline["symbols"] if n["name"] == "RetryPolicy")
    assert [c["name"] for c in cls["children"]] == ["__init__", "backoff"]


def test_ast_query_returns_captures_and_malformed_queries_name_the_position(mcp: SyncClient) -> None:
    out = mcp.ok("ast_query", {"query": "(function_definition name: (identifier) @fn)", "language": "python"})
    names = {(c["path"], c["text"], c["start_line"]) for c in out["captures"]}
    assert ("pkg/retry.py", "backoff", 10) in names and ("pkg/client.py", "fetch", 4) in names
    one = mcp.ok("ast_query", {"query": "(call function: (identifier) @f)", "path": "pkg/client.py"})
    assert [c["text"] for c in one["captures"]] == ["range", "print"]
    bad = mcp.error(
        "ast_query", {"query": "(function_definition name: (identifer) @n)", "language": "python"}
    )
    assert "line 1, column" in bad and "identifer" in bad


def test_ast_query_reads_a_cpp_header_named_h_as_cpp(mcp: SyncClient, workspace: tuple[Path, Path]) -> None:
    header = workspace[0] / "pkg" / "queue.h"
    header.write_text(
        "/* a queue */\n#include <vector>\nnamespace q {\nclass Queue {\n public:\n  int size();\n};\n}\n"
    )
    try:
        out = mcp.ok(
            "ast_query", {"query": "(class_specifier name: (type_identifier) @c)", "path": "pkg/queue.h"}
        )
        assert [(c["text"], c["start_line"]) for c in out["captures"]] == [("Queue", 4)]  # C has no classes
    finally:
        header.unlink()


# --- index and info ----------------------------------------------------------------------------------


def test_index_status_reindex_and_server_info(mcp: SyncClient, workspace: tuple[Path, Path]) -> None:
    status = mcp.ok("index_status")["roots"][0]
    assert status["state"] == "fresh" and status["symbols"] > 0
    job = mcp.ok("reindex", {"path": "pkg/retry.py", "wait": True})["jobs"][0]
    assert job["scope"] == "pkg/retry.py" and job["state"] == "done" and job["report"]["changed"] == 0
    info = mcp.ok("server_info")
    assert info["roots"][0]["path"] == str(workspace[0]) and info["read_only"] is False
    assert {t["name"] for t in info["tools"]} == ALL_TOOLS
    assert info["categories"]["edit"] == ["edit_replace", "edit_insert", "edit_delete"]


# --- bad input ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("search", {}, "query: Field required"),
        ("search", {"query": "x", "limit": 10**9}, "less than or equal to 200"),
        ("search", {"query": "x", "limit": "many"}, "limit"),
        ("grep", {"pattern": "(unclosed"}, "invalid regex"),
        ("grep", {"pattern": "x", "path": "../outside"}, "outside the workspace"),
        ("search", {"query": "x", "scope": "dir:/etc"}, "outside the workspace"),
        ("search", {"query": "x", "scope": "nowhere"}, "unknown scope"),
        ("outline", {"path": "README.md"}, "no outline"),
        ("find_symbol", {"name": "x", "kind": ["widget"]}, "kind"),
        ("ast_query", {"query": "(identifier) @i", "path": "pkg"}, "pass language"),
        ("reindex", {"path": "pkg", "full": True}, "full=true"),
    ],
)
def test_bad_input_is_an_actionable_error_and_the_server_keeps_serving(
    mcp: SyncClient, tool: str, arguments: dict[str, object], expected: str
) -> None:
    message = mcp.error(tool, arguments)
    assert expected in message
    assert "Error executing tool" not in message or len(message) > 40 + len(tool)
    assert mcp.ok("grep", {"pattern": "RetryPolicy", "output_mode": "count"})["total_files"] == 3


# --- configuration -----------------------------------------------------------------------------------


def test_read_only_mode_hides_and_refuses_the_mutating_tools(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    state, server = build(serve_args([root], read_only=True), env=server_env(index))
    with connect(server) as client:
        assert set(client.tools()) == ALL_TOOLS - MUTATING
        for tool in MUTATING:
            message = client.error(tool, {"path": "pkg/retry.py", "content": "x", "old_string": "a",
                                          "new_string": "b", "line": 1, "text": "x", "start_line": 1,
                                          "end_line": 1})  # fmt: skip
            assert "read-only" in message
        assert client.ok("server_info")["read_only"] is True
    state.close()
    assert "RetryPolicy" in (root / "pkg/retry.py").read_text()


def test_disabled_tools_are_absent_and_refused_by_name(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    state, server = build(serve_args([root], disable=["grep", "edit"]), env=server_env(index))
    with connect(server) as client:
        tools = client.tools()
        assert "grep" not in tools and not {"edit_replace", "edit_insert", "edit_delete"} & set(tools)
        assert "search" in tools and "write_file" in tools
        assert "disabled" in client.error("grep", {"pattern": "x"})
        assert "grep" in client.ok("server_info")["disabled_tools"]
    state.close()


def test_tool_selection_resolves_flags_categories_and_plait_toml() -> None:
    only = resolve_tools(enable=["search", "read_file"], disable=None, read_only=False)
    assert set(only.enabled) == {"search", "grep", "find_symbol", "find_references", "related", "outline",
                                 "ast_query", "read_file", "server_info"}  # fmt: skip
    assert resolve_tools(enable=["tool:search,index"], disable=None, read_only=False).enabled == (
        "search", "index_status", "reindex", "server_info",
    )  # fmt: skip
    assert "grep" in resolve_tools(enable=None, disable=["tool:search"], read_only=False).enabled
    config = {"disable": ["guard"], "read_only": True}
    sel = resolve_tools(enable=None, disable=["index_status"], read_only=False, config=config)
    assert sel.read_only and not {"guard", "index_status", *MUTATING} & set(sel.enabled)
    assert "read-only" in sel.refusals["write_file"] and "disabled" in sel.refusals["guard"]
    assert resolve_tools(enable=None, disable=None, read_only=False, config={"enable": ["files"]}).enabled == (
        "read_file", "write_file", "list_directory", "file_info", "glob", "server_info",
    )  # fmt: skip
    with pytest.raises(ConfigError, match="unknown tool or category 'serach'"):
        resolve_tools(enable=["serach"], disable=None, read_only=False)
    assert {s.category for s in TOOLS.values()} == set(CATEGORIES)


def test_several_roots_each_get_their_own_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = make_workspace(tmp_path, name="one")
    two = make_workspace(tmp_path, {"lib/widget.py": "class WidgetFactory:\n    pass\n"}, name="two")
    # PLAIT_INDEX_DIR names one workspace's index: several roots keep theirs in plait's cache dir.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = {k: v for k, v in server_env(tmp_path / "indexes").items() if k != "PLAIT_INDEX_DIR"}
    state, server = build(serve_args([one, two]), env=env)
    assert len({ws.settings.index_dir for ws in state.workspaces.values()}) == 2
    with connect(server) as client:
        jobs = client.ok("reindex", {"wait": True})["jobs"]
        assert {j["root"] for j in jobs} == {str(one), str(two)}
        assert {j["state"] for j in jobs} == {"done"}
        found = client.ok("find_symbol", {"name": "WidgetFactory"})["symbols"]
        assert [(s["root"], s["path"]) for s in found] == [(str(two), "lib/widget.py")]
        assert client.ok("outline", {"path": str(two / "lib/widget.py")})["root"] == str(two)
        assert "outside the workspace" in client.error("read_file", {"path": str(tmp_path / "elsewhere.txt")})
    state.close()


def test_http_binding_off_loopback_needs_a_token() -> None:
    check_bind("127.0.0.1", None)
    with pytest.raises(ConfigError, match="--token"):
        check_bind("127.0.0.2", None)
    check_bind("127.0.0.2", "a-secret-of-16-characters")
    security = transport_security("127.0.0.2", 9000)
    assert security.enable_dns_rebinding_protection and "127.0.0.2:*" in security.allowed_hosts


# --- the real model ----------------------------------------------------------------------------------


@pytest.mark.model
def test_preloaded_real_model_answers_a_semantic_query(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    build_index(root, tmp_path / "index", model="all-MiniLM-L6-v2")
    env = server_env(tmp_path / "index", model="all-MiniLM-L6-v2")
    state, server = build(serve_args([root], no_preload=False), env=env)
    state.start(preload=True, endpoint=False, watch=False)
    state.wait_warm()
    assert state.preloaded and state.preload_error is None
    with connect(server) as client:
        out = client.ok("search", {"query": "wait longer between tries", "mode": "semantic"})
        assert out["results"] and out["results"][0]["sources"]["vector"] == 1
    state.close()


def test_output_is_capped_with_a_note_saying_how_to_narrow(tmp_path: Path) -> None:
    root = make_workspace(
        tmp_path, {"data/many.txt": "".join(f"needle {i:05d} {'x' * 60}\n" for i in range(4000))}
    )
    state, server = build(serve_args([root]), env=server_env(tmp_path / "index"))
    with connect(server) as client:
        result = client.call("grep", {"pattern": "needle", "head_limit": 5000})
        out = result.structured_content
        assert out is not None and out["truncated"] and out["total_matches"] == 4000
        shown = sum(len(f["lines"]) for f in out["files"])
        assert 0 < shown < 4000 and len(text(result)) < 100_000
        assert f"showing {shown} of 4000 matching lines" in out["note"] and "narrow with" in out["note"]
    state.close()

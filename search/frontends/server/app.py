"""Assemble the ``MCPServer``: the enabled tools with their annotations, the prompts, and refusals.

:class:`PlaitMCP` refuses a call that names a known tool this server does not offer (read-only mode,
disabled by configuration) with a message saying why, instead of the SDK's bare "Unknown tool".
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from search.frontends.server import (
    tools_edit,
    tools_files,
    tools_guard,
    tools_index,
    tools_refs,
    tools_search,
    tools_structure,
)
from search.frontends.server.boundary import REINDEX_DEADLINE, clip, tool_errors
from search.frontends.server.prompts import register_prompts
from search.frontends.server.registry import TOOLS
from search.frontends.server.state import ServerState
from search.frontends.server.tools_index import SERVER_NAME, plait_version

INSTRUCTIONS = (
    "plait: code search over this workspace. Start with `search` (hybrid: text + symbols + semantic; "
    "snippets are numbered and centred on the match); use `grep` for every occurrence of an exact string "
    "or regex, `find_symbol` for definitions by name (include_body for the source), `find_references` "
    "for the callers and usages of a name, `related` for code like a given path:line, and `outline` for "
    "a file's structure. Paths are relative to the workspace root. A missing or stale index is built in "
    "the background (index_status follows it) while search answers from text and symbols. The "
    "`search_guide` prompt explains more; `server_info` lists roots and tools."
)


class PlaitMCP(MCPServer[Any]):
    """An ``MCPServer`` that explains why a known but unavailable tool is refused."""

    def __init__(self, refusals: Mapping[str, str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.refusals = dict(refusals)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        why = self.refusals.get(name)
        if why is not None:
            raise ToolError(why)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(describe_invalid_arguments(name, exc.__cause__)) from exc.__cause__
            raise


def describe_invalid_arguments(tool: str, error: ValidationError) -> str:
    """One line per bad argument, without pydantic's links: what is wrong and what was passed."""
    problems = []
    for err in error.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        got = "" if err["type"] == "missing" else f" (got {clip(repr(err.get('input')), 80)})"
        problems.append(f"{where}: {err['msg']}{got}")
    return (
        f"invalid arguments for {tool}: "
        + "; ".join(problems)
        + ". Fix them and call again; the tool's input "
        "schema describes every parameter."
    )


def flowing(doc: str) -> str:
    """A docstring as flowing text: the source's line breaks inside a paragraph become spaces."""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs if p.strip())


def create_server(state: ServerState) -> PlaitMCP:
    """The server with every enabled tool of ``state.selection`` registered."""
    server = PlaitMCP(
        state.selection.refusals,
        name=SERVER_NAME,
        title="plait code search",
        version=plait_version(),
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    enabled = set(state.selection.enabled)

    def add(name: str, fn: Callable[..., CallToolResult]) -> None:
        if name not in enabled:
            return
        spec = TOOLS[name]
        server.add_tool(
            tool_errors(fn, REINDEX_DEADLINE if name == "reindex" else state.tool_deadline),
            name=name,
            title=spec.annotations.title,
            description=flowing(fn.__doc__ or ""),
            annotations=spec.annotations,
            structured_output=True,
        )

    for module in (
        tools_search,
        tools_refs,
        tools_structure,
        tools_files,
        tools_edit,
        tools_guard,
        tools_index,
    ):
        module.register(add, state)
    register_prompts(server, state)
    return server

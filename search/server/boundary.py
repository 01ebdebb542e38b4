"""The boundary between the library and MCP: errors, results and output caps.

* :func:`tool_errors` wraps a tool so that a :class:`PlaitError` (and the few other expected failures:
  a ripgrep timeout, an ``OSError`` the library did not translate) reaches the agent as the SDK's
  ``ToolError`` with the library's actionable message. Any other exception is a bug: the SDK hides it
  from the client and logs the traceback.
* :func:`respond` builds a ``CallToolResult`` holding both the typed structured content and a compact
  text rendering (many clients show the model only the text).
* ``MAX_OUTPUT_CHARS`` caps what one call returns; tools cut their lists to it and say so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from models.errors import PlaitError

MAX_OUTPUT_CHARS = 60_000
ToolAdder = Callable[[str, Callable[..., CallToolResult]], None]
"""How a tools module registers a tool: ``add(name, fn)`` (skipped when the tool is not enabled)."""
P = ParamSpec("P")
R = TypeVar("R")


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Map expected failures to ``ToolError`` (keeps the signature, so the schema is unchanged)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except PlaitError as exc:
            raise ToolError(str(exc)) from exc
        except TimeoutError as exc:
            raise ToolError(f"{exc}; narrow the path, glob or pattern and try again.") from exc
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise ToolError(f"file system error{where}: {exc.strerror or exc}.") from exc

    return wrapper


def respond(model: BaseModel, text: str) -> CallToolResult:
    """A successful result: ``model`` as structured content plus ``text`` for the reader."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )


def as_list(value: str | Sequence[str] | None) -> list[str]:
    """Accept one string or a list of strings for list parameters (agents pass either)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if v]


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def truncation_note(shown: int, total: int | str, what: str, how: str) -> str:
    return f"truncated: showing {shown} of {total} {what}; narrow with {how}."

"""The boundary between the library and MCP: errors, results and output caps.

* :func:`tool_errors` wraps a tool so that a :class:`PlaitError` (and the few other expected failures:
  a ripgrep timeout, an ``OSError`` the library did not translate) reaches the agent as the SDK's
  ``ToolError`` with the library's actionable message. Any other exception is a bug: the SDK hides it
  from the client and logs the traceback.
* Every call has a deadline (:data:`DEFAULT_DEADLINE`, ``[server] tool_timeout`` in plait.toml; the
  ``reindex`` tool :data:`REINDEX_DEADLINE`): the tool runs in a thread of its own and a call that has
  not answered by then returns an error naming the deadline, so no input can hang a client, and one
  slow call holds no worker that another call needs (the SDK's worker returns at the deadline). The
  tools themselves never block on a special file (they are refused before any read), so the deadline
  is the backstop, not the mechanism.
* :func:`respond` builds a ``CallToolResult`` holding both the typed structured content and a compact
  text rendering (many clients show the model only the text).
* ``MAX_OUTPUT_CHARS`` caps what one call returns; tools cut their lists to it and say so.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import threading
import typing
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from models.errors import PlaitError

log = logging.getLogger(__name__)

MAX_OUTPUT_CHARS = 60_000
DEFAULT_DEADLINE = 120.0  # seconds; a first search may load the model
REINDEX_DEADLINE = 3600.0  # a whole rebuild goes on in the background after this
ToolAdder = Callable[[str, Callable[..., CallToolResult]], None]
"""How a tools module registers a tool: ``add(name, fn)`` (skipped when the tool is not enabled)."""
P = ParamSpec("P")
R = TypeVar("R")


def bound(fn: Callable[..., R], state: Any) -> Callable[..., R]:
    """A module-level tool function ``fn(state, ...)`` as the MCP tool ``fn(...)``.

    Tools are plain functions of the server state and their arguments, so tests call them directly;
    this binds the state for registration and keeps the name, the docstring (the tool's description)
    and the signature without ``state`` (the SDK builds the input and output schemas from it, with
    the annotations already evaluated in ``fn``'s module).
    """

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> R:
        return fn(state, *args, **kwargs)

    signature = inspect.signature(fn, eval_str=True)
    first, *rest = signature.parameters
    tool.__signature__ = signature.replace(parameters=[signature.parameters[n] for n in rest])  # type: ignore[attr-defined]
    hints = typing.get_type_hints(fn, include_extras=True)  # the SDK finds the Context parameter here
    tool.__annotations__ = {name: hint for name, hint in hints.items() if name != first}
    del tool.__wrapped__
    return tool


def tool_errors(fn: Callable[P, R], deadline: float = DEFAULT_DEADLINE) -> Callable[P, R]:
    """Map expected failures to ``ToolError`` and enforce ``deadline`` seconds per call (keeps the
    signature, so the schema is unchanged)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return _within(deadline, fn, *args, **kwargs)
        except PlaitError as exc:
            raise ToolError(str(exc)) from exc
        except TimeoutError as exc:
            raise ToolError(f"{exc}; narrow the path, glob or pattern and try again.") from exc
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise ToolError(f"file system error{where}: {exc.strerror or exc}.") from exc

    return wrapper


class _Call:
    """One tool call running in its own thread: its outcome, and an event set when it is known."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None


try:  # anyio's per-thread record of the event loop a worker thread belongs to (not public API)
    from anyio._core._eventloop import threadlocals as _anyio_threadlocals
except ImportError:  # another anyio layout: tools still run, progress notifications are not sent
    _anyio_threadlocals = threading.local()


def _within(deadline: float, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """``fn(*args, **kwargs)`` in a daemon thread (with the caller's context variables); raises
    :class:`TimeoutError` when it has not returned within ``deadline`` seconds (it is left to finish)."""
    call = _Call()
    context = contextvars.copy_context()
    # anyio knows its event loop in the worker thread that called us through a thread-local; the
    # tool's own thread needs it too (progress notifications go back through anyio.from_thread).
    token = getattr(_anyio_threadlocals, "current_token", None)

    def target() -> None:
        if token is not None:
            _anyio_threadlocals.current_token = token
        try:
            call.result = context.run(fn, *args, **kwargs)
        except BaseException as exc:  # handed to the caller's thread, which raises it
            call.error = exc
        finally:
            call.done.set()

    name = getattr(fn, "__name__", "tool")
    threading.Thread(target=target, name=f"plait-tool-{name}", daemon=True).start()
    if not call.done.wait(deadline):
        log.warning("%s did not answer within %.0f s; its answer will be dropped", name, deadline)
        raise TimeoutError(f"{name} did not answer within its {deadline:g}s deadline")
    if call.error is not None:
        raise call.error
    return call.result


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

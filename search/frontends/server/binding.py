"""Tools as module-level functions of ``(state, ...)``, bound to the server's state when registered.

A tool written as ``def grep(state: ServerState, pattern: str, ...)`` can be called directly by a test
with any state; :func:`bind` makes the one-argument-shorter callable the SDK registers, whose
signature (and so the tool's schema) is the tool's without ``state``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any


def bind(tool: Callable[..., Any], state: object) -> Callable[..., Any]:
    """``tool`` with ``state`` as its first argument; name, docstring and schema are the tool's."""
    sig = inspect.signature(tool, eval_str=True)  # annotations evaluated: the SDK reads them as types
    params = list(sig.parameters.values())
    if not params or params[0].name != "state":
        raise TypeError(f"{tool.__name__} must take state as its first parameter")

    @functools.wraps(tool)
    def call(*args: Any, **kwargs: Any) -> Any:
        return tool(state, *args, **kwargs)

    call.__signature__ = sig.replace(parameters=params[1:])  # type: ignore[attr-defined]
    call.__annotations__ = {k: v for k, v in tool.__annotations__.items() if k != "state"}
    return call

"""``plait serve``: resolve the configuration, build the state and the server, run a transport.

Configuration is resolved once, here: the roots (``--root``, repeatable; default the workspace
around the current directory; more from ``[server] workspaces`` of the first root's ``plait.toml``), each root's ``Settings`` (flags > env > ``plait.toml``), and the tool
selection (``--enable``/``--disable``/``--read-only`` and ``[server]`` of the roots' ``plait.toml``).
Then the model and tables are preloaded in the background (unless ``--no-preload``), the local
endpoint for ``plait search`` starts, and the transport runs until the client goes away: stdio by
default, or streamable HTTP at ``http://HOST:PORT/mcp`` (loopback unless a token is given).
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any

import anyio

from indexer import Settings
from models import embed_in_background
from search.frontends.server.app import PlaitMCP, create_server
from search.frontends.server.http import MCP_PATH, build_app, check_bind
from search.frontends.server.registry import SEARCH_PROFILE, resolve_tools
from search.frontends.server.state import ServerState
from search.frontends.settings import root_settings

log = logging.getLogger(__name__)
BUSY_THREADS = frozenset({"plait-preload", "plait-index", "plait-auto-index", "plait-reindex"})


def server_table(settings: Sequence[Settings]) -> dict[str, Any]:
    """``[server]`` of the first root, with ``disable`` and ``read_only`` of every root folded in."""
    table = dict(settings[0].server)
    disable: list[str] = []
    read_only = False
    for s in settings:
        value = s.server.get("disable", [])
        disable += [value] if isinstance(value, str) else list(value) if isinstance(value, list) else [value]
        read_only = read_only or s.server.get("read_only") is True
    if disable:
        table["disable"] = disable
    if read_only:
        table["read_only"] = True
    return table


def build(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> tuple[ServerState, PlaitMCP]:
    """State and server from parsed ``plait serve`` arguments (nothing started yet)."""
    settings = root_settings(args, env)
    enable, disable = args.enable, args.disable
    if getattr(args, "profile", "full") == "search" and not enable:
        enable, disable = list(SEARCH_PROFILE), [*(disable or []), "tool:server_info"]
    selection = resolve_tools(
        enable=enable,
        disable=disable,
        read_only=bool(args.read_only),
        config=server_table(settings),
    )
    state = ServerState(settings, selection, transport=args.transport)
    return state, create_server(state)


def serve(args: argparse.Namespace) -> int:
    """Run the server until the client disconnects (stdio) or the process is stopped (HTTP)."""
    token = args.token or os.environ.get("PLAIT_TOKEN") or None
    if args.transport == "http":
        check_bind(args.host, token)
    state, server = build(args)
    embed_in_background()  # this process's builds run behind its searches (models.priority)
    state.start(
        preload=not args.no_preload,
        endpoint=True,
        watch=bool(args.watch),
        auto_index=not getattr(args, "no_auto_index", False),
    )
    signal.signal(signal.SIGTERM, functools.partial(_terminate, state))
    try:
        if args.transport == "http":
            anyio.run(_run_http, server, args.host, args.port, token)
        else:
            roots = ", ".join(str(r) for r in state.workspaces)
            # The ready line goes to stderr: stdout carries the protocol.
            sys.stderr.write(f"plait: MCP over stdio for {roots} ({len(state.selection.enabled)} tools)\n")
            sys.stderr.flush()
            anyio.run(server.run_stdio_async)
    except KeyboardInterrupt:
        pass
    finally:
        state.close()
    _exit_now_if_busy()
    return 0


def _terminate(state: ServerState, signum: int, frame: FrameType | None) -> None:
    """SIGTERM in any phase: drop the endpoint files and leave at once.

    The stdio transport reads stdin in a worker thread that no cancellation reaches, and the model may
    be loading in native code; an orderly shutdown could wait on either. A killed index build is safe
    (the previous commit stays, the next build completes it), so leaving at once loses nothing.
    """
    try:
        state.close_endpoint()
    finally:
        _flush_and_exit(0)


def _exit_now_if_busy() -> None:
    """Leave without interpreter finalization while background threads run native code.

    A client that closes stdin while the model loads (or an index builds) would otherwise see the
    process abort ("terminate called without an active exception", SIGABRT) as Python tears down
    under a thread that is inside torch or onnxruntime.
    """
    busy = [t.name for t in threading.enumerate() if t.name in BUSY_THREADS and t.is_alive()]
    if busy:
        log.info("leaving while %s still run", ", ".join(busy))
        _flush_and_exit(0)


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


async def _run_http(server: PlaitMCP, host: str, port: int, token: str | None) -> None:
    import uvicorn

    app = build_app(server, host, port, token)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(web.serve)
        while not web.started and not web.should_exit:
            await anyio.sleep(0.05)
        if web.started:
            bound = web.servers[0].sockets[0].getsockname()[1] if web.servers else port
            shown = f"[{host}]" if ":" in host else host
            # The one line a supervisor (or a test) reads to find the server; stdout stays clean.
            sys.stderr.write(f"plait: MCP over streamable HTTP at http://{shown}:{bound}{MCP_PATH}\n")
            sys.stderr.flush()

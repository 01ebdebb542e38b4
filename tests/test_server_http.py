"""``plait serve --transport http`` as a real subprocess, driven by the ``mcp`` client over streamable HTTP.

Also the HTTP safety contract: loopback by default; another address (here 127.0.0.2, a test-only
loopback alias — never an outside address) needs a bearer token, and a request without it gets 401
and reaches no tool; Host/Origin checks refuse DNS-rebinding requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client.streamable_http import streamable_http_client
from server_harness import (
    HttpServer,
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
)

pytestmark = pytest.mark.slow
TOKEN = "test-token-7f3a9c"
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}  # fmt: skip
ACCEPT = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("http")
    root = make_workspace(base)
    build_index(root, base / "index")
    return root, base / "index"


@pytest.fixture(scope="module")
def loopback(workspace: tuple[Path, Path]) -> Iterator[HttpServer]:
    root, index = workspace
    server = HttpServer(["--root", str(root)], server_env(index))
    assert server.url is not None, "".join(server.lines)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def mcp(loopback: HttpServer) -> Iterator[SyncClient]:
    assert loopback.url is not None
    with connect(loopback.url) as client:
        yield client


def test_binds_to_loopback_by_default(loopback: HttpServer) -> None:
    assert loopback.url is not None and loopback.url.startswith("http://127.0.0.1:")


def test_lists_every_tool_with_its_schema(mcp: SyncClient) -> None:
    check_tool_listing(mcp)


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


def test_dns_rebinding_protection_refuses_foreign_host_and_origin(loopback: HttpServer) -> None:
    assert loopback.url is not None
    host = httpx2.post(loopback.url, json=INITIALIZE, headers={**ACCEPT, "Host": "evil.example:80"})
    assert host.status_code == 421
    origin = httpx2.post(loopback.url, json=INITIALIZE, headers={**ACCEPT, "Origin": "http://evil.example"})
    assert origin.status_code == 403


def test_another_address_without_a_token_is_refused_at_start(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    server = HttpServer(["--root", str(root), "--host", "127.0.0.2", "--no-preload"], server_env(index))
    try:
        assert server.wait_exit() == 2
        assert "--token" in "".join(server.lines) and server.url is None
    finally:
        server.stop()


@asynccontextmanager
async def bearer_transport(url: str, token: str) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def test_another_address_requires_the_bearer_token_on_every_request(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    env = {**server_env(index), "PLAIT_TOKEN": TOKEN}
    server = HttpServer(["--root", str(root), "--host", "127.0.0.2", "--no-preload"], env)
    try:
        assert server.url is not None and server.url.startswith("http://127.0.0.2:"), "".join(server.lines)
        write = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "write_file", "arguments": {"path": "pwned.txt", "content": "x"}}}  # fmt: skip
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            for body in (INITIALIZE, write):
                response = httpx2.post(server.url, json=body, headers={**ACCEPT, **headers})
                assert response.status_code == 401
                assert response.headers["www-authenticate"].startswith("Bearer")
        assert not (root / "pwned.txt").exists()
        with connect(bearer_transport(server.url, TOKEN)) as client:
            assert client.ok("server_info")["transport"] == "http"
            assert client.ok("grep", {"pattern": "Serve", "output_mode": "count"})["total_files"] == 1
    finally:
        server.stop()

"""Streamable HTTP transport safety: loopback by default, a bearer token off it, DNS-rebinding checks.

* :func:`check_bind` — binding anywhere but ``127.0.0.1`` / ``localhost`` / ``::1`` requires a token
  (``--token`` or ``PLAIT_TOKEN``); a token given on loopback is enforced there too.
* :class:`BearerTokenMiddleware` — an ASGI wrapper around the whole app: every HTTP request must carry
  ``Authorization: Bearer <token>`` (scheme case-insensitive, token compared in constant time) or gets
  401 before any MCP code runs. Tokens shorter than 16 characters are refused at start.
* :func:`transport_security` — the SDK's Host/Origin validation, on for every bind address, allowing
  the loopback names and the bound host.
"""

from __future__ import annotations

import hmac
import json
import socket
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from models import ConfigError

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
MCP_PATH = "/mcp"


MIN_TOKEN_CHARS = 16


def check_token(token: str | None) -> None:
    """Raise ``ConfigError`` for a token that a client could guess: under :data:`MIN_TOKEN_CHARS`
    characters, or blank."""
    if token is not None and len(token.strip()) < MIN_TOKEN_CHARS:
        raise ConfigError(
            f"the HTTP token has {len(token.strip())} characters; use at least {MIN_TOKEN_CHARS} "
            '(for example `python -c "import secrets; print(secrets.token_urlsafe(32))"`).'
        )


def check_bind(host: str, token: str | None) -> None:
    """Raise ``ConfigError`` when ``host`` is not loopback and no token is configured, or the token is
    too short (:func:`check_token`)."""
    check_token(token)
    if host not in LOOPBACK_HOSTS and not token:
        raise ConfigError(
            f"binding to {host} exposes the server beyond this machine; pass --token (or set PLAIT_TOKEN) "
            "so that every request must carry it, or bind to 127.0.0.1."
        )


def transport_security(host: str, port: int) -> TransportSecuritySettings:
    """DNS-rebinding protection: only the loopback names and the bound host are accepted.

    A wildcard bind (``0.0.0.0``, ``::``) accepts this machine's host name, FQDN and their addresses.
    """
    names = ["127.0.0.1", "localhost", "[::1]"]
    extra = _machine_names() if host in ("0.0.0.0", "::") else [host]
    for name in extra:
        shown = f"[{name}]" if ":" in name else name
        if shown not in names:
            names.append(shown)
    hosts = [f"{n}:*" for n in names] + names
    origins = [f"{scheme}://{n}{port}" for n in names for scheme in ("http", "https") for port in (":*", "")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _machine_names() -> list[str]:
    names = {socket.gethostname(), socket.getfqdn()}
    for name in list(names):
        try:
            names.update(str(info[4][0]) for info in socket.getaddrinfo(name, None))
        except OSError:
            continue
    return sorted(n for n in names if n)


class BearerTokenMiddleware:
    """Reject every HTTP request without ``Authorization: Bearer <token>`` with 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        check_token(token)
        self.app = app
        self.expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            body = json.dumps(
                {
                    "error": "unauthorized",
                    "error_description": "missing or wrong bearer token; send 'Authorization: "
                    "Bearer <token>' with the token the server was started with (--token or PLAIT_TOKEN).",
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="plait"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        values = [v for k, v in headers if k.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, given = values[0].strip().partition(b" ")
        # The scheme is case-insensitive (RFC 9110 §11.1); the token is compared in constant time.
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.expected)


def build_app(server: Any, host: str, port: int, token: str | None) -> ASGIApp:
    """The ASGI app for ``server`` (an ``MCPServer``): streamable HTTP at ``/mcp`` behind the checks."""
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=transport_security(host, port), host=host
    )
    return BearerTokenMiddleware(app, token) if token else app

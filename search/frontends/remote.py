"""Use a running plait process for a CLI search, so the CLI neither loads the model nor opens the index.

A server started with ``plait serve`` (or ``plait watch``) writes ``endpoint.json`` into the index
directory with its local HTTP endpoint and a token (:mod:`search.frontends.endpoint`). ``plait search``
finds that file, posts the search with everything that decides the answer (the root, the flags that
override settings, the ``PLAIT_*`` environment, the output format) and prints what comes back: the
server resolves the settings, searches, focuses the snippets and renders the output with the same
functions as a search done here (:func:`search.frontends.render.present_search`), so the two print the
same bytes and exit with the same code. When nothing answers, or the server is not the one this
command would use (another index, other settings), the search runs here.

This is the warm path, and it is kept small: it imports neither ``indexer`` nor ``search.types`` nor
``http.client`` (one HTTP/1.0 request over a plain socket), and it finds the index through
:func:`search.frontends.settings.index_location`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

ENDPOINT_FILE = "endpoint.json"
PROTOCOL = 2  # the request and answer shapes below; a server or client of another version is not used
MAX_ANSWER_BYTES = 256 << 20


def endpoint_file(index_dir: str) -> Path | None:
    """Where a running plait process advertises its endpoint for the index at ``index_dir`` (``None``
    for an index in object storage, which has no such file)."""
    return Path(index_dir) / ENDPOINT_FILE if "://" not in index_dir else None


def search_request(
    args: argparse.Namespace, root: Path, output: str, env: Mapping[str, str]
) -> dict[str, Any]:
    """The request for ``plait search ARGS`` in ``output`` format (json, jsonl, plain or color)."""
    from search.frontends.settings import flag_overrides

    return {
        "v": PROTOCOL, "root": str(root), "query": args.query, "mode": args.mode, "limit": args.limit,
        "regex": args.regex, "explain": args.explain, "scope": args.scope, "glob": list(args.glob or ()),
        "language": args.lang, "fusion": args.fusion, "max_tokens": args.max_tokens, "output": output,
        "overrides": flag_overrides(args), "env": settings_env(env),
    }  # fmt: skip


def settings_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment that settings are resolved from (``PLAIT_*``), without secrets (``PLAIT_TOKEN``,
    the HTTP transport's bearer token: the endpoint has its own, and settings do not read it)."""
    secret = ("TOKEN", "SECRET", "PASSWORD", "KEY")
    return {k: v for k, v in env.items() if k.startswith("PLAIT_") and not any(w in k for w in secret)}


def ask_server(
    args: argparse.Namespace,
    root_arg: str | None,
    output: str,
    *,
    locate: Callable[[], tuple[Path, str]],
    env: Mapping[str, str] = os.environ,
) -> tuple[dict[str, Any] | None, str]:
    """The running server's answer to ``plait search ARGS`` (``None`` when none answered), and a line
    for ``--verbose`` saying which way it went ("" when no server is advertised).

    ``locate`` gives the root and index location by the full settings resolution, for when
    :func:`~search.frontends.settings.index_location` cannot tell them cheaply; it may raise the
    command's own settings errors."""
    from search.frontends.settings import index_location

    found = index_location(root_arg, args, env)
    root, index_dir = found if found is not None else locate()
    path = endpoint_file(index_dir)
    if path is None or not path.is_file():
        return None, ""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        body = json.dumps(search_request(args, root, output, env)).encode()
        answer = post(str(info["url"]), body, str(info["token"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"no running plait process answered ({exc}); searching here"
    if answer.get("v") != PROTOCOL:
        return None, "the running plait process speaks another protocol version; searching here"
    if "fallback" in answer:
        return None, f"the running plait process (pid {info.get('pid')}) {answer['fallback']}; searching here"
    return answer, f"searched through the running plait process (pid {info.get('pid')})"


def post(url: str, body: bytes, token: str, *, timeout: float = 60.0) -> dict[str, Any]:
    """POST ``body`` to the local endpoint ``url`` and return its JSON answer.

    One HTTP/1.0 exchange over a plain socket (the server closes the connection after answering):
    ``http.client`` would import ``email`` and ``ssl``, a quarter of what the whole warm search costs,
    and even the ``socket`` module takes ~4 ms to build its enums, so the C socket type is used
    directly (``socket.socket`` is its subclass; the address is a literal, nothing to resolve)."""
    try:
        import _socket as socket
    except ImportError:  # pragma: no cover - an interpreter without CPython's module
        import socket  # type: ignore[no-redef]

    scheme, _, rest = url.partition("://")
    hostport, _, path = rest.partition("/")
    host, _, port = hostport.rpartition(":")
    if scheme != "http" or host != "127.0.0.1" or not port.isdigit():
        raise ValueError(f"not a local plait endpoint: {url!r}")
    head = (
        f"POST /{path} HTTP/1.0\r\nHost: {hostport}\r\nContent-Type: application/json\r\n"
        f"X-Plait-Token: {token}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    chunks = []
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect((host, int(port)))
        sock.sendall(head.encode("latin-1") + body)
        sock.shutdown(socket.SHUT_WR)
        size = 0
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise ValueError("the endpoint's answer is too large")
    finally:
        sock.close()
    raw = b"".join(chunks)
    header, sep, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode("latin-1").split("\r\n")
    status = lines[0].split()
    if not sep or len(status) < 2 or not status[0].startswith("HTTP/"):
        raise ValueError("the endpoint's answer is not HTTP")
    if status[1] != "200":
        raise ValueError(f"the endpoint answered HTTP {status[1]}")
    fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    length = fields.get("content-length")
    if length is not None and (not length.isdigit() or int(length) != len(payload)):
        raise ValueError("the endpoint's answer was cut short")
    data = json.loads(payload)
    if not isinstance(data, dict):
        raise ValueError("the endpoint's answer is not a JSON object")
    return data

"""The local endpoint through which ``plait search`` uses a running ``plait serve`` or ``plait watch``.

The process serves its engines (root path → Engine) on 127.0.0.1 and advertises the endpoint, with a
random token, in ``endpoint.json`` (mode 0600) in each root's index directory; the client side is
:mod:`search.frontends.remote`. For each request it does what ``plait search`` would do in a process
of its own, with the same functions: it resolves the settings with ``indexer.load_settings`` from the
request's root, flags and ``PLAIT_*`` environment (a bad ``plait.toml`` is the same error), declines
(``fallback``) when they are not its engine's (another index, or settings changed since it started: the
command then searches itself), searches, and presents the results
(:func:`search.frontends.render.present_search`): stdout, stderr lines and exit code, or for coloured
output the results and snippets the client renders. The client thus repeats none of the work.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from search.frontends.remote import PROTOCOL, endpoint_file

log = logging.getLogger(__name__)


class BadRequest(ValueError):
    """A request this endpoint does not understand (another protocol version, a missing field)."""


def answer_search(engines: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """The answer to one search request (see the module docstring)."""
    from indexer import load_settings
    from models import PlaitError
    from search.engine.engine import parse_scope
    from search.frontends.render import present_search, to_wire
    from search.types import Query

    if req.get("v") != PROTOCOL:
        raise BadRequest(f"protocol {req.get('v')!r}, not {PROTOCOL}")
    try:
        root = str(req["root"])
        engine = engines.get(root)
        if engine is None:
            return {"v": PROTOCOL, "fallback": f"does not serve {root}"}
        env, overrides = req["env"], req["overrides"]
        if not isinstance(env, dict) or not isinstance(overrides, dict):
            raise BadRequest("env and overrides must be objects")
        try:
            settings = load_settings(Path(root), env=env, overrides=overrides)
            if settings.index_dir != engine.settings.index_dir:
                return {"v": PROTOCOL, "fallback": f"serves another index of {root}"}
            # The model is the server's own (the reason to use it); everything else must agree.
            if replace(settings, model=engine.settings.model) != engine.settings:
                return {"v": PROTOCOL, "fallback": "started with other settings (flags, or plait.toml since)"}
            query = Query(
                req["query"], mode=req["mode"], limit=int(req["limit"]), regex=bool(req["regex"]),
                explain=bool(req["explain"]),
            )  # fmt: skip
            scope = parse_scope(req["scope"], req["glob"] or (), req["language"])
            response = engine.search(query, scope, fusion=req["fusion"])
            out = present_search(
                response, str(settings.root), query, max_tokens=int(req["max_tokens"]), output=req["output"]
            )
        except PlaitError as exc:
            return {"v": PROTOCOL, "error": str(exc)}
        return {"v": PROTOCOL, **to_wire(out)}
    except (KeyError, TypeError, ValueError) as exc:
        raise BadRequest(f"bad request: {exc}") from exc


def start_endpoint(engines: dict[str, Any]) -> Any:
    """Serve CLI searches for ``engines`` (root path → Engine) on 127.0.0.1 and advertise the endpoint.

    Returns the ``ThreadingHTTPServer`` (call ``shutdown()`` and ``remove_endpoints`` to stop).
    Requests must carry the random token written (mode 0600) to the endpoint file.
    """
    import secrets
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    token = secrets.token_urlsafe(24)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            log.debug(format, *args)

        def do_POST(self) -> None:
            if self.headers.get("X-Plait-Token") != token:
                self.send_error(401)
                return
            try:
                req = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                if not isinstance(req, dict):
                    raise BadRequest("the request is not a JSON object")
                out = answer_search(engines, req)
            except (BadRequest, ValueError) as exc:
                self.send_error(400, str(exc)[:200])
                return
            body = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/search"
    for root, engine in engines.items():
        path = endpoint_file(engine.settings.index_dir)
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump({"url": url, "token": token, "pid": os.getpid(), "root": root, "v": PROTOCOL}, fh)
        os.replace(tmp, path)
    threading.Thread(target=server.serve_forever, name="plait-endpoint", daemon=True).start()
    return server


def remove_endpoints(engines: dict[str, Any]) -> None:
    for engine in engines.values():
        path = endpoint_file(engine.settings.index_dir)
        if path is None:
            continue
        try:
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass

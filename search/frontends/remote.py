"""Use a running plait process for a CLI search, so the CLI does not load the model itself.

A server started with ``plait serve`` (or ``plait watch``) writes ``endpoint.json`` into the index
directory with its local HTTP endpoint; the CLI posts the search there and falls back to loading
the model itself when nothing answers.
"""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from search.types import Coverage, Query, Result, SearchResponse

if TYPE_CHECKING:
    from indexer import Settings

log = logging.getLogger(__name__)
ENDPOINT_FILE = "endpoint.json"


def endpoint_path(settings: Settings) -> Path | None:
    return Path(settings.index_dir) / ENDPOINT_FILE if settings.index_is_local else None


def try_remote_search(
    settings: Settings, query: Query, scope: str, globs: Sequence[str], lang: str | None, fusion: str
) -> SearchResponse | None:
    path = endpoint_path(settings)
    if path is None or not path.is_file():
        return None
    try:
        info = json.loads(path.read_text())
        body = json.dumps({
            "query": query.text, "mode": query.mode, "limit": query.limit, "regex": query.regex,
            "explain": query.explain,
            "scope": scope, "glob": list(globs), "language": lang, "fusion": fusion,
            "root": str(settings.root),
        }).encode()  # fmt: skip
        data = _post(str(info["url"]), body, str(info["token"]))
    except (OSError, ValueError, KeyError, http.client.HTTPException) as exc:
        log.info("no running plait process answered (%s); loading the model here", exc)
        return None
    log.info("searched through the running plait process (pid %s)", info.get("pid"))
    if "error" in data:
        from search.errors import QueryError

        raise QueryError(str(data["error"]))
    cov = data.get("coverage")
    return SearchResponse(
        [Result(**r) for r in data["results"]],
        data.get("degraded", {}),
        data.get("timings_ms", {}),
        Coverage(**cov) if cov else None,
        data.get("notes", []),
    )


def _post(url: str, body: bytes, token: str, *, timeout: float = 60.0) -> dict[str, Any]:
    """POST ``body`` to the local endpoint ``url`` and return its JSON answer (``http.client``: lighter to
    import than ``urllib.request``, which matters to a CLI call that should take a tenth of a second)."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.hostname != "127.0.0.1" or parts.port is None:
        raise ValueError(f"not a local plait endpoint: {url!r}")
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(
            "POST", parts.path or "/", body, {"Content-Type": "application/json", "X-Plait-Token": token}
        )
        resp = conn.getresponse()
        payload = resp.read()
        if resp.status != 200:
            raise ValueError(f"the endpoint answered HTTP {resp.status}")
        data: dict[str, Any] = json.loads(payload)
        return data
    finally:
        conn.close()


def start_endpoint(engines: dict[str, Any]) -> Any:
    """Serve CLI searches for ``engines`` (root path → Engine) on 127.0.0.1 and advertise the endpoint.

    Returns the ``ThreadingHTTPServer`` (call ``shutdown()`` and ``remove_endpoints`` to stop).
    Requests must carry the random token written (mode 0600) to the endpoint file.
    """
    import os
    import secrets
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from models import PlaitError
    from search.engine.engine import parse_scope

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
                engine = engines[req["root"]]
                resp = engine.search(
                    Query(
                        req["query"],
                        mode=req["mode"],
                        limit=int(req["limit"]),
                        regex=bool(req["regex"]),
                        explain=bool(req.get("explain", False)),
                    ),
                    parse_scope(req["scope"], req.get("glob") or (), req.get("language")),
                    fusion=req.get("fusion", "weighted"),
                )
                out: dict[str, Any] = {
                    "results": [_result_dict(r) for r in resp.results],
                    "degraded": resp.degraded,
                    "timings_ms": resp.timings_ms,
                    "coverage": None
                    if resp.coverage is None
                    else {"embedded": resp.coverage.embedded, "chunks": resp.coverage.chunks},
                    "notes": resp.notes,
                }
            except PlaitError as exc:
                out = {"error": str(exc)}
            except (KeyError, ValueError, TypeError) as exc:
                out = {"error": f"bad request: {exc}"}
            body = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/search"
    for root, engine in engines.items():
        path = endpoint_path(engine.settings)
        if path is None:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            json.dump({"url": url, "token": token, "pid": os.getpid(), "root": root}, fh)
        os.replace(tmp, path)
    threading.Thread(target=server.serve_forever, name="plait-endpoint", daemon=True).start()
    return server


def remove_endpoints(engines: dict[str, Any]) -> None:
    import os

    for engine in engines.values():
        path = endpoint_path(engine.settings)
        if path is None:
            continue
        try:
            if json.loads(path.read_text()).get("pid") == os.getpid():
                path.unlink()
        except (OSError, ValueError):
            pass


def _result_dict(r: Result) -> dict[str, Any]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line, "score": r.score,
        "symbol": r.symbol, "kind": r.kind, "language": r.language, "snippet": r.snippet,
        "sources": r.sources, "stale": r.stale, "explain": r.explain,
    }  # fmt: skip

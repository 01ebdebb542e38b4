"""The watcher's state file (``watcher.json`` in a local index directory): who watches, last batch, lag.

Written atomically by the daemon; read by ``plait status`` and the ``index_status`` tool.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import psutil

from indexer.config import Settings

STATE_FILE = "watcher.json"


def state_path(settings: Settings) -> Path | None:
    return Path(settings.index_dir) / STATE_FILE if settings.index_is_local else None


def write_watcher_state(settings: Settings, state: dict[str, Any]) -> None:
    path = state_path(settings)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)


def read_watcher_state(settings: Settings) -> dict[str, Any] | None:
    """The last state the watcher wrote, with ``running`` true only if its process is alive."""
    path = state_path(settings)
    if path is None or not path.is_file():
        return None
    try:
        state: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    pid = state.get("pid")
    alive = isinstance(pid, int) and pid > 0 and psutil.pid_exists(pid)
    state["running"] = alive and state.get("running", True)
    return state


def describe_watcher(state: dict[str, Any] | None, *, now: float | None = None) -> str:
    """One line for ``plait status``: running or not, phase, last batch, lag and queue."""
    if not state or not state.get("running"):
        return "not running"
    now = time.time() if now is None else now
    parts = [f"running (pid {state.get('pid')}), {state.get('phase', 'watching')}"]
    batch = state.get("last_batch")
    if isinstance(batch, dict):
        ago = max(0.0, now - float(batch.get("finished") or now))
        what = "startup/full check" if batch.get("kind") == "check" else f"{batch.get('files', 0)} file(s)"
        parts.append(
            f"last batch {what} in {batch.get('seconds', 0):.2f}s, {batch.get('embedded', 0)} embedded, "
            f"{batch.get('from_cache', 0)} from cache, {ago:.0f}s ago"
        )
    if state.get("lag") is not None:
        parts.append(f"lag {float(state['lag']):.2f}s")
    if state.get("queue"):
        parts.append(f"{state['queue']} path(s) queued")
    if state.get("last_error"):
        parts.append(f"last error: {state['last_error']}")
    return "; ".join(parts)

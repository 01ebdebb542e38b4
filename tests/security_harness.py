"""Shared pieces of the security battery (tests/test_security_*.py): a workspace beside an outside
folder full of secrets, a snapshot of that folder, a leak scanner and the bounded directory swapper.

Every secret outside the root carries :data:`SECRET`; a tool answer holding it (or the name of a file
that exists only outside) is a read outside the root, and a change to the outside folder's snapshot is
a write outside it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from mcp_types import CallToolResult
from server_harness import make_workspace, text

T = TypeVar("T")
SECRET = "TOPSECRET"
OUTSIDE_ONLY = "only_outside_name"
OUTSIDE_FILES: dict[str, str] = {
    "data.txt": f"{SECRET} outside data line\n",
    "data.py": f"def {SECRET}_fn():\n    return '{SECRET}'\n",
    "secret.txt": f"{SECRET} password=hunter2\n",
    f"{OUTSIDE_ONLY}.txt": f"{SECRET} only outside\n",
}
WORKSPACE: dict[str, str] = {
    "src/app.py": "def serve(port: int) -> int:\n    return port\n",
    "src/race/data.txt": "inside data line\n",
    "src/race/data.py": "def inside_fn():\n    return 1\n",
    "notes/debug.log": "IGNORED_MARK in an ignored log\n",
    ".gitignore": "*.log\n",
    "plait.toml": "[server]\ntool_timeout = 60\n",
}


def make_secure_workspace(base: Path, files: Mapping[str, str] = WORKSPACE) -> tuple[Path, Path]:
    """``base/ws`` (a git work tree with one commit) and ``base/outside`` (the secrets); the workspace
    holds ``src/race_link``, a symlink to the outside folder, which the swapper exchanges with
    ``src/race``."""
    outside = base / "outside"
    outside.mkdir()
    for name, content in OUTSIDE_FILES.items():
        (outside / name).write_text(content, encoding="utf-8")
    root = make_workspace(base, files)
    (root / "src" / "race_link").symlink_to(outside.resolve(), target_is_directory=True)
    git = [
        "git",
        "-c",
        "user.name=plait",
        "-c",
        "user.email=plait@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], cwd=root, check=True)
    return root, outside.resolve()


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below ``folder`` (not following links) with its bytes and mode."""
    out: dict[str, tuple[bytes, int]] = {}
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = Path(dirpath) / name
            st = path.lstat()
            out[str(path.relative_to(folder))] = (path.read_bytes() if path.is_file() else b"", st.st_mode)
    return out


def leaked(result: CallToolResult, args: Mapping[str, Any] | None = None) -> bool:
    """Whether a tool's answer (text or structured content) holds anything only the outside has; the
    query or pattern of ``args``, which answers echo, is taken out first."""
    blob = text(result) + json.dumps(result.structured_content or {})
    for key in ("query", "pattern", "name"):
        echo = (args or {}).get(key)
        if isinstance(echo, str) and echo:
            blob = blob.replace(echo, "").replace(json.dumps(echo)[1:-1], "")
    return SECRET in blob or OUTSIDE_ONLY in blob


SWAPPER = r"""
import ctypes, os, sys, time
root, stop, max_swaps, max_seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
a = os.path.join(root, "src", "race").encode()
b = os.path.join(root, "src", "race_link").encode()
libc = ctypes.CDLL(None, use_errno=True)
renameat2 = getattr(libc, "renameat2", None)
RENAME_EXCHANGE = 2
deadline = time.monotonic() + max_seconds
swaps = 0
exchange = renameat2 is not None and renameat2(-100, a, -100, b, RENAME_EXCHANGE) == 0
if exchange:
    swaps = 1
print("ready", "exchange" if exchange else "rename-loop", flush=True)
target = os.readlink(b if not exchange else a)
while swaps < max_swaps and time.monotonic() < deadline and not os.path.exists(stop):
    if exchange:
        renameat2(-100, a, -100, b, RENAME_EXCHANGE)
    else:  # no RENAME_EXCHANGE here: move the directory away and put a link in its place, and back
        os.rename(a, a + b".real")
        os.symlink(target, a)
        os.unlink(a)
        os.rename(a + b".real", a)
    swaps += 1
if os.path.islink(a):
    renameat2(-100, a, -100, b, RENAME_EXCHANGE)
print("swaps", swaps, flush=True)
"""


class Swapper:
    """A subprocess exchanging ``src/race`` (a directory) and ``src/race_link`` (a link to the outside)
    as fast as it can, at most ``max_swaps`` times and ``max_seconds`` long, until :meth:`stop`."""

    def __init__(self, root: Path, stop_file: Path, *, max_swaps: int, max_seconds: float) -> None:
        self.stop_file = stop_file
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SWAPPER, str(root), str(stop_file), str(max_swaps), str(max_seconds)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        self.mode = self.proc.stdout.readline().split()[-1]  # blocks until the first swap is done

    def stop(self) -> int:
        self.stop_file.write_text("stop\n")
        out, _ = self.proc.communicate(timeout=120)
        return int(out.split()[-1])


def wait_for(what: str, probe: Callable[[], T], timeout: float = 120.0) -> T:
    """Poll ``probe`` until it returns something truthy (a short pause between probes); fail at the
    deadline naming ``what``."""
    deadline = time.monotonic() + timeout
    last = probe()
    while not last:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(0.05)
        last = probe()
    return last


def counts(**values: Any) -> str:
    return " ".join(f"{k}={v}" for k, v in values.items())

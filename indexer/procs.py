"""The one gateway for subprocesses (ripgrep, git).

Every call has a timeout, never uses a shell, caps the output it keeps, and reads
machine-readable output only. Nothing else in plait calls :mod:`subprocess`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from models import PlaitError

DEFAULT_MAX_OUTPUT = 32 * 1024 * 1024


class ToolMissingError(PlaitError):
    def __init__(self, tool: str, hint: str) -> None:
        super().__init__(f"`{tool}` was not found; {hint}")


@dataclass(frozen=True, slots=True)
class ProcResult:
    returncode: int
    stdout: bytes
    stderr: str
    timed_out: bool = False
    truncated: bool = False


def run(
    args: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    max_output: int = DEFAULT_MAX_OUTPUT,
    stdin: bytes | None = None,
) -> ProcResult:
    """Run ``args`` (no shell) with a deadline; kill it at the deadline or when output passes the cap.
    ``stdin``, when given, is written to the process's standard input (else it reads ``/dev/null``).

    Returns whatever was read until then, with ``timed_out``/``truncated`` set; never raises for a
    non-zero exit (callers decide what an exit code means).
    """
    proc = subprocess.Popen(
        list(args),
        cwd=cwd,
        stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    state = {"size": 0, "truncated": False}

    def read_out() -> None:
        assert proc.stdout is not None
        while True:
            block = os.read(proc.stdout.fileno(), 65536)
            if not block:
                return
            if state["size"] + len(block) > max_output:
                chunks.append(block[: max_output - state["size"]])
                state["truncated"] = True
                proc.kill()
                return
            chunks.append(block)
            state["size"] += len(block)

    def read_err() -> None:
        assert proc.stderr is not None
        err_chunks.append(proc.stderr.read(65536))
        proc.stderr.read()

    def write_in() -> None:
        assert proc.stdin is not None and stdin is not None
        with contextlib.suppress(OSError):  # the process may exit (or be killed) before reading it all
            proc.stdin.write(stdin)
        with contextlib.suppress(OSError):
            proc.stdin.close()

    readers = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
    if stdin is not None:
        threading.Thread(target=write_in, daemon=True).start()
    for t in readers:
        t.start()
    # Wait on the stdout reader (it ends at EOF) rather than Popen.wait(timeout), which polls with
    # sleeps of up to 50 ms and would add that much to every search.
    readers[0].join(timeout)
    timed_out = readers[0].is_alive()
    if timed_out:
        proc.kill()
    proc.wait()
    for t in readers:
        t.join(timeout=2)
    proc.stdout.close()
    proc.stderr.close()
    return ProcResult(
        returncode=proc.returncode,
        stdout=b"".join(chunks),
        stderr=b"".join(err_chunks).decode("utf-8", "replace").strip(),
        timed_out=timed_out,
        truncated=bool(state["truncated"]),
    )


def rg_binary() -> str:
    """The ``rg`` executable: the one installed beside this Python (the ``ripgrep`` wheel), else PATH."""
    local = Path(sys.executable).parent / "rg"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    found = shutil.which("rg")
    if found is None:
        raise ToolMissingError("rg", "install plait's dependencies (`pip install ripgrep==14.1.0`).")
    return found


@dataclass(frozen=True, slots=True)
class GitStatus:
    """Paths relative to the workspace root (forward slashes) that git reports as changed."""

    modified: frozenset[str] = frozenset()
    untracked: frozenset[str] = frozenset()
    deleted: frozenset[str] = frozenset()
    renamed: dict[str, str] = field(default_factory=dict)  # new -> old

    @property
    def changed(self) -> frozenset[str]:
        """Modified, added, renamed-to and untracked files that exist."""
        return self.modified | self.untracked | frozenset(self.renamed)


def parse_porcelain_z(output: bytes, prefix: str = "") -> GitStatus:
    """Parse ``git status --porcelain=v1 -z`` output; keep paths under ``prefix``, made relative to it."""
    modified: set[str] = set()
    untracked: set[str] = set()
    deleted: set[str] = set()
    renamed: dict[str, str] = {}
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    i = 0

    def rel(p: str) -> str | None:
        if prefix and not p.startswith(prefix):
            return None
        return p[len(prefix) :]

    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        xy, path = entry[:2], entry[3:]
        old = None
        if "R" in xy or "C" in xy:
            old = fields[i] if i < len(fields) else None
            i += 1
        p = rel(path)
        if p is None:
            continue
        if xy == "??":
            untracked.add(p)
        elif "D" in xy:
            deleted.add(p)
        elif old is not None and "R" in xy:
            o = rel(old)
            renamed[p] = o if o is not None else old
        else:
            modified.add(p)
    return GitStatus(frozenset(modified), frozenset(untracked), frozenset(deleted), renamed)


def git_status(root: Path, *, timeout: float = 10.0) -> GitStatus | None:
    """Changed files under ``root`` according to git, or ``None`` when ``root`` is not in a git work tree."""
    git = shutil.which("git")
    if git is None:
        return None
    top = run([git, "rev-parse", "--show-prefix"], cwd=root, timeout=timeout)
    if top.returncode != 0:
        return None
    prefix = top.stdout.decode("utf-8", "surrogateescape").strip()
    res = run(
        [git, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."],
        cwd=root,
        timeout=timeout,
    )
    if res.returncode != 0 or res.timed_out:
        return None
    return parse_porcelain_z(res.stdout, prefix)

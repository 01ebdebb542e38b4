"""Atomic writes survive a SIGKILL: the original stays intact and the temp file is hidden, then removed."""

from __future__ import annotations

import os
import select
import signal
import stat
import subprocess
import sys
from pathlib import Path

from search.workspace.browse import glob_files, list_directory
from search.workspace.confine import Roots
from search.workspace.files import (
    atomic_write,
    is_temp_name,
    read_file,
    write_file,
)

REPO = Path(__file__).resolve().parents[1]

# Writes the temp file (step one of atomic_write), reports it, then blocks before the rename.
PAUSE_BEFORE_RENAME = """
import sys
from pathlib import Path
from search.workspace.files import write_temp
tmp = write_temp(Path(sys.argv[1]), b"NEW CONTENT\\n")
print(tmp, flush=True)
sys.stdin.read()
"""

# Rewrites the file forever, alternating two contents.
WRITE_LOOP = """
import sys
from pathlib import Path
from search.workspace.files import atomic_write
target = Path(sys.argv[1])
print("ready", flush=True)
i = 0
while True:
    atomic_write(target, (b"A" * 5000) if i % 2 else (b"B" * 7000))
    i += 1
"""


def _spawn(script: str, target: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, str(target)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _first_line(proc: subprocess.Popen[str], timeout: float = 120.0) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "the child did not report in time"
    return proc.stdout.readline().strip()


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


def test_sigkill_between_temp_write_and_rename_leaves_the_original_intact(tmp_path: Path) -> None:
    target = tmp_path / "config.py"
    target.write_bytes(b"ORIGINAL\n")
    target.chmod(0o751)
    proc = _spawn(PAUSE_BEFORE_RENAME, target)
    try:
        tmp = Path(_first_line(proc))
    finally:
        _kill(proc)
    assert proc.returncode == -signal.SIGKILL
    assert target.read_bytes() == b"ORIGINAL\n"
    # the temp is fully written, beside the target, with the target's mode, and hidden from the tools
    assert tmp.parent == target.parent and is_temp_name(tmp.name)
    assert tmp.read_bytes() == b"NEW CONTENT\n"
    assert stat.S_IMODE(tmp.stat().st_mode) == 0o751
    roots = Roots([tmp_path])
    assert [e.name for e in list_directory(roots, ".", include_ignored=True).entries] == ["config.py"]
    assert [m.path for m in glob_files(roots, "*", include_ignored=True).matches] == ["config.py"]
    # the next write succeeds and sweeps the dead writer's temp away
    write_file(roots, "config.py", "NEXT\n")
    assert target.read_text() == "NEXT\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.py"]


def test_sigkill_during_a_write_loop_never_leaves_a_torn_file(tmp_path: Path) -> None:
    target = tmp_path / "data.txt"
    target.write_bytes(b"B" * 7000)
    proc = _spawn(WRITE_LOOP, target)
    try:
        assert _first_line(proc) == "ready"
        # let it write for a while: poll until the content has flipped at least once
        for _ in range(10_000):
            if target.read_bytes()[:1] == b"A":
                break
    finally:
        _kill(proc)
    assert target.read_bytes() in (b"A" * 5000, b"B" * 7000)
    assert read_file(Roots([tmp_path]), "data.txt").total_lines == 1


def test_atomic_write_keeps_the_mode_and_replaces_the_inode(tmp_path: Path) -> None:
    target = tmp_path / "tool.sh"
    target.write_text("old\n")
    target.chmod(0o700)
    inode = target.stat().st_ino
    atomic_write(target, b"new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert target.stat().st_ino != inode  # renamed over, not rewritten in place
    assert [p.name for p in tmp_path.iterdir()] == ["tool.sh"]

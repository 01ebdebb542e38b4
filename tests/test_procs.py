"""The subprocess gateway: deadlines, output caps, exit codes, and one git-status parser."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from indexer.procs import parse_porcelain_z, run


def test_a_process_past_its_deadline_is_killed_promptly(tmp_path: Path) -> None:
    sleep = shutil.which("sleep")
    assert sleep is not None
    start = time.monotonic()
    res = run([sleep, "30"], cwd=tmp_path, timeout=0.3)
    assert res.timed_out and time.monotonic() - start < 5


def test_output_over_the_cap_is_cut_and_the_process_stopped(tmp_path: Path) -> None:
    yes = shutil.which("yes")
    assert yes is not None
    res = run([yes], cwd=tmp_path, timeout=30, max_output=10_000)
    assert res.truncated and not res.timed_out
    assert len(res.stdout) == 10_000


def test_exit_code_and_output_are_returned(tmp_path: Path) -> None:
    sh = shutil.which("sh")
    assert sh is not None
    res = run([sh, "-c", "echo out; echo err >&2; exit 3"], cwd=tmp_path, timeout=10)
    assert (res.returncode, res.stdout, res.stderr, res.timed_out) == (3, b"out\n", "err", False)


def test_porcelain_z_parsing_with_prefix_renames_and_untracked() -> None:
    out = b" M sub/a.py\0?? sub/new.py\0D  sub/gone.py\0R  sub/b2.py\0sub/b.py\0 M other/x.py\0"
    status = parse_porcelain_z(out, "sub/")
    assert status.modified == {"a.py"}
    assert status.untracked == {"new.py"}
    assert status.deleted == {"gone.py"}
    assert status.renamed == {"b2.py": "b.py"}
    assert status.changed == {"a.py", "new.py", "b2.py"}


def test_standard_input_is_written_when_given_and_empty_otherwise(tmp_path: Path) -> None:
    cat = shutil.which("cat")
    assert cat is not None
    fed = run([cat], cwd=tmp_path, timeout=10, stdin=b"line one\nline two\n")
    assert fed.returncode == 0 and fed.stdout == b"line one\nline two\n"
    assert run([cat], cwd=tmp_path, timeout=10).stdout == b""  # /dev/null, never the caller's stdin
    big = b"x" * (1 << 20)  # more than a pipe holds: the writer must not block the readers
    assert run([cat], cwd=tmp_path, timeout=10, stdin=big).stdout == big

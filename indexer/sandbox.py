"""ripgrep confined by the kernel: it can read beneath the workspace root and nothing else of note.

plait hands ripgrep checked paths and never ``--follow``, but ripgrep opens what it walks by name, so
a directory swapped for a symlink while it walks would lead it outside. On Linux (Landlock, 5.13+)
:func:`run_beneath` therefore starts ripgrep from a thread that has restricted itself with a Landlock
ruleset allowing reads only beneath the root (by inode, so no rename can widen it), of ripgrep's own
binary and the system library directories its loader needs, and of ``/dev/null``; a child process
inherits the thread's domain for good. Landlock domains are per thread, so the rest of the process
keeps its access; the restricted threads do nothing but start ripgrep and read its pipes.

A read ripgrep attempts outside fails with ``EACCES`` ("Permission denied"), which it reports and
skips. Where Landlock is missing, ripgrep runs unconfined and only the checks on the paths handed to
it hold (SECURITY.md says so).

Patterns too long for one argument (the kernel caps one at 128 KiB) go to ripgrep on its standard
input (``-f -``): no file is written for them, so nothing is left behind in a temporary directory.
"""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import logging
import os
import platform
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from indexer.procs import DEFAULT_MAX_OUTPUT, ProcResult, run

log = logging.getLogger(__name__)

_ACCESS_READ_FILE = 1 << 2
_ACCESS_READ_DIR = 1 << 3
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "arm64": (444, 445, 446)}
_LIB_DIRS = ("/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib")
_LIB_FILES = ("/etc/ld.so.cache", "/dev/null")
MAX_ARG_PATTERN = 32 * 1024  # longer -e patterns go to ripgrep's standard input
THREADS_PER_ROOT = 8


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _Landlock:
    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.create, self.add, self.restrict = _SYSCALLS[platform.machine()]

    def abi(self) -> int:
        return int(self.libc.syscall(self.create, None, 0, 1))  # LANDLOCK_CREATE_RULESET_VERSION

    def ruleset(self, rules: Sequence[tuple[str, int]]) -> int:
        attr = _RulesetAttr(_ACCESS_READ_FILE | _ACCESS_READ_DIR)
        fd = int(self.libc.syscall(self.create, ctypes.byref(attr), ctypes.sizeof(attr), 0))
        if fd < 0:
            raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
        try:
            for path, access in rules:
                try:
                    pfd = os.open(path, getattr(os, "O_PATH", 0) | os.O_CLOEXEC)
                except OSError:
                    continue  # a library directory this system does not have
                try:
                    if not os.path.isdir(path):
                        access &= _ACCESS_READ_FILE  # a file rule may only hold file rights
                    rule = _PathBeneath(access, pfd)
                    if self.libc.syscall(self.add, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                        raise OSError(ctypes.get_errno(), f"landlock_add_rule failed for {path}")
                finally:
                    os.close(pfd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def restrict_thread(self, ruleset_fd: int) -> None:
        if self.libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if self.libc.syscall(self.restrict, ruleset_fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")


def _load() -> _Landlock | None:
    if sys.platform != "linux" or platform.machine() not in _SYSCALLS:
        return None
    try:
        landlock = _Landlock()
        return landlock if landlock.abi() >= 1 else None
    except (OSError, AttributeError):
        return None


_LANDLOCK = _load()
_pools: dict[tuple[str, str], cf.ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def landlock_available() -> bool:
    """Whether ripgrep runs in a Landlock domain (see the module docstring)."""
    return _LANDLOCK is not None


def _pool(root: Path, binary: str) -> cf.ThreadPoolExecutor | None:
    """The threads restricted to ``root`` (made once per root and ripgrep binary)."""
    if _LANDLOCK is None:
        return None
    key = (str(root), binary)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is not None:
            return pool
        rules = [
            (str(root), _ACCESS_READ_FILE | _ACCESS_READ_DIR),
            (os.path.realpath(binary), _ACCESS_READ_FILE),
        ]
        rules += [(os.path.realpath(d), _ACCESS_READ_FILE) for d in _LIB_DIRS if os.path.isdir(d)]
        rules += [(f, _ACCESS_READ_FILE) for f in _LIB_FILES]
        ruleset = _LANDLOCK.ruleset(_dedupe(rules))
        landlock = _LANDLOCK

        def restrict() -> None:
            landlock.restrict_thread(ruleset)

        pool = cf.ThreadPoolExecutor(THREADS_PER_ROOT, thread_name_prefix="plait-rg", initializer=restrict)
        _pools[key] = pool
        return pool


def _dedupe(rules: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return list(dict.fromkeys(rules))


def _long_patterns_to_stdin(argv: list[str]) -> tuple[list[str], bytes | None]:
    """Move ``-e PATTERN`` pairs longer than :data:`MAX_ARG_PATTERN` to ripgrep's standard input
    (``-f -``, one pattern per line): the argument list stays under the kernel's limit."""
    if not any(len(a) > MAX_ARG_PATTERN for a in argv):
        return argv, None
    out: list[str] = []
    long: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            out += argv[i:]
            break
        if argv[i] == "-e" and i + 1 < len(argv) and len(argv[i + 1]) > MAX_ARG_PATTERN:
            long.append(argv[i + 1])
            i += 2
            continue
        out.append(argv[i])
        i += 1
    if not long:
        return argv, None
    dash = out.index("--") if "--" in out else len(out)
    data = ("\n".join(long) + "\n").encode("utf-8", "surrogateescape")
    return [*out[:dash], "-f", "-", *out[dash:]], data


def run_beneath(
    root: Path, argv: Sequence[str], *, timeout: float, max_output: int = DEFAULT_MAX_OUTPUT
) -> ProcResult:
    """Run ripgrep ``argv`` in ``root`` through :func:`indexer.procs.run`, confined to ``root`` where
    Landlock exists (see the module docstring). Same result and errors as ``run``."""
    args, patterns = _long_patterns_to_stdin(list(argv))
    pool = _pool(root, args[0])
    if pool is None:
        return run(args, cwd=root, timeout=timeout, max_output=max_output, stdin=patterns)
    future = pool.submit(run, args, cwd=root, timeout=timeout, max_output=max_output, stdin=patterns)
    return future.result()

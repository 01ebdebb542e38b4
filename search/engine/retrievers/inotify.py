"""Directory watches through Linux inotify, read without waiting.

A notification library that hands events over from its own thread (watchfiles, which the daemon
uses) leaves a reader that wants "every change made before now" waiting for that thread, and under
load a millisecond is not always enough. inotify queues an event inside the system call that made
the change, so a non-blocking read of its descriptor returns every change made before the read, at
once. Linux only: elsewhere :func:`open_watch` returns ``None`` and callers stat the files instead.
Writes through a shared memory mapping raise no event (an inotify limit); callers bound that by
comparing every file again now and then.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys
from collections.abc import Sequence

IN_MODIFY = 0x2
IN_ATTRIB = 0x4
IN_CLOSE_WRITE = 0x8
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_Q_OVERFLOW = 0x4000
IN_IGNORED = 0x8000
IN_ONLYDIR = 0x01000000
WRITTEN = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE
ADDED = IN_CREATE | IN_MOVED_TO
REMOVED = IN_DELETE | IN_MOVED_FROM
GONE = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED  # the watched directory itself
MASK = WRITTEN | ADDED | REMOVED | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of NUL-padded name


class DirWatch:
    """Watches on some directories (not recursive) behind one non-blocking descriptor."""

    def __init__(self, fd: int, dirs: dict[int, str]) -> None:
        self.fd = fd
        self.dirs = dirs  # watch descriptor → directory path

    def read(self) -> list[tuple[int, str]] | None:
        """``(mask, path)`` of every event queued since the last read, paths joined to their watched
        directory; ``None`` when the kernel's queue overflowed and events were lost."""
        out: list[tuple[int, str]] = []
        while True:
            try:
                buf = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return out
            at = 0
            while at + _EVENT.size <= len(buf):
                wd, mask, _cookie, size = _EVENT.unpack_from(buf, at)
                name = buf[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                if mask & IN_Q_OVERFLOW:
                    return None
                base = self.dirs.get(wd)
                if base is not None:
                    out.append((mask, os.path.join(base, os.fsdecode(name)) if name else base))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def open_watch(dirs: Sequence[str]) -> DirWatch | None:
    """Watch ``dirs``; ``None`` off Linux or when the kernel refuses (the watch or instance limit)."""
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    if fd < 0:
        return None
    watched: dict[int, str] = {}
    for d in dirs:
        wd = libc.inotify_add_watch(fd, os.fsencode(d), MASK)
        if wd < 0:
            os.close(fd)
            return None
        watched[wd] = d
    return DirWatch(fd, watched)


_LIBC: list[ctypes.CDLL | None] = []


def _libc() -> ctypes.CDLL | None:
    if not _LIBC:
        lib = None
        if sys.platform.startswith("linux"):
            try:
                lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
                lib.inotify_init1.argtypes = [ctypes.c_int]
                lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            except (OSError, AttributeError):
                lib = None
        _LIBC.append(lib)
    return _LIBC[0]

"""Descriptor-based path resolution: open a path inside a root without ever following a symlink.

A check on a path name ("is this inside the root?") followed by an open of the same name races with
anyone who can rename inside the workspace: a directory swapped for a symlink between the check and
the open leads the open outside. So nothing here opens a workspace path by name. Every path is
resolved component by component from a descriptor of the root:

* on Linux 5.6+ by one ``openat2`` call with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
  RESOLVE_NO_MAGICLINKS`` (the kernel refuses ``..`` above the root and any symlink, atomically);
* elsewhere by an ``O_NOFOLLOW`` walk: each directory is opened with ``openat(parent_fd, name,
  O_DIRECTORY | O_NOFOLLOW)``, so a component that is a symlink fails with ``ELOOP`` and a swap after
  a component was opened cannot move the walk (it holds the directory itself, not its name).

A symlink anywhere in the path is refused (``ELOOP``) — callers that accept symlinks pointing inside
the root resolve the name first (:func:`os.path.realpath`) and open the resolved relative path here.
Reads open with ``O_NONBLOCK`` and ``fstat`` the descriptor before reading a byte, so a FIFO, socket or
device is refused (:class:`SpecialFileError`) instead of blocking. Writes create their temp file in,
and rename it within, the directory descriptor the walk returned (:func:`write_atomic`).

Errors are :class:`OSError` (``ELOOP`` for a symlink, ``EXDEV`` for an escape, ``ENOENT``, ...) or
:class:`SpecialFileError`; the file tools translate them into :class:`PlaitError` messages.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import hashlib
import os
import platform
import secrets
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_SYS_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437, "riscv64": 437, "ppc64le": 437, "s390x": 437}
_O_PATH = getattr(os, "O_PATH", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
TEMP_PREFIX = ".plait-"
TEMP_SUFFIX = ".tmp"


class SpecialFileError(OSError):
    """The path names a FIFO, socket or device: plait never reads or writes one."""

    def __init__(self, rel: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{rel} is a {kind}, not a regular file")
        self.rel = rel
        self.kind = kind


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def _load_openat2() -> object | None:
    if sys.platform != "linux":
        return None
    number = _SYS_OPENAT2.get(platform.machine())
    if number is None:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    how = _OpenHow(os.O_RDONLY | _O_CLOEXEC | _O_DIRECTORY, 0, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
    fd = syscall(number, -100, b".", ctypes.byref(how), ctypes.sizeof(how))  # AT_FDCWD
    if fd < 0:
        return None  # ENOSYS (old kernel) or a seccomp filter: use the O_NOFOLLOW walk
    os.close(fd)
    return lambda dir_fd, path, how: syscall(number, dir_fd, path, ctypes.byref(how), ctypes.sizeof(how))


_openat2 = _load_openat2()


def has_openat2() -> bool:
    """Whether the kernel resolves paths for us (``openat2``); else the ``O_NOFOLLOW`` walk is used."""
    return _openat2 is not None


def _parts(rel: str) -> list[str]:
    """The components of a root-relative path; ``..`` is refused outright (``EXDEV``)."""
    parts = [p for p in rel.replace("\\", "/").split("/") if p and p != "."]
    if ".." in parts:
        raise OSError(errno.EXDEV, "a '..' component leaves the root", rel)
    return parts


def _open_dir_at(dir_fd: int, part: str) -> int:
    """The directory ``part`` of ``dir_fd``, never through a symlink (``ELOOP``, as ``openat2`` says,
    where ``O_DIRECTORY | O_NOFOLLOW`` reports a symlink as ``ENOTDIR``)."""
    try:
        return os.open(part, os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC, dir_fd=dir_fd)
    except NotADirectoryError:
        try:
            is_link = stat.S_ISLNK(os.stat(part, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except OSError:
            is_link = False
        if is_link:
            raise OSError(errno.ELOOP, "a symlink is in the path", part) from None
        raise


def _open_walk(root_fd: int, parts: list[str], flags: int, mode: int) -> int:
    """``openat`` one component at a time, each with ``O_NOFOLLOW`` (the portable fallback)."""
    current = os.dup(root_fd)
    try:
        for part in parts[:-1]:
            nxt = _open_dir_at(current, part)
            os.close(current)
            current = nxt
        if not parts:
            return os.open(".", flags, mode, dir_fd=current)
        return os.open(parts[-1], flags | _O_NOFOLLOW, mode, dir_fd=current)
    finally:
        os.close(current)


def openat_beneath(root_fd: int, rel: str, flags: int, mode: int = 0) -> int:
    """Open ``rel`` (relative to the directory ``root_fd``) without leaving it or following a symlink.

    ``flags`` are :func:`os.open` flags (``O_CLOEXEC`` is added). Raises :class:`OSError`: ``ELOOP`` when
    a component is a symlink, ``EXDEV`` for ``..``, and whatever the open itself raises.
    """
    parts = _parts(rel)
    flags |= _O_CLOEXEC
    if _openat2 is not None:
        how = _OpenHow(flags, mode if flags & (os.O_CREAT | getattr(os, "O_TMPFILE", 0)) else 0, 0)
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
        path = os.fsencode("/".join(parts) or ".")
        for _ in range(16):  # EAGAIN: a rename raced the lookup; the kernel asks to retry
            fd = _openat2(root_fd, path, how)  # type: ignore[operator]
            if fd >= 0:
                return int(fd)
            err = ctypes.get_errno()
            if err != errno.EAGAIN:
                raise OSError(err, os.strerror(err), rel)
        raise OSError(errno.EAGAIN, "the path kept changing while it was opened", rel)
    return _open_walk(root_fd, parts, flags, mode)


@contextlib.contextmanager
def root_fd(root: Path | str) -> Iterator[int]:
    """A descriptor of the workspace root itself (the root's own path is trusted configuration)."""
    fd = os.open(root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        yield fd
    finally:
        os.close(fd)


def open_beneath(root: Path | str, rel: str, flags: int, mode: int = 0) -> int:
    """:func:`openat_beneath` from the path of the root."""
    with root_fd(root) as rfd:
        return openat_beneath(rfd, rel, flags, mode)


@contextlib.contextmanager
def dir_beneath(root: Path | str, rel: str) -> Iterator[int]:
    """A descriptor of the directory ``rel`` inside ``root`` (closed on exit); raises as
    :func:`openat_beneath` (``ENOTDIR`` when it is not a directory)."""
    fd = open_beneath(root, rel, os.O_RDONLY | _O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def kind_of(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "special file"


def open_regular(root_fd: int, rel: str) -> tuple[int, os.stat_result]:
    """Open the regular file ``rel`` for reading: ``O_NONBLOCK`` so a FIFO cannot block the open, then
    ``fstat`` before any read. Raises :class:`SpecialFileError` (the descriptor is closed) for anything
    but a regular file, ``IsADirectoryError`` for a directory, and :func:`openat_beneath`'s errors."""
    fd = openat_beneath(root_fd, rel, os.O_RDONLY | _O_NONBLOCK | _O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
        if not stat.S_ISREG(st.st_mode):
            raise SpecialFileError(rel, kind_of(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_fd(fd: int, limit: int) -> bytes:
    """Up to ``limit`` bytes from ``fd`` (a regular file: ``O_NONBLOCK`` does not shorten its reads)."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        block = os.read(fd, min(left, 1 << 20))
        if not block:
            break
        chunks.append(block)
        left -= len(block)
    return b"".join(chunks)


def read_beneath(root: Path | str, rel: str, limit: int) -> bytes:
    """Up to ``limit`` bytes of the regular file ``rel`` under ``root`` (see :func:`open_regular`)."""
    with root_fd(root) as rfd:
        fd, _ = open_regular(rfd, rel)
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def lstat_beneath(root: Path | str, rel: str) -> os.stat_result:
    """The ``lstat`` of ``rel``: its parent is reached without following symlinks, and the entry itself
    is not followed either (a symlink reports as one)."""
    parts = _parts(rel)
    if not parts:
        return os.stat(root)
    parent = "/".join(parts[:-1])
    with dir_beneath(root, parent) as dfd:
        return os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)


def lstat_kind(root: Path | str, rel: str) -> str:
    """``"file"`` (regular), ``"directory"``, ``"FIFO"``, ``"symlink"``, ... for ``rel`` (see
    :func:`lstat_beneath`); ``"missing or unreachable path"`` when it cannot be reached without a symlink."""
    try:
        mode = lstat_beneath(root, rel).st_mode
    except OSError:
        return "missing or unreachable path"
    return "file" if stat.S_ISREG(mode) else kind_of(mode)


def is_regular_beneath(root: Path | str, rel: str) -> bool:
    """Whether ``rel`` is a regular file reached without any symlink (vanished, refused: ``False``)."""
    try:
        return stat.S_ISREG(lstat_beneath(root, rel).st_mode)
    except OSError:
        return False


def makedirs_beneath(root_fd: int, rel: str) -> int:
    """The descriptor of directory ``rel``, creating missing components (``mkdirat`` each, then opened
    with ``O_NOFOLLOW``: a component swapped for a symlink fails with ``ELOOP``)."""
    current = os.dup(root_fd)
    try:
        for part in _parts(rel):
            try:
                os.mkdir(part, 0o777, dir_fd=current)
            except FileExistsError:
                pass
            nxt = _open_dir_at(current, part)
            os.close(current)
            current = nxt
    except BaseException:
        os.close(current)
        raise
    return current


# --- atomic writes in a directory descriptor ---------------------------------------------------------


def temp_stem(name: str) -> str:
    # A fixed-length name: the target's own name may already be at the 255-byte limit.
    return TEMP_PREFIX + hashlib.sha1(os.fsencode(name)).hexdigest()[:12] + "-"


def remove_stale_temps(dir_fd: int, name: str) -> None:
    """Remove temp files of earlier writes to ``name`` whose writer process is gone."""
    import psutil  # here, not at the top: readers import this module and never need it

    stem = temp_stem(name)
    with contextlib.suppress(OSError), os.scandir(dir_fd) as it:
        for entry in it:
            if not (entry.name.startswith(stem) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            pid_text = entry.name[len(stem) :].split("-", 1)[0]
            if pid_text.isdigit() and int(pid_text) != os.getpid() and not psutil.pid_exists(int(pid_text)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=dir_fd)


def write_temp(dir_fd: int, name: str, data: bytes) -> str:
    """``data`` in a new temp file beside ``name`` in ``dir_fd`` (``O_EXCL | O_NOFOLLOW``), fsynced, with
    ``name``'s permission bits when it exists. Returns the temp file's name."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        mode = None
    remove_stale_temps(dir_fd, name)
    tmp = f"{temp_stem(name)}{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC
    fd = os.open(tmp, flags, 0o666, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.close(fd)
    return tmp


def commit_temp(dir_fd: int, tmp: str, name: str) -> None:
    """Rename ``tmp`` over ``name`` inside ``dir_fd`` (``renameat``: neither name is followed) and fsync
    the directory."""
    try:
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.fsync(dir_fd)


def write_atomic(dir_fd: int, name: str, data: bytes) -> None:
    """Replace ``name`` in the directory ``dir_fd`` with ``data`` atomically, keeping its mode."""
    commit_temp(dir_fd, write_temp(dir_fd, name, data), name)

"""The file tools that read and write: a file's text by lines, and atomic whole-file writes.

Listing, stat and glob live in :mod:`search.workspace.browse`.

Every path goes through :meth:`Roots.resolve` (confinement, symlinks resolved). Reads refuse binary
files (:class:`BinaryFileError`) and files over ``max_bytes`` (:class:`FileTooLargeError`); the text is
returned with line numbers, a window of ``offset``/``limit`` lines and a note saying how to continue
when it is cut. Writes are refused in read-only mode (:class:`ReadOnlyError`), on paths a ``generated``
guard rule protects (:class:`GuardBlockedError`), inside ``.git``, over ``max_bytes``, and when
``expected_sha256`` no longer matches (:class:`StaleEditError`).

Writes are atomic (:func:`atomic_write`): the bytes go to a temp file in the target's directory,
which is fsynced, given the target's mode, and renamed over the target; then the directory is fsynced.
A crash before the rename leaves the original untouched and at worst a hidden ``.plait-*.tmp`` file,
which the listings hide and the next write to that file removes once its writer is gone. Writers in
plait serialise on an ``flock`` of the target's directory, so a check of ``expected_sha256`` and the
write that follows cannot interleave with another plait edit (threads or processes).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from indexer import beneath
from indexer.beneath import (
    TEMP_PREFIX,
    TEMP_SUFFIX,
    SpecialFileError,
    makedirs_beneath,
    open_regular,
    read_fd,
    root_fd,
)
from indexer.languages import detect_language
from indexer.workspace import BINARY_SNIFF_BYTES, is_binary
from models.errors import PathOutsideRootError, WorkspaceError
from search.errors import (
    BinaryFileError,
    FileTooLargeError,
    LineRangeError,
    PathNotFoundError,
    QueryError,
    ReadOnlyError,
    StaleEditError,
)
from search.workspace.confine import Confined, Roots
from search.workspace.guard import GuardRule, check_write_allowed, rules_for

DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_WRITE_BYTES = 10 * 1024 * 1024
DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 200_000

OnWrite = Callable[[Path], None]


# --- results -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FileContent:
    path: str  # relative to root, forward slashes
    root: str
    text: str  # "{line:>6}\t{content}" per line
    start_line: int  # first line shown (1-based)
    end_line: int  # last line shown; start_line - 1 when none
    total_lines: int
    truncated: bool  # lines after end_line, or over-long lines, were left out
    note: str | None  # how to read the rest; encoding problems
    sha256: str  # of the whole file's bytes: pass it as expected_sha256 to the edit tools
    size: int
    language: str | None


@dataclass(frozen=True, slots=True)
class WriteResult:
    path: str
    root: str
    size: int
    sha256: str
    sha256_before: str | None  # None when the file was created
    created: bool


# --- shared helpers (also used by search.workspace.edits) ------------------------------------------------------


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="seconds")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fs_error(rel: str, exc: OSError, doing: str = "opened") -> WorkspaceError:
    """The :class:`PlaitError` for an ``OSError`` of a descriptor-based open (see :mod:`indexer.beneath`)."""
    if isinstance(exc, SpecialFileError):
        return WorkspaceError(
            f"{rel} is a {exc.kind}, not a regular file; plait only reads and writes regular files."
        )
    if exc.errno == errno.ENOENT:
        return PathNotFoundError(rel)
    if exc.errno == errno.ELOOP:
        return WorkspaceError(
            f"{rel} cannot be {doing}: a symlink is in its path (it was swapped in since the path was "
            "checked, or it loops); plait never follows a symlink there. Pass the path of the real file."
        )
    if exc.errno == errno.EXDEV:
        return PathOutsideRootError(rel, ())
    if exc.errno == errno.EISDIR:
        return WorkspaceError(f"{rel} is a directory; list it with list_directory.")
    if exc.errno == errno.ENOTDIR:
        return WorkspaceError(f"{rel} cannot be {doing}: a component of its path is not a directory.")
    return WorkspaceError(f"{rel} cannot be {doing}: {exc.strerror or exc}.")


def read_regular_file(confined: Confined, max_bytes: int) -> bytes:
    """The bytes of a regular file, opened from a descriptor of its root without following any symlink
    and refused (never blocked on) when it is a FIFO, socket or device.

    Raises :class:`WorkspaceError` for a directory, special file or symlink in the path,
    :class:`PathNotFoundError`, :class:`FileTooLargeError`.
    """
    rel = confined.relpath
    try:
        with root_fd(confined.root) as rfd:
            fd, st = open_regular(rfd, rel)
    except OSError as exc:
        raise fs_error(rel, exc) from exc
    try:
        if st.st_size > max_bytes:
            raise FileTooLargeError(rel, st.st_size, max_bytes, "read")
        data = read_fd(fd, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # grew while we read
        raise FileTooLargeError(rel, len(data), max_bytes, "read")
    return data


def check_writable(
    roots: Roots,
    confined: Confined,
    *,
    tool: str,
    read_only: bool,
    guard_rules: Sequence[GuardRule] | None,
) -> None:
    """Refuse a mutation: read-only mode, the root itself, ``.git`` internals, guarded paths.

    ``guard_rules=None`` means the rules configured for the path's root.
    """
    if read_only:
        raise ReadOnlyError(tool)
    rel = confined.relpath
    if rel == ".":
        raise WorkspaceError("the workspace root itself cannot be written; pass a file path inside it.")
    vcs = next((p for p in rel.split("/") if p in (".git", ".hg", ".svn")), None)
    if vcs is not None:
        raise WorkspaceError(
            f"{rel} is inside {vcs}; plait does not write version-control internals, use the tool itself."
        )
    rules = guard_rules if guard_rules is not None else rules_for(roots.settings(confined.root))
    check_write_allowed(rules, rel)


def check_expected(rel: str, expected_sha256: str | None, actual: str | None) -> None:
    """Raise :class:`StaleEditError` unless ``expected_sha256`` is None or equals ``actual``."""
    if expected_sha256 is not None and (actual is None or expected_sha256.strip().lower() != actual):
        raise StaleEditError(rel, expected_sha256, actual)


LOCK_WAIT_SECONDS = 10.0


@contextlib.contextmanager
def fd_lock(dir_fd: int, rel: str, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the directory ``dir_fd`` (serialises plait writers, threads and
    processes). Waits at most ``wait`` seconds, then raises :class:`WorkspaceError`: no call waits on a
    lock for ever (and no holder blocks, since special files are refused before any read)."""
    lock_fd = os.dup(dir_fd)
    try:
        deadline = time.monotonic() + wait
        delay = 0.001
        while True:
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise WorkspaceError(
                        f"the directory of {rel} stayed locked by another edit for {wait:g}s; try again."
                    ) from None
                time.sleep(delay)  # another plait write holds it for milliseconds
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(lock_fd)  # closing releases the lock


@contextlib.contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """:func:`fd_lock` on a directory given by path (the path itself is trusted here)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with fd_lock(fd, str(directory)):
            yield
    finally:
        os.close(fd)


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one of :func:`atomic_write`'s temp files."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


# --- atomic write ------------------------------------------------------------------------------------


def write_temp(path: Path, data: bytes) -> Path:
    """Step one of :func:`atomic_write` for a trusted ``path``: ``data`` in a new temp file beside it."""
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return path.parent / beneath.write_temp(fd, path.name, data)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` (whose directory is trusted) with ``data`` atomically, keeping its mode.

    The tools do not use this: they write through :func:`indexer.beneath.write_atomic` in a directory
    descriptor reached without following symlinks. Raises :class:`OSError`.
    """
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        beneath.write_atomic(fd, path.name, data)
    finally:
        os.close(fd)


# --- tools -------------------------------------------------------------------------------------------


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` without their endings (``\\n`` or ``\\r\\n``); a final newline ends the last line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_file(
    roots: Roots,
    path: str,
    *,
    offset: int = 1,
    limit: int = DEFAULT_READ_LIMIT,
    max_bytes: int = DEFAULT_MAX_READ_BYTES,
    max_output_chars: int = MAX_OUTPUT_CHARS,
) -> FileContent:
    """Up to ``limit`` numbered lines from line ``offset`` (1-based) of a text file.

    Lines longer than 2000 characters are cut and output stops near ``max_output_chars``; either way
    ``truncated`` is set and ``note`` says how to continue. Undecodable bytes show as U+FFFD (noted).
    Raises the confinement errors, :class:`PathNotFoundError`, :class:`BinaryFileError`,
    :class:`FileTooLargeError`, :class:`QueryError` (bad offset/limit), :class:`LineRangeError`.
    """
    if offset < 1 or limit < 1:
        raise QueryError(f"offset and limit must be at least 1 (got offset={offset}, limit={limit}).")
    confined = roots.resolve(path, must_exist=True)
    data = read_regular_file(confined, max_bytes)
    rel = confined.relpath
    if is_binary(data[:BINARY_SNIFF_BYTES]):
        raise BinaryFileError(rel)
    try:
        text = data.decode("utf-8")
        bad_encoding = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        bad_encoding = True
    lines = split_lines(text)
    total = len(lines)
    if offset > max(total, 1):
        raise LineRangeError(rel, f"offset {offset} is past the end", total)
    out: list[str] = []
    size = 0
    cut_lines = 0
    end = offset - 1
    for number in range(offset, min(total, offset - 1 + limit) + 1):
        line = lines[number - 1]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" … [line cut: {len(lines[number - 1]):,} characters]"
            cut_lines += 1
        rendered = f"{number:>6}\t{line}"
        if out and size + len(rendered) + 1 > max_output_chars:
            break
        out.append(rendered)
        size += len(rendered) + 1
        end = number
    notes: list[str] = []
    if end < total:
        notes.append(f"showing lines {offset}-{end} of {total}; read on with offset={end + 1}")
    if cut_lines:
        notes.append(f"{cut_lines} line(s) longer than {MAX_LINE_CHARS} characters were cut")
    if bad_encoding:
        notes.append("the file is not valid UTF-8; undecodable bytes are shown as U+FFFD")
    return FileContent(
        path=rel,
        root=str(confined.root),
        text="\n".join(out),
        start_line=offset,
        end_line=end,
        total_lines=total,
        truncated=end < total or cut_lines > 0,
        note="; ".join(notes) or None,
        sha256=sha256_bytes(data),
        size=len(data),
        language=detect_language(rel, data[:BINARY_SNIFF_BYTES]),
    )


def _current_sha(dir_fd: int, name: str, rel: str) -> str | None:
    """sha256 of the regular file ``name`` in ``dir_fd`` (streamed), ``None`` if it does not exist."""
    digest = hashlib.sha256()
    try:
        fd, _ = open_regular(dir_fd, name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise fs_error(rel, exc) from exc
    try:
        for block in iter(lambda: os.read(fd, 1 << 20), b""):
            digest.update(block)
    finally:
        os.close(fd)
    return digest.hexdigest()


def write_file(
    roots: Roots,
    path: str,
    content: str,
    *,
    read_only: bool = False,
    guard_rules: Sequence[GuardRule] | None = None,
    max_bytes: int = DEFAULT_MAX_WRITE_BYTES,
    expected_sha256: str | None = None,
    on_write: OnWrite | None = None,
) -> WriteResult:
    """Create or replace a file with ``content`` (UTF-8, written verbatim), creating parent directories.

    ``expected_sha256`` (from read_file) refuses the write if the file changed or vanished since.
    ``on_write(abspath)`` is called after the write (the index's update hook). Raises
    :class:`ReadOnlyError`, :class:`GuardBlockedError`, :class:`FileTooLargeError`,
    :class:`StaleEditError`, the confinement errors, :class:`WorkspaceError` for a directory in the way.
    """
    confined = roots.resolve(path, must_exist=False)
    check_writable(roots, confined, tool="write_file", read_only=read_only, guard_rules=guard_rules)
    rel = confined.relpath
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise QueryError(f"the content for {rel} cannot be encoded as UTF-8 ({exc.reason}).") from exc
    if len(data) > max_bytes:
        raise FileTooLargeError(rel, len(data), max_bytes, "write")
    target = confined.abspath
    parent, _, name = rel.rpartition("/")
    try:
        with root_fd(confined.root) as rfd:
            dir_fd = makedirs_beneath(rfd, parent)
    except (FileExistsError, NotADirectoryError) as exc:
        raise WorkspaceError(f"cannot create the directory of {rel}: a file is in the way ({exc}).") from exc
    except OSError as exc:
        raise fs_error(parent or ".", exc, "created") from exc
    try:
        with fd_lock(dir_fd, rel):
            try:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    raise WorkspaceError(f"{rel} is a directory; pass a file path.")
            except FileNotFoundError:
                pass
            before = _current_sha(dir_fd, name, rel)
            check_expected(rel, expected_sha256, before)
            try:
                beneath.write_atomic(dir_fd, name, data)
            except OSError as exc:
                raise WorkspaceError(f"writing {rel} failed: {exc.strerror or exc}.") from exc
    finally:
        os.close(dir_fd)
    if on_write is not None:
        on_write(target)
    return WriteResult(rel, str(confined.root), len(data), sha256_bytes(data), before, before is None)

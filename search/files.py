"""The file tools: read, write, list, stat and glob inside the workspace roots.

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
import fcntl
import hashlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import pathspec

from indexer.languages import detect_language
from indexer.workspace import BINARY_SNIFF_BYTES, is_binary
from models.errors import WorkspaceError
from search.confine import Confined, Roots
from search.errors import (
    BinaryFileError,
    FileTooLargeError,
    LineRangeError,
    PathNotFoundError,
    QueryError,
    ReadOnlyError,
    StaleEditError,
)
from search.guard import GuardRule, check_write_allowed, list_files, rules_for

DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_WRITE_BYTES = 10 * 1024 * 1024
DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 200_000
TEMP_PREFIX = ".plait-"
TEMP_SUFFIX = ".tmp"

OnWrite = Callable[[Path], None]
IndexLookup = Callable[[Path, str], tuple[bool, bool] | None]
"""``(root, relpath) -> (indexed, fresh)``, or ``None`` when the index cannot say (no index yet)."""

EntryType = Literal["file", "dir", "symlink", "other"]


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


@dataclass(frozen=True, slots=True)
class DirEntry:
    name: str
    path: str  # relative to root
    type: EntryType
    size: int | None  # bytes, files only
    modified: str  # ISO 8601, UTC


@dataclass(frozen=True, slots=True)
class DirectoryListing:
    path: str
    root: str
    entries: list[DirEntry]
    total: int  # entries shown or cut by the limit (ignored ones excluded)
    truncated: bool
    ignored: int  # entries hidden by ignore rules


@dataclass(frozen=True, slots=True)
class FileInfo:
    path: str
    root: str
    type: EntryType
    size: int
    mode: str  # octal permission bits, "0644"
    modified: str  # ISO 8601, UTC
    changed: str
    accessed: str
    language: str | None
    binary: bool | None  # None for directories and files over the size limit
    line_count: int | None
    ignored: bool  # by .gitignore/.ignore/configured excludes
    indexed: bool | None  # None: the index could not say (or no lookup was given)
    fresh: bool | None


@dataclass(frozen=True, slots=True)
class GlobMatch:
    path: str
    size: int
    modified: str


@dataclass(frozen=True, slots=True)
class GlobResult:
    pattern: str
    root: str
    matches: list[GlobMatch]  # newest first
    total: int
    truncated: bool


# --- shared helpers (also used by search.edits) ------------------------------------------------------


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat(timespec="seconds")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_regular_file(confined: Confined, max_bytes: int) -> bytes:
    """The bytes of a regular file (final component opened without following a symlink).

    Raises :class:`WorkspaceError` for a directory or special file, :class:`PathNotFoundError`,
    :class:`FileTooLargeError`.
    """
    rel = confined.relpath
    try:
        fd = os.open(confined.abspath, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError as exc:
        raise PathNotFoundError(rel, "file") from exc
    except IsADirectoryError as exc:
        raise WorkspaceError(f"{rel} is a directory; list it with list_directory.") from exc
    except OSError as exc:
        raise WorkspaceError(f"{rel} cannot be opened: {exc.strerror or exc}.") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        if stat.S_ISDIR(st.st_mode):
            raise WorkspaceError(f"{rel} is a directory; list it with list_directory.")
        raise WorkspaceError(f"{rel} is not a regular file; only regular files can be read or edited.")
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > max_bytes:
            raise FileTooLargeError(rel, st.st_size, max_bytes, "read")
        data = fh.read(max_bytes + 1)
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
    if ".git" in rel.split("/"):
        raise WorkspaceError(f"{rel} is inside .git; plait does not write git internals, use git itself.")
    rules = guard_rules if guard_rules is not None else rules_for(roots.settings(confined.root))
    check_write_allowed(rules, rel)


def check_expected(rel: str, expected_sha256: str | None, actual: str | None) -> None:
    """Raise :class:`StaleEditError` unless ``expected_sha256`` is None or equals ``actual``."""
    if expected_sha256 is not None and (actual is None or expected_sha256.strip().lower() != actual):
        raise StaleEditError(rel, expected_sha256, actual)


@contextlib.contextmanager
def directory_lock(directory: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``directory`` (serialises plait writers, threads and processes)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one of :func:`atomic_write`'s temp files."""
    return name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)


# --- atomic write ------------------------------------------------------------------------------------


def _temp_stem(path: Path) -> str:
    # A fixed-length name: the target's own name may already be at the 255-byte limit.
    return TEMP_PREFIX + hashlib.sha1(os.fsencode(path.name)).hexdigest()[:12] + "-"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_temps(path: Path) -> None:
    stem = _temp_stem(path)
    with contextlib.suppress(OSError), os.scandir(path.parent) as it:
        for entry in it:
            if not (entry.name.startswith(stem) and entry.name.endswith(TEMP_SUFFIX)):
                continue
            pid_text = entry.name[len(stem) :].split("-", 1)[0]
            if pid_text.isdigit() and int(pid_text) != os.getpid() and not _pid_alive(int(pid_text)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def write_temp(path: Path, data: bytes) -> Path:
    """Step one of :func:`atomic_write`: ``data`` in a new temp file beside ``path``, fsynced, with
    ``path``'s permission bits when it exists (else the umask's default). Returns the temp path."""
    try:
        mode: int | None = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    _remove_stale_temps(path)
    tmp = path.parent / f"{_temp_stem(path)}{os.getpid()}-{secrets.token_hex(4)}{TEMP_SUFFIX}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
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
            os.unlink(tmp)
        raise
    os.close(fd)
    return tmp


def commit_temp(tmp: Path, path: Path) -> None:
    """Step two of :func:`atomic_write`: rename ``tmp`` over ``path`` and fsync the directory."""
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, keeping its mode (see the module docstring).

    ``path`` must already be confined and its directory must exist; raises :class:`OSError`.
    """
    commit_temp(write_temp(path, data), path)


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


def _current_sha(confined: Confined) -> str | None:
    """sha256 of the file's bytes (streamed), ``None`` if it does not exist."""
    digest = hashlib.sha256()
    try:
        fd = os.open(confined.abspath, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WorkspaceError(f"{confined.relpath} cannot be opened: {exc.strerror or exc}.") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise WorkspaceError(f"{confined.relpath} is not a regular file; pass a file path.")
    with os.fdopen(fd, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
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
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise WorkspaceError(f"cannot create the directory of {rel}: a file is in the way ({exc}).") from exc
    except OSError as exc:
        raise WorkspaceError(f"cannot create the directory of {rel}: {exc.strerror or exc}.") from exc
    with directory_lock(target.parent):
        if target.is_dir():
            raise WorkspaceError(f"{rel} is a directory; pass a file path.")
        before = _current_sha(confined)
        check_expected(rel, expected_sha256, before)
        try:
            atomic_write(target, data)
        except OSError as exc:
            raise WorkspaceError(f"writing {rel} failed: {exc.strerror or exc}.") from exc
    if on_write is not None:
        on_write(target)
    return WriteResult(rel, str(confined.root), len(data), sha256_bytes(data), before, before is None)


def _entry_type(st: os.stat_result) -> EntryType:
    if stat.S_ISLNK(st.st_mode):
        return "symlink"
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    return "file" if stat.S_ISREG(st.st_mode) else "other"


def list_directory(
    roots: Roots, path: str = ".", *, include_ignored: bool = False, limit: int = 1000
) -> DirectoryListing:
    """The entries of a directory (directories first, then by name) with type, size and modified time.

    Ignore rules (``.gitignore``, ``.ignore``, configured excludes, ``.git``) hide entries unless
    ``include_ignored``; plait's temp files are always hidden. Symlinks are listed as such, not followed.
    """
    if limit < 1:
        raise QueryError(f"limit must be at least 1, got {limit}.")
    confined = roots.resolve(path, must_exist=True)
    if not confined.abspath.is_dir():
        raise WorkspaceError(f"{confined.relpath} is not a directory; read it with read_file.")
    walker = None if include_ignored else roots.walker(confined.root)
    prefix = "" if confined.relpath == "." else confined.relpath + "/"
    entries: list[DirEntry] = []
    ignored = 0
    try:
        with os.scandir(confined.abspath) as it:
            scanned = list(it)
    except OSError as exc:
        raise WorkspaceError(f"{confined.relpath} cannot be listed: {exc.strerror or exc}.") from exc
    for entry in scanned:
        if is_temp_name(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue  # vanished while listing
        kind = _entry_type(st)
        rel = prefix + entry.name
        if walker is not None and walker.is_ignored(rel, kind == "dir"):
            ignored += 1
            continue
        size = st.st_size if kind == "file" else None
        entries.append(DirEntry(entry.name, rel, kind, size, _iso(st.st_mtime)))
    entries.sort(key=lambda e: (e.type != "dir", e.name))
    return DirectoryListing(
        path=confined.relpath,
        root=str(confined.root),
        entries=entries[:limit],
        total=len(entries),
        truncated=len(entries) > limit,
        ignored=ignored,
    )


def _count_lines(data: bytes) -> int:
    if not data:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)


def file_info(
    roots: Roots,
    path: str,
    *,
    index_lookup: IndexLookup | None = None,
    max_bytes: int = DEFAULT_MAX_READ_BYTES,
) -> FileInfo:
    """Metadata of a file or directory: size, mode, times, language, line count, ignore and index state.

    ``index_lookup(root, relpath)`` answers "indexed and fresh" without coupling this module to the
    index. Binary/line count are left ``None`` for directories and files over ``max_bytes``.
    """
    confined = roots.resolve(path, must_exist=True)
    rel = confined.relpath
    st = os.stat(confined.abspath)
    kind = _entry_type(st)
    binary: bool | None = None
    lines: int | None = None
    head = b""
    if kind == "file" and st.st_size <= max_bytes:
        data = read_regular_file(confined, max_bytes)
        head = data[:BINARY_SNIFF_BYTES]
        binary = is_binary(head)
        lines = None if binary else _count_lines(data)
    language = detect_language(rel, head) if kind == "file" else None
    ignored = rel != "." and roots.walker(confined.root).is_ignored(rel, kind == "dir")
    state = index_lookup(confined.root, rel) if index_lookup is not None and kind == "file" else None
    return FileInfo(
        path=rel,
        root=str(confined.root),
        type=kind,
        size=st.st_size,
        mode=f"{stat.S_IMODE(st.st_mode):04o}",
        modified=_iso(st.st_mtime),
        changed=_iso(st.st_ctime),
        accessed=_iso(st.st_atime),
        language=language,
        binary=binary,
        line_count=lines,
        ignored=ignored,
        indexed=None if state is None else state[0],
        fresh=None if state is None else state[1],
    )


def glob_files(
    roots: Roots,
    pattern: str,
    *,
    path: str = ".",
    limit: int = 200,
    include_ignored: bool = False,
    timeout: float = 30.0,
) -> GlobResult:
    """Files under ``path`` matching ``pattern``, newest first, at most ``limit``.

    ``pattern`` is gitignore-style and relative to ``path``: ``*.py`` matches at any depth,
    ``src/**/*.ts`` is anchored, ``/setup.py`` only at the top. Ignored files are left out unless
    ``include_ignored``. Raises :class:`QueryError` for an empty or negated pattern, and the
    confinement errors.
    """
    if not pattern or not pattern.strip() or "\0" in pattern:
        raise QueryError("the glob pattern is empty; pass one such as **/*.py or src/*.ts.")
    if pattern.startswith("!"):
        raise QueryError(f"{pattern!r} is a negated pattern; pass the pattern of the files to find.")
    if limit < 1:
        raise QueryError(f"limit must be at least 1, got {limit}.")
    confined = roots.resolve(path, must_exist=True)
    if not confined.abspath.is_dir():
        raise WorkspaceError(f"{confined.relpath} is not a directory; pass a directory as path.")
    spec = pathspec.GitIgnoreSpec.from_lines([pattern])
    settings = roots.settings(confined.root)
    base = "" if confined.relpath == "." else confined.relpath + "/"
    found: list[tuple[int, str, int]] = []
    for rel in list_files(settings, confined.relpath, include_ignored=include_ignored, timeout=timeout):
        name = rel.rsplit("/", 1)[-1]
        if is_temp_name(name) or not rel.startswith(base) or not spec.match_file(rel[len(base) :]):
            continue
        try:
            st = os.stat(confined.root / rel, follow_symlinks=False)
        except OSError:
            continue
        found.append((st.st_mtime_ns, rel, st.st_size))
    found.sort(key=lambda f: (-f[0], f[1]))
    return GlobResult(
        pattern=pattern,
        root=str(confined.root),
        matches=[GlobMatch(rel, size, _iso(ns / 1e9)) for ns, rel, size in found[:limit]],
        total=len(found),
        truncated=len(found) > limit,
    )

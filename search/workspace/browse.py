"""The file tools that look without reading: list a directory, stat a path, find files by name.

Every path goes through :meth:`Roots.resolve` (confinement, symlinks resolved) and is then looked at
from a descriptor of its root, no symlink followed (:mod:`indexer.beneath`). What is in the workspace is
decided by the one ignore engine: the walker's rules (:meth:`Roots.walker`) for single entries, and
the ripgrep gateway, which applies the same rules, for :func:`list_files` (``glob``, the guard).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pathspec

from indexer.beneath import dir_beneath, lstat_beneath
from indexer.languages import detect_language
from indexer.workspace import BINARY_SNIFF_BYTES, is_binary
from models.errors import WorkspaceError
from search.errors import QueryError
from search.workspace.confine import Roots
from search.workspace.files import (
    DEFAULT_MAX_READ_BYTES,
    fs_error,
    is_temp_name,
    iso_time,
    read_regular_file,
)
from search.workspace.ripgrep import list_files

IndexLookup = Callable[[Path, str], tuple[bool, bool] | None]
"""``(root, relpath) -> (indexed, fresh)``, or ``None`` when the index cannot say (no index yet)."""

EntryType = Literal["file", "dir", "symlink", "other"]


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
    walker = None if include_ignored else roots.walker(confined.root)
    prefix = "" if confined.relpath == "." else confined.relpath + "/"
    entries: list[DirEntry] = []
    ignored = 0
    stats: list[tuple[str, os.stat_result]] = []
    try:
        with dir_beneath(confined.root, confined.relpath) as dfd, os.scandir(dfd) as it:
            for entry in it:
                if is_temp_name(entry.name):
                    continue
                try:
                    stats.append((entry.name, os.stat(entry.name, dir_fd=dfd, follow_symlinks=False)))
                except OSError:
                    continue  # vanished while listing
    except NotADirectoryError as exc:
        raise WorkspaceError(f"{confined.relpath} is not a directory; read it with read_file.") from exc
    except OSError as exc:
        raise fs_error(confined.relpath, exc, "listed") from exc
    for name, st in stats:
        kind = _entry_type(st)
        rel = prefix + name
        if walker is not None and walker.is_ignored(rel, kind == "dir"):
            ignored += 1
            continue
        size = st.st_size if kind == "file" else None
        entries.append(DirEntry(name, rel, kind, size, iso_time(st.st_mtime)))
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
    try:
        st = lstat_beneath(confined.root, rel)
    except OSError as exc:
        raise fs_error(rel, exc, "examined") from exc
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
        modified=iso_time(st.st_mtime),
        changed=iso_time(st.st_ctime),
        accessed=iso_time(st.st_atime),
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
    try:
        is_dir = stat.S_ISDIR(lstat_beneath(confined.root, confined.relpath).st_mode)
    except OSError as exc:
        raise fs_error(confined.relpath, exc, "listed") from exc
    if not is_dir:
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
            st = lstat_beneath(confined.root, rel)
        except OSError:
            continue  # vanished, or a symlink swapped into its path
        found.append((st.st_mtime_ns, rel, st.st_size))
    found.sort(key=lambda f: (-f[0], f[1]))
    return GlobResult(
        pattern=pattern,
        root=str(confined.root),
        matches=[GlobMatch(rel, size, iso_time(ns / 1e9)) for ns, rel, size in found[:limit]],
        total=len(found),
        truncated=len(found) > limit,
    )

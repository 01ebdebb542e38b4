"""Workspace roots and the file walk.

The walk honours ``.gitignore`` semantics (nested files, negations, directory patterns), ``.ignore``
and ``.rgignore`` files (which override ``.gitignore`` in that order, as in ripgrep; none above the
root), ``.git/info/exclude`` and the configured include/exclude globs. It always skips ``.git`` (and ``.hg``, ``.svn``) and the index directory, skips
binary files and files over the size limit, and never follows a symlink (so it can neither leave the
root nor loop); ripgrep, which the text retriever runs, does the same by default. Everything skipped
is counted.

The walk holds a descriptor of each directory it enters and opens every child relative to it with
``O_NOFOLLOW`` (:mod:`indexer.beneath`): a directory swapped for a symlink mid-walk fails to open
(counted as a symlink) instead of leading the walk outside the root. Files are opened with
``O_NONBLOCK`` and ``fstat``-ed first, so a FIFO, socket or device is skipped without blocking; a file
that vanishes mid-walk is simply not part of the walk, and an unreadable one is counted.
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from indexer.beneath import SpecialFileError, dir_beneath, open_regular, read_fd, root_fd
from indexer.config import Settings
from indexer.ignore_spec import IgnoreSpec
from indexer.languages import detect_language
from models import WorkspaceError

ROOT_MARKERS = (
    "go.work", "go.mod", "package.json", "pyproject.toml", "Cargo.toml", "CMakeLists.txt", "buf.yaml", ".git",
)  # fmt: skip
ALWAYS_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".plait"})
# Per-directory ignore files, lowest precedence first (ripgrep's order); ripgrep is told to read no
# other (none above the root, no global git excludes) so that every retriever sees the same files.
IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")
TEMP_FILE_GLOB = ".plait-*.tmp"  # plait's atomic-write temp files, left behind only by a crash
BINARY_SNIFF_BYTES = 8192


def find_root(path: Path) -> Path:
    """The workspace root for ``path``: the nearest ancestor holding a marker.

    Markers are tried in priority order (``go.work`` first, ``.git`` last): the nearest ancestor
    with the highest-priority marker wins; with no marker anywhere, the directory itself.
    """
    start = path.expanduser()
    if not start.exists():
        raise WorkspaceError(f"{path} does not exist; pass an existing directory.")
    start = start.resolve()
    if start.is_file():
        start = start.parent
    ancestors = [start, *start.parents]
    for marker in ROOT_MARKERS:
        for directory in ancestors:
            if (directory / marker).exists():
                return directory
    return start


@dataclass(slots=True)
class WalkStats:
    files: int = 0
    skipped_ignored: int = 0
    skipped_binary: int = 0
    skipped_large: int = 0
    skipped_symlink: int = 0
    skipped_unreadable: int = 0
    skipped_special: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            "files": self.files,
            "skipped_ignored": self.skipped_ignored,
            "skipped_binary": self.skipped_binary,
            "skipped_large": self.skipped_large,
            "skipped_symlink": self.skipped_symlink,
            "skipped_unreadable": self.skipped_unreadable,
            "skipped_special": self.skipped_special,
        }


@dataclass(frozen=True, slots=True)
class WorkspaceFile:
    path: str  # relative, forward slashes
    abspath: Path
    size: int
    mtime_ns: int
    language: str | None


@dataclass(frozen=True, slots=True)
class ConfigGlobs:
    """The settings' ``include`` and ``exclude`` globs (gitignore-style), read one way by the walk and
    by a search over an index built under other globs."""

    include: IgnoreSpec | None
    exclude: IgnoreSpec | None

    @classmethod
    def of(cls, settings: Settings) -> ConfigGlobs:
        return cls(
            IgnoreSpec.from_lines(settings.include) if settings.include else None,
            IgnoreSpec.from_lines(settings.exclude) if settings.exclude else None,
        )

    def excludes(self, rel: str, is_dir: bool = False) -> bool:
        """``exclude`` names ``rel`` (a directory is matched as ``rel/``)."""
        return self.exclude is not None and self.exclude.match_file(rel + "/" if is_dir else rel)

    def includes(self, rel: str) -> bool:
        """The file ``rel`` is one ``include`` lets in (every file when there is no ``include``)."""
        return self.include is None or self.include.match_file(rel)

    def leaves_out(self, rel: str) -> bool:
        """The file ``rel`` is not one the settings index: excluded, or outside ``include``."""
        return self.excludes(rel) or not self.includes(rel)


@dataclass(frozen=True, slots=True)
class _Rules:
    """Ignore specs that apply inside one directory, outermost first."""

    specs: tuple[tuple[str, IgnoreSpec], ...]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        probe = rel + "/" if is_dir else rel
        for base, spec in self.specs:
            if base and not probe.startswith(base + "/"):
                continue
            local = probe[len(base) + 1 :] if base else probe
            result = spec.verdict(local)
            if result is not None:
                verdict = result
        return bool(verdict)


MAX_IGNORE_FILE_BYTES = 1 << 20


def _read_spec_at(dir_fd: int, name: str) -> IgnoreSpec | None:
    """The ignore file ``name`` of the directory ``dir_fd`` (not followed if a symlink, never a FIFO)."""
    try:
        fd, _ = open_regular(dir_fd, name)
    except OSError:
        return None
    try:
        data = read_fd(fd, MAX_IGNORE_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    lines = data.decode("utf-8", "replace").splitlines()
    return IgnoreSpec.from_lines(lines) if lines else None


def _open_child_dir(dir_fd: int, name: str) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


class Walker:
    """Iterates the indexable files of one workspace (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.root
        if not self.root.is_dir():
            raise WorkspaceError(f"{self.root} is not a directory; pass an existing workspace root.")
        base: list[tuple[str, IgnoreSpec]] = []
        spec = None
        try:
            with root_fd(self.root) as rfd:
                git = _open_child_dir(rfd, ".git")
                try:
                    info = _open_child_dir(git, "info")
                    try:
                        spec = _read_spec_at(info, "exclude")
                    finally:
                        os.close(info)
                finally:
                    os.close(git)
        except OSError:
            pass  # no .git/info (or a symlink there): no exclude file
        if spec is not None:
            base.append(("", spec))
        self._base = tuple(base)
        self._globs = ConfigGlobs.of(settings)
        self._skip_rel: str | None = None  # the index directory, when it lies inside the root
        self._skip_ids: set[tuple[int, int]] = set()
        if settings.index_is_local:
            index_dir = Path(settings.index_dir).resolve()
            if index_dir.is_relative_to(self.root) and index_dir != self.root:
                self._skip_rel = index_dir.relative_to(self.root).as_posix()
            with contextlib.suppress(OSError):
                st = os.stat(index_dir)
                self._skip_ids.add((st.st_dev, st.st_ino))
        self._spec_cache: dict[tuple[str, str], tuple[tuple[int, int, int], IgnoreSpec | None]] = {}

    def _dir_rules(self, parent: _Rules, dir_fd: int, rel: str) -> _Rules:
        added: list[tuple[str, IgnoreSpec]] = []
        for name in IGNORE_FILES:  # the later file takes precedence
            spec = self._cached_spec(dir_fd, rel, name)
            if spec is not None:
                added.append((rel, spec))
        return _Rules(parent.specs + tuple(added)) if added else parent

    def _cached_spec(self, dir_fd: int, rel: str, name: str) -> IgnoreSpec | None:
        """An ignore file, parsed again only when its inode, size or mtime changed."""
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            self._spec_cache.pop((rel, name), None)
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        key = (st.st_ino, st.st_size, st.st_mtime_ns)
        cached = self._spec_cache.get((rel, name))
        if cached is not None and cached[0] == key:
            return cached[1]
        spec = _read_spec_at(dir_fd, name)
        self._spec_cache[(rel, name)] = (key, spec)
        return spec

    def is_ignored(self, rel: str, is_dir: bool = False) -> bool:
        """Whether a workspace-relative path is ignored (checks every ancestor directory)."""
        parts = rel.split("/")
        if any(p in ALWAYS_SKIP_DIRS for p in parts[:-1]) or (is_dir and parts[-1] in ALWAYS_SKIP_DIRS):
            return True
        if self._skip_rel is not None and (rel == self._skip_rel or rel.startswith(self._skip_rel + "/")):
            return True
        rules = _Rules(self._base)
        prefix = ""
        try:
            directory = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            for i, part in enumerate(parts):
                rules = self._dir_rules(rules, directory, prefix)
                sub = f"{prefix}/{part}" if prefix else part
                last = i == len(parts) - 1
                if self._excluded(rules, sub, is_dir or not last):
                    return True
                if not last:
                    try:
                        child = _open_child_dir(directory, part)
                    except OSError:
                        break  # missing, or a symlink: no ignore files below to read
                    os.close(directory)
                    directory = child
                prefix = sub
        finally:
            os.close(directory)
        return not is_dir and not self._globs.includes(rel)

    def _excluded(self, rules: _Rules, rel: str, is_dir: bool) -> bool:
        if rules.ignored(rel, is_dir):
            return True
        return self._globs.excludes(rel, is_dir)

    def walk(self, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
        """Yield indexable files in a stable (sorted) order."""
        stats = stats if stats is not None else WalkStats()
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            stats.skipped_unreadable += 1
            stats.errors.append(f".: {exc.strerror or exc}")
            return
        try:
            yield from self._walk_dir(fd, "", self._dir_rules(_Rules(self._base), fd, ""), stats)
        finally:
            os.close(fd)

    def _walk_dir(self, dir_fd: int, rel: str, rules: _Rules, stats: WalkStats) -> Iterator[WorkspaceFile]:
        try:
            with os.scandir(dir_fd) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            stats.skipped_unreadable += 1
            stats.errors.append(f"{rel or '.'}: {exc.strerror or exc}")
            return
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            try:
                if entry.is_symlink():
                    stats.skipped_symlink += 1
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                stats.skipped_unreadable += 1
                continue
            if is_dir:
                if entry.name in ALWAYS_SKIP_DIRS or sub == self._skip_rel:
                    continue
                if self._excluded(rules, sub, True):
                    stats.skipped_ignored += 1
                    continue
                try:
                    child = _open_child_dir(dir_fd, entry.name)
                except FileNotFoundError:
                    continue  # vanished mid-walk
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                        stats.skipped_symlink += 1  # swapped for a symlink (or a file) since the listing
                    else:
                        stats.skipped_unreadable += 1
                        stats.errors.append(f"{sub}: {exc.strerror or exc}")
                    continue
                try:
                    st = os.fstat(child)
                    if (st.st_dev, st.st_ino) in self._skip_ids:
                        continue
                    yield from self._walk_dir(child, sub, self._dir_rules(rules, child, sub), stats)
                finally:
                    os.close(child)
                continue
            if (
                _is_plait_temp(entry.name)
                or self._excluded(rules, sub, False)
                or not self._globs.includes(sub)
            ):
                stats.skipped_ignored += 1
                continue
            found = self._check_file(dir_fd, entry.name, sub, stats)
            if found is not None:
                stats.files += 1
                yield found

    def single(self, rel: str, stats: WalkStats) -> WorkspaceFile | None:
        """The one file ``rel`` as :meth:`walk` would yield it, or ``None`` (ignored, gone, a symlink or
        a symlink in its path, special, binary, too large)."""
        if not rel or self.is_ignored(rel):
            return None
        parent, _, name = rel.rpartition("/")
        try:
            with dir_beneath(self.root, parent) as dir_fd:
                return self._check_file(dir_fd, name, rel, stats)
        except OSError:
            return None  # the directory is gone, or a symlink is in its path

    def _check_file(self, dir_fd: int, name: str, rel: str, stats: WalkStats) -> WorkspaceFile | None:
        try:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                if stat.S_ISLNK(st.st_mode):
                    stats.skipped_symlink += 1
                else:
                    stats.skipped_special += 1  # a FIFO, socket or device: never opened
                return None
            if st.st_size > self.settings.max_file_bytes:
                stats.skipped_large += 1
                return None
            fd, st = open_regular(dir_fd, name)
            try:
                head = read_fd(fd, BINARY_SNIFF_BYTES)
            finally:
                os.close(fd)
        except FileNotFoundError:
            return None  # vanished mid-scan: simply not part of this build
        except SpecialFileError:
            stats.skipped_special += 1  # turned into a FIFO or the like since the listing
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                stats.skipped_symlink += 1
                return None
            stats.skipped_unreadable += 1
            stats.errors.append(f"{rel}: {exc.strerror or exc}")
            return None
        if st.st_size > self.settings.max_file_bytes:
            stats.skipped_large += 1
            return None
        if is_binary(head):
            stats.skipped_binary += 1
            return None
        return WorkspaceFile(rel, self.root / rel, st.st_size, st.st_mtime_ns, detect_language(rel, head))


def _is_plait_temp(name: str) -> bool:
    """Temp files of plait's atomic writes (``.plait-*.tmp``), left behind only by a crash."""
    return fnmatch.fnmatchcase(name, TEMP_FILE_GLOB)


def is_binary(head: bytes) -> bool:
    """Binary if the first block holds a NUL byte (git's and ripgrep's heuristic)."""
    return b"\0" in head


def skips_content(path: str, size: int, max_bytes: int) -> bool:
    """Whether the walker leaves out the regular file at ``path`` (``size`` bytes) for what it holds:
    too large, binary, or unreadable."""
    if size > max_bytes:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return True
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return True  # a FIFO or the like: never read
        return is_binary(read_fd(fd, BINARY_SNIFF_BYTES))
    except OSError:
        return True
    finally:
        os.close(fd)


def iter_files(settings: Settings, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
    return Walker(settings).walk(stats)

"""Workspace roots and the file walk.

The walk honours ``.gitignore`` semantics (nested files, negations, directory patterns), ``.ignore``
files (which override ``.gitignore``, as in ripgrep), ``.git/info/exclude`` and the configured
include/exclude globs. It always skips ``.git`` and the index directory, skips binary files and files
over the size limit, and never follows a symlink (so it can neither leave the root nor loop);
ripgrep, which the text retriever runs, does the same by default. Everything skipped is counted.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from indexer.config import Settings
from indexer.languages import detect_language
from models.errors import WorkspaceError

ROOT_MARKERS = (
    "go.work", "go.mod", "package.json", "pyproject.toml", "Cargo.toml", "CMakeLists.txt", "buf.yaml", ".git",
)  # fmt: skip
ALWAYS_SKIP_DIRS = frozenset({".git", ".hg", ".svn", ".plait"})
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
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {
            "files": self.files,
            "skipped_ignored": self.skipped_ignored,
            "skipped_binary": self.skipped_binary,
            "skipped_large": self.skipped_large,
            "skipped_symlink": self.skipped_symlink,
            "skipped_unreadable": self.skipped_unreadable,
        }


@dataclass(frozen=True, slots=True)
class WorkspaceFile:
    path: str  # relative, forward slashes
    abspath: Path
    size: int
    mtime_ns: int
    language: str | None


@dataclass(frozen=True, slots=True)
class _Rules:
    """Ignore specs that apply inside one directory, outermost first."""

    specs: tuple[tuple[str, pathspec.GitIgnoreSpec], ...]

    def ignored(self, rel: str, is_dir: bool) -> bool:
        verdict: bool | None = None
        probe = rel + "/" if is_dir else rel
        for base, spec in self.specs:
            if base and not probe.startswith(base + "/"):
                continue
            local = probe[len(base) + 1 :] if base else probe
            result = spec.check_file(local)
            if result.include is not None:
                verdict = result.include
        return bool(verdict)


def _read_spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


class Walker:
    """Iterates the indexable files of one workspace (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.root
        if not self.root.is_dir():
            raise WorkspaceError(f"{self.root} is not a directory; pass an existing workspace root.")
        base: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        exclude_file = self.root / ".git" / "info" / "exclude"
        spec = _read_spec(exclude_file) if exclude_file.is_file() else None
        if spec is not None:
            base.append(("", spec))
        self._base = tuple(base)
        self._config_exclude = (
            pathspec.GitIgnoreSpec.from_lines(settings.exclude) if settings.exclude else None
        )
        self._include = pathspec.GitIgnoreSpec.from_lines(settings.include) if settings.include else None
        self._skip_real: set[Path] = set()
        if settings.index_is_local:
            self._skip_real.add(Path(settings.index_dir).resolve())

    def _dir_rules(self, parent: _Rules, directory: Path, rel: str) -> _Rules:
        added: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        for name in (".gitignore", ".ignore"):  # .ignore after .gitignore: it takes precedence
            spec = _read_spec(directory / name) if (directory / name).is_file() else None
            if spec is not None:
                added.append((rel, spec))
        return _Rules(parent.specs + tuple(added)) if added else parent

    def is_ignored(self, rel: str, is_dir: bool = False) -> bool:
        """Whether a workspace-relative path is ignored (checks every ancestor directory)."""
        parts = rel.split("/")
        if any(p in ALWAYS_SKIP_DIRS for p in parts[:-1]) or (is_dir and parts[-1] in ALWAYS_SKIP_DIRS):
            return True
        if self._skip_real and any(
            (self.root / rel).resolve() == d or d in (self.root / rel).resolve().parents
            for d in self._skip_real
        ):
            return True
        rules = _Rules(self._base)
        directory = self.root
        prefix = ""
        for i, part in enumerate(parts):
            rules = self._dir_rules(rules, directory, prefix)
            sub = f"{prefix}/{part}" if prefix else part
            last = i == len(parts) - 1
            if self._excluded(rules, sub, is_dir or not last):
                return True
            directory = directory / part
            prefix = sub
        return self._include is not None and not is_dir and not self._include.match_file(rel)

    def _excluded(self, rules: _Rules, rel: str, is_dir: bool) -> bool:
        if rules.ignored(rel, is_dir):
            return True
        return self._config_exclude is not None and self._config_exclude.match_file(
            rel + "/" if is_dir else rel
        )

    def walk(self, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
        """Yield indexable files in a stable (sorted) order."""
        stats = stats if stats is not None else WalkStats()
        yield from self._walk_dir(self.root, "", self._dir_rules(_Rules(self._base), self.root, ""), stats)

    def _walk_dir(
        self, directory: Path, rel: str, rules: _Rules, stats: WalkStats
    ) -> Iterator[WorkspaceFile]:
        try:
            with os.scandir(directory) as it:
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
                if entry.name in ALWAYS_SKIP_DIRS or Path(entry.path).resolve() in self._skip_real:
                    continue
                if self._excluded(rules, sub, True):
                    stats.skipped_ignored += 1
                    continue
                child = Path(entry.path)
                yield from self._walk_dir(child, sub, self._dir_rules(rules, child, sub), stats)
                continue
            if (
                _is_plait_temp(entry.name)
                or self._excluded(rules, sub, False)
                or (self._include is not None and not self._include.match_file(sub))
            ):
                stats.skipped_ignored += 1
                continue
            found = self._check_file(Path(entry.path), sub, stats)
            if found is not None:
                stats.files += 1
                yield found

    def _check_file(self, path: Path, rel: str, stats: WalkStats) -> WorkspaceFile | None:
        try:
            st = path.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                return None
            if st.st_size > self.settings.max_file_bytes:
                stats.skipped_large += 1
                return None
            with path.open("rb") as fh:
                head = fh.read(BINARY_SNIFF_BYTES)
        except FileNotFoundError:
            return None  # vanished mid-scan: simply not part of this build
        except OSError as exc:
            stats.skipped_unreadable += 1
            stats.errors.append(f"{rel}: {exc.strerror or exc}")
            return None
        if is_binary(head):
            stats.skipped_binary += 1
            return None
        return WorkspaceFile(rel, path, st.st_size, st.st_mtime_ns, detect_language(rel, head))


def _is_plait_temp(name: str) -> bool:
    """Temp files of plait's atomic writes (``.plait-*.tmp``), left behind only by a crash."""
    return name.startswith(".plait-") and name.endswith(".tmp")


def is_binary(head: bytes) -> bool:
    """Binary if the first block holds a NUL byte (git's and ripgrep's heuristic)."""
    return b"\0" in head


def skips_content(path: str, size: int, max_bytes: int) -> bool:
    """Whether the walker leaves out the regular file at ``path`` (``size`` bytes) for what it holds:
    too large, binary, or unreadable."""
    if size > max_bytes:
        return True
    try:
        with open(path, "rb") as fh:
            return is_binary(fh.read(BINARY_SNIFF_BYTES))
    except OSError:
        return True


def iter_files(settings: Settings, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
    return Walker(settings).walk(stats)

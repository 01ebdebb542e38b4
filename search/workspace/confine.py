"""Path confinement: every path a tool receives is resolved against the workspace roots or refused.

:class:`Roots` holds one or more resolved workspace roots. :meth:`Roots.resolve` turns a path argument
into ``(root, abspath, relpath)`` where ``abspath`` has every symlink resolved and lies inside ``root``.
Relative paths are relative to the first root; an absolute path selects the root that contains it.

Refused, each with a message naming the fix: NUL bytes, backslashes and Windows drive prefixes
(:class:`InvalidPathError`: paths are POSIX-style), components over 255 bytes and paths over 4096 bytes,
symlink loops, and anything whose *resolved* location is outside every root — ``..`` escapes, absolute
paths elsewhere, a symlink (file or any parent directory, dangling or not) pointing out
(:class:`PathOutsideRootError`). A symlink that points inside a root is accepted: the path is
resolved to its target first.

The name check alone would race (a directory swapped for a symlink between the check and the open), so
no tool opens ``abspath`` by name: every read, write, mkdir, temp file and rename goes through
:mod:`indexer.beneath` with the root and ``relpath`` — resolved from a descriptor of the root,
refusing any symlink on the way (``openat2`` with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``, or an
``O_NOFOLLOW`` walk) — and ripgrep runs confined to the root by Landlock (:mod:`indexer.sandbox`).

``Roots`` also hands out each root's :class:`Settings` (given, or loaded lazily from its
``plait.toml``) and a cached :class:`Walker` for ignore rules.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from indexer import Settings, Walker, kind_of, load_settings, lstat_beneath
from models import PathOutsideRootError, WorkspaceError
from search.errors import InvalidPathError, PathNotFoundError

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
_DRIVE = re.compile(r"^[A-Za-z]:")


class Confined(NamedTuple):
    """A path inside a workspace root: the root, the resolved absolute path, and the path relative
    to the root (forward slashes; ``"."`` for the root itself)."""

    root: Path
    abspath: Path
    relpath: str


class Roots:
    """The workspace roots that confine every file tool (see the module docstring)."""

    def __init__(self, roots: Sequence[Path | str], settings: Sequence[Settings] = ()) -> None:
        """Resolve ``roots`` (each must be an existing directory; raises :class:`WorkspaceError`).

        ``settings`` may give the resolved settings of some roots; the others are loaded on first use.
        """
        if not roots:
            raise WorkspaceError("no workspace root was given; pass at least one directory.")
        resolved: list[Path] = []
        for raw in roots:
            path = Path(raw).expanduser()
            if not path.is_dir():
                raise WorkspaceError(f"{raw} is not a directory; pass an existing workspace root.")
            real = path.resolve()
            if real not in resolved:
                resolved.append(real)
        self.paths: tuple[Path, ...] = tuple(resolved)
        self._settings: dict[Path, Settings] = {s.root.resolve(): s for s in settings}
        self._walkers: dict[Path, Walker] = {}

    @classmethod
    def from_settings(cls, settings: Sequence[Settings]) -> Roots:
        return cls([s.root for s in settings], settings)

    @property
    def primary(self) -> Path:
        return self.paths[0]

    def settings(self, root: Path) -> Settings:
        """The settings of ``root`` (one of :attr:`paths`); raises ConfigError on a bad plait.toml."""
        found = self._settings.get(root)
        if found is None:
            found = load_settings(root)
            self._settings[root] = found
        return found

    def walker(self, root: Path) -> Walker:
        """A cached :class:`Walker` (ignore rules) for ``root``."""
        found = self._walkers.get(root)
        if found is None:
            found = Walker(self.settings(root))
            self._walkers[root] = found
        return found

    def root_of(self, abspath: Path) -> Path | None:
        """The first root containing the already resolved ``abspath``, else ``None``."""
        for root in self.paths:
            if abspath == root or abspath.is_relative_to(root):
                return root
        return None

    def resolve(self, path_arg: str, *, must_exist: bool = True) -> Confined:
        """Confine ``path_arg`` to the roots (see the module docstring).

        Raises :class:`InvalidPathError`, :class:`PathOutsideRootError`, and, with ``must_exist``,
        :class:`PathNotFoundError`.
        """
        check_path_syntax(path_arg)
        arg = path_arg or "."
        candidate = Path(arg) if os.path.isabs(arg) else self.primary / arg
        try:
            real = Path(os.path.realpath(candidate))
        except (OSError, ValueError) as exc:
            raise InvalidPathError(f"{path_arg!r} cannot be resolved ({exc}); pass a plain path.") from exc
        root = self.root_of(real)
        if root is None:
            raise PathOutsideRootError(path_arg, self.paths)
        if os.path.islink(real):  # realpath leaves a looping link unresolved
            raise InvalidPathError(f"{path_arg!r} is a symlink loop; pass the path of a real file.")
        if must_exist and not os.path.exists(real):
            raise PathNotFoundError(path_arg)
        rel = real.relative_to(root).as_posix()
        return Confined(root, real, rel)


def target_kind(confined: Confined) -> Literal["file", "dir"]:
    """Whether a confined path is a regular file or a directory, looked at without following a symlink
    (from a descriptor of its root). A FIFO, socket or device — which ripgrep, handed it by name, would
    block on — and a symlink swapped into the path raise :class:`WorkspaceError`."""
    try:
        st = lstat_beneath(confined.root, confined.relpath)
    except FileNotFoundError as exc:
        raise PathNotFoundError(confined.relpath) from exc
    except OSError as exc:
        raise WorkspaceError(
            f"{confined.relpath} cannot be searched: {exc.strerror or exc} (a symlink in its path is "
            "never followed); pass the path of the real file or directory."
        ) from exc
    if stat.S_ISDIR(st.st_mode):
        return "dir"
    if stat.S_ISREG(st.st_mode):
        return "file"
    raise WorkspaceError(
        f"{confined.relpath} is a {kind_of(st.st_mode)}, not a regular file; plait never opens one."
    )


def check_path_syntax(path_arg: str) -> None:
    """Refuse a malformed path argument before touching the file system (raises InvalidPathError)."""
    if not isinstance(path_arg, str):
        raise InvalidPathError(f"a path must be a string, got {type(path_arg).__name__}.")
    if "\0" in path_arg:
        raise InvalidPathError("the path contains a NUL byte; pass a plain path.")
    if "\\" in path_arg or _DRIVE.match(path_arg):
        raise InvalidPathError(
            f"{path_arg!r} looks like a Windows path; use forward slashes and a path relative to "
            "the workspace root (for example src/app.py)."
        )
    try:
        encoded = os.fsencode(path_arg)
    except UnicodeError as exc:
        raise InvalidPathError(f"{path_arg!r} cannot be encoded as a file name ({exc}).") from exc
    if len(encoded) > MAX_PATH_BYTES:
        raise InvalidPathError(
            f"the path is {len(encoded)} bytes, over the {MAX_PATH_BYTES}-byte limit; pass a shorter path."
        )
    for part in encoded.split(b"/"):
        if len(part) > MAX_NAME_BYTES:
            raise InvalidPathError(
                f"a path component is {len(part)} bytes, over the {MAX_NAME_BYTES}-byte limit "
                "for a file name; use a shorter name."
            )

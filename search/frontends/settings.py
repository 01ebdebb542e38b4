"""Settings resolution for every front end: which roots a command works on and their ``Settings``.

Precedence is flags > environment > ``plait.toml`` (``indexer.load_settings``); the common flags
(``--index-dir``, ``--model``, ``--device``, ``--exclude``) become overrides here, once, for the
command line and the MCP server alike. ``indexer`` is imported inside the functions so that a
command that never resolves settings (``--version``, ``--help``) does not load it.

:func:`index_location` is the warm path's shortcut: where ``command_settings`` would put the index, in
the common cases, without importing ``indexer`` (its configuration code, the workspace walker and
pathspec, platformdirs and TOML cost a search that a running server answers ~40 ms). It answers
``None`` whenever it cannot be sure, and it never decides anything else: the server that answers the
search resolves the settings with ``indexer.load_settings`` itself (:mod:`search.frontends.endpoint`).
"""

from __future__ import annotations

import os
import posixpath
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from indexer import Settings


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings overrides given by the common flags (``--index-dir``, ``--model``, ``--device``,
    ``--exclude``) of any sub-command."""
    overrides: dict[str, Any] = {}
    if getattr(args, "index_dir", None):
        overrides["index_dir"] = args.index_dir
    if getattr(args, "model", None):
        overrides["model_name"] = args.model
    if getattr(args, "device", None):
        overrides["model_device"] = args.device
    if getattr(args, "exclude", None):
        overrides["exclude"] = list(args.exclude)
    return overrides


def command_settings(
    root_arg: str | None,
    args: argparse.Namespace,
    *,
    detect: bool = True,
    env: Mapping[str, str] = os.environ,
) -> Settings:
    """The settings of the one root a command works on: ``root_arg`` as given, or (``detect``) the
    workspace around the current directory."""
    from indexer import load_settings
    from models import PlaitError

    start = Path(root_arg or ".")
    if not start.exists():
        raise PlaitError(f"{start} does not exist; pass an existing directory as the root.")
    if detect and root_arg is None:
        from indexer import find_root  # the workspace walker's module: imported only to find the root

        root = find_root(start)
    else:
        root = start.resolve()
    return load_settings(root, env=env, overrides=flag_overrides(args))


def root_settings(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> list[Settings]:
    """The settings of every root the server serves: each ``--root`` (default: the workspace around
    the current directory), then ``[server] workspaces`` of the first root's ``plait.toml``."""
    from indexer import find_root, load_settings
    from models import ConfigError, PlaitError

    overrides = flag_overrides(args)
    raw_roots: Sequence[str] = args.root or []
    paths = [Path(r) for r in raw_roots] if raw_roots else [find_root(Path("."))]
    for path in paths:
        if not path.is_dir():
            raise PlaitError(f"{path} is not a directory; pass an existing workspace root with --root.")
    roots = list(dict.fromkeys(p.resolve() for p in paths))
    roots += [r for r in configured_workspaces(roots[0]) if r not in roots]
    shared = overrides.get("index_dir") or env.get("PLAIT_INDEX_DIR")
    if shared and len(roots) > 1:
        # --index-dir and PLAIT_INDEX_DIR name the index of one workspace, everywhere (indexer.config)
        raise ConfigError(
            f"--index-dir / PLAIT_INDEX_DIR ({shared}) names the index of one workspace, and "
            f"{len(roots)} roots were given; unset it (each root's index then lives in plait's cache "
            "directory) or serve each root with its own --index-dir."
        )
    return [load_settings(root, env=env, overrides=overrides) for root in roots]


def configured_workspaces(root: Path) -> list[Path]:
    """More roots to serve from ``[server] workspaces = [...]`` in the first root's ``plait.toml``
    (paths relative to that root, or absolute); each must be an existing directory."""
    import tomllib

    from models import ConfigError

    config = root / "plait.toml"
    if not config.is_file():
        return []
    try:
        table = tomllib.loads(config.read_text(encoding="utf-8")).get("server", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []  # load_settings reports a broken plait.toml with its own message
    value = table.get("workspaces", []) if isinstance(table, dict) else []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[server] workspaces in {config} must be a list of paths, got {value!r}.")
    found = []
    for entry in value:
        path = (root / Path(entry).expanduser()).resolve()
        if not path.is_dir():
            raise ConfigError(
                f"[server] workspaces in {config} names {entry!r}, which is not a directory; "
                "fix the path or remove it."
            )
        found.append(path)
    return found


# -- the warm path's shortcut ------------------------------------------------------------------------
# indexer.workspace.ROOT_MARKERS, in its priority order (a test compares the two).
ROOT_MARKERS = (
    "go.work", "go.mod", "package.json", "pyproject.toml", "Cargo.toml", "CMakeLists.txt", "buf.yaml", ".git",
)  # fmt: skip
CONFIG_FILES = ("plait.toml", "pyproject.toml")  # indexer.config.read_project_config's order
MAX_CONFIG_BYTES = 4 << 20


def index_location(
    root_arg: str | None, args: argparse.Namespace, env: Mapping[str, str] = os.environ
) -> tuple[Path, str] | None:
    """The root and index location that :func:`command_settings` would give, or ``None`` when this
    shortcut cannot tell for sure (then resolve the settings in full).

    It handles the usual cases: the root given or found by its markers, and the index location given
    by ``--index-dir`` or ``PLAIT_INDEX_DIR``, or the default one in plait's cache directory when
    neither ``plait.toml`` nor ``pyproject.toml`` mentions ``index_dir``. Anything else (a config that
    names ``index_dir``, a config file that is a link or not a regular file, a platform or environment
    where platformdirs would decide the cache directory by rules not repeated here) is ``None``.
    """
    start = Path(root_arg or ".")
    try:
        if not start.exists():
            return None  # command_settings says so, with its message
        root = _find_root(start) if root_arg is None else start.resolve()
    except (OSError, RuntimeError):
        return None
    given = flag_overrides(args).get("index_dir") or env.get("PLAIT_INDEX_DIR")
    if given:
        return root, str(given)
    if _config_may_name_index_dir(root):
        return None
    cache = _cache_dir(env)
    if cache is None:
        return None
    return root, str(Path(cache) / f"{root.name}-{_sha256_hex(str(root).encode())[:16]}")


def _find_root(path: Path) -> Path:
    """``indexer.find_root``: the nearest ancestor with the highest-priority marker, else ``path``."""
    start = path.expanduser().resolve()
    if start.is_file():
        start = start.parent
    ancestors = [start, *start.parents]
    for marker in ROOT_MARKERS:
        for directory in ancestors:
            if (directory / marker).exists():
                return directory
    return start


def _config_may_name_index_dir(root: Path) -> bool:
    """Whether the project configuration that ``indexer.config.read_project_config`` would read could
    set ``index_dir`` (a key of that name appears in it), or cannot be judged here (a link, a special
    file, too big, unreadable): then the full resolution decides."""
    for name in CONFIG_FILES:
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CONFIG_BYTES:
            return True
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return True
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return True
            data = os.read(fd, MAX_CONFIG_BYTES + 1)
        except OSError:
            return True
        finally:
            os.close(fd)
        return b"index_dir" in data  # the first regular file is the configuration; the next is not read
    return False


def _cache_dir(env: Mapping[str, str]) -> str | None:
    """``indexer.config.cache_dir()`` (platformdirs' user cache directory for ``plait``) on Linux, where
    it is ``$XDG_CACHE_HOME/plait`` for an absolute ``XDG_CACHE_HOME``, else ``$HOME/.cache/plait``;
    ``None`` elsewhere and for an unusual environment (relative or padded variables, no ``HOME``)."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel") or env.get("ANDROID_DATA"):
        return None
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg:
        return os.path.join(xdg, "plait") if posixpath.isabs(xdg) and xdg == xdg.strip() else None
    home = env.get("HOME", "")
    if not posixpath.isabs(home) or home != home.strip():
        return None
    return os.path.join(home.rstrip("/") or "/", ".cache", "plait")


def _sha256_hex(data: bytes) -> str:
    """SHA-256 without importing ``hashlib``, whose OpenSSL binding alone takes ~5 ms to load."""
    try:
        from _sha256 import sha256  # CPython's built-in implementation (3.11)
    except ImportError:  # pragma: no cover - other interpreters and versions
        from hashlib import sha256
    return str(sha256(data).hexdigest())

"""Settings resolution for every front end: which roots a command works on and their ``Settings``.

Precedence is flags > environment > ``plait.toml`` (``indexer.load_settings``); the common flags
(``--index-dir``, ``--model``, ``--device``, ``--exclude``) become overrides here, once, for the
command line and the MCP server alike. ``indexer`` is imported inside the functions so that a
command that never resolves settings (``--version``, ``--help``) does not load it.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.errors import ConfigError, PlaitError

if TYPE_CHECKING:
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
    from indexer import find_root, load_settings

    start = Path(root_arg or ".")
    if not start.exists():
        raise PlaitError(f"{start} does not exist; pass an existing directory as the root.")
    root = find_root(start) if detect and root_arg is None else start.resolve()
    return load_settings(root, env=env, overrides=flag_overrides(args))


def root_settings(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> list[Settings]:
    """The settings of every root the server serves: each ``--root`` (default: the workspace around
    the current directory), then ``[server] workspaces`` of the first root's ``plait.toml``."""
    from indexer import find_root, load_settings

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

"""Checks shared by every tool that selects files: ignore rules no user glob turns off, and languages.

ripgrep treats a positive ``--glob`` as an override that wins over ``.gitignore``; plait puts its own
exclusions (``.git``, ``.hg``, ``.svn``, the index, configured excludes) after every user glob so they
win, and checks the paths a run matched against the ignore rules (:func:`not_ignored`) whenever a
positive glob was given, unless the caller explicitly asked for ignored files (``include_ignored``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from indexer.config import Settings
from indexer.languages import EXTENSIONS, FILENAMES
from indexer.workspace import Walker
from search.errors import QueryError

_walkers: dict[tuple[object, ...], Walker] = {}
_lock = threading.Lock()


def _walker(settings: Settings) -> Walker:
    key = (settings.root, settings.include, settings.exclude, settings.index_dir)
    with _lock:
        walker = _walkers.get(key)
        if walker is None:
            walker = _walkers[key] = Walker(settings)
        return walker


def not_ignored(settings: Settings) -> Callable[[str], bool]:
    """A predicate: is this root-relative path outside every ignore rule (answers memoised per call)?"""
    walker = _walker(settings)
    seen: dict[str, bool] = {}

    def keep(path: str) -> bool:
        found = seen.get(path)
        if found is None:
            found = seen[path] = not walker.is_ignored(path.removeprefix("./"))
        return found

    return keep


def known_languages() -> list[str]:
    return sorted(set(EXTENSIONS.values()) | set(FILENAMES.values()))


def check_language(language: str | None) -> str | None:
    """``language`` if plait knows it (``None`` passes); else :class:`QueryError` listing the known ones."""
    if language is None or language in known_languages():
        return language
    raise QueryError(f"unknown language {language!r}; use one of: {', '.join(known_languages())}.")

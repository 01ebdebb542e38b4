"""The one ignore engine's answers for single paths, and language names.

What is in the workspace is decided by the indexer's walker (:class:`indexer.workspace.Walker`: the
ignore files :data:`indexer.workspace.IGNORE_FILES`, the skipped directories, the configured globs);
the ripgrep gateway (:mod:`search.workspace.ripgrep`) turns the same rules into ripgrep flags. ripgrep
treats a positive ``--glob`` as an override that wins over the ignore files, so the gateway checks the
paths such a run matched with :func:`not_ignored`, unless the caller explicitly asked for ignored files
(``include_ignored``); the changed scope, whose files ripgrep is given by name, is filtered with it too.
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

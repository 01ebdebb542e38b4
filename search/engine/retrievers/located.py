"""The places a query names: a stack trace's frames, a compiler's or a linter's message.

``tornado/web.py:3413``, ``File "/srv/app/tornado/web.py", line 3413, in render`` or ``at Command.parse
(lib/command.js:847:12)`` name a line of a file, often by a path from another machine (a server's, a
CI runner's, a colleague's checkout). :func:`resolve` finds the workspace's file it means: among the
indexed (or changed) files with that file name, the one whose path ends with the most of the named
path's folders, when only one does (``Bar.java`` in two packages names neither); the files are those a
search reads (the listing, empty and unindexed files included). The text retriever
(:mod:`search.engine.retrievers.text`) makes the chunk that holds each named line a place of the query,
before any place that holds its text (the ranking's phrase rule, :mod:`search.engine.ranking`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

_SEPARATORS = re.compile(r"[/\\]+")


def resolve(named: str, files_named: Callable[[str], Iterable[str]]) -> str | None:
    """The workspace-relative path of the one file ``named`` (a path as a trace prints it, absolute,
    relative or a bare file name, ``/`` or ``\\`` separated) stands for, given ``files_named`` (file
    name → the workspace's files of that name): the longest file whose whole path ends ``named``
    (``/srv/app/shop/cart.py`` → ``shop/cart.py``; ``__init__.py`` → the root's), else the one file
    whose path ends with more of ``named``'s folders than any other; ``None`` when none or several match
    as well (``cart.py`` with ``shop/cart.py`` and ``admin/cart.py``)."""
    parts = [p for p in _SEPARATORS.split(named) if p and p != "."]
    if not parts:
        return None
    best: str | None = None
    best_key = (0, 0)
    tie = False
    for path in files_named(parts[-1]):
        own = path.split("/")
        depth = _common_tail(parts, own)
        key = (int(depth == len(own)), depth)  # its whole path ends the named one; how much of it does
        if key > best_key:
            best, best_key, tie = path, key, False
        elif key == best_key:
            tie = True
    return None if tie else best


def _common_tail(a: list[str], b: list[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


@lru_cache(maxsize=4)
def files_by_name(files: frozenset[str]) -> dict[str, list[str]]:
    """``files`` (workspace-relative paths) by file name, sorted; kept for the last few listings (a
    warm server's listing is one object from search to search)."""
    out: dict[str, list[str]] = {}
    for path in sorted(files):
        out.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return out

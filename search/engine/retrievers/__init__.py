"""The three retrievers behind one small protocol, listed explicitly in
:func:`search.engine.engine.retrievers_for`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from search.engine.query import AnalysedQuery
from search.types import Hit


@dataclass(frozen=True, slots=True)
class ResolvedScope:
    """A scope resolved against one root: ``paths`` (files, or a directory) to search, plus filters."""

    kind: str  # ws | changed | dir | file
    path: str | None  # workspace-relative directory or file for dir/file scopes
    paths: tuple[str, ...] | None  # explicit file list (changed scope)
    globs: tuple[str, ...]
    language: str | None

    @property
    def targets(self) -> tuple[str, ...]:
        """What ripgrep is given to search: the explicit files, else the directory or file, else the root."""
        if self.paths is not None:
            return self.paths
        return (self.path,) if self.path else (".",)

    def allows(self, path: str) -> bool:
        if self.paths is not None and path not in self.paths:
            return False
        if self.kind == "file":
            return path == self.path
        if self.kind == "dir" and self.path:
            return path.startswith(self.path.rstrip("/") + "/")
        return True


class Retriever(Protocol):
    """One way of finding code. ``search`` returns at most ``limit`` hits, best first, each mapped to a
    chunk-sized span and carrying the retriever's native score; it raises
    :class:`search.errors.QueryError` for input it cannot search and
    :class:`models.errors.PlaitError` when its store is unavailable (the engine reports the latter
    as degraded and lets the other retrievers answer)."""

    name: str

    def search(self, query: AnalysedQuery, scope: ResolvedScope, *, limit: int) -> Sequence[Hit]: ...

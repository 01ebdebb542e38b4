"""The roots a server serves: each root's settings and engine, and the short names results carry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from indexer import Index, Settings
from search.engine.engine import Engine


@dataclass
class Workspace:
    """One root: its settings and its engine (whose index every tool shares)."""

    settings: Settings
    engine: Engine

    @property
    def root(self) -> Path:
        return self.settings.root

    @property
    def index(self) -> Index:
        return self.engine.index


def repo_names(roots: Sequence[Path]) -> dict[Path, str]:
    """A short, unique name per root: its directory name, with parent directories added while two
    roots would share one (``a/app`` and ``b/app``)."""
    depth = 1
    while True:
        names = {r: "/".join(r.parts[-depth:]) or str(r) for r in roots}
        if len(set(names.values())) == len(names) or depth >= max((len(r.parts) for r in roots), default=1):
            return names
        depth += 1

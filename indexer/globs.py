"""ripgrep-style ``--glob`` filters for workspace-relative paths (only ``pathspec``: cheap to import)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pathspec


def glob_matcher(globs: Sequence[str]) -> Callable[[str], bool] | None:
    """A predicate for workspace-relative paths; ``!pattern`` excludes (ripgrep's ``--glob`` style)."""
    if not globs:
        return None
    includes = [g for g in globs if not g.startswith("!")]
    excludes = [g[1:] for g in globs if g.startswith("!")]
    inc = pathspec.GitIgnoreSpec.from_lines(includes) if includes else None
    exc = pathspec.GitIgnoreSpec.from_lines(excludes) if excludes else None

    def ok(path: str) -> bool:
        if exc is not None and exc.match_file(path):
            return False
        return inc is None or inc.match_file(path)

    return ok

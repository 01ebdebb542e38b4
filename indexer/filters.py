"""Path filters shared by the index's readers: ripgrep-style globs, a path prefix, and its SQL clause."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pathspec

PathOk = Callable[[str], bool]


def glob_matcher(globs: Sequence[str]) -> PathOk | None:
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


def under(prefix: str) -> PathOk:
    """Paths equal to ``prefix`` (a file) or beneath it (a directory); a trailing ``/`` is ignored."""
    prefix = prefix.rstrip("/")
    return lambda p: p == prefix or p.startswith(prefix + "/")


def path_filter(globs: Sequence[str], path_prefix: str | None) -> PathOk | None:
    """One predicate for ``globs`` and ``path_prefix`` together; ``None`` when neither filters."""
    glob_ok = glob_matcher(globs)
    return both(glob_ok, under(path_prefix)) if path_prefix else glob_ok


def both(a: PathOk | None, b: PathOk) -> PathOk:
    """``b``, and ``a`` too when there is one."""
    return b if a is None else (lambda p: a(p) and b(p))


def path_prefix_sql(prefix: str) -> str:
    """A LanceDB filter for ``path`` equal to ``prefix`` or under it (LIKE wildcards escaped)."""
    from indexer.store import sql_str  # here: glob_matcher's users (a text search) need no pyarrow

    prefix = prefix.rstrip("/")
    like = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"(path = {sql_str(prefix)} OR path LIKE {sql_str(like + '/%')} ESCAPE '\\')"

"""A :class:`~search.types.Scope` resolved against one workspace root, for every caller alike.

The engine (search, the CLI, the remote endpoint), the MCP tools and the guard parse a scope once with
:func:`parse_scope` and resolve it with :func:`resolve_scope`; the result's :meth:`ResolvedScope.allows` is the one
containment predicate. A ``dir:``/``file:`` path is confined like every tool path
(:meth:`search.workspace.confine.Roots.resolve`: no escape through ``..``, an absolute path or a
symlink) and then looked at again from a descriptor of the root without following symlinks, so that
neither a FIFO (which would block ripgrep) nor a symlink swapped in since the check gets through.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexer import Settings, git_status, glob_matcher, is_regular_beneath, lstat_kind
from search.errors import QueryError
from search.types import ResolvedScope, Scope
from search.workspace.confine import Roots
from search.workspace.ignores import check_language, not_ignored
from search.workspace.ripgrep import language_of


def parse_scope(
    text: str | None, globs: Sequence[str] = (), language: str | None = None, *, what: str = "scope"
) -> Scope:
    """The one parser of the scope grammar: ``ws`` | ``changed`` | ``dir:P`` | ``file:P`` (blank is
    ``ws``) → :class:`Scope`. Anything else, or an unknown ``language``, raises :class:`QueryError`
    (``what`` names the argument in the message)."""
    check_language(language)
    text = (text or "ws").strip() or "ws"
    kind, sep, path = text.partition(":")
    if not sep and kind in ("ws", "changed"):
        return Scope(kind, None, tuple(globs), language)  # type: ignore[arg-type]
    if sep and kind in ("dir", "file") and path:
        return Scope(kind, path, tuple(globs), language)  # type: ignore[arg-type]
    raise QueryError(f"unknown {what} {text!r}; use ws, changed, dir:PATH or file:PATH.")


def resolve_scope(settings: Settings, scope: Scope) -> ResolvedScope:
    """``scope`` against the root of ``settings``.

    Raises :class:`QueryError` for an unknown language, a path that does not exist or is not of the
    scope's kind, and ``changed`` outside a git work tree; ``PathOutsideRootError`` and
    ``InvalidPathError`` for a path that leaves the root or is malformed.
    """
    check_language(scope.language)
    root = settings.root
    if scope.kind == "changed":
        status = git_status(root)
        if status is None:
            raise QueryError(
                f"scope 'changed' needs a git work tree, and {root} is not in one; use ws, dir:PATH or file:PATH."
            )
        # Regular files reached without a symlink (an untracked link to a secret is not a file here),
        # and in the workspace: git knows .gitignore, not .ignore, .rgignore or the configured globs.
        # ripgrep applies no glob nor file type to files it is given by name: they are applied here.
        keep, glob_ok = not_ignored(settings), glob_matcher(scope.globs)
        paths = tuple(
            sorted(
                p
                for p in status.changed
                if keep(p)
                and (glob_ok is None or glob_ok(p))
                and (scope.language is None or language_of(root, p) == scope.language)
                and is_regular_beneath(root, p)
            )
        )
        return ResolvedScope("changed", None, paths, scope.globs, scope.language)
    if scope.kind == "ws" or scope.path is None:
        return ResolvedScope("ws", None, None, scope.globs, scope.language)
    confined = Roots([root], [settings]).resolve(scope.path, must_exist=False)
    if not confined.abspath.exists():
        raise QueryError(f"{scope.kind}:{scope.path} does not exist under {root}; check the path.")
    found = lstat_kind(root, confined.relpath)
    if scope.kind == "file" and found != "file":
        raise QueryError(f"file:{scope.path} is a {found}, not a regular file; use dir: for a directory.")
    if scope.kind == "dir" and found != "directory":
        raise QueryError(f"dir:{scope.path} is a {found}, not a directory; use file: for a file.")
    if confined.relpath == ".":
        return ResolvedScope("ws", None, None, scope.globs, scope.language)
    return ResolvedScope(scope.kind, confined.relpath, None, scope.globs, scope.language)

"""Gitignore-style pattern lists that rule out most paths in one regular-expression match.

pathspec's :class:`~pathspec.GitIgnoreSpec` tries a path against each of its patterns in turn, a
Python call each; the walk asks that of every file and directory for every ignore file above it. The
Linux tree's 305 ``.gitignore`` files hold 1,437 patterns: 8 million pattern calls for one walk,
5.7 of its 12 seconds with the files in the page cache (BENCHMARKS §9). Most paths match no pattern
at all, and then the verdict is "no verdict" whatever the patterns' order and negations. So the
patterns of one list are also joined into one expression that says in a single match whether any of
them matches: where none does, that is the answer; where one does, the patterns are asked in turn as
before (their order, negations and directory marks decide). The verdicts are pathspec's, path for path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pathspec
from pathspec.util import normalize_file

_DIR_GROUP = "(?P<ps_d>"  # pathspec's named group that marks a directory match


class IgnoreSpec:
    """One list of gitignore-style patterns (an ignore file, the settings' globs)."""

    __slots__ = ("_any", "spec")

    def __init__(self, spec: pathspec.PathSpec) -> None:
        self.spec = spec
        self._any = any_pattern(spec)

    @classmethod
    def from_lines(cls, lines: Iterable[str]) -> IgnoreSpec:
        return cls(pathspec.GitIgnoreSpec.from_lines(lines))

    @property
    def screened(self) -> bool:
        """Whether a path that matches no pattern is told by one match (else each pattern is asked)."""
        return self._any is not None

    def verdict(self, path: str) -> bool | None:
        """``True``: the patterns ignore ``path`` (a directory is passed as ``dir/``); ``False``: a
        negation lets it back in; ``None``: no pattern matches it."""
        if self._any is not None and self._any.match(normalize_file(path)) is None:
            return None
        return self.spec.check_file(path).include

    def match_file(self, path: str) -> bool:
        """Whether the patterns ignore ``path`` (:meth:`pathspec.PathSpec.match_file`)."""
        return bool(self.verdict(path))


def any_pattern(spec: pathspec.PathSpec) -> re.Pattern[str] | None:
    """One expression that matches, at the start of a normalised path, exactly where one of ``spec``'s
    patterns that decides anything (includes or excludes) matches; ``None`` where the patterns are not
    all of the form pathspec gives gitignore lines (anchored at ``^``, one flag set, no named group
    but the directory mark), so that joining them might not mean the same."""
    branches: list[str] = []
    flags: int | None = None
    for pattern in spec.patterns:
        regex = getattr(pattern, "regex", None)
        if pattern.include is None or regex is None:
            continue  # a comment, a blank line: never decides
        source = regex.pattern
        if not isinstance(source, str) or not source.startswith("^"):
            return None
        body = source[1:].replace(_DIR_GROUP, "(?:")
        if "(?P" in body or (flags is not None and regex.flags != flags):
            return None
        flags = regex.flags
        branches.append(f"(?:{body})")
    if not branches:
        return re.compile(r"(?!)")  # no pattern decides anything: nothing ever matches
    try:
        return re.compile("(?:" + "|".join(branches) + ")", flags or 0)
    except re.error:
        return None

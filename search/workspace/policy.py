"""What a mutating call may do: one value instead of four keyword arguments on every write path."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from search.workspace.files import DEFAULT_MAX_WRITE_BYTES, OnWrite
from search.workspace.guard import GuardRule


@dataclass(frozen=True, slots=True)
class WritePolicy:
    """The rules every edit of a file follows.

    ``read_only`` refuses every mutation (``ReadOnlyError``); ``guard_rules`` are the guard's rules for
    generated and protected paths (``None``: the rules configured for the file's root); ``max_bytes``
    bounds the file before and after the edit; ``on_write`` is told the absolute path of every file
    actually written (the server reindexes it).
    """

    read_only: bool = False
    guard_rules: Sequence[GuardRule] | None = None
    max_bytes: int = DEFAULT_MAX_WRITE_BYTES
    on_write: OnWrite | None = None


DEFAULT_POLICY = WritePolicy()

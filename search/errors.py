"""Errors of the query service, the file tools, the edit tools and the guard.

All are part of the one hierarchy rooted at :class:`models.errors.PlaitError`; every message says what
went wrong and what to do next, so the MCP server can hand it to the agent as an ``isError`` result
and the CLI can print it as one line. The search-side tree::

    PlaitError
    ├── QueryError               empty query, invalid regex, bad scope/target, bad tool argument
    │   └── LineRangeError       a line number or range outside the file
    ├── ReadOnlyError            a mutating tool called while the server is read-only
    ├── StaleEditError           the file changed since the agent read it (expected_sha256 mismatch)
    ├── EditNotFoundError        old_string matched nowhere, not even whitespace-tolerantly
    ├── AmbiguousEditError       old_string matched several times without replace_all
    ├── GuardBlockedError        the path is protected by a ``generated`` / forbid_writes rule
    └── WorkspaceError (models/errors.py)
        ├── PathOutsideRootError (models/errors.py)
        ├── InvalidPathError     NUL byte, backslash, over-long name, symlink loop
        ├── PathNotFoundError    the path does not exist (or is not the kind of entry expected)
        ├── FileTooLargeError    over the read or write size limit
        ├── BinaryFileError      the file holds a NUL byte in its first block
        └── UndecodableFileError an edit of a file that is not valid UTF-8
"""

from __future__ import annotations

from models import PlaitError, WorkspaceError


class QueryError(PlaitError):
    """A query or tool argument is invalid (empty query, invalid regex, bad scope or target)."""


class LineRangeError(QueryError):
    """A line number or line range does not fit the file."""

    def __init__(self, path: str, detail: str, total_lines: int) -> None:
        super().__init__(
            f"{path}: {detail}; the file has {total_lines} line(s) — "
            "read it with read_file and pass line numbers inside it."
        )
        self.path = path
        self.total_lines = total_lines


class ReadOnlyError(PlaitError):
    def __init__(self, tool: str) -> None:
        super().__init__(
            f"{tool} is refused: the server runs in read-only mode; "
            "restart it without --read-only to allow writes and edits."
        )
        self.tool = tool


class StaleEditError(PlaitError):
    def __init__(self, path: str, expected: str, actual: str | None) -> None:
        now = "no longer exists" if actual is None else f"now has sha256 {actual[:12]}…"
        super().__init__(
            f"{path} changed since it was read (expected sha256 {expected[:12]}…, the file {now}); "
            "re-read the file with read_file and retry the edit with the new sha256."
        )
        self.path = path
        self.expected = expected
        self.actual = actual


class EditNotFoundError(PlaitError):
    def __init__(
        self, path: str, old_string: str, edit_index: int | None = None, closest: str | None = None
    ) -> None:
        shown = old_string if len(old_string) <= 80 else old_string[:77] + "..."
        which = f"edit {edit_index}: " if edit_index is not None else ""
        near = f" (the closest is {closest})" if closest else ""
        super().__init__(
            f"{which}old_string {shown!r} was not found in {path}, not even ignoring whitespace{near}; "
            "re-read the file and copy the text exactly (without line-number prefixes)."
        )
        self.path = path
        self.edit_index = edit_index


class AmbiguousEditError(PlaitError):
    def __init__(self, path: str, count: int, edit_index: int | None = None, *, fuzzy: bool = False) -> None:
        which = f"edit {edit_index}: " if edit_index is not None else ""
        if fuzzy:
            problem = f"no exact match but {count} whitespace-tolerant matches"
            fix = "copy the text exactly from the file (replace_all needs an exact match)"
        else:
            problem = f"{count} matches"
            fix = "set replace_all to change every occurrence"
        super().__init__(
            f"{which}old_string has {problem} in {path}; add surrounding lines to old_string so it "
            f"matches exactly once, or {fix}."
        )
        self.path = path
        self.count = count
        self.edit_index = edit_index


class GuardBlockedError(PlaitError):
    def __init__(self, path: str, rule_id: str, message: str) -> None:
        why = f": {message}" if message else ""
        super().__init__(
            f"{path} is protected by guard rule {rule_id!r} (generated, forbid_writes){why}; "
            "change its source and regenerate it instead of editing it."
        )
        self.path = path
        self.rule_id = rule_id


class InvalidPathError(WorkspaceError):
    """A path argument that is malformed (NUL byte, backslash, over-long, symlink loop)."""


class PathNotFoundError(WorkspaceError):
    def __init__(self, path: str, what: str = "file or directory") -> None:
        super().__init__(
            f"{path}: no such {what}; check the path with list_directory or glob "
            "(paths are relative to the workspace root)."
        )
        self.path = path


class FileTooLargeError(WorkspaceError):
    def __init__(self, path: str, size: int, limit: int, action: str) -> None:
        hint = (
            "search it with grep, or raise the limit"
            if action == "read"
            else "write a smaller file, or raise the limit"
        )
        super().__init__(f"{path} is {size:,} bytes, over the {limit:,}-byte {action} limit; {hint}.")
        self.path = path
        self.size = size
        self.limit = limit


class BinaryFileError(WorkspaceError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"{path} looks binary (it holds NUL bytes), so it is not shown or edited as text; "
            "use file_info for its size and type."
        )
        self.path = path


class UndecodableFileError(WorkspaceError):
    def __init__(self, path: str, detail: str) -> None:
        super().__init__(
            f"{path} is not valid UTF-8 ({detail}), so it cannot be edited safely; "
            "replace it whole with write_file if that is intended."
        )
        self.path = path

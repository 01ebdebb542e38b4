"""Edit tools (category ``edit``): ``edit_replace``, ``edit_insert``, ``edit_delete``.

Adapters over :mod:`search.workspace.edits`. Each returns a unified diff and the file's new sha256; each takes
``expected_sha256`` (refused, with nothing written, when the file changed) and ``dry_run``. All are
refused in read-only mode (not listed), on guarded (generated) paths and outside the roots; a refused
edit leaves the file byte for byte as it was. A written file is reindexed in the background.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from search.errors import QueryError
from search.frontends.server.boundary import ToolAdder, bound, respond
from search.frontends.server.models import EditOutput
from search.frontends.server.state import ServerState
from search.frontends.server.tools_files import ExpectedSha, FilePath
from search.workspace.edits import EditResult, Replacement, edit_delete, edit_insert, edit_replace

DryRun = Annotated[bool, Field(description="Return the diff without writing the file.")]


class ReplaceEdit(BaseModel):
    """One replacement inside an edit_replace call."""

    old_string: str = Field(description="Exact text to find (copy it from read_file without line numbers).")
    new_string: str = Field(description="The text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of requiring one.")


def edit_replace_tool(
    state: ServerState,
    path: FilePath,
    old_string: Annotated[
        str | None,
        Field(
            description="Exact text to replace; must occur once unless replace_all. If it matches "
            "nowhere, a whitespace-tolerant unique match is used and re-indented."
        ),
    ] = None,
    new_string: Annotated[str | None, Field(description="Replacement text (with old_string).")] = None,
    replace_all: Annotated[bool, Field(description="Replace every occurrence of old_string.")] = False,
    edits: Annotated[
        list[ReplaceEdit] | None,
        Field(
            description="Several replacements to this file, applied in order, all or nothing "
            "(instead of old_string/new_string)."
        ),
    ] = None,
    expected_sha256: ExpectedSha = None,
    dry_run: DryRun = False,
) -> Annotated[CallToolResult, EditOutput]:
    """Replace text in a file and return the unified diff. Give old_string/new_string for one
    replacement, or edits for several (applied atomically: all or none). old_string must match
    exactly once (add surrounding lines to make it unique) unless replace_all. Line endings and a
    missing final newline are kept. Pass expected_sha256 from read_file to refuse the edit if the
    file changed since you read it."""
    if edits and (old_string is not None or new_string is not None):
        raise QueryError("pass either old_string/new_string or edits, not both.")
    if edits:
        changes = [Replacement(e.old_string, e.new_string, e.replace_all) for e in edits]
    elif old_string is not None and new_string is not None:
        changes = [Replacement(old_string, new_string, replace_all)]
    else:
        raise QueryError("pass old_string and new_string (or edits: a list of {old_string, new_string}).")
    if any(not c.old_string for c in changes):
        raise QueryError("old_string is empty; to add text use edit_insert, to create a file write_file.")
    result = edit_replace(
        state.roots,
        path,
        changes,
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=state.write_policy,
    )
    return _respond(result)


def edit_insert_tool(
    state: ServerState,
    path: FilePath,
    line: Annotated[
        int,
        Field(ge=1, description="Insert before this line (1-based); total lines + 1 appends at the end."),
    ],
    text: Annotated[
        str, Field(description="The lines to insert, as whole lines (line endings become the file's).")
    ],
    expected_sha256: ExpectedSha = None,
    dry_run: DryRun = False,
) -> Annotated[CallToolResult, EditOutput]:
    """Insert lines before a given line of a file and return the unified diff. Use it to add code
    at a known position (line numbers from read_file or outline)."""
    result = edit_insert(
        state.roots,
        path,
        line,
        text,
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=state.write_policy,
    )
    return _respond(result)


def edit_delete_tool(
    state: ServerState,
    path: FilePath,
    start_line: Annotated[int, Field(ge=1, description="First line to delete (1-based).")],
    end_line: Annotated[int, Field(ge=1, description="Last line to delete (inclusive).")],
    expected_sha256: ExpectedSha = None,
    dry_run: DryRun = False,
) -> Annotated[CallToolResult, EditOutput]:
    """Delete a range of lines (inclusive) from a file and return the unified diff. Pass
    expected_sha256 so line numbers from an older read cannot delete the wrong lines."""
    result = edit_delete(
        state.roots,
        path,
        start_line,
        end_line,
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=state.write_policy,
    )
    return _respond(result)


def register(add: ToolAdder, state: ServerState) -> None:
    add("edit_replace", bound(edit_replace_tool, state))
    add("edit_insert", bound(edit_insert_tool, state))
    add("edit_delete", bound(edit_delete_tool, state))


def _respond(result: EditResult) -> CallToolResult:
    out = EditOutput(**asdict(result))
    status = "written" if result.written else "not written"
    lines = [
        result.diff.rstrip("\n") or "(no change)",
        f"[{result.path}: {status}; sha256 now {result.sha256_after}"
        + ("; whitespace-tolerant match" if result.fuzzy else "")
        + "]",
    ]
    lines += [f"note: {n}" for n in result.notes]
    return respond(out, "\n".join(lines))

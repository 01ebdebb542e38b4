"""File tools (category ``files``): read_file, write_file, list_directory, file_info and glob.

Module-level functions of ``(state, ...)`` over :mod:`search.workspace.files` (read, write) and
:mod:`search.workspace.browse` (list, stat, glob): every path is confined to the roots there (symlinks resolved;
``..``, absolute paths elsewhere, backslashes, NUL bytes and over-long names refused). ``write_file``
is refused in read-only mode (it is not even listed) and on paths a ``generated`` guard rule protects;
after a write the file is reindexed in the background.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from search.frontends.server.boundary import MAX_OUTPUT_CHARS, ToolAdder, bound, respond
from search.frontends.server.models import (
    FileInfoOutput,
    GlobOutput,
    ListDirectoryOutput,
    ReadFileOutput,
    WriteFileOutput,
)
from search.frontends.server.state import ServerState
from search.workspace import browse, files

FilePath = Annotated[
    str,
    Field(description="Path relative to the workspace root (forward slashes), or absolute inside a root."),
]
ExpectedSha = Annotated[
    str | None,
    Field(
        description="The sha256 that read_file returned: the call is refused if the file changed since "
        "(or, for write_file, if it now exists with other content)."
    ),
]


def read_file(
    state: ServerState,
    path: FilePath,
    offset: Annotated[int, Field(ge=1, description="First line to return (1-based).")] = 1,
    limit: Annotated[int, Field(ge=1, le=10000, description="Maximum lines to return.")] = 2000,
) -> Annotated[CallToolResult, ReadFileOutput]:
    """Read a text file: numbered lines ("{line:>6}<TAB>{text}") from offset, at most limit lines,
    plus the file's sha256 (pass it as expected_sha256 to the edit tools) and a note saying how to
    read on when the output is cut. Binary files and files over the size limit are refused; use
    outline first for a large file and read only the lines you need."""
    content = files.read_file(
        state.roots,
        path,
        offset=offset,
        limit=limit,
        max_bytes=state.max_read_bytes,
        max_output_chars=MAX_OUTPUT_CHARS,
    )
    out = ReadFileOutput(**asdict(content))
    text = content.text or "(empty file)"
    footer = (
        f"[{content.path}: lines {content.start_line}-{content.end_line} of {content.total_lines}, "
        f"sha256 {content.sha256}]"
    )
    if content.note:
        footer += f"\nnote: {content.note}"
    return respond(out, f"{text}\n{footer}")


def write_file(
    state: ServerState,
    path: FilePath,
    content: Annotated[str, Field(description="The whole new content of the file (UTF-8, written as is).")],
    expected_sha256: ExpectedSha = None,
) -> Annotated[CallToolResult, WriteFileOutput]:
    """Create a file or replace its whole content (atomically; parent directories are created).
    Prefer edit_replace / edit_insert / edit_delete to change part of an existing file. Pass
    expected_sha256 from read_file when replacing, so a concurrent change is not overwritten.
    Refused on paths protected by a guard rule (generated files) and inside .git."""
    result = files.write_file(
        state.roots,
        path,
        content,
        read_only=state.read_only,
        max_bytes=state.max_write_bytes,
        expected_sha256=expected_sha256,
        on_write=state.on_write,
    )
    out = WriteFileOutput(**asdict(result))
    verb = "created" if result.created else "replaced"
    return respond(out, f"{verb} {result.path} ({result.size:,} bytes, sha256 {result.sha256})")


def list_directory(
    state: ServerState,
    path: Annotated[
        str, Field(description="Directory relative to the workspace root ('.' = the root).")
    ] = ".",
    include_ignored: Annotated[
        bool,
        Field(
            description="Also list entries hidden by .gitignore, .ignore, .rgignore and configured excludes."
        ),
    ] = False,
    limit: Annotated[int, Field(ge=1, le=2000, description="Maximum entries.")] = 500,
) -> Annotated[CallToolResult, ListDirectoryOutput]:
    """List a directory's entries (directories first) with type, size and modification time.
    Ignored entries are hidden (and counted) unless include_ignored. Use glob to find files by
    pattern across the tree."""
    listing = browse.list_directory(state.roots, path, include_ignored=include_ignored, limit=limit)
    out = ListDirectoryOutput(**asdict(listing))
    lines = [
        f"{e.name}/"
        if e.type == "dir"
        else f"{e.name}" + (f"  ({e.size:,} bytes)" if e.size is not None else f"  [{e.type}]")
        for e in listing.entries
    ]
    lines.append(
        f"[{listing.path}: {listing.total} entries"
        + (f", {listing.ignored} ignored" if listing.ignored else "")
        + "]"
    )
    if listing.truncated:
        lines.append(
            f"note: truncated: showing {len(listing.entries)} of {listing.total} entries; narrow with "
            "a subdirectory or glob"
        )
    return respond(out, "\n".join(lines))


def file_info(state: ServerState, path: FilePath) -> Annotated[CallToolResult, FileInfoOutput]:
    """Metadata of a file or directory: type, size, permissions, times, language, binary or not,
    line count, whether ignore rules hide it, and whether the index holds it and is fresh."""
    info = browse.file_info(
        state.roots, path, index_lookup=state.index_lookup, max_bytes=state.max_read_bytes
    )
    out = FileInfoOutput(**asdict(info))
    fields = [f"{k}: {v}" for k, v in asdict(info).items() if v is not None]
    return respond(out, "\n".join(fields))


def glob(
    state: ServerState,
    pattern: Annotated[
        str,
        Field(
            description="gitignore-style pattern relative to path: '*.py' (any depth), 'src/**/*.ts', "
            "'/setup.py' (top level only)."
        ),
    ],
    path: Annotated[str, Field(description="Directory to search under ('.' = the root).")] = ".",
    limit: Annotated[int, Field(ge=1, le=2000, description="Maximum files returned.")] = 200,
    include_ignored: Annotated[
        bool,
        Field(
            description="Also match files that .gitignore, .ignore, .rgignore or configured excludes hide."
        ),
    ] = False,
) -> Annotated[CallToolResult, GlobOutput]:
    """Find files by name pattern, newest first, with size and modification time. Use it to locate
    files by name or extension; use grep or search to find files by content."""
    result = browse.glob_files(state.roots, pattern, path=path, limit=limit, include_ignored=include_ignored)
    out = GlobOutput(**asdict(result))
    lines = [m.path for m in result.matches] or [f"no files match {pattern!r} under {path}"]
    if result.truncated:
        lines.append(
            f"note: truncated: showing {len(result.matches)} of {result.total} files; narrow with a "
            "more specific pattern or path"
        )
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    """Wire the file tools to ``state``."""
    add("read_file", bound(read_file, state))
    add("write_file", bound(write_file, state))
    add("list_directory", bound(list_directory, state))
    add("file_info", bound(file_info, state))
    add("glob", bound(glob, state))

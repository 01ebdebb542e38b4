"""The ``grep`` tool: every occurrence of a regex or literal in the live files, through the ripgrep gateway.

A module-level function of ``(state, ...)`` (bound by :func:`search.frontends.server.tools_search.register`);
:func:`run_rg_lines` is shared with ``find_references``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_types import CallToolResult
from pydantic import Field

from search.errors import QueryError
from search.frontends.server.boundary import MAX_OUTPUT_CHARS, as_list, respond, truncation_note
from search.frontends.server.models import GrepFile, GrepLine, GrepOutput
from search.frontends.server.params import Globs, Language, Repos
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState
from search.workspace import ripgrep
from search.workspace.confine import target_kind
from search.workspace.ignores import check_language
from search.workspace.ripgrep import RgCommand

OutputMode = Literal["content", "files_with_matches", "count"]
GREP_TIMEOUT = 30.0
GREP_MAX_OUTPUT = 32 * 1024 * 1024
GREP_LINE_CHARS = 500
COUNT_CAP = 100_000  # matching lines counted per file in count mode


def grep(
    state: ServerState,
    pattern: Annotated[
        str,
        Field(
            description="A regular expression (Rust regex syntax) or, with "
            "fixed_strings=true, a literal string."
        ),
    ],
    path: Annotated[
        str | None,
        Field(description="File or directory to search, relative to the workspace root (default: all)."),
    ] = None,
    fixed_strings: Annotated[bool, Field(description="Match the pattern literally, not as a regex.")] = False,
    ignore_case: Annotated[
        bool | None,
        Field(
            description="true: case-insensitive; false: case-sensitive; omitted: smart case "
            "(insensitive unless the pattern has an upper-case letter)."
        ),
    ] = None,
    glob: Globs = None,
    language: Language = None,
    output_mode: Annotated[
        OutputMode,
        Field(
            description="content (matching lines, default) | files_with_matches (paths only) | "
            "count (matching lines per file)."
        ),
    ] = "content",
    context: Annotated[
        int, Field(ge=0, le=20, description="Lines of context around each match (content mode).")
    ] = 0,
    head_limit: Annotated[
        int,
        Field(
            ge=1,
            le=5000,
            description="At most this many matching lines (content mode) or files "
            "(other modes) are returned.",
        ),
    ] = 200,
    include_ignored: Annotated[
        bool,
        Field(
            description="Also search files that .gitignore, .ignore, .rgignore or configured excludes leave "
            "out (never .git, .hg, .svn)."
        ),
    ] = False,
    repos: Repos = None,
) -> Annotated[CallToolResult, GrepOutput]:
    """Exhaustive text search with ripgrep over the live files (respects .gitignore; never reads
    .git). Use it to list every occurrence of an exact string or regex, to count them, or to find
    which files contain them; use search instead for ranked, fuzzy or natural-language queries.
    Output modes: content (path, line number and text, with optional context lines),
    files_with_matches (just paths) and count (matching lines per file). Results are capped by
    head_limit and the output size, with a note saying how to narrow. `repos` picks some of the
    served repositories."""
    globs = as_list(glob)
    mode = output_mode
    if not pattern:
        raise QueryError("the pattern is empty; pass a regex or, with fixed_strings=true, a literal string.")
    check_language(language)
    case: ripgrep.Case = "smart" if ignore_case is None else "insensitive" if ignore_case else "sensitive"
    if mode == "files_with_matches":
        max_count = 1
    elif mode == "count":
        max_count = COUNT_CAP
    else:
        max_count = head_limit + 1
    files: list[GrepFile] = []
    total_matches = 0
    capped = False
    chosen = state.select(as_list(repos))
    targets = [(ws, None) for ws in chosen] if not path else state.targets(path)
    for ws, confined in targets:
        if path:
            check_chosen(state, ws, chosen, path)
        rel = None if confined is None or confined.relpath == "." else confined.relpath
        if confined is not None and rel is not None:
            target_kind(confined)  # a FIFO, or a symlink swapped into the path, is refused
        command = RgCommand(
            "json",
            (pattern,),
            (rel,) if rel else (".",),
            tuple(globs),
            language,
            fixed=fixed_strings,
            case=case,
            max_count=max_count,
            context=context if mode == "content" else 0,
            include_ignored=include_ignored,
        )
        found, cut = run_rg_lines(ws, command)
        capped = capped or cut
        for file_path, lines in found.items():
            count = sum(1 for ln in lines if ln.match)
            total_matches += count
            keep = lines if mode == "content" else []
            files.append(
                GrepFile(
                    path=file_path,
                    root=str(ws.root),
                    repo=state.repo(ws),
                    count=None if mode == "files_with_matches" else count,
                    lines=keep,
                )
            )
    files.sort(key=lambda f: (f.root, f.path))  # ripgrep's threads finish in any order
    total_files = len(files)
    shown, truncated = _limit_grep(files, mode, head_limit)
    notes = []
    if truncated:
        what = "matching lines" if mode == "content" else "files"
        total: int | str = total_matches if mode == "content" else total_files
        notes.append(
            truncation_note(
                _shown_count(shown, mode),
                total,
                what,
                "path, glob, language, a more specific pattern or head_limit",
            )
        )
    if capped:
        notes.append(
            "ripgrep's output hit its size cap, so matches and counts are incomplete; narrow with path, "
            "glob or a more specific pattern"
        )
    out = GrepOutput(
        pattern=pattern,
        output_mode=mode,
        files=shown,
        total_files=total_files,
        total_matches=None if mode == "files_with_matches" else total_matches,
        truncated=truncated or capped,
        note="; ".join(notes) or None,
    )
    return respond(out, _render_grep(state, out))


def check_chosen(state: ServerState, ws: Workspace, chosen: list[Workspace], path: str) -> None:
    if ws not in chosen:
        raise QueryError(
            f"{path} is in repository {state.repo(ws)!r}, which `repos` leaves out; add it to repos "
            "or drop the path."
        )


def run_rg_lines(ws: Workspace, command: RgCommand) -> tuple[dict[str, list[GrepLine]], bool]:
    """Run a ``json`` ripgrep command over ``ws``; its match and context lines per file, in order, and
    whether ripgrep's output hit its cap."""
    res = ripgrep.run(ws.settings, command, timeout=GREP_TIMEOUT, max_output=GREP_MAX_OUTPUT)
    found: dict[str, list[GrepLine]] = {}
    for ln in res.lines:
        text = ln.text.rstrip("\r\n")
        if len(text) > GREP_LINE_CHARS:
            text = text[:GREP_LINE_CHARS] + f"… [{len(text):,} characters]"
        found.setdefault(ln.path, []).append(GrepLine(line=ln.line, text=text, match=ln.match))
    return found, res.truncated


def _shown_count(files: list[GrepFile], mode: str) -> int:
    return sum(1 for f in files for ln in f.lines if ln.match) if mode == "content" else len(files)


def _limit_grep(files: list[GrepFile], mode: str, head_limit: int) -> tuple[list[GrepFile], bool]:
    """Cut to ``head_limit`` entries and the output cap; returns (kept, truncated)."""
    kept: list[GrepFile] = []
    size = 0
    matches = 0
    for f in files:
        # What a file costs in the text and the structured content together.
        size += 2 * len(f.path) + len(f.root) + 60
        if mode != "content":
            if len(kept) >= head_limit or size > MAX_OUTPUT_CHARS:
                return kept, True
            kept.append(f)
            continue
        lines: list[GrepLine] = []
        stop = False
        for ln in f.lines:
            if ln.match:
                if matches >= head_limit or size > MAX_OUTPUT_CHARS:
                    stop = True
                    break
                matches += 1
            size += 2 * len(ln.text) + len(f.path) + 50
            lines.append(ln)
        if lines:
            kept.append(f.model_copy(update={"lines": lines}))
        if stop:
            return kept, True
    return kept, False


def _render_grep(state: ServerState, out: GrepOutput) -> str:
    parts: list[str] = []
    for f in out.files:
        shown = state.display(f.root, f.path)
        if out.output_mode == "files_with_matches":
            parts.append(shown)
        elif out.output_mode == "count":
            parts.append(f"{shown}:{f.count}")
        else:
            previous = None
            for ln in f.lines:
                if previous is not None and ln.line > previous + 1:
                    parts.append("--")
                parts.append(f"{shown}{':' if ln.match else '-'}{ln.line}{':' if ln.match else '-'}{ln.text}")
                previous = ln.line
    if not out.files:
        parts.append(f"no matches for {out.pattern!r}")
    else:
        total = f"{out.total_matches} matching line(s) in " if out.total_matches is not None else ""
        parts.append(f"[{total}{out.total_files} file(s)]")
    if out.note:
        parts.append(f"note: {out.note}")
    return "\n".join(parts)

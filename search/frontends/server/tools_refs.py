"""Reference tools (category ``search``): ``find_references`` (usages of a symbol) and ``related``
(code similar to a location).

``find_references`` asks ripgrep for the name as a whole word, case-sensitively, over the live files,
and parses each file that holds it with tree-sitter (:mod:`indexer.symbols`) to name the definition
every line is in, and to tell the symbol's own definitions from its usages: right even when the index
is stale or missing. ``related`` embeds the indexed chunk at ``path:line`` and returns its nearest
neighbours from the vector index.
"""

from __future__ import annotations

import re
import time
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from indexer import DATA_KINDS, SYMBOL_LANGUAGES, Symbol, detect_language, extract_symbols
from models import PlaitError
from search.engine.retrievers import ResolvedScope
from search.engine.snippets import focus, read_span
from search.errors import QueryError
from search.frontends.server.boundary import (
    MAX_OUTPUT_CHARS,
    ToolAdder,
    as_list,
    bound,
    clip,
    respond,
    truncation_note,
)
from search.frontends.server.models import FindReferencesOutput, ReferenceOut, RelatedOut, RelatedOutput
from search.frontends.server.params import Globs, Language
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState
from search.frontends.server.tools_grep import run_rg_lines
from search.workspace.files import read_regular_file
from search.workspace.ripgrep import MAX_COUNT_PER_FILE, RgCommand

MAX_PARSED_FILES = 400  # files parsed for enclosing definitions; beyond, references carry none
PARSE_SECONDS = 20.0
LINE_CHARS = 300
_NAME = re.compile(r"\$*[A-Za-z_][A-Za-z0-9_$]*")


def find_references(
    state: ServerState,
    name: Annotated[
        str,
        Field(
            description="The symbol: a name ('backoff') or a qualified name ('RetryPolicy.backoff', whose "
            "last part is searched)."
        ),
    ],
    path: Annotated[
        str | None, Field(description="Only under this directory or in this file (default: everywhere).")
    ] = None,
    glob: Globs = None,
    language: Language = None,
    include_definitions: Annotated[
        bool, Field(description="Also list the lines that define the name.")
    ] = True,
    limit: Annotated[int, Field(ge=1, le=2000, description="Maximum references (1-2000).")] = 100,
) -> Annotated[CallToolResult, FindReferencesOutput]:
    """Find the usages and callers of a symbol: every line of the live files that holds the name
    as a whole word (case-sensitive, from ripgrep), each with the definition it sits in (the
    calling function, method or class, parsed with tree-sitter) and whether the line defines the
    name or uses it. Use it before renaming or changing a signature, to see who calls a function,
    or to follow how a value flows; use find_symbol for the definition alone and grep for text
    that is not an identifier."""
    bare = re.split(r"\.|::|->|#", name.strip())[-1]
    if not _NAME.fullmatch(bare):
        raise QueryError(
            f"{name!r} is not an identifier; pass a symbol name such as parse_config or "
            "RetryPolicy.backoff, or use grep for other text."
        )
    refs: list[ReferenceOut] = []
    parsed = 0
    deadline = time.monotonic() + PARSE_SECONDS
    for ws, confined in state.targets(path):
        rel = None if confined is None or confined.relpath == "." else confined.relpath
        kind = (
            "ws"
            if rel is None
            else ("file" if confined is not None and confined.abspath.is_file() else "dir")
        )
        scope = ResolvedScope(kind, rel, None, tuple(as_list(glob)), language)
        command = RgCommand(
            "json",
            (re.escape(bare),),
            scope.targets,
            scope.globs,
            scope.language,
            case="sensitive",
            word=True,
            max_count=MAX_COUNT_PER_FILE,
        )
        found, _ = run_rg_lines(ws, command)
        for file_path in sorted(found):
            symbols: list[Symbol] | None = None
            if parsed < MAX_PARSED_FILES and time.monotonic() < deadline:
                symbols = _symbols(state, ws, file_path)
                parsed += 1
            for ln in found[file_path]:
                if ln.match:
                    refs.append(_reference(ws, file_path, ln.line, ln.text, bare, symbols))
    if not include_definitions:
        refs = [r for r in refs if r.kind != "definition"]
    # Definitions first, then usages; by path and line within each.
    refs.sort(key=lambda r: (r.kind != "definition", r.root, r.path, r.line))
    total = len(refs)
    shown: list[ReferenceOut] = []
    size = 0
    for r in refs[:limit]:
        size += 2 * len(r.text) + 2 * len(r.path) + len(r.root) + 160
        if shown and size > MAX_OUTPUT_CHARS:
            break
        shown.append(r)
    note = None
    if len(shown) < total:
        note = truncation_note(len(shown), total, "references", "path, glob, language or limit")
    if parsed >= MAX_PARSED_FILES:
        extra = f"only the first {MAX_PARSED_FILES} files were parsed for enclosing definitions"
        note = f"{note}; {extra}" if note else extra
    out = FindReferencesOutput(
        name=name,
        definitions=sum(r.kind == "definition" for r in refs),
        references=shown,
        total=total,
        truncated=len(shown) < total,
        note=note,
    )
    return respond(out, _render_references(state, out))


def related(
    state: ServerState,
    location: Annotated[
        str,
        Field(
            description="PATH:LINE of the code to match, PATH relative to the workspace root ('pkg/retry.py:10')."
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=50, description="Maximum results (1-50).")] = 10,
    glob: Globs = None,
    language: Language = None,
) -> Annotated[CallToolResult, RelatedOutput]:
    """Code similar to a location: the indexed chunk that holds PATH:LINE is compared by embedding
    with every other chunk, and the nearest are returned with a snippet each. Use it to find code
    that does the same thing elsewhere (duplicates, sibling implementations, tests of similar
    code) once you have one place; it needs the vector index (see index_status)."""
    where, sep, line_text = location.rpartition(":")
    if not sep or not line_text.strip().isdigit():
        raise QueryError(f"location {location!r} must be PATH:LINE, e.g. pkg/retry.py:10.")
    line = int(line_text)
    ws, confined = state.resolve(where)
    rel = confined.relpath
    if not ws.index.exists():
        raise QueryError(f"{ws.root} has no index yet; call reindex, then related again.")
    state.wait_warm()
    spans = ws.index.chunk_spans([rel]).get(rel, [])
    inside = [c for c in spans if c.start_line <= line <= c.end_line]
    if not inside:
        raise QueryError(
            f"{rel}:{line} is in no indexed chunk (not indexed, changed since, or past the end); "
            "call reindex or pick another line."
        )
    anchor = min(inside, key=lambda c: c.end_line - c.start_line)
    text = "\n".join(read_span(str(ws.root), rel, anchor.start_line, anchor.end_line))
    hits = ws.index.nearest(f"{rel}\n{text}", limit=limit + 5, globs=as_list(glob), language=language)
    results: list[RelatedOut] = []
    for h in hits:
        if h.path == rel and h.start_line <= anchor.end_line and anchor.start_line <= h.end_line:
            continue  # the anchor itself, or a chunk overlapping it
        snip = focus(
            read_span(str(ws.root), h.path, h.start_line, h.end_line),
            h.start_line,
            matcher=None,
            symbol=h.symbol,
            max_lines=8,
        )
        results.append(
            RelatedOut(
                path=h.path,
                root=str(ws.root),
                start_line=h.start_line,
                end_line=h.end_line,
                symbol=h.symbol,
                kind=h.kind,
                language=h.language,
                distance=round(h.distance, 4),
                snippet=snip.numbered(),
            )
        )
        if len(results) >= limit:
            break
    out = RelatedOutput(
        path=rel, line=line, anchor=f"{rel}:{anchor.start_line}-{anchor.end_line}", results=results
    )
    lines = [f"code related to {out.anchor}:"]
    for i, r in enumerate(results, start=1):
        sym = f"  {r.symbol} ({r.kind})" if r.symbol else ""
        lines.append(
            f"{i}. {state.display(r.root, r.path)}:{r.start_line}-{r.end_line}{sym}  distance {r.distance}"
        )
        lines += ["  " + s for s in r.snippet.split("\n")]
    if not results:
        lines.append("nothing similar found in the index")
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    add("find_references", bound(find_references, state))
    add("related", bound(related, state))


def _symbols(state: ServerState, ws: Workspace, rel: str) -> list[Symbol] | None:
    """The file's definitions, parsed now; ``None`` when it has no grammar or cannot be read."""
    try:
        _, confined = state.resolve(str(ws.root / rel))
        data = read_regular_file(confined, ws.settings.max_file_bytes)
    except PlaitError:  # a file that vanished or grew since ripgrep saw it: no enclosing names for it
        return None
    language = detect_language(rel, data[:8192])
    if language not in SYMBOL_LANGUAGES:
        return None
    try:
        return extract_symbols(data, language, rel)
    except Exception:  # a grammar that fails on one file must not fail the whole call
        return None


def _reference(
    ws: Workspace, path: str, line: int, text: str, name: str, symbols: list[Symbol] | None
) -> ReferenceOut:
    col = re.search(rf"(?<![A-Za-z0-9_$]){re.escape(name)}(?![A-Za-z0-9_$])", text)
    enclosing: Symbol | None = None
    kind = "usage"
    for s in symbols or ():
        if s.start_line <= line <= s.end_line:
            head = s.name_line or s.start_line  # the name's line, below any doc comment and decorators
            if s.name == name and head <= line <= head + _signature_lines(s):
                kind = "definition"
                continue  # its own definition is not what it is "in"
            if s.kind in DATA_KINDS:
                continue  # `self.pool = Pool(timeout)` is in ``__init__``, not in the field it sets
            if enclosing is None or s.end_line - s.start_line <= enclosing.end_line - enclosing.start_line:
                enclosing = s
    return ReferenceOut(
        path=path,
        root=str(ws.root),
        line=line,
        column=(col.start() + 1) if col else 1,
        text=clip(text.strip(), LINE_CHARS),
        kind=kind,
        enclosing=enclosing.qualified_name if enclosing else None,
        enclosing_kind=enclosing.kind if enclosing else None,
        enclosing_line=enclosing.start_line if enclosing else None,
    )


def _signature_lines(s: Symbol) -> int:
    """Lines a definition's header may take below its first line (decorators sit above, not here)."""
    return max(0, s.signature.count("\n"))


def _render_references(state: ServerState, out: FindReferencesOutput) -> str:
    lines = []
    for r in out.references:
        where = f"{state.display(r.root, r.path)}:{r.line}:{r.column}"
        inside = f"  in {r.enclosing_kind} {r.enclosing}" if r.enclosing else ""
        mark = " [definition]" if r.kind == "definition" else ""
        lines.append(f"{where}{mark}{inside}\n    {r.text}")
    if not out.references:
        lines.append(f"no references to {out.name!r}; check the spelling, or search for it in words")
    else:
        lines.append(f"[{out.total} reference(s), {out.definitions} definition(s)]")
    if out.note:
        lines.append(f"note: {out.note}")
    return "\n".join(lines)

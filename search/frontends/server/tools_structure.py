"""Structure tools (category ``search``): ``outline`` of one file and ``ast_query`` over a scope.

Both parse the live files with tree-sitter (through :mod:`indexer.parsing` and
:mod:`indexer.symbols`), so they are right even when the index is stale or missing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Annotated

import tree_sitter
from mcp_types import CallToolResult
from pydantic import Field

from indexer import (
    SYMBOL_LANGUAGES,
    Symbol,
    Walker,
    captures,
    compile_user_query,
    detect_language,
    extract_symbols,
    glob_matcher,
    parse,
    read_beneath,
)
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
from search.frontends.server.models import AstCapture, AstQueryOutput, OutlineNode, OutlineOutput
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState
from search.workspace.confine import Confined
from search.workspace.files import read_regular_file
from search.workspace.ripgrep import language_of

MAX_OUTLINE_NODES = 3000
MAX_OUTLINE_DEPTH = 64  # levels of nesting shown; what lies deeper is listed at the last level
MAX_AST_FILES = 5000
AST_SECONDS = 30.0
CAPTURE_CHARS = 300


def outline(
    state: ServerState,
    path: Annotated[str, Field(description="The file to outline, relative to the workspace root.")],
) -> Annotated[CallToolResult, OutlineOutput]:
    """A file's definitions as a tree (classes with their methods and fields, functions, types, enums
    with their variants, constants and variables), each with kind, line range and signature, parsed
    from the current file contents. Use it to understand a file's structure before reading it, or to
    pick the lines to read_file."""
    ws, confined = state.resolve(path)
    rel = confined.relpath
    data = read_regular_file(confined, ws.settings.max_file_bytes)
    language = detect_language(rel, data[:8192])
    if language not in SYMBOL_LANGUAGES:
        raise QueryError(
            f"{rel}: no outline for {language or 'this file type'} (no tree-sitter tags for it); "
            "read it with read_file or search it with grep."
        )
    symbols = extract_symbols(data, language, rel)
    nodes = _tree(symbols[:MAX_OUTLINE_NODES])
    out = OutlineOutput(
        path=rel,
        root=str(ws.root),
        language=language,
        symbols=nodes,
        total=len(symbols),
        truncated=len(symbols) > MAX_OUTLINE_NODES,
    )
    lines = [f"{state.display(ws.root, rel)} ({language}, {len(symbols)} definitions)"]
    lines += _render_outline(nodes, 0)
    if out.truncated:
        lines.append(truncation_note(MAX_OUTLINE_NODES, len(symbols), "definitions", "read_file ranges"))
    return respond(out, "\n".join(lines))


def ast_query(
    state: ServerState,
    query: Annotated[
        str,
        Field(
            description="A tree-sitter query in S-expression syntax with @captures, e.g. "
            "'(function_definition name: (identifier) @name)'; node types and fields are the grammar's."
        ),
    ],
    language: Annotated[
        str | None,
        Field(
            description="The grammar (python, go, typescript, tsx, javascript, rust, java, c, cpp, ...). "
            "Required for a directory; for a file it defaults to the file's language."
        ),
    ] = None,
    path: Annotated[
        str | None,
        Field(description="A file or directory to query, relative to the workspace root (default: all)."),
    ] = None,
    glob: Annotated[
        list[str] | str | None, Field(description="Only files matching these gitignore-style globs.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=2000, description="Maximum captures returned.")] = 100,
) -> Annotated[CallToolResult, AstQueryOutput]:
    """Structural search: run a tree-sitter query over a file or the files of one language and
    return every capture with its location (path, 1-based line and column range, node type, text).
    Use it for syntax-aware questions text search cannot answer exactly (calls with a given number of
    arguments, functions with a decorator, classes deriving from X). A malformed query returns an
    error naming the line and column of the problem."""
    targets = state.targets(path)
    if language is None:
        single = targets[0][1] if len(targets) == 1 else None
        if single is None or not single.abspath.is_file():
            raise QueryError(
                "pass language (e.g. python) to query a directory; the query is grammar-specific."
            )
        # As when indexed (a .h that shows C++ is C++, a script by its #! line); a file that cannot be
        # read is reported by the read of the query's files below.
        language = language_of(single.root, single.relpath)
        if language is None:
            raise QueryError(f"cannot tell the language of {path}; pass language explicitly.")
    compiled = compile_user_query(language, query)
    captures: list[AstCapture] = []
    total = 0
    searched = 0
    cut: str | None = None
    deadline = time.monotonic() + AST_SECONDS
    size = 0
    for ws, confined in targets:
        for rel, data in _files(ws, confined, language, as_list(glob)):
            if searched >= MAX_AST_FILES or time.monotonic() > deadline:
                cut = f"stopped after {searched} files (limits: {MAX_AST_FILES} files, {AST_SECONDS:.0f}s)"
                break
            searched += 1
            for cap in _captures(compiled, parse(data, language), data, rel, str(ws.root)):
                total += 1
                size += len(cap.text) + 80
                if len(captures) < limit and size <= MAX_OUTPUT_CHARS:
                    captures.append(cap)
        if cut:
            break
    notes = []
    if total > len(captures):
        notes.append(
            truncation_note(len(captures), total, "captures", "path, glob, a tighter query or limit")
        )
    if cut:
        notes.append(cut + "; narrow with path or glob")
    out = AstQueryOutput(
        language=language,
        captures=captures,
        files_searched=searched,
        total_captures=total,
        truncated=bool(notes),
        note="; ".join(notes) or None,
    )
    lines = [
        f"{state.display(c.root, c.path)}:{c.start_line}:{c.start_column} @{c.capture} ({c.node_type}) "
        + c.text.split("\n", 1)[0][:200]
        for c in captures
    ]
    lines.append(f"[{total} capture(s) in {searched} file(s)]")
    if out.note:
        lines.append(f"note: {out.note}")
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    add("outline", bound(outline, state))
    add("ast_query", bound(ast_query, state))


def _tree(symbols: list[Symbol]) -> list[OutlineNode]:
    """Nest definitions by line-range containment (input sorted by start, longest first)."""
    roots: list[OutlineNode] = []
    stack: list[tuple[OutlineNode, int]] = []
    for s in symbols:
        node = OutlineNode(
            name=s.name,
            qualified_name=s.qualified_name,
            kind=s.kind,
            start_line=s.start_line,
            end_line=s.end_line,
            signature=s.signature,
            children=[],
        )
        while stack and s.start_line > stack[-1][1]:
            stack.pop()
        if stack and s.end_line <= stack[-1][1]:
            if len(stack) >= MAX_OUTLINE_DEPTH:
                # deeper still (modules nested thousands deep): a child of the deepest level shown
                stack[MAX_OUTLINE_DEPTH - 2][0].children.append(node)
                continue
            stack[-1][0].children.append(node)
        else:
            roots.append(node)
        stack.append((node, s.end_line))
    return roots


def _render_outline(nodes: list[OutlineNode], depth: int) -> list[str]:
    lines: list[str] = []
    for n in nodes:
        lines.append(f"{'  ' * depth}{n.start_line}-{n.end_line} {n.kind}: {clip(n.signature, 160)}")
        lines += _render_outline(n.children, depth + 1)
    return lines


def _files(
    ws: Workspace, confined: Confined | None, language: str, globs: list[str]
) -> Iterator[tuple[str, bytes]]:
    """(relpath, bytes) of the files of ``language`` in the scope, in walk order."""
    if confined is not None and confined.abspath.is_file():
        yield confined.relpath, read_regular_file(confined, ws.settings.max_file_bytes)
        return
    prefix = None if confined is None or confined.relpath == "." else confined.relpath + "/"
    ok = glob_matcher(globs)
    for f in Walker(ws.settings).walk():
        if f.language != language or (prefix and not f.path.startswith(prefix)) or (ok and not ok(f.path)):
            continue
        try:
            yield f.path, read_beneath(ws.root, f.path, ws.settings.max_file_bytes)
        except OSError:
            continue  # vanished, turned special, or a symlink swapped into its path since the walk


def _captures(
    query: tree_sitter.Query, tree: tree_sitter.Tree, data: bytes, rel: str, root: str
) -> list[AstCapture]:
    lines = data.split(b"\n")
    out = []
    for name, node in captures(query, tree):
        (sr, sc), (er, ec) = node.start_point, node.end_point
        text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
        out.append(
            AstCapture(
                path=rel,
                root=root,
                capture=name,
                node_type=node.type,
                start_line=sr + 1,
                start_column=_char_col(lines, sr, sc) + 1,
                end_line=er + 1,
                end_column=_char_col(lines, er, ec) + 1,
                text=clip(text, CAPTURE_CHARS),
            )
        )
    return out


def _char_col(lines: list[bytes], row: int, byte_col: int) -> int:
    if row >= len(lines):
        return byte_col
    return len(lines[row][:byte_col].decode("utf-8", "ignore"))

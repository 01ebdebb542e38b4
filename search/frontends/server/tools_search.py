"""Search tools: ``search`` (hybrid), ``grep`` (ripgrep, :mod:`search.frontends.server.tools_grep`) and
``find_symbol`` (the symbol index), each a module-level function of ``(state, ...)`` that tests can call;
:func:`register` only binds them to the server's state.

Each tool is a few lines over the library (``Engine.search``, the ripgrep gateway, ``Index.lookup_symbols``)
plus a compact text rendering; structured outputs are the models in :mod:`search.frontends.server.models`.
Tools without a path cover every root; a path (relative to the first root, or absolute) selects the
root that holds it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from mcp_types import CallToolResult
from pydantic import Field

from indexer import SymbolKind
from search.engine.engine import MAX_LIMIT
from search.engine.federation import merge_roots
from search.engine.snippets import (
    DECORATOR,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MORE,
    focus_spans,
    location_line,
    monotonic_scores,
    read_span,
)
from search.errors import QueryError
from search.frontends.server.boundary import (
    MAX_OUTPUT_CHARS,
    ToolAdder,
    as_list,
    bound,
    respond,
    truncation_note,
)
from search.frontends.server.models import (
    FindSymbolOutput,
    SearchLocationOut,
    SearchOutput,
    SearchResultOut,
    SymbolOut,
)
from search.frontends.server.params import Globs, Language, Repos
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState
from search.frontends.server.tools_grep import check_chosen, grep
from search.types import Query, Scope
from search.workspace.ignores import check_language
from search.workspace.scope import parse_scope

__all__ = ["find_symbol", "grep", "register", "search"]

Mode = Literal["hybrid", "text", "symbol", "semantic"]
BODY_LINES = 200  # lines of a definition's body find_symbol returns
DECORATOR_LINES = 6  # lines above a definition searched for its decorators


def search(
    state: ServerState,
    query: Annotated[
        str,
        Field(
            description="What to find: a natural-language description "
            "('where are retries configured'), an identifier ('RetryPolicy', 'parse_config'), "
            "a literal string, or a regex (set regex=true)."
        ),
    ],
    mode: Annotated[
        Mode,
        Field(
            description="hybrid (default: text + symbols + semantic, fused) | text (ripgrep over live "
            "files) | symbol (definitions by name) | semantic (embeddings only)."
        ),
    ] = "hybrid",
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Maximum results (1-200).")] = 10,
    scope: Annotated[
        str,
        Field(
            description="ws (all files, default) | changed (git-modified and untracked files) | "
            "dir:PATH | file:PATH (PATH relative to the workspace root)."
        ),
    ] = "ws",
    glob: Globs = None,
    language: Language = None,
    regex: Annotated[bool, Field(description="Treat the query as a regular expression.")] = False,
    max_tokens: Annotated[
        int,
        Field(
            ge=100,
            le=20000,
            description="Budget for all snippets together, in tokens (about 4 characters each); "
            "the first results get their share first.",
        ),
    ] = DEFAULT_MAX_TOKENS,
    explain: Annotated[
        bool,
        Field(description="Add to each result why it ranks there: retriever ranks and ranking rules."),
    ] = False,
    repos: Repos = None,
    more: Annotated[
        int,
        Field(
            ge=0,
            le=50,
            description="How many results after `limit` to list by location only (path, lines, symbol; "
            "about 20 tokens each), 0 for none.",
        ),
    ] = DEFAULT_MORE,
) -> Annotated[CallToolResult, SearchOutput]:
    """Hybrid code search: ripgrep, the symbol index and embeddings run in parallel and are fused
    with reciprocal-rank fusion. Each result is a chunk-sized span (path, line range, enclosing
    symbol, each retriever's rank) with a numbered snippet centred on the matching line or the
    definition, cut to a shared token budget and ending with where to read on; the next `more`
    results follow as locations only. Use it first for
    any question about the code, in words or identifiers, or with an error message, log line or
    stack trace pasted unquoted as it was printed (the code that prints it, the lines a trace names
    come first; "class Console" or "where is parse_args defined" finds that definition first, "who
    calls parse_args" its usages); prefer
    grep for every occurrence of an
    exact string or regex, find_symbol for where a name is defined, find_references for its
    usages, and outline for a file's structure. Results from files changed since the last index
    are marked stale; a retriever that failed is listed in degraded while the others answer, and
    while the index is being built the text and symbol retrievers answer at once. With several
    repositories, each ranks its own results and the lists are fused (tier first, then rank within
    each repository), so a large repository does not drown a small one; `repos` picks a subset,
    and each result names its `repo`."""
    plan = _search_plan(state, parse_scope(scope, as_list(glob), language), as_list(repos))
    if mode in ("hybrid", "semantic"):
        state.wait_warm()
    per_root: list[list[SearchResultOut]] = []
    degraded: dict[str, str] = {}
    notes: list[str] = []
    coverage: list[str] = []
    wanted = min(MAX_LIMIT, limit + more)
    for ws, where in plan:
        asked = Query(query, mode=mode, limit=wanted, regex=regex, explain=explain, page=limit)
        resp = ws.engine.search(asked, where)
        name = state.repo(ws)
        # Scores that fall with the rank: each engine's order is what the fusion across roots reads.
        per_root.append(
            [
                SearchResultOut(**r.to_json(), root=str(ws.root), repo=name)
                for r in monotonic_scores(resp.results)
            ]
        )
        prefix = "" if len(plan) == 1 else f"{name}: "
        degraded.update({k: prefix + _agent_advice(state, ws, why) for k, why in resp.degraded.items()})
        building = state.index_note(ws)
        if building:
            notes.append(building)
        notes += [prefix + n for n in resp.notes]
        if resp.coverage is not None:
            coverage.append(prefix + resp.coverage.describe())
    ranked = _rank_across_roots(per_root)[:wanted]
    results, after = ranked[:limit], ranked[limit:]
    snippets = focus_spans(results, lambda r: r.root, query, regex=regex, max_tokens=max_tokens)
    results = [
        r.model_copy(update={"snippet": snip.numbered(), "snippet_line": snip.start_line})
        for r, snip in zip(results, snippets, strict=True)
    ]
    shown: list[SearchResultOut] = []
    size = 0
    for r in results:
        size += 2 * len(r.snippet) + len(r.path) + len(r.root) + 300  # text and structured content
        if shown and size > MAX_OUTPUT_CHARS:
            break
        shown.append(r)
    if len(shown) < len(results):
        notes.append(
            truncation_note(
                len(shown), len(results), "results (output cap)", "scope, glob, language or a lower limit"
            )
        )
    listed = [
        SearchLocationOut(
            path=r.path, start_line=r.start_line, end_line=r.end_line, score=r.score, symbol=r.symbol,
            kind=r.kind, root=r.root, repo=r.repo,
        )
        for r in (after if len(shown) == len(results) else [])
    ]  # fmt: skip
    out = SearchOutput(
        query=query,
        mode=mode,
        results=shown,
        more=listed,
        degraded=degraded,
        notes=notes,
        coverage="; ".join(coverage) or None,
        truncated=len(shown) < len(results),
    )
    return respond(out, _render_search(state, out))


def find_symbol(
    state: ServerState,
    name: Annotated[
        str,
        Field(
            description="A definition's name or qualified name ('backoff', 'RetryPolicy.backoff'); "
            "case/underscore-insensitive, prefix and fuzzy matches are found too, ranked lower."
        ),
    ],
    kind: Annotated[
        list[SymbolKind] | None,
        Field(
            description="Only these kinds (class, function, method, interface, struct, field, variant, ...)."
        ),
    ] = None,
    language: Language = None,
    path: Annotated[
        str | None, Field(description="Only definitions under this directory or in this file.")
    ] = None,
    glob: Globs = None,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Maximum definitions (1-200).")] = 20,
    include_body: Annotated[
        bool,
        Field(
            description="Also return each definition's source (numbered lines, decorators included, "
            f"up to {BODY_LINES} lines each)."
        ),
    ] = False,
) -> Annotated[CallToolResult, FindSymbolOutput]:
    """Find where a class, function, method, type or constant is defined, from the symbol index:
    name, kind, qualified name, file, line range and signature, and with include_body the source
    of each definition. Use it when you know (part of) a name; use search for behaviour described
    in words and find_references for the places that use a name."""
    symbols: list[SymbolOut] = []
    missing: list[str] = []
    check_language(language)
    targets = state.targets(path)
    for ws, confined in targets:
        if not ws.index.exists():
            missing.append(str(ws.root))
            continue
        prefix = None if confined is None or confined.relpath == "." else confined.relpath
        for m in ws.index.lookup_symbols(
            name, kinds=kind, language=language, globs=as_list(glob), path_prefix=prefix, limit=limit
        ):
            s = m.symbol
            symbols.append(
                SymbolOut(
                    name=s.name,
                    qualified_name=s.qualified_name,
                    kind=s.kind,
                    path=s.path,
                    root=str(ws.root),
                    repo=state.repo(ws),
                    language=s.language,
                    start_line=s.start_line,
                    end_line=s.end_line,
                    signature=s.signature,
                    score=round(m.score, 4),
                    match=m.match,
                )
            )
    if len(missing) == len(targets):
        raise QueryError(
            f"{missing[0]} has no index yet; call reindex (or run `plait index {missing[0]}`), "
            "or use grep meanwhile."
        )
    symbols.sort(key=lambda s: -s.score)
    note = f"no index yet for {', '.join(missing)}; call reindex to build it" if missing else None
    symbols, cut = symbols[:limit], len(symbols) > limit
    if include_body:
        symbols, capped = _with_bodies(symbols)
        if capped:
            cut = True
            note = (note + "; " if note else "") + truncation_note(
                len(symbols),
                "more",
                "definitions with bodies (output cap)",
                "kind, path or a lower limit",
            )
    out = FindSymbolOutput(name=name, symbols=symbols, truncated=cut, note=note)
    lines = [
        f"{state.display(s.root, s.path)}:{s.start_line}-{s.end_line}  {s.kind} {s.qualified_name}"
        f"  [{s.match}]\n"
        + ("\n".join("  " + b for b in s.body.split("\n")) if s.body else f"    {s.signature}")
        for s in out.symbols
    ] or [f"no definitions match {name!r}; try search, or grep for the name"]
    if note:
        lines.append(note)
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    """Wire the search-side tools (``search``, ``grep``, ``find_symbol``) to ``state``."""
    add("search", bound(search, state))
    add("grep", bound(grep, state))
    add("find_symbol", bound(find_symbol, state))


# --- search --------------------------------------------------------------------------------------------


def _with_bodies(symbols: list[SymbolOut]) -> tuple[list[SymbolOut], bool]:
    """Each definition with its numbered source (decorators above it included), within the output cap."""
    out: list[SymbolOut] = []
    size = 0
    for s in symbols:
        top = max(1, s.start_line - DECORATOR_LINES)
        lines = read_span(s.root, s.path, top, min(s.end_line, s.start_line + BODY_LINES - 1))
        above = lines[: s.start_line - top]
        keep = len(above)
        while keep > 0 and DECORATOR.match(above[keep - 1]):
            keep -= 1
        first = top + keep
        body = lines[keep:]
        width = len(str(first + len(body)))
        text = "\n".join(f"{n:>{width}}│ {line}" for n, line in enumerate(body, start=first))
        if s.end_line > s.start_line + BODY_LINES - 1:
            text += f"\n{'':>{width}}┆ … read on with read_file offset={s.start_line + BODY_LINES}"
        size += 2 * len(text) + 300
        if out and size > MAX_OUTPUT_CHARS:
            return out, True
        out.append(s.model_copy(update={"body": text}))
    return out, False


def _search_plan(
    state: ServerState, scope: Scope, repos: list[str] | None = None
) -> list[tuple[Workspace, Scope]]:
    """Which engines to ask, each with its scope: ``ws``/``changed`` for every chosen root, a path for
    the root holding it (made relative to that root)."""
    chosen = state.select(repos)
    if scope.path is None:
        return [(ws, scope) for ws in chosen]
    ws, confined = state.resolve(scope.path)
    check_chosen(state, ws, chosen, scope.path)
    if confined.relpath == ".":
        return [(ws, replace(scope, kind="ws", path=None))]
    return [(ws, replace(scope, path=confined.relpath))]


def _rank_across_roots(per_root: list[list[SearchResultOut]]) -> list[SearchResultOut]:
    """One ranking: a single root keeps its own; several are fused per :mod:`search.engine.federation`."""
    if len(per_root) == 1:
        return per_root[0]
    return [m.item.model_copy(update={"score": round(m.score, 6)}) for m in merge_roots(per_root)]


def _agent_advice(state: ServerState, ws: Workspace, why: str) -> str:
    """A degraded retriever's reason, told in the tools an agent has rather than shell commands."""
    if "no index yet" not in why:
        return why
    job = state.jobs.running(ws.root)
    if job is not None:
        return (
            f"the index is being built in the background ({job.describe()}); call index_status to follow it"
        )
    return "no index yet; call reindex to build it (it runs in the background)"


def _render_search(state: ServerState, out: SearchOutput) -> str:
    parts: list[str] = []
    for i, r in enumerate(out.results, start=1):
        ranks = " ".join(f"{k}#{v}" for k, v in r.sources.items() if v is not None)
        stale = "  [stale]" if r.stale else ""
        head = location_line(
            i, state.display(r.root, r.path), r.start_line, r.end_line, r.symbol, r.kind, r.score
        )
        body = "\n".join("  " + line for line in r.snippet.split("\n"))
        parts.append(f"{head}  via {ranks}{stale}\n{body}")
    if out.more:
        parts.append("more results, by location only (read_file shows one):")
        for i, m in enumerate(out.more, start=len(out.results) + 1):
            parts.append(
                location_line(
                    i, state.display(m.root, m.path), m.start_line, m.end_line, m.symbol, m.kind, m.score
                )
            )
    if not out.results:
        parts.append(f"no results for {out.query!r}; try other words, mode=text, or a wider scope")
    parts += [f"degraded: {name}: {why}" for name, why in out.degraded.items()]
    parts += [f"note: {n}" for n in out.notes]
    return "\n".join(parts)

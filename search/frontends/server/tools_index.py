"""Index and info tools: ``index_status``, ``reindex`` (category ``index``) and ``server_info``."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from indexer import Walker, describe_revision, read_watcher_state
from search.errors import QueryError
from search.frontends.server.boundary import ToolAdder, bound, respond
from search.frontends.server.jobs import IndexJob, describe_job
from search.frontends.server.models import (
    IndexJobOut,
    IndexStatusOut,
    IndexStatusOutput,
    ReindexOutput,
    RootInfo,
    ServerInfoOutput,
    ToolInfo,
)
from search.frontends.server.registry import TOOLS
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState

log = logging.getLogger(__name__)
REINDEX_WAIT_SECONDS = 50.0  # under the 60 s many clients allow a call
SERVER_NAME = "plait"

RootPath = Annotated[
    str | None,
    Field(description="A workspace root or a path inside one (default: every root)."),
]


def plait_version() -> str:
    try:
        return version("plait")
    except PackageNotFoundError:
        return "0+unknown"


def index_status(
    state: ServerState,
    path: RootPath = None,
    check_files: Annotated[
        bool, Field(description="Compare the files on disk with the index to list changed ones (slower).")
    ] = True,
) -> Annotated[CallToolResult, IndexStatusOutput]:
    """Index state per root (missing, corrupt, schema_mismatch, stale or fresh) with counts of files,
    symbols, chunks and embedded vectors, the model, the files changed since the last build, the
    last build, whether a watcher keeps it fresh, and any background index build with its phase and
    progress. Use it when results look stale or semantic search is degraded, and to follow a build
    that reindex started; call reindex to bring a stale or missing index up to date."""
    roots = []
    jobs: list[IndexJobOut] = []
    for ws, _ in state.targets(path):
        # the job first: a job reported done has published what the root's status then reads (read
        # the other way round, a build finishing in between shows done beside the state before it)
        job = state.jobs.jobs.get(ws.root)
        if job is not None:
            jobs.extend(IndexJobOut(**d) for d in state.jobs.read([job]))
        st = state.freshness(ws) if check_files else ws.index.status(check_files=False)
        data = st.as_dict()
        data["watcher"] = read_watcher_state(ws.settings)
        data["repo"] = state.repo(ws)
        roots.append(IndexStatusOut(**data))
    out = IndexStatusOutput(roots=roots, jobs=jobs)
    lines = []
    for r in roots:
        lines.append(f"{r.repo} ({r.root}): {r.state}" + (f" ({r.detail})" if r.detail else ""))
        lines.append(
            f"  {r.files:,} files, {r.symbols:,} symbols, {r.chunks:,} chunks; {r.vector_coverage}"
            + (f"; model {r.model}" if r.model else "")
        )
        if r.tiers:
            tiers = ", ".join(f"{t} {d['vectors']:,}/{r.chunks:,}" for t, d in r.tiers.items())
            lines.append(f"  vector tiers: {tiers}; searches use {r.search_tier or 'none'}")
        if r.rerank is not None:
            lines.append(f"  re-rank of sentences by the full model: {r.rerank}")
        if r.changed_count:
            sample = (r.stale_files + r.new_files + r.deleted_files)[:5]
            lines.append(f"  {r.changed_count} file(s) changed since the last build: {', '.join(sample)}")
        if r.revision is not None or r.checkout is not None:
            lines.append(
                f"  indexed {describe_revision(r.revision)}; checkout {describe_revision(r.checkout)}"
            )
    lines += [f"{j.root}: {describe_job(j)}" for j in jobs]
    return respond(out, "\n".join(lines))


def reindex(
    state: ServerState,
    ctx: Context[Any, Any],
    path: Annotated[
        str | None,
        Field(
            description="A file or directory to reindex, relative to the workspace root; omitted or a "
            "root: the whole root (only changed files are re-parsed and re-embedded)."
        ),
    ] = None,
    full: Annotated[
        bool,
        Field(
            description="Rebuild the whole root from scratch (slow; embeddings of unchanged text are reused)."
        ),
    ] = False,
    vectors: Annotated[
        bool, Field(description="Also compute embeddings (false: symbols and chunks only, faster).")
    ] = True,
    wait: Annotated[
        bool,
        Field(
            description="Wait for the build to finish (up to 50 s, with progress notifications) instead "
            "of returning at once."
        ),
    ] = False,
) -> Annotated[CallToolResult, ReindexOutput]:
    """Start bringing the index up to date in the background, for every root, one root, a directory
    or one file, and return at once with the job's state; index_status follows it (phase and counts),
    and wait=true waits for it while sending progress notifications. Incremental: only files whose
    content changed are processed. Use it after large changes made outside this server or when
    index_status reports stale or missing; search keeps answering from text and symbols meanwhile.
    Files written through this server's write and edit tools are reindexed automatically."""
    jobs: list[IndexJob] = []
    started: list[str] = []
    for ws, confined in state.targets(path):
        if confined is None or confined.relpath == ".":
            scope, paths = "root", None
        else:
            if full:
                raise QueryError("full=true rebuilds a whole root; omit path (or pass the root) to use it.")
            scope, paths = confined.relpath, _paths_under(ws, confined.relpath, confined.abspath.is_dir())
        job, new = state.jobs.start(
            ws.root, reason="reindex", full=full, vectors=vectors, paths=paths, scope=scope
        )
        jobs.append(job)
        if new:
            started.append(str(ws.root))
    if wait:
        report = _progress_reporter(ctx, jobs)
        state.jobs.wait(jobs, REINDEX_WAIT_SECONDS, report)
        report()
    out = ReindexOutput(jobs=[IndexJobOut(**d) for d in state.jobs.read(jobs)], started=started)
    lines = []
    for j in out.jobs:
        was = "" if j.root in started else " (already running; not started again)"
        lines.append(f"{j.root} ({j.scope}): {describe_job(j)}{was}")
        d = j.report
        if d is not None:
            lines.append(
                f"  {d['files']} files checked, {d['changed']} changed, {d['deleted']} deleted; "
                f"{d['symbols']} symbols and {d['chunks']} chunks written, {d['embedded']} embedded, "
                f"in {d['seconds']}s"
            )
            lines += [f"  warning: {e}" for e in list(d.get("errors") or [])[:5]]
    if any(j.state == "running" for j in out.jobs):
        lines.append("call index_status to follow the build; search answers from text and symbols meanwhile")
    return respond(out, "\n".join(lines))


def server_info(state: ServerState) -> Annotated[CallToolResult, ServerInfoOutput]:
    """This server's version, workspace roots (with index state and size), read-only flag,
    transport, embedding model, and the enabled tools by category. Call it first to learn which
    roots and tools are available."""
    roots = []
    for ws in state.workspaces.values():
        st = state.freshness(ws)
        job = state.jobs.running(ws.root)
        roots.append(
            RootInfo(
                path=str(ws.root),
                index_dir=ws.settings.index_dir,
                index_state=st.state.value,
                indexing=job.describe() if job is not None else None,
                files=st.files,
                symbols=st.symbols,
                chunks=st.chunks,
                vectors=st.vectors,
            )
        )
    sel = state.selection
    model = state.primary.settings.model
    out = ServerInfoOutput(
        name=SERVER_NAME,
        version=plait_version(),
        roots=roots,
        read_only=sel.read_only,
        transport=state.transport,
        model=model.name,
        device=model.device,
        model_loaded=state.preloaded,
        watching=state.watching,
        tools=[
            ToolInfo(
                name=n,
                category=TOOLS[n].category,
                read_only=bool(TOOLS[n].annotations.read_only_hint),
                destructive=bool(TOOLS[n].annotations.destructive_hint),
            )
            for n in sel.enabled
        ],
        disabled_tools=sorted(sel.refusals),
        categories=sel.by_category(),
    )
    lines = [f"plait {out.version} over {out.transport}" + (" (read-only)" if out.read_only else "")]
    lines += [
        f"root {r.path}: index {r.index_state}, {r.files:,} files, {r.chunks:,} chunks, "
        f"{r.vectors:,} vectors" + (f"; {r.indexing}" if r.indexing else "")
        for r in roots
    ]
    lines.append(f"model {out.model} on {out.device}" + (" (loaded)" if out.model_loaded else ""))
    lines += [f"{cat}: {', '.join(names)}" for cat, names in out.categories.items()]
    if out.disabled_tools:
        lines.append(f"not offered: {', '.join(out.disabled_tools)}")
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    add("index_status", bound(index_status, state))
    add("reindex", bound(reindex, state))
    add("server_info", bound(server_info, state))


def _progress_reporter(ctx: Context[Any, Any], jobs: list[IndexJob]) -> Callable[[], None]:
    """Send an MCP progress notification when the jobs' counts change (the tool runs in a worker thread)."""
    last: list[tuple[str, int, int]] = []

    def report() -> None:
        phases = [(j.phase, j.done, j.total) for j in jobs]
        if phases == last:
            return
        last[:] = phases
        done = sum(j.done for j in jobs)
        total = sum(j.total for j in jobs) or None
        message = "; ".join(f"{j.phase} {j.done:,}/{j.total:,}" if j.total else j.phase for j in jobs)
        try:
            anyio.from_thread.run(functools.partial(ctx.report_progress, done, total, message))
        except Exception as exc:  # the client went away, or no request to report to: not the build's problem
            log.debug("progress notification not sent: %s", exc)

    return report


def _paths_under(ws: Workspace, rel: str, is_dir: bool) -> list[str]:
    """The files to re-check for a directory (on disk and in the index, so deletions count) or one file."""
    if not is_dir:
        return [rel]
    prefix = rel.rstrip("/") + "/"
    live = {f.path for f in Walker(ws.settings).walk() if f.path.startswith(prefix)}
    indexed = {p for p in ws.index.manifest() if p.startswith(prefix)}
    return sorted(live | indexed)

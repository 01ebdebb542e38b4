"""Index and info tools: ``index_status``, ``reindex`` (category ``index``) and ``server_info``."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

from mcp_types import CallToolResult
from pydantic import Field

from indexer import Walker
from indexer.daemon_state import read_watcher_state
from search.errors import QueryError
from search.server.boundary import ToolAdder, respond
from search.server.models import (
    IndexStatusOut,
    IndexStatusOutput,
    ReindexOutput,
    ReindexRootOut,
    RootInfo,
    ServerInfoOutput,
    ToolInfo,
)
from search.server.registry import TOOLS
from search.server.state import ServerState, Workspace

REINDEX_WAIT_SECONDS = 120.0
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


def register(add: ToolAdder, state: ServerState) -> None:
    def index_status(
        path: RootPath = None,
        check_files: Annotated[
            bool, Field(description="Compare the files on disk with the index to list changed ones (slower).")
        ] = True,
    ) -> Annotated[CallToolResult, IndexStatusOutput]:
        """Index state per root: missing, corrupt, schema_mismatch, stale or fresh; counts of files,
        symbols, chunks and embedded vectors; the model; files changed since the last build; the last
        build and whether a watcher keeps it fresh. Use it when results look stale or semantic search
        is degraded; then call reindex."""
        roots = []
        for ws, _ in state.targets(path):
            data = ws.index.status(check_files=check_files).as_dict()
            data["watcher"] = read_watcher_state(ws.settings)
            data["repo"] = state.repo(ws)
            roots.append(IndexStatusOut(**data))
        out = IndexStatusOutput(roots=roots)
        lines = []
        for r in roots:
            lines.append(f"{r.repo} ({r.root}): {r.state}" + (f" ({r.detail})" if r.detail else ""))
            lines.append(
                f"  {r.files:,} files, {r.symbols:,} symbols, {r.chunks:,} chunks; {r.vector_coverage}"
                + (f"; model {r.model}" if r.model else "")
            )
            if r.changed_count:
                sample = (r.stale_files + r.new_files + r.deleted_files)[:5]
                lines.append(f"  {r.changed_count} file(s) changed since the last build: {', '.join(sample)}")
        return respond(out, "\n".join(lines))

    def reindex(
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
                description="Rebuild the whole root from scratch (slow; embeddings of "
                "unchanged text are reused)."
            ),
        ] = False,
        vectors: Annotated[
            bool, Field(description="Also compute embeddings (false: symbols and chunks only, faster).")
        ] = True,
    ) -> Annotated[CallToolResult, ReindexOutput]:
        """Bring the index up to date now, for every root, one root, a directory or one file; returns
        what changed. Incremental: only files whose content changed are processed. Use it after large
        changes made outside this server, or when index_status reports stale or missing. Files written
        through this server's write and edit tools are reindexed automatically."""
        out: list[ReindexRootOut] = []
        for ws, confined in state.targets(path):
            if confined is None or confined.relpath == ".":
                scope, paths = "root", None
            else:
                if full:
                    raise QueryError(
                        "full=true rebuilds a whole root; omit path (or pass the root) to use it."
                    )
                scope, paths = confined.relpath, _paths_under(ws, confined.relpath, confined.abspath.is_dir())
            report = ws.index.build(full=full, vectors=vectors, paths=paths, wait=REINDEX_WAIT_SECONDS)
            out.append(ReindexRootOut(root=str(ws.root), scope=scope, report=report.as_dict()))
        result = ReindexOutput(roots=out)
        lines = []
        for r in out:
            d = r.report
            lines.append(
                f"{r.root} ({r.scope}): {d['files']} files checked, {d['changed']} changed, "
                f"{d['deleted']} deleted; "
                f"{d['symbols']} symbols and {d['chunks']} chunks written, {d['embedded']} embedded, "
                f"in {d['seconds']}s"
            )
            lines += [f"  warning: {e}" for e in list(d.get("errors") or [])[:5]]
        return respond(result, "\n".join(lines))

    def server_info() -> Annotated[CallToolResult, ServerInfoOutput]:
        """This server's version, workspace roots (with index state and size), read-only flag,
        transport, embedding model, and the enabled tools by category. Call it first to learn which
        roots and tools are available."""
        roots = []
        for ws in state.workspaces.values():
            st = ws.index.status(check_files=False)
            roots.append(
                RootInfo(
                    path=str(ws.root),
                    index_dir=ws.settings.index_dir,
                    index_state=st.state.value,
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
            f"{r.vectors:,} vectors"
            for r in roots
        ]
        lines.append(f"model {out.model} on {out.device}" + (" (loaded)" if out.model_loaded else ""))
        lines += [f"{cat}: {', '.join(names)}" for cat, names in out.categories.items()]
        if out.disabled_tools:
            lines.append(f"not offered: {', '.join(out.disabled_tools)}")
        return respond(out, "\n".join(lines))

    add("index_status", index_status)
    add("reindex", reindex)
    add("server_info", server_info)


def _paths_under(ws: Workspace, rel: str, is_dir: bool) -> list[str]:
    """The files to re-check for a directory (on disk and in the index, so deletions count) or one file."""
    if not is_dir:
        return [rel]
    prefix = rel.rstrip("/") + "/"
    live = {f.path for f in Walker(ws.settings).walk() if f.path.startswith(prefix)}
    indexed = {p for p in ws.index.manifest() if p.startswith(prefix)}
    return sorted(live | indexed)

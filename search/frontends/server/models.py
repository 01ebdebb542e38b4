"""Typed outputs of the MCP tools: each model is a tool's ``outputSchema`` and its structured content.

Paths are relative to their workspace root (forward slashes); ``root`` says which root when a server
has several. Lines are 1-based and inclusive.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

# --- search ------------------------------------------------------------------------------------------


class SearchResultOut(BaseModel):
    path: str = Field(description="File path relative to its root.")
    start_line: int
    end_line: int
    score: float = Field(description="Fused RRF score; results are sorted by it, descending.")
    symbol: str | None = Field(description="Enclosing definition (qualified name), if any.")
    kind: str | None
    language: str | None
    snippet: str = Field(
        description="Numbered lines around the match (or the definition line) within the span; a last line "
        "says where to read on (read_file offset=N) when the span continues."
    )
    snippet_line: int | None = Field(None, description="The file's line number of the snippet's first line.")
    sources: dict[str, int | None] = Field(description="1-based rank per retriever (text, symbol, vector).")
    stale: bool = Field(False, description="The file changed since it was indexed.")
    explain: dict[str, Any] | None = Field(
        None,
        description="With explain=true: each retriever's rank, the fused score and every ranking rule applied.",
    )
    root: str
    repo: str = Field(description="The repository's short name (pass it in `repos` to search only it).")


class SearchLocationOut(BaseModel):
    path: str = Field(description="File path relative to its root.")
    start_line: int
    end_line: int
    score: float
    symbol: str | None = Field(description="Enclosing definition (qualified name), if any.")
    kind: str | None
    root: str
    repo: str


class SearchOutput(BaseModel):
    query: str
    mode: str
    results: list[SearchResultOut]
    more: list[SearchLocationOut] = Field(
        default_factory=list,
        description="The results after `limit`, by location only (no snippet), best first; read_file shows one.",
    )
    degraded: dict[str, str] = Field(description="Retrievers that failed or timed out, and why.")
    notes: list[str]
    coverage: str | None = Field(description="How many chunks have embeddings (semantic coverage).")
    truncated: bool


class GrepLine(BaseModel):
    line: int
    text: str
    match: bool = Field(description="True for a matching line, false for a context line.")


class GrepFile(BaseModel):
    path: str
    root: str
    repo: str = Field(description="The repository's short name.")
    count: int | None = Field(description="Matching lines in the file (content and count modes).")
    lines: list[GrepLine] = Field(description="Matching and context lines (content mode only).")


class GrepOutput(BaseModel):
    pattern: str
    output_mode: str
    files: list[GrepFile]
    total_files: int
    total_matches: int | None
    truncated: bool
    note: str | None


class SymbolOut(BaseModel):
    name: str
    qualified_name: str
    kind: str
    path: str
    root: str
    repo: str = Field(description="The repository's short name.")
    language: str
    start_line: int
    end_line: int
    signature: str
    score: float
    match: str = Field(description="How the name matched: exact, qualified, case, prefix, fuzzy, ...")
    body: str | None = Field(default=None, description="The definition's numbered lines (include_body=true).")


class FindSymbolOutput(BaseModel):
    name: str
    symbols: list[SymbolOut]
    truncated: bool
    note: str | None


class ReferenceOut(BaseModel):
    path: str
    root: str
    line: int
    column: int = Field(description="1-based column (in characters) where the name starts.")
    text: str = Field(description="The line, trimmed to 300 characters.")
    kind: str = Field(description="definition (where the symbol is defined) or usage.")
    enclosing: str | None = Field(description="The definition the line is in (qualified name), if any.")
    enclosing_kind: str | None
    enclosing_line: int | None = Field(description="First line of the enclosing definition.")


class FindReferencesOutput(BaseModel):
    name: str
    definitions: int = Field(description="How many of the references are definitions of the name.")
    references: list[ReferenceOut]
    total: int
    truncated: bool
    note: str | None


class RelatedOut(BaseModel):
    path: str
    root: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
    distance: float = Field(description="Cosine distance of the embeddings (0: same direction).")
    snippet: str


class RelatedOutput(BaseModel):
    path: str
    line: int
    anchor: str = Field(description="The indexed chunk the location is in (path:start-end).")
    results: list[RelatedOut]


class OutlineNode(BaseModel):
    name: str
    qualified_name: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    children: list[OutlineNode]


class OutlineOutput(BaseModel):
    path: str
    root: str
    language: str
    symbols: list[OutlineNode]
    total: int
    truncated: bool


class AstCapture(BaseModel):
    path: str
    root: str
    capture: str = Field(description="The @name of the capture in the query.")
    node_type: str
    start_line: int
    start_column: int = Field(description="1-based column (in characters) where the node starts.")
    end_line: int
    end_column: int
    text: str = Field(description="The node's source text, trimmed to 300 characters.")


class AstQueryOutput(BaseModel):
    language: str
    captures: list[AstCapture]
    files_searched: int
    total_captures: int
    truncated: bool
    note: str | None


# --- index and info ----------------------------------------------------------------------------------


class IndexStatusOut(BaseModel):
    root: str
    repo: str = Field(description="The repository's short name.")
    state: str = Field(description="missing, corrupt, schema_mismatch, stale or fresh.")
    location: str
    files: int
    symbols: int
    chunks: int
    vectors: int
    vector_coverage: str
    model: str | None
    changed_count: int
    stale_files: list[str]
    new_files: list[str]
    deleted_files: list[str]
    last_build: dict[str, Any] | None
    size_bytes: int | None
    detail: str | None
    watcher: dict[str, Any] | None
    search_tier: str | None = Field(None, description="The vector tier searches rank with: fast or full.")
    tiers: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per vector tier (fast, full): model, vectors, complete."
    )
    rerank: str | None = Field(
        None,
        description="While searches rank with the fast tier: ready (a sentence's candidates are ranked by the "
        "full tier's model), needs the model's export (run `python -m indexer.prepare ROOT` or a full-tier "
        "build), or off; null once the full tier ranks.",
    )
    revision: dict[str, Any] | None = Field(
        None, description="The git commit, branch and dirty flag of the tree the index was built from."
    )
    checkout: dict[str, Any] | None = Field(
        None,
        description="The same of the tree under the root now; the files that differ from the index are "
        "changed_count (compared by content).",
    )


class IndexJobOut(BaseModel):
    root: str
    reason: str = Field(description="Why it runs: missing, stale, schema_mismatch or reindex.")
    scope: str = Field(description="root, or the directory or file reindexed.")
    state: str = Field(description="running, done or failed.")
    phase: str = Field(description="parsing, embedding, ... while running; done or failed at the end.")
    done: int
    total: int
    started: float = Field(description="Unix time the job started.")
    finished: float | None
    error: str | None
    report: dict[str, Any] | None = Field(description="The build report once done.")


class IndexStatusOutput(BaseModel):
    roots: list[IndexStatusOut]
    jobs: list[IndexJobOut] = Field(
        description="Background index builds, running or last finished, per root."
    )


class ReindexOutput(BaseModel):
    jobs: list[IndexJobOut] = Field(
        description="One job per root; state running unless wait=true let it end."
    )
    started: list[str] = Field(description="Roots whose job this call started (others were already running).")


class ToolInfo(BaseModel):
    name: str
    category: str
    read_only: bool
    destructive: bool


class RootInfo(BaseModel):
    path: str
    index_dir: str
    index_state: str = Field(
        description="Same answer as index_status: missing, corrupt, schema_mismatch, stale, fresh."
    )
    indexing: str | None = Field(None, description="A background build of this root, while it runs.")
    files: int
    symbols: int
    chunks: int
    vectors: int


class ServerInfoOutput(BaseModel):
    name: str
    version: str
    roots: list[RootInfo]
    read_only: bool
    transport: str
    model: str
    device: str
    model_loaded: bool
    watching: bool
    tools: list[ToolInfo]
    disabled_tools: list[str]
    categories: dict[str, list[str]]


# --- files, edits, guard -----------------------------------------------------------------------------


class ReadFileOutput(BaseModel):
    path: str
    root: str
    text: str = Field(description='Numbered lines, "{line:>6}<TAB>{content}".')
    start_line: int
    end_line: int
    total_lines: int
    truncated: bool
    note: str | None
    sha256: str = Field(description="sha256 of the whole file: pass it as expected_sha256 to edits.")
    size: int
    language: str | None


class WriteFileOutput(BaseModel):
    path: str
    root: str
    size: int
    sha256: str
    sha256_before: str | None
    created: bool


class DirEntryOut(BaseModel):
    name: str
    path: str
    type: str
    size: int | None
    modified: str


class ListDirectoryOutput(BaseModel):
    path: str
    root: str
    entries: list[DirEntryOut]
    total: int
    truncated: bool
    ignored: int


class FileInfoOutput(BaseModel):
    path: str
    root: str
    type: str
    size: int
    mode: str
    modified: str
    changed: str
    accessed: str
    language: str | None
    binary: bool | None
    line_count: int | None
    ignored: bool
    indexed: bool | None
    fresh: bool | None


class GlobMatchOut(BaseModel):
    path: str
    size: int
    modified: str


class GlobOutput(BaseModel):
    pattern: str
    root: str
    matches: list[GlobMatchOut]
    total: int
    truncated: bool


class EditOutput(BaseModel):
    path: str
    root: str
    diff: str = Field(description="Unified diff of the change (a/PATH, b/PATH).")
    sha256_before: str
    sha256_after: str = Field(description="sha256 of the file after the edit: the next expected_sha256.")
    fuzzy: bool = Field(description="A whitespace-tolerant match was used.")
    written: bool
    replacements: int
    notes: list[str]


class ViolationOut(BaseModel):
    rule_id: str
    path: str
    line: int | None
    text: str
    message: str


class GuardOutput(BaseModel):
    target: str
    root: str
    ok: bool
    violations: list[ViolationOut]
    files_checked: int
    rules_checked: int
    errors: list[str]
    truncated: bool

"""MCP prompts: ``search_guide`` teaches an agent how to search this workspace well."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from pydantic import Field

from search.frontends.server.state import ServerState

GUIDE = """\
You are working in a code workspace served by plait ({roots}). Search it well:

1. Start with `search` (hybrid): it runs ripgrep, the symbol index and embeddings together and fuses
   them, so it works for words ("where are retries configured"), identifiers ("RetryPolicy") and
   literals alike. Snippets are numbered lines centred on the match (or the definition) and say where
   to read on (read_file offset=N); `max_tokens` sets their shared budget. `sources` shows which
   retrievers agreed.
2. Use `find_symbol` when you know (part of) a name and want its definition: it matches exact,
   qualified (Class.method), case/underscore-insensitive, prefix and fuzzy names; include_body=true
   returns the source. `find_references` lists its callers and usages, each with the definition it
   sits in; `related` finds code similar to a path:line.
3. Use `grep` when you need every occurrence of an exact string or regex (renames, call sites,
   config keys): output_mode=files_with_matches for the file list, count for numbers, content with
   context lines to read them. It searches the live files, so it is never stale.
4. Use `outline` to see a file's classes and functions with line ranges, then `read_file` with
   offset/limit for just the lines you need. Use `ast_query` for syntax-aware questions
   (e.g. functions with a decorator) with a tree-sitter query.
5. Scope early: `scope="dir:src/pkg"` or `file:PATH` for search, `path` for grep / find_symbol /
   ast_query, `glob` ("*.py", "!tests/**") and `language` everywhere; `scope="changed"` limits search
   to git-modified and untracked files. Narrow instead of raising limits when output is truncated.
6. A missing or stale index is built in the background when the server starts; meanwhile search
   answers from text and symbols. If results look stale or `degraded` mentions the index, call
   `index_status`, then `reindex` (it returns at once; wait=true waits with progress).
{edit_hint}
Available tools: {tools}.
"""

EDIT_HINT = """\
7. To change code: `read_file` (note the sha256), then `edit_replace` / `edit_insert` / `edit_delete`
   with expected_sha256, so a concurrent change is never overwritten; each returns a diff and the new
   sha256. Run `guard` with target="changed" before finishing. Edited files are reindexed for you.
"""


def register_prompts(server: MCPServer[Any], state: ServerState) -> None:
    def search_guide(
        task: Annotated[
            str, Field(description="Optional: what you are trying to do, to tailor the advice.")
        ] = "",
    ) -> str:
        """How to search this workspace well: when to use hybrid search, grep, find_symbol, outline
        and ast_query, and how to scope queries."""
        enabled = state.selection.enabled
        text = GUIDE.format(
            roots=", ".join(str(r) for r in state.workspaces),
            edit_hint=EDIT_HINT if "edit_replace" in enabled else "",
            tools=", ".join(enabled),
        )
        if task.strip():
            text += f"\nYour task: {task.strip()}\nBegin with a `search` for its key terms, then narrow.\n"
        return text

    server.add_prompt(
        Prompt.from_function(search_guide, name="search_guide", title="How to search this workspace")
    )

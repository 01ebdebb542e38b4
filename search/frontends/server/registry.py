"""Which tools exist, what they may do, and which of them a server offers.

Every tool has a :class:`ToolSpec`: its category (``search``, ``files``, ``edit``, ``guard``, ``index``,
``info``), whether it changes the workspace (``mutating``: refused in read-only mode), and MCP tool
annotations that tell the truth about it. :func:`resolve_tools` turns the configuration as given —
``--enable``/``--disable`` flags, ``[server]`` in ``plait.toml`` (``enable``, ``disable``,
``read_only``) — into a :class:`ToolSelection`: the tools to list, and for every other known tool
the message a call that names it anyway is refused with.

Names: a tool or a category; ``search`` is both and means the category (``tool:search`` is the tool
alone; ``category:NAME`` and ``tool:NAME`` are accepted everywhere). Resolution: ``enable`` (flags replace the file's list) keeps only the named tools and categories
(``server_info`` stays unless disabled by name); ``disable`` (flags and file together) removes tools
and categories; read-only mode removes the mutating tools. Unknown names raise ``ConfigError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types import ToolAnnotations

from models import ConfigError
from search.errors import ReadOnlyError

CATEGORIES: tuple[str, ...] = ("search", "files", "edit", "guard", "index", "info")


def _annotations(
    title: str, *, read_only: bool, destructive: bool = False, idempotent: bool = True
) -> ToolAnnotations:
    # openWorldHint is false everywhere: every tool acts only on the configured roots and their indexes.
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    category: str
    mutating: bool  # changes workspace files: never listed in read-only mode
    annotations: ToolAnnotations


def _spec(name: str, category: str, title: str, **kw: Any) -> ToolSpec:
    mutating = not kw.get("read_only", True) and category in ("files", "edit")
    return ToolSpec(name, category, mutating, _annotations(title, **kw))


TOOLS: dict[str, ToolSpec] = {
    s.name: s
    for s in (
        _spec("search", "search", "Hybrid code search", read_only=True),
        _spec("grep", "search", "Regex / literal search (ripgrep)", read_only=True),
        _spec("find_symbol", "search", "Find definitions by name", read_only=True),
        _spec("find_references", "search", "Find usages of a symbol", read_only=True),
        _spec("related", "search", "Code similar to a location", read_only=True),
        _spec("outline", "search", "Outline of a file's definitions", read_only=True),
        _spec("ast_query", "search", "Tree-sitter structural query", read_only=True),
        _spec("read_file", "files", "Read a file with line numbers", read_only=True),
        # Replacing a file overwrites what was there; writing the same content twice is harmless.
        _spec("write_file", "files", "Create or replace a file", read_only=False, destructive=True),
        _spec("list_directory", "files", "List a directory", read_only=True),
        _spec("file_info", "files", "File metadata", read_only=True),
        _spec("glob", "files", "Find files by glob pattern", read_only=True),
        _spec(
            "edit_replace",
            "edit",
            "Replace text in a file",
            read_only=False,
            destructive=True,
            idempotent=False,
        ),
        # Inserting only adds lines (not destructive), but inserting twice adds them twice.
        _spec("edit_insert", "edit", "Insert lines into a file", read_only=False, idempotent=False),
        _spec(
            "edit_delete",
            "edit",
            "Delete lines from a file",
            read_only=False,
            destructive=True,
            idempotent=False,
        ),
        _spec("guard", "guard", "Check guard rules", read_only=True),
        _spec("index_status", "index", "Index freshness and size", read_only=True),
        # Writes the index (derived data, rebuilt from the files), never the workspace: allowed in
        # read-only mode, not destructive, and running it twice leaves the same index.
        _spec("reindex", "index", "Update the index", read_only=False),
        _spec("server_info", "info", "Server configuration", read_only=True),
    )
}


#: ``plait serve --profile search``: the search tools alone, for hosts that bring their own file tools.
SEARCH_PROFILE: tuple[str, ...] = (
    "tool:search", "tool:grep", "tool:find_symbol", "tool:find_references", "tool:outline", "tool:ast_query",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ToolSelection:
    enabled: tuple[str, ...]  # in TOOLS order
    refusals: Mapping[str, str]  # every known tool that is not offered -> why a call to it is refused
    read_only: bool

    def by_category(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {c: [] for c in CATEGORIES}
        for name in self.enabled:
            out[TOOLS[name].category].append(name)
        return {c: names for c, names in out.items() if names}


def _names(values: Iterable[str], origin: str) -> set[str]:
    """Tool names from tool and category names (comma-separated values allowed)."""
    out: set[str] = set()
    for raw in values:
        for item in (p.strip() for p in str(raw).split(",")):
            if not item:
                continue
            kind, sep, bare = item.partition(":")
            if not sep:
                # ``search`` is a category and a tool: a bare name means the category.
                kind, bare = ("category" if item in CATEGORIES else "tool"), item
            if kind == "tool" and bare in TOOLS:
                out.add(bare)
            elif kind == "category" and bare in CATEGORIES:
                out.update(n for n, s in TOOLS.items() if s.category == bare)
            else:
                raise ConfigError(
                    f"unknown tool or category {item!r} in {origin}; use one of the categories "
                    f"{', '.join(CATEGORIES)} or the tools {', '.join(TOOLS)} "
                    "(tool:search names only the search tool; a bare search is the category)."
                )
    return out


def _config_list(table: Mapping[str, Any], key: str) -> list[str]:
    value = table.get(key, [])
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ConfigError(
        f"[server] {key} in plait.toml must be a list of tool or category names, got {value!r}."
    )


def resolve_tools(
    *,
    enable: Sequence[str] | None,
    disable: Sequence[str] | None,
    read_only: bool,
    config: Mapping[str, Any] | None = None,
) -> ToolSelection:
    """Resolve flags and the ``[server]`` table into the offered tools (see the module docstring)."""
    table = config or {}
    flag_read_only = read_only
    file_ro = table.get("read_only", False)
    if not isinstance(file_ro, bool):
        raise ConfigError(f"[server] read_only in plait.toml must be true or false, got {file_ro!r}.")
    read_only = flag_read_only or file_ro
    if enable:
        wanted = _names(enable, "--enable") | {"server_info"}
    elif "enable" in table:
        wanted = _names(_config_list(table, "enable"), "[server] enable") | {"server_info"}
    else:
        wanted = set(TOOLS)
    removed = _names(disable or (), "--disable") | _names(_config_list(table, "disable"), "[server] disable")
    enabled: list[str] = []
    refusals: dict[str, str] = {}
    for name, spec in TOOLS.items():
        if read_only and spec.mutating:
            refusals[name] = str(ReadOnlyError(name))
        elif name not in wanted or name in removed:
            refusals[name] = ""  # filled below, once the enabled list is known
        else:
            enabled.append(name)
    for name, why in refusals.items():
        if not why:
            refusals[name] = (
                f"{name} is disabled on this server (by --enable/--disable or [server] in plait.toml); "
                f"use one of the enabled tools: {', '.join(enabled)}."
            )
    return ToolSelection(tuple(enabled), refusals, read_only)

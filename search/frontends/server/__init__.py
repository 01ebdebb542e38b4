"""The MCP server: a thin adapter that exposes ``search.Engine``, ``indexer.Index`` and the file, edit
and guard libraries as MCP tools over stdio or streamable HTTP.

The only package that imports ``mcp``. Modules: ``registry`` (tool names, categories, annotations,
enable/disable and read-only filtering), ``state`` (roots, engines, background preload and reindex),
``models`` (typed tool outputs), ``tools_*`` (one small function per tool), ``prompts``, ``app``
(assembles the ``MCPServer``), ``http`` (bearer token and DNS-rebinding protection) and ``main``
(``plait serve``). Heavy modules load only when ``plait serve`` runs.
"""

"""Benchmarks for plait: retrieval quality, query latency and indexing cost (``python -m benchmarks``).

This package sits on top of everything else and uses only the public APIs of ``indexer``, ``search``
and ``models`` (the same calls the CLI and the MCP server make); nothing in plait imports it. Beyond
the packages' ``__all__`` it uses ``indexer.procs`` (the one subprocess gateway, for ripgrep and
the CLI), ``indexer.daemon`` (freshness) and, as a client only, ``mcp`` (to drive ``plait serve``).
The ground truth is extracted with tree-sitter here (``extract``), never by plait's own extractor.

Each sub-command measures every compared system in one run on one machine, so numbers compare:

- ``quality``: an evaluation built from the repository itself (``evalset``), scored by pure metric
  functions (``metrics``) for each plait mode and two outside baselines (``baselines``), all behind
  one ``System`` protocol (``systems``), on a private, doc-blanked copy (``workspace``).
- ``latency``: warm query latency through the library and through the MCP server, CLI cold start.
- ``index``: full, no-change and one-file-edit builds, the model's raw throughput, peak RSS.
- ``embed`` and ``freshness``: delegated to their own modules (``benchmarks.embedders``,
  ``benchmarks.freshness``), which own their options.

Tables come from ``report``; pictures from ``plot`` (matplotlib, imported lazily).
"""

"""The query engine: query analysis, the retrievers, fusion across them, ranking and snippets."""

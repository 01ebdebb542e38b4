"""What an index was built with; a build by a different fingerprint starts afresh.

Kept apart from the build and the tables (and their pyarrow and numpy) so that ``plait status`` can
compare an index's saved fingerprint with this plait's without importing them.
"""

from __future__ import annotations

from indexer.chunks import CHUNKER_VERSION
from indexer.config import Settings
from indexer.parsing import queries_digest

SCHEMA_VERSION = 3  # of the tables' columns (3: symbols keep ``name_line``)


def fingerprint(settings: Settings) -> dict[str, object]:
    """The schema, chunker, chunk settings and symbol queries an index is built with."""
    c = settings.chunks
    return {
        "schema": SCHEMA_VERSION,
        "chunker": CHUNKER_VERSION,
        "chunks": [c.max_lines, c.overlap_lines, c.min_lines, c.window_lines, c.max_chars, c.merge_lines],
        "queries": queries_digest(),
    }

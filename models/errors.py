"""The root of plait's error hierarchy.

Every expected failure in plait is a :class:`PlaitError` whose message says what went wrong
and what to do next. The CLI maps them to exit code 2 and one line on stderr; the MCP server
maps them to ``isError`` tool results. The tree::

    PlaitError
    ├── ConfigError              bad plait.toml / flag / env value
    ├── ModelError               embedding model missing, needs the network, failed to load
    ├── WorkspaceError           root missing, path outside the roots, unreadable or binary file
    │   └── PathOutsideRootError
    ├── IndexStoreError (indexer/errors.py)  the index cannot be read or written
    │   └── IndexMissingError, IndexCorruptError, IndexLockedError
    ├── GrammarUnavailableError (indexer/errors.py)  no bundled grammar; QueryMissingError below it
    ├── ParseError, QuerySyntaxError (indexer/errors.py)  a file or a user tags query will not parse
    ├── WatcherRunningError, WatcherFailedError (indexer/daemon.py)  the reindex daemon
    ├── QueryError (search/errors.py)    empty query, invalid regex, bad scope
    └── ToolError-like errors (search/errors.py): read-only, stale edit, edit not matched, guard

It lives in ``models`` because ``models`` is the leaf package that every other package may import.
"""

from __future__ import annotations

from pathlib import Path


class PlaitError(Exception):
    """An expected failure with a message that names the next step."""


class ConfigError(PlaitError):
    """A configuration value (flag, env var, plait.toml) is invalid."""


class ModelError(PlaitError):
    """The embedding model cannot be loaded or used."""


class WorkspaceError(PlaitError):
    """A workspace root or a path inside it cannot be used."""


class PathOutsideRootError(WorkspaceError):
    def __init__(self, path: str | Path, roots: list[Path] | tuple[Path, ...]) -> None:
        shown = ", ".join(str(r) for r in roots)
        super().__init__(f"{path} is outside the workspace ({shown}); pass a path inside a configured root.")
        self.path = str(path)

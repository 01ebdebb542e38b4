"""The index owns its location: it records its root and format, and never writes over anything else.

A location is claimed by the first build that writes there (:func:`claim`): a local one gets a marker
file, ``plait-index.json`` (format and root), and every location, local or object storage, gets the
same record in its ``meta`` table (key ``owner``, written by the build). Before a build writes —
and before any rebuild wipes — the location is checked:

* it holds another root's index (by marker or ``meta``): :class:`IndexOwnedError`;
* it holds anything that is not a plait index (a file or folder plait never makes): :class:`NotAnIndexError`;
* otherwise (missing, empty, only plait's own entries — an index from before markers existed — or
  our own marker) it is ours.

A wipe (:func:`wipe_entries`) deletes only entries plait makes (``*.lance`` tables, ``lexical/``) and
never the marker, the locks or the state files, so even a wrongly claimed folder loses nothing of its
own.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from indexer.errors import IndexStoreError

MARKER = "plait-index.json"
FORMAT = "plait-index"
FORMAT_VERSION = 1
_KEEP = frozenset({MARKER, "writer.lock", "watcher.lock", "watcher.json", "endpoint.json"})
_DATA = re.compile(r"^[A-Za-z0-9_.@-]+\.lance$")
_DATA_DIRS = frozenset({"lexical", "_indices", "_versions"})


class IndexOwnedError(IndexStoreError):
    def __init__(self, location: str, owner: str, root: str) -> None:
        super().__init__(
            f"{location} holds the index of another workspace ({owner}), not of {root}; plait will not "
            "write over it. Give this workspace its own location (--index-dir or PLAIT_INDEX_DIR), or "
            "leave the default."
        )


class NotAnIndexError(IndexStoreError):
    def __init__(self, location: str, foreign: list[str]) -> None:
        shown = ", ".join(foreign[:3]) + (" ..." if len(foreign) > 3 else "")
        super().__init__(
            f"{location} holds files that are not a plait index ({shown}); plait never writes into or "
            "wipes such a folder. Point --index-dir or PLAIT_INDEX_DIR at an empty or new folder."
        )


def owner_record(root: Path) -> dict[str, Any]:
    return {"format": FORMAT, "version": FORMAT_VERSION, "root": str(root)}


def is_plait_entry(name: str) -> bool:
    """Whether a location's entry is one plait makes (tables, the BM25 files, locks, state)."""
    return name in _KEEP or name in _DATA_DIRS or bool(_DATA.match(name)) or name.endswith(".tmp")


def read_marker(location: Path) -> dict[str, Any] | None:
    """The marker of a local location, ``None`` when there is none; a marker that cannot be read as
    ours is reported as foreign (``{"root": "<unreadable marker>"}``)."""
    path = location / MARKER
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError:
        return {"root": "<unreadable marker>"}
    try:
        data = json.loads(os.read(fd, 1 << 16).decode("utf-8"))
    except (OSError, ValueError):
        return {"root": "<unreadable marker>"}
    finally:
        os.close(fd)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {"root": "<unreadable marker>"}
    return data


def check_local(location: Path, root: Path) -> bool:
    """Refuse a local location that is not ours (see the module docstring). Returns whether it already
    carries our marker."""
    if not location.exists():
        return False
    if location.is_symlink() or not location.is_dir():
        raise NotAnIndexError(str(location), [location.name])
    marker = read_marker(location)
    if marker is not None:
        if marker.get("root") != str(root):
            raise IndexOwnedError(str(location), str(marker.get("root")), str(root))
        return True
    foreign = sorted(e.name for e in os.scandir(location) if not is_plait_entry(e.name))
    if foreign:
        raise NotAnIndexError(str(location), foreign)
    return False


def check_meta(location: str, meta: dict[str, Any], root: Path) -> None:
    """Refuse a location whose ``meta`` names another root."""
    owner = meta.get("owner")
    if isinstance(owner, dict) and owner.get("root") not in (None, str(root)):
        raise IndexOwnedError(location, str(owner.get("root")), str(root))


def claim(location: Path, root: Path) -> None:
    """Check a local location (:func:`check_local`) and mark it as ``root``'s (creating it if need be)."""
    if check_local(location, root):
        return
    location.mkdir(parents=True, exist_ok=True)
    tmp = location / f".{MARKER}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(owner_record(root)) + "\n", encoding="utf-8")
    os.replace(tmp, location / MARKER)


def wipe_entries(location: Path) -> list[str]:
    """Delete the data entries plait makes in a local location (never anything else, never the
    marker, locks or state files); returns what was deleted."""
    removed: list[str] = []
    for entry in os.scandir(location):
        if entry.name in _KEEP or not is_plait_entry(entry.name):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed.append(entry.name)
    return removed


def has_tables(location: Path) -> bool:
    """Whether a local index directory holds any LanceDB table (``NAME.lance``) yet."""
    try:
        return any(entry.name.endswith(".lance") for entry in os.scandir(location))
    except OSError:
        return False

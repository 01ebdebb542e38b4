"""The server's long-lived state: roots, one engine (and index) per root, background work.

Built once by ``plait serve`` (or a test) and passed to every tool function. Heavy objects stay warm across
calls: each root's :class:`Engine` holds its :class:`Index` (LanceDB tables, symbol table, embedder).
Background work, all in daemon threads:

* preload — ``Engine.warm()`` per root at start, so the first search does not pay the model load;
  searches that need the model wait for it instead of loading a second copy;
* index jobs (:mod:`.jobs`) — a missing or stale index is built in the background at start (unless
  turned off), and the ``reindex`` tool starts a job and returns at once; each job's phase and counts
  are what ``index_status`` and the search notes report, and what ``reindex(wait=true)`` sends as MCP
  progress;
* reindex after writes (:mod:`.jobs`) — the write and edit tools report each changed file; a worker
  coalesces them per root and calls ``Index.build(paths=..., vectors=True)`` so the next search sees
  the change;
* the local endpoint (:mod:`search.frontends.endpoint`) that lets ``plait search`` use this process's warm model;
* the file watcher of ``--watch`` (``indexer.daemon.start_background_watcher``, one per root).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from indexer import IndexStatus, Settings
from models import ConfigError, PlaitError
from search.engine.engine import Engine
from search.errors import QueryError
from search.frontends.server.boundary import DEFAULT_DEADLINE
from search.frontends.server.jobs import IndexJobs, Reindexer, needs_build, needs_upgrade
from search.frontends.server.registry import ToolSelection
from search.frontends.server.served import Workspace, repo_names
from search.workspace.confine import Confined, Roots
from search.workspace.files import DEFAULT_MAX_READ_BYTES, DEFAULT_MAX_WRITE_BYTES
from search.workspace.policy import WritePolicy

log = logging.getLogger(__name__)

WARM_WAIT_SECONDS = 300.0


def _limit(table: Mapping[str, Any], key: str, default: int, unit: str = "bytes") -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[server] {key} in plait.toml must be a positive number of {unit}, got {value!r}.")
    return value


class ServerState:
    """Everything the tools share (see the module docstring)."""

    def __init__(
        self,
        settings: Sequence[Settings],
        selection: ToolSelection,
        *,
        transport: str = "stdio",
    ) -> None:
        self.roots = Roots.from_settings(settings)
        self.workspaces: dict[Path, Workspace] = {}
        for s in settings:
            root = s.root.resolve()
            if root not in self.workspaces:
                self.workspaces[root] = Workspace(s, Engine(s))
        self.repos = repo_names(list(self.workspaces))
        self.selection = selection
        self.transport = transport
        table = settings[0].server if settings else {}
        self.max_read_bytes = _limit(table, "max_read_bytes", DEFAULT_MAX_READ_BYTES)
        self.max_write_bytes = _limit(table, "max_write_bytes", DEFAULT_MAX_WRITE_BYTES)
        self.tool_deadline = float(_limit(table, "tool_timeout", int(DEFAULT_DEADLINE), "seconds"))
        self.reindexer = Reindexer(self.workspaces)
        self.jobs = IndexJobs(self.workspaces)
        self.watching = False
        self.preload_error: str | None = None
        self.preloaded = False  # the model and tables of at least one index are loaded
        self._warm = threading.Event()
        self._warm.set()  # nothing to wait for until start(preload=True)
        self._endpoint: Any = None
        self._stop_watch: list[Callable[[], Any]] = []

    # -- paths ----------------------------------------------------------------------------------
    @property
    def read_only(self) -> bool:
        return self.selection.read_only

    @property
    def primary(self) -> Workspace:
        return self.workspaces[self.roots.primary]

    def resolve(self, path: str, *, must_exist: bool = True) -> tuple[Workspace, Confined]:
        """Confine ``path`` to the roots (raises the confinement errors)."""
        confined = self.roots.resolve(path, must_exist=must_exist)
        return self.workspaces[confined.root], confined

    def targets(self, path: str | None) -> list[tuple[Workspace, Confined | None]]:
        """The roots a call covers: every root for no path, else the one root holding ``path``."""
        if path is None or path == "":
            return [(ws, None) for ws in self.workspaces.values()]
        ws, confined = self.resolve(path)
        return [(ws, confined)]

    def repo(self, ws: Workspace) -> str:
        """The short name of a root's repository (``repo`` in results, ``repos`` in calls)."""
        return self.repos[ws.root.resolve()]

    def select(self, repos: Sequence[str] | None) -> list[Workspace]:
        """The roots named by ``repos`` (short names or root paths), all of them for none; an unknown
        name raises :class:`~search.errors.QueryError` listing the known ones."""
        if not repos:
            return list(self.workspaces.values())
        by_name = {name: root for root, name in self.repos.items()}
        chosen: dict[Path, Workspace] = {}
        for given in repos:
            text = given.strip().rstrip("/") or given
            root = by_name.get(text)
            if root is None and text:
                candidate = Path(text).expanduser()
                resolved = candidate.resolve() if candidate.is_absolute() else None
                root = resolved if resolved in self.workspaces else None
            if root is None:
                known = ", ".join(sorted(by_name))
                raise QueryError(f"no repository named {given!r} is served; pick from: {known}.")
            chosen[root] = self.workspaces[root]
        return list(chosen.values())

    def display(self, root: Path | str, rel: str) -> str:
        """How a path is shown in text: relative for the first root, absolute for the others."""
        root = Path(root)
        return rel if root == self.roots.primary else str(root / rel)

    @property
    def write_policy(self) -> WritePolicy:
        """What the edit tools may do: read-only mode, the write limit, and reindexing what they write."""
        return WritePolicy(read_only=self.read_only, max_bytes=self.max_write_bytes, on_write=self.on_write)

    # -- background work ------------------------------------------------------------------------
    def on_write(self, abspath: Path) -> None:
        """The write and edit tools' hook: reindex the changed file in the background."""
        root = self.roots.root_of(abspath)
        if root is not None:
            self.reindexer.schedule(root, abspath.relative_to(root).as_posix())

    def index_lookup(self, root: Path, relpath: str) -> tuple[bool, bool] | None:
        """``(indexed, fresh)`` for ``file_info``; ``None`` when there is no index."""
        index = self.workspaces[root].index
        if not index.exists():
            return None
        manifest = index.manifest_for([relpath])
        if relpath not in manifest:
            return (False, False)
        return (True, not index.is_stale(relpath, manifest))

    def freshness(self, ws: Workspace) -> IndexStatus:
        """The one answer to "is this index fresh?" that every tool gives: files on disk compared."""
        return ws.index.status(check_files=True)

    def index_note(self, ws: Workspace) -> str | None:
        """What a search should tell about the root's index while a build runs or when there is none."""
        job = self.jobs.running(ws.root)
        if job is not None:
            return f"{ws.root}: {job.describe()}; call index_status to follow it"
        return None

    def auto_index(self) -> None:
        """Build every missing or stale index in the background (``plait serve`` without --no-auto-index)."""
        threading.Thread(target=self._auto_index, name="plait-auto-index", daemon=True).start()

    def _auto_index(self) -> None:
        for root, ws in self.workspaces.items():
            try:
                status = self.freshness(ws)
                reason = needs_build(status) or needs_upgrade(status)
                # A corrupt index is left for a person to look at (index_status says why).
                if reason not in (None, "corrupt") and not self.jobs.closed:
                    self.jobs.start(root, reason=str(reason))
            except Exception as exc:  # top of a thread: log it, the tools still answer
                log.warning("checking the index of %s failed: %s", root, exc)

    def start(self, *, preload: bool, endpoint: bool, watch: bool, auto_index: bool = False) -> None:
        if auto_index:
            self.auto_index()
        if preload:
            self._warm.clear()
            threading.Thread(target=self._preload, name="plait-preload", daemon=True).start()
        if endpoint:
            from search.frontends.endpoint import start_endpoint

            try:
                self._endpoint = start_endpoint({str(r): w.engine for r, w in self.workspaces.items()})
            except OSError as exc:
                log.warning("could not start the local search endpoint for `plait search`: %s", exc)
        if watch:
            self._start_watch()

    def _preload(self) -> None:
        started = time.perf_counter()
        try:
            for ws in self.workspaces.values():
                ws.engine.warm()
                self.preloaded = self.preloaded or ws.index.exists()
            log.info("preloaded the model and indexes in %.1fs", time.perf_counter() - started)
        except PlaitError as exc:
            self.preload_error = str(exc)
            log.warning("preloading failed (searches will report it): %s", exc)
        except Exception as exc:  # top of a thread: report, never kill the server
            self.preload_error = f"{type(exc).__name__}: {exc}"
            log.warning("preloading failed: %s", exc, exc_info=True)
        finally:
            self._warm.set()

    def wait_warm(self, timeout: float = WARM_WAIT_SECONDS) -> None:
        """Block until the preload (if any) is done, so a search never loads a second model copy."""
        self._warm.wait(timeout)

    def _start_watch(self) -> None:
        """Keep every root's index fresh as files change (the daemon's watcher, in a thread per root)."""
        from indexer import start_background_watcher

        for ws in self.workspaces.values():
            try:
                self._stop_watch.append(start_background_watcher(ws.settings))
            except PlaitError as exc:  # e.g. `plait watch` already watches this index: it keeps it fresh
                log.warning("--watch: not watching %s: %s", ws.root, exc)
        self.watching = bool(self._stop_watch)

    def close_endpoint(self) -> None:
        """Stop advertising (and serving) the local endpoint for ``plait search``."""
        if self._endpoint is not None:
            from search.frontends.endpoint import remove_endpoints

            endpoint, self._endpoint = self._endpoint, None
            remove_endpoints({str(r): w.engine for r, w in self.workspaces.items()})
            endpoint.shutdown()

    def close(self) -> None:
        """Stop the background work: the endpoint first (quick), then the watchers (they finish a batch)."""
        self.close_endpoint()
        self.reindexer.close()
        self.jobs.close()
        for stop in self._stop_watch:
            stop()
        self._stop_watch.clear()
        for ws in self.workspaces.values():
            ws.engine.close()

"""Fleet indexing: many repositories indexed at once, one task per repository, on a Ray cluster.

``plait index --cluster auto|ray://HOST:PORT ROOT...`` hands each repository to a Ray task that parses,
chunks and embeds it with the ordinary single-machine builder (:meth:`indexer.Index.build`) and writes
its LanceDB tables to the repository's index location: ``--index-dir BASE`` puts repository ``NAME``
at ``BASE/NAME`` (``s3://bucket/plait/NAME`` for a team index), else each repository's own default
location. The unit of work is the repository: its tables have one writer (the lease of
:mod:`indexer.lease` on object storage), so two tasks never write one table, and a cluster of N
machines runs N x cores repositories at once.

**Idempotent.** Before it builds, a task asks whether the index already holds what the tree holds
(:func:`up_to_date`): same fingerprint (plait version and chunk settings), the requested vector tier
complete, and either the same clean git commit as the snapshot's ``revision`` or, for a dirty tree or
one outside git, no file that differs by content (:meth:`indexer.Index.status`). Such a repository
is reported ``unchanged`` and not touched; any other is updated incrementally, so a rerun after one
file changed re-parses that one file of that one repository.

``ray`` is an optional extra (``pip install plait[cluster]``) imported only by :func:`run_fleet_on_ray`;
without ``--cluster`` the same jobs run one after another in this process (:func:`run_fleet_here`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from indexer.build import fingerprint
from indexer.config import Settings, load_settings
from indexer.index import Index, IndexState
from indexer.revision import REVISION_KEY, tree_revision
from models import PlaitError

# Variables a task needs on a worker machine: the model, the store's credentials and endpoint.
FORWARDED_PREFIXES = ("PLAIT_", "AWS_", "GOOGLE_", "AZURE_", "HF_", "TRANSFORMERS_", "PYTHONHASHSEED")


class FleetError(PlaitError):
    """Fleet indexing cannot start: no Ray, a bad cluster address, a root that is not a directory."""


@dataclass(frozen=True, slots=True)
class FleetResult:
    root: str
    index_dir: str
    outcome: str  # built | unchanged | failed
    detail: str  # why it was unchanged, what was built, or the error
    seconds: float
    files: int = 0
    chunks: int = 0
    changed: int = 0  # files re-parsed by this build
    embedded: int = 0  # chunks embedded by this build (not from the embedding cache)
    worker: str = ""  # host:pid that ran it

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def plan_fleet(
    roots: Sequence[str | Path],
    *,
    base: str | None,
    env: Mapping[str, str],
    overrides: Mapping[str, Any] | None = None,
) -> list[Settings]:
    """Each root's settings; with ``base``, each repository indexed at ``BASE/NAME``, ``NAME`` its
    directory's name, with parent directories added while two repositories would share one
    (``a/app`` and ``b/app``: the names ``plait serve`` gives them too)."""
    if not roots:
        raise FleetError("no repositories given; pass one or more roots.")
    resolved = list(dict.fromkeys(Path(raw).resolve() for raw in roots))
    for root in resolved:
        if not root.is_dir():
            raise FleetError(f"{root} is not a directory; pass repository roots.")
    names = unique_names(resolved)
    out = []
    for root in resolved:
        extra = dict(overrides or {})
        if base is not None:
            extra["index_dir"] = f"{base.rstrip('/')}/{names[root]}"
        out.append(load_settings(root, env=env, overrides=extra))
    return out


def unique_names(roots: Sequence[Path]) -> dict[Path, str]:
    """A short name per root: its last path component, more of them while two roots share one."""
    depth = 1
    longest = max((len(r.parts) for r in roots), default=1)
    while True:
        names = {r: "/".join(r.parts[-depth:]).lstrip("/") or "root" for r in roots}
        if len(set(names.values())) == len(names) or depth >= longest:
            return names
        depth += 1


def up_to_date(index: Index, *, vectors: bool, tier: str) -> str | None:
    """Why ``index`` already holds what its tree holds (see the module docstring); ``None`` when it
    needs a build."""
    if not index.exists():
        return None
    status = index.status(check_files=False)
    if status.state != IndexState.FRESH:  # missing, corrupt, interrupted, another fingerprint
        return None
    if vectors and status.chunks and not status.tiers.get(tier, {}).get("complete"):
        return None
    meta = index.store.get_meta()
    if meta.get("fingerprint") != fingerprint(index.settings):
        return None
    indexed, now = meta.get(REVISION_KEY), tree_revision(index.settings.root)
    if (
        isinstance(indexed, dict)
        and now is not None
        and not indexed.get("dirty")
        and not now["dirty"]
        and indexed.get("commit") == now["commit"]
    ):
        return f"commit {now['commit'][:12]} already indexed"
    checked = index.status(check_files=True)
    if checked.state == IndexState.FRESH:
        return "no file differs from the index"
    return None


def index_one(
    settings: Settings, *, vectors: bool = True, tier: str = "full", wait: float = 0.0, full: bool = False
) -> FleetResult:
    """Bring one repository's index up to date unless it already is (``full``: rebuild it anyway);
    never raises for a plait error (the result says ``failed``), so one bad repository does not stop
    the fleet."""
    t0 = time.perf_counter()
    worker = f"{os.uname().nodename}:{os.getpid()}"
    root, where = str(settings.root), settings.index_dir
    index = Index(settings)
    try:
        tier = index.default_tier() if tier == "auto" else tier
        reason = None if full else up_to_date(index, vectors=vectors, tier=tier)
        if reason is not None:
            st = index.status(check_files=False)
            return FleetResult(root, where, "unchanged", reason, time.perf_counter() - t0, st.files, st.chunks,
                               worker=worker)  # fmt: skip
        report = index.build(vectors=vectors, tier=tier, wait=wait, full=full)
    except PlaitError as exc:
        return FleetResult(root, where, "failed", str(exc), time.perf_counter() - t0, worker=worker)
    detail = f"{report.changed:,} files parsed, {report.embedded:,} chunks embedded"
    return FleetResult(
        root, where, "built", detail, time.perf_counter() - t0, report.files, report.chunks_total,
        report.changed, report.embedded, worker,
    )  # fmt: skip


def run_fleet_here(
    jobs: Sequence[Settings],
    *,
    vectors: bool = True,
    tier: str = "full",
    wait: float = 0.0,
    full: bool = False,
    on_result: Callable[[FleetResult], None] | None = None,
) -> list[FleetResult]:
    """The jobs one after another in this process (the single-machine path: no Ray)."""
    out = []
    for settings in jobs:
        result = index_one(settings, vectors=vectors, tier=tier, wait=wait, full=full)
        if on_result is not None:
            on_result(result)
        out.append(result)
    return out


def forwarded_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables a worker needs (model, store credentials), taken from the driver's ``env``."""
    return {k: v for k, v in env.items() if k.startswith(FORWARDED_PREFIXES)}


def connect(cluster: str, env: Mapping[str, str]) -> Any:
    """Ray, initialised for ``cluster``: ``auto`` joins the cluster this machine belongs to, or starts a
    local instance; ``ray://HOST:PORT`` a remote cluster's client server. An already initialised Ray
    (a caller's ``ray.init``) is used as it is."""
    try:
        import ray
    except ImportError as exc:
        raise FleetError(
            "fleet indexing needs Ray: `pip install 'plait[cluster]'` (or index without --cluster)."
        ) from exc
    if ray.is_initialized():
        return ray
    if cluster != "auto" and not cluster.startswith("ray://"):
        raise FleetError(f"unknown cluster {cluster!r}; use auto or ray://HOST:PORT.")
    runtime_env = {"env_vars": forwarded_env(env)}
    try:
        if cluster == "auto":
            ray.init(runtime_env=runtime_env, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=cluster, runtime_env=runtime_env, log_to_driver=False)
    except Exception as exc:  # ConnectionError, a version mismatch, a refused address
        raise FleetError(f"cannot reach the Ray cluster at {cluster}: {exc}") from exc
    return ray


def run_fleet_on_ray(
    jobs: Sequence[Settings],
    *,
    cluster: str = "auto",
    env: Mapping[str, str] | None = None,
    vectors: bool = True,
    tier: str = "full",
    wait: float = 0.0,
    full: bool = False,
    on_result: Callable[[FleetResult], None] | None = None,
) -> list[FleetResult]:
    """One Ray task per repository (one CPU each), results in the order of ``jobs``."""
    ray = connect(cluster, os.environ if env is None else env)
    task = ray.remote(num_cpus=1, max_retries=1)(index_one)
    pending = {
        task.remote(s, vectors=vectors, tier=tier, wait=wait, full=full): i for i, s in enumerate(jobs)
    }
    results: list[FleetResult | None] = [None] * len(jobs)
    waiting = list(pending)
    while waiting:
        done, waiting = ray.wait(waiting, num_returns=1)
        for ref in done:
            i = pending[ref]
            try:
                result = ray.get(ref)
            except Exception as exc:  # the task died (worker lost, an error that is not plait's)
                s = jobs[i]
                result = FleetResult(str(s.root), s.index_dir, "failed", f"{type(exc).__name__}: {exc}", 0.0)
            results[i] = result
            if on_result is not None:
                on_result(result)
    return [r for r in results if r is not None]


def fleet_summary(results: Iterable[FleetResult]) -> dict[str, int]:
    counts = {"built": 0, "unchanged": 0, "failed": 0}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    return counts

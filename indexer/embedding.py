"""Choosing and caching the embedder for a workspace (lazy: nothing heavy is imported here).

Two tiers of vectors are kept per index, each in its own table (``vectors_<model>``):

* ``fast``: a static token table made from the configured transformer (:mod:`models.static`: fitted
  on code and shipped for the packaged model, distilled on first use for any other), inputs
  truncated to 128 tokens — thousands of chunks per second, so ``plait index`` has a complete
  semantic index in seconds, upgraded in the background by ``plait watch`` and ``plait serve``. It
  is what ``plait index`` builds for an index without a complete full tier (``--tier auto``,
  :meth:`indexer.index.Index.default_tier`): within 0.01 NDCG@10 of the full tier on the peer suite
  (0.870 vs 0.877 over 39 repositories), further behind on sentences that describe one function,
  whose first candidates a search therefore ranks with the full tier's model until that tier is
  complete (:mod:`search.engine.rerank`);
* ``full``: the configured transformer itself, built by ``plait index --tier full``, behind the fast
  tier by the watcher and the server, and kept up to date by ``plait index`` once it is complete.

A search ranks with one tier only: the full tier once it covers every chunk, else the fast one.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from typing import Any

from models import Embedder, ModelConfig

_lock = threading.Lock()
_cache: dict[ModelConfig, Embedder] = {}

#: The tiers, cheapest first.
TIERS = ("fast", "full")


def tier_config(config: ModelConfig, tier: str) -> ModelConfig:
    """The model configuration of ``tier`` for a workspace configured with ``config``.

    ``full`` is ``config`` itself. ``fast`` is the static model made from it, on 128 tokens;
    for the test embedder ``hashing-<dim>`` it is ``hashing-<dim/2>`` (a distinct model, so the tier
    machinery runs the same way in fast tests).

    Raises:
        ValueError: ``tier`` is not one of :data:`TIERS`.
    """
    if tier not in TIERS:
        raise ValueError(f"tier must be one of {', '.join(TIERS)}, got {tier!r}")
    if tier == "full":
        return config
    if config.name == "hashing" or config.name.startswith("hashing-"):
        dim = int(config.name.split("-", 1)[1]) if "-" in config.name else 256
        return dataclasses.replace(config, name=f"hashing-{max(8, dim // 2)}")
    from models import STATIC_MAX_TOKENS

    return dataclasses.replace(config, backend="static", device="cpu", max_seq_length=STATIC_MAX_TOKENS)


def make_embedder(config: ModelConfig) -> Embedder:
    """The embedder for ``config``, shared per process (the model stays loaded and warm).

    ``hashing`` / ``hashing-<dim>`` selects the deterministic feature-hashing embedder (fast tests and
    benchmarks of everything but the model); any other name goes to :func:`models.load_embedder`.
    """
    with _lock:
        found = _cache.get(config)
        if found is not None:
            return found
        if config.name == "hashing" or config.name.startswith("hashing-"):
            from models import HashingEmbedder

            dim = int(config.name.split("-", 1)[1]) if "-" in config.name else 256
            embedder: Embedder = HashingEmbedder(dimension=dim)
        else:
            from models import load_embedder

            embedder = load_embedder(config)
        _cache[config] = embedder
        return embedder


def tier_entries(raw: object) -> dict[str, dict[str, object]]:
    """The ``tiers`` entry of ``meta`` as tier → {id, dimension, table} (empty when absent or malformed)."""
    if not isinstance(raw, dict):
        return {}
    return {str(t): e for t, e in raw.items() if isinstance(e, dict) and isinstance(e.get("table"), str)}


def snapshot_tiers(meta: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each tier's {id, dimension, table} from ``meta``; an index built before tiers has one model,
    read as the full tier."""
    entries = tier_entries(meta.get("tiers"))
    if not entries:
        entries = tier_entries({"full": meta.get("model")})
    return entries


def search_tier_of(raw: object, count: Callable[[str], int], chunks: int) -> str | None:
    """The tier a search ranks with: ``full`` once it covers every chunk, else ``fast`` (if it has
    vectors), else whichever has any; None when no tier has a vector. ``count`` counts a table's rows."""
    entries = tier_entries(raw)
    counts = {t: count(str(e["table"])) for t, e in entries.items()}
    if chunks and counts.get("full", 0) >= chunks:
        return "full"
    if counts.get("fast", 0):
        return "fast"
    return next((t for t, n in counts.items() if n), None)

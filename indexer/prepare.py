"""Making a workspace's two models ready ahead of its first index: ``python -m indexer.prepare [ROOT]``.

On first use the fast tier's static table is unpacked from the package (or, for another model,
distilled from it) and the full tier's transformer is exported to ONNX and quantized — about 20 s on
two cores. A search on a fast-only index re-ranks a sentence's first candidates with the transformer
only when that export exists (:mod:`search.engine.rerank`: a search never waits half a minute for it),
so on a fresh machine the first sentences of ``plait index`` + ``plait search`` were ranked by the
static table alone, and ``plait serve``'s background build spent its first seconds on the export.
``scripts/setup`` runs this once; it is idempotent (a second run only checks that both are there).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from indexer.config import load_settings
from indexer.embedding import TIERS, make_embedder, tier_config
from indexer.errors import PlaitError


def prepare(root: Path) -> dict[str, str]:
    """Load each tier's model of the workspace at ``root`` (making the static table and the ONNX export
    where they are missing); returns tier → model id.

    Raises:
        PlaitError: the settings are invalid, or a model cannot be made or loaded.
    """
    settings = load_settings(root, env=os.environ)
    ready: dict[str, str] = {}
    for tier in TIERS:
        embedder = make_embedder(tier_config(settings.model, tier))
        embedder.embed_query("ready")  # builds the backend: unpacks, distils or exports on first use
        ready[tier] = embedder.model_id
    return ready


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m indexer.prepare",
        description="Make the workspace's models ready (the fast tier's static table, the full tier's "
        "ONNX export) so that the first index and search do not make them. Exit 0 ready, 2 error.",
    )
    parser.add_argument("root", nargs="?", default=".", help="workspace whose plait.toml names the model")
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not root.is_dir():
        print(f"plait: {root} is not a directory; pass the workspace root", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        ready = prepare(root)
    except PlaitError as exc:
        print(f"plait: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        models = ", ".join(f"{tier} {model}" for tier, model in ready.items())
        print(f"plait: models ready in {time.perf_counter() - started:.1f} s ({models})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

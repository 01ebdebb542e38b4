"""Pictures of the results (matplotlib, Agg backend, imported only when a plot is asked for).

Both functions read the ``as_dict()`` JSON of a report, so a picture can be drawn from saved
``--json`` output as well as from a live run: grouped bars of a quality metric per family and
system, and box plots of the latency samples per system and path.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_quality(ax: Any, quality: Mapping[str, Any], metric: str = "mrr@10") -> None:
    families = [*quality["families"], "overall"]
    systems = list(quality["systems"])
    width = 0.8 / max(1, len(systems))
    for i, name in enumerate(systems):
        scores = quality["systems"][name]["scores"]
        values = [scores[f][metric] for f in families]
        xs = [x + (i - (len(systems) - 1) / 2) * width for x in range(len(families))]
        ax.bar(xs, values, width, label=name)
    ax.set_xticks(range(len(families)), families)
    ax.set_ylim(0, 1)
    ax.set_ylabel(metric)
    ax.set_title(f"Retrieval quality ({metric}, span level)")
    ax.legend(fontsize="small", ncols=2)


def draw_latency(ax: Any, latency: Mapping[str, Any]) -> None:
    rows = [r for r in latency["rows"] if len(r["samples_ms"]) > 1]
    ax.boxplot([r["samples_ms"] for r in rows], vert=False, showfliers=True)
    ax.set_yticks(range(1, len(rows) + 1), [f"{r['system']} ({r['path']})" for r in rows], fontsize="small")
    ax.set_xscale("log")
    ax.set_xlabel("ms (log scale)")
    ax.set_title("Query latency")


def draw(
    out: Path, *, quality: Mapping[str, Any] | None = None, latency: Mapping[str, Any] | None = None
) -> Path:
    """Write a PNG with one panel per report given; returns ``out``."""
    panels = [p for p in (quality, latency) if p is not None]
    if not panels:
        raise ValueError("nothing to plot: pass a quality or a latency report")
    plt = _pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 5 * len(panels)), squeeze=False)
    row = 0
    if quality is not None:
        draw_quality(axes[row][0], quality)
        row += 1
    if latency is not None:
        draw_latency(axes[row][0], latency)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

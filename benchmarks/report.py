"""Readable tables: fixed-width text for a terminal, or GitHub markdown (``--markdown``).

Pure string building; the CLI prints what these return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Cell = str | int | float | None


def fmt(value: Cell, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return value


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, markdown: bool = False) -> str:
    """Render rows; text columns align left, numbers right."""
    cells = [[fmt(c) for c in row] for row in rows]
    numeric = [
        all(isinstance(row[i], int | float) or row[i] is None for row in rows) for i in range(len(headers))
    ]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)]
        return ("| " + " | ".join(parts) + " |") if markdown else "  ".join(parts).rstrip()

    if markdown:
        rule = (
            "|"
            + "|".join(
                ("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric, strict=True)
            )
            + "|"
        )
    else:
        rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(list(headers)), rule, *(line(r) for r in cells)])


def heading(title: str, *, markdown: bool = False) -> str:
    return f"## {title}" if markdown else f"{title}\n{'=' * len(title)}"


def bullets(items: Sequence[str], *, markdown: bool = False) -> str:
    return "\n".join(("- " if markdown else "  * ") + item for item in items)


def key_values(data: Mapping[str, Any], *, markdown: bool = False) -> str:
    return table(["metric", "value"], [(k, v) for k, v in data.items()], markdown=markdown)

"""A bridge for ``find_references`` (:mod:`search.frontends.server.tools_refs`), which still names ripgrep
flags: its two flags become the typed fields of :class:`search.workspace.ripgrep.RgCommand`. Remove it
once that tool builds an ``RgCommand`` itself; everything else uses :mod:`search.workspace.ripgrep`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from indexer import Settings
from search.engine.retrievers import ResolvedScope
from search.workspace.ripgrep import MAX_COUNT_PER_FILE, RgCommand

_FLAGS: dict[str, dict[str, Any]] = {
    "--case-sensitive": {"case": "sensitive"},
    "--word-regexp": {"word": True},
}


def rg_command(
    settings: Settings,
    patterns: Sequence[str],
    scope: ResolvedScope,
    *,
    fixed: bool,
    ignore_case: bool,
    extra: Sequence[str] = (),
) -> RgCommand:
    """A ``json`` search of ``patterns`` over ``scope``; ``extra`` may hold only the flags above
    (anything else raises ``ValueError``). ``settings`` is unused: the gateway reads it when it runs."""
    del settings
    fields: dict[str, Any] = {"case": "insensitive" if ignore_case else "smart"}
    for flag in extra:
        if flag not in _FLAGS:
            raise ValueError(f"{flag} has no typed field in RgCommand; add one there instead")
        fields.update(_FLAGS[flag])
    return RgCommand(
        "json",
        tuple(patterns),
        scope.targets,
        scope.globs,
        scope.language,
        fixed=fixed,
        max_count=MAX_COUNT_PER_FILE,
        **fields,
    )

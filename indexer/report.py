"""What a build reports (:class:`BuildReport`) and how it shows progress (:class:`Progress`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Protocol

MAX_REPORTED_ERRORS = 50  # errors kept in ``as_dict`` (the build's log has them all)


class Progress(Protocol):
    """A phase begins with ``start`` (``total`` 0 when not known yet, then given by ``set_total``)."""

    def start(self, phase: str, total: int) -> None: ...
    def advance(self, n: int = 1) -> None: ...
    def set_total(self, total: int) -> None: ...


class NullProgress:
    def start(self, phase: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def set_total(self, total: int) -> None:
        pass


@dataclass
class BuildReport:
    files: int = 0
    changed: int = 0
    deleted: int = 0
    unchanged: int = 0
    symbols: int = 0
    chunks: int = 0
    chunks_total: int = 0
    embedded: int = 0
    from_cache: int = 0
    vectors: int = 0
    seconds: float = 0.0
    symbol_seconds: float = 0.0
    vector_seconds: float = 0.0
    rebuilt_reason: str | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    vectors_skipped: bool = False
    ann: str | None = None
    tiers: dict[str, dict[str, Any]] = field(default_factory=dict)
    parsed_ahead: int = 0  # files parsed in worker processes while the index was opened (first builds)

    def add_vectors(self, later: BuildReport) -> None:
        """Count in ``later``, an incremental build right after this one that only embedded (a tier
        behind this build's): its tiers, embedding counts, time and errors."""
        self.tiers.update(later.tiers)
        self.embedded += later.embedded
        self.from_cache += later.from_cache
        self.vector_seconds += later.vector_seconds
        self.seconds += later.seconds
        self.errors += later.errors

    def as_dict(self) -> dict[str, object]:
        """The fields in order, with times rounded to milliseconds and at most
        :data:`MAX_REPORTED_ERRORS` errors (the JSON of ``plait index --json`` and ``meta.last_build``)."""
        out: dict[str, object] = dataclasses.asdict(self)
        out.update(
            seconds=round(self.seconds, 3),
            symbol_seconds=round(self.symbol_seconds, 3),
            vector_seconds=round(self.vector_seconds, 3),
            errors=self.errors[:MAX_REPORTED_ERRORS],
        )
        return out

"""``quality``: every system answers every query of the evaluation set; metrics per family and overall.

The harness is one loop over :class:`~benchmarks.systems.System`\\ s, so plait's modes and the
baselines are measured identically in one run. ``findings`` then states plainly every family and
metric where ``plait-hybrid`` scores below another system -- the table is not tuned to hide them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks import metrics, report
from benchmarks.evalset import EvalQuery, EvalSet, query_text
from benchmarks.systems import System, make_systems
from benchmarks.workspace import Prepared
from models import PlaitError

REFERENCE = "plait-hybrid"
METRIC_NAMES: tuple[tuple[str, str], ...] = (
    ("mrr10", "MRR@10"),
    ("recall1", "R@1"),
    ("recall10", "R@10"),
    ("file_recall10", "file R@10"),
)


@dataclass
class SystemResult:
    name: str
    outcomes: list[metrics.Outcome]
    scores: dict[str, metrics.Scores]
    seconds: float
    errors: int = 0  # queries the system failed on (scored as misses)
    notes: list[str] = field(default_factory=list)


@dataclass
class QualityReport:
    families: list[str]
    systems: list[SystemResult]
    findings: list[str]
    setup: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "setup": self.setup,
            "families": self.families,
            "systems": {
                s.name: {
                    "scores": {fam: sc.as_dict() for fam, sc in s.scores.items()},
                    "seconds": round(s.seconds, 3),
                    "errors": s.errors,
                    "notes": s.notes,
                }
                for s in self.systems
            },
            "findings": self.findings,
            "per_query": {
                s.name: [
                    {"qid": o.qid, "family": o.family, "span_rank": o.span_rank, "file_rank": o.file_rank}
                    for o in s.outcomes
                ]
                for s in self.systems
            },
        }


def evaluate_system(
    system: System, queries: Sequence[EvalQuery], families: Sequence[str], *, limit: int = 10
) -> SystemResult:
    """Run every query through ``system``; a query that raises a ``PlaitError`` counts as a miss."""
    from benchmarks.progress import Ticker

    outcomes: list[metrics.Outcome] = []
    errors: list[str] = []
    start = time.perf_counter()
    ticker = Ticker(f"quality {system.name}", len(queries))
    for q in queries:
        ticker.tick()
        try:
            hits = system.search(query_text(q), limit)
        except PlaitError as exc:
            errors.append(f"{q.qid}: {exc}")
            hits = []
        outcomes.append(metrics.outcome(q.qid, q.family, hits, (q.path, q.start_line, q.end_line)))
    seconds = time.perf_counter() - start
    notes = [f"{len(errors)} queries failed (scored as misses), first: {errors[0]}"] if errors else []
    degraded = getattr(system, "degraded", None)
    if degraded:
        notes.append(
            "retrievers missing from some answers: " + ", ".join(f"{k} ×{v}" for k, v in degraded.items())
        )
    return SystemResult(
        system.name, outcomes, metrics.by_family(outcomes, families), seconds, len(errors), notes
    )


def findings(
    results: Sequence[SystemResult], families: Sequence[str], reference: str = REFERENCE
) -> list[str]:
    """One plain sentence per family and system that beats ``reference`` on some metric."""
    ref = next((r for r in results if r.name == reference), None)
    if ref is None:
        return [f"{reference} was not measured, so nothing is compared against it."]
    out: list[str] = []
    for fam in [*families, metrics.OVERALL]:
        mine = ref.scores[fam]
        if mine.n == 0:
            continue
        for other in results:
            if other.name == reference:
                continue
            theirs = other.scores[fam]
            lost = [
                f"{label} {getattr(mine, attr):.3f} vs {getattr(theirs, attr):.3f}"
                for attr, label in METRIC_NAMES
                if getattr(theirs, attr) > getattr(mine, attr) + 1e-9
            ]
            if lost:
                out.append(f"{reference} loses to {other.name} on {fam}: " + "; ".join(lost) + ".")
    if not out:
        out.append(f"{reference} is at least as good as every other system on every family and metric.")
    return out


def render(rep: QualityReport, *, markdown: bool = False) -> str:
    rows: list[list[report.Cell]] = []
    for fam in [*rep.families, metrics.OVERALL]:
        for s in rep.systems:
            sc = s.scores[fam]
            rows.append([fam, s.name, sc.n, sc.mrr10, sc.recall1, sc.recall10, sc.file_recall10])
    parts = [
        report.heading("Retrieval quality", markdown=markdown),
        report.key_values(rep.setup, markdown=markdown),
        "",
        report.table(
            ["family", "system", "n", "MRR@10", "R@1", "R@10", "file R@10"], rows, markdown=markdown
        ),
        "",
        report.heading("Findings", markdown=markdown),
        report.bullets(rep.findings, markdown=markdown),
    ]
    notes = [f"{s.name}: {n}" for s in rep.systems for n in s.notes]
    if notes:
        parts += ["", report.heading("Notes", markdown=markdown), report.bullets(notes, markdown=markdown)]
    return "\n".join(parts)


def run(
    prepared: Prepared,
    es: EvalSet,
    *,
    modes: Sequence[str],
    baselines: Sequence[str],
    rrf: bool = True,
    limit: int = 10,
) -> QualityReport:
    """Measure every system on ``es`` over the index of ``prepared`` (built on the blanked copy)."""
    from search import Engine

    engine = Engine(prepared.settings)
    try:
        systems = make_systems(engine, modes=modes, baselines=baselines, rrf=rrf)
        families = es.families()
        results = [evaluate_system(s, es.queries, families, limit=limit) for s in systems]
    finally:
        engine.close()
    build = prepared.build
    setup: dict[str, Any] = {
        "files": len(prepared.corpus.files),
        "docs blanked": prepared.corpus.docs_blanked,
        "chunks": build.chunks_total if build else None,
        "model": prepared.settings.model.name,
        "seed": es.seed,
        **{f"queries ({f})": sum(q.family == f for q in es.queries) for f in families},
    }
    return QualityReport(families, results, findings(results, families), setup)

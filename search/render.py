"""Human output of search results: path:line, symbol, and a snippet with the query terms highlighted."""

from __future__ import annotations

import sys
from typing import Any

from search.types import SearchResponse


def explain_line(explain: dict[str, Any]) -> str:
    """One line of a result's explanation: ranks per retriever, fused score, then each rule."""
    ranks = ", ".join(f"{k} #{v}" if v is not None else f"{k} -" for k, v in explain["ranks"].items())
    rules = "; ".join(f"{s['rule']} {s['effect']}" for s in explain["rules"]) or "no rule applied"
    return f"{ranks}; fused {explain['fused']:.4f}; {rules}"


def render_results(response: SearchResponse, *, color: bool) -> None:
    from rich.console import Console
    from rich.syntax import Syntax

    console = Console(file=sys.stdout, force_terminal=color, no_color=not color, highlight=False)
    if not response.results:
        console.print("no results")
    for i, r in enumerate(response.results, start=1):
        ranks = " ".join(f"{k}#{v}" for k, v in r.sources.items() if v is not None)
        where = f"[bold cyan]{r.path}[/]:[yellow]{r.start_line}[/]-{r.end_line}"
        sym = f"  [green]{r.symbol}[/] ({r.kind})" if r.symbol else ""
        stale = "  [red](stale)[/]" if r.stale else ""
        console.print(f"{i:>2}. {where}{sym}  [dim]{r.score:.4f} {ranks}[/]{stale}")
        if r.explain is not None:
            console.print(f"    [magenta]why:[/] {explain_line(r.explain)}", markup=True)
        if r.snippet:
            lexer = r.language if r.language and r.language != "text" else "text"
            console.print(
                Syntax(
                    r.snippet,
                    lexer,
                    line_numbers=True,
                    start_line=r.start_line,
                    theme="ansi_dark",
                    word_wrap=False,
                    background_color="default",
                )
            )
    for name, why in response.degraded.items():
        console.print(f"[red]{name} search unavailable:[/] {why}")
    for note in response.notes:
        console.print(f"[dim]note: {note}[/]")

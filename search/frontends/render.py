"""Human output of search results: ``path:start-end``, symbol, score, and the focused snippet.

Coloured through rich on a terminal (or with ``--color always``); plain text otherwise, never cut to
a width, so ``plait search ... | less`` and ``> file`` keep every character.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import IO, Any

from search.engine.snippets import Snippet
from search.types import Result


def explain_line(explain: dict[str, Any]) -> str:
    """One line of a result's explanation: ranks per retriever, fused score, then each rule."""
    ranks = ", ".join(f"{k} #{v}" if v is not None else f"{k} -" for k, v in explain["ranks"].items())
    rules = "; ".join(f"{s['rule']} {s['effect']}" for s in explain["rules"]) or "no rule applied"
    return f"{ranks}; fused {explain['fused']:.4f}; {rules}"


def render_results(
    results: Sequence[tuple[Result, Snippet]], *, color: bool, stream: IO[str] | None = None
) -> None:
    out = stream if stream is not None else sys.stdout
    if color:
        _render_rich(results, out)
        return
    for i, (r, snip) in enumerate(results, start=1):
        out.write(_heading(i, r) + "\n")
        if r.explain is not None:
            out.write(f"    why: {explain_line(r.explain)}\n")
        if snip.lines:
            out.write(_indent(snip.numbered("continues at line {line}")) + "\n")


def _heading(i: int, r: Result) -> str:
    ranks = " ".join(f"{k}#{v}" for k, v in r.sources.items() if v is not None)
    sym = f"  {r.symbol} ({r.kind})" if r.symbol else ""
    stale = "  (stale)" if r.stale else ""
    return f"{i:>2}. {r.path}:{r.start_line}-{r.end_line}{sym}  {r.score:.4f} {ranks}{stale}"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.split("\n"))


def _render_rich(results: Sequence[tuple[Result, Snippet]], out: IO[str]) -> None:
    from rich.console import Console
    from rich.syntax import Syntax

    terminal = out.isatty()
    # Forced colour into a pipe: no width to fit, so none is imposed.
    console = Console(file=out, force_terminal=True, highlight=False, width=None if terminal else 100_000)
    for i, (r, snip) in enumerate(results, start=1):
        ranks = " ".join(f"{k}#{v}" for k, v in r.sources.items() if v is not None)
        where = f"[bold cyan]{r.path}[/]:[yellow]{r.start_line}[/]-{r.end_line}"
        sym = f"  [green]{r.symbol}[/] ({r.kind})" if r.symbol else ""
        stale = "  [red](stale)[/]" if r.stale else ""
        console.print(f"{i:>2}. {where}{sym}  [dim]{r.score:.4f} {ranks}[/]{stale}", soft_wrap=True)
        if r.explain is not None:
            console.print(f"    [magenta]why:[/] {explain_line(r.explain)}", markup=True, soft_wrap=True)
        if snip.lines:
            lexer = r.language if r.language and r.language != "text" else "text"
            console.print(
                Syntax(
                    snip.text,
                    lexer,
                    line_numbers=True,
                    start_line=snip.start_line,
                    highlight_lines={snip.focus_line},
                    theme="ansi_dark",
                    word_wrap=False,
                    background_color="default",
                )
            )
            if snip.read_on is not None:
                console.print(f"    [dim]… continues at line {snip.read_on}[/]")

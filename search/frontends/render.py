"""The output of ``plait search``: results as JSON, JSON Lines or for people (``path:start-end``,
symbol, score, and the focused snippet), the messages for stderr and the exit code.

Coloured through rich on a terminal (or with ``--color always``); plain text otherwise, never cut to
a width, so ``plait search ... | less`` and ``> file`` keep every character.

:func:`present_search` is the one way from an engine's response to what the command prints, used by a
search done in the ``plait`` process and by the running server that answers one
(:mod:`search.frontends.endpoint`), which sends it over as :func:`to_wire` says.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Sequence
from typing import IO, Any, NamedTuple

from search.engine.snippets import Snippet, focus_results, monotonic_scores
from search.types import MODE_RETRIEVERS, Query, Result, SearchResponse

OUTPUTS = ("json", "jsonl", "plain", "color")


class SearchOutput(NamedTuple):
    """What ``plait search`` prints: ``stdout`` (``None`` for coloured output: render ``results``
    with :func:`render_results`), the lines for stderr, and the exit status."""

    stdout: str | None
    results: list[tuple[Result, Snippet]]
    stderr: list[str]
    code: int


def present_search(
    response: SearchResponse, root: str, query: Query, *, max_tokens: int, output: str
) -> SearchOutput:
    """The output of a search: scores made monotonic, snippets focused on the match within
    ``max_tokens``, rendered as ``output`` (one of :data:`OUTPUTS`); exit 0 when something was found,
    1 when nothing, 2 when no retriever of the mode could search."""
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {', '.join(OUTPUTS)}, got {output!r}")
    results = focus_results(
        monotonic_scores(response.results), root, query.text, regex=query.regex, max_tokens=max_tokens
    )
    stdout: str | None = None
    if output in ("json", "jsonl"):
        rows = [{**r.to_json(), "snippet_line": snip.start_line} for r, snip in results]
        stdout = (
            json.dumps(rows) + "\n" if output == "json" else "".join(json.dumps(row) + "\n" for row in rows)
        )
    elif output == "plain":
        buffer = io.StringIO()
        render_results(results, color=False, stream=buffer)
        stdout = buffer.getvalue()
    stderr = [f"plait: {name} search unavailable: {why}" for name, why in response.degraded.items()]
    stderr += [f"plait: note: {note}" for note in response.notes]
    if results:
        code = 0
    elif set(MODE_RETRIEVERS[query.mode]) <= set(response.degraded):
        code = 2  # nothing could search: an error, not "no match"
    else:
        code = 1
        if output not in ("json", "jsonl"):
            stderr.append(f"plait: no results for {query.text!r}")
    return SearchOutput(stdout, results, stderr, code)


def to_wire(out: SearchOutput) -> dict[str, Any]:
    """``out`` as JSON for the client: the results and snippets only when it renders them (colour)."""
    data: dict[str, Any] = {"stdout": out.stdout, "stderr": out.stderr, "code": out.code}
    if out.stdout is None:
        data["results"] = [
            {**_result_fields(r), "snippet_view": [s.start_line, list(s.lines), s.focus_line, s.read_on]}
            for r, s in out.results
        ]
    return data


def from_wire(data: dict[str, Any]) -> SearchOutput:
    """The :class:`SearchOutput` that :func:`to_wire` sent."""
    results = []
    for row in data.get("results") or ():
        fields = dict(row)
        start, lines, focus_line, read_on = fields.pop("snippet_view")
        results.append((Result(**fields), Snippet(start, tuple(lines), focus_line, read_on)))
    return SearchOutput(data["stdout"], results, list(data["stderr"]), int(data["code"]))


def _result_fields(r: Result) -> dict[str, Any]:
    return {
        "path": r.path, "start_line": r.start_line, "end_line": r.end_line, "score": r.score,
        "symbol": r.symbol, "kind": r.kind, "language": r.language, "snippet": r.snippet,
        "sources": r.sources, "stale": r.stale, "explain": r.explain,
    }  # fmt: skip


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

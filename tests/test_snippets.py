"""Snippets show the match: the matched line (or the definition line) with its decorators, within a
token budget shared by the results, with a read-on hint; displayed scores fall with the rank."""

from __future__ import annotations

from pathlib import Path

from search.engine.snippets import (
    CHARS_PER_TOKEN,
    focus,
    focus_results,
    line_matcher,
    monotonic_scores,
)
from search.types import Result

MODULE = [
    '"""Benchmark helpers.',
    "",
    "A long module docstring that is not what anyone searched for.",
    '"""',
    "",
    "import os",
    "import resource",
    "import sys",
    "",
    "",
    "def rate(count, seconds):",
    "    return count / seconds",
    "",
    "",
    "@functools.cache",
    "@other.decorator(1)",
    "def peak_rss_mb() -> float:",
    '    """Peak resident set size of this process so far, in MiB."""',
    "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss",
    "    return peak / 1024",
]


def test_an_identifier_query_shows_its_definition_with_the_decorators() -> None:
    snip = focus(MODULE, 1, matcher=line_matcher("peak_rss_mb"), symbol="peak_rss_mb", max_lines=6)
    assert snip.focus_line == 17
    assert snip.start_line == 15 and snip.lines[0] == "@functools.cache"
    assert "def peak_rss_mb() -> float:" in snip.lines
    assert snip.read_on == 21 or snip.read_on is None


def test_a_symbol_hit_without_a_matching_line_shows_the_definition_line() -> None:
    snip = focus(MODULE, 31, matcher=line_matcher("how much memory at most"), symbol="rate", max_lines=3)
    assert snip.start_line == 41 and snip.lines[0] == "def rate(count, seconds):"
    assert snip.read_on == 43  # the blank line after it is dropped, so reading on starts there


def test_a_sentence_query_centres_on_the_line_holding_most_of_its_terms() -> None:
    snip = focus(MODULE, 1, matcher=line_matcher("peak resident set size"), symbol=None, max_lines=4)
    assert snip.focus_line == 18 and any("Peak resident set size" in line for line in snip.lines)
    assert snip.start_line == 16  # two lines of context above a matched line


def test_literal_and_regex_queries_match_their_line() -> None:
    assert focus(MODULE, 1, matcher=line_matcher('"import resource"'), symbol=None).focus_line == 7
    assert focus(MODULE, 1, matcher=line_matcher(r"ru_max\w+", regex=True), symbol=None).focus_line == 19


def test_numbered_snippets_carry_line_numbers_and_the_read_on_hint() -> None:
    snip = focus(MODULE, 1, matcher=line_matcher("rate"), symbol="rate", max_lines=2)
    text = snip.numbered()
    assert text.splitlines()[0] == "11│ def rate(count, seconds):"
    assert "read on with read_file offset=13" in text


def _write(tmp_path: Path, n: int) -> list[Result]:
    results = []
    for i in range(n):
        path = tmp_path / f"f{i}.py"
        path.write_text("\n".join(f"x{j} = 'needle number {j} {'w' * 60}'" for j in range(40)) + "\n")
        results.append(Result(f"f{i}.py", 1, 40, 1.0 / (i + 1), None, None, "python", "", {"text": i + 1}))
    return results


def test_the_token_budget_is_shared_by_the_results_in_rank_order(tmp_path: Path) -> None:
    results = _write(tmp_path, 8)
    focused = focus_results(results, str(tmp_path), "needle", max_tokens=600)
    chars = sum(len(line) + 1 for _, s in focused for line in s.lines)
    assert chars <= 600 * CHARS_PER_TOKEN + 8 * 100  # each result keeps at least its focus line
    assert all(s.lines and "needle" in s.lines[0] for _, s in focused)
    assert all(r.snippet == s.text for r, s in focused)
    roomy = focus_results(results, str(tmp_path), "needle", max_tokens=20000)
    assert sum(len(s.lines) for _, s in roomy) > sum(len(s.lines) for _, s in focused)


def test_scores_are_made_monotonic_without_changing_the_order() -> None:
    def r(score: float, path: str) -> Result:
        return Result(path, 1, 2, score, None, None, None, "", {})

    ranked = [r(0.0246, "a"), r(0.0375, "b"), r(0.0200, "c"), r(0.0300, "d")]
    out = monotonic_scores(ranked)
    assert [x.path for x in out] == ["a", "b", "c", "d"]
    assert [x.score for x in out] == [0.0246, 0.0246, 0.0200, 0.0200]
    assert monotonic_scores([]) == []


def test_a_fifo_or_a_symlink_in_place_of_a_result_is_not_read(tmp_path: Path) -> None:
    import os

    from search.engine.snippets import read_span

    os.mkfifo(tmp_path / "pipe.py")  # opening it for reading would block without O_NONBLOCK
    (tmp_path / "real.py").write_text("secret = 1\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    assert read_span(str(tmp_path), "pipe.py", 1, 10) == []
    assert read_span(str(tmp_path), "link.py", 1, 10) == []
    assert read_span(str(tmp_path), "real.py", 1, 10) == ["secret = 1"]

"""Format strings that a pasted message fills: the patterns read from a literal, the places found in
real files beneath the root, and the text retriever putting them first (real index, real rg)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from search import Query
from search.engine.retrievers.template import (
    MAX_LITERALS,
    filled_places,
    looks_printed,
    template_pattern,
)
from search.types import FILLED


@pytest.mark.parametrize(
    ("body", "printed"),
    [
        ("Worker %r is done", "Worker 'db' is done"),
        ("Option %(name)r must be a list of %s", "Option 'port' must be a list of int"),
        ("connecting to %s:%d failed", "connecting to db.local:5432 failed"),
        ("Could not compile {name!r}: {exc}", "Could not compile 'x.j2': unexpected end"),
        ("time_info[{}] out of bounds", "time_info[42] out of bounds"),
        ("Command ${cmd} must have a context", "Command serve --port 80 must have a context"),
        ("no route for #{path} found", "no route for /api/v1 found"),
        ("value %v is not a valid %T", "value 3 is not a valid string"),
        ("50%% of %d requests {{failed}}", "50% of 12 requests {failed}"),
        ("unexpected token\\n  at line %d", "unexpected token at line 7"),
        ('quoted \\"%s\\" not allowed', 'quoted "x" not allowed'),
    ],
)
def test_a_format_string_matches_what_it_prints(body: str, printed: str) -> None:
    pattern = template_pattern(body)
    assert pattern is not None
    assert pattern.search(printed) is not None
    assert pattern.search(f"2026-12-03 12:00:01 ERROR app: {printed} (retrying)") is not None  # in a log line


def test_a_format_string_fills_only_with_its_own_words_around_the_values() -> None:
    pattern = template_pattern("Worker %r is done")
    assert pattern is not None
    assert pattern.search("Worker is done") is None  # a value is one word or more
    assert pattern.search("Worker one two three four five is done") is None  # at most four words
    assert pattern.search("Worker 'db' is not done") is None
    for body in ("%s: %s", "{} and {}", "no placeholder here", "%s %s %s %s %s text with words", "a %s b"):
        assert template_pattern(body) is None, body  # too few words of its own, too many holes, none
    # Placeholders with only spaces between them fill as one run: four words each, together.
    run = template_pattern("%s %s failed to start")
    assert run is not None and run.search("the main worker process failed to start") is not None


def test_a_pasted_message_looks_printed_and_a_sentence_does_not() -> None:
    for printed in (
        "Worker 'db' is done",
        "user_17 is not in list",
        "port 8080 is busy",
        "ConnectionError raised",
    ):
        assert looks_printed(printed), printed
    for sentence in (
        "how the async HTTP client session works",
        "Check for a Future.",
        "retry failed uploads",
    ):
        assert not looks_printed(sentence), sentence


def test_places_are_read_within_the_spans_beneath_the_root(make_repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text('raise ValueError("Worker %r is done" % w)\n')
    root = make_repo(
        {
            "pool.py": "def stop(w):\n    log.info('Worker %r is done', w)\n    return w\n",
            "other.py": "def f(w):\n    raise KeyError('worker %s is done' % w)\n",
            "binary.dat": b"Worker %r is done\x00",
        }
    )
    os.symlink(outside, root / "escape.py")
    os.mkfifo(root / "fifo.py")
    spans = [
        ("pool.py", 1, 3),
        ("other.py", 1, 2),
        ("binary.dat", 1, 1),
        ("escape.py", 1, 1),
        ("fifo.py", 1, 1),
        ("gone.py", 1, 9),
    ]
    found = filled_places(str(root), "Worker 'db' is done", spans)  # the FIFO is never opened: it would block
    # the case of the format string's own words decides "as written"; a symlink out, a FIFO, a binary
    # file and a missing one are skipped
    assert found == [("pool.py", 2, True), ("other.py", 2, False)]
    assert filled_places(str(root), "Worker 'db' is done", [("pool.py", 3, 3)]) == []  # outside the span
    assert filled_places(str(root), "x" * 401 + " is done", spans) == []  # longer than a message


def test_the_format_strings_tried_per_phrase_are_bounded(make_repo) -> None:
    many = "".join(f"    log('step {i} of %d is done', n)\n" for i in range(MAX_LITERALS + 50))
    root = make_repo({"steps.py": "def run(n):\n" + many})
    found = filled_places(str(root), "step 3 of 9 is not done", [("steps.py", 1, MAX_LITERALS + 51)])
    assert found == []
    last = f"step {MAX_LITERALS + 40} of 9 is done"
    assert filled_places(str(root), last, [("steps.py", 1, MAX_LITERALS + 51)]) == []  # past the bound
    assert filled_places(str(root), "step 3 of 9 is done", [("steps.py", 1, MAX_LITERALS + 51)]) == [
        ("steps.py", 5, True)
    ]


def test_a_message_pasted_as_printed_puts_its_format_string_first(
    indexed_engine: Callable[..., object],
) -> None:
    """The values make the message absent from the code verbatim; the words around them are in three
    places, and BM25 ranks a comment that repeats them first: the format string it fills comes first."""
    engine = indexed_engine(
        {
            "pool/worker.py": "def finish(worker):\n    state = worker.state\n"
            "    log.warning('Worker %r is done after %d retries', worker.name, state.retries)\n",
            "pool/notes.py": "# worker is done after retries: the worker is done after retries, worker done\n"
            "def notes():\n    return 'worker retries done'\n",
            "pool/other.py": "def other():\n    return 'unrelated'\n",
        }
    )
    query = "Worker 'uploader-2' is done after 3 retries"
    text = {h.span.path: (h.exact, h.loose) for h in engine.rankings(query)["text"]}  # type: ignore[attr-defined]
    assert text["pool/worker.py"] == (True, FILLED) and not text["pool/notes.py"][0]
    top = engine.search(Query(query, explain=True)).results[0]  # type: ignore[attr-defined]
    assert top.path == "pool/worker.py"
    assert top.explain is not None
    assert {"rule": "phrase", "effect": "first (a format string it fills)"} in top.explain["rules"]
    # A sentence of plain words reads no format string: nothing is a place.
    plain = engine.rankings("worker is done after the retries")["text"]  # type: ignore[attr-defined]
    assert not any(h.exact for h in plain)

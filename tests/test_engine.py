"""The engine: each retriever finds what only it can, hybrid fuses them, failures degrade cleanly."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from indexer import Index
from models.errors import PathOutsideRootError
from search import Engine, Query, QueryError, Scope, parse_scope
from search.types import WRAPPED

UPLOAD = '''"""Uploads."""


class UploadSession:
    """Holds one upload."""

    def __init__(self, url):
        self.url = url

    def send(self, data):
        if not verify(data):
            raise ValueError("checksum mismatch")
        return post(self.url, data)


def verify(data):
    return len(data) > 0
'''
RETRY = '''def backoff_delay(attempt, base=0.5, cap=30.0):
    """Exponential delay between attempts, capped."""
    return min(cap, base * 2 ** attempt)
'''
USES = "\n".join(
    f"from up import UploadSession\n\n\ndef use{i}():\n    return UploadSession('u{i}')\n" for i in range(3)
)
FILES = {
    "src/up.py": UPLOAD,
    "src/retry.py": RETRY,
    "src/uses.py": USES,
    "docs/guide.md": "# Guide\n\nRun it.\n",
}


@pytest.fixture
def engine(indexed_engine):
    return indexed_engine(FILES)


def paths(response) -> list[str]:
    return [r.path for r in response.results]


def test_text_finds_a_literal_the_symbol_index_cannot(engine: Engine) -> None:
    text = engine.search(Query('"checksum mismatch"', mode="text"))
    assert text.results[0].path == "src/up.py"
    assert text.results[0].start_line <= 12 <= text.results[0].end_line
    assert text.results[0].symbol == "UploadSession"  # the chunk: the whole (small) class
    assert engine.search(Query('"checksum mismatch"', mode="symbol")).results == []


def test_symbol_ranks_the_definition_above_mentions(engine: Engine) -> None:
    res = engine.search(Query("UploadSession", mode="symbol"))
    top = res.results[0]
    assert (top.path, top.symbol, top.kind) == ("src/up.py", "UploadSession", "class")
    assert top.sources == {"symbol": 1}
    assert engine.search(Query("upload_session", mode="symbol")).results[0].symbol == "UploadSession"
    assert engine.search(Query("UploadSession.send", mode="symbol")).results[0].symbol == "UploadSession.send"


def test_hybrid_results_carry_ranks_from_several_retrievers(engine: Engine) -> None:
    res = engine.search(Query("UploadSession"))
    assert res.results[0].symbol == "UploadSession"
    assert set(res.results[0].sources) == {"text", "symbol", "vector"}
    assert res.results[0].sources["symbol"] == 1 and res.results[0].sources["text"] is not None
    assert res.coverage is not None and res.coverage.embedded == res.coverage.chunks > 0
    assert res.degraded == {}
    assert [r.score for r in res.results] == sorted((r.score for r in res.results), reverse=True)


def test_a_failing_retriever_is_reported_and_the_others_answer(engine: Engine) -> None:
    slow = Engine(engine.settings, timeouts={"text": 0.0})
    try:
        res = slow.search(Query("UploadSession"))
    finally:
        slow.close()
    assert "timed out" in res.degraded["text"]
    assert res.results and res.results[0].symbol == "UploadSession"


def test_vectors_of_another_model_degrade_only_the_vector_retriever(engine: Engine, settings_for) -> None:
    other = Engine(settings_for(engine.settings.root, model="hashing-64"))
    try:
        res = other.search(Query("UploadSession"))
    finally:
        other.close()
    assert "run `plait index" in res.degraded["vector"]
    assert res.results[0].symbol == "UploadSession"


def test_no_index_yet_text_still_works_and_says_how_to_build(make_repo, settings_for) -> None:
    root = make_repo(FILES)
    eng = Engine(settings_for(root))
    try:
        res = eng.search(Query("checksum mismatch"))
    finally:
        eng.close()
    assert res.results[0].path == "src/up.py"
    assert "plait index" in res.degraded["symbol"] and "plait index" in res.degraded["vector"]


def test_results_from_files_changed_since_indexing_are_marked_stale(engine: Engine) -> None:
    root = engine.settings.root
    (root / "src/retry.py").write_text(RETRY + "\n\ndef jitter():\n    return 'freshly added'\n")
    res = engine.search(Query('"freshly added"', mode="text"))
    assert res.results[0].path == "src/retry.py" and res.results[0].stale
    assert any("stale" in n for n in res.notes)


def test_a_file_deleted_since_indexing_is_no_answer(engine: Engine) -> None:
    """The index still holds backoff_delay (symbols, vectors); the checkout no longer does."""
    before = engine.search(Query("backoff_delay", mode="hybrid"))
    assert before.results[0].path == "src/retry.py" and before.results[0].symbol == "backoff_delay"
    (engine.settings.root / "src/retry.py").unlink()
    for mode in ("hybrid", "symbol", "semantic"):
        after = engine.search(Query("backoff_delay exponential delay between attempts", mode=mode))
        assert "src/retry.py" not in paths(after), (mode, paths(after))
    assert "src/up.py" in paths(engine.search(Query("UploadSession", mode="symbol")))  # the others stay


def test_the_settings_globs_leave_out_what_an_index_built_without_them_holds(engine: Engine) -> None:
    """``plait search --exclude 'docs/'`` over an index built without that exclude: no docs/ result."""
    import dataclasses

    query = "Guide run it"
    assert "docs/guide.md" in paths(engine.search(Query(query, mode="hybrid")))
    for settings in (
        dataclasses.replace(engine.settings, exclude=("docs/",)),
        dataclasses.replace(engine.settings, include=("src/**",)),
    ):
        narrowed = Engine(settings)
        try:
            for mode in ("hybrid", "text", "semantic"):
                found = paths(narrowed.search(Query(query, mode=mode)))
                assert not [p for p in found if p.startswith("docs/")], (mode, found)
                assert found or mode == "text", mode  # the other files still answer
        finally:
            narrowed.close()


def test_scopes_globs_and_language_filters(engine: Engine) -> None:
    assert set(paths(engine.search(Query("UploadSession", mode="text"), parse_scope("dir:src")))) <= {
        "src/up.py", "src/uses.py"}  # fmt: skip
    only = engine.search(Query("UploadSession", mode="text"), parse_scope("file:src/uses.py"))
    assert set(paths(only)) == {"src/uses.py"}
    globbed = engine.search(Query("UploadSession"), Scope(globs=("!src/uses.py",)))
    assert "src/uses.py" not in paths(globbed) and "src/up.py" in paths(globbed)
    assert engine.search(Query("Guide", mode="text"), Scope(language="python")).results == []
    assert engine.search(Query("UploadSession"), Scope(globs=("*.nothing",))).results == []


def test_changed_scope_uses_git_status(engine: Engine) -> None:
    root = engine.settings.root
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "src/new.py").write_text("def fresh_upload():\n    return UploadSession('x')\n")
    res = engine.search(Query("UploadSession", mode="text"), parse_scope("changed"))
    assert paths(res) == ["src/new.py"]


@pytest.mark.parametrize(
    ("query", "scope", "message"),
    [
        (Query(""), "ws", "the query is empty"),
        (Query("x" * 10_000), "ws", "10,000 characters"),
        (Query("(unclosed", regex=True, mode="text"), "ws", "invalid regex"),
        (Query("x", limit=100_000), "ws", "limit must be between"),
        (Query("x"), "nowhere:thing", "unknown scope"),
        (Query("x"), "dir:missing", "does not exist"),
    ],
)
def test_bad_input_raises_actionable_errors(engine: Engine, query: Query, scope: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        engine.search(query, parse_scope(scope))


def test_scope_outside_the_root_is_refused(engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(PathOutsideRootError, match="outside the workspace"):
        engine.search(Query("x"), parse_scope("dir:../"))


@pytest.mark.model
def test_real_model_finds_a_paraphrase_only_the_vector_retriever_matches(make_repo, settings_for) -> None:
    root = make_repo(FILES)
    settings = settings_for(root, model="all-MiniLM-L6-v2")
    Index(settings).build()
    eng = Engine(settings)
    try:
        query = Query("how long to pause before trying again", limit=3)
        assert eng.search(Query(query.text, mode="text")).results == []
        assert eng.search(Query(query.text, mode="symbol")).results == []
        semantic = eng.search(Query(query.text, mode="semantic", limit=3))
        assert semantic.results[0].path == "src/retry.py"
        hybrid = eng.search(query)
        assert hybrid.results[0].path == "src/retry.py"
        assert hybrid.results[0].sources["vector"] == 1
    finally:
        eng.close()


def test_an_exact_case_definition_outranks_a_case_insensitive_one_that_text_prefers(
    make_repo, settings_for
) -> None:
    env = "def getattr(obj, name):\n    # getattr, getattr, getattr\n"
    env += "    return __builtins__.getattr(obj, name) or obj.getattr(name)\n"
    uses = {
        f"use{i}.py": f"def use{i}(o):\n    return getattr(o, 'getattr') or getattr(o, '{i}')\n"
        for i in range(5)
    }
    root = make_repo({"nodes.py": "class Getattr:\n    fields = ('node', 'attr')\n", "env.py": env, **uses})
    settings = settings_for(root)
    Index(settings).build()
    eng = Engine(settings)
    try:
        text = [r.path for r in eng.search(Query("Getattr", mode="text")).results]
        assert text[0] == "env.py"  # lexically, the many mentions win
        hybrid = eng.search(Query("Getattr")).results
        assert (hybrid[0].path, hybrid[0].symbol) == ("nodes.py", "Getattr")
    finally:
        eng.close()


def test_compact_rg_output_reads_the_same_matches_as_json(make_repo, settings_for) -> None:
    from search.workspace import ripgrep

    root = make_repo(
        {
            "odd: name 1.py": "retry = 1  # retry retry\nupload = retry\n",
            "sub/b.py": "def upload_retry():\n    return 'Retry'\n",
            "c.txt": "nothing here\n",
        }
    )
    settings = settings_for(root)
    patterns = ("retry", "upload")

    def run(compact: bool) -> list[tuple[str, int, tuple[str, ...]]]:
        command = ripgrep.RgCommand(
            "matches" if compact else "json", patterns, fixed=True, case="insensitive"
        )
        res = ripgrep.run_rg(settings, command, timeout=10)
        assert not res.truncated
        return sorted((m.path, m.line, m.submatches) for m in res.lines)

    compact = run(True)
    assert compact == run(False)
    assert ("odd: name 1.py", 1, ("retry", "retry", "retry")) in compact
    assert ("sub/b.py", 1, ("upload", "retry")) in compact
    assert ("sub/b.py", 2, ("Retry",)) in compact


def test_snippets_follow_the_span_and_the_file_end(make_repo, settings_for) -> None:
    root = make_repo({"a.py": "one\r\ntwo\n\nfour\n", "b.py": "x\ny"})
    engine = Engine(settings_for(root))
    try:
        assert engine._snippet("a.py", 1, 3) == ("one\ntwo\n", 3)  # ends on an empty line: kept
        assert engine._snippet("a.py", 2, 99) == ("two\n\nfour", 4)  # past the end: clipped, no phantom line
        assert engine._snippet("b.py", 2, 5) == ("y", 2)  # no final newline
        assert engine._snippet("gone.py", 1, 3) == ("", 3)
    finally:
        engine.close()


def test_a_topic_finds_and_ranks_the_definition_its_adjacent_words_spell(indexed_engine) -> None:
    engine = indexed_engine(
        {
            "gson/JsonElement.java": "public abstract class JsonElement {\n  public boolean isArray() {\n"
            "    return false;\n  }\n}\n",
            "gson/TreeWalker.java": "class TreeWalker {\n  // walks each element of the json tree\n"
            "  void walk(Object element) {}\n}\n",
        }
    )
    query = "JSON element hierarchy and tree model"
    symbol = engine.rankings(query)["symbol"]
    assert [h.symbol for h in symbol] == ["JsonElement"], (
        symbol
    )  # "json element" spells it; no word alone does
    top = engine.search(Query(query, explain=True)).results[0]
    assert top.path == "gson/JsonElement.java"
    assert any(step["rule"].startswith("definition") for step in top.explain["rules"])


def test_a_result_is_labelled_with_the_definition_found_in_it_not_its_first(indexed_engine) -> None:
    small = "".join(
        f"def helper_{n}(x):\n    return x + {i}\n\n\n" for i, n in enumerate(["one", "two", "three"])
    )
    engine = indexed_engine({"util.py": small, "other.py": "def unrelated():\n    return 1\n"})
    top = engine.search(Query("helper_three", explain=True)).results[0]
    # one chunk holds all three (its label is helper_one), found first by the text retriever too
    assert top.path == "util.py" and top.start_line < 9 <= top.end_line
    assert top.explain is not None and top.explain["ranks"]["text"] == 1 == top.explain["ranks"]["symbol"]
    assert top.symbol == "helper_three" and top.kind == "function"


def test_a_pasted_phrase_with_capitals_puts_its_text_as_written_first(indexed_engine) -> None:
    engine = indexed_engine(
        {
            "loop/proactor.py": "def close(self):\n    # forbidden when the event loop is closed by now\n"
            "    self._loop = None\n",
            "loop/base.py": "def _check_closed(self):\n    if self._closed:\n"
            "        raise RuntimeError('Event loop is closed')\n",
        }
    )
    text = engine.rankings("Event loop is closed")["text"]
    marks = {h.span.path: (h.exact, h.exact_case) for h in text}
    assert marks == {"loop/base.py": (True, True), "loop/proactor.py": (True, False)}
    pasted = engine.search(Query("Event loop is closed", explain=True)).results
    assert [r.path for r in pasted[:2]] == ["loop/base.py", "loop/proactor.py"]
    assert {"rule": "phrase", "effect": "first (case differs)"} in pasted[1].explain["rules"]
    # All lowercase is typed, not pasted (ripgrep's smart case): no place is preferred for its case.
    typed = engine.search(Query("event loop is closed", explain=True)).results
    assert {r.path for r in typed[:2]} == {"loop/base.py", "loop/proactor.py"}
    assert all({"rule": "phrase", "effect": "first"} in r.explain["rules"] for r in typed[:2])


def test_a_phrase_written_with_its_own_spacing_is_found_where_that_spacing_is(
    indexed_engine, make_repo, settings_for
) -> None:
    """A row pasted from an aligned table keeps its spacing, as ripgrep would: the one place that holds
    it so comes first, not the tables that hold its words single-spaced; where no place holds the
    spacing, it is read loosely."""
    tables = {
        f"tests/test_table_{i}.py": f"def test_table_{i}():\n    assert render() == 'spam {i} | spam 41.9999 |'\n"
        for i in range(8)
    }
    files = tables | {
        "tests/test_numparse.py": "def test_numparse():\n    expected = '\\n'.join(['eggs  451', 'spam       41.9999'])\n"
    }
    engine = indexed_engine(files)
    text = engine.rankings("spam       41.9999")["text"]
    assert [h.span.path for h in text if h.exact] == ["tests/test_numparse.py"]
    top = engine.search(Query("spam       41.9999", explain=True)).results[0]
    assert top.path == "tests/test_numparse.py"
    assert top.explain is not None and {"rule": "phrase", "effect": "first"} in top.explain["rules"]
    # Single-spaced, it is held in nine places: too many for the phrase rule, and every one verbatim.
    loose = engine.rankings("spam 41.9999")["text"]
    assert len([h for h in loose if h.exact]) == 9
    # A spacing nothing holds is read loosely: the nine places, as single-spaced.
    odd = engine.rankings("spam   41.9999")["text"]
    assert len([h for h in odd if h.exact]) == 9
    # No index: ripgrep's matches are read the same way.
    bare = Engine(settings_for(make_repo(files)))
    try:
        assert [h.span.path for h in bare.rankings("spam       41.9999")["text"] if h.exact] == [
            "tests/test_numparse.py"
        ]
    finally:
        bare.close()


def test_a_quoted_strings_places_as_typed_come_first_then_those_in_real_code(indexed_engine) -> None:
    engine = indexed_engine(
        {
            "src/client.py": 'HEADERS = {"User-Agent": "shop/1.0"}\n',
            "tests/test_client.py": 'def test_agent(header):\n    assert header.lower() == "user-agent"\n',
            "src/checks.py": 'def check(a, b):\n    if a != b:\n        raise ValueError("checksum mismatch")\n',
            "tests/test_checks.py": "def test_check():\n"
            '    with raises(ValueError, match="checksum mismatch"):\n        check(1, 2)\n',
        }
    )
    # ripgrep's smart case finds the lower-case string in "User-Agent" too; the test holds it as typed
    marks = {h.span.path: h.exact_case for h in engine.rankings('"user-agent"')["text"]}
    assert marks == {"tests/test_client.py": True, "src/client.py": False}
    typed = engine.search(Query('"user-agent"', explain=True)).results
    assert [r.path for r in typed[:2]] == ["tests/test_client.py", "src/client.py"]
    assert {"rule": "exact", "effect": "case differs"} in typed[1].explain["rules"]
    # held as typed in both: the code that raises the message before the test that asserts it
    raised = engine.search(Query('"checksum mismatch"', explain=True)).results
    assert [r.path for r in raised[:2]] == ["src/checks.py", "tests/test_checks.py"]
    assert {"rule": "exact", "effect": "as typed, after real code"} in raised[1].explain["rules"]


def test_a_token_of_code_is_found_at_its_definition_before_its_uses(indexed_engine) -> None:
    """ "#setupEvents", a JavaScript private method: the phrase rule finds the places that hold it, and
    the one that defines it comes before the two that call it twice each (which BM25 ranks higher)."""
    pad = "".join(f"    const v{i} = {i};\n" for i in range(30))

    def method(name: str, body: str) -> str:
        return f"  {name} () {{\n{pad}{body}  }}\n\n"

    source = (
        "class Handler {\n"
        + method("#setupEvents", "    this.stream.on('data', () => {})\n")
        + method("single", "    this.#setupEvents()\n    this.#setupEvents()\n")
        + method("multiple", "    this.#setupEvents()\n    this.#setupEvents()\n")
        + "}\n"
    )
    engine = indexed_engine({"lib/handler.js": source})
    results = engine.search(Query("#setupEvents", explain=True)).results
    assert results[0].symbol is not None and results[0].symbol.endswith("#setupEvents")
    assert {"rule": "phrase", "effect": "first (its definition)"} in results[0].explain["rules"]
    assert {r.symbol for r in results[1:3]} == {"Handler.single", "Handler.multiple"}


def test_a_pasted_message_split_over_two_literals_is_found_where_it_is_written(indexed_engine) -> None:
    """An error message split over adjacent literals, and a comment's sentence wrapped over two lines,
    are found verbatim by the text retriever (index, then the few files that can hold them) and put
    first; where the same words are also written on one line, that line comes first."""
    engine = indexed_engine(
        {
            "web/template.py": "def set_resources(path, kwargs):\n    if seen[path] != kwargs:\n"
            "        raise ValueError(\n            'set_resources called with different '\n"
            "            'resources for the same template'\n        )\n",
            "web/render.py": "def render(resources, template):\n"
            "    # different resources are merged; the same template renders once\n"
            "    return merge(resources, template)\n",
            "web/log.py": "def configure(level):\n    # If none, the server won't touch the\n"
            "    # logging configuration.\n    return level\n",
            "web/docs.py": 'def help():\n    return "if none, the server won\'t touch the logging configuration"\n',
        }
    )
    query = "called with different resources for the same template"
    text = {h.span.path: (h.exact, h.loose) for h in engine.rankings(query)["text"]}
    assert text["web/template.py"] == (True, WRAPPED) and not text.get("web/render.py", (False,))[0]
    top = engine.search(Query(query, explain=True)).results[0]
    assert top.path == "web/template.py"
    assert top.explain is not None
    assert {"rule": "phrase", "effect": "first (across a line break)"} in top.explain["rules"]
    # Written on one line in docs.py and wrapped in log.py.
    both = engine.search(Query("the server won't touch the logging configuration", explain=True)).results
    assert [r.path for r in both[:2]] == ["web/docs.py", "web/log.py"]


def test_a_phrase_holding_a_non_breaking_space_is_found_where_the_code_holds_that_character(
    indexed_engine, make_repo, settings_for
) -> None:
    """Only ASCII whitespace separates a phrase's words: a non-breaking space pasted from a test of
    escapes is a character of the text, found where the code holds it, first by the phrase rule, from
    the index's files and from ripgrep's alike."""
    files = {
        "tests/test_escapes.py": "def test_escapes():\n"
        "    assert xpath(r'[h\\a0 ref]') == \"*[attribute::*[name() = 'h\u00a0ref']]\"\n",
        "xpath.py": "def attrib(name):\n    '''Translate an attribute selector: attribute name, href.'''\n"
        "    return f\"*[attribute::*[name() = '{name}']]\"  # attribute name h ref\n",
    }
    query = "*[attribute::*[name() = 'h\u00a0ref']]"
    engine = indexed_engine(files)
    assert [h.span.path for h in engine.rankings(query)["text"] if h.exact] == ["tests/test_escapes.py"]
    top = engine.search(Query(query, explain=True)).results[0]
    assert top.path == "tests/test_escapes.py"
    assert top.explain is not None and {"rule": "phrase", "effect": "first"} in top.explain["rules"]
    bare = Engine(settings_for(make_repo(files)))
    try:
        assert [h.span.path for h in bare.rankings(query)["text"] if h.exact] == ["tests/test_escapes.py"]
    finally:
        bare.close()


def test_a_phrase_is_found_verbatim_where_the_code_double_spaces_it(
    indexed_engine, make_repo, settings_for
) -> None:
    """An unquoted phrase is compared whitespace-normalised: typed with one space after the period, it
    is the text of a line that has two, from the index's files and from ripgrep's alike."""
    files = {
        "static/debugger.js": 'function pinFailed() {\n  alert("Error: Could not verify PIN.  Network error?");\n}\n',
        "debug/pin.py": "def verify_pin(pin):\n    '''Verify the PIN; a network error could not happen here.'''\n"
        "    return check(pin)  # verify pin, network error, could not verify\n",
        "debug/net.py": "def network_error(pin):\n    raise NetworkError('could not verify the pin: network error')\n",
    }
    query = "Error: Could not verify PIN. Network error?"
    engine = indexed_engine(files)
    marks = {h.span.path: (h.exact, h.exact_case) for h in engine.rankings(query)["text"]}
    assert marks["static/debugger.js"] == (True, True)
    assert not any(exact for path, (exact, _) in marks.items() if path != "static/debugger.js")
    top = engine.search(Query(query, explain=True)).results[0]
    assert top.path == "static/debugger.js"
    assert top.explain is not None and {"rule": "phrase", "effect": "first"} in top.explain["rules"]
    # No index: ripgrep searches the whole tree for the phrase's pattern.
    bare = Engine(settings_for(make_repo(files)))
    try:
        text = bare.rankings(query)["text"]
        assert {h.span.path for h in text if h.exact} == {"static/debugger.js"}
    finally:
        bare.close()

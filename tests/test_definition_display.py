"""A search for a name shows the definition's own line: where a doc comment or decorators above the
name are longer than a chunk, the chunk holding the name, not the one where the comment starts. The
symbols table keeps each definition's name line (schema 3); an index built before it is read without
it until its next build."""

from __future__ import annotations

from indexer import Index
from indexer.snapshot import publish
from search import Engine, Query

DOC_LINES = 100  # longer than a chunk (80 lines by default)

STRUCT = (
    "pub struct Penalties {\n"
    + "".join(
        f"    /// The penalty for a short last line, paragraph {i} of its story.\n" for i in range(DOC_LINES)
    )
    + "    pub short_last_line_fraction: usize,\n"
    + "    pub overflow_penalty: usize,\n"
    + "}\n"
)
FIELD_LINE = DOC_LINES + 2

TESTS = (
    "import pytest\n\n\n"
    "@pytest.mark.parametrize(\n"
    '    ("number", "expected"),\n'
    "    [\n" + "".join(f'        ({i}, "{i}"),\n' for i in range(DOC_LINES)) + "    ],\n"
    ")\n"
    "def test_intword_in_every_locale(number, expected):\n"
    "    assert str(number) == expected\n"
)
TEST_LINE = DOC_LINES + 9

FILES = {"src/penalties.rs": STRUCT, "tests/test_words.py": TESTS}


def _top(engine: Engine, name: str) -> tuple[str, int, int]:
    top = engine.search(Query(name, mode="symbol")).results[0]
    return top.path, top.start_line, top.end_line


def test_a_field_below_a_long_doc_comment_is_shown_by_its_own_line(indexed_engine) -> None:
    engine = indexed_engine(FILES)
    assert STRUCT.splitlines()[FIELD_LINE - 1].strip().startswith("pub short_last_line_fraction")
    path, start, end = _top(engine, "short_last_line_fraction")
    assert path == "src/penalties.rs" and start <= FIELD_LINE <= end
    # in hybrid too, where the text retriever finds the doc comment's words in the chunk above
    hybrid = engine.search(Query("short_last_line_fraction")).results[0]
    assert hybrid.path == "src/penalties.rs" and hybrid.start_line <= FIELD_LINE <= hybrid.end_line


def test_a_function_below_long_decorators_is_shown_by_its_def_line(indexed_engine) -> None:
    engine = indexed_engine(FILES)
    assert TESTS.splitlines()[TEST_LINE - 1].startswith("def test_intword_in_every_locale")
    path, start, end = _top(engine, "test_intword_in_every_locale")
    assert path == "tests/test_words.py" and start <= TEST_LINE <= end


def test_an_index_built_before_name_lines_were_kept_is_read_until_rebuilt(make_repo, settings_for) -> None:
    """Schema 2 had no ``name_line`` column: its symbols read back with 0 there and the search shows
    the chunk holding the definition's first line, as it did; the next build replaces the table."""
    settings = settings_for(make_repo(FILES))
    index = Index(settings)
    index.build(vectors=False)
    index.store.table("symbols").drop_columns(["name_line"])
    publish(index.store, ["symbols"])  # what readers see: the table without the column
    engine = Engine(settings)
    try:
        (row,) = [
            s
            for s in engine.index.symbols_in_file("src/penalties.rs")
            if s.name == "short_last_line_fraction"
        ]
        assert (row.start_line, row.name_line) == (2, 0)
        path, start, end = _top(engine, "short_last_line_fraction")
        assert path == "src/penalties.rs" and start <= 2 <= end  # the doc comment's first line
    finally:
        engine.close()

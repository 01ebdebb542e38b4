"""A text search in a fresh process reads the view saved beside the index (indexer.textview) instead of
the LanceDB tables, and answers exactly as a search through the opened index does; a view that is no
longer the published snapshot's is never used."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexer import Index, IndexStoreError, Settings
from indexer.textview import open_view, view_path
from search import Engine, Query, Scope

FILES = {
    "src/queue.py": (
        "class WorkQueue:\n"
        "    def pending_count(self):\n"
        "        return len(self.items)\n"
        "\n"
        "    def push(self, item):\n"
        "        self.items.append(item)\n"
    ),
    "src/other.py": "def unrelated():\n    return 'queue of words, queue'\n",
    "src/billing/invoice_export.py": "def run(rows):\n    return [r for r in rows if r]\n",
    "lib/retry.js": "export function retryFailedUploads(items) {\n  return items.filter(Boolean);\n}\n",
}
QUERIES = [
    Query("count the pending items of a work queue", mode="text"),  # a sentence: BM25 over chunks
    Query("pending_count", mode="text"),  # an identifier: BM25 too
    Query("'queue of words'", mode="text"),  # a literal: ripgrep, mapped to chunks
    Query(r"retry\w+", mode="text", regex=True),
]


def answers(engine: Engine, scope: Scope | None = None) -> list[list[tuple[Any, ...]]]:
    return [
        [(r.path, r.start_line, r.end_line, r.symbol, r.kind, r.language, r.score, r.stale, r.snippet)
         for r in engine.search(q, scope).results]
        for q in QUERIES
    ]  # fmt: skip


def through_view(settings: Settings, scope: Scope | None = None) -> list[list[tuple[Any, ...]]]:
    engine = Engine(settings)
    try:
        found = answers(engine, scope)
        assert engine._index is None, "the text searches opened the index instead of reading the view"
        return found
    finally:
        engine.close()


def through_index(settings: Settings, scope: Scope | None = None) -> list[list[tuple[Any, ...]]]:
    engine = Engine(settings, index=Index(settings))
    try:
        return answers(engine, scope)
    finally:
        engine.close()


def test_text_searches_read_the_saved_view_and_answer_as_the_index_does(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    root = make_repo(FILES)
    settings = settings_for(root)
    Index(settings).build(vectors=False)
    view = open_view(settings)
    assert view is not None and view.count("files") == len(FILES)
    expected = through_index(settings)
    assert all(expected), expected  # every query finds something
    assert through_view(settings) == expected
    scope = Scope("dir", "src")
    assert through_view(settings, scope) == through_index(settings, scope)
    # A file changed since indexing is searched live and flagged stale the same way.
    (root / "src" / "other.py").write_text("def unrelated():\n    return 'queue of words, queue, queue'\n")
    changed = through_index(settings)
    assert any(r[7] for rows in changed for r in rows)
    assert through_view(settings) == changed


def test_a_view_that_is_not_the_published_snapshot_s_is_not_used(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    root = make_repo(FILES)
    settings = settings_for(root)
    index = Index(settings)
    index.build(vectors=False)
    assert open_view(settings) is not None
    index.store.set_meta(note="anything")  # a later write to meta: a publish may have come with it
    assert open_view(settings) is None
    engine = Engine(settings)
    try:
        assert engine.search(QUERIES[0]).results
        assert engine._index is not None  # read through the tables instead
    finally:
        engine.close()
    (root / "src" / "new.py").write_text("def pending_total():\n    return 0\n")
    index.build(vectors=False)  # the next build saves a current view again
    view = open_view(settings)
    assert view is not None and "src/new.py" in view.whole_manifest()
    # A damaged view is not used either.
    view_path(Path(settings.index_dir)).write_text("{not json")
    assert open_view(settings) is None
    os.unlink(view_path(Path(settings.index_dir)))
    assert open_view(settings) is None


def test_a_long_lived_engine_keeps_its_view_until_a_build_publishes(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    root = make_repo(FILES)
    settings = settings_for(root)
    Index(settings).build(vectors=False)
    engine = Engine(settings)
    try:
        engine.search(QUERIES[1])
        first = engine._view
        assert first is not None
        engine.search(QUERIES[0])
        assert engine._view is first  # nothing published: the same view, not read again
        (root / "src" / "totals.py").write_text("def pending_count_total():\n    return 0\n")
        Index(settings).build(vectors=False)  # another writer publishes a new snapshot
        found = engine.search(Query("pending_count_total", mode="text")).results
        assert engine._view is not first and engine._index is None
        assert found and found[0].path == "src/totals.py" and not found[0].stale
    finally:
        engine.close()


def test_a_full_rebuild_is_what_every_text_search_reads_after_it(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    """A full build empties the tables as new versions of them: the view and BM25 file saved for the
    rows before it, and a long-lived engine's memo of them, never answer for the rows after it."""
    root = make_repo(FILES)
    settings = settings_for(root)
    Index(settings).build(vectors=False)
    long_lived = Engine(settings, index=Index(settings))
    assert long_lived.search(Query("pending_count", mode="text")).results
    (root / "src" / "queue.py").write_text(
        "class WorkQueue:\n    def waiting_total(self):\n        return len(self.items)\n"
    )
    Index(settings).build(full=True, vectors=False)
    fresh_view, fresh_index = Engine(settings), Engine(settings, index=Index(settings))
    for engine in (long_lived, fresh_view, fresh_index):
        try:
            found = [(r.path, r.snippet) for r in engine.search(Query("waiting_total", mode="text")).results]
            assert found and found[0][0] == "src/queue.py" and "waiting_total" in found[0][1], found
            gone = [r.snippet for r in engine.search(Query("pending_count", mode="text")).results]
            assert not any("pending_count" in s for s in gone), gone
        finally:
            engine.close()
    assert fresh_view._index is None  # the fresh text search read the saved view


def test_a_sentence_of_a_declaration_file_s_doc_comment_reads_the_symbols_through_the_view(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    """The view holds no symbol table: the one text search that reads it (a sentence found in a ``.d.ts``
    doc comment names the code it declares, search.engine.retrievers.declared) opens the index then, and
    answers as a process that had opened it does (it failed the text search before)."""
    root = make_repo(
        {
            "lib/command.js": "class Command {\n  allowUnknownOption(flag) {\n    return flag;\n  }\n}\n",
            "typings/index.d.ts": (
                "export class Command {\n  /**\n   * Allow unknown options on the command line.\n   */\n"
                "  allowUnknownOption(allowUnknown?: boolean): this;\n}\n"
            ),
        }
    )
    settings = settings_for(root)
    Index(settings).build(vectors=False)
    sentence = Query("Allow unknown options on the command line.", mode="text")
    engine = Engine(settings)
    try:
        response = engine.search(sentence)
        assert engine._view is not None  # the text search read the view, and the symbols through the index
        found = [(r.path, r.start_line) for r in response.results]
        assert not response.degraded and set(found) == {("lib/command.js", 1), ("typings/index.d.ts", 1)}, (
            found
        )
    finally:
        engine.close()
    opened = Engine(settings, index=Index(settings))
    try:
        assert [(r.path, r.start_line) for r in opened.search(sentence).results] == found
    finally:
        opened.close()
    # A view given no index to read symbols from fails them as an unreadable store does (the text
    # retriever then answers without the declared code) rather than opening one of its own.
    alone = open_view(settings)
    assert alone is not None
    with pytest.raises(IndexStoreError):
        alone.symbols_in_file("typings/index.d.ts")

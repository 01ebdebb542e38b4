"""Symbol lookups and chunk spans answer the same from the in-memory tables (the default for a
workspace up to a few hundred thousand rows) as from per-query reads of the store (larger ones)."""

from __future__ import annotations

import pytest

import indexer.nearest as nearest_module
import indexer.spans as spans_module
import indexer.symbol_reads as symbol_reads_module
from indexer import Index

FILES = {
    "pkg/upload.py": (
        "class UploadSession:\n    def send_all(self):\n        return 1\n\n\n"
        "def upload_file(path):\n    return path\n\n\nMAX_UPLOADS = 3\n"
    ),
    "pkg/http/client.py": "class HTTPClient:\n    def get(self, url):\n        return url\n",
    "web/app.ts": "export class UploadWidget {\n  render(): string { return 'x'; }\n}\n",
}
NAMES = [("UploadSession", False), ("upload", False), ("uploadsession", True), ("HTTPClient.get", False),
         ("send_all", False), ("UploadSesion", False), ("upload_file", True), ("nothing_like_it", False)]  # fmt: skip


def lookups(index: Index, **kw: object) -> list[list[tuple[str, str, float]]]:
    found = index.lookup_many(NAMES, limit=20, **kw)  # type: ignore[arg-type]
    return [[(m.symbol.qualified_name, m.match, round(m.score, 6)) for m in ms] for ms in found]


@pytest.mark.parametrize(
    "filters", [{}, {"language": "python"}, {"path_prefix": "pkg/http"}, {"globs": ["*.ts"]}]
)
def test_symbol_lookups_match_between_memory_and_store(make_repo, settings_for, monkeypatch, filters) -> None:
    settings = settings_for(make_repo(FILES))
    Index(settings).build()
    in_memory = lookups(Index(settings), **filters)
    assert any(in_memory), "the fixture must match something"
    monkeypatch.setattr(symbol_reads_module, "MAX_MEMORY_SYMBOLS", 0)
    assert lookups(Index(settings), **filters) == in_memory


def test_a_large_symbols_table_gets_a_name_index_and_answers_as_in_memory(
    make_repo, settings_for, monkeypatch
) -> None:
    settings = settings_for(make_repo(FILES))
    monkeypatch.setattr(symbol_reads_module, "MAX_MEMORY_SYMBOLS", 0)  # every table counts as large
    Index(settings).build()
    index = Index(settings)
    indices = index.store.table("symbols").list_indices()
    assert [list(i.columns) for i in indices] == [["name_norm"]]
    from_store = lookups(index)
    assert any(from_store)
    monkeypatch.setattr(symbol_reads_module, "MAX_MEMORY_SYMBOLS", 250_000)
    assert lookups(Index(settings)) == from_store


def test_a_qualified_name_is_found_in_a_large_table_past_the_cap_on_its_last_parts_rows(
    make_repo, settings_for, monkeypatch
) -> None:
    # Linux defines 5,000+ fields named `len`: the rows a lookup reads are capped, and `sk_buff.len`,
    # whose file comes last, must be among them
    files = {f"net/a{n}.c": f"struct s{n} {{ int len; }};\n" for n in range(6)}
    files["net/z.c"] = "struct sk_buff { unsigned int len, data_len; };\n"
    settings = settings_for(make_repo(files))
    monkeypatch.setattr(symbol_reads_module, "MAX_MEMORY_SYMBOLS", 0)
    monkeypatch.setattr(symbol_reads_module, "MAX_SYMBOL_CANDIDATES", 3)
    Index(settings).build()
    found = Index(settings).lookup_many([("sk_buff.len", False), ("sk_buff::len", True)], limit=5)
    for matches in found:
        assert [(m.symbol.qualified_name, m.match) for m in matches[:1]] == [("sk_buff.len", "qualified")]


def test_chunk_spans_match_between_memory_and_store(make_repo, settings_for, monkeypatch) -> None:
    settings = settings_for(make_repo(FILES))
    Index(settings).build()
    paths = [*FILES, "not/indexed.py"]
    whole = Index(settings).chunk_spans(paths)
    assert whole["pkg/upload.py"] and whole["not/indexed.py"] == []
    monkeypatch.setattr(spans_module, "MAX_MEMORY_CHUNK_SPANS", 0)
    assert Index(settings).chunk_spans(paths) == whole


@pytest.mark.parametrize(
    "filters", [{}, {"language": "python"}, {"path_prefix": "pkg/http"}, {"globs": ["*.ts"]}]
)
def test_vector_hits_match_between_memory_row_ids_and_columns(
    make_repo, settings_for, monkeypatch, filters
) -> None:
    settings = settings_for(make_repo(FILES))
    Index(settings).build()
    query = "upload a file to the server"
    index = Index(settings)
    kept = index.nearest(query, limit=5, **filters)  # no ANN index: the table kept in memory, numpy
    assert index._readers.vectors.kept is not None and index._readers.vectors.rows.kept() is None
    monkeypatch.setattr(nearest_module, "MAX_KEPT_FLOATS", 0)  # too large to keep: LanceDB searches it
    index = Index(settings)
    by_id = index.nearest(query, limit=5, **filters)
    assert by_id and index._readers.vectors.rows.kept() is not None  # answered through the row ids
    monkeypatch.setattr(nearest_module, "MAX_MEMORY_VECTOR_ROWS", 0)
    by_columns = Index(settings).nearest(query, limit=5, **filters)
    assert by_columns == by_id
    spans = [(h.path, h.start_line, h.end_line, h.symbol) for h in kept]
    assert spans == [(h.path, h.start_line, h.end_line, h.symbol) for h in by_id]  # same hits, same order
    assert [h.distance for h in kept] == pytest.approx([h.distance for h in by_id], abs=1e-5)


@pytest.mark.parametrize("kept", [True, False])
def test_row_ids_are_read_again_for_a_new_version(make_repo, settings_for, monkeypatch, kept) -> None:
    if not kept:
        monkeypatch.setattr(nearest_module, "MAX_KEPT_FLOATS", 0)  # LanceDB's search, row ids memoised
    root = make_repo(FILES)
    settings = settings_for(root)
    Index(settings).build()
    reader = Index(settings)
    reader.nearest("upload a file", limit=3)
    (root / "pkg/upload.py").write_text("\n\n\n# moved down\n" + FILES["pkg/upload.py"])
    Index(settings).build()  # another writer (the daemon) publishes a new version
    query = "class UploadSession send all"
    assert reader.nearest(query, limit=8) == Index(settings).nearest(query, limit=8)
    assert any(h.path == "pkg/upload.py" and h.start_line > 3 for h in reader.nearest(query, limit=8))

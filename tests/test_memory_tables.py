"""Symbol lookups and chunk spans answer the same from the in-memory tables (the default for a
workspace up to a few hundred thousand rows) as from per-query reads of the store (larger ones)."""

from __future__ import annotations

import pytest

import indexer.index as index_module
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
    monkeypatch.setattr(index_module, "MAX_MEMORY_SYMBOLS", 0)
    assert lookups(Index(settings), **filters) == in_memory


def test_chunk_spans_match_between_memory_and_store(make_repo, settings_for, monkeypatch) -> None:
    settings = settings_for(make_repo(FILES))
    Index(settings).build()
    paths = [*FILES, "not/indexed.py"]
    whole = Index(settings).chunk_spans(paths)
    assert whole["pkg/upload.py"] and whole["not/indexed.py"] == []
    monkeypatch.setattr(index_module, "MAX_MEMORY_CHUNK_SPANS", 0)
    assert Index(settings).chunk_spans(paths) == whole

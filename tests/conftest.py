"""Shared fixtures: tiny real repositories in tmp_path, settings pointing at a tmp index."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from indexer import Settings, load_settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

RepoFactory = Callable[[Mapping[str, str | bytes]], Path]
# Fixture repositories hold files named like tests (tests/fixtures/ranking/shop/tests/test_retry.py):
# they are data, never collected.
collect_ignore_glob = ["fixtures/*"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="rewrite tests/golden/*.json from the current ranking"
    )


def write_tree(root: Path, files: Mapping[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_repo(tmp_path: Path) -> RepoFactory:
    def make(files: Mapping[str, str | bytes]) -> Path:
        root = tmp_path / "repo"
        root.mkdir(exist_ok=True)
        return write_tree(root, files)

    return make


@pytest.fixture
def settings_for(tmp_path: Path) -> Callable[..., Settings]:
    """Settings for a repo root with the index in tmp_path and the fast hashing embedder."""

    def make(root: Path, model: str = "hashing", **overrides: object) -> Settings:
        return load_settings(
            root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": model, **overrides}
        )

    return make


@pytest.fixture
def indexed_engine(
    make_repo: RepoFactory, settings_for: Callable[..., Settings]
) -> Iterator[Callable[..., Any]]:
    """``make(files)``: a repo of ``files``, indexed with the hashing embedder, and an Engine on it
    (closed at teardown)."""
    from indexer import Index
    from search import Engine

    made: list[Any] = []

    def make(files: Mapping[str, str | bytes]) -> Any:
        settings = settings_for(make_repo(files))
        Index(settings).build()
        made.append(Engine(settings))
        return made[-1]

    yield make
    for engine in made:
        engine.close()


# --- object storage: a real S3-compatible server (moto's server mode), see tests/s3_server.py ---------


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    """moto's S3 server on 127.0.0.1 for the module's tests (their modules skip without moto)."""
    from tests.s3_server import start_s3

    server = start_s3()
    yield server
    server.stop()


@pytest.fixture
def aws(s3: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The standard variables set in this process too (LanceDB and obstore read them)."""
    for name, value in s3.env().items():
        monkeypatch.setenv(name, value)
    return s3


@pytest.fixture
def count_tokenising(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[int]]:
    """Call it to record, from then on, the size of each call of the BM25 tokenizer in this process
    (which still tokenises); returns the list the sizes go to."""

    def start() -> list[int]:
        import indexer.lexical as lexical

        seen: list[int] = []
        real = lexical._tokenise_distinct

        def counted(pieces: list[str]) -> tuple[list[str], Any, Any]:
            seen.append(len(pieces))
            return real(pieces)

        monkeypatch.setattr(lexical, "_tokenise_distinct", counted)
        return seen

    return start

"""Golden ranking: the expected top results per query over a fixture repository, zoekt-style.

Every ranking change shows its effect here in review: run ``pytest tests/test_golden_ranking.py
--update-golden`` to rewrite ``tests/golden/ranking.json`` and read the diff. The index uses the
deterministic hashing embedder, so the figures are the same on every machine; the real model's
ranking is measured by the benchmarks instead. Also here: the same query gives the same list twice in
one process and in two processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from indexer import Index, Settings
from search import Engine, Query

FIXTURE = Path(__file__).parent / "fixtures" / "ranking" / "shop"
GOLDEN = Path(__file__).parent / "golden" / "ranking.json"
QUERIES = [
    "where do we retry failed uploads",
    "RetryPolicy",
    "UploadSession",
    "retry_call",
    "checksum mismatch",
    '"checksum mismatch"',
    "tests for the retry logic",
    "how is the configuration file loaded",
    "add an item to the cart",
    "health check handler",
    "exponential backoff with jitter",
    "gave up after too many attempts",
    "where is the HttpClient class defined",
    "ChecksumError class",
]


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The fixture repository copied out of the tests tree, and its index directory."""
    base = tmp_path_factory.mktemp("golden")
    root = base / "shop"
    shutil.copytree(FIXTURE, root)
    return root, base / "index"


def _settings(shop: tuple[Path, Path]) -> Settings:
    from indexer import load_settings

    root, index_dir = shop
    return load_settings(root, env={}, overrides={"index_dir": str(index_dir), "model_name": "hashing"})


@pytest.fixture(scope="module")
def engine(shop: tuple[Path, Path]) -> Iterator[Engine]:
    settings = _settings(shop)
    Index(settings).build(tier="full")  # the goldens rank with the full tier's vectors (hashing-256)
    made = Engine(settings)
    yield made
    made.close()


def _top(search: Callable[[str], list[dict]], query: str) -> list[str]:
    return [f"{r['path']}:{r['start_line']}-{r['end_line']}" for r in search(query)]


def _lib_search(engine: Engine) -> Callable[[str], list[dict]]:
    return lambda q: [r.to_json() for r in engine.search(Query(q, limit=5)).results]


def test_rankings_match_the_golden_file(engine: Engine, request: pytest.FixtureRequest) -> None:
    got = {q: _top(_lib_search(engine), q) for q in QUERIES}
    if request.config.getoption("--update-golden"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(got, indent=1) + "\n", encoding="utf-8")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert got == expected, "ranking changed: rerun with --update-golden and review the diff"


def test_golden_file_holds_what_a_user_expects_first(engine: Engine) -> None:
    """Independent of the recorded lists: the first result each query should have."""
    first = {q: _top(_lib_search(engine), q)[0].split(":")[0] for q in QUERIES}
    assert first["RetryPolicy"] == "shop/http/retry.py"
    assert first["UploadSession"] == "shop/uploads/session.py"
    assert first["checksum mismatch"] == "shop/http/client.py"  # the phrase rule
    assert first['"checksum mismatch"'] == "shop/http/client.py"
    assert first["tests for the retry logic"] == "tests/test_retry.py"  # asked for: not demoted
    assert first["gave up after too many attempts"] == "shop/http/retry.py"
    assert (
        _top(_lib_search(engine), "where is the HttpClient class defined")[0] == "shop/http/client.py:10-23"
    )
    assert _top(_lib_search(engine), "ChecksumError class")[0] == "shop/http/client.py:1-7"  # its chunk
    where = _top(_lib_search(engine), "where do we retry failed uploads")
    assert not where[0].startswith(("tests/", "docs/", "examples/"))  # demoted unless asked for


def test_explain_says_which_roles_a_query_asks_for(engine: Engine) -> None:
    asked = "read as asking for tests as much as for code: they are not demoted"
    assert asked in engine.search(Query("tests for the retry logic", explain=True)).notes
    claim = engine.search(Query("retry_call() gives up after the last attempt.", explain=True)).notes
    assert asked in claim  # a claim about how code behaves is a test's
    stated = engine.search(Query("Test that the upload is retried three times.", explain=True)).notes
    assert "read as asking for tests more than for code: they are not demoted" in stated
    plain = engine.search(Query("where do we retry failed uploads", explain=True)).notes
    assert not any("asking for" in n for n in plain)
    assert not any("asking for" in n for n in engine.search(Query("tests for the retry logic")).notes)


def test_same_query_gives_the_same_list_in_one_process(engine: Engine) -> None:
    search = _lib_search(engine)
    for q in QUERIES:
        assert _top(search, q) == _top(search, q)


@pytest.mark.slow
def test_cli_explain_prints_why_each_result_ranks_there(engine: Engine, shop: tuple[Path, Path]) -> None:
    root, index_dir = shop
    env = {**os.environ, "PLAIT_INDEX_DIR": str(index_dir), "PLAIT_MODEL": "hashing", "NO_COLOR": "1"}
    args = [
        sys.executable,
        "-m",
        "search.frontends.cli",
        "search",
        "tests for the retry logic",
        "--root",
        str(root),
    ]
    args += ["--no-daemon", "--limit", "3", "--explain"]
    out = subprocess.run([*args, "--json"], capture_output=True, text=True, env=env, timeout=120, check=False)
    results = json.loads(out.stdout)
    assert results[0]["explain"]["ranks"] == results[0]["sources"]
    demoted = [r for r in results if any(s["rule"].startswith("role:") for s in r["explain"]["rules"])]
    assert all(not r["path"].startswith("tests/") for r in demoted)  # asked for tests: not demoted
    human = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert human.stdout.count("why:") == len(results)
    assert "note: read as asking for tests as much as for code: they are not demoted" in human.stderr
    assert "fused" in human.stdout


@pytest.mark.slow
def test_same_query_gives_the_same_list_in_two_processes(engine: Engine, shop: tuple[Path, Path]) -> None:
    root, index_dir = shop
    env = {**os.environ, "PLAIT_INDEX_DIR": str(index_dir), "PLAIT_MODEL": "hashing"}

    def cli(q: str) -> list[dict]:
        out = subprocess.run(
            [sys.executable, "-m", "search.frontends.cli", "search", q, "--root", str(root), "--json", "--limit", "5",
             "--no-daemon"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        assert out.returncode in (0, 1), out.stderr
        return json.loads(out.stdout or "[]")

    for q in ("where do we retry failed uploads", "checksum mismatch", "RetryPolicy"):
        first, second = _top(cli, q), _top(cli, q)
        assert first == second == _top(_lib_search(engine), q)

"""Rows in and out of the index: symbols read back as written, the build report's JSON, LanceDB's options."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from indexer import Index
from indexer.report import BuildReport
from indexer.symbols import extract_symbols
from indexer.types import STORED_SYMBOL_FIELDS, Symbol

SOURCE = '''class Queue:
    """A queue."""

    def drain(self, limit: int = 3) -> list[int]:
        return []


def make_queue() -> Queue:
    return Queue()
'''


def test_symbols_read_back_from_the_index_equal_the_extracted_ones(make_repo, settings_for) -> None:
    root = make_repo({"pkg/queue.py": SOURCE})
    index = Index(settings_for(root))
    index.build(vectors=False)
    extracted = extract_symbols(SOURCE.encode(), "python", "pkg/queue.py")
    assert {s.name for s in extracted} >= {"Queue", "drain", "make_queue"}
    stored = index.symbols_in_file("pkg/queue.py")
    assert all(isinstance(s, Symbol) for s in stored)
    assert sorted(stored) == sorted(extracted)  # the name's line included (schema 3)
    assert {s.name: s.name_line for s in stored}["drain"] > 0
    columns = index.store.read("symbols").column_names
    assert columns == ["path", *(f for f in STORED_SYMBOL_FIELDS if f != "path"), "name_norm"]


def test_the_build_report_json_keeps_its_fields_order_rounding_and_error_cap() -> None:
    report = BuildReport(files=3, changed=2, seconds=1.23456, symbol_seconds=0.0004, vector_seconds=2.0)
    report.errors = [f"e{i}" for i in range(60)]
    report.tiers = {"fast": {"vectors": 4}}
    expected = {
        "files": 3, "changed": 2, "deleted": 0, "unchanged": 0, "symbols": 0, "chunks": 0,
        "chunks_total": 0, "embedded": 0, "from_cache": 0, "vectors": 0, "seconds": 1.235,
        "symbol_seconds": 0.0, "vector_seconds": 2.0, "rebuilt_reason": None, "skipped": {},
        "errors": [f"e{i}" for i in range(50)], "vectors_skipped": False, "ann": None,
        "tiers": {"fast": {"vectors": 4}}, "parsed_ahead": 0,
    }  # fmt: skip
    assert json.dumps(report.as_dict()) == json.dumps(expected)


PROBE = """
import os, sys
import indexer.store as store
print(os.environ.get("LANCE_INCLUDE_VECTOR_CENTROIDS"))
store.Store(sys.argv[1])
print(os.environ.get("LANCE_INCLUDE_VECTOR_CENTROIDS"))
"""


def test_importing_the_store_sets_no_environment_and_opening_one_does(tmp_path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "LANCE_INCLUDE_VECTOR_CENTROIDS"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "idx")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["None", "false"]
    env["LANCE_INCLUDE_VECTOR_CENTROIDS"] = "true"  # a value the user set is kept
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path / "idx")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.stdout.split() == ["true", "true"], out.stderr

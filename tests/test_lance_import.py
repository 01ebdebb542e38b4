"""LanceDB imported with pydantic's validators deferred (:mod:`indexer.lance_import`): the import leaves
pydantic's defaults as it found them, and LanceDB works as imported plainly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_the_import_restores_pydantic_defaults_and_lancedb_reads_and_writes(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        from pydantic._internal import _config
        from indexer.lance_import import import_lancedb

        lancedb = import_lancedb()
        assert import_lancedb() is lancedb
        assert _config.config_defaults["defer_build"] is False
        db = lancedb.connect({str(tmp_path / "db")!r})
        table = db.create_table("t", data=[{{"id": 1, "vector": [0.0, 1.0]}}, {{"id": 2, "vector": [1.0, 0.0]}}])
        hits = table.search([0.9, 0.1]).limit(1).to_list()
        assert hits[0]["id"] == 2, hits
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

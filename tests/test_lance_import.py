"""LanceDB imported with pydantic's validators deferred and, on Python 3.11, the ``overrides`` package's
checks left out (:mod:`indexer.lance_import`): the import leaves both packages as it found them, and
LanceDB works as imported plainly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_the_import_restores_pydantic_defaults_and_lancedb_reads_and_writes(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pydantic._internal import _config
        from indexer.lance_import import import_lancedb

        import overrides
        own = overrides.override, overrides.EnforceOverrides
        lancedb = import_lancedb()
        assert import_lancedb() is lancedb
        assert _config.config_defaults["defer_build"] is False
        assert (overrides.override, overrides.EnforceOverrides) == own
        if sys.version_info < (3, 12):  # the marker of 3.12's typing.override, no signature check
            from lancedb.db import LanceDBConnection
            assert LanceDBConnection.create_table.__override__ is True
            assert overrides.EnforceOverrides not in LanceDBConnection.__mro__
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

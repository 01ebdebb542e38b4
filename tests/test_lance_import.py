"""LanceDB imported with pydantic's validators deferred and, on Python 3.11, the ``overrides`` package's
checks left out (:mod:`indexer.lance_import`): the import leaves both packages as it found them, and
LanceDB works as imported plainly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from indexer import lance_import


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
        # the REST client's package was entered unexecuted: its API classes are not imported ...
        assert "lance_namespace_urllib3_client.models" in sys.modules
        assert "lance_namespace_urllib3_client.api" not in sys.modules
        if sys.version_info < (3, 12):  # the marker of 3.12's typing.override, no signature check
            from lancedb.db import LanceDBConnection
            assert LanceDBConnection.create_table.__override__ is True
            assert overrides.EnforceOverrides not in LanceDBConnection.__mro__
        db = lancedb.connect({str(tmp_path / "db")!r})
        table = db.create_table("t", data=[{{"id": 1, "vector": [0.0, 1.0]}}, {{"id": 2, "vector": [1.0, 0.0]}}])
        hits = table.search([0.9, 0.1]).limit(1).to_list()
        assert hits[0]["id"] == 2, hits
        # ... until something asks the package for one: then its __init__ runs, as a plain import would
        from lance_namespace_urllib3_client import ApiClient, BranchApi
        import lance_namespace_urllib3_client as client
        assert client.ApiClient is ApiClient and client.api.branch_api.BranchApi is BranchApi
        assert client.models.JsonArrowField.__name__ == "JsonArrowField"
        print("ok")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_deferred_package_runs_its_init_once_on_first_use_and_a_failed_one_can_be_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, init in (
        ("deferred_ok", "RUNS.append(1)\nVALUE = 42\n"),
        ("deferred_bad", "raise RuntimeError('broken')\n"),
    ):
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text("from runs_record import RUNS\n" + init)
        (package / "part.py").write_text("PART = 'part'\n")
    (tmp_path / "runs_record.py").write_text("RUNS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    names = ("deferred_ok", "deferred_ok.part", "deferred_bad", "deferred_bad.part", "runs_record")
    try:
        _check_deferred_packages()
    finally:
        for name in names:
            sys.modules.pop(name, None)


def _check_deferred_packages() -> None:
    import runs_record

    lance_import._defer_package_init("deferred_ok")
    from deferred_ok.part import PART  # a submodule imports with the package's __init__ not run

    assert PART == "part" and runs_record.RUNS == []
    import deferred_ok

    assert deferred_ok.VALUE == 42 and deferred_ok.part.PART == "part"  # the first attribute runs it
    assert deferred_ok.VALUE == 42 and runs_record.RUNS == [1]  # once
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        _ = deferred_ok.missing
    lance_import._defer_package_init("deferred_ok")  # already imported: left as it is
    assert sys.modules["deferred_ok"] is deferred_ok

    lance_import._defer_package_init("deferred_bad")
    import deferred_bad

    with pytest.raises(RuntimeError, match="broken"):
        _ = deferred_bad.anything
    assert "deferred_bad" not in sys.modules  # as a failed import leaves it
    with pytest.raises(RuntimeError, match="broken"):
        import deferred_bad  # imported again: its __init__ runs again, and fails again
    lance_import._defer_package_init("no_such_package_here")
    assert "no_such_package_here" not in sys.modules

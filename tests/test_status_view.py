"""``plait status`` from the record the last build saved beside the text search view: the same answer
as reading the tables, only while it is the published snapshot's and no writer is at work, and
without importing LanceDB."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from indexer import Index, Settings, load_settings
from indexer.lock import writer_lock
from indexer.textview import view_path

FILES = {
    f"pkg/m{i}.py": f"def task_{i}(value):\n    '''Retry upload number {i}.'''\n    return value * {i}\n"
    for i in range(6)
}


def workspace(tmp_path: Path) -> Settings:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return load_settings(
        root, env={}, overrides={"index_dir": str(tmp_path / "index"), "model_name": "hashing"}
    )


def status(settings: Settings, *, tables: bool = False) -> dict[str, Any]:
    """``Index.status()`` as JSON, from the saved record or (``tables``) with it moved aside."""
    view = view_path(Path(settings.index_dir))
    aside = view.with_name("aside.json")
    if tables:
        view.rename(aside)
    try:
        data = Index(settings).status().as_dict()
    finally:
        if tables:
            aside.rename(view)
    data.pop("size_bytes")  # the view file itself is part of the size
    return data


def answered_from_record(settings: Settings) -> bool:
    """Whether status reads the saved record: a files count written into it shows."""
    view = view_path(Path(settings.index_dir))
    saved = view.read_text()
    data = json.loads(saved)
    data["status"]["files"] = 999
    view.write_text(json.dumps(data))
    try:
        return Index(settings).status(check_files=False).files == 999
    finally:
        view.write_text(saved)


def test_the_saved_record_answers_as_the_tables_do(tmp_path: Path) -> None:
    s = workspace(tmp_path)
    Index(s).build(tier="fast")
    fresh = status(s)
    assert answered_from_record(s) and fresh == status(s, tables=True)
    assert fresh["state"] == "fresh" and fresh["files"] == len(FILES) and fresh["search_tier"] == "fast"
    assert fresh["tiers"]["fast"]["complete"] and "full" not in fresh["tiers"]
    assert fresh["rerank"] == "ready"  # the hashing model needs no export: sentences are re-ranked

    (Path(s.root) / "pkg/m0.py").write_text("def changed():\n    return 0\n")
    (Path(s.root) / "pkg/new.py").write_text("def new():\n    return 1\n")
    stale = status(s)
    assert answered_from_record(s) and stale == status(s, tables=True)
    assert (
        stale["state"] == "stale"
        and stale["stale_files"] == ["pkg/m0.py"]
        and stale["new_files"] == ["pkg/new.py"]
    )

    while Index(s).upgrade("full", limit=8):  # each upgrade publishes and saves a new record
        pass
    upgraded = status(s)
    assert answered_from_record(s) and upgraded == status(s, tables=True)
    assert upgraded["search_tier"] == "full" and upgraded["tiers"]["full"]["complete"]
    assert upgraded["rerank"] is None  # the full tier ranks: nothing to re-rank


def test_status_says_whether_the_fast_tiers_sentences_are_re_ranked(tmp_path: Path) -> None:
    """The real model with an empty model cache: its fast tier is there (the shipped table), its ONNX
    export is not, so searches do not re-rank yet and status says how to make it; a ``[ranking]`` with
    both pools at 0 turns the re-rank off."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text("def upload(data):\n    return data\n")
    (root / "plait.toml").write_text(f'[model]\ncache_dir = "{tmp_path / "models"}"\n')
    settings = load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "index")})
    Index(settings).build(tier="fast")
    pending = Index(settings).status()
    assert pending.search_tier == "fast" and pending.rerank == "needs the model's export"
    assert "python -m indexer.prepare" in (pending.rerank_line() or "")
    cli = [
        sys.executable,
        "-m",
        "search.frontends.cli",
        "status",
        str(root),
        "--index-dir",
        str(tmp_path / "index"),
    ]
    shown = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert (
        shown.returncode == 0 and "re-rank:   not until the full model's ONNX export is made" in shown.stdout
    )
    (root / "plait.toml").write_text(
        f'[model]\ncache_dir = "{tmp_path / "models"}"\n[ranking]\nrerank_pool = 0\nrerank_topic_pool = 0\n'
    )
    off = Index(load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "index")})).status()
    assert off.rerank == "off" and off.as_dict()["rerank"] == "off"
    (root / "plait.toml").write_text(
        f'[model]\ncache_dir = "{tmp_path / "models"}"\n[ranking]\nenabled = false\n'
    )
    unranked = Index(load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "index")})).status()
    assert unranked.rerank == "off"  # no ranking after fusion, no re-rank (Engine.rerank)


def test_a_full_build_saves_a_record_that_answers(tmp_path: Path) -> None:
    s = workspace(tmp_path)
    Index(s).build()
    assert answered_from_record(s) and status(s) == status(s, tables=True)
    assert status(s)["search_tier"] == "full"


def test_a_damaged_table_is_read_and_reported(tmp_path: Path) -> None:
    s = workspace(tmp_path)
    Index(s).build(tier="fast")
    for manifest in Path(s.index_dir, "symbols.lance", "_versions").iterdir():
        manifest.write_bytes(b"garbage")
    assert Index(s).status().state == "corrupt"  # its manifest changed: the record is not trusted


def test_a_record_is_used_only_while_current_and_no_writer_is_at_work(tmp_path: Path) -> None:
    s = workspace(tmp_path)
    Index(s).build(tier="fast")
    view = view_path(Path(s.index_dir))
    data = json.loads(view.read_text())
    data["status"]["files"] = 999  # a record that says something the tables do not
    view.write_text(json.dumps(data))
    assert Index(s).status().files == 999  # current, no writer: the record answers
    with writer_lock(s.index_dir):
        assert Index(s).status().files == len(FILES)  # a writer at work: the tables answer
    old = view.read_text()
    (Path(s.root) / "pkg/m9.py").write_text("def nine():\n    return 9\n")
    Index(s).build(tier="fast")  # publishes: a new record
    assert Index(s).status().files == len(FILES) + 1
    view.write_text(old)  # the record of an older snapshot is never used
    assert Index(s).status().files == len(FILES) + 1


def test_plait_status_of_a_built_index_imports_neither_lancedb_nor_pyarrow(tmp_path: Path) -> None:
    s = workspace(tmp_path)
    Index(s).build(tier="fast")
    env = {**os.environ, "PLAIT_INDEX_DIR": s.index_dir, "PLAIT_MODEL": "hashing", "HF_HUB_OFFLINE": "1"}
    probe = (
        "import json, sys\n"
        "from search.frontends.cli import main\n"
        "code = main(['status', sys.argv[1], '--json'])\n"
        "sys.stdout.flush()\n"
        "sys.stderr.write('LOADED ' + json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'lancedb', 'pyarrow'})))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, str(s.root)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["state"] == "fresh"
    assert out.stderr.strip().endswith("LOADED []"), out.stderr

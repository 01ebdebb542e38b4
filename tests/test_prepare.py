"""``python -m indexer.prepare``: the workspace's two models made ready ahead of the first index."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from indexer import Index, load_settings
from indexer.embedding import tier_config
from indexer.prepare import main, prepare
from models import LazyEmbedder, ModelConfig, load_embedder
from search import Engine


def test_each_tier_of_the_configured_model_is_made_ready(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plait.toml").write_text('[model]\nname = "hashing-64"\n', encoding="utf-8")
    assert prepare(tmp_path) == {"fast": "hashing-v1-32", "full": "hashing-v1-64"}
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("plait: models ready in ") and "fast hashing-v1-32, full hashing-v1-64" in out
    assert main([str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


def test_bad_input_is_named_with_exit_status_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing")]) == 2
    assert "is not a directory; pass the workspace root" in capsys.readouterr().err
    (tmp_path / "plait.toml").write_text('[model]\ndevice = "gpu"\n', encoding="utf-8")
    assert main([str(tmp_path)]) == 2
    assert "model.device must be cpu, cuda or auto" in capsys.readouterr().err


def test_the_transformer_export_a_search_waits_for_is_made(tmp_path: Path) -> None:
    """The real model: before, the full tier is not ready (a fast-tier search would skip its re-rank);
    after one run in its own process, a fresh embedder of the same settings finds the export."""
    cache = tmp_path / "models"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "plait.toml").write_text(f'[model]\ncache_dir = "{cache}"\n', encoding="utf-8")
    config = ModelConfig(cache_dir=str(cache))
    assert not load_embedder(tier_config(config, "full")).ready()
    done = subprocess.run(
        [sys.executable, "-m", "indexer.prepare", str(root)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "full all-MiniLM-L6-v2@" in done.stdout and "/int8/" in done.stdout
    assert load_embedder(tier_config(config, "full")).ready()
    assert load_embedder(tier_config(config, "fast")).ready()
    assert list(cache.glob("*/onnx-v*/*int8*.onnx")) and list(cache.glob("*/static-v*"))

    # A server's preload (Engine.warm) of a fast-tier index then loads the full model too, which a
    # first sentence's re-rank would otherwise wait for.
    (root / "upload.py").write_text("def retry_upload(data):\n    return data\n", encoding="utf-8")
    settings = load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "index")})
    Index(settings).build(tier="fast")
    engine = Engine(settings)
    try:
        full = engine.index.tier_embedder("full")
        assert isinstance(full, LazyEmbedder) and not full.loaded
        engine.warm()
        assert full.loaded
    finally:
        engine.close()

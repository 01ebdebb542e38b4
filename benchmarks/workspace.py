"""Preparing what a benchmark measures: a private copy of the repository and its plait index.

Benchmarks never touch the user's repository or index: the indexable files (as plait's walker sees
them) are copied under a work directory -- with docs blanked for the quality evaluation -- and
indexed into ``<workdir>/index``. The copy holds exactly the files plait would index, so every
system (plait, ripgrep, BM25) searches the same set of files.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchmarks import evalset
from benchmarks.evalset import Corpus, EvalSet
from indexer import BuildReport, Index, Settings, load_settings


@contextmanager
def workdir(path: Path | None, *, keep: bool = False) -> Iterator[Path]:
    """``path`` (created, never deleted) or a fresh temporary directory removed afterwards unless ``keep``."""
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    tmp = Path(tempfile.mkdtemp(prefix="plait-bench-"))
    try:
        yield tmp
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def settings_for(root: Path, index_dir: Path, env: Mapping[str, str], model: str | None) -> Settings:
    overrides: dict[str, str] = {"index_dir": str(index_dir)}
    if model:
        overrides["model_name"] = model
    return load_settings(root, env=env, overrides=overrides)


def scan_original(root: Path, work: Path, env: Mapping[str, str]) -> Corpus:
    """The indexable files of the user's repository (read only) with their docs found and blanked."""
    return evalset.scan(load_settings(root, env=env, overrides={"index_dir": str(work / "unused-index")}))


@dataclass
class Prepared:
    """A copy of the repository, its settings and (once built) its index."""

    root: Path
    settings: Settings
    corpus: Corpus
    build: BuildReport | None = None
    build_seconds: float = 0.0

    def index(self) -> Index:
        return Index(self.settings)


def prepare_copy(
    corpus: Corpus,
    work: Path,
    env: Mapping[str, str],
    *,
    model: str | None = None,
    blanked: bool = True,
    build: bool = True,
    vectors: bool = True,
) -> Prepared:
    """Write the (blanked or original) files to ``work/repo`` and, with ``build``, index them fully."""
    root = work / "repo"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for f in corpus.files:
        target = root / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(f.blanked if blanked else f.original)
    prepared = Prepared(root, settings_for(root, work / "index", env, model), corpus)
    if build:
        start = time.perf_counter()
        from benchmarks.progress import BuildProgress

        prepared.build = prepared.index().build(full=True, vectors=vectors, progress=BuildProgress("index"))
        prepared.build_seconds = time.perf_counter() - start
    return prepared


def query_set(
    corpus: Corpus,
    *,
    seed: int,
    size: int,
    min_words: int,
    load: Path | None = None,
    save: Path | None = None,
) -> EvalSet:
    """Build (seeded) or load the query set; a loaded set must match the repository it was built from."""
    if load is not None:
        es = evalset.load(load)
        evalset.check_matches(es, corpus)
    else:
        es = evalset.build(corpus, seed=seed, size=size, min_words=min_words)
    if save is not None:
        evalset.save(es, save)
    return es

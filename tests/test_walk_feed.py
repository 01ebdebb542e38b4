"""A first build's walk on a thread (indexer.walk_feed): the walk's files, in its order, a batch at a time."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import write_tree

from indexer import load_settings
from indexer.walk_feed import WalkFeed
from indexer.workspace import Walker, WalkStats, WorkspaceFile

FILES: dict[str, str | bytes] = {
    **{f"src/m{i:02d}.py": f"def f{i}():\n    return {i}\n" for i in range(23)},
    "docs/guide.md": "# guide\n",
    "data/blob.bin": b"\x00\x01binary",
    "build/out.py": "x = 1\n",
    ".gitignore": "build/\n",
}


def walker(tmp_path: Path) -> Walker:
    root = write_tree(tmp_path / "repo", FILES)
    return Walker(load_settings(root, env={}, overrides={"index_dir": str(tmp_path / "index")}))


def test_the_feed_hands_on_the_walks_files_in_its_order_and_its_counts(tmp_path: Path) -> None:
    w = walker(tmp_path)
    plain_stats, fed_stats = WalkStats(), WalkStats()
    plain = list(w.walk(plain_stats))
    batches = list(WalkFeed(w, fed_stats).batches(5))
    assert [len(b) for b in batches] == [5, 5, 5, 5, 5]  # 25 files: the last batch full, then no empty one
    assert [f for b in batches for f in b] == plain
    assert fed_stats == plain_stats and fed_stats.skipped_binary == 1 and fed_stats.skipped_ignored == 1
    assert [len(b) for b in WalkFeed(w, WalkStats()).batches(7)] == [7, 7, 7, 4]


def test_a_batch_is_handed_on_before_the_walk_is_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = walker(tmp_path)
    taken = threading.Event()
    waited: list[bool] = []
    plain = Walker.walk

    def slow_walk(self: Walker, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
        for i, found in enumerate(plain(self, stats)):
            if i == 3:  # the walk goes on only once the reader holds the first batch
                waited.append(taken.wait(10))
            yield found

    monkeypatch.setattr(Walker, "walk", slow_walk)
    feed = WalkFeed(w, WalkStats())
    got = []
    for batch in feed.batches(3):
        got.append(batch)
        taken.set()
    assert waited == [True]
    assert sum(len(b) for b in got) == 25 and feed.done and feed.found == 25


def test_what_the_walk_raises_reaches_the_reader_after_the_files_found_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = walker(tmp_path)
    plain = Walker.walk

    def broken_walk(self: Walker, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
        for i, found in enumerate(plain(self, stats)):
            if i == 7:
                raise RuntimeError("the disk went away")
            yield found

    monkeypatch.setattr(Walker, "walk", broken_walk)
    got: list[WorkspaceFile] = []
    with pytest.raises(RuntimeError, match="the disk went away"):
        for batch in WalkFeed(w, WalkStats()).batches(3):
            got.extend(batch)
    assert [f.path for f in got] == [f.path for f in list(plain(w))[:7]]


def test_a_reader_that_gives_up_stops_the_walk(tmp_path: Path) -> None:
    feed = WalkFeed(walker(tmp_path), WalkStats())
    batches = feed.batches(2)
    assert len(next(batches)) == 2
    batches.close()  # the build failed: the walk's thread ends, nothing is left running
    assert not feed._thread.is_alive()

"""The kept listing of a scope's files is redone whenever a file appears, goes, or the ignore rules change,
and the files that differ from the index are found with or without file notifications."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from search.engine.retrievers import ResolvedScope
from search.engine.retrievers import listing as listing_module
from search.engine.retrievers.inotify import ADDED, REMOVED, WRITTEN, open_watch
from search.engine.retrievers.listing import kept_files, list_scope, live_files
from search.workspace import ripgrep as ripgrep_module

WS = ResolvedScope("ws", None, None, (), None)


def age(root: Path) -> None:
    """Set every time under ``root`` a second back, as if nothing had changed for a while."""
    past = time.time_ns() - 1_000_000_000
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            os.utime(os.path.join(dirpath, name), ns=(past, past))
    os.utime(root, ns=(past, past))


def count_runs(monkeypatch) -> list[int]:
    """Record each ``rg --files`` run (the real one still runs)."""
    calls: list[int] = []
    real_run = ripgrep_module.run_beneath

    def counted(*args, **kwargs):
        calls.append(1)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(ripgrep_module, "run_beneath", counted)
    return calls


def files(settings) -> set[str]:
    listing = list_scope(settings, WS, timeout=10)
    assert listing is not None
    return set(listing.paths)


@pytest.fixture(params=["watched", "stat"])
def notifications(request, monkeypatch) -> str:
    """Both ways a kept workspace listing is checked: file notifications, or the times of its
    directories and ignore files (what is left when notifications cannot be had)."""
    if request.param == "stat":
        monkeypatch.setattr(listing_module, "MAX_WATCHED_DIRS", 0)
    return str(request.param)


def test_a_listing_is_kept_until_a_watched_time_changes(
    make_repo, settings_for, monkeypatch, notifications
) -> None:
    root = make_repo({"a.py": "x = 1\n", "pkg/b.py": "y = 2\n", "pkg/deep/c.py": "z = 3\n"})
    settings = settings_for(root)
    age(root)
    assert files(settings) == {"a.py", "pkg/b.py", "pkg/deep/c.py"}
    calls = count_runs(monkeypatch)
    assert files(settings) == {"a.py", "pkg/b.py", "pkg/deep/c.py"} and calls == []  # kept
    (root / "pkg/deep/d.py").write_text("w = 4\n")  # a new file in a watched directory
    assert "pkg/deep/d.py" in files(settings) and len(calls) == 1
    age(root)
    files(settings)
    (root / "pkg/new").mkdir()  # a new directory under a watched one
    (root / "pkg/new/e.py").write_text("v = 5\n")
    assert "pkg/new/e.py" in files(settings)
    age(root)
    files(settings)
    (root / ".gitignore").write_text("pkg/b.py\n")  # ignore rules change: the file leaves the listing
    assert "pkg/b.py" not in files(settings)
    age(root)
    files(settings)
    (root / ".gitignore").write_text("# nothing ignored\n")  # edited in place: only its own time moves
    assert "pkg/b.py" in files(settings)
    age(root)
    files(settings)
    (root / "a.py").unlink()
    assert "a.py" not in files(settings)


def test_a_listing_is_not_kept_right_after_a_change(make_repo, settings_for, monkeypatch) -> None:
    root = make_repo({"a.py": "x = 1\n"})
    settings = settings_for(root)
    files(settings)  # everything was just written: too recent to trust the directory times
    calls = count_runs(monkeypatch)
    files(settings)
    assert calls == [1]


def manifest_of(root: Path, names: list[str]) -> dict[str, tuple[str, int, int]]:
    """A manifest as the index records it: (hash, size, mtime_ns) of each file as it is now."""
    out = {}
    for name in names:
        st = (root / name).stat()
        out[name] = ("-", st.st_size, st.st_mtime_ns)
    return out


def changed(settings, manifest) -> list[str]:
    found = live_files(settings, WS, manifest, timeout=10)
    assert found is not None and found[1] is not None
    return found[1]


def two_files_indexed(make_repo, settings_for) -> tuple[Path, Any, dict[str, tuple[str, int, int]]]:
    """A workspace of ``a.py`` and ``pkg/b.py``, aged, its settings, and its manifest as indexed now."""
    root = make_repo({"a.py": "x = 1\n", "pkg/b.py": "y = 2\n"})
    age(root)
    return root, settings_for(root), manifest_of(root, ["a.py", "pkg/b.py"])


def test_files_differing_from_the_index_are_found_as_they_change(
    make_repo, settings_for, monkeypatch, notifications
) -> None:
    root, settings, manifest = two_files_indexed(make_repo, settings_for)
    assert changed(settings, manifest) == []
    assert changed(settings, manifest) == []  # used again: watched from here on (or stat-ed)
    key = next(k for k in listing_module._kept if k[0] == str(root))
    assert (listing_module._kept[key].notify is not None) == (notifications == "watched")
    calls = count_runs(monkeypatch)
    original = (root / "pkg/b.py").stat()
    (root / "pkg/b.py").write_text("y = 22\n")  # edited in place: no directory time moves
    assert changed(settings, manifest) == ["pkg/b.py"]
    assert changed(settings, manifest) == ["pkg/b.py"]  # still differs, though no new event came
    (root / "pkg/b.py").write_text("y = 2\n")
    os.utime(root / "pkg/b.py", ns=(original.st_atime_ns, original.st_mtime_ns))  # as indexed again
    assert changed(settings, manifest) == []
    assert calls == []  # none of that needed a new listing
    (root / "a.py").write_text("x = 11\n")
    later = manifest_of(root, ["a.py", "pkg/b.py"])  # a new index version knows the edit
    assert changed(settings, manifest) == ["a.py"] and changed(settings, later) == []
    (root / "pkg/c.py").write_text("z = 3\n")  # a new file: listed, and not in the index
    assert changed(settings, later) == ["pkg/c.py"] and calls == [1]


def test_a_kept_listing_answers_without_ripgrep_and_declines_once_the_tree_changes(
    make_repo, settings_for, monkeypatch, notifications
) -> None:
    root, settings, manifest = two_files_indexed(make_repo, settings_for)
    assert kept_files(settings, WS, manifest) is None  # nothing listed yet: ripgrep must list
    assert changed(settings, manifest) == []
    calls = count_runs(monkeypatch)
    kept = kept_files(settings, WS, manifest)
    assert kept is not None and set(kept[0].paths) == {"a.py", "pkg/b.py"} and kept[1] == []
    (root / "a.py").write_text("x = 11\n")  # an edit: the kept listing still holds, and says so
    kept = kept_files(settings, WS, manifest)
    assert kept is not None and kept[1] == ["a.py"] and calls == []
    (root / "pkg/c.py").write_text("z = 3\n")  # a new file: the listing must be made again
    assert kept_files(settings, WS, manifest) is None and calls == []
    assert "pkg/c.py" in changed(settings, manifest) and calls == [1]


def test_files_the_index_leaves_out_are_not_changed(make_repo, settings_for, notifications) -> None:
    root = make_repo(
        {"a.py": "x = 1\n", "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "big.txt": "y" * 5000}
    )
    settings = settings_for(root, max_file_bytes=4096)
    age(root)
    manifest = manifest_of(root, ["a.py"])  # what the walker indexes: not the binary, not the big file
    assert changed(settings, manifest) == []
    assert changed(settings, manifest) == []
    (root / "new.py").write_text("z = 3\n")  # a new text file is new
    (root / "data.bin").write_bytes(b"\x00\x01" * 10)  # a new binary one is not searched
    assert changed(settings, manifest) == ["new.py"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")
def test_inotify_reports_every_change_made_before_the_read(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    watch = open_watch([str(tmp_path)])
    assert watch is not None
    try:
        assert watch.read() == []
        (tmp_path / "a.py").write_text("x = 2\n")  # read right after the write: no waiting
        (tmp_path / "b.py").write_text("y = 1\n")
        (tmp_path / "a.py").unlink()
        events = watch.read()
        assert events is not None
        by_path: dict[str, int] = {}
        for mask, path in events:
            by_path[path] = by_path.get(path, 0) | mask
        assert by_path[str(tmp_path / "a.py")] & WRITTEN and by_path[str(tmp_path / "a.py")] & REMOVED
        assert by_path[str(tmp_path / "b.py")] & ADDED
        assert watch.read() == []  # drained
    finally:
        watch.close()

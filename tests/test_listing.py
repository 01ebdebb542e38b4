"""The kept listing of a scope's files is redone whenever a file appears, goes, or the ignore rules change."""

from __future__ import annotations

import os
import time
from pathlib import Path

from search.retrievers import ResolvedScope
from search.retrievers import listing as listing_module
from search.retrievers.listing import list_scope

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
    real_run = listing_module.run

    def counted(*args, **kwargs):
        calls.append(1)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(listing_module, "run", counted)
    return calls


def files(settings) -> set[str]:
    listing = list_scope(settings, WS, timeout=10)
    assert listing is not None
    return set(listing.paths)


def test_a_listing_is_kept_until_a_watched_time_changes(make_repo, settings_for, monkeypatch) -> None:
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

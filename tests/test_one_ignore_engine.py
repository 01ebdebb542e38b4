"""One ignore engine: the indexer's walker, the text retriever, its file listing, grep, glob and the
guard's listing agree on which files are in the workspace, over a tree that exercises every rule."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer import Settings
from indexer.workspace import Walker
from search.engine.query import analyse
from search.engine.retrievers import ResolvedScope
from search.engine.retrievers.listing import list_scope
from search.engine.retrievers.text import TextRetriever
from search.frontends.server.registry import resolve_tools
from search.frontends.server.state import ServerState
from search.frontends.server.tools_grep import grep
from search.workspace.browse import glob_files
from search.workspace.confine import Roots
from search.workspace.guard import parse_rules, run_guard
from search.workspace.ripgrep import list_files
from search.workspace.scope import parse_scope, resolve_scope

MARK = "zebra_mark_7"
TRICKY: dict[str, str] = {
    "src/app.py": MARK,
    "src/.hidden.py": MARK,  # hidden files are in
    ".config/tool.py": MARK,
    "debug.log": MARK,  # .gitignore
    "keep.log": MARK,  # re-included by .ignore, which overrides .gitignore
    "build/out.py": MARK,  # a directory pattern in .gitignore
    "secret.txt": MARK,  # .ignore
    "rgonly.py": MARK,  # .rgignore: hidden from the index as from ripgrep
    "sub/local.py": MARK,  # a nested .gitignore
    "sub/kept.py": MARK,
    "sub/deep/notes.md": MARK,  # a nested .ignore
    "sub/deep/code.py": MARK,
    "excluded.py": MARK,  # .git/info/exclude
    ".git/info/exclude": "excluded.py\n",
    ".git/config": MARK,  # never: .git, .hg, .svn
    ".hg/store.py": MARK,
    ".svn/entries.py": MARK,
    "pkg/.hg/inner.py": MARK,
    ".plait-1234.tmp": MARK,  # plait's temp files
    ".gitignore": "*.log\nbuild/\n",
    ".ignore": "!keep.log\nsecret.txt\n",
    ".rgignore": "rgonly.py\n",
    "sub/.gitignore": "local.py\n",
    "sub/deep/.ignore": "*.md\n",
}
EXPECTED = {
    "src/app.py",
    "src/.hidden.py",
    ".config/tool.py",
    "keep.log",
    "sub/kept.py",
    "sub/deep/code.py",
}


def _tree(make_repo: Callable[..., Path], settings_for: Callable[..., Settings]) -> Settings:
    root = make_repo(TRICKY)
    # An ignore file above the root is no rule of this workspace, for the walker as for ripgrep.
    (root.parent / ".gitignore").write_text("kept.py\nsrc/\n")
    return settings_for(root)


def _with_mark(settings: Settings, paths: set[str]) -> set[str]:
    """The files among ``paths`` holding the marker (the ignore files themselves do not)."""
    return {p for p in paths if MARK in (settings.root / p).read_text()}


def test_walker_text_search_listing_grep_glob_and_guard_see_the_same_files(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    settings = _tree(make_repo, settings_for)
    walker = {f.path for f in Walker(settings).walk()}
    assert _with_mark(settings, walker) == EXPECTED

    whole = ResolvedScope("ws", None, None, (), None)
    listing = list_scope(settings, whole, timeout=10)
    assert listing is not None
    assert _with_mark(settings, set(listing.paths)) == EXPECTED

    retriever = TextRetriever(settings, None)
    hits = retriever.search(analyse(MARK, regex=False), whole, limit=100)
    assert {h.span.path for h in hits} == EXPECTED

    assert _with_mark(settings, set(list_files(settings))) == EXPECTED
    every = glob_files(Roots.from_settings([settings]), "*", limit=100)
    assert _with_mark(settings, {m.path for m in every.matches}) == EXPECTED

    state = ServerState([settings], resolve_tools(enable=None, disable=None, read_only=True))
    try:
        found = grep(state, MARK, output_mode="files_with_matches", head_limit=100)
    finally:
        state.close()
    assert {f["path"] for f in (found.structured_content or {})["files"]} == EXPECTED


def test_a_positive_glob_brings_back_no_ignored_file_anywhere(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    settings = _tree(make_repo, settings_for)
    py = {p for p in EXPECTED if p.endswith(".py")}
    walker = {f.path for f in Walker(settings).walk() if f.path.endswith(".py")}
    assert _with_mark(settings, walker) == py

    globbed = ResolvedScope("ws", None, None, ("*.py",), None)
    listing = list_scope(settings, globbed, timeout=10)
    assert listing is not None and _with_mark(settings, set(listing.paths)) == py
    hits = TextRetriever(settings, None).search(analyse(MARK, regex=False), globbed, limit=100)
    assert {h.span.path for h in hits} == py

    state = ServerState([settings], resolve_tools(enable=None, disable=None, read_only=True))
    try:
        found = grep(state, MARK, glob="**", output_mode="files_with_matches", head_limit=100)
        asked = grep(state, MARK, glob="*.py", include_ignored=True, output_mode="files_with_matches")
    finally:
        state.close()
    assert {f["path"] for f in (found.structured_content or {})["files"]} == EXPECTED
    # include_ignored lifts the ignore files, never .git, .hg, .svn or plait's temp files
    every_py = {p for p, text in TRICKY.items() if p.endswith(".py") and text == MARK}
    never = {".hg/store.py", ".svn/entries.py", "pkg/.hg/inner.py"}
    assert {f["path"] for f in (asked.structured_content or {})["files"]} == every_py - never


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_changed_scope_leaves_out_what_the_ignore_rules_leave_out(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    root = make_repo({"a.py": "old\n", ".ignore": "scratch.py\n", ".rgignore": "notes.py\n"})
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    for name in ("a.py", "new.py", "scratch.py", "notes.py"):  # untracked or modified, none gitignored
        (root / name).write_text(f"{MARK}\n")
    settings = settings_for(root)
    walked = {f.path for f in Walker(settings).walk()}
    changed = resolve_scope(settings, parse_scope("changed"))
    assert set(changed.paths or ()) == {"a.py", "new.py"} == walked - {".ignore", ".rgignore"}
    hits = TextRetriever(settings, None).search(analyse(MARK, regex=False), changed, limit=100)
    assert {h.span.path for h in hits} == {"a.py", "new.py"}
    rules = parse_rules([{"id": "m", "type": "regex", "pattern": MARK}])
    assert {v.path for v in run_guard(settings, rules, "changed").violations} == {"a.py", "new.py"}
    # ripgrep reads named files whatever the globs and file types: the scope applies them first
    markdown = resolve_scope(settings, parse_scope("changed", ["*.md"]))
    assert markdown.paths == ()
    assert TextRetriever(settings, None).search(analyse(MARK, regex=False), markdown, limit=100) == []
    python = resolve_scope(settings, parse_scope("changed", ["!new.py"], "python"))
    assert python.paths == ("a.py",)

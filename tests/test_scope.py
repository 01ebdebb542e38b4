"""A scope is parsed once (``Scope.parse``) and resolved by one function for the engine, the tools and
the guard; ``ResolvedScope.allows`` is the one containment predicate."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer import Settings
from models.errors import PathOutsideRootError
from search.engine.engine import Engine
from search.errors import QueryError
from search.types import ResolvedScope, Scope
from search.workspace.guard import parse_rules, run_guard
from search.workspace.scope import parse_scope, resolve_scope


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", Scope()),
        ("  ws ", Scope()),
        ("changed", Scope("changed")),
        ("dir:src", Scope("dir", "src")),
        ("file:a b.py", Scope("file", "a b.py")),
        ("dir:x:y", Scope("dir", "x:y")),
    ],
)
def test_the_grammar_is_decoded_into_a_typed_scope(text: str, expected: Scope) -> None:
    assert parse_scope(text) == expected


@pytest.mark.parametrize("text", ["nowhere", "dir:", "file:", "ws:x", "changed:x", "Dir:src"])
def test_anything_else_is_refused_with_the_grammar_and_the_argument_named(text: str) -> None:
    with pytest.raises(QueryError, match=r"unknown guard target .*use ws, changed, dir:PATH or file:PATH"):
        parse_scope(text, what="guard target")


def test_containment_is_one_predicate() -> None:
    d = ResolvedScope("dir", "src", None, (), None)
    assert d.allows("src/a.py") and not d.allows("srcx/a.py") and not d.allows("src")
    f = ResolvedScope("file", "src/a.py", None, (), None)
    assert f.allows("src/a.py") and not f.allows("src/b.py")
    c = ResolvedScope("changed", None, ("a.py",), (), None)
    assert c.allows("a.py") and not c.allows("b.py")
    assert ResolvedScope("ws", None, None, (), None).allows("any/where.py")


def test_engine_and_guard_resolve_a_scope_alike_and_refuse_the_same_paths(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings], tmp_path: Path
) -> None:
    root = make_repo({"src/a.py": "secret = 1\n", "b.py": "secret = 2\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("secret = 3\n")
    os.symlink(outside, root / "link")
    os.mkfifo(root / "pipe")
    settings: Settings = settings_for(root)
    engine = Engine(settings)
    try:
        assert engine.resolve_scope(Scope("dir", "src")) == resolve_scope(settings, Scope("dir", "src"))
        assert resolve_scope(settings, Scope("dir", "./src/")).path == "src"
        assert resolve_scope(settings, Scope("dir", str(root))).kind == "ws"
        rules = parse_rules([{"id": "s", "type": "regex", "pattern": "secret"}])
        assert [v.path for v in run_guard(settings, rules, Scope("dir", "src")).violations] == ["src/a.py"]
        for bad, error in [
            ("dir:../", PathOutsideRootError),
            ("dir:link", PathOutsideRootError),
            ("file:pipe", QueryError),
            ("file:src", QueryError),
            ("dir:b.py", QueryError),
            ("dir:missing", QueryError),
        ]:
            with pytest.raises(error):
                engine.resolve_scope(parse_scope(bad))
            with pytest.raises(error):
                run_guard(settings, rules, bad)
    finally:
        engine.close()


def test_a_changed_scope_tells_a_header_s_language_by_its_first_bytes(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    # ... and a script without a suffix by its #! line, as the index does.
    root = make_repo({"keep.txt": "x\n"})
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    (root / "plain.h").write_text("int count(void);\n")
    (root / "wide.h").write_text("namespace w {\nint count();\n}\n")
    (root / "deploy").write_text("#!/usr/bin/env python3\nprint('count')\n")
    (root / "notes").write_text("count\n")
    settings = settings_for(root)
    assert resolve_scope(settings, Scope("changed", language="cpp")).targets == ("wide.h",)
    assert resolve_scope(settings, Scope("changed", language="c")).targets == ("plain.h",)
    assert resolve_scope(settings, Scope("changed", language="python")).targets == ("deploy",)

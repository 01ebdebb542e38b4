"""Workspace root detection, the ignore-aware walk, language detection."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer import Walker, WalkStats, find_root
from indexer.languages import detect_language
from models.errors import WorkspaceError


def walk(settings) -> list[str]:
    return [f.path for f in Walker(settings).walk()]


def test_root_detection_prefers_markers_in_priority_order(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    mod = tmp_path / "svc"
    (mod / "pkg" / "deep").mkdir(parents=True)
    (mod / "go.mod").write_text("module x\n")
    assert find_root(mod / "pkg" / "deep") == mod.resolve()
    assert find_root(tmp_path) == tmp_path.resolve()
    plain = tmp_path.parent / (tmp_path.name + "-plain")
    plain.mkdir()
    assert find_root(plain) == plain.resolve() or find_root(plain) in plain.resolve().parents


def test_root_detection_go_work_beats_nearer_package_json(tmp_path: Path) -> None:
    (tmp_path / "go.work").write_text("go 1.22\n")
    web = tmp_path / "web"
    web.mkdir()
    (web / "package.json").write_text("{}")
    assert find_root(web) == tmp_path.resolve()


def test_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="does not exist"):
        find_root(tmp_path / "nope")


def test_gitignore_semantics_nested_negation_ignore_and_info_exclude(make_repo, settings_for) -> None:
    root = make_repo(
        {
            ".gitignore": "*.log\nbuild/\n!keep.log\n",
            "keep.log": "kept by negation\n",
            "drop.log": "ignored\n",
            "build/out.py": "x = 1\n",
            "src/.gitignore": "generated_*.py\n!generated_ok.py\n",
            "src/generated_a.py": "a = 1\n",
            "src/generated_ok.py": "ok = 1\n",
            "src/main.py": "print(1)\n",
            "src/.ignore": "secret.py\n",
            "src/secret.py": "s = 1\n",
            "docs/notes.md": "# notes\n",
            ".git/info/exclude": "docs/\n",
            ".git/config": "[core]\n",
            ".hidden.py": "h = 1\n",
        }
    )
    files = walk(settings_for(root))
    assert files == [".gitignore", ".hidden.py", "keep.log", "src/.gitignore", "src/.ignore", "src/generated_ok.py",
                     "src/main.py"]  # fmt: skip


def test_configured_include_and_exclude(make_repo, settings_for) -> None:
    root = make_repo({"a.py": "a\n", "b.go": "package b\n", "vendor/c.py": "c\n"})
    settings = settings_for(root, include=["*.py"], exclude=["vendor/"])
    assert walk(settings) == ["a.py"]


def test_binary_large_and_symlinks_are_skipped_and_counted(make_repo, settings_for, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 1\n")
    root = make_repo(
        {
            "fake.py": b"\x00\x01binary with a .py name",
            "big.txt": "x" * 5000,
            "ok.py": "ok = 1\n",
        }
    )
    os.symlink(outside, root / "escape")
    os.symlink(root, root / "loop")
    os.symlink(outside / "secret.py", root / "link.py")
    stats = WalkStats()
    files = [f.path for f in Walker(settings_for(root, max_file_bytes=1000)).walk(stats)]
    assert files == ["ok.py"]
    assert stats.skipped_binary == 1
    assert stats.skipped_large == 1
    assert stats.skipped_symlink == 3


def test_index_dir_inside_root_is_never_walked(make_repo, settings_for) -> None:
    root = make_repo({"a.py": "a = 1\n", ".plait-index/t.py": "t = 1\n"})
    settings = settings_for(root, index_dir=str(root / ".plait-index"))
    assert walk(settings) == ["a.py"]


def test_unreadable_file_is_counted_not_fatal(make_repo, settings_for) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    root = make_repo({"a.py": "a = 1\n", "b.py": "b = 1\n"})
    (root / "b.py").chmod(0)
    stats = WalkStats()
    assert [f.path for f in Walker(settings_for(root)).walk(stats)] == ["a.py"]
    assert stats.skipped_unreadable == 1


@pytest.mark.parametrize(
    ("path", "head", "language"),
    [
        ("a/b.py", b"", "python"),
        ("x.tsx", b"", "tsx"),
        ("x.ts", b"", "typescript"),
        ("Makefile", b"", "make"),
        ("bin/tool", b"#!/usr/bin/env python3\nprint()\n", "python"),
        ("bin/run", b"#!/bin/bash\necho\n", "bash"),
        ("bin/node", b"#!/usr/bin/env -S node --flag\n", "javascript"),
        ("README", b"plain", None),
        ("lib.rs", b"", "rust"),
        ("x.hpp", b"", "cpp"),
        ("x.h", b"", "c"),
        ("x.h", b"/* (c) */\n#include <stdio.h>\nstruct class_info { int n; };\n", "c"),
        ("x.h", b"#ifndef X_H\n#include <vector>\n", "cpp"),  # abseil, fmt: C++ headers named .h
        ("x.h", b"namespace absl {\n", "cpp"),
        ("x.h", b"template <typename T>\nT max(T a, T b);\n", "cpp"),
        ("x.h", b"class Dialog : public QDialog {\n", "cpp"),
        ("x.h", b"/*\n * class Foo is documented here\n */\n", "c"),  # a comment's word, not code
        # a name and suffix as pathlib reads them
        ("lib/util.PY", b"", "python"),
        ("src/.py", b"", None),  # a dotfile named ".py" has no suffix
        ("src/main.", b"", None),
        ("pkg/mod.py/", b"", "python"),
        ("./tools/CMakeLists.txt", b"", "cmake"),
        (".", b"#!/bin/sh\n", "bash"),
    ],
)
def test_language_detection(path: str, head: bytes, language: str | None) -> None:
    assert detect_language(path, head) == language

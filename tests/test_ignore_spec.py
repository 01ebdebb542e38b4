"""Ignore-file patterns screened by one expression give pathspec's verdicts, path for path."""

from __future__ import annotations

import itertools
import re

import pathspec
import pytest

from indexer.ignore_spec import IgnoreSpec, any_pattern

# What ignore files hold: globs, anchored and directory patterns, negations (also of what a
# directory pattern ignored), `**`, classes, escapes, trailing spaces, comments and blank lines.
LINES = [
    "# build output",
    "",
    "*.o",
    "*.[ch]~",
    "/build/",
    "out/",
    "!out/keep.txt",
    "docs/**/generated",
    "**/cache",
    "!**/cache/README",
    "vendor/*/",
    "\\#notes",
    "a\\ b",
    "trailing   ",
    "Makefile.*",
    "!Makefile.am",
    "*.log",
    "!important.log",
    "modules.order",
    "/*.tar.gz",
    "x?z",
    "[!a-c]bc",
]
NAMES = [
    "main.o", "main.c", "main.c~", "x.h~", "build", "out", "keep.txt", "generated", "cache", "README",
    "#notes", "a b", "trailing", "Makefile.am", "Makefile.in", "debug.log", "important.log",
    "modules.order", "src.tar.gz", "xyz", "xz", "abc", "dbc", "vendor", "lib", "docs",
]  # fmt: skip
DIRS = ["", "src/", "build/", "out/", "docs/", "docs/api/v1/", "vendor/x/", "deep/cache/", "lib/out/"]


def _paths() -> list[str]:
    paths = [d + n for d, n in itertools.product(DIRS, NAMES)]
    return paths + [p + "/" for p in paths]  # each also as a directory


@pytest.mark.parametrize("lines", [LINES, LINES[::-1], [line for line in LINES if line.startswith("!")]])
def test_a_screened_spec_gives_pathspecs_verdict_for_every_path(lines: list[str]) -> None:
    spec = IgnoreSpec.from_lines(lines)
    assert spec.screened  # the one-match screen is in use for patterns of this form
    plain = pathspec.GitIgnoreSpec.from_lines(lines)
    for path in _paths():
        assert spec.verdict(path) == plain.check_file(path).include, path
        assert spec.match_file(path) == plain.match_file(path), path


def test_a_path_no_pattern_matches_is_told_by_the_screen_alone() -> None:
    spec = IgnoreSpec.from_lines(["*.o", "!keep.o", "/build/"])
    screen = any_pattern(spec.spec)
    assert screen is not None
    assert screen.match("src/main.c") is None  # no verdict, without asking each pattern
    assert screen.match("src/keep.o") is not None  # a negation matches: the patterns decide (False)
    assert spec.verdict("src/keep.o") is False
    assert spec.verdict("build/") is True
    assert spec.verdict("src/build/") is None  # anchored at the ignore file's directory


def test_patterns_that_decide_nothing_never_match() -> None:
    spec = IgnoreSpec.from_lines(["# only a comment", ""])
    assert spec.screened
    assert spec.verdict("anything") is None


def test_a_pattern_of_another_form_is_asked_without_the_screen() -> None:
    unanchored = pathspec.PathSpec([pathspec.RegexPattern(re.compile("secret"), include=True)])
    spec = IgnoreSpec(unanchored)
    assert not spec.screened  # joining it under one `^` would change what it means
    assert spec.verdict("a/secret.txt") is True
    assert spec.verdict("a/public.txt") is None

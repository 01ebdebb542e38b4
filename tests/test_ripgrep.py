"""The ripgrep gateway: its readers from recorded output, and its failures against the real binary."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexer import Settings
from search.errors import QueryError
from search.workspace import ripgrep
from search.workspace.ripgrep import RegexError, RgCommand, RgLine, parse_files, parse_json, parse_matches

RECORDED_JSON = (
    b'{"type":"begin","data":{"path":{"text":"./a.py"}}}\n'
    b'{"type":"context","data":{"path":{"text":"./a.py"},"lines":{"text":"import os\\n"},"line_number":2,'
    b'"absolute_offset":0,"submatches":[]}}\n'
    b'{"type":"match","data":{"path":{"text":"./a.py"},"lines":{"text":"print(1)\\n"},"line_number":3,'
    b'"absolute_offset":10,"submatches":[{"match":{"text":"print"},"start":0,"end":5}]}}\n'
    b'{"type":"match","data":{"path":{"text":"b.bin"},"lines":{"bytes":"cHJpbnQ="},"line_number":1,'
    b'"absolute_offset":0,"submatches":[]}}\n'
    b'{"type":"end","data":{"path":{"text":"b.bin"},"binary_offset":7,"stats":{}}}\n'
    b'{"type":"match","data":{"path":{"bytes":"Yy5weQ=="},"lines":{"bytes":"cHJpbnQ="},"line_number":2,'
    b'"absolute_offset":0,"submatches":[]}}\n'
    b'{"type":"mat'
)


def test_json_output_is_read_into_lines_with_base64_decoded_and_a_cut_line_dropped() -> None:
    lines, binary = parse_json(RECORDED_JSON)
    assert lines == [
        RgLine("a.py", 3, "print(1)\n", ("print",)),
        RgLine("b.bin", 1, "print", ()),
        RgLine("c.py", 2, "print", ()),
    ]
    assert binary == frozenset({"b.bin"})
    with_context, _ = parse_json(RECORDED_JSON, context=True)
    assert with_context[0] == RgLine("a.py", 2, "import os\n", (), match=False)


def test_matches_output_is_grouped_per_line() -> None:
    out = b"./a.py\x001:retry\n./a.py\x001:Retry\na b.py\x0012:x\nbroken line\n"
    assert parse_matches(out) == [RgLine("a.py", 1, "", ("retry", "Retry")), RgLine("a b.py", 12, "", ("x",))]


def test_files_output_drops_a_name_cut_by_the_cap() -> None:
    assert parse_files(b"./a.py\x00sub/b.py\x00sub/c") == ["a.py", "sub/b.py"]
    assert parse_files(b"") == []


def test_a_command_says_its_output_format_and_a_search_needs_a_pattern() -> None:
    with pytest.raises(ValueError, match="at least one"):
        RgCommand("json")
    with pytest.raises(ValueError, match="no pattern"):
        RgCommand("files", ("x",))


def test_the_argv_puts_exclusions_after_user_globs_and_patterns_after_flags(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(make_repo({"a.py": "x\n"}), exclude=["vendor/"])
    argv = ripgrep.argv(settings, RgCommand("json", ("-x",), ("src",), ("**",), word=True))
    assert argv[-4:] == ["-e", "-x", "--", "src"]
    globs = [argv[i + 1] for i, a in enumerate(argv) if a == "--glob"]
    assert globs.index("**") < globs.index("!vendor/") < globs.index("!.git/")
    assert {"--json", "--word-regexp", "--no-ignore-parent", "--no-ignore-global"} <= set(argv)


def test_failures_become_plait_errors_against_the_real_binary(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    settings = settings_for(make_repo({"a.py": "print(1)\n"}))
    with pytest.raises(RegexError, match=r"invalid regex.*unclosed group"):
        ripgrep.run_rg(settings, RgCommand("json", ("(",)), timeout=10)
    missing = ripgrep.run_rg(settings, RgCommand("json", ("print",), ("a.py", "gone.py")), timeout=10)
    assert [m.path for m in missing.lines] == ["a.py"] and any("gone.py" in e for e in missing.errors)
    with pytest.raises(QueryError, match="ripgrep failed"):
        ripgrep.run_rg(settings, RgCommand("json", ("x",), ("gone.py",), globs=("[",)), timeout=10)


def test_a_language_that_shares_the_h_suffix_keeps_the_headers_whose_first_bytes_show_it(
    make_repo: Callable[..., Path], settings_for: Callable[..., Settings]
) -> None:
    # ``.h`` is C and C++: ripgrep's types give both languages every header, and the first bytes decide
    # which is which, as when indexed (``--lang cpp`` found no C++ header named .h, ``--lang c`` all).
    settings = settings_for(
        make_repo(
            {
                "plain.h": "int marker_count(void);\n",
                "wide.h": "#include <vector>\nnamespace w {\nint marker_count();\n}\n",
                "main.cpp": "int marker_count() { return 1; }\n",
                "main.c": "int marker_count(void) { return 2; }\n",
                "tool.py": "marker_count = 3\n",
            }
        )
    )

    def found(language: str) -> tuple[set[str], set[str]]:
        lines = ripgrep.run_rg(
            settings, RgCommand("matches", ("marker_count",), language=language), timeout=10
        )
        files = ripgrep.run_rg(settings, RgCommand("files", language=language), timeout=10)
        return {m.path for m in lines.lines}, set(files.files)

    assert found("cpp") == ({"wide.h", "main.cpp"}, {"wide.h", "main.cpp"})
    assert found("c") == ({"plain.h", "main.c"}, {"plain.h", "main.c"})
    assert found("python") == ({"tool.py"}, {"tool.py"})
    assert ripgrep.language_of(settings.root, "wide.h") == "cpp"
    assert ripgrep.language_of(settings.root, "gone.h") == "c"  # unreadable: told by its suffix
    (settings.root / "run").write_text("#!/bin/sh\necho marker_count\n")
    (settings.root / "tool.txt").write_text("#!/bin/sh\n")
    assert ripgrep.language_of(settings.root, "run") == "bash"  # no suffix: its #! line, as indexed
    assert ripgrep.language_of(settings.root, "tool.txt") == "text"  # a known suffix decides alone
    assert ripgrep.language_of(settings.root, "gone") is None

"""Grammars and queries load with no network, and indexer.parsing reports problems clearly.

The offline check runs in a fresh interpreter whose sockets refuse to connect and whose cache
directories are empty, so a grammar that tree-sitter-language-pack would download (newer
releases fetch grammars on first use) makes it fail loudly instead of passing on a warm cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import tree_sitter

from indexer.errors import GrammarUnavailableError, QuerySyntaxError
from indexer.imports import IMPORT_LANGUAGES
from indexer.parsing import compile_user_query, ensure_bundled, get_parser, load_query, parse
from indexer.symbols import SYMBOL_LANGUAGES

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = sorted(SYMBOL_LANGUAGES | IMPORT_LANGUAGES)

OFFLINE_SCRIPT = textwrap.dedent(
    """
    import socket
    import sys

    def refuse(*args, **kwargs):
        raise OSError("network access attempted while loading grammars")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse

    try:
        socket.create_connection(("example.com", 443))
    except OSError:
        pass
    else:
        sys.exit("the network guard is not active")

    from indexer.parsing import get_parser, load_query

    for language in sys.argv[1:]:
        tree = get_parser(language).parse(b"x")
        assert tree.root_node is not None, language
        load_query(language, "tags")
        load_query(language, "imports")
    print("loaded", len(sys.argv) - 1)
    """
)


def test_all_eighteen_grammars_and_their_queries_load_with_the_network_disabled(tmp_path: Path) -> None:
    assert len(LANGUAGES) == 18
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HOME": str(tmp_path),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "PYTHONPATH": str(REPO),
    }
    result = subprocess.run(
        [sys.executable, "-c", OFFLINE_SCRIPT, *LANGUAGES],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded 18"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_grammar_is_bundled_in_the_installed_pack(language: str) -> None:
    ensure_bundled(language)


def test_an_unbundled_grammar_is_refused_without_trying_to_fetch_it() -> None:
    with pytest.raises(GrammarUnavailableError, match="never downloads grammars"):
        ensure_bundled("notalanguage")
    with pytest.raises(GrammarUnavailableError):
        get_parser("../etc/passwd")


def test_parsers_and_queries_are_cached() -> None:
    assert get_parser("python") is get_parser("python")
    assert load_query("go", "tags") is load_query("go", "tags")


def test_parse_returns_a_tree_even_for_broken_source() -> None:
    tree = parse(b"def (:\n", "python")
    assert tree.root_node.has_error


def test_a_missing_query_kind_is_a_clear_error() -> None:
    with pytest.raises(GrammarUnavailableError, match="no highlights query for 'python'"):
        load_query("python", "highlights")


def test_a_user_query_compiles_and_matches() -> None:
    query = compile_user_query("python", "(function_definition name: (identifier) @name)")
    tree = parse(b"def f():\n    pass\n", "python")
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    assert [node.text for node in captures["name"]] == [b"f"]


@pytest.mark.parametrize(
    ("source", "row", "column", "offset", "detail"),
    [
        ("(function_definition\n  nam: (identifier))", 1, 2, 23, "Invalid field name"),
        ("(function_definition)\n(no_such_node) @x", 1, 1, 23, "Invalid node type"),
        ("(identifier @", 0, 12, 12, "Invalid syntax"),
        ("(identifier) @", 0, 14, 14, "EOF"),
        ("(function_definition", 0, 20, 20, "EOF"),
        ("  ", 0, 0, 0, "empty"),
    ],
)
def test_a_malformed_user_query_reports_its_position(
    source: str, row: int, column: int, offset: int, detail: str
) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        compile_user_query("python", source)
    error = caught.value
    assert (error.row, error.column, error.offset) == (row, column, offset)
    assert error.line == row + 1
    assert detail in str(error)
    assert f"line {row + 1}, column {column + 1}" in str(error)


def test_query_error_columns_count_characters_not_bytes() -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        compile_user_query("python", '((identifier) @n (#eq? @n "é")) (bogus_node)')
    assert caught.value.column == caught.value.offset == 33

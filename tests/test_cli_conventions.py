"""The `plait` command follows ripgrep's conventions (real subprocesses, real ripgrep, real index).

Exit 0 found / 1 none / 2 error; results on stdout and every message on stderr; ``--color`` and
``NO_COLOR``; nothing cut when piped; ``--json`` and ``--jsonl``; ``--root`` on every command;
every option documented with its default; ``--version``; scores that fall with the rank.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import plait

from search.frontends.cli import build_parser
from search.frontends.progress import LineProgress

LONG = "x" * 150
SRC = {
    "app/retry.py": "def retry_upload(session, attempts=3):\n    '''Retry a failed upload.'''\n"
    "    for _ in range(attempts):\n        if session.send():\n            return True\n    return False\n",
    "app/session.py": "class UploadSession:\n    def send(self):\n        raise IOError('checksum mismatch')\n",
    "app/long.py": f"MARKER = '{LONG}'\n",
}
ANSI = "\x1b["


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(PLAIT_INDEX_DIR=str(tmp_path / "index"), PLAIT_MODEL="hashing", HF_HUB_OFFLINE="1")
    return env


def test_search_exits_0_when_found_1_when_nothing_and_2_on_error(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    found = plait("search", "checksum mismatch", "--mode", "text", "--root", str(root), env=cli_env)
    assert found.returncode == 0, found.stderr
    assert "app/session.py" in found.stdout

    none = plait("search", "zebra_quartz_nowhere", "--mode", "text", "--root", str(root), env=cli_env)
    assert none.returncode == 1
    assert none.stdout == ""
    assert "no results" in none.stderr

    none_json = plait(
        "search", "zebra_quartz_nowhere", "--mode", "text", "--root", str(root), "--json", env=cli_env
    )
    assert none_json.returncode == 1 and json.loads(none_json.stdout) == []

    bad = plait("search", "(", "--regex", "--mode", "text", "--root", str(root), env=cli_env)
    assert bad.returncode == 2 and bad.stdout == "" and "invalid regex" in bad.stderr


def test_search_unavailable_is_said_on_stderr_and_exits_2(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)  # no index: semantic search has nothing to search
    out = plait("search", "retry a failed upload", "--mode", "semantic", "--root", str(root), env=cli_env)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "vector search unavailable" in out.stderr


def test_jsonl_prints_one_result_per_line_with_the_snippet_line(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    out = plait("search", "session", "--mode", "text", "--root", str(root), "--jsonl", env=cli_env)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) >= 2
    for row in rows:
        assert row["start_line"] <= row["snippet_line"] <= row["end_line"]
        assert "session" in row["snippet"].lower()


def test_color_follows_the_flag_and_no_color(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    args = ("search", "UploadSession", "--mode", "text", "--root", str(root))
    assert ANSI in plait(*args, "--color", "always", env=cli_env).stdout
    assert ANSI not in plait(*args, "--color", "never", env=cli_env).stdout
    assert ANSI not in plait(*args, env=cli_env).stdout  # auto, into a pipe
    # NO_COLOR turns auto off, never an explicit --color always.
    no_color = {**cli_env, "NO_COLOR": "1"}
    assert ANSI not in plait(*args, env=no_color).stdout
    assert ANSI in plait(*args, "--color", "always", env=no_color).stdout


def test_piped_output_is_never_cut_to_a_width(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    for color in ("never", "always"):
        out = plait("search", "MARKER", "--mode", "text", "--root", str(root), "--color", color, env=cli_env)
        assert out.returncode == 0, out.stderr
        assert LONG in out.stdout


def test_every_command_takes_root_as_an_option(make_repo, cli_env: dict[str, str], tmp_path: Path) -> None:
    root = make_repo(SRC)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    built = subprocess.run(
        [sys.executable, "-m", "search.frontends.cli", "index", "--root", str(root), "--json", "--no-vectors"],
        capture_output=True, text=True, env=cli_env, timeout=300, cwd=elsewhere,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["root"] == str(root.resolve())
    status = plait("status", "--root", str(root), "--json", env=cli_env)
    assert json.loads(status.stdout)["root"] == str(root.resolve())
    positional = plait("status", str(root), "--json", env=cli_env)
    assert json.loads(positional.stdout)["root"] == str(root.resolve())
    both = plait("status", str(root), "--root", str(elsewhere), env=cli_env)
    assert both.returncode == 2 and "two roots" in both.stderr
    for command in ("index", "search", "status", "serve", "watch", "guard"):
        assert "--root" in plait(command, "--help", env=cli_env).stdout, command


def test_index_without_a_terminal_prints_progress_lines_on_stderr(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    out = plait("index", str(root), env=cli_env)
    assert out.returncode == 0, out.stderr
    assert "plait: parsing" in out.stderr and "vectors" in out.stderr
    assert "indexed" in out.stdout and "plait:" not in out.stdout
    quiet = plait("index", str(root), "--full", "--quiet", env=cli_env)
    assert quiet.returncode == 0 and "plait: parsing" not in quiet.stderr


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_every_option_is_documented_and_shows_its_default() -> None:
    parser = build_parser()
    commands = _subparsers(parser)
    assert set(commands) == {"index", "search", "status", "serve", "watch", "guard"}
    for name, sub in [("plait", parser), *commands.items()]:
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest} has no help text"
    text = commands["search"].format_help()
    assert "(default: hybrid)" in text and "(default: 10)" in text and "(default: auto)" in text
    assert "(default: stdio)" in commands["serve"].format_help()


def test_version_prints_the_version(cli_env: dict[str, str]) -> None:
    from importlib.metadata import version

    out = plait("--version", env=cli_env)
    assert out.returncode == 0 and out.stdout.strip() == f"plait {version('plait')}"


def test_no_command_is_a_usage_error(cli_env: dict[str, str]) -> None:
    out = plait(env=cli_env)
    assert out.returncode == 2 and "a command is required" in out.stderr


def test_displayed_scores_fall_with_the_rank(make_repo, cli_env: dict[str, str]) -> None:
    root = make_repo(SRC)
    assert plait("index", str(root), "--quiet", env=cli_env).returncode == 0
    for query in ("UploadSession", "retry a failed upload", '"checksum mismatch"', "send"):
        out = plait("search", query, "--root", str(root), "--json", "--no-daemon", env=cli_env)
        scores = [r["score"] for r in json.loads(out.stdout)]
        assert scores == sorted(scores, reverse=True), (query, scores)


@pytest.mark.parametrize("columns", [None, "60", "0", "wide"])
def test_help_is_as_wide_as_shutil_says(monkeypatch: pytest.MonkeyPatch, columns: str | None) -> None:
    """The help formatter's width (worked out without importing shutil) is shutil's."""
    import shutil

    from search.frontends.cli import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "needle", "--mode", "text", "--json", "--root", "/tmp"],
        ["-v", "search", "--limit", "3", "--", "-starts-with-a-dash"],
        ["index", "a", "b", "--tier", "fast", "--quiet"],
        ["serve", "--root", "a", "--root", "b", "--profile", "search"],
        ["status", "--json"],
        ["watch", "--no-vectors"],
        ["guard", "--target", "changed"],
        ["--version"],
        ["--help"],
        ["search", "--help"],
        [],
        ["serch", "x"],
        ["search"],
        ["search", "x", "--mode", "fuzzy"],
        ["--", "search", "x"],
    ],
)
def test_the_parser_built_for_one_command_parses_as_the_whole_one(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """main builds only the options of the command on its command line (cli._command); the result, the
    help and the errors are the whole parser's."""
    from search.frontends.cli import _command

    def parse(only: str | None) -> tuple[object, str, str]:
        try:
            outcome: object = vars(build_parser(only).parse_args(argv))
        except SystemExit as exc:
            outcome = ("exit", exc.code)
        captured = capsys.readouterr()
        return outcome, captured.out, captured.err

    assert parse(_command(argv)) == parse(None)


def test_progress_lines_before_and_after_a_phases_total_is_known() -> None:
    stream = io.StringIO()
    lines = LineProgress(stream, every=3600)
    lines.start("parsing", 0)  # a first build still walking the tree: no total yet
    lines.advance(1200)
    lines._emit()
    lines.set_total(5000)
    lines.advance(3800)  # the last file: a line at once
    shown = stream.getvalue().splitlines()
    assert shown[0].startswith("plait: parsing 0 ") and shown[1].startswith("plait: parsing 1,200 ")
    assert "/" not in shown[1]
    assert shown[2].startswith("plait: parsing 5,000/5,000 (100%)")

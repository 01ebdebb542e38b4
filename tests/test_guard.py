"""Guard rules over real fixture repositories (Python, TypeScript, Go) with the real rg, git and
tree-sitter."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from indexer.config import load_settings
from models.errors import ConfigError, PathOutsideRootError
from search.errors import GuardBlockedError, QueryError
from search.workspace.guard import (
    GuardRule,
    check_write_allowed,
    parse_rules,
    rules_for,
    run_guard,
)

FILES = {
    "app/main.py": (
        '"""Docs mention import requests but that is text, not an import."""\n'
        "import os\n"
        "import requests.adapters\n"
        "from legacy.db import connect  # TODO remove\n"
        "print('hi')\n"
    ),
    "app/ok.py": "import oslo\nimport logging\nlogging.info('x')\n",
    "web/src/index.ts": (
        'import { map } from "lodash/fp";\n'
        'import * as db from "../internal/db";\n'
        "// import nothing from 'lodash' in a comment\n"
        "console.log(map);\n"
    ),
    "svc/main.go": (
        'package main\n\nimport (\n\t"fmt"\n\t"github.com/acme/internal/secret"\n)\n\n'
        'func main() { fmt.Println("TODO later") }\n'
    ),
    "gen/api_pb2.py": "# generated\nX = 1\n",
    "build/out.py": "print('ignored')\n",
    ".gitignore": "build/\n",
}

CONFIG = """
[[guard.rules]]
id = "no-print"
type = "regex"
pattern = '\\bprint\\('
globs = ["*.py"]
exclude = ["gen/"]
message = "use logging instead of print"

[[guard.rules]]
id = "no-requests"
type = "import"
prefixes = ["requests", "legacy.", "lodash", "github.com/acme/internal", "os"]
message = "go through the http client wrapper"

[[guard.rules]]
id = "protobuf"
type = "generated"
globs = ["gen/**"]
message = "edit api.proto and run make gen"
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    write(root, FILES)
    (root / "plait.toml").write_text(CONFIG)
    return root


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
        timeout=60,
    )


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def found(report_violations: list, rule_id: str) -> list[tuple[str, int | None]]:
    return [(v.path, v.line) for v in report_violations if v.rule_id == rule_id]


def test_configured_rules_over_the_workspace(repo: Path) -> None:
    settings = load_settings(repo, env={})
    report = run_guard(settings, rules_for(settings), "ws")
    assert found(report.violations, "no-print") == [("app/main.py", 5)]
    assert found(report.violations, "no-requests") == [
        ("app/main.py", 2),
        ("app/main.py", 3),
        ("app/main.py", 4),
        ("svc/main.go", 5),
        ("web/src/index.ts", 1),
    ]
    by_line = {(v.path, v.line): v for v in report.violations}
    assert by_line[("app/main.py", 5)].text == "print('hi')"
    assert by_line[("app/main.py", 5)].message == "use logging instead of print"
    assert "legacy.db" in by_line[("app/main.py", 4)].text
    assert "github.com/acme/internal/secret" in by_line[("svc/main.go", 5)].text
    assert report.exit_code == 1 and not report.ok
    assert report.files_checked == 7  # build/ is gitignored; plait.toml and .gitignore are files too


def test_import_rules_use_the_parser_not_a_text_grep(repo: Path) -> None:
    """Docstrings, comments and look-alike modules (oslo, ../internal) are not imports of the prefixes."""
    settings = load_settings(repo, env={})
    report = run_guard(settings, rules_for(settings), "ws")
    lines = found(report.violations, "no-requests")
    assert ("app/main.py", 1) not in lines  # the docstring
    assert not any(path == "app/ok.py" for path, _ in lines)  # oslo is not os
    assert ("web/src/index.ts", 3) not in lines  # the comment
    assert ("web/src/index.ts", 2) not in lines  # ../internal/db is not github.com/acme/internal


def test_rules_from_pyproject_tool_plait(tmp_path: Path) -> None:
    root = tmp_path / "py"
    write(root, {"a.py": "import pickle\n", "b.py": "x = 1  # FIXME\n"})
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[[tool.plait.guard.rules]]\nid = "no-pickle"\ntype = "import"\n'
        'prefixes = ["pickle"]\n\n[[tool.plait.guard.rules]]\nid = "fixme"\ntype = "regex"\n'
        'pattern = "FIXME"\nexclude = ["*.toml"]\n'
    )
    settings = load_settings(root, env={})
    report = run_guard(settings, rules_for(settings), "ws")
    assert [(v.rule_id, v.path, v.line) for v in report.violations] == [
        ("no-pickle", "a.py", 1),
        ("fixme", "b.py", 1),
    ]


def test_inline_rules_replace_the_configured_ones(repo: Path) -> None:
    settings = load_settings(repo, env={})
    inline = [{"id": "todo", "type": "regex", "pattern": "TODO", "message": "file an issue"}]
    report = run_guard(settings, rules_for(settings, inline), "ws")
    assert found(report.violations, "todo") == [("app/main.py", 4), ("svc/main.go", 8)]
    assert {v.rule_id for v in report.violations} == {"todo"}
    assert report.violations[0].message == "file an issue"


def test_dir_and_file_targets_narrow_the_check(repo: Path) -> None:
    settings = load_settings(repo, env={})
    rules = rules_for(settings)
    in_web = run_guard(settings, rules, "dir:web")
    assert {v.path for v in in_web.violations} == {"web/src/index.ts"}
    one = run_guard(settings, rules, "file:svc/main.go")
    assert [(v.rule_id, v.line) for v in one.violations] == [("no-requests", 5)]
    assert one.files_checked == 1
    with pytest.raises(PathOutsideRootError):
        run_guard(settings, rules, "dir:../")
    with pytest.raises(QueryError, match="use ws, changed"):
        run_guard(settings, rules, "everything")
    with pytest.raises(QueryError, match="use file:"):
        run_guard(settings, rules, "dir:app/main.py")


@needs_git
def test_changed_target_and_generated_rules_in_a_git_repo(repo: Path) -> None:
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "init")
    settings = load_settings(repo, env={})
    rules = rules_for(settings)
    clean = run_guard(settings, rules, "changed")
    assert clean.violations == [] and clean.files_checked == 0
    (repo / "gen" / "api_pb2.py").write_text("# generated\nX = 2\n")
    write(repo, {"app/new.py": "print('new')\n"})
    report = run_guard(settings, rules, "changed")
    assert [(v.rule_id, v.path, v.line) for v in report.violations] == [
        ("no-print", "app/new.py", 1),
        ("protobuf", "gen/api_pb2.py", None),
    ]
    assert report.violations[1].message == "edit api.proto and run make gen"
    assert report.files_checked == 2
    # the whole workspace also reports the hand-edited generated file
    assert ("protobuf", "gen/api_pb2.py") in {
        (v.rule_id, v.path) for v in run_guard(settings, rules).violations
    }


def test_changed_target_outside_git_is_refused_with_a_hint(repo: Path) -> None:
    settings = load_settings(repo, env={})
    with pytest.raises(QueryError, match="git work tree"):
        run_guard(settings, rules_for(settings), "changed")


def test_invalid_regex_reports_ripgreps_message(repo: Path) -> None:
    settings = load_settings(repo, env={})
    rules = parse_rules([{"id": "broken", "type": "regex", "pattern": "print(("}])
    with pytest.raises(QueryError, match=r"'broken' has an invalid regex.*unclosed group"):
        run_guard(settings, rules, "ws")


def test_a_backtracking_pattern_runs_in_linear_time(tmp_path: Path) -> None:
    root = tmp_path / "evil"
    write(root, {"x.txt": "a" * 50_000 + "!\n"})
    rules = parse_rules([{"id": "evil", "type": "regex", "pattern": "(a+)+$"}])
    report = run_guard(load_settings(root, env={}), rules, "ws", timeout=20)
    assert report.violations == []


def test_binary_files_are_not_reported(tmp_path: Path) -> None:
    root = tmp_path / "bin"
    root.mkdir()
    (root / "blob.dat").write_bytes(b"secret\0key\n")
    (root / "note.txt").write_text("secret\n")
    rules = parse_rules([{"id": "s", "type": "regex", "pattern": "secret"}])
    report = run_guard(load_settings(root, env={}), rules, "ws")
    assert [v.path for v in report.violations] == ["note.txt"]


# --- rule validation and write protection ------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "regex", "pattern": "x"}, "needs an id"),
        ({"id": "r1", "type": "grep", "pattern": "x"}, "'r1': type must be one of"),
        ({"id": "r2", "type": "regex"}, "'r2': a regex rule needs a non-empty pattern"),
        ({"id": "r3", "type": "import", "prefixes": []}, "'r3': prefixes must be a list"),
        ({"id": "r4", "type": "import"}, "'r4': an import rule needs prefixes"),
        ({"id": "r5", "type": "generated"}, "'r5': a generated rule needs globs"),
        ({"id": "r6", "type": "regex", "pattern": "x", "forbid_writes": True}, "'r6': forbid_writes only"),
        ({"id": "r7", "type": "regex", "pattern": "x", "glob": "*.py"}, "'r7': unknown key.*glob"),
        ({"id": "r8", "type": "regex", "pattern": "x", "globs": [1]}, "'r8': globs must be"),
    ],
)
def test_invalid_rules_name_the_rule_and_the_fix(raw: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_rules([raw])


def test_duplicate_rule_ids_are_refused() -> None:
    rule = {"id": "same", "type": "regex", "pattern": "x"}
    with pytest.raises(ConfigError, match="used twice"):
        parse_rules([rule, rule])


def test_generated_rules_forbid_writes_by_default_and_can_opt_out() -> None:
    rules = parse_rules(
        [
            {"id": "gen", "type": "generated", "globs": ["*.pb.go", "gen/"], "message": "run buf generate"},
            {"id": "docs", "type": "generated", "globs": ["docs/api/"], "forbid_writes": False},
        ]
    )
    assert rules[0].forbid_writes and not rules[1].forbid_writes
    with pytest.raises(GuardBlockedError, match=r"'gen'.*run buf generate"):
        check_write_allowed(rules, "svc/v1/api.pb.go")
    with pytest.raises(GuardBlockedError):
        check_write_allowed(rules, "gen/deep/file.py")
    check_write_allowed(rules, "docs/api/index.md")
    check_write_allowed(rules, "svc/main.go")


def test_import_prefix_matches_at_module_boundaries() -> None:
    rule = GuardRule(id="i", type="import", prefixes=("os", "internal/", "@acme/"))
    assert rule.forbids_module("os") and rule.forbids_module("os.path")
    assert not rule.forbids_module("oslo")
    assert rule.forbids_module("internal/db") and rule.forbids_module("@acme/ui")
    assert not rule.forbids_module("./internal/db")

"""Which heavy modules each CLI path imports: ``--version``, ``--help`` and a text search import none
of LanceDB, numpy, pyarrow, tree-sitter, torch, sentence-transformers, onnxruntime or the MCP server; a
hybrid search over an index does import LanceDB (so the check below can tell the two apart). A search
that a running server answers imports none of those and none of ``WARM_UNUSED`` either.

Each path runs ``search.frontends.cli.main`` in a fresh interpreter and prints ``sys.modules`` afterwards.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

HEAVY = (
    "lancedb", "numpy", "pyarrow", "tree_sitter", "torch", "sentence_transformers", "onnxruntime",
    "transformers", "mcp", "rich",
)  # fmt: skip
# What a search that a running server answers leaves to the server (search/frontends/remote.py): the
# settings code, the workspace walker, the engine's types and snippets, http.client, logging and the
# socket module (the C socket type does).
WARM_UNUSED = (
    "indexer", "search.engine", "search.types", "search.workspace", "search.frontends.render", "pathspec",
    "platformdirs", "tomllib", "hashlib", "dataclasses", "http", "ssl", "email", "logging", "shutil", "socket",
)  # fmt: skip
PROBE = """
import json, sys
from search.frontends.cli import main
try:
    code = main(json.loads(sys.argv[1]))
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
names = json.loads(sys.argv[2])  # a module or package: loaded when it or a submodule is in sys.modules
heavy = sorted({n for n in names for m in sys.modules if m == n or m.startswith(n + ".")})
sys.stderr.write("\\nLOADED " + json.dumps(heavy) + "\\n")
"""


def probe(
    args: list[str], env: dict[str, str], names: tuple[str, ...] = HEAVY
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """Which of ``names`` (default: the heavy modules) ``plait ARGS`` imported, and the finished process
    (its stdout, stderr)."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(names)],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    line = [ln for ln in out.stderr.splitlines() if ln.startswith("LOADED ")]
    assert line, out.stderr
    return set(json.loads(line[-1].removeprefix("LOADED "))), out


def loaded(args: list[str], env: dict[str, str]) -> set[str]:
    return probe(args, env)[0]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = dict(os.environ)
    e.update(PLAIT_INDEX_DIR=str(tmp_path / "index"), PLAIT_MODEL="hashing", HF_HUB_OFFLINE="1")
    return e


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["search", "--help"], ["serve", "--help"]])
def test_version_and_help_import_nothing_heavy(env: dict[str, str], args: list[str]) -> None:
    assert loaded(args, env) == set()


def test_text_search_without_an_index_imports_nothing_heavy(make_repo, env: dict[str, str]) -> None:
    root = make_repo({"a.py": "def alpha():\n    return 'needle'\n"})
    args = ["search", "needle", "--mode", "text", "--root", str(root), "--color", "never"]
    assert loaded(args, env) == set()
    Path(env["PLAIT_INDEX_DIR"]).mkdir()  # an index directory without tables yet: still no LanceDB
    assert loaded(args, env) == set()
    # Coloured output needs rich, and nothing else heavy.
    assert loaded([*args[:-1], "always"], env) == {"rich"}
    # A sentence in hybrid mode, whose ranking would read the functions a chunk holds from the symbol
    # index: there is none to read, so the index code (LanceDB, pyarrow) stays unloaded.
    sentence = ["search", "returns the needle of alpha", "--root", str(root), "--color", "never"]
    assert not loaded(sentence, env) & {"lancedb", "pyarrow", "numpy", "torch", "onnxruntime"}


def test_text_search_over_an_index_imports_no_lancedb_or_pyarrow(make_repo, env: dict[str, str]) -> None:
    root = make_repo({"a.py": "def alpha():\n    return 'needle'\n"})
    subprocess.run(
        [sys.executable, "-m", "search.frontends.cli", "index", str(root), "--quiet"],
        env=env,
        check=True,
        timeout=300,
    )
    for query in ("needle", "return the needle", "'needle'"):  # identifier, sentence, literal
        args = ["search", query, "--mode", "text", "--root", str(root), "--no-daemon", "--json"]
        # The view saved beside the tables (indexer.textview) answers; BM25 over it needs numpy only.
        modules, out = probe(args, env)
        assert modules <= {"numpy"}
        assert [r["path"] for r in json.loads(out.stdout)] == ["a.py"]


def test_hybrid_search_over_an_index_imports_lancedb_but_no_model_runtime(
    make_repo, env: dict[str, str]
) -> None:
    root = make_repo({"a.py": "def alpha():\n    return 'needle'\n"})
    subprocess.run(
        [sys.executable, "-m", "search.frontends.cli", "index", str(root), "--quiet"],
        env=env,
        check=True,
        timeout=300,
    )
    modules = loaded(["search", "alpha", "--root", str(root), "--no-daemon", "--json"], env)
    assert "lancedb" in modules
    assert not modules & {"torch", "sentence_transformers", "onnxruntime", "mcp"}  # the hashing embedder


@pytest.mark.parametrize("location", ["PLAIT_INDEX_DIR", "default"])
def test_a_search_that_a_running_server_answers_imports_nothing_heavy(
    make_repo, env: dict[str, str], tmp_path: Path, location: str
) -> None:
    root = make_repo(
        {"a.py": "def alpha():\n    return 'needle'\n", "pyproject.toml": "[project]\nname = 'a'\n"}
    )
    if location == "default":  # the index in plait's cache directory, found without platformdirs
        del env["PLAIT_INDEX_DIR"]
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    cli = [sys.executable, "-m", "search.frontends.cli"]
    subprocess.run([*cli, "index", str(root), "--quiet"], env=env, check=True, timeout=300)
    server = subprocess.Popen(
        [*cli, "serve", "--root", str(root), "--no-auto-index"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        if location == "default":
            (index_dir,) = (tmp_path / "cache" / "plait").iterdir()
        else:
            index_dir = Path(env["PLAIT_INDEX_DIR"])
        endpoint = index_dir / "endpoint.json"
        deadline = time.monotonic() + 120
        while not endpoint.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        assert endpoint.exists(), "the server did not advertise its endpoint"
        for mode, output in (("hybrid", "--json"), ("text", "--jsonl"), ("symbol", "--color=never")):
            args = ["--verbose", "search", "alpha", "--mode", mode, "--root", str(root), output]
            modules, out = probe(args, env, HEAVY + WARM_UNUSED)
            assert f"searched through the running plait process (pid {server.pid})" in out.stderr
            assert "alpha" in out.stdout
            # Neither the engine's dependencies nor the index's: the server searched; nor the
            # settings code, the types, the snippets, http.client or logging: the server did that too.
            assert modules == set(), mode
        # Coloured output is rendered here (rich, the types, the snippets module), still without the index.
        args = ["search", "alpha", "--root", str(root), "--color", "always"]
        modules, out = probe(args, env, HEAVY + WARM_UNUSED)
        assert "\x1b[" in out.stdout
        assert modules & {"pathspec", "platformdirs", "lancedb", "numpy", "http", "logging"} == set()
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("package", ["models", "indexer", "search"])
def test_every_lazy_public_name_resolves(package: str) -> None:
    import importlib

    pkg = importlib.import_module(package)
    for module, names in pkg._EXPORTS.items():
        for name in names:
            assert getattr(pkg, name) is getattr(importlib.import_module(module), name), name
    # what type checkers see (the TYPE_CHECKING imports) is what the package exports at run time
    tree = ast.parse(Path(str(pkg.__file__)).read_text(encoding="utf-8"))
    (checking,) = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    typed = {
        (node.module, alias.name)
        for node in checking.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    assert typed == {(m, n) for m, names in pkg._EXPORTS.items() for n in names}
    with pytest.raises(AttributeError):
        pkg.no_such_name  # noqa: B018

"""Only search/frontends/server imports mcp, only the gateway runs subprocesses, light imports stay light
(the direction of imports between packages is checked by ``lint-imports``)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def test_only_the_mcp_server_imports_mcp() -> None:
    """The direction of imports between packages is ``lint-imports``'s (pyproject.toml); this is the
    one rule about a third-party package it is not asked to check."""
    bad = [
        f"{path.relative_to(ROOT)} imports {mod}"
        for package in ("models", "indexer", "search")  # benchmarks are MCP clients
        for path in sorted((ROOT / package).rglob("*.py"))
        if "server" not in path.relative_to(ROOT).parts
        for mod in imported_modules(path)
        if mod.split(".")[0] == "mcp"
    ]
    assert not bad, "\n".join(bad)


def test_only_the_gateway_calls_subprocess() -> None:
    users = [
        str(p.relative_to(ROOT))
        for pkg in ("models", "indexer", "search")
        for p in (ROOT / pkg).rglob("*.py")
        if "subprocess" in imported_modules(p)
    ]
    assert users == ["indexer/procs.py"]


def test_text_and_symbol_search_paths_do_not_import_torch() -> None:
    code = (
        "import sys, search.frontends.cli, search.engine.engine, indexer, models\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'onnxruntime', 'mcp') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""

"""Imports point one way: search → indexer → models; only search/frontends/server imports mcp; light imports stay light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "models": {"indexer", "search", "benchmarks"},
    "indexer": {"search", "benchmarks"},
    "search": {"benchmarks"},
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_packages_import_only_downwards(package: str) -> None:
    bad = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for mod in imported_modules(path):
            top = mod.split(".")[0]
            if top in FORBIDDEN[package]:
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
            if top == "mcp" and "server" not in path.relative_to(ROOT).parts:
                bad.append(f"{path.relative_to(ROOT)} imports mcp outside search/frontends/server")
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

"""``find_references``, ``find_symbol(include_body)``, ``related`` and ``--profile search`` through the
``mcp`` client against the in-memory server, on small fixtures in several languages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import SyncClient, build_index, connect, make_workspace, serve_args, server_env

from search.frontends.server.main import build

SOURCES = {
    "py/billing.py": (
        "import functools\n"
        "\n"
        "\n"
        "@functools.cache\n"
        "def compute_total(items):\n"
        "    return sum(items)\n"
        "\n"
        "\n"
        "class Invoice:\n"
        "    def amount(self):\n"
        "        return compute_total(self.items)\n"
    ),
    "py/report.py": "from py.billing import compute_total\n\n\ndef summary(rows):\n    return compute_total(rows) * 2\n",
    "go/shapes.go": (
        "package shapes\n\n"
        "func Area(w, h int) int {\n\treturn w * h\n}\n\n"
        "func Double(w, h int) int {\n\treturn 2 * Area(w, h)\n}\n"
    ),
    "ts/cart.ts": (
        "export function priceOf(item: { price: number }): number {\n  return item.price;\n}\n\n"
        "export class Cart {\n  total(items: { price: number }[]): number {\n"
        "    return items.map(priceOf).reduce((a, b) => a + b, 0);\n  }\n}\n"
    ),
    "rs/lib.rs": (
        "pub fn checksum(data: &[u8]) -> u32 {\n    data.iter().map(|b| *b as u32).sum()\n}\n\n"
        "pub struct Frame {\n    pub body: Vec<u8>,\n}\n\n"
        "impl Frame {\n    pub fn verify(&self) -> u32 {\n        checksum(&self.body)\n    }\n}\n"
    ),
    "notes.txt": "compute_total is described here, and compute_totals is another word.\n",
    "py/pool.py": (
        "def make_pool(size):\n    return [None] * size\n\n\n"
        "class Client:\n    def __init__(self, size):\n        self.pool = make_pool(size)\n"
    ),
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("refs")
    root = make_workspace(base, SOURCES)
    build_index(root, base / "index")
    return root, base / "index"


@pytest.fixture(scope="module")
def mcp(workspace: tuple[Path, Path]) -> Iterator[SyncClient]:
    root, index = workspace
    state, server = build(serve_args([root]), env=server_env(index))
    with connect(server) as client:
        yield client
    state.close()


def refs(client: SyncClient, name: str, **args: object) -> list[tuple[str, int, str, str | None]]:
    out = client.ok("find_references", {"name": name, **args})
    assert out["total"] == len(out["references"])
    return [(r["path"], r["line"], r["kind"], r["enclosing"]) for r in out["references"]]


def test_python_references_name_their_callers_and_the_definition(mcp: SyncClient) -> None:
    found = refs(mcp, "compute_total")
    assert found[0] == ("py/billing.py", 5, "definition", None)
    assert ("py/billing.py", 11, "usage", "Invoice.amount") in found
    assert ("py/report.py", 5, "usage", "summary") in found
    assert ("py/report.py", 1, "usage", None) in found  # the import, at module level
    assert ("notes.txt", 1, "usage", None) in found  # a whole word, once ("compute_totals" is not it)
    assert len([f for f in found if f[0] == "notes.txt"]) == 1


def test_go_typescript_and_rust_references(mcp: SyncClient) -> None:
    assert refs(mcp, "Area") == [
        ("go/shapes.go", 3, "definition", None),
        ("go/shapes.go", 8, "usage", "shapes.Double"),
    ]
    ts = refs(mcp, "priceOf")
    assert ts[0][:3] == ("ts/cart.ts", 1, "definition")
    assert ts[1][:3] == ("ts/cart.ts", 7, "usage") and ts[1][3] is not None and ts[1][3].endswith("total")
    rs = refs(mcp, "checksum", include_definitions=False)
    assert [(p, line, kind) for p, line, kind, _ in rs] == [("rs/lib.rs", 11, "usage")]
    assert rs[0][3] is not None and rs[0][3].endswith("verify")


def test_references_of_a_qualified_name_and_bad_names(mcp: SyncClient) -> None:
    assert refs(mcp, "shapes.Area")[0][:3] == ("go/shapes.go", 3, "definition")
    assert "not an identifier" in mcp.error("find_references", {"name": "a b("})
    none = mcp.ok("find_references", {"name": "NothingCallsThis"})
    assert none["references"] == [] and none["total"] == 0


def test_find_symbol_returns_the_body_with_its_decorator(mcp: SyncClient) -> None:
    plain = mcp.ok("find_symbol", {"name": "compute_total"})["symbols"][0]
    assert plain["body"] is None
    found = mcp.ok("find_symbol", {"name": "compute_total", "include_body": True})["symbols"][0]
    lines = found["body"].splitlines()
    assert lines[0].split("│")[0].strip() == "4" and "@functools.cache" in lines[0]
    assert "def compute_total(items):" in lines[1] and "return sum(items)" in lines[2]


def test_related_returns_other_chunks_than_the_anchor(mcp: SyncClient) -> None:
    out = mcp.ok("related", {"location": "py/billing.py:6", "limit": 3})
    assert out["anchor"].startswith("py/billing.py:")
    assert out["results"]
    anchor_start, anchor_end = (int(x) for x in out["anchor"].rsplit(":", 1)[1].split("-"))
    for r in out["results"]:
        assert r["path"] != "py/billing.py" or r["end_line"] < anchor_start or r["start_line"] > anchor_end
        assert r["distance"] >= 0 and "│" in r["snippet"]
    assert "PATH:LINE" in mcp.error("related", {"location": "py/billing.py"})
    assert "no indexed chunk" in mcp.error("related", {"location": "py/billing.py:999"})


def test_search_profile_offers_the_search_tools_alone(workspace: tuple[Path, Path]) -> None:
    root, index = workspace
    state, server = build(serve_args([root], profile="search"), env=server_env(index))
    with connect(server) as client:
        assert set(client.tools()) == {
            "search",
            "grep",
            "find_symbol",
            "find_references",
            "outline",
            "ast_query",
        }
        assert "disabled" in client.error("read_file", {"path": "py/billing.py"})
    state.close()


def test_search_snippets_show_the_matched_line_with_its_number(mcp: SyncClient) -> None:
    out = mcp.ok("search", {"query": '"compute_total(rows) * 2"', "mode": "text"})
    r = out["results"][0]
    assert r["path"] == "py/report.py" and r["snippet_line"] <= 5
    assert any(
        line.startswith("5│") and "compute_total(rows) * 2" in line for line in r["snippet"].splitlines()
    )
    symbol = mcp.ok("search", {"query": "compute_total", "mode": "symbol"})["results"][0]
    assert symbol["path"] == "py/billing.py"
    assert "def compute_total(items):" in symbol["snippet"] and "@functools.cache" in symbol["snippet"]


def test_tool_descriptions_are_flowing_text(mcp: SyncClient) -> None:
    for name, tool in mcp.tools().items():
        assert tool.description, name
        for paragraph in tool.description.split("\n\n"):
            assert "\n" not in paragraph and "  " not in paragraph, (name, paragraph[:80])


def test_a_line_that_sets_a_field_is_in_the_method_that_sets_it(mcp: SyncClient) -> None:
    # `self.pool = make_pool(size)`: the field ``Client.pool`` is defined there, and the call is in __init__
    assert ("py/pool.py", 7, "usage", "Client.__init__") in refs(mcp, "make_pool")
    assert refs(mcp, "pool")[0] == ("py/pool.py", 7, "definition", "Client.__init__")

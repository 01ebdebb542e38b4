"""The places a query names (``path:line``, a traceback's frames): read from the query, resolved to the
workspace's files, and put first by the text retriever and the ranking (real index, real rg)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from search import Query, Scope
from search.engine.query import MAX_LOCATIONS, analyse, locations
from search.engine.retrievers.located import resolve
from search.types import LOCATED

TRACE = """Traceback (most recent call last):
  File "/srv/app/shop/views.py", line 3, in checkout
    total = cart.total()
  File "/srv/app/shop/cart.py", line 6, in total
    return sum(line.price for line in self.lines)
TypeError: unsupported operand type(s)"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("shop/cart.py:6", [("shop/cart.py", 6)]),
        ("/home/ci/build/shop/cart.py:6:12: E501 line too long", [("/home/ci/build/shop/cart.py", 6)]),
        ("at Cart.total (lib/cart.js:847:12)", [("lib/cart.js", 847)]),
        ("at com.shop.Cart.total(Cart.java:42)", [("Cart.java", 42)]),
        ("   at Shop.Cart.Total() in C:\\src\\Shop\\Cart.cs:line 17", [("\\src\\Shop\\Cart.cs", 17)]),
        ("main.main()\n\t/tmp/build/main.go:12 +0x1d", [("/tmp/build/main.go", 12)]),
        ("file:///home/u/app/index.js:10:5", [("/home/u/app/index.js", 10)]),
        (TRACE, [("/srv/app/shop/cart.py", 6), ("/srv/app/shop/views.py", 3)]),  # innermost first
        ("see http://example.com:8080/docs.html:3 and version 3.12:1", []),  # a link, a version
        ("how does the cart total its lines", []),
        ("shop/cart.py:0", []),
    ],
)
def test_a_query_names_the_places_a_trace_or_a_compiler_prints(text: str, expected: list) -> None:
    assert list(locations(text)) == expected
    assert analyse(text).locations == tuple(expected)


def test_at_most_so_many_places_are_read_from_one_query_in_linear_time() -> None:
    many = " ".join(f"a{i}.py:{i + 1}" for i in range(MAX_LOCATIONS + 5))
    assert len(locations(many)) == MAX_LOCATIONS
    # A query of 2,000 characters (the engine's limit) that almost names a path everywhere: every ":N"
    # reads back at most 400 characters (the path's tail), and at most 64 of them are read.
    assert locations("a." * 1000) == () and analyse("a." * 1000).shape == "natural"  # links looked for too
    assert locations("x:1 " * 500) == ()
    assert locations("a" * 1990 + ".py:1") == (("a" * 397 + ".py", 1),)
    assert locations("x:1 " * 64 + "cart.py:3") == ()  # past the 64 read
    assert locations("x:1 " * 63 + "cart.py:3") == (("cart.py", 3),)


def test_a_path_from_another_machine_resolves_to_the_one_file_it_ends_like() -> None:
    files = [
        "shop/cart.py",
        "shop/tests/cart.py",
        "admin/cart.py",
        "lib/Cart.java",
        "legacy/Cart.java",
        "README.md",
    ]

    def named(name: str) -> list[str]:
        return [f for f in files if f.rsplit("/", 1)[-1] == name]

    assert resolve("/srv/app/shop/cart.py", named) == "shop/cart.py"
    assert resolve("shop\\tests\\cart.py", named) == "shop/tests/cart.py"
    assert resolve("./admin/cart.py", named) == "admin/cart.py"
    assert resolve("cart.py", named) is None  # three files of that name: none is meant more than another
    assert resolve("Cart.java", named) is None
    assert resolve("/other/place/orders.py", named) is None
    assert resolve("README.md", named) == "README.md"
    files.append("cart.py")  # at the root: the file "cart.py" names as it is, and the one a path ends with
    assert resolve("cart.py", named) == "cart.py"
    assert resolve("/srv/build/x/cart.py", named) == "cart.py"
    assert resolve("/srv/build/shop/cart.py", named) == "shop/cart.py"
    assert resolve("/", named) is None


FILES = {
    "shop/views.py": "def checkout(cart):\n    log.info('checkout')\n    total = cart.total()\n    return total\n",
    "shop/cart.py": "class Cart:\n    def __init__(self):\n        self.lines = []\n\n"
    "    def total(self):\n        return sum(line.price for line in self.lines)\n",
    "shop/tests/test_cart.py": "def test_total():\n    assert Cart().total() == 0\n",
    "docs/errors.md": "# Errors\n\nA TypeError in the cart total: see shop/cart.py and the total of the lines.\n",
    "__init__.py": "from shop.cart import Cart\n",
    "shop/__init__.py": "",  # empty: no chunk, yet a file a trace can name
}


def test_a_trace_puts_the_line_it_names_first_innermost_frame_first(
    indexed_engine: Callable[..., object],
) -> None:
    engine = indexed_engine(FILES)
    text = engine.rankings(TRACE)["text"]  # type: ignore[attr-defined]
    assert [(h.span.path, h.loose) for h in text[:2]] == [
        ("shop/cart.py", LOCATED),
        ("shop/views.py", LOCATED),
    ]
    results = engine.search(Query(TRACE, explain=True)).results  # type: ignore[attr-defined]
    assert [(r.path, r.start_line <= 6 <= r.end_line) for r in results[:1]] == [("shop/cart.py", True)]
    assert results[1].path == "shop/views.py"
    assert results[0].explain is not None
    assert {"rule": "phrase", "effect": "first (the line it names)"} in results[0].explain["rules"]
    one = engine.search(Query("shop/cart.py:6")).results  # type: ignore[attr-defined]
    assert one[0].path == "shop/cart.py" and one[0].start_line <= 6 <= one[0].end_line
    empty = engine.rankings("shop/__init__.py:1")["text"]  # type: ignore[attr-defined]
    assert (empty[0].span.path, empty[0].loose) == ("shop/__init__.py", LOCATED)  # not the root's


def test_a_place_outside_the_scope_or_the_workspace_is_not_named(
    indexed_engine: Callable[..., object],
) -> None:
    engine = indexed_engine(FILES)
    scoped = engine.search(Query("shop/cart.py:6", explain=True), Scope(kind="dir", path="docs")).results  # type: ignore[attr-defined]
    assert scoped and all(r.path.startswith("docs/") for r in scoped)
    assert not any(
        {"rule": "phrase", "effect": "first (the line it names)"} in r.explain["rules"] for r in scoped
    )
    elsewhere = engine.rankings("vendor/other/cart.go:6 panics")["text"]  # type: ignore[attr-defined]
    assert not any(h.loose == LOCATED and h.exact for h in elsewhere)


def test_every_frame_of_a_long_trace_in_the_workspace_comes_first(
    indexed_engine: Callable[..., object],
) -> None:
    """Seven frames name seven files of the workspace: more places than a rare phrase has, yet each is
    asked for; they come first, the innermost first."""
    files = {f"app/step{i}.py": f"def step{i}(x):\n    return step{i + 1}(x)\n" for i in range(7)}
    files["app/other.py"] = "def step_other(x):\n    return step0(x)  # step step step\n"
    engine = indexed_engine(files)
    frames = "".join(
        f'  File "/srv/app/step{i}.py", line 2, in step{i}\n    return step{i + 1}(x)\n' for i in range(7)
    )
    trace = (
        "Traceback (most recent call last):\n" + frames + "RecursionError: maximum recursion depth exceeded"
    )
    results = engine.search(Query(trace, limit=10)).results  # type: ignore[attr-defined]
    assert [r.path for r in results[:7]] == [f"app/step{i}.py" for i in reversed(range(7))]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("cart.py", True),
        ("shop/cart.py", True),
        ("src\\Shop\\Cart.cs", True),
        ("Makefile", True),
        ("package.json", True),
        ("vite.config.ts", True),
        ("console.log", False),  # a call: no extension the indexer knows
        ("errgroup.Go", False),  # a method: extensions are matched as written
        ("os.path", False),
        (".gitignore", False),
        ("cart.py total", False),  # a file and more: a sentence
    ],
)
def test_a_query_that_is_one_file_name_names_that_file(text: str, named: bool) -> None:
    query = analyse(text)
    assert (query.locations == ((text, 1),)) == named
    if named:
        assert (query.shape, query.identifiers) == ("natural", ())  # not ``py`` in ``cart``


def test_a_file_name_puts_that_file_first(indexed_engine: Callable[..., object]) -> None:
    engine = indexed_engine(FILES)
    for text in ("cart.py", "shop/cart.py", "/srv/app/shop/cart.py"):
        top = engine.search(Query(text, explain=True)).results[0]  # type: ignore[attr-defined]
        assert (top.path, top.start_line) == ("shop/cart.py", 1), text
        assert {"rule": "phrase", "effect": "first (the line it names)"} in top.explain["rules"]
    assert engine.search(Query("__init__.py")).results[0].path == "__init__.py"  # type: ignore[attr-defined]
    missing = engine.search(Query("basket.py", explain=True)).results  # type: ignore[attr-defined]
    assert not any(
        {"rule": "phrase", "effect": "first (the line it names)"} in r.explain["rules"] for r in missing
    )

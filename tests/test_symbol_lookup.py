"""The in-memory symbol table's ordering of equally good definitions."""

from __future__ import annotations

from indexer.lookup import SymbolRow, SymbolTable


def _row(path: str, name: str = "Request") -> SymbolRow:
    return SymbolRow(name, name, "class", path, "php", 10, 40, f"class {name}")


def test_equally_good_definitions_put_the_shallower_path_first() -> None:
    table = SymbolTable(
        [
            _row("src/Http/Client/Request.php"),
            _row("src/Support/Facades/Request.php"),
            _row("src/Http/Request.php"),
            _row("src/Http/RequestFactory.php", "RequestFactory"),
        ]
    )
    found = [m.symbol.path for m in table.lookup("Request", fuzzy=False, strict=True)]
    # alphabetical order alone would put Http/Client/ first; the canonical class is the shallow one
    assert found == ["src/Http/Request.php", "src/Http/Client/Request.php", "src/Support/Facades/Request.php"]

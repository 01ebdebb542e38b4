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


def _method(path: str, qualified: str) -> SymbolRow:
    name = qualified.rsplit(".", 1)[-1]
    return SymbolRow(name, qualified, "method", path, "javascript", 10, 40, f"{name}()")


def test_a_qualified_name_finds_its_definition_before_others_of_the_name() -> None:
    table = SymbolTable(
        [
            _method("adapters/http.js", "http2Transport.request"),
            _method("core/Axios.js", "Axios.request"),
            _method("rich/console.py", "Console.print"),
            SymbolRow("print", "print", "function", "rich/__init__.py", "python", 5, 9, "def print()"),
        ]
    )

    def first(query: str) -> tuple[str, str]:
        match = table.lookup(query, fuzzy=False, strict=True)[0]
        return match.symbol.qualified_name, match.match

    # JavaScript's prototype is how a class's method is assigned, not part of its name
    assert first("Axios.prototype.request") == ("Axios.request", "qualified")
    # an instance's attribute path: of the ``print``s, the one of a ``Console`` (any case)
    assert first("self.console.print") == ("Console.print", "exact")
    assert first("print") == ("print", "exact")  # unqualified: the function before the method


def test_a_member_is_found_by_its_name_as_written_or_qualified_only() -> None:
    field = SymbolRow(
        "max_redirects", "Client.max_redirects", "field", "client.py", "python", 6, 6, "self.x = x"
    )
    table = SymbolTable(
        [field, SymbolRow("MaxRedirects", "MaxRedirects", "class", "errors.py", "python", 1, 3, "")]
    )

    def kinds(query: str) -> list[tuple[str, str]]:
        return [(m.symbol.qualified_name, m.match) for m in table.lookup(query)]

    assert set(kinds("max_redirects")) == {("Client.max_redirects", "exact"), ("MaxRedirects", "normalised")}
    assert ("Client.max_redirects", "qualified") in kinds("Client.max_redirects")
    assert kinds("MAX_REDIRECTS") == [("MaxRedirects", "normalised")]  # another case: not the field
    assert [q for q, _ in kinds("max_redir")] == ["MaxRedirects"]  # a prefix: not the field either


def test_a_field_as_written_goes_before_a_method_matched_with_other_separators() -> None:
    """``_getitem = __getitem__`` in a class body: ``_getitem`` names the alias, which the symbol
    index keeps as a field, before the method that is ``getitem`` only once its underscores are gone."""
    table = SymbolTable(
        [
            SymbolRow("__getitem__", "SortedList.__getitem__", "method", "sl.py", "python", 816, 902, ""),
            SymbolRow("_getitem", "SortedList._getitem", "field", "sl.py", "python", 904, 904, ""),
        ]
    )
    found = [(m.symbol.name, m.match) for m in table.lookup("_getitem")]
    assert found == [("_getitem", "exact"), ("__getitem__", "normalised")]
    assert [m.symbol.name for m in table.lookup("__getitem__")] == ["__getitem__"]  # a field: as written only


def test_the_functions_defined_on_a_files_lines_in_line_order() -> None:
    def row(name: str, kind: str, start: int, path: str = "types.py") -> SymbolRow:
        return SymbolRow(name.rsplit(".", 1)[-1], name, kind, path, "python", start, start + 2, "")

    table = SymbolTable(
        [
            row("ParamType", "class", 40),
            row("ParamType.get_metavar", "method", 90),
            row("ParamType.__call__", "method", 83),
            row("ParamType.name", "field", 85),  # data: not a function
            row("ParamType.fail", "method", 120),
            row("convert", "function", 85, path="other.py"),
        ]
    )
    assert table.functions_within("types.py", 83, 119) == ["ParamType.__call__", "ParamType.get_metavar"]
    assert table.functions_within("types.py", 84, 89) == []  # a definition counts by its first line
    assert table.functions_within("types.py", 1, 200) == [
        "ParamType.__call__",
        "ParamType.get_metavar",
        "ParamType.fail",
    ]
    assert table.functions_within("missing.py", 1, 200) == []


def test_the_functions_a_sentences_words_spell_the_names_of() -> None:
    """``jinja_env`` for "The Jinja environment used to load templates.": every part of a name of two
    parts or more among the words, as written or stemmed; the longest names first, then by path and
    line; classes, fields and one-part names are not spelled names."""

    def row(name: str, kind: str = "function", path: str = "app.py", line: int = 1) -> SymbolRow:
        return SymbolRow(name, f"App.{name}", kind, path, "python", line, line + 3, f"def {name}()")

    table = SymbolTable(
        [
            row("jinja_env", "method", "sansio/app.py", 470),
            row("load_templates", "function", "templating.py", 5),
            row("create_jinja_environment", "method", "app.py", 385),  # "create" is not among the words
            row("JinjaEnv", "class", "env.py"),  # a class: not a function the sentence documents
            row("jinja_env_name", "field", "app.py", 9),  # a field
            row("load", "function", "loader.py"),  # one part
            row("loadTemplate", "function", "b.js", 2),  # "template" stems as "templates" does
            row("use_jinja_templates_env", "function", "z.py"),  # four parts, all spelled
        ]
    )
    words = frozenset({"the", "jinja", "environment", "env", "environ", "used", "use", "to", "load"}) | {
        "templates",
        "templat",
    }
    found = [(r.name, r.path) for r in table.spelled(words, limit=10)]
    assert found == [
        ("use_jinja_templates_env", "z.py"),
        ("loadTemplate", "b.js"),
        ("jinja_env", "sansio/app.py"),
        ("load_templates", "templating.py"),
    ]
    assert [r.name for r in table.spelled(words, limit=2)] == ["use_jinja_templates_env", "loadTemplate"]
    # a scope's paths only
    kept = table.spelled(words, path_ok=lambda p: p.startswith("sansio/"), limit=10)
    assert [r.name for r in kept] == ["jinja_env"]
    assert table.spelled(frozenset({"jinja"}), limit=10) == []


def test_the_methods_of_the_object_a_sentence_calls_this_are_spelled_first() -> None:
    """aho-corasick's "Returns the length of this match." documents ``Match.len``: a one-part name,
    which no sentence spells alone, but the class the sentence calls "this match" and the words
    name it together; such methods come before the longer names spelled (``match_len``), and a
    method of another class (``Span.len``) or a field of the class is not one of them."""

    def row(qualified: str, kind: str = "method", path: str = "search.rs", line: int = 1) -> SymbolRow:
        name = qualified.rsplit(".", 1)[-1]
        return SymbolRow(name, qualified, kind, path, "rust", line, line + 3, f"fn {name}()")

    table = SymbolTable(
        [
            row("DFA.match_len", path="dfa.rs", line=274),
            row("Span.len", line=697),
            row("Match.len", line=959),
            row("Match.start", line=970),  # "start" is not among the words
            row("Match.length", "field", line=940),  # a field
        ]
    )
    words = frozenset({"returns", "return", "the", "length", "len", "get", "of", "this", "match"})
    assert [r.qualified_name for r in table.spelled(words, limit=10)] == ["DFA.match_len"]
    found = table.spelled(words, owners=frozenset({"match"}), limit=10)
    assert [r.qualified_name for r in found] == ["Match.len", "DFA.match_len"]
    assert [r.qualified_name for r in table.spelled(words, owners=frozenset({"match"}), limit=1)] == [
        "Match.len"
    ]
    assert [r.qualified_name for r in table.spelled(words, owners=frozenset({"span"}), limit=10)] == [
        "Span.len",
        "DFA.match_len",
    ]

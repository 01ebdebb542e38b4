"""The words code abbreviates in its names, and the short forms it writes for them.

"Initialize a WebSocket client." documents ``initAsClient``, "Returns the local address"
``local_addr``, "Read the configuration directory" ``read_config_dir``. The table holds forms common
across languages and projects, each short form standing for one word only. Two readers share it: the
lexical pipeline, where a query's word also matches its short forms as one term
(:func:`short_forms`, :meth:`indexer.lexical.LexicalIndex.search`, and the text retriever's BM25 of
live files), and the ranking's name-words rule (``search.engine.ranking``), where a sentence's word
spells the short part of a function's name.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "initialize": ("init",),
    "initialise": ("init",),
    "initialization": ("init",),
    "configuration": ("config", "conf", "cfg"),
    "configure": ("config", "conf"),
    "argument": ("arg",),
    "arguments": ("args",),
    "parameter": ("param",),
    "parameters": ("params",),
    "message": ("msg",),
    "error": ("err",),
    "context": ("ctx",),
    "request": ("req",),
    "response": ("res", "resp"),
    "function": ("fn", "func"),
    "string": ("str",),
    "number": ("num",),
    "length": ("len",),
    "buffer": ("buf",),
    "option": ("opt",),
    "options": ("opts",),
    "environment": ("env",),
    "directory": ("dir",),
    "source": ("src",),
    "destination": ("dst", "dest"),
    "temporary": ("tmp", "temp"),
    "previous": ("prev",),
    "current": ("cur", "curr"),
    "index": ("idx",),
    "implementation": ("impl",),
    "repository": ("repo",),
    "database": ("db",),
    "callback": ("cb",),
    "value": ("val",),
    "variable": ("var",),
    "attribute": ("attr",),
    "attributes": ("attrs",),
    "information": ("info",),
    "specification": ("spec",),
    "utility": ("util",),
    "utilities": ("utils",),
    "package": ("pkg",),
    "process": ("proc",),
    "connection": ("conn",),
    "address": ("addr",),
    "allocate": ("alloc",),
    "command": ("cmd",),
    "description": ("desc",),
    "document": ("doc",),
    "reference": ("ref",),
    "sequence": ("seq",),
    "maximum": ("max",),
    "minimum": ("min",),
    "element": ("elem",),
    "object": ("obj",),
    "extension": ("ext",),
    "evaluate": ("eval",),
    "execute": ("exec",),
    "iterator": ("iter",),
    "iterate": ("iter",),
    "header": ("hdr",),
    "identifier": ("id",),
    "format": ("fmt",),
    "manager": ("mgr",),
    "event": ("evt",),
    "statistics": ("stats",),
    "synchronize": ("sync",),
    "asynchronous": ("async",),
    # a parser's, a compiler's and an exception handler's: ``is_expr``, ``last_stmt``, ``exc_info``,
    # ``sep``, ``decl``
    "expression": ("expr",),
    "expressions": ("exprs",),
    "statement": ("stmt",),
    "statements": ("stmts",),
    "exception": ("exc",),
    "separator": ("sep",),
    "declaration": ("decl",),
    # positions, pointers, grids and the like: ``get_pos``, ``as_ptr``, ``num_cols``, ``orig_url``
    # (not a short form that is also a type or a keyword everywhere, such as ``int``, ``bool`` or
    # ``char``: as one term with it, the word would weigh as little as the type does)
    "position": ("pos",),
    "pointer": ("ptr",),
    "column": ("col",),
    "columns": ("cols",),
    "original": ("orig",),
    "average": ("avg",),
    "template": ("tmpl", "tpl"),
    "token": ("tok",),
    "transaction": ("txn",),
    "image": ("img",),
    "button": ("btn",),
    "count": ("cnt",),
    "milliseconds": ("ms",),
    "certificate": ("cert",),
    "algorithm": ("algo",),
    "frequency": ("freq",),
    "coordinate": ("coord",),
    "coordinates": ("coords",),
    "instance": ("inst",),
    "administrator": ("admin",),
    "password": ("passwd",),
}

# Short forms that only names write for a word, the name-words rule's alone: each is also a keyword, a
# type or a builtin that code writes everywhere (Rust's ``mut``, Python's ``repr`` and ``dict``), so
# the lexical pipeline keeps it a term apart from the word, which would otherwise weigh as little as
# it does. "Returns a mutable reference to the value." spells ``get_mut``, "Return a string
# representation of the interval." ``__repr__``.
NAME_FORMS: dict[str, tuple[str, ...]] = {
    "mutable": ("mut",),
    "mutably": ("mut",),
    "representation": ("repr",),
    "character": ("char",),
    "characters": ("chars",),
    "dictionary": ("dict",),
    "equal": ("eq",),
    "equals": ("eq",),
    "equality": ("eq",),
    "random": ("rand",),
    "generate": ("gen",),
    "generates": ("gen",),
    "generator": ("gen",),
    "automatic": ("auto",),
    "automatically": ("auto",),
    "difference": ("diff",),
    "warning": ("warn",),
    "authentication": ("auth",),
    "hexadecimal": ("hex",),
    "increment": ("inc", "incr"),
    "increments": ("inc", "incr"),
    "decrement": ("dec", "decr"),
    "decrements": ("dec", "decr"),
    "delete": ("del",),
    "deletes": ("del",),
    "deleted": ("del",),
    # the names of arithmetic's and comparison's operators and builtins (Rust's ``Mul::mul`` and
    # ``Ord::cmp``, Python's ``abs``): "Multiplies two values." documents a ``mul``
    "absolute": ("abs",),
    "multiply": ("mul",),
    "multiplies": ("mul",),
    "multiplication": ("mul",),
    "subtract": ("sub",),
    "subtracts": ("sub",),
    "subtraction": ("sub",),
    "divide": ("div",),
    "divides": ("div",),
    "division": ("div",),
    "remainder": ("rem",),
    "negate": ("neg",),
    "negates": ("neg",),
    "negation": ("neg",),
    "compare": ("cmp",),
    "compares": ("cmp",),
    "comparison": ("cmp",),
    "concatenate": ("concat",),
    "concatenates": ("concat",),
    "concatenation": ("concat",),
    "calculate": ("calc",),
    "calculates": ("calc",),
    "percentage": ("percent", "pct"),
    "percentages": ("percent", "pct"),
    "parallel": ("par",),
    # a case named by its side: Python's ``str.upper``, Rust's ``to_lowercase``'s ``lower``
    "uppercase": ("upper",),
    "lowercase": ("lower",),
    "uppercased": ("upper",),
    "lowercased": ("lower",),
}


def short_forms(tokens: Iterable[str]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """For each of a query's BM25 ``tokens`` (stemmed words, :func:`indexer.lexical.code_tokens`) that
    stands for a word code abbreviates, the tokens of its short forms: ``configur`` (configuration,
    configure) → ``cfg``, ``conf``, ``config``. A short form that stems to the word's own token
    (iterate → ``iter``) adds nothing and is left out. Only this direction: a query that writes
    ``init`` asks for ``init``."""
    table = _by_token()
    return tuple((t, table[t]) for t in dict.fromkeys(tokens) if t in table)


@lru_cache(maxsize=1)
def _by_token() -> dict[str, tuple[str, ...]]:
    from indexer.lexical import stem_words

    found: dict[str, set[str]] = {}
    for word, short in ABBREVIATIONS.items():
        found.setdefault(stem_words([word])[0], set()).update(stem_words(list(short)))
    return {token: tuple(sorted(forms - {token})) for token, forms in found.items() if forms - {token}}

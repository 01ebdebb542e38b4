"""How the symbol index compares names: pure string functions, no heavy import, so that the query
analysis of a text-only search can use them too."""

from __future__ import annotations

import re

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_NOT_NAME = re.compile(r"[^0-9a-z]")
_QUALIFIERS = re.compile(r"::|#|->|/|(?<=\w):(?=[A-Za-z_])")  # … and Lua's ``Picker:find``
# a qualified name's parts, as a query writes them: ``pkg.Type``, ``ns::f``, ``$this->db``, ``Type#m``, ``Picker:find``
QUALIFIER_SPLIT = re.compile(r"\.|::|#|->|/|(?<=\w):(?=[A-Za-z_])")


def normalise(name: str) -> str:
    """Case- and separator-insensitive form: ``get_HTTP_client`` and ``getHttpClient`` → ``gethttpclient``."""
    return _NOT_NAME.sub("", name.lower())


def name_tokens(name: str) -> list[str]:
    """``parseHTTPResponse_v2`` → ``['parse', 'http', 'response', 'v', '2']``."""
    return [t.lower() for t in _CAMEL.findall(name)]


def dotted(name: str) -> str:
    """A qualified name as the symbol index keeps it: ``ns::Type->m``, ``Type#m``, ``pkg/Type`` and Lua's
    ``Picker:find`` joined by dots, and ``Type.prototype.m`` as the method ``Type.m``."""
    return _QUALIFIERS.sub(".", name).replace(".prototype.", ".")

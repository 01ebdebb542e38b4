"""What a declaration file's doc comment documents: the code it declares, found in the symbol index.

A JavaScript package often ships hand-written TypeScript declarations (``index.d.ts``) that repeat its
JSDoc word for word. A sentence pasted from such a comment is found verbatim in both files, and the
ranking puts the code first (:mod:`search.engine.ranking`, the phrase rule). Where the code's own
comment differs or is gone, the sentence is found in the declaration file alone, though it documents
the function the declaration names: ``allowUnknownOption(allowUnknown?: boolean): this;`` right under
the comment. :func:`declared_definitions` reads that name and finds its definition in the code (the
same owner's, ``Command.allowUnknownOption``, or the only one of that name), so that the text retriever
can give it as a place of the sentence beside the declaration.

Only declarations that follow their comment are read (``.d.ts``, ``.d.mts``, ``.d.cts``); a ``.pyi``
stub's docstring follows its ``def`` and is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from indexer import read_beneath
from search.engine.query import collapsed
from search.workspace.ripgrep import RgLine

if TYPE_CHECKING:
    from indexer import Index, SymbolRow

DECLARATION_FILE = re.compile(r"\.d\.[cm]?ts$")
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_PLACES = 4  # declarations read per search: a sentence found in more is no one function's doc
_LOOKAHEAD = 40  # lines from the sentence to the end of its comment
_LOOKBACK = 200  # lines from the sentence up to the start of its block comment
_COMMENT = re.compile(r"\s*(?:/\*|\*|//|$)")  # a line of a comment, or a blank one
_MODIFIERS = (
    "export|declare|default|public|private|protected|static|readonly|abstract|async|override|get|set"
    "|function|class|interface|const|let|var|type|enum|namespace|module"
)
_DECLARES = re.compile(rf"\s*(?:(?:{_MODIFIERS})\s+)*([A-Za-z_$][\w$]*)\s*(?:[(<:?!=;{{]|$)")
_OWNER_KINDS = frozenset({"class", "interface", "struct", "trait", "module", "namespace"})
_CODE_KINDS = frozenset({"function", "method", "class"})


def declared_definitions(
    root: str, index: Index, phrase: str, matches: Iterable[RgLine], *, limit: int = 2
) -> dict[tuple[str, int], list[SymbolRow]]:
    """For each line of a declaration file that holds ``phrase`` whole (whitespace collapsed, any
    case) inside a doc comment, the definitions in code of the name declared under that comment:
    ``{(path, line): [rows]}``, at most ``limit`` rows each, empty where none is certain (no name
    read, no definition, several of that name and none of the same owner)."""
    wanted = collapsed(phrase.lower())
    places = sorted(
        {
            (m.path, m.line)
            for m in matches
            if DECLARATION_FILE.search(m.path) and any(collapsed(s.lower()) == wanted for s in m.submatches)
        }
    )
    out: dict[tuple[str, int], list[SymbolRow]] = {}
    if not places or len(places) > MAX_PLACES:
        return out
    lines_of: dict[str, list[str]] = {}
    for path, line in places:
        if path not in lines_of:
            try:  # no symlink followed, no FIFO opened (indexer.beneath)
                data = read_beneath(root, path, MAX_FILE_BYTES + 1)
            except OSError:
                data = b""
            lines_of[path] = (
                [] if len(data) > MAX_FILE_BYTES else data.decode("utf-8", "replace").splitlines()
            )
        name = declared_name(lines_of[path], line)
        if name is None:
            continue
        owner = _owner(index.symbols_in_file(path), line)
        out[(path, line)] = _definitions(index, name, owner)[:limit]
    return out


def declared_name(lines: list[str], line: int) -> str | None:
    """The name declared right under the comment that holds 1-based ``line`` of ``lines``; ``None``
    when the line is not in a comment or nothing is declared within a few lines of it.

    A block comment's lines need no leading ``*``: many packages write their JSDoc as plain lines
    between ``/**`` and ``*/`` (p-queue's "Put queue execution on hold." over ``pause(): void;``).
    Such a comment ends at its ``*/``, and what its lines say (an example's ``queue.add(…)``) is no
    declaration."""
    if not 0 < line <= len(lines):
        return None
    at = line - 1
    if _in_block(lines, at) or lines[at].lstrip().startswith("/*"):
        end = next((i for i in range(at, min(len(lines), at + _LOOKAHEAD)) if "*/" in lines[i]), None)
        if end is None:
            return None
        rest = lines[end][lines[end].rindex("*/") + 2 :]
        if rest.strip():  # `/** Whether it is paused. */ readonly isPaused: boolean;`
            found = _DECLARES.match(rest)
            return found.group(1) if found is not None else None
        after = end + 1
    elif _COMMENT.match(lines[at]):
        after = at + 1
    else:
        return None
    for text in lines[after : after + _LOOKAHEAD]:
        if _COMMENT.match(text):
            continue
        found = _DECLARES.match(text)
        return found.group(1) if found is not None else None
    return None


def _in_block(lines: list[str], at: int) -> bool:
    """Whether a block comment opened above line index ``at`` is still open where it starts: the
    nearest line above that opens or closes one opens it (its last ``/*`` after its last ``*/``)."""
    for text in reversed(lines[max(0, at - _LOOKBACK) : at]):
        opened, closed = text.rfind("/*"), text.rfind("*/")
        if opened >= 0 or closed >= 0:
            return opened > closed
    return False


def _owner(symbols: list[SymbolRow], line: int) -> str | None:
    """The innermost class, interface or namespace of a declaration file around ``line``."""
    around = [s for s in symbols if s.kind in _OWNER_KINDS and s.start_line <= line <= s.end_line]
    if not around:
        return None
    return max(around, key=lambda s: s.start_line).name


def _definitions(index: Index, name: str, owner: str | None) -> list[SymbolRow]:
    (matches,) = index.lookup_many([(name, True)], limit=50)
    rows = [
        m.symbol
        for m in matches
        if m.symbol.name == name
        and m.symbol.kind in _CODE_KINDS
        and not DECLARATION_FILE.search(m.symbol.path)
    ]
    if owner is not None:
        owned = [r for r in rows if r.qualified_name.rsplit(".", 1)[0].rsplit(".", 1)[-1] == owner]
        if owned:
            return owned
    return rows if len(rows) == 1 else []

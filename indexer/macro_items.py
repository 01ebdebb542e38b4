"""Definitions written inside a Rust macro call at item level: ``cfg_rt! { pub fn spawn_blocking … }``.

A grammar parses a macro's argument as a token tree, not as items, so every function, struct or impl
inside ``cfg_rt! { … }``, ``cfg_if! { … }`` or ``cfg_net! { … }`` would be missing from the symbol
index and from the chunker's definitions. tokio writes about a third of its files so: its public
``tokio::task::spawn_blocking`` and ``block_in_place`` are both inside ``cfg_rt_multi_thread!``.

:func:`unwrapped` blanks the wrapper of each such call (``name! {`` and its closing ``}``) with spaces,
keeping every other byte and every line where it was, and parses the result: the body's items are then
items of the file (or of the ``impl`` that holds the call), at their own lines, with their doc
comments. Calls nested in those bodies are unwrapped the same way, up to :data:`MAX_DEPTH` levels.
Only calls whose argument is in braces and that stand where an item may (directly in a file, a module,
an ``impl`` or a ``trait``) are read; ``vec![…]`` or ``println!(…)`` in a function body are expressions.
A body that is not items (a DSL) parses with errors and yields what tree-sitter recovers.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator

import tree_sitter

from indexer.parsing import parse

__all__ = ["MACRO_ITEM_LANGUAGES", "MAX_DEPTH", "Rows", "unwrapped"]

MACRO_ITEM_LANGUAGES = frozenset({"rust"})
MAX_DEPTH = 3  # levels of macro calls inside macro calls
_CONTAINERS = frozenset({"impl_item", "trait_item", "mod_item"})  # items whose body holds items
_BLANK = 0x20
_NEWLINE = 0x0A


class Rows:
    """The 0-based rows of the bodies read: ranges that nest or follow one another, merged."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for first, last in sorted(ranges):
            if merged and first <= merged[-1][1] + 1:
                merged[-1][1] = max(merged[-1][1], last)
            else:
                merged.append([first, last])
        self._firsts = [m[0] for m in merged]
        self._lasts = [m[1] for m in merged]

    def holds(self, row: int) -> bool:
        i = bisect.bisect_right(self._firsts, row) - 1
        return i >= 0 and row <= self._lasts[i]


def unwrapped(
    tree: tree_sitter.Tree, source: bytes, language: str
) -> tuple[tree_sitter.Tree, bytes, Rows] | None:
    """``(tree, source, bodies)`` of ``source`` with its item-level macro calls unwrapped, where
    ``bodies`` holds the rows of the bodies read; ``None`` where there is none."""
    if language not in MACRO_ITEM_LANGUAGES:
        return None
    text = bytearray(source)
    bodies: list[tuple[int, int]] = []
    for depth in range(MAX_DEPTH):
        calls = list(_item_calls(tree.root_node))
        if not calls:
            break
        edited = tree.copy() if depth == 0 else tree  # the caller's tree is left as it was
        for opening, closing, call in calls:
            _blank(text, edited, call, opening)
            _blank(text, edited, closing, closing)
            bodies.append((opening.end_point.row, closing.start_point.row))
        tree = parse(bytes(text), language, edited)  # reparses only around the blanked wrappers
    if not bodies:
        return None
    return tree, bytes(text), Rows(bodies)


def _item_calls(
    root: tree_sitter.Node,
) -> Iterator[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]]:
    """(opening brace, closing brace, call) of each macro call in braces where an item may stand. A
    loop, not a recursion: modules nested ten thousand deep are a file like any other."""
    bodies = [root]
    while bodies:
        for child in bodies.pop().named_children:
            if child.type == "macro_invocation":
                tokens = child.named_children[-1] if child.named_children else None
                if tokens is not None and tokens.type == "token_tree" and tokens.child_count >= 2:
                    opening, closing = tokens.children[0], tokens.children[-1]
                    if opening.type == "{" and closing.type == "}" and not closing.is_missing:
                        yield opening, closing, child
            elif child.type in _CONTAINERS:
                body = child.child_by_field_name("body")
                if body is not None:
                    bodies.append(body)


def _blank(text: bytearray, tree: tree_sitter.Tree, first: tree_sitter.Node, last: tree_sitter.Node) -> None:
    """Spaces over ``text`` from ``first`` to the end of ``last``, its line breaks kept (so every row and
    byte stays where it was), and ``tree`` told of the change."""
    start, end = first.start_byte, last.end_byte
    for i in range(start, end):
        if text[i] != _NEWLINE:
            text[i] = _BLANK
    tree.edit(start, end, end, first.start_point, last.end_point, last.end_point)

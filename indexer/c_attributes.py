"""Attribute-like macros in C and C++ declarations, read past as a compiler would after expanding them.

C++ code (and C, see :data:`ATTRIBUTE_LANGUAGES`) writes attributes, export markers and namespace openers as macros that a grammar
cannot expand: ``static __always_inline __alloc_size(1) void *kmalloc(…)`` (Linux), ``FMT_API void
vprint(…)``, ``UNITTEST CURLcode …`` (curl), ``int Init(…) REDISMODULE_ATTR;`` (redis), a line that
holds only ``ABSL_NAMESPACE_BEGIN`` or ``NLOHMANN_JSON_NAMESPACE_BEGIN``. tree-sitter reads such a word
as a type or a call and recovers with ``ERROR`` nodes, and what it recovers is often wrong for the rest
of the file: Linux's ``kmalloc`` was no definition at all, and in abseil, nlohmann-json and fmt the
namespace opener put every class after it at the wrong level (its methods read as free functions).

:func:`read_past` finds those macros by their shape and parses the file again with them blanked
(spaces over their bytes, every other byte and line where it was), keeping the new tree only where it
holds fewer syntax errors than the first. Only a file that parsed with errors is read again. A macro
here is a word of capitals of three characters or more (``FMT_API``, ``INLINE``), or one that opens
with two underscores (``__init``, ``__alloc_size``), reserved to the implementation in both languages
and so, in a project's code, a macro's name. It is blanked, with its parenthesised arguments:

* among the words that lead a declaration (``static __must_check int f(…)``, ``constexpr FMT_INLINE
  value(T x)``, a constructor), unless it is the only word left to be a variable's type (``static
  HANDLE h;`` keeps ``HANDLE``), and never after ``struct``, ``enum``, ``typedef`` and their kin;
* after a declarator's parameter list, before its ``;`` or ``{`` (``… REDISMODULE_ATTR;``,
  ``… const ABSL_LOCKS_EXCLUDED(mu_);``);
* alone on a line at column 0 and with an underscore (``FMT_BEGIN_NAMESPACE``), unless a ``}`` or ``,``
  follows (the last constant of an enum written flush left).

A call that stands where a function's name does, ``SYSCALL_DEFINE3(open, …) {`` or ``TEST(A, B) {``,
is left as it is: it is the definition's declarator.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import tree_sitter

from indexer.parsing import parse, syntax_errors

__all__ = ["ATTRIBUTE_LANGUAGES", "macro_spans", "read_past"]

# C++ only. In C, tree-sitter reads ``static __init int f(void)`` as a function all the same, and the
# shapes it does not (``static __always_inline __alloc_size(1) void *kmalloc(…)``) are rare: on the
# Linux tree's ``mm/``, ``kernel/`` and ``include/linux/`` blanking them found 0.01 % more definitions
# (``kmalloc`` and ``kmalloc_array`` among them) for 20 % more parsing time, most of it spent finding
# the files that hold one.
ATTRIBUTE_LANGUAGES = frozenset({"cpp"})

_LINE = re.compile(rb"[ \t]*(?![#/*}{ \t\r\n]|\Z)")  # not a directive, a comment, a brace or blank
_NEWLINE = re.compile(rb"\n")
_WORD = re.compile(rb"[ \t]*([A-Za-z_]\w*)")
_NEXT_WORD = re.compile(rb"[ \t]+[A-Za-z_]")
_CAPITALS = re.compile(rb"[A-Z_][A-Z0-9_]*\Z")
# After a parameter list: words (each with its arguments) up to the end of the declaration.
_TAIL = re.compile(rb"\)((?:[ \t]+[A-Za-z_]\w*(?:\([^()\n]*\))?)+)[ \t]*(?:;|\{|=[ \t]*0[ \t]*;|$)")
_TAIL_WORD = re.compile(rb"([A-Za-z_]\w*)(?:\([^()]*\))?")
# A whole-file test that some line may hold a macro read here (a word of capitals, or with two
# underscores, before another word or after a parameter list; a line of one word of capitals): a file
# without one is not searched for its syntax errors.
_MACRO = rb"(?:__[A-Za-z_]\w*|[A-Z_][A-Z0-9_]{2,})"
_ANY_MACRO = re.compile(
    rb"\b" + _MACRO + rb"(?:\([^()\n]*\))?[ \t]+[A-Za-z_]"
    rb"|\)[ \t]+(?:\w+[ \t]+)*" + _MACRO + rb"(?:\([^()\n]*\))?[ \t]*[;{]"
    rb"|^[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*\r?$",
    re.M,
)
_FOLLOWS_ENUM = re.compile(rb"\s*[},]")
# Words after which the next one is a tag or a name, not a specifier.
_STOP = frozenset(
    b"struct union enum class typedef namespace using template return goto case operator new delete "
    b"else do".split()
)
_CONTROL = frozenset(b"if while for switch return else do case sizeof catch".split())
_STORAGE = frozenset(
    b"static extern inline const volatile register constexpr consteval constinit virtual explicit "
    b"friend mutable thread_local _Noreturn _Thread_local restrict __inline __inline__".split()
)
_TYPE_MARKS = frozenset(b"*&<:")  # after the last word before them, that word is (part of) the type
_BLANK = 0x20


def read_past(tree: tree_sitter.Tree, source: bytes, language: str) -> tree_sitter.Tree | None:
    """A tree of ``source`` with the attribute-like macros blanked that stand on the rows where its
    syntax errors start or end (or next to them), where it holds fewer syntax errors than ``tree``;
    ``None`` where ``tree`` has none, no such macro stands there, or blanking them did not help. Nodes
    of the tree returned sit at the same bytes and rows as in ``source``; tree-sitter reparses only
    around the blanked bytes."""
    if language not in ATTRIBUTE_LANGUAGES or not tree.root_node.has_error:
        return None
    if _ANY_MACRO.search(source) is None:
        return None  # no macro of a shape read here anywhere in the file: no need to find the errors
    errors = syntax_errors(tree, language)
    rows = {row + step for e in errors for row in (e.start_point.row, e.end_point.row) for step in (-1, 0, 1)}
    breaks = [m.start() for m in _NEWLINE.finditer(source)]
    spans = macro_spans(source, rows, breaks)
    if not spans:
        return None
    text = bytearray(source)
    edited = tree.copy()  # the caller's tree is left as it was
    for row, start, end in spans:
        text[start:end] = b" " * (end - start)
        column = start - (breaks[row - 1] + 1 if row else 0)
        point, after = (row, column), (row, column + end - start)  # a macro stays on its row
        edited.edit(start, end, end, point, after, after)
    again = parse(bytes(text), language, edited)
    return again if len(syntax_errors(again, language)) < len(errors) else None


def macro_spans(
    source: bytes, rows: Iterable[int] | None = None, breaks: list[int] | None = None
) -> list[tuple[int, int, int]]:
    """``(row, start, end)`` of the attribute-like macros of ``source`` (see the module docstring), on
    ``rows`` only (0-based; all by default), in order; ``breaks``: the offsets of its line breaks."""
    if breaks is None:
        breaks = [m.start() for m in _NEWLINE.finditer(source)]
    wanted = range(len(breaks) + 1) if rows is None else sorted(r for r in set(rows) if 0 <= r <= len(breaks))
    out: list[tuple[int, int, int]] = []
    for row in wanted:
        base = breaks[row - 1] + 1 if row else 0
        end = breaks[row] if row < len(breaks) else len(source)
        out.extend((row, base + s, base + e) for s, e in _on_line(source, base, end))
    return out


def _on_line(source: bytes, base: int, end: int) -> list[tuple[int, int]]:
    """The macros on the line ``source[base:end]`` (offsets within it)."""
    line = source[base:end]
    if _LINE.match(line) is None:
        return []  # a directive, a comment or a brace
    found: list[tuple[int, int]] = []
    lead = len(line) - len(line.lstrip())
    first = _WORD.match(line)
    tail = _TAIL.search(line)
    if tail is not None and (first is None or first.group(1) not in _CONTROL):
        found += [
            (tail.start(1) + w.start(), tail.start(1) + w.end())
            for w in _TAIL_WORD.finditer(tail.group(1))
            if _macro(w.group(1))
        ]
    word = line.strip()
    if lead == 0 and b"_" in word and _macro(word) and _CAPITALS.match(word):
        if _FOLLOWS_ENUM.match(source, end) is None:
            found.append((0, len(word)))
        return found
    return sorted(found + _leading(line, lead))


def _leading(line: bytes, at: int) -> list[tuple[int, int]]:
    """The macros among the words that lead a declaration on ``line`` (offsets within it)."""
    specifiers: list[tuple[int, int, bool, bool]] = []  # (start, end, a macro, a plain type word)
    i = at
    while True:
        word = _WORD.match(line, i)
        if word is None:
            return []
        name, end = word.group(1), word.end()
        if name in _STOP:
            return []
        if line[end : end + 1] == b"(" and _macro(name):
            close = _closing(line, end)
            if close < 0 or _NEXT_WORD.match(line, close) is None:
                return []  # a call, or the declarator itself: SYSCALL_DEFINE3(open, …), TEST(A, B)
            specifiers.append((word.start(1), close, True, False))
            i = close
            continue
        if _NEXT_WORD.match(line, end) is None:
            after = line[end:].lstrip(b" \t")[:1]
            break
        specifiers.append((word.start(1), end, _macro(name), name not in _STORAGE and not _macro(name)))
        i = end
    macros = [(s, e) for s, e, is_macro, _ in specifiers if is_macro]
    if not macros:
        return []
    typed = (after != b"" and after in _TYPE_MARKS) or any(plain for *_, plain in specifiers)
    if not typed and after != b"(":
        # No other word can be the variable's type: the last macro word without arguments stays
        # (``static HANDLE h;``). A function may have none: C++ reads ``FMT_INLINE value(T x)`` as the
        # constructor it is once the macro is gone, and ``DWORD WINAPI run(void*)`` as ``run``.
        bare = [(s, e) for s, e, is_macro, _ in specifiers if is_macro and line[e - 1 : e] != b")"]
        if not bare:
            return []
        macros.remove(bare[-1])
    return macros


def _macro(word: bytes) -> bool:
    if word.startswith(b"__"):
        return True
    return len(word) >= 3 and _CAPITALS.match(word) is not None and any(65 <= c <= 90 for c in word)


def _closing(line: bytes, at: int) -> int:
    """The offset after the parenthesis that closes the one at ``at``; -1 where the line does not."""
    depth = 0
    for j in range(at, len(line)):
        c = line[j]
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1

"""Attribute-like macros in C and C++ declarations, read past as a compiler would after expanding them.

C and C++ code writes attributes, export markers and namespace openers as macros that a grammar
cannot expand: ``static __always_inline __alloc_size(1) void *kmalloc(…)`` (Linux), ``FMT_API void
vprint(…)``, ``UNITTEST CURLcode …`` (curl), ``int Init(…) REDISMODULE_ATTR;`` (redis), a line that
holds only ``ABSL_NAMESPACE_BEGIN`` or ``NLOHMANN_JSON_NAMESPACE_BEGIN``. tree-sitter reads such a word
as a type or a call and recovers with ``ERROR`` nodes, and what it recovers is often wrong for the rest
of the file: Linux's ``kmalloc`` was no definition at all, and in abseil, nlohmann-json and fmt the
namespace opener put every class after it at the wrong level (its methods read as free functions).

:func:`read_past` looks for those macros, by their shape, on the rows where a syntax error starts or
ends and the rows beside them, blanks them (spaces over their bytes, every other byte and line where it
was) and parses again, keeping the new tree where its errors hold fewer bytes than the first's; a file
that parsed without errors is not read again. A macro
here is a word of capitals of three characters or more (``FMT_API``, ``INLINE``), or one that opens
with two underscores (``__init``, ``__alloc_size``), reserved to the implementation in both languages
and so, in a project's code, a macro's name. It is blanked, with its parenthesised arguments:

* among the words that lead a declaration (``static __must_check int f(…)``, ``constexpr FMT_INLINE
  value(T x)``, a constructor; in C only one with arguments, ``__alloc_size(1)``), unless it is the only word left to be a variable's type (``static
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

import tree_sitter

from indexer.parsing import parse, syntax_errors

__all__ = ["ATTRIBUTE_LANGUAGES", "ROUNDS", "macro_spans", "read_past"]

# In C a bare word is left (``words``): tree-sitter reads ``static __init int f(void)`` as a function
# all the same, and blanking such words near the errors of Linux's files (four in five of them have
# some) reparsed many files for nothing. With arguments (``__alloc_size(1)``, ``__printf(2, 3)``) a macro
# is blanked: on ``kernel/``, ``include/linux/`` and ``mm/`` that costs 1-4 % more parsing, and finds
# ``kmalloc``, ``kzalloc``, ``kcalloc`` and their kin.
ATTRIBUTE_LANGUAGES = frozenset({"c", "cpp"})

_LINE = re.compile(rb"[ \t]*(?![#/*}{ \t\r\n]|\Z)")  # not a directive, a comment, a brace or blank
_WORD = re.compile(rb"[ \t]*([A-Za-z_]\w*)")
_NEXT_WORD = re.compile(rb"[ \t]+[A-Za-z_]")
_CAPITALS = re.compile(rb"[A-Z_][A-Z0-9_]*\Z")
# After a parameter list: words (each with its arguments) up to the end of the declaration.
_TAIL = re.compile(rb"\)((?:[ \t]+[A-Za-z_]\w*(?:\([^()\n]*\))?)+)[ \t]*(?:;|\{|=[ \t]*0[ \t]*;|$)")
_TAIL_WORD = re.compile(rb"([A-Za-z_]\w*)(?:\([^()]*\))?")
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
ROUNDS = 4  # readings of the rows of the errors left


def read_past(tree: tree_sitter.Tree, source: bytes, language: str) -> tree_sitter.Tree | None:
    """A tree of ``source`` with the attribute-like macros blanked that stand on the rows where its
    syntax errors start or end (or next to them), where its syntax errors hold fewer bytes than
    ``tree``'s; ``None`` where ``tree`` has none, no such macro stands there, or blanking them did not
    help. One error can hide the next (a broken declaration swallows the ones after it), so the rows of
    the errors left are read again, up to :data:`ROUNDS` times. Nodes of the tree returned sit at the
    same bytes and rows as in ``source``; tree-sitter reparses only around the blanked bytes."""
    if language not in ATTRIBUTE_LANGUAGES or not tree.root_node.has_error:
        return None
    words = language != "c"
    errors = syntax_errors(tree)
    text = bytearray(source)
    done: set[int] = set()  # the starts of the macros blanked
    best: tree_sitter.Tree | None = None
    for _ in range(ROUNDS):
        spans = [s for s in _spans(source, _lines_near(source, errors), words) if s[1] not in done]
        if not spans:
            break
        edited = (best or tree).copy()  # the caller's tree is left as it was
        for row, start, end, column in spans:
            done.add(start)
            text[start:end] = b" " * (end - start)
            point, after = (row, column), (row, column + end - start)  # a macro stays on its row
            edited.edit(start, end, end, point, after, after)
        again = parse(bytes(text), language, edited)
        left = syntax_errors(again)
        if _extent(left) >= _extent(errors):
            break
        best, errors = again, left
        if not errors:
            break
    return best


def _extent(errors: list[tree_sitter.Node]) -> int:
    """How much of a file its syntax errors hold: the bytes of its ``ERROR`` nodes, one for each
    ``MISSING`` node (a count would rise when one error that swallowed ten declarations splits into
    two small ones)."""
    return sum(max(1, e.end_byte - e.start_byte) for e in errors)


def _lines_near(source: bytes, errors: list[tree_sitter.Node]) -> dict[int, int]:
    """``{row: offset of its first byte}`` for the rows where ``errors`` start or end and the rows
    next to them, found from the nodes' own positions (no list of every line of the file)."""
    lines: dict[int, int] = {}
    for e in errors:
        for offset, (row, column) in ((e.start_byte, e.start_point), (e.end_byte, e.end_point)):
            start = offset - column
            lines[row] = start
            if row > 0 and row - 1 not in lines:
                lines[row - 1] = source.rfind(b"\n", 0, start - 1) + 1
            after = source.find(b"\n", start)
            if after >= 0:
                lines.setdefault(row + 1, after + 1)
    return lines


def _spans(source: bytes, lines: dict[int, int], words: bool) -> list[tuple[int, int, int, int]]:
    """``(row, start, end, column)`` of the macros on ``lines`` (see :func:`_lines_near`), in order."""
    out: list[tuple[int, int, int, int]] = []
    for row in sorted(lines):
        base = lines[row]
        end = source.find(b"\n", base)
        out.extend(
            (row, base + s, base + e, s)
            for s, e in _on_line(source, base, len(source) if end < 0 else end, words)
        )
    return out


def macro_spans(source: bytes, *, words: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` byte ranges of the attribute-like macros on every line of ``source`` (see the
    module docstring), in order. Without ``words``, a macro without arguments that leads a declaration
    stays: in C, tree-sitter reads ``static __init int f(void)`` as the function it is."""
    lines, base = {}, 0
    for row, line in enumerate(source.split(b"\n")):
        lines[row] = base
        base += len(line) + 1
    return [(start, end) for _, start, end, _ in _spans(source, lines, words)]


def _on_line(source: bytes, base: int, end: int, words: bool) -> list[tuple[int, int]]:
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
    leading = _leading(line, lead)
    if not words:
        leading = [(s, e) for s, e in leading if line[e - 1 : e] == b")"]
    return sorted(found + leading)


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
    typed = (after != b"" and after[0] in _TYPE_MARKS) or any(plain for *_, plain in specifiers)
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

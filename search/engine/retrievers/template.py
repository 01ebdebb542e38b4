"""Format strings that a pasted message fills: "Worker 'db' is done" is printed by ``"Worker %r is done"``.

A program prints its messages with their values filled in, so an error or a log line pasted from a
terminal is seldom in the code verbatim, and the phrase rule never sees it: the words around the
values are, and BM25 finds the chunks that hold them among others. :func:`filled_places` reads the
string literals of those chunks (BM25's first :data:`MAX_SPANS`, at most :data:`MAX_FILES` files, read
beneath the root) and keeps the lines of the ones whose placeholders the phrase fills: the literal's
text with each placeholder standing for a value of one to four words matches part of the phrase (case
folded, whitespace collapsed), and the literal has words of its own around them (three or more), so
that ``"%s: %s"`` or ``"{} and {}"`` fills nothing.

Placeholders read: printf's (``%s``, ``%-5d``, ``%(name)r``, Go's ``%v``), ``str.format``'s, f-strings'
and Rust's (``{}``, ``{0}``, ``{name!r}``, ``{:>8}``), JavaScript's template literals (``${x}``) and
Ruby's interpolation (``#{x}``); ``%%``, ``{{`` and ``}}`` are the characters themselves. A literal is
read within one line; escapes (``\\n``, ``\\"``) are read as the characters they print.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from indexer import read_beneath
from search.engine.query import collapsed

MAX_SPANS = 20  # BM25's first chunks read for format strings
MAX_FILES = 24
MAX_BYTES = 4 * 1024 * 1024  # read in all
MAX_PHRASE = 400  # characters: a longer paste is no one message
MAX_HOLES = 4  # placeholders in one format string; more leave too little of it to match
MIN_WORDS = 3  # words of the format string's own text
MAX_LITERALS = 300  # format strings tried per phrase: the work a search does here stays bounded

_LITERAL = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1""")
_HOLE = re.compile(
    r"%%|\{\{|\}\}"  # the characters themselves
    r"|%(?:\([A-Za-z_]\w*\))?[-+#0-9.*]*(?:hh|ll|[hlzjtLq])?[sdirfvqxXgGeEcpuTtob]"  # printf, Go
    r"|\{[^{}\s]{0,40}\}"  # str.format, f-strings, Rust
    r"|[$#]\{[^{}\n]{1,60}\}"  # JavaScript template literals, Ruby
)
_ESCAPES = {"n": " ", "t": " ", "r": " "}
_WORD = re.compile(r"[^\W\d_]{2,}")


def looks_printed(phrase: str) -> bool:
    """Whether ``phrase`` holds something a program fills a message with, not a plain word: a digit,
    a quote, a path or an operator's character, a name in ``snake_case`` or ``camelCase``, a dotted
    name. A sentence of plain words is left alone (the search reads no file for it)."""
    return _PRINTED.search(phrase) is not None


_PRINTED = re.compile(r"""[0-9'"`/\\=:\[\](){}<>@#$%*|_]|[a-z][A-Z]|\w\.\w""")


def filled_places(
    root: str, phrase: str, spans: Sequence[tuple[str, int, int]]
) -> list[tuple[str, int, bool]]:
    """``(path, line, as written)`` for each line, within ``spans`` (path, first and last line), that
    holds a format string ``phrase`` fills; ``as written``: it fills it with the case of the format
    string's own words too. Files that cannot be read are skipped; nothing is read for a phrase longer
    than :data:`MAX_PHRASE`."""
    text = collapsed(phrase)
    if not text or len(text) > MAX_PHRASE:
        return []
    lines_in: dict[str, list[tuple[int, int]]] = {}
    for path, start, end in spans[:MAX_SPANS]:
        if path in lines_in or len(lines_in) < MAX_FILES:
            lines_in.setdefault(path, []).append((start, end))
    found: list[tuple[str, int, bool]] = []
    budget = MAX_BYTES
    tries = [MAX_LITERALS]
    for path, ranges in lines_in.items():
        try:  # no symlink followed, no FIFO opened (indexer.beneath)
            data = read_beneath(root, path, budget + 1)
        except OSError:
            continue
        if len(data) > budget or b"\0" in data:
            continue  # more than is cheap to read here, or a binary file
        budget -= len(data)
        last = max(end for _, end in ranges)
        lines = data.split(b"\n", last)  # the lines up to the last one asked for
        wanted = sorted({n for start, end in ranges for n in range(start, min(end, len(lines)) + 1)})
        for n in wanted:
            line = lines[n - 1]
            if b"%" not in line and b"{" not in line:
                continue  # no placeholder on the line: the common case, told at once
            fill = _fills(line.decode("utf-8", "replace"), text, tries)
            if fill is not None:
                found.append((path, n, fill))
    return found


def _fills(line: str, text: str, tries: list[int]) -> bool | None:
    """Whether a format string on ``line`` is filled by ``text``: ``True`` when it is with the case of
    its own words, ``False`` when only case folded, ``None`` when not. ``tries``: how many more format
    strings may be tried (counted down)."""
    best: bool | None = None
    for match in _LITERAL.finditer(line):
        patterns = _patterns(match.group(2))
        if patterns is None:
            continue
        if tries[0] <= 0:
            break
        tries[0] -= 1
        cased, folded = patterns
        if cased.search(text) is not None:
            return True
        if best is None and folded.search(text) is not None:
            best = False
    return best


@lru_cache(maxsize=4096)
def _patterns(body: str) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """:func:`template_pattern` of ``body``, as written and case folded (kept: a warm server reads the
    same chunks' literals again and again)."""
    pattern = template_pattern(body)
    return None if pattern is None else (pattern, re.compile(pattern.pattern, re.IGNORECASE))


def template_pattern(body: str) -> re.Pattern[str] | None:
    """A regex matching what the literal ``body`` prints with its placeholders filled (each by one to
    four words; placeholders with only spaces between them by one to four words each, together;
    whitespace collapsed), or ``None`` when it has no placeholder, more than :data:`MAX_HOLES`, or
    fewer than :data:`MIN_WORDS` words of its own."""
    pieces = _pieces(body)
    holes = sum(n for n in pieces if isinstance(n, int))
    fixed = " ".join(p for p in pieces if isinstance(p, str))
    if not 1 <= holes <= MAX_HOLES or len(_WORD.findall(fixed)) < MIN_WORDS:
        return None
    return re.compile("".join(_literal_pattern(p) if isinstance(p, str) else _value(p) for p in pieces))


def _pieces(body: str) -> list[str | int]:
    """``body`` as its own text (escapes read) and runs of placeholders (how many in a run: those with
    only spaces between them, which one value of several words would fill as well as several)."""
    pieces: list[str | int] = []
    text = ""
    pos = 0
    for hole in _HOLE.finditer(body):
        text += _unescape(body[pos : hole.start()])
        token = hole.group()
        pos = hole.end()
        if token in ("%%", "{{", "}}"):
            text += token[0]
            continue
        if pieces and isinstance(pieces[-1], int) and not text.strip():
            pieces[-1] += 1  # "%s %s": one run
        else:
            pieces += [text, 1]
        text = ""
    pieces.append(text + _unescape(body[pos:]))
    return pieces


def _value(holes: int) -> str:
    """What a run of ``holes`` placeholders stands for: one to four words each."""
    return rf"\S+(?:\s+\S+){{0,{4 * holes - 1}}}"


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def _literal_pattern(text: str) -> str:
    """``text`` as a regex: itself, each run of whitespace any run of whitespace."""
    return "".join(r"\s+" if part.isspace() else re.escape(part) for part in _BLANKS.split(text) if part)


_BLANKS = re.compile(r"(\s+)")

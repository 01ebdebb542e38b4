"""The whole query, verbatim, in a handful of files: read here instead of by a ripgrep process.

A ripgrep process costs ~6 ms of CPU however few files it reads, and a sentence's verbatim search
usually reads one to ten files once the BM25 index has named the ones that can hold it. Those are
read here with the semantics of ``rg --ignore-case --only-matching`` for the phrase's pattern
(:func:`phrase_pattern`: its words in order, each space matching any run of spaces and tabs, as a
sentence is compared whitespace-normalised; the text retriever then prefers the occurrences that keep
the spacing of a query written with its own): every occurrence on a line, case folded.

Read here, a space of the phrase also matches a line break (:data:`JOINT`), with what a wrapped
sentence or message carries across it: the indentation, a comment's leader on the next line (``#``,
``//``, `` * ``, ``--``, ``;``), or the end of one string literal and the start of the next with a
concatenation between them (``"called with different " + ⏎ "resources"``, Python's and C's
adjacent literals, a trailing backslash). An error message split over two literals, or a doc
sentence wrapped over two comment lines, is then found where it is written, as a user pastes it
from the program's output or the rendered docs. Such an occurrence is reported on its first line,
its text the phrase's words with each joint read as one line break (``"different\nresources"``: the
text retriever ranks a place that holds the phrase within a line before one that holds it only
across lines). A blank line still ends a sentence. ripgrep, when it searches instead, matches within a line only.

Folding is ASCII only, so a phrase with other characters (whose Unicode folding ripgrep knows and
``bytes.lower`` does not) is left to ripgrep, as are more files or bytes than are cheap to read in the
query's thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from indexer import read_beneath
from search.engine.query import collapsed
from search.workspace.ripgrep import RgLine

MAX_FILES = 24
MAX_BYTES = 4 * 1024 * 1024  # in all
_RG_META = frozenset("\\.+*?()|[]{}^$#&-~")  # escaped in a ripgrep pattern to match themselves
GAP = r"[ \t]+"  # what a space of a phrase matches, in ripgrep's syntax and Python's alike
#: A space of a phrase across a line break (read here only; lower-cased bytes): spaces; the end of a
#: string literal, maybe a concatenation operator (``+``, ``.``, ``..``, ``&``); a continuation
#: backslash; one line break; the indentation; then a comment's leader or the start of a literal
#: (a leading ``+``, a prefix such as ``f`` or ``rb``, the quote). Every run of spaces is followed by
#: something that is not a space, so matching it takes linear time whatever the input.
JOINT = (
    rb"[ \t]*(?:[\"'`][ \t]*(?:(?:\+|\.\.?|&)[ \t]*)?)?(?:\\[ \t]*)?\r?\n[ \t]*"
    rb"(?:(?://+!?|#+|\*|--|;+)[ \t]*|(?:\+[ \t]*)?[a-z]{0,2}[\"'`][ \t]*)?"
)
_SPACE = rb"(?:" + GAP.encode() + rb"|" + JOINT + rb")"
_JOINTS = re.compile(JOINT, re.IGNORECASE)


def phrase_pattern(phrase: str) -> str:
    """``phrase`` (whitespace-normalised) as a ripgrep regex: its words, metacharacters escaped,
    joined by runs of spaces and tabs, so that "verify PIN. Network" also finds "verify PIN.  Network"
    in an aligned or double-spaced line."""
    return GAP.join(rg_escape(word) for word in collapsed(phrase).split(" "))


def rg_escape(text: str) -> str:
    """``text`` as a ripgrep regex matching itself (every metacharacter escaped)."""
    return "".join("\\" + c if c in _RG_META else c for c in text)


def find_verbatim(root: str, phrase: str, paths: Sequence[str]) -> list[RgLine] | None:
    """Lines of ``paths`` (relative to ``root``) holding ``phrase``, one :class:`RgLine` per line with
    each occurrence's own text; ``None`` when ripgrep should search instead (see the module)."""
    if len(paths) > MAX_FILES or not phrase.isascii() or "\n" in phrase:
        return None
    words = phrase.lower().encode().split()
    if not words:
        return []
    needle = re.compile(_SPACE.join(re.escape(w) for w in words))
    out: list[RgLine] = []
    budget = MAX_BYTES
    for path in paths:
        try:  # no symlink followed, no FIFO opened (indexer.beneath)
            data = read_beneath(root, path, budget + 1)  # ripgrep reads a file it is given whatever its size
        except OSError:
            continue  # gone since it was indexed: ripgrep would skip it too
        if len(data) > budget:
            return None
        budget -= len(data)
        if b"\0" in data:
            continue  # a binary file: ripgrep stops at its first NUL byte without a match to show
        out += _occurrences(path, data, needle)
    return out


def _occurrences(path: str, data: bytes, needle: re.Pattern[bytes]) -> list[RgLine]:
    low = data.lower()  # ASCII only: byte offsets stay those of ``data``
    found: list[RgLine] = []
    line, counted = 1, 0
    subs: list[str] = []
    current = 0
    for match in needle.finditer(low):
        pos, end = match.span()
        line += low.count(b"\n", counted, pos)  # an occurrence over lines counts from its first
        counted = pos
        if line != current and subs:
            found.append(RgLine(path, current, "", tuple(subs)))
            subs = []
        current = line
        text = data[pos:end]
        if b"\n" in text:  # the words as they read, each joint one line break
            text = _JOINTS.sub(b"\n", text)
        subs.append(text.decode("utf-8", "replace"))
    if subs:
        found.append(RgLine(path, current, "", tuple(subs)))
    return found

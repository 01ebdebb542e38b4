"""The whole query, verbatim, in a handful of files: read here instead of by a ripgrep process.

A ripgrep process costs ~6 ms of CPU however few files it reads, and a sentence's verbatim search
usually reads one to ten files once the BM25 index has named the ones that can hold it. Those are
read here with the semantics of ``rg --ignore-case --only-matching`` for the phrase's pattern
(:func:`phrase_pattern`: its words in order, each space matching any run of spaces and tabs, as a
sentence is compared whitespace-normalised): every occurrence on a line, case folded. Folding is
ASCII only, so a phrase with other characters (whose
Unicode folding ripgrep knows and ``bytes.lower`` does not) is left to ripgrep, as are more files or
bytes than are cheap to read in the query's thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from indexer import read_beneath
from search.workspace.ripgrep import RgLine

MAX_FILES = 24
MAX_BYTES = 4 * 1024 * 1024  # in all
_RG_META = frozenset("\\.+*?()|[]{}^$#&-~")  # escaped in a ripgrep pattern to match themselves
GAP = r"[ \t]+"  # what a space of a phrase matches, in ripgrep's syntax and Python's alike


def phrase_pattern(phrase: str) -> str:
    """``phrase`` (whitespace-normalised) as a ripgrep regex: its words, metacharacters escaped,
    joined by runs of spaces and tabs, so that "verify PIN. Network" also finds "verify PIN.  Network"
    in an aligned or double-spaced line."""
    return GAP.join(rg_escape(word) for word in phrase.split())


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
    needle = re.compile(GAP.encode().join(re.escape(w) for w in words))
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
    for match in needle.finditer(low):  # a gap never crosses a line: spaces and tabs only
        pos, end = match.span()
        line += low.count(b"\n", counted, pos)
        counted = pos
        if line != current and subs:
            found.append(RgLine(path, current, "", tuple(subs)))
            subs = []
        current = line
        subs.append(data[pos:end].decode("utf-8", "replace"))
    if subs:
        found.append(RgLine(path, current, "", tuple(subs)))
    return found

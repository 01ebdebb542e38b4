"""A WordPiece tokenizer's ids read a word at a time, from a table of the words met so far.

BERT's pre-tokenizer cuts a text at whitespace and around each punctuation character, and WordPiece
splits each piece on its own: the ids of a text are its pieces' ids in order, whatever surrounds
them. Code repeats its pieces (``dev``, ``_``, ``err``, ``(``, ``->``'s two characters) over and over,
so a table of each piece's ids, filled by the tokenizer itself for the pieces it has not met, reads a
chunk in a third of the tokenizer's time (BENCHMARKS §9, "Thirty-first session"): the tokenizer
builds, per token, a string, its offsets and several masks that the static tier never reads.

:meth:`WordPieces.of` makes one only for a tokenizer without a normaliser (the static tier's
:class:`~models.static.Twin`, whose texts plait normalises itself), with BERT's pre-tokenizer and a
WordPiece model, and only for texts of the characters it is told of: each is put to the pre-tokenizer
once to learn whether it is whitespace, punctuation or part of a word. The ids are the tokenizer's, so
a text it reads gets the same vector (tests compare them over punctuation, whitespace runs, words of
more than WordPiece's 100 characters, and a table that is full).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from itertools import chain, islice
from typing import Any

from models.tokenize import encode_texts

#: Pieces kept in the table at most (~200 bytes each, ~100 MB full): a piece met after it is full is read
#: by the tokenizer each time. The first 600 characters of the Linux tree's ~1.2 million chunk-sized
#: stretches hold ~780,000 distinct pieces, most of them met once (hexadecimal constants, numbers).
CAPACITY = 1 << 19


class WordPieces:
    """The ids of texts made of known characters, read piece by piece (see the module docstring)."""

    def __init__(self, tokenizer: Any, split: re.Pattern[str], capacity: int = CAPACITY) -> None:
        self.tokenizer = tokenizer
        self._split = split
        self._capacity = capacity
        self._table: dict[str, list[int]] = {}

    @classmethod
    def of(cls, tokenizer: Any, chars: Iterable[str], capacity: int = CAPACITY) -> WordPieces | None:
        """A reader of texts made of ``chars`` through ``tokenizer``; ``None`` where its pieces are not
        known to be read one by one (a normaliser, another pre-tokenizer or model, a character that the
        pre-tokenizer treats in another way)."""
        if getattr(tokenizer, "normalizer", None) is not None:
            return None
        pre: Any = getattr(tokenizer, "pre_tokenizer", None)
        if (
            type(pre).__name__ != "BertPreTokenizer"
            or type(getattr(tokenizer, "model", None)).__name__ != "WordPiece"
        ):
            return None
        spaces: list[str] = []
        marks: list[str] = []
        for c in dict.fromkeys(chars):
            pieces = [p for p, _ in pre.pre_tokenize_str(f"a{c}a")]
            if pieces == ["a", "a"]:
                spaces.append(c)
            elif pieces == ["a", c, "a"]:
                marks.append(c)
            elif pieces != [f"a{c}a"]:
                return None
        between = re.escape("".join(spaces) + "".join(marks))
        alone = f"[{re.escape(''.join(marks))}]" if marks else "(?!)"
        reader = type(tokenizer).from_str(tokenizer.to_str())  # a piece is read whole: no truncation
        reader.no_truncation()
        reader.no_padding()
        return cls(reader, re.compile(f"[^{between}]+|{alone}" if between else ".+", re.DOTALL), capacity)

    def ids(self, texts: Sequence[str], limit: int, chars_per_token: int) -> list[list[int]]:
        """The first ``limit`` ids of each of ``texts``, normalised and made of the characters this reader
        was made for (any other counts as a word's), read as :func:`in_stretches` reads them."""
        return in_stretches(texts, limit, chars_per_token, self._stretch_ids)

    def _stretch_ids(self, stretches: Sequence[str], missing: Sequence[int]) -> list[list[int]]:
        """The ids of each stretch, at most as many as it misses; the pieces of all of them not met yet
        asked of the tokenizer at once."""
        words = [self._split.findall(stretch) for stretch in stretches]
        met: set[str] = set()
        for found in words:
            met.update(found)
        pieces = self._learn(met.difference(self._table))
        return [
            list(islice(chain.from_iterable(map(pieces, found)), n))
            for found, n in zip(words, missing, strict=True)
        ]

    def _learn(self, new: set[str]) -> Any:
        """The lookup of a piece's ids, with ``new``'s ids asked of the tokenizer (kept while there is room)."""
        if not new:
            return self._table.__getitem__
        words = list(new)
        encoded = encode_texts(self.tokenizer, words, add_special_tokens=False)
        found = {w: e.ids for w, e in zip(words, encoded, strict=True)}
        room = self._capacity - len(self._table)
        if room >= len(found):
            self._table.update(found)
            return self._table.__getitem__
        self._table.update(islice(found.items(), max(room, 0)))
        table = self._table
        return lambda w: table[w] if w in table else found[w]


def in_stretches(
    texts: Sequence[str],
    limit: int,
    chars_per_token: int,
    read: Callable[[Sequence[str], Sequence[int]], Sequence[list[int]]],
) -> list[list[int]]:
    """The first ``limit`` ids of each of ``texts``, each text read a stretch at a time: each cut before a
    whitespace (where BERT's tokenizer cuts words: the ids of the stretches, in order, are the ids of the
    whole), ``chars_per_token`` characters for each token still missing, the next stretch only for a text
    still short of ``limit``. ``read(stretches, missing)``: the ids of each stretch (those past the
    tokens it misses may be left out)."""
    ids: list[list[int]] = [[] for _ in texts]
    done = [0] * len(texts)  # characters of each text read so far
    todo = [k for k, t in enumerate(texts) if t]
    while todo:
        missing = [limit - len(ids[k]) for k in todo]
        stretches = [
            before_space(texts[k][done[k] :], n * chars_per_token) for k, n in zip(todo, missing, strict=True)
        ]
        for k, stretch, got in zip(todo, stretches, read(stretches, missing), strict=True):
            done[k] += len(stretch)
            ids[k] = ids[k] + got if ids[k] else got
        todo = [k for k in todo if done[k] < len(texts[k]) and len(ids[k]) < limit]
    return [got[:limit] if len(got) > limit else got for got in ids]


def before_space(text: str, chars: int) -> str:
    """``text`` up to the last space, tab or line break before ``chars`` characters; all of it when it
    is no longer, or has none there."""
    if len(text) <= chars:
        return text
    k = max(text.rfind(" ", 0, chars), text.rfind("\n", 0, chars), text.rfind("\t", 0, chars))
    return text[:k] if k > 0 else text

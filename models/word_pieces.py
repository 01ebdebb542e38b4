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

Many texts are read as arrays (:meth:`WordPieces.flat_ids`): Arrow cuts them at whitespace into words
and numbers the distinct ones; only each distinct word is cut further, at its punctuation, and only each
distinct piece is looked up in the table, in Python. A part of a thousand chunks holds about three
times as many words as distinct ones, and its pieces repeat more: its ids are read in two thirds of the
time of a piece-by-piece read in Python (BENCHMARKS §9, "Fortieth session"), and come as one array that
the static tier sums without making a list per text. Only a pre-tokenizer that cuts at exactly the
ASCII whitespace among the characters is read so (what Arrow's split cuts at).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain, islice
from typing import Any

import numpy as np

from models.tokenize import encode_texts

#: Pieces kept in the table at most (~200 bytes each, ~100 MB full): a piece met after it is full is read
#: by the tokenizer each time. The first 600 characters of the Linux tree's ~1.2 million chunk-sized
#: stretches hold ~780,000 distinct pieces, most of them met once (hexadecimal constants, numbers).
CAPACITY = 1 << 19
#: The whitespace Arrow's ``ascii_split_whitespace`` cuts at; a reader is made only for a tokenizer whose
#: pre-tokenizer cuts at exactly these among the characters it is told of.
_ASCII_SPACES = frozenset(" \t\n\r\v\f")


class WordPieces:
    """The ids of texts made of known characters, read piece by piece (see the module docstring)."""

    def __init__(self, tokenizer: Any, marks: str, capacity: int = CAPACITY) -> None:
        """``marks``: the characters the pre-tokenizer sets apart as pieces of their own (punctuation);
        it cuts at ASCII whitespace, and every other character is part of a word."""
        self.tokenizer = tokenizer
        self._capacity = capacity
        self._table: dict[str, list[int]] = {}
        # Each mark with a space either side: the pieces are then what remains between whitespace.
        self._marked = "([" + "".join(f"\\x{{{ord(c):x}}}" for c in marks) + "])" if marks else None

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
        marks: list[str] = []
        for c in dict.fromkeys(chars):
            pieces = [p for p, _ in pre.pre_tokenize_str(f"a{c}a")]
            if (pieces == ["a", "a"]) != (c in _ASCII_SPACES):
                return None  # a space that Arrow would not cut at, or the other way round
            if pieces == ["a", c, "a"]:
                marks.append(c)
            elif pieces not in (["a", "a"], [f"a{c}a"]):
                return None
        reader = type(tokenizer).from_str(tokenizer.to_str())  # a piece is read whole: no truncation
        reader.no_truncation()
        reader.no_padding()
        return cls(reader, "".join(marks), capacity)

    def ids(self, texts: Sequence[str], limit: int, chars_per_token: int) -> list[list[int]]:
        """The first ``limit`` ids of each of ``texts`` (see :meth:`flat_ids`), a list per text."""
        return per_text(*self.flat_ids(texts, limit, chars_per_token))

    def flat_ids(
        self, texts: Sequence[str], limit: int, chars_per_token: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The first ``limit`` ids of each of ``texts``, normalised and made of the characters this reader
        was made for (any other counts as a word's), read as :func:`in_stretches` reads them: all the
        texts' ids in order as one array, and how many each text has."""
        return in_stretches(texts, limit, chars_per_token, self._stretch_ids)

    def _stretch_ids(self, stretches: Sequence[str], missing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ids of each stretch, at most as many as it misses, as one array and a count per stretch:
        its words (cut at whitespace by Arrow) numbered, each distinct word cut at its marks, each
        distinct piece looked up (those not met yet asked of the tokenizer at once)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        words = pc.ascii_split_whitespace(pa.array(stretches, pa.string()))
        per_stretch = pc.list_value_length(words).to_numpy()
        numbered = pc.dictionary_encode(pc.list_flatten(words))
        distinct = numbered.dictionary
        if self._marked is not None:
            distinct = pc.replace_substring_regex(distinct, pattern=self._marked, replacement=" \\1 ")
        pieces = pc.ascii_split_whitespace(distinct)
        per_word = pc.list_value_length(pieces).to_numpy()
        pieces_numbered = pc.dictionary_encode(pc.list_flatten(pieces))
        names = pieces_numbered.dictionary.to_pylist()
        lookup = self._learn({p for p in names if p}.difference(self._table))
        got = [lookup(p) if p else [] for p in names]  # "": what a cut at the edge of a text leaves
        piece_counts = np.fromiter(map(len, got), np.int64, len(got))
        piece_ids = np.fromiter(chain.from_iterable(got), np.int64, int(piece_counts.sum()))
        # Each distinct word's ids: its pieces' ids in order; then each word's, in order.
        of_pieces, per_piece = runs(piece_ids, np.cumsum(piece_counts) - piece_counts, piece_counts,
                                    pieces_numbered.indices.to_numpy())  # fmt: skip
        word_counts = _sums(per_piece, per_word)
        ids, per_occurrence = runs(of_pieces, np.cumsum(word_counts) - word_counts, word_counts,
                                   numbered.indices.to_numpy())  # fmt: skip
        counts = _sums(per_occurrence, per_stretch)
        if not len(ids) or int(counts.max()) <= int(np.min(missing)):
            return ids, counts
        kept = np.minimum(counts, missing)
        owner = np.repeat(np.arange(len(counts)), counts)
        within = np.arange(len(ids)) - (np.cumsum(counts) - counts)[owner]
        return ids[within < kept[owner]], kept

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


def in_text_order(
    count: int, reads: Sequence[tuple[Sequence[int] | np.ndarray, np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """``count`` texts' ids from ``reads`` of some of them (each: the texts it read, in ascending order,
    their ids one text after the other, and how many each got), put back in text order, a text read
    more than once with its reads in order; and how many ids each text has (none: 0)."""
    if not reads:
        return np.zeros(0, np.int64), np.zeros(count, np.int64)
    owners = np.concatenate([np.asarray(r[0], np.int64) for r in reads])
    counts = np.concatenate([r[2] for r in reads])
    totals = np.zeros(count, np.int64)
    np.add.at(totals, owners, counts)
    if len(reads) == 1 and len(owners) == count:  # one read of every text: in order already
        return reads[0][1], totals
    order = np.argsort(owners, kind="stable")
    return runs(np.concatenate([r[1] for r in reads]), np.cumsum(counts) - counts, counts, order)[0], totals


def per_text(ids: np.ndarray, counts: np.ndarray) -> list[list[int]]:
    """``ids`` (texts' ids one text after the other) as a list per text, ``counts[i]`` in the ``i``-th."""
    return [part.tolist() for part in np.split(ids, np.cumsum(counts)[:-1])] if len(counts) else []


def runs(
    values: np.ndarray, starts: np.ndarray, counts: np.ndarray, take: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``values[starts[i] : starts[i] + counts[i]]`` for each ``i`` of ``take``, one after the
    other, and each one's length."""
    lengths = counts[take]
    total = int(lengths.sum())
    if not total:
        return values[:0], lengths
    ends = np.cumsum(lengths)
    return values[np.repeat(starts[take] - (ends - lengths), lengths) + np.arange(total)], lengths


def _sums(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The sums of consecutive groups of ``values``, ``groups[i]`` of them in the ``i``-th (none: 0)."""
    totals = np.concatenate(([0], np.cumsum(values)))
    ends = np.cumsum(groups)
    return totals[ends] - totals[ends - groups]


def in_stretches(
    texts: Sequence[str],
    limit: int,
    chars_per_token: int,
    read: Callable[[Sequence[str], np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """The first ``limit`` ids of each of ``texts``, each text read a stretch at a time: each cut before a
    whitespace (where BERT's tokenizer cuts words: the ids of the stretches, in order, are the ids of the
    whole), ``chars_per_token`` characters for each token still missing, the next stretch only for a text
    still short of ``limit``. ``read(stretches, missing)``: the ids of the stretches, one after the
    other, at most ``missing[i]`` of the ``i``-th, and how many each has. Returns all the texts' ids in
    order as one array, and how many each text has."""
    n = len(texts)
    done = [0] * n  # characters of each text read so far
    have = np.zeros(n, np.int64)
    reads: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # per round: texts, their ids, counts
    todo = [k for k, t in enumerate(texts) if t]
    while todo:
        missing = limit - have[todo]
        stretches = [
            before_space(texts[k][done[k] :], int(m) * chars_per_token)
            for k, m in zip(todo, missing, strict=True)
        ]
        ids, counts = read(stretches, missing)
        reads.append((np.asarray(todo, np.int64), ids, counts))
        have[todo] += counts
        for k, stretch in zip(todo, stretches, strict=True):
            done[k] += len(stretch)
        todo = [k for k in todo if done[k] < len(texts[k]) and have[k] < limit]
    return in_text_order(n, reads)  # each text's first stretch, then its next ones


def before_space(text: str, chars: int) -> str:
    """``text`` up to the last space, tab or line break before ``chars`` characters; all of it when it
    is no longer, or has none there."""
    if len(text) <= chars:
        return text
    k = max(text.rfind(" ", 0, chars), text.rfind("\n", 0, chars), text.rfind("\t", 0, chars))
    return text[:k] if k > 0 else text

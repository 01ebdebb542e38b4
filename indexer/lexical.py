"""BM25 over the indexed chunks: how the text retriever ranks a natural-language query.

ripgrep finds where a query's words occur in the live files, but ranking chunks by those matches
knows nothing of how long a chunk is or how many chunks use a word. This module keeps a real
inverted index of the chunks of one published snapshot and scores them with BM25 (Lucene's
variant, k1 = 1.5, b = 0.75).

Tokens are code-aware: every identifier counts whole and also split on ``snake_case`` and
``camelCase``, lower-cased, English stop words dropped, and stemmed (Snowball, via PyStemmer), so
"retries the failed uploads" meets ``retry_failed_upload`` and ``RetryPolicy``. A word is letters and
digits of any script (``Před``, ``größe``; a run of CJK characters is one token). A chunk's text is
what was embedded for it: the path/scope header, then its lines.

The index is built from the ``chunks`` table a window at a time (:meth:`LexicalIndex.build`: Arrow
splits the texts, numpy builds the postings; each distinct identifier of a window is tokenised once)
and kept as compact arrays: int32 postings, uint16 counts, per-chunk file ids and codes, strings in
one buffer, and the vocabulary as 64-bit hashes of the tokens (:func:`token_hashes`). Saved, it is
one file (:mod:`indexer.bm25_file`) that a fresh process maps instead of loading: a search reads the
postings of its tokens and the rows of its hits. It is cached per published chunks version (see
:meth:`indexer.index.Index.lexical` and :mod:`indexer.bm25_store`). Over the Linux kernel's
1,056,739 chunks (3.9M distinct tokens, 64.7M postings) the build takes about 60 s on two cores (two
helper processes tokenise, :meth:`LexicalIndex.build`) and the file is 1 GB; a cold process's first
search maps it in about a second (BENCHMARKS §9).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from hashlib import blake2b
from itertools import chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from indexer import bm25_file
from models import lazy_module

if TYPE_CHECKING:
    from concurrent.futures import Executor, Future

    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
else:  # imported on first use: the tokenizer (``code_tokens``) needs neither
    np = lazy_module("numpy")
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")

K1 = 1.5
B = 0.75
SAVED_FORMAT = 5  # bump when the tokenizer or the saved arrays change (5: words of any script)
COLUMNS = ["path", "start_line", "end_line", "symbol", "kind", "language", "content_hash", "text"]

# One stop list for chunks and queries alike: English function words, the question words of a
# sentence ("where do we …"), and keywords of programming languages, which match nearly every chunk
# of a code base and carry little meaning in a sentence ("Return the running loop").
_STOP_TEXT = """a an and are as at be been being but by can could do does did done for from has have had if
in into onto is it its itself of on or so such that the their then there these this those to was were
when which while will with would should may might must not no yes you your we our i me my he she they them
us how what where who whom why over under about above below between than via per all any each every some
else function functions method methods return returns self none true false null nil def elif lambda yield
void var let const"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
#: A run of identifier characters: letters and digits of any script, and the underscore (``Před``,
#: ``größe``, ``重试``: whole words, not the ASCII letters between their accents).
_PIECE = re.compile(r"\w+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def identifier_parts(piece: str) -> list[str]:
    """The words of one run of identifier characters as written: ``HTTPServer2`` → ``HTTP``,
    ``Server``, ``2``; ``retry_policy`` → ``retry``, ``policy``; ``GrößeÄndern`` → ``Größe``,
    ``Ändern``."""
    return _CAMEL.findall(piece) if piece.isascii() else _unicode_parts(piece)


def name_words(name: str) -> list[str]:
    """The parts of a bare ``name`` that a sentence may spell in words: its parts of two letters or
    more, letters only, lower-cased (``get_event_loop`` → get, event, loop; ``toJSON2`` → to, json)."""
    return words_of_parts(identifier_parts(name))


def words_of_parts(parts: Iterable[str]) -> list[str]:
    """:func:`name_words` of a name already split (:func:`identifier_parts`), or of some of its parts."""
    return [p.lower() for p in parts if len(p) >= 2 and p.isalpha()]


# The widths in bits that numeric types are named with (``u32``, ``int64``, ``f16``)
NUMERIC_WIDTHS = ("8", "16", "24", "32", "40", "48", "56", "64", "128")
_TYPE_KINDS = frozenset({"i", "u", "f", "int", "uint", "float"})


def name_widths(parts: Sequence[str]) -> tuple[frozenset[str], list[str]]:
    """The numeric types a name's parts (:func:`identifier_parts`) write, each as a short type name
    (``write_i64_into`` → ``i64``, ``ReadUint64`` → ``u64``, ``from_slice_f32`` → ``f32``), and its
    other parts."""
    widths: set[str] = set()
    rest: list[str] = []
    i = 0
    while i < len(parts):
        kind = parts[i].lower()
        if i + 1 < len(parts) and kind in _TYPE_KINDS and parts[i + 1] in NUMERIC_WIDTHS:
            widths.add(f"{kind[0]}{parts[i + 1]}")
            i += 2
            continue
        rest.append(parts[i])
        i += 1
    return frozenset(widths), rest


def typed_name_words(name: str) -> list[str]:
    """:func:`name_words` of a bare ``name`` with the numeric types it writes as parts of their own
    (:func:`name_widths`): ``get_u32`` → get, ``u32``; ``ReadUint64`` → read, ``u64``."""
    widths, rest = name_widths(identifier_parts(name))
    return [*words_of_parts(rest), *sorted(widths)] if widths else name_words(name)


def _unicode_parts(piece: str) -> list[str]:
    """:data:`_CAMEL`'s words for a piece with letters beyond ASCII: runs of capitals (the last one
    starting the next word when lower-case letters follow), a capital with the lower-case or caseless
    letters after it (a script without case is one run), runs of digits; anything else separates."""
    kinds = ["U" if c.isupper() else "L" if c.isalpha() else "D" if c.isdigit() else "_" for c in piece]
    out: list[str] = []
    i, n = 0, len(piece)
    while i < n:
        kind = kinds[i]
        j = i + 1
        while j < n and kinds[j] == kind:
            j += 1
        if kind == "U" and j < n and kinds[j] == "L":
            if j - i >= 2:  # HTTPServer: HTTP, then Server
                out.append(piece[i : j - 1])
                i = j - 1
                continue
            j += 1  # Server: the capital and the lower-case run after it
            while j < n and kinds[j] == "L":
                j += 1
        if kind != "_":
            out.append(piece[i:j])
        i = j
    return out


def _piece_tokens(piece: str) -> list[str]:
    """Raw tokens of one run of identifier characters: whole, and its snake/camel parts."""
    if piece.isalpha() and (piece.islower() or piece.isupper() or piece[1:].islower()):
        word = piece.lower()  # one plain word (the common case): nothing to split
        return [word] if len(word) > 1 and word not in STOP_WORDS else []
    parts = identifier_parts(piece)
    whole = piece.lower().strip("_")
    if len(parts) <= 1:
        return [whole] if len(whole) > 1 and whole not in STOP_WORDS else []
    return [t for t in (whole, *map(str.lower, parts)) if len(t) > 1 and t not in STOP_WORDS]


def stem_words(words: list[str]) -> list[str]:
    """The stems of lower-cased ``words`` (Snowball English), the stemmer every token goes through."""
    return list(_stemmer().stemWords(words)) if words else []


def code_tokens(text: str) -> list[str]:
    """Tokens of ``text``: identifiers whole and split on snake/camel case, lower-cased, stop words
    out, stemmed. The same function tokenises chunks and queries."""
    raw = [t for piece in _PIECE.findall(text) for t in _piece_tokens(piece)]
    return list(_stemmer().stemWords(raw)) if raw else []


def phrase_tokens(text: str) -> tuple[tuple[str, ...], ...]:
    """:func:`code_tokens` of each whitespace-separated word of ``text`` (a query's tokens, kept per
    word so that a phrase's first and last words can be told apart); tokens never cross whitespace, so
    together they are ``code_tokens(text)``."""
    return tuple(tuple(code_tokens(word)) for word in text.split())


_ASCII_WORD = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
_KEEP = frozenset(_ASCII_WORD) | frozenset(range(128, 256))  # and every byte of a non-ASCII character
_BLANK = bytes(c if c in _KEEP else 32 for c in range(256))


def _blank_separators(texts: pa.Array) -> pa.Array:
    """``texts`` with every ASCII byte that cannot be part of an identifier turned into a space, so
    that splitting on whitespace yields identifier pieces; the UTF-8 bytes of other characters stay
    (the UTF-8 stays valid: no ASCII byte is part of another character), and a piece that holds
    them is split again on :data:`_PIECE` (:func:`_tokenise_distinct`), as a query is."""
    validity, offsets, data = texts.buffers()
    if data is None:
        return texts
    blanked = pa.py_buffer(data.to_pybytes().translate(_BLANK))
    return pa.Array.from_buffers(
        texts.type, len(texts), [validity, offsets, blanked], texts.null_count, texts.offset
    )


def _tokenise_distinct(pieces: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """:func:`code_tokens` of each piece, as numbers: the distinct tokens in order of first sight, how
    many tokens each piece has, and the number of each token, piece after piece. Each distinct raw
    token is stemmed once; Arrow numbers the raw tokens and their stems (a dict did, a token at a time:
    a fifth of a helper's time over the Linux tree)."""
    raw = [
        _piece_tokens(p) if p.isascii() else [t for w in _PIECE.findall(p) for t in _piece_tokens(w)]
        for p in pieces
    ]
    lengths = np.fromiter(map(len, raw), np.int64, len(raw))
    flat = list(chain.from_iterable(raw))
    if not flat:
        return [], lengths, np.zeros(0, np.int64)
    words = pc.dictionary_encode(pa.array(flat, pa.string()))
    stems = pc.dictionary_encode(pa.array(_stemmer().stemWords(words.dictionary.to_pylist()), pa.string()))
    # A stem is first seen with the first of its raw tokens: numbered in the same order.
    numbers = stems.indices.to_numpy().astype(np.int64)[words.indices.to_numpy()]
    return stems.dictionary.to_pylist(), lengths, numbers


_NONE = "\x00"  # a missing value in a saved text column (no path or name holds a NUL)
#: Postings built at once: more are sorted a range of token ids at a time, which bounds the memory
#: a million chunks need (tens of millions of postings) to a few arrays of this size.
POSTINGS_BUCKET = 1 << 22
_HELPER_AHEAD = 4  # windows a build's helpers tokenise ahead of the one being counted
_TF_MAX = (1 << 16) - 1
#: Bytes of a build's token lists held in memory; past this they go to a temporary file (:class:`_Parts`).
SPILL_BYTES = 64 << 20


class _Strings:
    """Many strings (``None`` allowed) as one UTF-8 buffer and offsets; each decoded when read."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray) -> None:
        self.data = data
        self.offsets = offsets

    @classmethod
    def of(cls, values: Sequence[str | None]) -> _Strings:
        encoded = [(_NONE if v is None else v).encode("utf-8", "surrogatepass") for v in values]
        lengths = np.fromiter((len(b) for b in encoded), np.int64, len(encoded))
        return cls(np.frombuffer(b"".join(encoded), np.uint8), np.concatenate(([0], np.cumsum(lengths))))

    @classmethod
    def joined(cls, parts: Sequence[_Strings]) -> _Strings:
        if not parts:
            return cls.of([])
        bases = np.cumsum([0, *(len(p.data) for p in parts[:-1])])
        offsets = np.concatenate([[0], *(p.offsets[1:] + base for p, base in zip(parts, bases, strict=True))])
        return cls(np.concatenate([p.data for p in parts]), offsets.astype(np.int64))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int) -> str | None:
        value = self.data[int(self.offsets[i]) : int(self.offsets[i + 1])].tobytes()
        return None if value == b"\x00" else value.decode("utf-8", "surrogatepass")

    def tolist(self) -> list[str | None]:
        return [self[i] for i in range(len(self))]

    def equals_column(self, column: pa.ChunkedArray | pa.Array) -> bool:
        """Whether ``column`` (strings) holds these values, compared buffer to buffer."""
        if len(column) != len(self):
            return False
        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        array = pc.fill_null(array.cast(pa.large_string()), _NONE)
        if not len(array):
            return True
        _validity, offsets, data = array.buffers()
        at = np.frombuffer(offsets, np.int64, len(array) + 1, array.offset * 8)
        values = (
            np.frombuffer(data, np.uint8, int(at[-1] - at[0]), int(at[0])) if data else np.zeros(0, np.uint8)
        )
        return bool(np.array_equal(at - at[0], self.offsets) and np.array_equal(values, self.data))


def token_hashes(tokens: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each token (BLAKE2b): what the vocabulary keeps instead of the token. A
    million chunks of C hold about four million distinct tokens (identifiers, hex constants): as
    Python strings in a dict they took over a gigabyte; as hashes, 8 bytes each, sorted, found by
    binary search. Two tokens of one index share a hash with odds of about one in a million."""
    return np.fromiter(
        (
            int.from_bytes(blake2b(t.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
            for t in tokens
        ),
        np.uint64,
        len(tokens),
    )


_FOUND_CACHE = 4096  # query tokens whose vocabulary positions a _Vocab keeps


class _Vocab:
    """Token → id, by hash (:func:`token_hashes`): ``keys`` sorted, ``ids`` alongside. Ids are given
    in order of first sight and never change, so a new version built on this one keeps them."""

    def __init__(self, keys: np.ndarray | None = None, ids: np.ndarray | None = None) -> None:
        self.keys = keys if keys is not None else np.zeros(0, np.uint64)
        self.ids = ids if ids is not None else np.zeros(0, np.int32)
        # Positions of the tokens searches asked for: a lookup hashes the token and searches the keys
        # (~10 µs with numpy's per-call cost), and a query's tokens are asked for several times per
        # search and again by the next searches. Emptied by add() and when full.
        self._found: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def _find(self, token: str) -> int:
        at = self._found.get(token)
        if at is not None:
            return at
        key = token_hashes([token])[0]
        at = int(np.searchsorted(self.keys, key))
        at = at if at < len(self.keys) and self.keys[at] == key else -1
        if len(self._found) >= _FOUND_CACHE:
            self._found = {}
        self._found[token] = at
        return at

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and self._find(token) >= 0

    def __getitem__(self, token: str) -> int:
        at = self._find(token)
        if at < 0:
            raise KeyError(token)
        return int(self.ids[at])

    def copy(self) -> _Vocab:
        return _Vocab(np.array(self.keys), np.array(self.ids))

    def add(self, hashes: np.ndarray) -> np.ndarray:
        """The ids of the tokens of ``hashes`` (:func:`token_hashes`); those not known yet get the next
        ids, in the order of their hashes. One binary search of the keys: a million chunks' windows
        ask for ~60,000 tokens each among millions of keys."""
        self._found = {}  # positions move when keys are inserted
        keys = self.keys
        at = np.searchsorted(keys, hashes)
        known = np.zeros(len(hashes), bool)
        inside = at < len(keys)
        known[inside] = keys[at[inside]] == hashes[inside]
        out = np.empty(len(hashes), np.int64)
        out[known] = self.ids[at[known]]
        if not known.all():
            new, first, inverse = np.unique(hashes[~known], return_index=True, return_inverse=True)
            fresh = np.arange(len(keys), len(keys) + len(new), dtype=np.int32)
            out[~known] = fresh[inverse]
            where = at[~known][first]  # where each new key goes among the old ones
            self.keys, self.ids = np.insert(keys, where, new), np.insert(self.ids, where, fresh)
        return out


def _ints(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    return np.asarray(column.to_pylist() if column.null_count else column.to_numpy(), np.int32)


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions ``starts[i] … starts[i] + lengths[i] - 1`` of every ``i``, in order."""
    total = int(lengths.sum())
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total)


class _Codes:
    """A column of few distinct values (kinds, languages): a code per row and the values."""

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self._no: dict[str | None, int] = {}

    def encode(self, values: list[str | None]) -> np.ndarray:
        no = self._no
        for value in dict.fromkeys(values):
            if value not in no:
                no[value] = len(self.names)
                self.names.append(value)
        return np.fromiter((no[v] for v in values), np.int32, len(values))


@dataclass(frozen=True, slots=True)
class LexicalHit:
    path: str
    start_line: int
    end_line: int
    symbol: str | None
    kind: str | None
    language: str | None
    score: float
    coverage: float  # idf-weighted share of the query's tokens that the chunk holds


class _Parts:
    """Arrays of one dtype appended a window at a time and wanted at the end as one. Past
    :data:`SPILL_BYTES` they go to an anonymous temporary file, read back once into the one array:
    the token lists of a million chunks (390 MB) are then neither held while the windows are read
    nor twice at the end, and the heap does not keep the pieces (on the Linux tree the build's peak
    went from 2.4 to ~1.4 GB). Without temporary space they stay in memory."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)
        self.pieces: list[np.ndarray] = []
        self.held = 0
        self.size = 0
        self.file: Any = None

    def __len__(self) -> int:
        return self.size

    def append(self, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array, self.dtype)
        self.size += len(array)
        if self.file is not None:
            self.file.write(array.data)
            return
        self.pieces.append(array)
        self.held += array.nbytes
        if self.held > SPILL_BYTES:
            try:
                self.file = tempfile.TemporaryFile(prefix="plait-bm25-")  # noqa: SIM115 (closed by array())
            except OSError:
                return  # no temporary space: they stay in memory
            for piece in self.pieces:
                self.file.write(piece.data)
            self.pieces, self.held = [], 0

    def array(self) -> np.ndarray:
        """All of them: a read-only mapping of the temporary file once spilled (its pages are read
        when touched), else one array (each piece freed once copied: never two copies)."""
        if self.file is not None:
            self.file.flush()
            if not self.size:
                return np.zeros(0, self.dtype)
            return np.memmap(self.file, self.dtype, mode="r", shape=(self.size,))
        if len(self.pieces) == 1:
            return self.pieces[0]
        out = np.empty(self.size, self.dtype)
        at = 0
        while self.pieces:
            piece = self.pieces.pop(0)
            out[at : at + len(piece)] = piece
            at += len(piece)
        self.pieces = [out]
        return out

    def blocks(self, size: int) -> Iterator[tuple[int, np.ndarray]]:
        """``(start, values)`` of ``size`` values at a time, read from the file with ``pread`` once
        spilled, so that only a block is resident."""
        step = size * self.dtype.itemsize
        if self.file is not None:
            self.file.flush()  # what is still in the write buffer
        for start in range(0, self.size, size):
            if self.file is None:
                yield start, self.array()[start : start + size]
            else:
                data = os.pread(self.file.fileno(), step, start * self.dtype.itemsize)
                yield start, np.frombuffer(data, self.dtype)

    def write_to(self, fh: Any) -> None:
        """Copy them to ``fh`` a block at a time (from the file once spilled)."""
        for _start, values in self.blocks(1 << 22):
            fh.write(values.data)


class _Build:
    """A :class:`LexicalIndex` being built from windows of chunks (:meth:`LexicalIndex.build`)."""

    def __init__(self, previous: LexicalIndex | None) -> None:
        self.previous = previous
        self.vocab = previous._vocab.copy() if previous is not None else _Vocab()
        self.known = previous._row_of() if previous is not None else {}
        self.file_no: dict[str, int] = {}
        self.kinds, self.languages = _Codes(), _Codes()
        self.parts: dict[str, list[np.ndarray]] = {
            k: [] for k in ("file", "start", "end", "kind", "language", "count", "len")
        }
        self.tokens, self.tf = _Parts(np.int32), _Parts(np.uint16)  # the big ones: spilled to a file
        self.symbols: list[_Strings] = []
        self.hashes: list[_Strings] = []

    def todo(self, rows: pa.Table | pa.RecordBatch) -> pa.ChunkedArray | pa.Array | None:
        """The texts of ``rows`` that :meth:`add` tokenises: those whose content the previous index
        does not hold (``None``: none)."""
        texts = rows.column("text")
        if not self.known:  # no previous index (a first build): every text is new
            return texts
        return _taken(texts, self._fresh(rows.column("content_hash").to_pylist())[1])

    def _fresh(self, hashes: list[str | None]) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk, its row in the previous index (-1: none), and the chunks without one."""
        known = self.known
        reused = np.fromiter(
            (known.get(h, -1) if h is not None else -1 for h in hashes), np.int64, len(hashes)
        )
        return reused, np.flatnonzero(reused < 0)

    def add(self, rows: pa.Table | pa.RecordBatch, pairs: _Pairs | None = None) -> None:
        """Add a window of chunks; ``pairs``: the first half of tokenising its :meth:`todo` texts,
        done already (elsewhere)."""
        n = rows.num_rows
        if n == 0:
            return
        paths = rows.column("path").to_pylist()
        file_no = self.file_no
        parts = self.parts
        parts["file"].append(np.fromiter((file_no.setdefault(p, len(file_no)) for p in paths), np.int32, n))
        parts["start"].append(_ints(rows.column("start_line")))
        parts["end"].append(_ints(rows.column("end_line")))
        parts["kind"].append(self.kinds.encode(rows.column("kind").to_pylist()))
        parts["language"].append(self.languages.encode(rows.column("language").to_pylist()))
        self.symbols.append(_Strings.of(rows.column("symbol").to_pylist()))
        hashes = rows.column("content_hash").to_pylist()
        self.hashes.append(_Strings.of(hashes))
        offsets, tokens, tf = self._tokens(rows.column("text"), hashes, pairs)
        counts = np.diff(offsets)
        parts["count"].append(counts)
        self.tokens.append(tokens.astype(np.int32))
        self.tf.append(np.minimum(tf, _TF_MAX).astype(np.uint16))
        owner = np.repeat(np.arange(n, dtype=np.int64), counts)
        parts["len"].append(np.bincount(owner, weights=tf, minlength=n).astype(np.int32))

    def _tokens(
        self, texts: pa.ChunkedArray | pa.Array, hashes: list[str | None], pairs: _Pairs | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Doc-major ``(offsets, token ids, counts)`` of one window: the previous index's tokens for
        chunks whose content it holds, the tokenizer's for the others."""
        n = len(hashes)
        previous = self.previous
        reused, fresh = self._fresh(hashes)
        if pairs is None:
            pairs = _pairs(_taken(texts, fresh))
        new_offsets, new_tokens, new_tf = _counted(pairs, self.vocab)
        if previous is None or len(fresh) == n:
            return new_offsets, new_tokens, new_tf
        # Gather each chunk's slice from the previous index or from the freshly tokenised ones.
        lengths = np.zeros(n, np.int64)
        lengths[fresh] = np.diff(new_offsets)
        old = np.flatnonzero(reused >= 0)
        before = np.asarray(previous._doc_offsets)
        lengths[old] = before[reused[old] + 1] - before[reused[old]]
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        tokens, tf = np.empty(int(offsets[-1]), np.int64), np.empty(int(offsets[-1]), np.int64)
        into, source = _ranges(offsets[old], lengths[old]), _ranges(before[reused[old]], lengths[old])
        tokens[into], tf[into] = previous._doc_tokens[source], previous._doc_tf[source]
        into = _ranges(offsets[fresh], lengths[fresh])
        tokens[into], tf[into] = new_tokens, new_tf
        return offsets, tokens, tf

    def finish(self) -> LexicalIndex:
        parts = self.parts

        def joined(key: str, dtype: Any) -> np.ndarray:
            """The parts of ``key`` in one array, each part freed once copied (never two copies)."""
            pieces = parts[key]
            got = np.empty(sum(len(p) for p in pieces), dtype)
            at = 0
            while pieces:
                piece = pieces.pop(0)
                got[at : at + len(piece)] = piece
                at += len(piece)
            return got

        index = LexicalIndex.__new__(LexicalIndex)
        index._vocab = self.vocab
        names = list(self.file_no)
        order = sorted(range(len(names)), key=names.__getitem__)
        renumber = np.empty(len(names), np.int32)
        renumber[order] = np.arange(len(names), dtype=np.int32)
        index._files = [names[i] for i in order]
        index._doc_file = renumber[joined("file", np.int32)] if names else np.zeros(0, np.int32)
        index.size = len(index._doc_file)
        index._starts, index._ends = joined("start", np.int32), joined("end", np.int32)
        index._kind_codes, index._kind_names = joined("kind", np.int32), self.kinds.names
        index._language_codes, index._language_names = joined("language", np.int32), self.languages.names
        index._symbols = _Strings.joined(self.symbols)
        index._hashes = _Strings.joined(self.hashes)
        counts = joined("count", np.int64)
        index._doc_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        index._doc_len = joined("len", np.int32)
        index._offsets, docs, tf = _postings(index._doc_offsets, self.tokens, self.tf, len(self.vocab))
        index._docs, index._tf = docs.array(), tf.array()
        index._doc_tokens, index._doc_tf = self.tokens.array(), self.tf.array()
        index._spilled = {"doc_tokens": self.tokens, "doc_tf": self.tf, "docs": docs, "tf": tf}
        index._derive()
        return index


def _postings(
    doc_offsets: np.ndarray, doc_tokens: _Parts, doc_tf: _Parts, width: int
) -> tuple[np.ndarray, _Parts, _Parts]:
    """Token-major postings ``(offsets, documents, counts)`` of doc-major token lists; documents
    ascending within a token. Made :data:`POSTINGS_BUCKET` postings (a range of token ids) at a time
    and appended to parts that spill to a temporary file as the token lists do: neither is ever all
    resident (the Linux tree's postings are 66 million, 400 MB). With more than one range, one pass
    over the token lists deals each block's postings out to their ranges (:func:`_dealt`), and each
    range is then sorted alone."""
    counts = np.zeros(width, np.int64)
    for _start, block in doc_tokens.blocks(POSTINGS_BUCKET):
        counts += np.bincount(block, minlength=width)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    bounds = [0]
    while bounds[-1] < width:  # the widest range of tokens whose postings fit a bucket (one token at least)
        lo = bounds[-1]
        hi = max(lo + 1, int(np.searchsorted(offsets, offsets[lo] + POSTINGS_BUCKET, "right")) - 1)
        bounds.append(min(hi, width))
    docs, tf = _Parts(np.int32), _Parts(np.uint16)
    ranges = _dealt(doc_offsets, doc_tokens, doc_tf, bounds) if len(bounds) > 2 else None
    if ranges is None:  # one range, or no temporary space: each range found by reading every block
        ranges = (_in_range(doc_offsets, doc_tokens, doc_tf, lo, hi) for lo, hi in pairwise(bounds))
    for lo, (tokens, where, counted) in zip(bounds[:-1], ranges, strict=True):
        # token, then position: a unique key, so the fast unstable sort keeps documents ascending
        key = ((tokens.astype(np.int64) - lo) << 32) | np.arange(len(tokens), dtype=np.int64)
        key.sort()
        order = key & 0xFFFFFFFF
        docs.append(where[order])
        tf.append(counted[order])
    return offsets, docs, tf


def _documents(doc_offsets: np.ndarray, start: int, size: int) -> np.ndarray:
    """The document of each of the token positions ``start`` … ``start + size - 1``."""
    first = int(np.searchsorted(doc_offsets, start, "right")) - 1
    last = int(np.searchsorted(doc_offsets, start + size, "left"))
    edges = np.clip(doc_offsets[first : last + 1], start, start + size)
    return np.repeat(np.arange(first, last, dtype=np.int32), np.diff(edges))


def _in_range(
    doc_offsets: np.ndarray, doc_tokens: _Parts, doc_tf: _Parts, lo: int, hi: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The postings of tokens ``lo`` … ``hi - 1`` in position order: ``(tokens, documents, counts)``."""
    at, tokens, counted = [], [], []
    for (start, block), (_, block_tf) in zip(
        doc_tokens.blocks(POSTINGS_BUCKET), doc_tf.blocks(POSTINGS_BUCKET), strict=True
    ):
        inside = np.flatnonzero((block >= lo) & (block < hi))
        at.append(inside + start)
        tokens.append(block[inside])
        counted.append(block_tf[inside])
    if not tokens:
        return np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.uint16)
    where = np.searchsorted(doc_offsets, np.concatenate(at), "right") - 1
    return np.concatenate(tokens), where.astype(np.int32), np.concatenate(counted)


def _dealt(
    doc_offsets: np.ndarray, doc_tokens: _Parts, doc_tf: _Parts, bounds: list[int]
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]] | None:
    """The postings of each range of ``bounds`` in position order, as :func:`_in_range` gives them, from
    one pass over the token lists: each block's postings are ordered by range (a stable sort of the
    range numbers) and written to a temporary file, and each range is read back from its pieces.
    None without temporary space. (The Linux tree's 66 million postings, 16 ranges: their postings made
    in 14.4 s when every range read every block, 7.6 s dealt, the same arrays.)"""
    try:
        spill = tempfile.TemporaryFile(prefix="plait-bm25-")  # noqa: SIM115 (closed by the reader below)
    except OSError:
        return None
    ranges = len(bounds) - 1
    narrow = np.uint16 if ranges <= 1 << 16 else np.uint32  # (16 bits: a radix sort)
    range_of = np.repeat(np.arange(ranges, dtype=narrow), np.diff(bounds))
    pieces: list[list[tuple[int, int, np.dtype[Any]]]] = [[] for _ in range(ranges)]
    try:
        written = 0
        for (start, block), (_, block_tf) in zip(
            doc_tokens.blocks(POSTINGS_BUCKET), doc_tf.blocks(POSTINGS_BUCKET), strict=True
        ):
            numbers = range_of[block]
            order = np.argsort(numbers, kind="stable")  # a radix sort of 16-bit numbers
            cuts = np.searchsorted(numbers[order], np.arange(ranges + 1)).tolist()
            for values in (block, _documents(doc_offsets, start, len(block)), block_tf):
                dealt = np.ascontiguousarray(values[order])
                spill.write(dealt.data)
                for k in range(ranges):
                    if cuts[k] < cuts[k + 1]:
                        pieces[k].append(
                            (written + cuts[k] * dealt.itemsize, cuts[k + 1] - cuts[k], dealt.dtype)
                        )
                written += dealt.nbytes
        spill.flush()
    except BaseException:
        spill.close()
        raise
    return _read_dealt(spill, pieces)


def _read_dealt(
    spill: Any, pieces: list[list[tuple[int, int, np.dtype[Any]]]]
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each range's ``(tokens, documents, counts)`` from its pieces in ``spill`` (closed at the end)."""
    try:
        fd = spill.fileno()
        for where in pieces:
            got = [np.frombuffer(os.pread(fd, size * dtype.itemsize, at), dtype) for at, size, dtype in where]
            if not got:
                yield np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0, np.uint16)
                continue
            yield np.concatenate(got[0::3]), np.concatenate(got[1::3]), np.concatenate(got[2::3])
    finally:
        spill.close()


def _taken(texts: pa.ChunkedArray | pa.Array, fresh: np.ndarray) -> pa.ChunkedArray | pa.Array | None:
    """The texts at the positions ``fresh`` (all of them: ``texts`` itself; none: ``None``)."""
    return texts if len(fresh) == len(texts) else texts.take(pa.array(fresh)) if len(fresh) else None


@dataclass(frozen=True, slots=True)
class _Pairs:
    """A window's texts as counted (document, token) pairs, the tokens numbered within the window: the
    first half of tokenising it (:func:`_pairs`: splitting, stemming, hashing, counting), which needs
    no vocabulary and so may run in another process while this one numbers the window before
    (:meth:`LexicalIndex.build`'s ``helper``)."""

    count: int  # texts in the window
    hashes: np.ndarray  # the window's distinct tokens (:func:`token_hashes`), in order of first sight
    docs: np.ndarray  # per pair: the text it is in, ascending
    local: np.ndarray  # per pair: its token, an index into ``hashes`` (ascending within a text)
    tf: np.ndarray  # per pair: how often the token is in the text


def _pairs(texts: pa.ChunkedArray | pa.Array | None) -> _Pairs:
    """:class:`_Pairs` of ``texts``: each distinct piece of text is tokenised once."""
    empty = np.zeros(0, np.int64)
    count = len(texts) if texts is not None else 0
    if texts is None or count == 0:
        return _Pairs(count, np.zeros(0, np.uint64), empty, empty, empty)
    array = texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts
    pieces = pc.ascii_split_whitespace(_blank_separators(array))
    owner = pc.list_parent_indices(pieces).to_numpy()
    encoded = pc.dictionary_encode(pc.list_flatten(pieces))
    occurrence = encoded.indices.to_numpy().astype(np.int64)
    local, lengths, flat = _tokenise_distinct(encoded.dictionary.to_pylist())  # this window's tokens
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    # Expand every occurrence of a piece into its tokens: (document, token) pairs.
    per = lengths[occurrence]
    total = int(per.sum())
    if total == 0:
        return _Pairs(count, np.zeros(0, np.uint64), empty, empty, empty)
    ends = np.cumsum(per)
    at = np.repeat(starts[occurrence] - (ends - per), per) + np.arange(total)
    width = len(local)
    keys, tf = np.unique(np.repeat(owner, per) * width + flat[at], return_counts=True)
    return _Pairs(count, token_hashes(local), keys // width, keys % width, tf)


def _helped(
    rows: pa.Table | pa.RecordBatch, todo: pa.ChunkedArray | pa.Array | None, job: Future[_Pairs] | None
) -> tuple[pa.Table | pa.RecordBatch, _Pairs | None]:
    """A window and its pairs from the helper (``None``: tokenised here, as when the helper failed)."""
    from concurrent.futures import BrokenExecutor

    if job is None:
        return rows, None
    try:
        return rows, job.result()
    except BrokenExecutor:
        import logging  # here: a warm search imports this module, and no logging

        logging.getLogger(__name__).warning("a BM25 tokenising helper stopped; tokenising in this process")
        return rows, _pairs(todo)


def _counted(pairs: _Pairs, vocab: _Vocab) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Doc-major ``(offsets, token ids, counts)`` of a window's pairs, token ids ascending within a
    doc; new tokens join ``vocab``."""
    empty = np.zeros(0, np.int64)
    if not len(pairs.docs):
        return np.zeros(pairs.count + 1, np.int64), empty, empty
    ids = vocab.add(pairs.hashes)[pairs.local]
    width = len(vocab)
    keys, tf = _by_doc_then_id(pairs.docs * width + ids, pairs.tf)
    offsets = np.searchsorted(keys // width, np.arange(pairs.count + 1))
    return offsets, keys % width, tf


def _by_doc_then_id(keys: np.ndarray, tf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``keys`` (distinct, ``doc * width + id``) ascending and their counts alongside. Both fit one
    int64 in any real window (a key of 34 bits over the Linux tree's 4,096 chunks and 3.9M tokens, a
    count of 17): sorted as one array, which takes less than half the time of an indirect sort."""
    shift = int(tf.max()).bit_length()
    if int(keys.max()).bit_length() + shift < 63:
        packed = np.sort((keys << shift) | tf)
        return packed >> shift, packed & ((1 << shift) - 1)
    order = np.argsort(keys)
    return keys[order], tf[order]


class LexicalIndex:
    """A BM25 index of chunks (see the module docstring): built in memory, or read memory-mapped
    from the file another process saved (:meth:`save`, :meth:`load`)."""

    size: int
    _vocab: _Vocab
    _files: list[str]
    _file_language: list[str | None]
    _file_no: dict[str, int] | None
    _doc_file: np.ndarray
    _starts: np.ndarray
    _ends: np.ndarray
    _kind_codes: np.ndarray
    _kind_names: list[str | None]
    _language_codes: np.ndarray
    _language_names: list[str | None]
    _symbols: _Strings
    _hashes: _Strings
    _doc_offsets: np.ndarray  # doc-major token lists: what the next version reuses
    _doc_tokens: np.ndarray
    _doc_tf: np.ndarray
    _doc_len: np.ndarray
    _offsets: np.ndarray  # token-major postings: what a search reads
    _docs: np.ndarray
    _tf: np.ndarray
    _avg_len: float
    _norm: np.ndarray
    _spilled: dict[str, _Parts] = {}  # noqa: RUF012 (never mutated): doc-major lists still in a build's temporary file
    _by_file: np.ndarray  # chunks by file, then start and end line (made on first use when built)
    _file_offsets: np.ndarray

    def __init__(self, table: pa.Table, previous: LexicalIndex | None = None) -> None:
        """Index the chunks of ``table`` (:data:`COLUMNS`). Chunks whose content hash ``previous``
        already holds reuse its tokens, so that indexing a new version costs the changed chunks."""
        built = LexicalIndex.build([table], previous)
        for name in _STATE:
            setattr(self, name, getattr(built, name))

    @classmethod
    def build(
        cls,
        windows: Iterable[pa.Table | pa.RecordBatch],
        previous: LexicalIndex | None = None,
        *,
        helper: Executor | None = None,
    ) -> LexicalIndex:
        """Index chunks read a window at a time (:data:`COLUMNS`), so that the texts of a million
        chunks are never all in memory: only their tokens are, as compact arrays. ``helper``: a
        process pool that tokenises the next windows while this process counts one (the same index,
        in less time on spare cores), shut down once the windows are read."""
        state = _Build(previous)
        if helper is None:
            for rows in windows:
                state.add(rows)
            return state.finish()
        # The first half of tokenising (:func:`_pairs`: splitting, the tokenizer's Python, most of the
        # time) runs in ``helper`` a few windows ahead; this process counts and numbers the tokens of
        # the window before meanwhile. Should the helper fail, this process tokenises in its place.
        # (imported here: it imports logging, which a warm search does not)
        from concurrent.futures import BrokenExecutor

        ahead: deque[tuple[pa.Table | pa.RecordBatch, Any, Future[_Pairs] | None]] = deque()
        for rows in windows:
            todo = state.todo(rows)
            try:
                job = helper.submit(_pairs, todo) if todo is not None else None
            except (BrokenExecutor, RuntimeError):
                job = None
            ahead.append((rows, todo, job))
            if len(ahead) > _HELPER_AHEAD:
                state.add(*_helped(*ahead.popleft()))
        while ahead:
            state.add(*_helped(*ahead.popleft()))
        helper.shutdown(wait=True)  # its processes' memory back before the postings are made
        return state.finish()

    def _derive(self) -> None:
        """What searches compute from the saved arrays: BM25's length norms, each file's language."""
        n = self.size
        lengths = np.asarray(self._doc_len, np.float64)
        self._avg_len = float(lengths.mean()) if n and lengths.any() else 1.0
        self._norm = (K1 * (1 - B + B * lengths / self._avg_len)).astype(np.float32)
        language = np.full(len(self._files), -1, np.int64)
        if n:
            language[self._doc_file] = self._language_codes  # the last chunk of a file wins
        names = self._language_names
        self._file_language = [names[c] if c >= 0 else None for c in language.tolist()]
        self._file_no = None

    # -- on disk: a fresh process (the CLI) maps what another one built -----------------------------
    def save(self, path: Path) -> None:
        """Write the index to ``path`` (:mod:`indexer.bm25_file`), atomically."""
        bm25_file.write(path, self._arrays(), self._meta())

    def _meta(self) -> dict[str, Any]:
        return {
            "format": SAVED_FORMAT,
            "size": self.size,
            "files": self._files,
            "kinds": self._kind_names,
            "languages": self._language_names,
        }

    def _arrays(self) -> dict[str, Any]:
        by_file = np.lexsort((self._ends, self._starts, self._doc_file)).astype(np.int32)
        file_offsets = np.searchsorted(self._doc_file[by_file], np.arange(len(self._files) + 1))
        return {
            "vocab_keys": np.asarray(self._vocab.keys, np.uint64),
            "vocab_ids": np.asarray(self._vocab.ids, np.int32),
            "offsets": np.asarray(self._offsets, np.int64),
            "docs": self._spilled.get("docs") or np.asarray(self._docs, np.int32),
            "tf": self._spilled.get("tf") or np.asarray(self._tf, np.uint16),
            "doc_offsets": np.asarray(self._doc_offsets, np.int64),
            "doc_tokens": self._spilled.get("doc_tokens") or np.asarray(self._doc_tokens, np.int32),
            "doc_tf": self._spilled.get("doc_tf") or np.asarray(self._doc_tf, np.uint16),
            "doc_len": np.asarray(self._doc_len, np.int32),
            "doc_file": np.asarray(self._doc_file, np.int32),
            "starts": np.asarray(self._starts, np.int32),
            "ends": np.asarray(self._ends, np.int32),
            "kinds": np.asarray(self._kind_codes, np.int32),
            "languages": np.asarray(self._language_codes, np.int32),
            "symbol_data": self._symbols.data,
            "symbol_offsets": self._symbols.offsets,
            "hash_data": self._hashes.data,
            "hash_offsets": self._hashes.offsets,
            "by_file": by_file,
            "file_offsets": file_offsets.astype(np.int64),
        }

    @classmethod
    def load_saved(cls, source: Path | bytes) -> LexicalIndex | None:
        """The index saved at ``source`` (a path, mapped; or the saved file's bytes), with the chunks'
        rows it was saved with; ``None`` when missing, of another format (an older plait's file), or
        inconsistent. The caller vouches that it belongs to the chunks it searches, or checks with
        :meth:`holds`."""
        saved = bm25_file.read(source)
        if saved is None or saved.meta.get("format") != SAVED_FORMAT:
            return None
        try:
            return cls._from_saved(saved)
        except (KeyError, TypeError, ValueError, IndexError):
            return None

    @classmethod
    def _from_saved(cls, saved: bm25_file.SavedArrays) -> LexicalIndex | None:
        meta = saved.meta
        index = cls.__new__(cls)
        n = int(meta["size"])
        index.size = n
        index._files = [str(p) for p in meta["files"]]
        index._kind_names, index._language_names = list(meta["kinds"]), list(meta["languages"])
        index._vocab = _Vocab(saved["vocab_keys"], saved["vocab_ids"])
        for name in ("offsets", "docs", "tf", "doc_offsets", "doc_tokens", "doc_tf", "doc_len", "doc_file"):
            setattr(index, f"_{name}", saved[name])
        index._starts, index._ends = saved["starts"], saved["ends"]
        index._kind_codes, index._language_codes = saved["kinds"], saved["languages"]
        index._symbols = _Strings(saved["symbol_data"], saved["symbol_offsets"])
        index._hashes = _Strings(saved["hash_data"], saved["hash_offsets"])
        index._by_file, index._file_offsets = saved["by_file"], saved["file_offsets"]
        per_doc = (index._doc_len, index._doc_file, index._starts, index._ends, index._kind_codes,
                   index._language_codes, index._by_file)  # fmt: skip
        if (
            any(len(a) != n for a in per_doc)
            or len(index._doc_offsets) != n + 1
            or len(index._symbols) != n
            or len(index._hashes) != n
            or len(index._offsets) != len(index._vocab) + 1
            or len(index._vocab.ids) != len(index._vocab)
            or len(index._file_offsets) != len(index._files) + 1
            or int(index._offsets[-1]) != len(index._docs)
        ):
            return None
        index._derive()
        return index

    @classmethod
    def load(cls, path: Path | bytes, table: pa.Table) -> LexicalIndex | None:
        """The index saved at ``path`` if it holds the chunks of ``table`` (their ``content_hash``
        column, in order); ``None`` when missing, of another format, or for other chunks."""
        index = cls.load_saved(path)
        return index if index is not None and index.holds(table.column("content_hash")) else None

    def holds(self, content_hashes: pa.ChunkedArray | pa.Array) -> bool:
        """Whether this index is of the chunks whose content hashes are ``content_hashes``, in order."""
        return self._hashes.equals_column(content_hashes)

    @classmethod
    def load_tokens(cls, path: Path) -> LexicalIndex | None:
        """The index saved at ``path`` to serve as the ``previous`` index of a new version (its tokens
        per content hash); ``None`` when unreadable or of another format."""
        return cls.load_saved(path)

    # -- rows -------------------------------------------------------------------------------------
    def _path(self, doc: int) -> str:
        return self._files[int(self._doc_file[doc])]

    def _row(self, doc: int) -> tuple[str, int, int, str | None, str | None, str | None]:
        return (
            self._path(doc),
            int(self._starts[doc]),
            int(self._ends[doc]),
            self._symbols[doc],
            self._kind_names[int(self._kind_codes[doc])],
            self._language_names[int(self._language_codes[doc])],
        )

    def rows(self) -> list[tuple[str, int, int, str | None, str | None, str | None]]:
        """Every chunk's (path, start line, end line, symbol, kind, language), in table order."""
        return [self._row(d) for d in range(self.size)]

    def spans_of(self, path: str) -> list[tuple[int, int, str | None, str | None, str | None]]:
        """The (start line, end line, symbol, kind, language) of ``path``'s chunks, by start and end
        line; read from the arrays for this one file."""
        if self._file_no is None:
            self._file_no = {p: i for i, p in enumerate(self._files)}
        no = self._file_no.get(path)
        if no is None:
            return []
        if not hasattr(self, "_by_file"):
            self._by_file = np.lexsort((self._ends, self._starts, self._doc_file)).astype(np.int32)
            self._file_offsets = np.searchsorted(
                np.asarray(self._doc_file)[self._by_file], np.arange(len(self._files) + 1)
            )
        docs = self._by_file[int(self._file_offsets[no]) : int(self._file_offsets[no + 1])]
        return [self._row(int(d))[1:] for d in docs]

    def _row_of(self) -> dict[str, int]:
        """Content hash → row, for reuse by the next version's index."""
        return {h: i for i, h in enumerate(self._hashes.tolist()) if h is not None}

    def file_mask(self, keep: Callable[[str, str | None], bool]) -> np.ndarray:
        """A per-chunk mask from a predicate on (path, language), evaluated once per file."""
        files = np.fromiter(
            (keep(p, lang) for p, lang in zip(self._files, self._file_language, strict=True)),
            bool,
            len(self._files),
        )
        return files[self._doc_file]

    def search(
        self,
        query: str | tuple[str, ...],
        limit: int,
        *,
        allow: np.ndarray | None = None,
        short: Mapping[str, Sequence[str]] | None = None,
    ) -> list[LexicalHit]:
        """The ``limit`` best chunks for ``query`` (a string, or tokens already made by
        :func:`code_tokens`) by BM25, ties by path and line, within ``allow``. ``short``: the tokens of
        the short forms code writes for a query token (:func:`indexer.abbreviations.short_forms`); a
        token and its short forms are one term, as a synonym is: its occurrences summed in each chunk,
        its document frequency that of the chunks holding any of them."""
        tokens = list(dict.fromkeys(code_tokens(query) if isinstance(query, str) else query))
        forms = short or {}
        terms = [
            [self._vocab[f] for f in dict.fromkeys((t, *forms.get(t, ()))) if f in self._vocab]
            for t in tokens
        ]
        known = [ids for ids in terms if ids]  # each term: the vocabulary ids of its token and short forms
        if not known or limit < 1 or self.size == 0:
            return []
        n = self.size
        # float32: arrays small enough to come from the heap, not freshly mapped (and faulted) pages
        scores = np.zeros(n, np.float32)
        held = np.zeros(n, np.float32)
        norm = self._norm
        # a word no chunk holds still belongs to the query: it counts, at the rarest idf, in coverage
        total_idf = (len(tokens) - len(known)) * math.log(1 + (n + 0.5) / 0.5)
        for ids in known:
            docs, tf = self._posting(ids)
            idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            total_idf += idf
            scores[docs] += idf * tf * (K1 + 1) / (tf + norm[docs])
            held[docs] += idf
        if allow is not None:
            scores[~allow] = 0.0
        found = np.flatnonzero(scores)
        if len(found) > limit:
            found = found[np.argpartition(-scores[found], limit - 1)[:limit]]
        rows = {d: self._row(d) for d in found.tolist()}
        order = sorted(rows, key=lambda d: (-scores[d], rows[d][0], rows[d][1]))
        return [LexicalHit(*rows[d], float(scores[d]), float(held[d] / total_idf)) for d in order]

    def _posting(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The chunks holding any of the tokens ``ids`` (one term), ascending, with the summed counts."""
        spans = [(int(self._offsets[i]), int(self._offsets[i + 1])) for i in ids]
        if len(spans) == 1:
            lo, hi = spans[0]
            return self._docs[lo:hi], self._tf[lo:hi].astype(np.float32)
        docs, at = np.unique(np.concatenate([self._docs[lo:hi] for lo, hi in spans]), return_inverse=True)
        tf = np.zeros(len(docs), np.float32)
        np.add.at(tf, at, np.concatenate([self._tf[lo:hi] for lo, hi in spans]).astype(np.float32))
        return docs, tf

    def files_holding(
        self, words: Sequence[Sequence[str]], *, allow: np.ndarray | None = None
    ) -> list[str] | None:
        """Files with a chunk that holds every token of a phrase, given as its words' tokens
        (:func:`phrase_tokens`, which the analysed query carries): the only indexed files where the
        phrase can occur verbatim (as whole words). ``[]`` when a word inside the phrase (not its first
        or last, which an occurrence may cut from a longer word) is one no chunk holds. ``None`` when
        that cannot be told: the phrase has no tokens, or its first or last word is unknown (a partial
        word, say)."""
        tokens = list(dict.fromkeys(t for word in words for t in word))
        if any(t not in self._vocab for word in words[1:-1] for t in word):
            return []
        if not tokens or any(t not in self._vocab for t in tokens):
            return None
        docs: np.ndarray | None = None
        for t in sorted(tokens, key=lambda t: self._df(self._vocab[t])):  # rarest first
            tid = self._vocab[t]
            posting = self._docs[self._offsets[tid] : self._offsets[tid + 1]]
            docs = posting if docs is None else np.intersect1d(docs, posting, assume_unique=True)
            if not len(docs):
                return []
        assert docs is not None
        if allow is not None:
            docs = docs[allow[docs]]
        return [self._files[i] for i in np.unique(self._doc_file[docs]).tolist()]

    def _df(self, tid: int) -> int:
        return int(self._offsets[tid + 1] - self._offsets[tid])


#: What an index is made of (copied by ``__init__`` from what :meth:`LexicalIndex.build` made).
_STATE = (
    "size", "_vocab", "_files", "_doc_file", "_starts", "_ends", "_kind_codes", "_kind_names",
    "_language_codes", "_language_names", "_symbols", "_hashes", "_doc_offsets", "_doc_tokens",
    "_doc_tf", "_doc_len", "_offsets", "_docs", "_tf", "_avg_len", "_norm", "_file_language",
    "_file_no",
)  # fmt: skip

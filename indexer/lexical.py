"""BM25 over the indexed chunks: how the text retriever ranks a natural-language query.

ripgrep finds where a query's words occur in the live files, but ranking chunks by those matches
knows nothing of how long a chunk is or how many chunks use a word. This module keeps a real
inverted index of the chunks of one published snapshot and scores them with BM25 (Lucene's
variant, k1 = 1.5, b = 0.75).

Tokens are code-aware: every identifier counts whole and also split on ``snake_case`` and
``camelCase``, lower-cased, English stop words dropped, and stemmed (Snowball, via PyStemmer), so
"retries the failed uploads" meets ``retry_failed_upload`` and ``RetryPolicy``. A chunk's text is
what was embedded for it: the path/scope header, then its lines.

The index lives in memory. It is built from the ``chunks`` table in one vectorised pass (Arrow
splits the texts, numpy builds the postings; each distinct identifier is tokenised once), which
takes about a quarter of a second per ten thousand chunks here, and is cached per published chunks
version (see :meth:`indexer.index.Index.lexical`).
"""

from __future__ import annotations

import math
import os
import re
import threading
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

K1 = 1.5
B = 0.75
SAVED_FORMAT = 2  # bump when the tokenizer or the saved arrays change
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
_PIECE = re.compile(r"[A-Za-z0-9_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


@cache
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def identifier_parts(piece: str) -> list[str]:
    """The words of one run of identifier characters as written: ``HTTPServer2`` → ``HTTP``,
    ``Server``, ``2``; ``retry_policy`` → ``retry``, ``policy``."""
    return _CAMEL.findall(piece)


def _piece_tokens(piece: str) -> list[str]:
    """Raw tokens of one run of identifier characters: whole, and its snake/camel parts."""
    if piece.isalpha() and (piece.islower() or piece.isupper() or piece[1:].islower()):
        word = piece.lower()  # one plain word (the common case): nothing to split
        return [word] if len(word) > 1 and word not in STOP_WORDS else []
    parts = identifier_parts(piece)
    whole = piece.lower().strip("_")
    tokens = [whole] if len(parts) <= 1 else [whole, *(p.lower() for p in parts)]
    return [t for t in tokens if len(t) > 1 and t not in STOP_WORDS]


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


_KEEP = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_BLANK = bytes(c if c in _KEEP else 32 for c in range(256))


def _blank_separators(texts: pa.Array) -> pa.Array:
    """``texts`` with every byte that cannot be part of an identifier turned into a space (UTF-8 bytes
    of non-ASCII characters included), so that splitting on whitespace yields identifier pieces."""
    validity, offsets, data = texts.buffers()
    if data is None:
        return texts
    blanked = pa.py_buffer(data.to_pybytes().translate(_BLANK))
    return pa.Array.from_buffers(
        texts.type, len(texts), [validity, offsets, blanked], texts.null_count, texts.offset
    )


def _tokenise_distinct(pieces: list[str]) -> list[list[str]]:
    """:func:`code_tokens` of each piece, stemming each distinct raw token once."""
    raw = [_piece_tokens(p) for p in pieces]
    distinct = list({t for tokens in raw for t in tokens})
    stems = dict(zip(distinct, _stemmer().stemWords(distinct), strict=True)) if distinct else {}
    return [[stems[t] for t in tokens] for tokens in raw]


def _read_saved(path: Path) -> dict[str, np.ndarray] | None:
    try:
        with np.load(path) as data:
            saved = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if saved.get("format", np.array([0]))[0] != SAVED_FORMAT:
        return None
    return saved


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


class LexicalIndex:
    """An in-memory BM25 index of chunks (see the module docstring)."""

    def __init__(self, table: pa.Table, previous: LexicalIndex | None = None) -> None:
        """Index the chunks of ``table`` (:data:`COLUMNS`). Chunks whose content hash ``previous``
        already holds reuse its tokens, so that indexing a new version costs the changed chunks."""
        self._rows(table)
        # a copy: searches may still read ``previous`` while this one grows its vocabulary
        self._vocab: dict[str, int] = dict(previous._vocab) if previous is not None else {}
        # Doc-major token lists (token ids and their counts per chunk), then token-major postings.
        self._doc_offsets, self._doc_tokens, self._doc_tf = self._tokens_per_doc(
            table.column("text"), previous
        )
        owner = np.repeat(np.arange(self.size, dtype=np.int64), np.diff(self._doc_offsets))
        order = np.argsort(self._doc_tokens, kind="stable")  # by token; chunks stay in order within one
        self._docs = owner[order]
        self._tf = self._doc_tf[order]
        self._offsets = np.searchsorted(self._doc_tokens[order], np.arange(len(self._vocab) + 1))
        self._lengths()

    def _rows(self, table: pa.Table) -> None:
        """What each chunk is: path, lines, symbol, kind, language, content hash; files and languages."""
        cols = {c: table.column(c).to_pylist() for c in COLUMNS if c != "text"}
        self.size = table.num_rows
        self._paths = cols["path"]
        self._starts = cols["start_line"]
        self._ends = cols["end_line"]
        self._symbols = cols["symbol"]
        self._kinds = cols["kind"]
        self._languages = cols["language"]
        self._hashes = cols["content_hash"]
        self._files = sorted(set(self._paths))
        file_no = {p: i for i, p in enumerate(self._files)}
        self._doc_file = np.fromiter((file_no[p] for p in self._paths), np.int64, self.size)
        self._file_language = [None] * len(self._files)
        for p, lang in zip(self._paths, self._languages, strict=True):
            self._file_language[file_no[p]] = lang

    def _lengths(self) -> None:
        n = self.size
        owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(self._doc_offsets))
        self._doc_len = np.bincount(owner, weights=self._doc_tf, minlength=n).astype(np.float64)
        self._avg_len = float(self._doc_len.mean()) if n and self._doc_len.any() else 1.0
        self._norm = (K1 * (1 - B + B * self._doc_len / self._avg_len)).astype(np.float32)

    # -- on disk: a fresh process (the CLI) loads what another one built -----------------------------
    def save(self, path: Path) -> None:
        """Write the index next to the table it came from (atomically: a temporary file, then rename)."""
        vocab = sorted(self._vocab, key=self._vocab.__getitem__)
        arrays: dict[str, Any] = {
            "format": np.array([SAVED_FORMAT]),
            "vocab": np.frombuffer("\n".join(vocab).encode(), np.uint8),
            "hashes": np.frombuffer("\n".join(h or "" for h in self._hashes).encode(), np.uint8),
            "doc_offsets": self._doc_offsets,
            "doc_tokens": self._doc_tokens.astype(np.int32),
            "doc_tf": self._doc_tf.astype(np.int32),
            "offsets": self._offsets,
            "docs": self._docs.astype(np.int32),
            "tf": self._tf.astype(np.int32),
        }
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load_tokens(cls, path: Path) -> LexicalIndex | None:
        """Only the tokens saved at ``path`` (per content hash): enough to serve as the ``previous``
        index of a new version, not to search. ``None`` when unreadable or of another format."""
        saved = _read_saved(path)
        return cls._tokens_from(saved) if saved is not None else None

    @classmethod
    def _tokens_from(cls, saved: dict[str, np.ndarray]) -> LexicalIndex | None:
        index = cls.__new__(cls)
        hashes = saved["hashes"].tobytes().decode()
        index._hashes = hashes.split("\n") if hashes else []
        words = saved["vocab"].tobytes().decode()
        index._vocab = {w: i for i, w in enumerate(words.split("\n"))} if words else {}
        index._doc_offsets = saved["doc_offsets"].astype(np.int64)
        index._doc_tokens = saved["doc_tokens"].astype(np.int64)
        index._doc_tf = saved["doc_tf"].astype(np.int64)
        if len(index._doc_offsets) != len(index._hashes) + 1:
            return None
        return index

    @classmethod
    def load(cls, path: Path, table: pa.Table) -> LexicalIndex | None:
        """The index saved at ``path`` for the chunks of ``table`` (:data:`COLUMNS` but ``text``), or
        ``None`` when the file is missing, of another format, or for other chunks (content hashes)."""
        saved = _read_saved(path)
        index = cls._tokens_from(saved) if saved is not None else None
        if saved is None or index is None:
            return None
        if index._hashes != [h or "" for h in table.column("content_hash").to_pylist()]:
            return None
        index._rows(table)
        index._offsets = saved["offsets"].astype(np.int64)
        index._docs = saved["docs"].astype(np.int64)
        index._tf = saved["tf"].astype(np.int64)
        if len(index._offsets) != len(index._vocab) + 1:
            return None
        index._lengths()
        return index

    def _tokens_per_doc(
        self, texts: pa.ChunkedArray, previous: LexicalIndex | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.size
        known = previous._row_of() if previous is not None else {}
        reused = np.fromiter((known.get(h, -1) for h in self._hashes), np.int64, n)
        fresh = np.flatnonzero(reused < 0)
        todo = texts if len(fresh) == n else texts.take(pa.array(fresh)) if len(fresh) else None
        new_offsets, new_tokens, new_tf = self._tokenise(todo)
        # Gather each chunk's slice from the previous index or from the freshly tokenised ones.
        lengths = np.zeros(n, np.int64)
        starts = np.zeros(n, np.int64)
        base = 0
        if previous is not None:
            old = reused >= 0
            lengths[old] = np.diff(previous._doc_offsets)[reused[old]]
            starts[old] = previous._doc_offsets[reused[old]]
            base = len(previous._doc_tokens)
        lengths[fresh] = np.diff(new_offsets)
        starts[fresh] = base + new_offsets[:-1]
        source_tokens = (
            np.concatenate([previous._doc_tokens, new_tokens]) if previous is not None else new_tokens
        )
        source_tf = np.concatenate([previous._doc_tf, new_tf]) if previous is not None else new_tf
        ends = np.cumsum(lengths)
        positions = np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if n else 0)
        return np.concatenate(([0], ends)), source_tokens[positions], source_tf[positions]

    def _tokenise(self, texts: pa.ChunkedArray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Doc-major ``(offsets, token ids, counts)`` of ``texts``, token ids ascending within a doc."""
        empty = np.zeros(0, np.int64)
        count = len(texts) if texts is not None else 0
        if texts is None or count == 0:
            return np.zeros(1, np.int64), empty, empty
        pieces = pc.ascii_split_whitespace(_blank_separators(texts.combine_chunks()))
        owner = pc.list_parent_indices(pieces).to_numpy()
        encoded = pc.dictionary_encode(pc.list_flatten(pieces))
        occurrence = encoded.indices.to_numpy().astype(np.int64)
        # Each distinct piece of text is tokenised once, into ids of the vocabulary.
        piece_tokens = _tokenise_distinct(encoded.dictionary.to_pylist())
        vocab = self._vocab
        lengths = np.fromiter((len(t) for t in piece_tokens), np.int64, len(piece_tokens))
        ids = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for tokens in piece_tokens for t in tokens), np.int64
        )
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        # Expand every occurrence of a piece into its tokens: (document, token) pairs.
        per = lengths[occurrence]
        total = int(per.sum())
        if total == 0:
            return np.zeros(count + 1, np.int64), empty, empty
        docs = np.repeat(owner, per)
        ends = np.cumsum(per)
        tokens = ids[np.repeat(starts[occurrence] - (ends - per), per) + np.arange(total)]
        width = len(vocab)
        keys, tf = np.unique(docs * width + tokens, return_counts=True)  # by document, then token
        doc_of = keys // width
        offsets = np.searchsorted(doc_of, np.arange(count + 1))
        return offsets, keys % width, tf

    def _row_of(self) -> dict[str, int]:
        """Content hash → row, for reuse by the next version's index."""
        return {h: i for i, h in enumerate(self._hashes) if h is not None}

    def file_mask(self, keep: Callable[[str, str | None], bool]) -> np.ndarray:
        """A per-chunk mask from a predicate on (path, language), evaluated once per file."""
        files = np.fromiter(
            (keep(p, lang) for p, lang in zip(self._files, self._file_language, strict=True)),
            bool,
            len(self._files),
        )
        return files[self._doc_file]

    def search(
        self, query: str | tuple[str, ...], limit: int, *, allow: np.ndarray | None = None
    ) -> list[LexicalHit]:
        """The ``limit`` best chunks for ``query`` (a string, or tokens already made by
        :func:`code_tokens`) by BM25, ties by path and line, within ``allow``."""
        tokens = list(dict.fromkeys(code_tokens(query) if isinstance(query, str) else query))
        known = [self._vocab[t] for t in tokens if t in self._vocab]
        if not known or limit < 1 or self.size == 0:
            return []
        n = self.size
        # float32: arrays small enough to come from the heap, not freshly mapped (and faulted) pages
        scores = np.zeros(n, np.float32)
        held = np.zeros(n, np.float32)
        norm = self._norm
        # a word no chunk holds still belongs to the query: it counts, at the rarest idf, in coverage
        total_idf = (len(tokens) - len(known)) * math.log(1 + (n + 0.5) / 0.5)
        for tok in known:
            lo, hi = int(self._offsets[tok]), int(self._offsets[tok + 1])
            docs, tf = self._docs[lo:hi], self._tf[lo:hi]
            idf = math.log(1 + (n - (hi - lo) + 0.5) / (hi - lo + 0.5))
            total_idf += idf
            scores[docs] += idf * tf * (K1 + 1) / (tf + norm[docs])
            held[docs] += idf
        if allow is not None:
            scores[~allow] = 0.0
        found = np.flatnonzero(scores)
        if len(found) > limit:
            found = found[np.argpartition(-scores[found], limit - 1)[:limit]]
        order = sorted(found.tolist(), key=lambda d: (-scores[d], self._paths[d], self._starts[d]))
        return [
            LexicalHit(
                self._paths[d], self._starts[d], self._ends[d], self._symbols[d], self._kinds[d],
                self._languages[d], float(scores[d]), float(held[d] / total_idf),
            )
            for d in order
        ]  # fmt: skip

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

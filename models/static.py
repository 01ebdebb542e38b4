"""The static backend: a token → vector table made from the transformer, mean-pooled per text.

A text is cut to 8 characters per token of ``max_seq_length`` (enough for that many tokens of most
code, and it spares the tokenizer the rest of a long chunk), tokenised by the teacher's fast
tokenizer (no special tokens, truncated to ``max_seq_length``), its tokens' rows averaged and the
average L2-normalised: no model runs at embedding time, only a table lookup, so thousands of chunks
embed per second on one core. Two recipes make the table:

* **trained** (recipe 2, :data:`TRAINED_RECIPE`): for the packaged all-MiniLM-L6-v2 plait ships a
  table fitted on code (:data:`SHIPPED_TABLE`, 7 MB, made by :mod:`models.static_fit` with
  ``python -m benchmarks static-train``): its rows were moved so that a chunk's mean row points where
  the teacher's own embedding of the chunk points. On first use it is unpacked into the model cache
  (well under a second, numpy only). It is used only for the weights it was fitted to
  (:func:`recipe_for` compares their fingerprint).
* **distilled** (recipe 1, :data:`RECIPE_VERSION`), for any other teacher, made here on first use by
  the recipe that model2vec popularised (:func:`distil`):

  1. every token of the teacher's vocabulary is run through the teacher on its own, framed as
     ``[CLS] token [SEP]``, and its output states are mean-pooled into one vector;
  2. the vectors are centred and projected onto their first :data:`DIMENSIONS` principal components
     (numpy's SVD; each component's sign is fixed so that its largest coefficient is positive, so
     the result does not depend on the LAPACK build's sign choice);
  3. each token's vector is scaled by ``a / (a + p(rank))`` with ``p`` the Zipf law over the token's
     rank in the vocabulary (its id: WordPiece vocabularies list frequent pieces first) and
     ``a = 1e-4`` (SIF weighting: frequent pieces such as ``the`` or ``(`` weigh little).

  This takes about a minute on two cores (with a message on stderr) and needs torch and
  transformers, already installed for the teacher.

Either table lands in the model cache directory, in a folder keyed by the teacher's weights and the
recipe (the trained one with the shipped file's hash, :func:`shipped_key`, as in the model id),
written atomically (temporary file, then rename), so a killed build leaves nothing half-written and
two processes building at once are harmless. Loading it needs numpy and ``tokenizers``.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator, Sequence
from itertools import chain, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models.ahead import one_ahead
from models.base import Vectors
from models.errors import ModelError
from models.tokenize import encode_texts
from models.word_pieces import WordPieces, in_stretches, in_text_order, per_text

if TYPE_CHECKING:
    from concurrent.futures import Executor  # not imported by a search's one query (it imports logging)

#: The distilling recipe's number; bump it when :func:`distil` changes. It is part of the artefact's
#: folder and of the model id (:func:`recipe_for`).
RECIPE_VERSION = 1
#: The trained recipe's number (the shipped table; :mod:`models.static_fit`).
TRAINED_RECIPE = 2
#: The table trained on code for the packaged teacher: int8 rows, a float32 scale per row, and its
#: provenance (``info``: the teacher's weights fingerprint, the corpus, the fit's settings).
SHIPPED_TABLE = Path(__file__).resolve().parent / "data" / "static-minilm-code.npz"
#: Dimensions kept by the PCA step (fewer when the teacher has fewer).
DIMENSIONS = 256
#: Texts are truncated to this many tokens (the first tokens of a chunk name it best).
STATIC_MAX_TOKENS = 128
SIF_COEFFICIENT = 1e-4
_TABLE_FILE = "embeddings.npy"
_INFO_FILE = "recipe.json"
_BATCH = 512
#: Texts tokenised at once when many are embedded (:meth:`StaticEncoder.encode`).
_PART = 1024
#: Texts of one length summed at once, a token at a time (a row each: 512 KB, in the CPU's cache).
_SUMMED_TEXTS = 512
#: Characters kept before tokenising: far more than STATIC_MAX_TOKENS tokens need, and it spares the
#: tokenizer the rest of a long chunk.
_CHARS_PER_TOKEN_BOUND = 8
#: Characters a token read at a time (see :func:`token_ids`): the 128th token of half the Linux tree's
#: chunks ends within 315 characters, of nine tenths within 445.
_CHARS_PER_TOKEN_FIRST = 4
#: The ASCII control characters BERT's normaliser deletes (all but tab, line feed and carriage return).
_DELETED_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Where characters that BERT's normaliser leaves as they are may be found (:class:`Twin` keeps those
#: that it does): Latin-1's signs, general punctuation, arrows, mathematical operators, box drawing.
_INERT_RANGES = ((0x00A1, 0x00BF), (0x00D7, 0x00D7), (0x2010, 0x205E), (0x2190, 0x22FF), (0x2500, 0x257F))


def shipped_info() -> dict[str, Any] | None:
    """The shipped table's provenance (``teacher``: the weights fingerprint it was trained from), or
    None when this installation has no shipped table."""
    if not SHIPPED_TABLE.exists():
        return None
    info: dict[str, Any] = _read_shipped(rows=False)[1]
    return info


def _read_shipped(*, rows: bool) -> tuple[np.ndarray | None, dict[str, Any]]:
    """The shipped table's rows (``codes * scales``; None unless ``rows``) and its info.

    Raises:
        ModelError: the file is missing or unreadable.
    """
    try:
        with np.load(SHIPPED_TABLE, allow_pickle=False) as pack:
            table = pack["codes"].astype(np.float32) * pack["scales"][:, None] if rows else None
            return table, json.loads(str(pack["info"]))
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(
            f"the shipped static model {SHIPPED_TABLE} is unreadable: {exc}; reinstall plait."
        ) from exc


def shipped_key() -> str:
    """12 hex digits of the shipped table's sha256: part of the model id and of the cache folder, so
    that a new table (a new release, or ``static-train``) never meets vectors or an unpacked copy
    of another one."""
    stat = SHIPPED_TABLE.stat()
    return _file_key(SHIPPED_TABLE, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _file_key(path: Path, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def recipe_label(fingerprint: str, dimensions: int = DIMENSIONS) -> tuple[int, str]:
    """The recipe of the static table for a teacher with these weights (:func:`recipe_for`) and
    its label in the model id and the cache folder: ``1`` (distilled) or ``2-<shipped_key>``."""
    recipe = recipe_for(fingerprint, dimensions)
    return recipe, (f"{recipe}-{shipped_key()}" if recipe == TRAINED_RECIPE else str(recipe))


def recipe_for(fingerprint: str, dimensions: int = DIMENSIONS) -> int:
    """The recipe of the static table for a teacher with these weights: the trained one when plait
    ships a table for exactly this teacher and width, else the distilled one."""
    info = shipped_info()
    if info and info.get("teacher") == fingerprint and info.get("dimensions") == dimensions:
        return TRAINED_RECIPE
    return RECIPE_VERSION


def ensure_static(
    model_dir: str, target_dir: Path, dimensions: int = DIMENSIONS, *, recipe: int = RECIPE_VERSION
) -> Path:
    """Return the path of the static table for ``model_dir``, making it if needed: unpacking the
    shipped table (``recipe`` :data:`TRAINED_RECIPE`) or distilling one (:data:`RECIPE_VERSION`).

    Raises:
        ModelError: the teacher cannot be loaded or run, or the folder is not writable.
    """
    table = target_dir / _TABLE_FILE
    if table.is_file():
        return table
    if recipe == TRAINED_RECIPE:
        rows, info = _read_shipped(rows=True)
        with _atomic(target_dir / _INFO_FILE, ".json") as tmp:
            tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
        with _atomic(table, ".npy") as tmp, tmp.open("wb") as fh:
            np.save(fh, np.ascontiguousarray(rows, dtype=np.float32), allow_pickle=False)
        return table
    print(
        f"plait: distilling the static model from {model_dir} (once, about a minute) into {target_dir}",
        file=sys.stderr,
        flush=True,
    )
    started = time.perf_counter()
    vectors = distil(model_dir, dimensions)
    with _atomic(target_dir / _INFO_FILE, ".json") as tmp:
        info = {
            "recipe": RECIPE_VERSION,
            "teacher": model_dir,
            "dimensions": int(vectors.shape[1]),
            "tokens": int(vectors.shape[0]),
            "sif": SIF_COEFFICIENT,
            "seconds": round(time.perf_counter() - started, 1),
        }
        tmp.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    with _atomic(table, ".npy") as tmp, tmp.open("wb") as fh:
        np.save(fh, vectors, allow_pickle=False)
    print(f"plait: static model ready in {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    return table


def distil(model_dir: str, dimensions: int = DIMENSIONS) -> Vectors:
    """The static table of ``model_dir``: one float32 row per vocabulary id (see the module docstring).

    Raises:
        ModelError: torch or transformers are missing, or the teacher cannot be loaded.
    """
    token_vectors = teacher_token_vectors(model_dir)
    projected = _pca(token_vectors, min(dimensions, token_vectors.shape[1]))
    return np.asarray(projected * sif_weights(len(projected))[:, None], dtype=np.float32)


def teacher_token_vectors(model_dir: str) -> np.ndarray:
    try:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise ModelError(f"distilling the static model needs torch and transformers: {exc}") from exc
    hf_logging.disable_progress_bar()
    tokenizer = _tokenizer(model_dir)
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls_id is None or sep_id is None:
        raise ModelError(f"the tokenizer of {model_dir} has no [CLS]/[SEP] tokens; use another backend.")
    try:
        model = AutoModel.from_pretrained(model_dir, local_files_only=True).eval()
    except (OSError, ValueError, RuntimeError, KeyError, TypeError) as exc:
        raise ModelError(f"cannot load {model_dir} to distil the static model: {exc}") from exc
    vocab = tokenizer.get_vocab_size()
    out = np.empty((vocab, model.config.hidden_size), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, vocab, _BATCH):
            ids = torch.arange(start, min(vocab, start + _BATCH), dtype=torch.int64)
            framed = torch.stack(
                [torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1
            )  # [CLS] token [SEP]
            states = model(input_ids=framed, attention_mask=torch.ones_like(framed)).last_hidden_state
            out[start : start + len(ids)] = states.mean(dim=1).float().numpy()
    return out


def _pca(matrix: np.ndarray, components: int) -> np.ndarray:
    centred = matrix.astype(np.float64) - matrix.mean(axis=0, dtype=np.float64)
    return centred @ principal_axes(centred, components).T


def principal_axes(matrix: np.ndarray, components: int) -> np.ndarray:
    """The first ``components`` right singular vectors of ``matrix`` (float64, one per row), each with
    the sign that makes its largest coefficient positive: the same axes whatever sign LAPACK picks."""
    _u, _s, vt = np.linalg.svd(matrix.astype(np.float64), full_matrices=False)
    basis = vt[:components]
    return basis * np.sign(basis[np.arange(len(basis)), np.abs(basis).argmax(axis=1)])[:, None]


def sif_weights(count: int) -> np.ndarray:
    inverse_rank = 1.0 / np.arange(2, count + 2, dtype=np.float64)  # Zipf: p(rank) ∝ 1 / rank
    probability = inverse_rank / inverse_rank.sum()
    return SIF_COEFFICIENT / (SIF_COEFFICIENT + probability)


class StaticEncoder:
    """Embeds texts with a static table: tokenise, look up, average (normalised by the loader).

    Raises:
        ModelError: the table or the tokenizer cannot be read.
    """

    def __init__(self, model_dir: str, table_path: Path, *, max_seq_length: int) -> None:
        try:
            table = np.load(table_path, mmap_mode="r", allow_pickle=False)  # pages load as tokens need them
        except (OSError, ValueError) as exc:
            raise ModelError(
                f"cannot read the static model {table_path}: {exc}; delete it to rebuild it."
            ) from exc
        tokenizer = static_tokenizer(model_dir, max_seq_length)
        if table.ndim != 2 or table.shape[0] != tokenizer.get_vocab_size():
            raise ModelError(
                f"the static model {table_path} does not match the tokenizer of {model_dir}; delete it to rebuild it."
            )
        self._tokenizer = tokenizer
        self._twin: Twin | bool | None = False  # False: not made yet (:meth:`twin`)
        if table.dtype != np.float32:
            raise ModelError(f"the static model {table_path} is not float32; delete it to rebuild it.")
        self._table = np.asarray(table)  # the mapping as a plain array: a memmap's indexing runs Python
        self._max_chars = max_chars(max_seq_length)
        self._spec = (model_dir, str(table_path), max_seq_length)
        #: Processes that embed the parts of a large batch (:meth:`~models.loader.LazyEmbedder.spread_over`);
        #: None: this one does.
        self.pool: Executor | None = None

    @property
    def dimension(self) -> int:
        return int(self._table.shape[1])

    def twin(self) -> Twin | None:
        """The tokenizer's :class:`Twin`, made on the first batch of texts (~30 ms, which a query's one
        text would not win back)."""
        if self._twin is False:
            self._twin = Twin.of(self._tokenizer)
        return self._twin if isinstance(self._twin, Twin) else None

    def encode(self, texts: Sequence[str]) -> Vectors:
        """One unnormalised mean vector per text; a text without tokens gives zeros. Many texts are
        read :data:`_PART` at a time: by the processes of :attr:`pool` where it is set, else here, the
        next part tokenised on another thread while this one's rows are summed (the tokenizer lets the
        interpreter go while it works)."""
        if len(texts) <= _PART:
            return self._means(self._ids(texts))
        parts = [texts[k : k + _PART] for k in range(0, len(texts), _PART)]
        pool = self.pool
        if pool is not None:
            from concurrent.futures import BrokenExecutor

            cut = [[t[: self._max_chars] for t in part] for part in parts]  # what a part's ids are read from
            try:
                return np.concatenate(list(pool.map(_encode_part, [self._spec] * len(cut), cut)))
            except BrokenExecutor:
                self.pool = None  # a worker died: this process reads the rest
        return np.concatenate([self._means(ids) for ids in one_ahead(self._ids, parts, "plait-static")])

    def _ids(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        return flat_token_ids(
            self._tokenizer, texts, self._max_chars, self.twin() if len(texts) > 1 else None
        )

    def _means(self, read: tuple[np.ndarray, np.ndarray]) -> Vectors:
        """The mean of each text's rows (``read``: all the texts' ids in order, and each one's count).
        Texts of one token count are summed together, :data:`_SUMMED_TEXTS` at a time, a token at a
        time (most chunks hold the truncation's 128 tokens): each text's rows are added in order, as
        for one text alone, so the sums are the same, bit for bit."""
        ids, counts = read
        out = np.zeros((len(counts), self.dimension), dtype=np.float32)
        if not len(ids):
            return out
        starts = np.cumsum(counts) - counts
        order = np.argsort(counts, kind="stable")
        ordered = counts[order]
        edges = [0, *(np.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist(), len(order)]
        for first, end in pairwise(edges):
            n = int(ordered[first])
            for a in range(first, end, _SUMMED_TEXTS) if n else ():
                texts = order[a : min(end, a + _SUMMED_TEXTS)]
                columns = ids[starts[texts][:, None] + np.arange(n)]  # a text a row, a token a column
                summed = self._table[columns[:, 0]]
                for j in range(1, n):
                    summed += self._table[columns[:, j]]
                out[texts] = summed / n
        return out


#: A worker process's encoders (:func:`_encode_part`), by the table and tokenizer they read.
_WORKER_ENCODERS: dict[tuple[str, str, int], StaticEncoder] = {}


def _encode_part(spec: tuple[str, str, int], texts: Sequence[str]) -> Vectors:
    """In a worker of :attr:`StaticEncoder.pool`: the unnormalised vectors of one part's texts."""
    encoder = _WORKER_ENCODERS.get(spec)
    if encoder is None:
        model_dir, table_path, max_seq_length = spec
        encoder = _WORKER_ENCODERS[spec] = StaticEncoder(
            model_dir, Path(table_path), max_seq_length=max_seq_length
        )
    return encoder.encode(texts)


def max_chars(max_seq_length: int) -> int:
    """Characters of a text kept before tokenising it to ``max_seq_length`` tokens."""
    return max_seq_length * _CHARS_PER_TOKEN_BOUND


def static_tokenizer(model_dir: str, max_seq_length: int) -> Any:
    """The teacher's fast tokenizer as the static model uses it: no padding, truncated.

    Raises:
        ModelError: the model has no readable ``tokenizer.json``.
    """
    tokenizer = _tokenizer(model_dir)
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)
    return tokenizer


class Twin:
    """A copy of a tokenizer without its normaliser, for the texts plait normalises itself: where the
    tokenizer's normaliser is BERT's with clean text and lower case, a text of ASCII characters and
    of characters that normaliser leaves as they are (``·``, which every chunk's first line holds,
    dashes, quotes, arrows, box drawing: :data:`_INERT_RANGES`) is normalised by deleting its ASCII
    control characters but tab, line feed and carriage return (those become spaces, which the
    pre-tokenizer splits at as it does at a space) and lower-casing it. The ids are the same; the
    normaliser rebuilds every text with its characters' alignments, about a third of the tokenizer's
    time on code (BENCHMARKS §9). Any other text is read by the tokenizer itself."""

    def __init__(self, tokenizer: Any, inert: str) -> None:
        self.tokenizer = tokenizer
        self._other = re.compile("[^\\x00-\\x7f" + re.escape(inert) + "]")
        # What a normalised text it reads may hold: tab, line feed, carriage return, printable ASCII and
        # the inert characters (the normaliser deletes the other ASCII controls).
        self.pieces = WordPieces.of(tokenizer, "\t\n\r" + "".join(map(chr, range(0x20, 0x7F))) + inert)

    @classmethod
    def of(cls, tokenizer: Any) -> Twin | None:
        """``tokenizer``'s twin; ``None`` where its normaliser is not BERT's with clean text and lower case."""
        try:
            saved = tokenizer.to_str()
            normalizer = json.loads(saved).get("normalizer") or {}
        except (AttributeError, TypeError, ValueError):
            return None
        if normalizer.get("type") != "BertNormalizer" or not (
            normalizer.get("lowercase") and normalizer.get("clean_text")
        ):
            return None
        bert = tokenizer.normalizer
        inert = "".join(
            c
            for low, high in _INERT_RANGES
            for c in map(chr, range(low, high + 1))
            if not unicodedata.combining(c) and c.lower() == c and bert.normalize_str(c) == c
        )
        twin = type(tokenizer).from_str(saved)  # its truncation and padding too
        twin.normalizer = None
        return cls(twin, inert)

    def reads(self, text: str) -> bool:
        """Whether ``text`` is one the twin reads (after :meth:`normalised`)."""
        return text.isascii() or self._other.search(text) is None

    @staticmethod
    def normalised(text: str) -> str:
        """What BERT's normaliser makes of a text the twin reads."""
        return _DELETED_CONTROLS.sub("", text).lower()


def _encode(tokenizer: Any, twin: Twin | None, texts: Sequence[str]) -> list[list[int]]:
    """The ids of ``texts`` without special tokens; those the twin reads, through it."""
    if twin is None:
        return [e.ids for e in encode_texts(tokenizer, texts, add_special_tokens=False)]
    ids: list[list[int]] = [[] for _ in texts]
    plain: list[int] = []
    other: list[int] = []
    for k, t in enumerate(texts):
        (plain if twin.reads(t) else other).append(k)
    for group, reader, prepared in ((plain, twin.tokenizer, True), (other, tokenizer, False)):
        if group:
            batch = [twin.normalised(texts[k]) if prepared else texts[k] for k in group]
            for k, e in zip(group, encode_texts(reader, batch, add_special_tokens=False), strict=True):
                ids[k] = e.ids  # each access copies the ids out of the tokenizer: once
    return ids


def token_ids(tokenizer: Any, texts: Sequence[str], chars: int, twin: Twin | None = None) -> list[list[int]]:
    """The ids whose rows a text's static vector averages (its first ``chars`` characters,
    without special tokens), per text; the trained recipe fits on exactly these (:func:`flat_token_ids`)."""
    return per_text(*flat_token_ids(tokenizer, texts, chars, twin))


def flat_token_ids(
    tokenizer: Any, texts: Sequence[str], chars: int, twin: Twin | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`token_ids` as all the texts' ids in order, one array, and how many each text has.

    Most of a chunk's first ``chars`` characters lie past its first 128 tokens, and the tokenizer's
    time goes by characters. Where the tokenizer splits words at whitespace and normalises each
    character on its own (BERT's), a text cut just before a whitespace gives the first tokens of the
    whole text, and what follows the cut gives the rest: each text is read a stretch at a time, the
    first up to the last whitespace before :data:`_CHARS_PER_TOKEN_FIRST` characters a token, each
    next one (only for texts still short of the truncation's tokens) as long for the tokens still
    missing, its ids appended (BENCHMARKS §9, "Twenty-eighth session" and "Thirtieth session").
    ``twin``: ``tokenizer``'s :class:`Twin`, which reads most texts of code in less time, and the
    texts it reads by their word pieces (:class:`~models.word_pieces.WordPieces`) in less again."""
    cut = [t[:chars] for t in texts]
    limit = _prefix_exact_limit(tokenizer)
    if limit is None:
        return _flat(_encode(tokenizer, twin, cut))
    pieces = twin.pieces if twin is not None else None
    own: list[int] = []  # read by their word pieces
    rest: list[int] = []  # read by the tokenizer
    for k, text in enumerate(cut):
        (own if pieces is not None and twin is not None and twin.reads(text) else rest).append(k)
    read: list[tuple[list[int], np.ndarray, np.ndarray]] = []  # texts, their ids, counts
    if pieces is not None and twin is not None and own:
        read.append(
            (own, *pieces.flat_ids([twin.normalised(cut[k]) for k in own], limit, _CHARS_PER_TOKEN_FIRST))
        )
    if rest:

        def encoded(stretches: Sequence[str], missing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            got = _encode(tokenizer, twin, stretches)
            return _flat([ids[:m] for ids, m in zip(got, missing.tolist(), strict=True)])

        read.append((rest, *in_stretches([cut[k] for k in rest], limit, _CHARS_PER_TOKEN_FIRST, encoded)))
    return in_text_order(len(cut), read)


def _flat(per_text: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    counts = np.fromiter(map(len, per_text), np.int64, len(per_text))
    return np.fromiter(chain.from_iterable(per_text), np.int64, int(counts.sum())), counts


def _prefix_exact_limit(tokenizer: Any) -> int | None:
    """The tokens a text is truncated to, where a text cut before a whitespace gives the first tokens
    of the whole (BERT's pre-tokenizer and normaliser, truncation on the right, no padding); None
    where that is not known to hold."""
    truncation = getattr(tokenizer, "truncation", None)
    if (
        not truncation
        or truncation.get("direction", "right") != "right"
        or getattr(tokenizer, "padding", None)
    ):
        return None
    if type(getattr(tokenizer, "pre_tokenizer", None)).__name__ != "BertPreTokenizer":
        return None
    if type(getattr(tokenizer, "normalizer", None)).__name__ not in ("BertNormalizer", "NoneType"):
        return None
    return int(truncation["max_length"])


def _tokenizer(model_dir: str) -> Any:
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelError(f"the static backend needs tokenizers: {exc}") from exc
    path = Path(model_dir) / "tokenizer.json"
    if not path.is_file():
        raise ModelError(
            f"{model_dir} has no tokenizer.json, which the static backend needs; use another backend."
        )
    try:
        return Tokenizer.from_file(str(path))
    except Exception as exc:  # the Rust tokenizer raises plain Exception on a malformed file
        raise ModelError(f"cannot read {path}: {exc}") from exc


@contextlib.contextmanager
def _atomic(target: Path, suffix: str) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` if the block succeeds."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=suffix + ".tmp")
        os.close(fd)
    except OSError as exc:
        raise ModelError(
            f"cannot write the static model under {target.parent}: {exc}; set model.cache_dir to a writable folder."
        ) from exc
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()

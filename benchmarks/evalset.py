"""The evaluation set, built from a repository the CodeSearchNet way.

Five query families, each with one target span per query:

- ``docstring``: for each function or method whose docstring or doc comment has a first sentence of
  at least ``min_words`` words, the query is that sentence and the target is the definition's span.
  Every such doc is blanked out in the copy of the repository that gets indexed (line numbers
  kept), so no retriever can match the query verbatim.
- ``symbol``: a definition's bare name (functions, methods, classes...), only names defined exactly
  once in the repository; the target is the definition, not a usage.
- ``literal``: a string literal inside a function (no interpolation or escapes, at least two words)
  that occurs exactly once in the blanked copy, searched quoted (an exact string); the target is the
  enclosing function.
- ``phrase``: the literals of two whitespace-separated words or more, searched *unquoted*, as a person
  pastes an error message or a log line; derived from the literal family (:func:`with_phrases`), so a
  query set saved before this family existed gains it on load.
- ``member``: a data member's bare name (a struct's field, a class attribute or property, an enum's
  variant; :mod:`benchmarks.extract` lists the languages), only names defined exactly once (as a
  member or any definition); the target is the declaration.

Sampling is seeded: candidates are sorted, shuffled with ``random.Random(seed)``, and the first
``size`` that pass per family are kept; a query text shared by several targets is dropped as
ambiguous. The set saves to and loads from JSON; it records the sha256 of each target file so a
reload against a changed repository is refused instead of silently measuring the wrong spans.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from benchmarks.extract import EXTRACTOR_VERSION, FileFacts, extract, first_sentence, supported
from indexer import Settings, iter_files
from models import PlaitError

FAMILIES: tuple[str, ...] = ("docstring", "symbol", "literal", "phrase", "member")
FORMAT_VERSION = 1
_SKIP_NAMES = frozenset({"main", "init", "new", "test", "setup", "teardown", "run", "get", "set", "call"})
_WORD = re.compile(r"[A-Za-z0-9_]+")


class EvalSetError(PlaitError):
    """The query set cannot be built, read or used against this repository."""


@dataclass(frozen=True, slots=True)
class EvalQuery:
    qid: str
    family: str  # one of FAMILIES
    text: str
    path: str  # target, relative to the root, forward slashes
    start_line: int  # 1-based, inclusive
    end_line: int
    language: str
    symbol: str | None = None  # qualified name of the target definition


@dataclass(frozen=True, slots=True)
class EvalSet:
    seed: int
    queries: tuple[EvalQuery, ...]
    files: Mapping[str, str] = field(default_factory=dict)  # target path -> sha256 of the original file
    params: Mapping[str, int] = field(default_factory=dict)

    def families(self) -> list[str]:
        present = {q.family for q in self.queries}
        return [f for f in FAMILIES if f in present]


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One indexable file of the original repository, with its facts and its blanked text."""

    path: str
    original: bytes
    blanked: bytes
    facts: FileFacts | None  # None for files in languages without doc rules


@dataclass(frozen=True, slots=True)
class Corpus:
    files: tuple[SourceFile, ...]

    @property
    def docs_blanked(self) -> int:
        return sum(1 for f in self.files if f.facts for d in f.facts.definitions if d.doc is not None)


def blank(source: bytes, regions: Iterable[tuple[int, int, bool]]) -> bytes:
    """Blank byte ranges ``[start, end)`` keeping every newline, so all line numbers stay put.

    A region flagged ``python`` (a docstring) becomes ``""`` then spaces, which keeps a body that
    held only its docstring valid; any other region becomes spaces.
    """
    out = bytearray(source)
    for start, end, python in regions:
        for i in range(start, end):
            if out[i] not in (0x0A, 0x0D):
                out[i] = 0x20
        if python and end - start >= 2:
            out[start : start + 2] = b'""'
    return bytes(out)


def scan(settings: Settings) -> Corpus:
    """Read the files plait would index and blank the doc of every function that has one."""
    files: list[SourceFile] = []
    for wf in iter_files(settings):
        try:
            data = wf.abspath.read_bytes()
        except OSError as exc:
            raise EvalSetError(
                f"cannot read {wf.path}: {exc.strerror or exc}; check its permissions."
            ) from exc
        facts = extract(data, wf.language, wf.path) if wf.language and supported(wf.language) else None
        regions = (
            [(d.doc.start_byte, d.doc.end_byte, d.doc.python) for d in facts.definitions if d.doc]
            if facts
            else []
        )
        files.append(SourceFile(wf.path, data, blank(data, regions) if regions else data, facts))
    return Corpus(tuple(files))


def _candidates(corpus: Corpus, min_words: int) -> dict[str, list[EvalQuery]]:
    """Every possible query per family, before sampling (literals not yet checked for uniqueness)."""
    found: dict[str, list[EvalQuery]] = {f: [] for f in FAMILIES}
    names: Counter[str] = Counter()
    for f in corpus.files:
        if f.facts:
            names.update(d.name for d in f.facts.definitions)
            names.update(m.name for m in f.facts.members)
    for f in corpus.files:
        if not f.facts:
            continue
        lang = f.facts.language
        for d in f.facts.definitions:
            if d.doc is not None:
                sentence = first_sentence(d.doc.text)
                if len(_WORD.findall(sentence)) >= min_words:
                    found["docstring"].append(
                        EvalQuery(
                            "",
                            "docstring",
                            sentence,
                            f.path,
                            d.start_line,
                            d.end_line,
                            lang,
                            d.qualified_name,
                        )
                    )
            if names[d.name] == 1 and _good_name(d.name):
                found["symbol"].append(
                    EvalQuery("", "symbol", d.name, f.path, d.start_line, d.end_line, lang, d.qualified_name)
                )
        for m in f.facts.members:
            if names[m.name] == 1 and _good_name(m.name):
                found["member"].append(
                    EvalQuery("", "member", m.name, f.path, m.start_line, m.end_line, lang, m.qualified_name)
                )
        for lit in f.facts.literals:
            if _good_literal(lit.text):
                owner = f.facts.definitions[lit.definition]
                found["literal"].append(
                    EvalQuery(
                        "",
                        "literal",
                        lit.text,
                        f.path,
                        owner.start_line,
                        owner.end_line,
                        lang,
                        owner.qualified_name,
                    )
                )
    # A query text shared by several targets (copied docs, repeated literals) is ambiguous: drop it.
    for family, pool in found.items():
        targets: dict[str, set[tuple[str, int]]] = {}
        for q in pool:
            targets.setdefault(q.text, set()).add((q.path, q.start_line))
        found[family] = [q for q in pool if len(targets[q.text]) == 1]
    return found


def _good_name(name: str) -> bool:
    return len(name) >= 4 and not name.startswith("__") and name.lower().strip("_") not in _SKIP_NAMES


def _good_literal(text: str) -> bool:
    return (
        10 <= len(text) <= 100 and "\\" not in text and len(_WORD.findall(text)) >= 2 and text.strip() == text
    )


def _order(q: EvalQuery) -> tuple[str, int, str]:
    return (q.path, q.start_line, q.text)


def build(corpus: Corpus, *, seed: int = 0, size: int = 100, min_words: int = 4) -> EvalSet:
    """Sample up to ``size`` queries per family from ``corpus`` (see the module docstring)."""
    if size < 1 or min_words < 1:
        raise EvalSetError("size and min_words must be at least 1")
    rng = random.Random(seed)
    haystack = "\0".join(f.blanked.decode("utf-8", "replace") for f in corpus.files)
    queries: list[EvalQuery] = []
    for family, pool in _candidates(corpus, min_words).items():
        pool = sorted({(q.text, q.path, q.start_line): q for q in pool}.values(), key=_order)
        rng.shuffle(pool)
        picked: list[EvalQuery] = []
        for q in pool:
            if len(picked) == size:
                break
            # Checked lazily: counting every literal in a large repository would be quadratic.
            if family == "literal" and haystack.count(q.text) != 1:
                continue
            picked.append(q)
        picked.sort(key=_order)
        queries.extend(replace(q, qid=f"{family}-{i:03d}") for i, q in enumerate(picked, start=1))
    original = {f.path: f.original for f in corpus.files}
    files = {q.path: _sha256(original[q.path]) for q in queries}
    params = {"size": size, "min_words": min_words, "extractor_version": EXTRACTOR_VERSION}
    return with_phrases(EvalSet(seed, tuple(queries), dict(sorted(files.items())), params))


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_matches(evalset: EvalSet, corpus: Corpus) -> None:
    """Raise :class:`EvalSetError` if a target file changed since the set was built."""
    current = {f.path: _sha256(f.original) for f in corpus.files}
    changed = sorted(p for p, digest in evalset.files.items() if current.get(p) != digest)
    if changed:
        shown = ", ".join(changed[:3]) + (" ..." if len(changed) > 3 else "")
        raise EvalSetError(
            f"{len(changed)} target file(s) changed since the query set was built ({shown}); "
            "rebuild it without --queries (or check out the revision it was built from)."
        )


def to_json(evalset: EvalSet) -> dict[str, object]:
    return {
        "version": FORMAT_VERSION,
        "seed": evalset.seed,
        "params": dict(evalset.params),
        "files": dict(evalset.files),
        "queries": [asdict(q) for q in evalset.queries],
    }


def from_json(data: Mapping[str, object]) -> EvalSet:
    if data.get("version") != FORMAT_VERSION:
        raise EvalSetError(f"unsupported query-set version {data.get('version')!r}; rebuild the query set.")
    try:
        raw_queries = data["queries"]
        assert isinstance(raw_queries, list)
        queries = tuple(EvalQuery(**q) for q in raw_queries)
        seed = int(str(data["seed"]))
        files = dict(data.get("files") or {})  # type: ignore[call-overload]
        params = dict(data.get("params") or {})  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise EvalSetError(f"malformed query set ({exc}); rebuild it.") from exc
    bad = sorted({q.family for q in queries} - set(FAMILIES))
    if bad:
        raise EvalSetError(f"unknown query families {bad}; expected {list(FAMILIES)}.")
    return with_phrases(EvalSet(seed, queries, files, params))


def with_phrases(evalset: EvalSet) -> EvalSet:
    """``evalset`` plus one ``phrase`` query per literal of two whitespace-separated words or more
    (same text and target), unless it has phrase queries already."""
    if any(q.family == "phrase" for q in evalset.queries):
        return evalset
    phrases = [q for q in evalset.queries if q.family == "literal" and len(q.text.split()) >= 2]
    added = tuple(replace(q, qid=f"phrase-{i:03d}", family="phrase") for i, q in enumerate(phrases, start=1))
    return replace(evalset, queries=evalset.queries + added)


def query_text(q: EvalQuery) -> str:
    """What a user types for ``q``: a literal quoted (with a quote character it does not hold), the
    other families as they are."""
    if q.family != "literal":
        return q.text
    quote = next((c for c in "\"'`" if c not in q.text), '"')
    return f"{quote}{q.text}{quote}"


def save(evalset: EvalSet, path: Path) -> None:
    path.write_text(json.dumps(to_json(evalset), indent=1) + "\n", encoding="utf-8")


def load(path: Path) -> EvalSet:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EvalSetError(f"cannot read the query set {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise EvalSetError(f"{path} is not JSON ({exc}); pass a file written by --save-queries.") from exc
    if not isinstance(data, dict):
        raise EvalSetError(f"{path} does not hold a query set; pass a file written by --save-queries.")
    return from_json(data)

"""What a query looks like: quoted literal, regex, identifier or natural language; its terms.

The shape decides how the text retriever searches and which weights the fusion uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Shape = Literal["literal", "regex", "identifier", "natural"]

_STOP_TEXT = """a an the and or not of to in on for with by from at as is are was were be been being it its
this that these those there their them they we you your our i me my do does did done how what where when which
who whom why can could should would will shall may might must into onto over under about above below between
than then so such via per all any each every some no yes if else get gets use used uses using function
functions method methods class code file files
return returns self none true false null nil def elif lambda yield await async void var let const"""
# The last line holds keywords of programming languages: in a sentence ("Return the running loop")
# they carry little meaning, and as search terms they match nearly every file of a code base.
STOPWORDS = frozenset(_STOP_TEXT.split())
# ``$`` belongs to identifiers in JavaScript/TypeScript (``$ZodType``), PHP (``$this->db``) and Java.
_IDENT = re.compile(r"\$*[A-Za-z_][A-Za-z0-9_$]*(?:(?:\.|::|->|#)\$*[A-Za-z_][A-Za-z0-9_$]*)*")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class QueryShape:
    shape: Shape
    literal: str | None  # the text to search verbatim (literal and regex shapes)
    terms: tuple[str, ...]  # lower-cased search terms (stems), most specific first
    identifiers: tuple[str, ...]  # identifier-like tokens, as written


def looks_like_identifier(token: str) -> bool:
    """``UploadSession``, ``upload_session``, ``pkg.Type.Method``, ``ns::f``, ``getX`` (not ``upload``)."""
    if not _IDENT.fullmatch(token):
        return False
    if any(sep in token for sep in (".", "::", "->", "#")) or "_" in token.strip("_"):
        return True
    # camelCase, PascalCase with a second capital, ACRONYMWord, name2: a capitalised word is not enough
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|[A-Za-z]\d", token))


def content_words(text: str) -> list[str]:
    """Words of three or more letters that are not stop words, as written."""
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in STOPWORDS]


def stem(word: str) -> str:
    """A crude suffix strip so that substring search finds inflections (uploads → upload)."""
    w = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 4:
            w = w[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    return w


def analyse(text: str, *, regex: bool = False) -> QueryShape:
    q = text.strip()
    if regex:
        return QueryShape("regex", q, (), ())
    if len(q) >= 2 and q[0] == q[-1] and q[0] in "\"'`":
        inner = q[1:-1]
        return QueryShape("literal", inner, (inner.lower(),), tuple(t for t in _IDENT.findall(inner)))
    tokens = q.split()
    identifiers = tuple(t for t in (_IDENT.findall(q)) if looks_like_identifier(t))
    if len(tokens) == 1 and _IDENT.fullmatch(q):
        return QueryShape("identifier", None, (q.lower(),), (q,))
    words = [w for w in _WORD.findall(q)]
    terms: list[str] = []
    for w in words:
        low = w.lower()
        if low in STOPWORDS or len(low) < 3:
            continue
        t = stem(low) if not looks_like_identifier(w) else low
        if t not in terms:
            terms.append(t)
    if not terms:
        terms = [w.lower() for w in words if len(w) >= 2][:8]
    if len(tokens) <= 3 and all(_IDENT.fullmatch(t) and looks_like_identifier(t) for t in tokens):
        return QueryShape("identifier", None, tuple(terms), identifiers)
    return QueryShape("natural", None, tuple(terms[:12]), identifiers)

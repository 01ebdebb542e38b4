"""What a transformer reads of a text when ``model.punctuation = "drop"``: the text without its ASCII
punctuation.

Nearly half of the word pieces of source code are punctuation (BENCHMARKS §9: 45 % of tokio's and of
rich's chunks), each a position the transformer pays for while it carries little of what a search in
words asks. Every ASCII character that is neither a letter, a digit nor whitespace becomes a space,
so ``self._retry(n + 1)`` is read as ``self retry n 1``: the words stay apart, as the model's own
tokenizer splits them at punctuation anyway. Other characters are kept. Documents and queries are
read the same way, so both sides of a comparison live in one vector space.
"""

from __future__ import annotations

#: str.translate's table: each ASCII punctuation character to a space.
_TO_SPACE = {c: " " for c in range(0x21, 0x7F) if not chr(c).isalnum()}

#: The model id's mark for vectors of texts without punctuation (another vector space).
TAG = "nopunct"


def without_punctuation(text: str) -> str:
    """``text`` with every ASCII punctuation character replaced by a space."""
    return text.translate(_TO_SPACE)

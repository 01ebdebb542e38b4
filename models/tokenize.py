"""Running a Hugging Face fast tokenizer over a model's texts without handing away the interpreter.

``Tokenizer.encode_batch`` tokenises in Rust threads and releases the interpreter lock while it does;
``Tokenizer.encode`` keeps it. For a batch of chunks the batch form wins (its threads run in parallel).
For a search's one query it loses: a hybrid search runs the vector leg beside the text and symbol legs,
and once the vector leg's thread lets the lock go to tokenise a few words, a leg running Python takes it
and keeps it until its switch interval ends or it waits on something itself, so the query's embedding
starts late (0.09 against 0.6 ms to the model's run, median of 120 searches; BENCHMARKS §10,
"Twenty-first session"). One text is therefore tokenised with ``encode``: the same ids, the same
attention mask, no padding to add.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def encode_texts(tokenizer: Any, texts: Sequence[str], *, add_special_tokens: bool = True) -> list[Any]:
    """``tokenizer``'s encodings of ``texts`` in order: one text on the calling thread, holding the
    interpreter lock; several in the tokenizer's own threads (``encode_batch_fast`` where the tokenizers
    package has it: the same ids without character offsets)."""
    if len(texts) == 1:
        return [tokenizer.encode(texts[0], add_special_tokens=add_special_tokens)]
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)
    return list(encode(list(texts), add_special_tokens=add_special_tokens))

"""Working one item ahead: the next item's work runs on another thread while the caller uses this one's.

For work that lets the interpreter go while it runs (a tokenizer's Rust threads, numpy's sums, a model's
run) beside a caller that does something else meanwhile (summing rows, writing a batch to the index).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


def one_ahead(work: Callable[[_T], _R], items: Iterable[_T], name: str = "plait-ahead") -> Iterator[_R]:
    """``work`` of each of ``items`` in order, the next one done on a thread named ``name`` while the
    caller uses this one. ``items`` may be a generator: its next item is taken while ``work`` runs on the
    one before (a window read while a batch embeds). What ``work`` raises is raised where its result is
    taken; closing the iterator early waits for the item in hand."""
    from concurrent.futures import ThreadPoolExecutor  # not imported by a search's one query

    pending_items = iter(items)
    first = next(pending_items, _NONE)
    if first is _NONE:
        return
    with ThreadPoolExecutor(1, thread_name_prefix=name) as pool:
        pending = pool.submit(work, first)
        for item in pending_items:  # taken while ``pending`` runs
            done = pending.result()
            pending = pool.submit(work, item)
            yield done
        yield pending.result()


_NONE: Any = object()

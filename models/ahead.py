"""Working one item ahead: the next item's work runs on another thread while the caller uses this one's.

For work that lets the interpreter go while it runs (a tokenizer's Rust threads, numpy's sums, a model's
run) beside a caller that does something else meanwhile (summing rows, writing a batch to the index).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")


def one_ahead(
    work: Callable[[_T], _R], items: Iterable[_T], name: str = "plait-ahead", *, ahead: int = 1
) -> Iterator[_R]:
    """``work`` of each of ``items`` in order, the next one done on a thread named ``name`` while the
    caller uses this one (``ahead``: how many are done at once on as many threads; each next item is
    queued before the caller waits, so a thread goes from one to the next without waiting for the caller).
    ``items`` may be a generator: its next item is taken while ``work`` runs on the ones before (a window
    read while a batch embeds). What ``work`` raises is raised where its result is taken; closing the
    iterator early waits for the items in hand."""
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor  # not imported by a search's one query

    with ThreadPoolExecutor(ahead, thread_name_prefix=name) as pool:
        pending: deque[Future[_R]] = deque()
        for item in items:  # taken while the items before run
            pending.append(pool.submit(work, item))
            if len(pending) > ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()

"""Numpy's BLAS on one thread around the small products a search computes.

OpenBLAS splits even a matrix-vector product of a few thousand rows across all its threads, and its
idle threads spin before they sleep. During a search those threads take the cores that the query's
embedding, ripgrep and the other retrievers need: on this project's 2-core machine, under load, the
exact ranking of 1,760 kept vectors (:mod:`indexer.kept_vectors`) took 6–7.5 ms per query with two
BLAS threads and 0.25–0.5 ms with one, and a whole semantic search 14–20 ms against 4.3–5.2 ms
(`cpython-lib`, 40 queries, both settings interleaved in one process). The limit applies only inside
:func:`one_blas_thread`, so indexing and anything else in the process keeps its threads.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

log = logging.getLogger(__name__)

_lock = threading.Lock()
_controller: list[Any] = []  # the threadpoolctl controller, made once (it inspects the loaded libraries)


def _made() -> Any | None:
    with _lock:
        if not _controller:
            try:
                from threadpoolctl import ThreadpoolController

                _controller.append(ThreadpoolController())
            except Exception as exc:  # no threadpoolctl, or a library it cannot drive: run as is
                log.debug("BLAS threads left as they are: %s", exc)
                _controller.append(None)
        return _controller[0]


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    """Inside the block, numpy's BLAS runs on the calling thread (about 10 µs to set and restore).

    Concurrent blocks may restore the previous count while another is still inside: that search
    then runs with the library's own threads, as without this limit, and gets the same numbers."""
    controller = _made()
    if controller is None:
        yield
        return
    with controller.limit(limits=1, user_api="blas"):
        yield

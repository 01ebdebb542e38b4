"""VersionMemo: one value per table version, made once even when many threads ask at once."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from indexer.memo import VersionMemo


def test_a_value_is_kept_for_its_key_and_made_again_for_another() -> None:
    memo: VersionMemo[int, str] = VersionMemo()
    seen: list[str | None] = []

    def make(tag: str) -> Callable[[str | None], str]:
        def inner(previous: str | None) -> str:
            seen.append(previous)
            return tag

        return inner

    assert memo.get(1, make("v1")) == "v1"
    assert memo.get(1, make("other")) == "v1"  # kept: not made again
    assert memo.get(2, make("v2")) == "v2"
    assert seen == [None, "v1"]  # the new version's make was handed the old value
    memo.forget(keep_value=True)
    assert memo.kept() == "v2"
    assert memo.get(2, make("v2 again")) == "v2 again"  # forgotten: no key matches any more
    assert seen[-1] == "v2"
    memo.forget()
    assert memo.kept() is None
    assert memo.get(2, make("fresh")) == "fresh" and seen[-1] is None


def test_a_failed_make_keeps_nothing() -> None:
    memo: VersionMemo[int, int] = VersionMemo()

    def boom(_previous: int | None) -> int:
        raise ValueError("unreadable")

    with pytest.raises(ValueError, match="unreadable"):
        memo.get(1, boom)
    assert memo.kept() is None
    assert memo.get(1, lambda _p: 7) == 7


def test_concurrent_readers_of_a_new_version_wait_for_one_make() -> None:
    memo: VersionMemo[int, object] = VersionMemo()
    made: list[int] = []
    arrived = threading.Semaphore(0)

    def make(_previous: object) -> object:
        made.append(1)
        for _ in range(7):  # hold the make until every other reader has asked too
            assert arrived.acquire(timeout=10)
        return object()

    results: list[object] = []

    def reader() -> None:
        arrived.release()
        results.append(memo.get(5, make))

    threads = [threading.Thread(target=reader) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert len(made) == 1
    assert len(results) == 8 and all(r is results[0] for r in results)

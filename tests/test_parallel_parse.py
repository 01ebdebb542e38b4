"""Large builds, and first builds while the index opens, read and parse files in worker processes
(issue 16): the same tables as in-process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import write_tree
from process_harness import alive

import indexer.build as build
import indexer.parse_ahead as parse_ahead
import indexer.parse_jobs as parse_jobs
from indexer import Index, Settings, load_settings
from indexer.parse_ahead import AHEAD_MIN_FILES, ParseAhead
from indexer.parse_jobs import Parsed, ParsedRows, ParseJob, batch_tables, parse_group, read_and_parse
from indexer.workspace import Walker, WalkStats, WorkspaceFile

pytestmark = pytest.mark.timeout(180)

FILES: dict[str, str | bytes] = {
    "app/models.py": "class User:\n    def save(self):\n        return db.add(self)\n",
    "app/views.py": "from app.models import User\n\ndef create_user(name):\n    return User().save()\n",
    "lib/util.go": "package lib\n\nfunc Retry(n int) int {\n\treturn n * 2\n}\n",
    "web/app.ts": "export class Router {\n  route(path: string): void {}\n}\n",
    "README.md": "# demo\n\nA small tree.\n",
    "data/blob.bin": b"\x00\x01\x02binary",
}


def tables(index: Index) -> dict[str, list[dict[str, object]]]:
    out = {}
    for name, key in (("files", "path"), ("symbols", "qualified_name"), ("chunks", "chunk_id")):
        rows = index.store.read(name).to_pylist()
        for row in rows:
            row.pop("mtime_ns", None)
        out[name] = sorted(rows, key=lambda r: (str(r["path"]), str(r[key]), str(r.get("start_line"))))
    return out


SettingsFor = Callable[[str], Settings]


def rows_of(parsed: list[Parsed | ParsedRows]) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    symbols, chunks = batch_tables(parsed)
    return symbols.to_pylist(), chunks.to_pylist()


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, SettingsFor]:
    """FILES written to a workspace, and its settings with the index in ``tmp_path / name``."""
    root = write_tree(tmp_path / "repo", FILES)

    def settings(name: str) -> Settings:
        return load_settings(
            root, env={}, overrides={"index_dir": str(tmp_path / name), "model_name": "hashing"}
        )

    return root, settings


def serial_tables(settings: SettingsFor) -> dict[str, list[dict[str, object]]]:
    """The tables of the tree's index built in this process (no worker), to compare others with."""
    serial = Index(settings("serial"))
    serial.build(vectors=False)
    return tables(serial)


def require_workers(settings: Settings) -> None:
    pool = parse_jobs.parse_pool(settings, 5, min_files=1)
    if pool is None:
        pytest.skip("one usable core: builds parse in-process")
    pool.shutdown()


@pytest.mark.parametrize("rows_in_workers", [False, True])
def test_worker_processes_build_the_same_index_as_one_process(
    tree: tuple[Path, SettingsFor], monkeypatch: pytest.MonkeyPatch, rows_in_workers: bool
) -> None:
    root, settings = tree
    expected = serial_tables(settings)
    require_workers(settings("parallel"))
    monkeypatch.setattr(parse_jobs, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(build, "ROWS_IN_WORKERS_FILES", 1 if rows_in_workers else 10**9)
    made: list[list[Parsed | ParsedRows]] = []

    def seen(parsed: list[Parsed | ParsedRows]) -> object:
        made.append(parsed)
        return batch_tables(parsed)

    monkeypatch.setattr(build, "batch_tables", seen)
    parallel = Index(settings("parallel"))
    report = parallel.build(vectors=False)
    assert report.changed == 5 and not report.errors
    assert tables(parallel) == expected
    kinds = {type(p) for batch in made for p in batch}
    assert kinds == ({ParsedRows} if rows_in_workers else {Parsed})  # rows made by the workers, or here
    (root / "app/views.py").touch()  # only its mtime changes: the worker says "same", nothing is parsed
    again = Index(settings("parallel")).build(vectors=False)
    assert (again.changed, again.unchanged) == (0, 5)


def test_a_first_build_parses_ahead_while_it_opens_the_index_and_builds_the_same_index(
    tree: tuple[Path, SettingsFor], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, settings = tree
    serial = Index(settings("serial"))
    assert serial.build(vectors=False).parsed_ahead == 0  # this process has opened LanceDB: no gain
    require_workers(settings("ahead"))
    monkeypatch.setattr(parse_ahead, "AHEAD_MIN_FILES", 1)
    monkeypatch.setattr(parse_ahead, "lancedb_imported", lambda: False)  # as in a fresh `plait index`
    ahead = Index(settings("ahead"))
    report = ahead.build(vectors=False)
    assert (report.parsed_ahead, report.changed) == (5, 5) and not report.errors
    assert tables(ahead) == tables(serial)
    (root / "app/views.py").write_text("def changed():\n    return 1\n")
    again = Index(settings("ahead")).build(vectors=False)  # the index has tables: nothing ahead
    assert (again.parsed_ahead, again.changed, again.unchanged) == (0, 1, 4)


class Recorded:
    """``indexer.Progress`` that keeps what it was told; ``committed`` is set at the first file."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.committed = threading.Event()

    def start(self, phase: str, total: int) -> None:
        self.calls.append(("start", (phase, total)))

    def advance(self, n: int = 1) -> None:
        self.calls.append(("advance", n))
        self.committed.set()

    def set_total(self, total: int) -> None:
        self.calls.append(("set_total", total))


def test_a_first_build_with_workers_parses_while_it_walks_and_builds_the_same_index(
    tree: tuple[Path, SettingsFor], monkeypatch: pytest.MonkeyPatch
) -> None:
    _root, settings = tree
    expected = serial_tables(settings)
    require_workers(settings("streamed"))
    monkeypatch.setattr(parse_ahead, "AHEAD_MIN_FILES", 1)
    monkeypatch.setattr(parse_ahead, "AHEAD_MAX_FILES", 1)  # the other files go to the workers as found
    monkeypatch.setattr(parse_ahead, "lancedb_imported", lambda: False)
    monkeypatch.setattr(build, "FILE_BATCH", 2)
    monkeypatch.setattr(build, "ROWS_IN_WORKERS_FILES", 3)  # the later batches' rows made by the workers
    progress = Recorded()
    waited: list[bool] = []
    plain = Walker.walk

    def slow_walk(self: Walker, stats: WalkStats | None = None) -> Iterator[WorkspaceFile]:
        for i, found in enumerate(plain(self, stats)):
            if i == 4:  # a batch is committed before the walk ends (a walk first would wait in vain)
                waited.append(progress.committed.wait(10))
            yield found

    monkeypatch.setattr(Walker, "walk", slow_walk)
    streamed = Index(settings("streamed"))
    report = streamed.build(vectors=False, progress=progress)
    assert waited == [True]
    assert (report.parsed_ahead, report.changed) == (1, 5) and not report.errors
    assert report.skipped == {"skipped_binary": 1}
    assert tables(streamed) == expected
    assert progress.calls[0] == ("start", ("parsing", 0))  # the total is not known while the walk goes on
    assert ("set_total", 5) in progress.calls
    assert sum(n for kind, n in progress.calls if kind == "advance" and isinstance(n, int)) == 5


def test_an_outcome_parsed_ahead_is_handed_out_once_and_only_for_the_same_job(
    tree: tuple[Path, SettingsFor], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, settings = tree
    s = settings("index")
    monkeypatch.setattr(parse_ahead, "AHEAD_MIN_FILES", 1)
    monkeypatch.setattr(parse_ahead, "lancedb_imported", lambda: False)
    ahead = ParseAhead.start(s, tmp_path / "index")
    if ahead is None:
        pytest.skip("one usable core: builds parse in-process")
    mtime = (root / "app/models.py").stat().st_mtime_ns
    job = ParseJob("app/models.py", mtime, "python", None)
    got = ahead.take(job)
    assert got is not None and got == read_and_parse(job, s) and got[0] == "parsed"
    assert ahead.take(job) is None  # once
    assert ahead.take(ParseJob("app/models.py", mtime + 1, "python", None)) is None  # changed since
    assert ahead.take(ParseJob("app/models.py", mtime, "python", "0" * 64)) is None  # had a hash
    assert ahead.taken == 1
    ahead.close()
    ahead.close()  # again: nothing
    assert ahead.closed


def test_no_parsing_ahead_for_an_index_that_has_tables_or_a_small_tree(
    tree: tuple[Path, SettingsFor], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = tree[1]("index")
    monkeypatch.setattr(parse_ahead, "lancedb_imported", lambda: False)
    assert ParseAhead.start(s, tmp_path / "index") is None  # 5 files < AHEAD_MIN_FILES
    monkeypatch.setattr(parse_ahead, "AHEAD_MIN_FILES", 1)
    (tmp_path / "built").mkdir()
    (tmp_path / "built" / "files.lance").mkdir()
    assert ParseAhead.start(s, tmp_path / "built") is None
    assert ParseAhead.start(s, None) is None  # object storage: the build parses as usual


KILLED_BUILD = """
import os, sys, time
from pathlib import Path
from indexer import load_settings
from indexer.parse_jobs import parse_pool
s = load_settings(Path(sys.argv[1]), env={}, overrides={"index_dir": sys.argv[2], "model_name": "hashing"})
pool = parse_pool(s, 2, min_files=1)
print(" ".join(sorted({str(pool.submit(os.getpid).result()) for _ in range(4)})), flush=True)
time.sleep(600)
"""


def test_parse_workers_end_when_their_build_is_killed(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", FILES)
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, str(root), str(tmp_path / "index")],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip():
        proc.kill()
        proc.wait()
        pytest.skip("one usable core: no worker processes")
    workers = [int(p) for p in line.split()]
    assert workers and proc.pid not in workers and all(alive(p) for p in workers)
    proc.send_signal(signal.SIGKILL)  # no chance to shut its pool down
    proc.wait()
    deadline = time.monotonic() + 30
    while any(alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in workers), "a killed build's parse workers kept running"


FROM_STDIN = """
import json, sys
from pathlib import Path
from indexer import Index, load_settings
s = load_settings(Path(sys.argv[1]), env={}, overrides={"index_dir": sys.argv[2], "model_name": "hashing"})
r = Index(s).build(tier="fast")
print(json.dumps({"changed": r.changed, "symbols": r.symbols, "ahead": r.parsed_ahead, "errors": r.errors}))
"""


def test_a_first_build_whose_parse_workers_cannot_start_parses_in_process(tmp_path: Path) -> None:
    n = AHEAD_MIN_FILES
    root = write_tree(
        tmp_path / "repo", {f"pkg/m{i:03}.py": f"def f{i}():\n    return {i}\n" for i in range(n)}
    )
    # A program read from stdin: spawned workers cannot import its main module and die at start.
    out = subprocess.run(
        [sys.executable, "-", str(root), str(tmp_path / "index")],
        input=FROM_STDIN, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == {"changed": n, "symbols": n, "ahead": 0, "errors": []}
    if len(os.sched_getaffinity(0)) > 1:  # there were workers to lose
        assert "parsing in this process" in out.stderr


def test_a_chunk_sent_by_a_worker_arrives_as_it_left() -> None:
    import pickle

    from indexer.types import Chunk

    chunk = Chunk("src/a.py", 3, 9, "Client.retry", "method", "python", "def retry(self): ...", "ab" * 32)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(chunk, protocol=protocol))
        assert back == chunk and back.chunk_id == chunk.chunk_id and type(back) is Chunk
    assert pickle.loads(pickle.dumps(Chunk("b.c", 1, 1, None, None, None, "", ""))).symbol is None


def test_rows_made_by_workers_and_in_process_are_committed_in_the_files_order(
    tree: tuple[Path, SettingsFor], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch mixes files parsed ahead or in-process (objects) and files whose rows a worker made for
    its group (slices of its tables): the rows are those of the objects, in the files' order."""
    _root, settings = tree
    s = settings("index")
    monkeypatch.setattr(parse_jobs, "_worker_settings", s)  # parse_group runs here as in a worker
    paths = ["app/models.py", "app/views.py", "lib/util.go", "web/app.ts", "README.md"]
    jobs = [
        ParseJob(p, 0, lang, None)
        for p, lang in zip(paths, ["python", "python", "go", "typescript", "markdown"], strict=True)
    ]
    here = [read_and_parse(job, s) for job in jobs]
    objects = [v for k, v in here if k == "parsed" and isinstance(v, Parsed)]
    first, second = parse_group(jobs[:3]).outcomes(), parse_group(jobs[3:]).outcomes()
    worker = [v for k, v in first + second if k == "parsed" and isinstance(v, ParsedRows)]
    assert [k for k, _ in first + second] == [k for k, _ in here]
    assert len(worker) == len(objects) == 5 and [w.record for w in worker] == [o.record for o in objects]
    expected = rows_of(list(objects))
    assert expected[0] and expected[1]
    assert rows_of(list(worker)) == expected
    mixed: list[Parsed | ParsedRows] = [worker[0], objects[1], worker[2], worker[3], objects[4]]
    assert rows_of(mixed) == expected
    assert rows_of([worker[0], worker[2]]) == rows_of([objects[0], objects[2]])  # not adjacent: two slices
    assert rows_of([]) == ([], [])

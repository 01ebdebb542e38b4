"""Large builds read and parse files in worker processes (issue 16): the same tables as in-process."""

from __future__ import annotations

from pathlib import Path

import pytest

import indexer.parse_jobs as parse_jobs
from indexer import Index, Settings, load_settings

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


def test_worker_processes_build_the_same_index_as_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    for rel, content in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        (root / rel).write_bytes(data)

    def settings(name: str) -> Settings:
        return load_settings(
            root, env={}, overrides={"index_dir": str(tmp_path / name), "model_name": "hashing"}
        )

    serial = Index(settings("serial"))
    serial.build(vectors=False)
    monkeypatch.setattr(parse_jobs, "PARALLEL_MIN_FILES", 1)
    pool = parse_jobs.parse_pool(settings("parallel"), 5)
    if pool is None:
        pytest.skip("one usable core: builds parse in-process")
    pool.shutdown()
    parallel = Index(settings("parallel"))
    report = parallel.build(vectors=False)
    assert report.changed == 5 and not report.errors
    assert tables(parallel) == tables(serial)
    (root / "app/views.py").touch()  # only its mtime changes: the worker says "same", nothing is parsed
    again = Index(settings("parallel")).build(vectors=False)
    assert (again.changed, again.unchanged) == (0, 5)

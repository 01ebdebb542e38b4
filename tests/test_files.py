"""The file tools on real files: read, write, list, stat, glob, and their refusals."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from pathlib import Path

import pytest

from models.errors import PathOutsideRootError, WorkspaceError
from search.errors import (
    BinaryFileError,
    FileTooLargeError,
    GuardBlockedError,
    InvalidPathError,
    LineRangeError,
    PathNotFoundError,
    QueryError,
    ReadOnlyError,
    StaleEditError,
)
from search.workspace.browse import file_info, glob_files, list_directory
from search.workspace.confine import Roots
from search.workspace.files import read_file, write_file
from search.workspace.guard import parse_rules


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\n\n\ndef main():\n    return 1\n")
    (root / "README.md").write_text("# hi\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    return root


def roots_of(root: Path) -> Roots:
    return Roots([root])


# --- read_file ---------------------------------------------------------------------------------------


def test_read_file_numbers_lines_and_returns_the_hash_of_the_bytes(ws: Path) -> None:
    content = read_file(roots_of(ws), "src/app.py")
    assert content.text.splitlines()[0] == "     1\timport os"
    assert content.text.splitlines()[4] == "     5\t    return 1"
    assert content.total_lines == 5
    assert (content.start_line, content.end_line) == (1, 5)
    assert not content.truncated and content.note is None
    assert content.sha256 == hashlib.sha256((ws / "src" / "app.py").read_bytes()).hexdigest()
    assert content.language == "python"


def test_read_file_window_says_how_to_continue(ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    content = read_file(roots_of(ws), "big.txt", offset=10, limit=5)
    assert content.text.splitlines() == [f"{n:>6}\tline {n}" for n in range(10, 15)]
    assert content.truncated
    assert content.note is not None and "offset=15" in content.note
    tail = read_file(roots_of(ws), "big.txt", offset=95, limit=50)
    assert (tail.end_line, tail.truncated) == (100, False)


def test_read_file_cuts_over_long_lines_with_a_note(ws: Path) -> None:
    (ws / "long.txt").write_text("x" * 5000 + "\nshort\n")
    content = read_file(roots_of(ws), "long.txt")
    assert content.truncated
    assert "line cut: 5,000 characters" in content.text
    assert content.note is not None and "cut" in content.note


def test_read_file_shows_crlf_lines_without_carriage_returns(ws: Path) -> None:
    (ws / "dos.txt").write_bytes(b"a\r\nb\r\nc")
    content = read_file(roots_of(ws), "dos.txt")
    assert content.text == "     1\ta\n     2\tb\n     3\tc"
    assert content.total_lines == 3


def test_read_file_of_an_empty_file_has_no_lines(ws: Path) -> None:
    (ws / "empty.txt").write_bytes(b"")
    content = read_file(roots_of(ws), "empty.txt")
    assert (content.text, content.total_lines, content.truncated) == ("", 0, False)


def test_read_file_offset_past_the_end_is_refused(ws: Path) -> None:
    with pytest.raises(LineRangeError, match="has 5 line"):
        read_file(roots_of(ws), "src/app.py", offset=9)
    with pytest.raises(QueryError, match="at least 1"):
        read_file(roots_of(ws), "src/app.py", offset=0)


def test_read_file_refuses_binary_files_with_a_message(ws: Path) -> None:
    (ws / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    with pytest.raises(BinaryFileError, match="file_info"):
        read_file(roots_of(ws), "image.png")


def test_read_file_marks_invalid_utf8(ws: Path) -> None:
    (ws / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    content = read_file(roots_of(ws), "latin1.txt")
    assert "\ufffd" in content.text
    assert content.note is not None and "UTF-8" in content.note


def test_read_file_over_the_size_limit_is_refused_with_the_numbers(ws: Path) -> None:
    (ws / "big.log").write_text("y" * 2000)
    with pytest.raises(FileTooLargeError, match="2,000 bytes, over the 1,000-byte read limit"):
        read_file(roots_of(ws), "big.log", max_bytes=1000)


def test_read_file_of_a_directory_points_to_list_directory(ws: Path) -> None:
    with pytest.raises(WorkspaceError, match="list_directory"):
        read_file(roots_of(ws), "src")


def test_read_file_of_a_missing_file(ws: Path) -> None:
    with pytest.raises(PathNotFoundError):
        read_file(roots_of(ws), "src/missing.py")


# --- confinement through every tool ------------------------------------------------------------------


def _escapes(ws: Path) -> list[str]:
    outside = ws.parent / "outside"
    os.symlink(outside / "secret.txt", ws / "link.txt")
    os.symlink(outside, ws / "linkdir")
    return ["../outside/secret.txt", str(outside / "secret.txt"), "link.txt", "linkdir/secret.txt"]


def test_no_tool_reads_lists_or_writes_outside_the_roots(ws: Path) -> None:
    roots = roots_of(ws)
    outside = ws.parent / "outside"
    for arg in _escapes(ws):
        with pytest.raises(PathOutsideRootError):
            read_file(roots, arg)
        with pytest.raises(PathOutsideRootError):
            file_info(roots, arg)
        with pytest.raises(PathOutsideRootError):
            write_file(roots, arg, "pwned\n")
    for arg in ("..", "linkdir", str(outside)):
        with pytest.raises(PathOutsideRootError):
            list_directory(roots, arg)
        with pytest.raises(PathOutsideRootError):
            glob_files(roots, "*", path=arg)
    with pytest.raises(PathOutsideRootError):
        write_file(roots, "linkdir/new/file.txt", "pwned\n")
    assert (outside / "secret.txt").read_text() == "secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@pytest.mark.parametrize("arg", ["src\\app.py", "src/app.py\0", "x" * 300])
def test_malformed_paths_are_refused_by_read_and_write(ws: Path, arg: str) -> None:
    with pytest.raises(InvalidPathError):
        read_file(roots_of(ws), arg)
    with pytest.raises(InvalidPathError):
        write_file(roots_of(ws), arg, "x")


# --- write_file --------------------------------------------------------------------------------------


def test_write_file_creates_parent_directories_and_reports_the_hash(ws: Path) -> None:
    seen: list[Path] = []
    result = write_file(roots_of(ws), "new/deep/file.txt", "hello\n", on_write=seen.append)
    target = ws / "new" / "deep" / "file.txt"
    assert target.read_text() == "hello\n"
    assert result.created and result.sha256_before is None
    assert result.sha256 == hashlib.sha256(b"hello\n").hexdigest()
    assert seen == [target.resolve()]


def test_write_file_keeps_the_mode_of_an_existing_file(ws: Path) -> None:
    script = ws / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o750)
    result = write_file(roots_of(ws), "run.sh", "#!/bin/sh\necho bye\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert not result.created and result.sha256_before is not None


def test_write_file_gives_a_new_file_the_umask_default(ws: Path) -> None:
    old = os.umask(0o022)
    try:
        write_file(roots_of(ws), "fresh.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws / "fresh.txt").stat().st_mode) == 0o644


def test_write_file_with_a_stale_hash_is_refused_and_changes_nothing(ws: Path) -> None:
    first = read_file(roots_of(ws), "README.md")
    (ws / "README.md").write_text("# changed by someone else\n")
    with pytest.raises(StaleEditError, match="re-read the file"):
        write_file(roots_of(ws), "README.md", "# mine\n", expected_sha256=first.sha256)
    assert (ws / "README.md").read_text() == "# changed by someone else\n"
    with pytest.raises(StaleEditError, match="no longer exists"):
        write_file(roots_of(ws), "gone.md", "x", expected_sha256=first.sha256)


def test_write_file_with_the_current_hash_succeeds(ws: Path) -> None:
    first = read_file(roots_of(ws), "README.md")
    write_file(roots_of(ws), "README.md", "# mine\n", expected_sha256=first.sha256.upper())
    assert (ws / "README.md").read_text() == "# mine\n"


def test_read_only_mode_refuses_write_file(ws: Path) -> None:
    with pytest.raises(ReadOnlyError, match="read-only"):
        write_file(roots_of(ws), "README.md", "x", read_only=True)
    with pytest.raises(ReadOnlyError):
        write_file(roots_of(ws), "new.txt", "x", read_only=True)
    assert (ws / "README.md").read_text() == "# hi\n"
    assert not (ws / "new.txt").exists()


def test_write_file_over_the_size_limit_is_refused(ws: Path) -> None:
    with pytest.raises(FileTooLargeError, match="write limit"):
        write_file(roots_of(ws), "big.txt", "z" * 101, max_bytes=100)
    assert not (ws / "big.txt").exists()


def test_generated_rules_from_plait_toml_block_write_file(ws: Path) -> None:
    (ws / "plait.toml").write_text(
        '[[guard.rules]]\nid = "protoc"\ntype = "generated"\nglobs = ["gen/**"]\nmessage = "run make proto"\n'
    )
    (ws / "gen").mkdir()
    (ws / "gen" / "api.pb.go").write_text("package gen\n")
    with pytest.raises(GuardBlockedError, match=r"protoc.*run make proto"):
        write_file(roots_of(ws), "gen/api.pb.go", "package hacked\n")
    assert (ws / "gen" / "api.pb.go").read_text() == "package gen\n"
    # explicit rules replace the configured ones
    rules = parse_rules([{"id": "vendored", "type": "generated", "globs": ["vendor/"]}])
    write_file(roots_of(ws), "gen/api.pb.go", "package gen // ok\n", guard_rules=rules)
    with pytest.raises(GuardBlockedError, match="vendored"):
        write_file(roots_of(ws), "vendor/x/y.go", "package y\n", guard_rules=rules)


def test_write_file_refuses_git_internals_and_directories(ws: Path) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    with pytest.raises(WorkspaceError, match=r"\.git"):
        write_file(roots_of(ws), ".git/hooks/pre-commit", "#!/bin/sh\n")
    with pytest.raises(WorkspaceError, match="directory"):
        write_file(roots_of(ws), "src", "x")
    with pytest.raises(WorkspaceError, match="root itself"):
        write_file(roots_of(ws), ".", "x")


def test_racing_writers_with_the_same_hash_exactly_one_wins(ws: Path) -> None:
    sha = read_file(roots_of(ws), "README.md").sha256
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def writer(n: int) -> None:
        barrier.wait()
        try:
            write_file(roots_of(ws), "README.md", f"writer {n}\n", expected_sha256=sha)
            outcomes.append(f"ok {n}")
        except StaleEditError:
            outcomes.append("stale")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o.startswith("ok")]
    assert len(winners) == 1 and outcomes.count("stale") == 7
    assert (ws / "README.md").read_text() == f"writer {winners[0].split()[1]}\n"


# --- list_directory ----------------------------------------------------------------------------------


def test_list_directory_reports_type_size_and_time_and_honours_ignores(ws: Path) -> None:
    (ws / ".gitignore").write_text("build/\n*.log\n")
    (ws / "build").mkdir()
    (ws / "debug.log").write_text("noise")
    (ws / ".git").mkdir()
    os.symlink("README.md", ws / "readme-link")
    (ws / ".plait-0123456789ab-99999999-deadbeef.tmp").write_text("leftover")
    listing = list_directory(roots_of(ws), ".")
    names = [e.name for e in listing.entries]
    assert names == ["src", ".gitignore", "README.md", "readme-link"]
    by_name = {e.name: e for e in listing.entries}
    assert by_name["src"].type == "dir" and by_name["src"].size is None
    assert by_name["README.md"].type == "file" and by_name["README.md"].size == 5
    assert by_name["readme-link"].type == "symlink"
    assert by_name["README.md"].modified.endswith("+00:00")
    assert listing.ignored == 3  # build/, debug.log, .git
    everything = list_directory(roots_of(ws), ".", include_ignored=True)
    assert {"build", "debug.log", ".git"} <= {e.name for e in everything.entries}
    assert not any(e.name.endswith(".tmp") for e in everything.entries)


def test_list_directory_of_a_subdirectory_and_its_limit(ws: Path) -> None:
    for i in range(5):
        (ws / "src" / "pkg" / f"m{i}.py").write_text("")
    listing = list_directory(roots_of(ws), "src/pkg", limit=3)
    assert [e.path for e in listing.entries] == ["src/pkg/m0.py", "src/pkg/m1.py", "src/pkg/m2.py"]
    assert listing.truncated and listing.total == 5
    with pytest.raises(WorkspaceError, match="not a directory"):
        list_directory(roots_of(ws), "README.md")


# --- file_info ---------------------------------------------------------------------------------------


def test_file_info_reports_metadata_and_the_index_state(ws: Path) -> None:
    (ws / "src" / "app.py").chmod(0o640)
    calls: list[tuple[Path, str]] = []

    def lookup(root: Path, rel: str) -> tuple[bool, bool] | None:
        calls.append((root, rel))
        return (True, False)

    info = file_info(roots_of(ws), "src/app.py", index_lookup=lookup)
    assert (info.type, info.language, info.line_count, info.mode) == ("file", "python", 5, "0640")
    assert info.size == (ws / "src" / "app.py").stat().st_size
    assert (info.binary, info.ignored, info.indexed, info.fresh) == (False, False, True, False)
    assert calls == [(ws.resolve(), "src/app.py")]
    plain = file_info(roots_of(ws), "src/app.py")
    assert (plain.indexed, plain.fresh) == (None, None)


def test_file_info_of_a_directory_an_ignored_and_a_binary_file(ws: Path) -> None:
    (ws / ".gitignore").write_text("*.bin\n")
    (ws / "blob.bin").write_bytes(b"\0\1\2")
    directory = file_info(roots_of(ws), "src")
    assert (directory.type, directory.line_count, directory.language) == ("dir", None, None)
    blob = file_info(roots_of(ws), "blob.bin")
    assert (blob.binary, blob.line_count, blob.ignored) == (True, None, True)


# --- glob --------------------------------------------------------------------------------------------


def test_glob_sorts_newest_first_and_caps(ws: Path) -> None:
    for i in range(4):
        path = ws / "src" / "pkg" / f"m{i}.py"
        path.write_text("")
        os.utime(path, ns=(1_000_000_000 * (10 + i), 1_000_000_000 * (10 + i)))
    result = glob_files(roots_of(ws), "**/*.py", limit=3)
    assert [m.path for m in result.matches] == ["src/app.py", "src/pkg/m3.py", "src/pkg/m2.py"]
    assert result.total == 5 and result.truncated


def test_glob_honours_ignores_unless_asked_and_a_base_path(ws: Path) -> None:
    (ws / ".gitignore").write_text("dist/\n")
    (ws / "dist").mkdir()
    (ws / "dist" / "bundle.py").write_text("")
    assert [m.path for m in glob_files(roots_of(ws), "*.py").matches] == ["src/app.py"]
    every = glob_files(roots_of(ws), "*.py", include_ignored=True)
    assert {m.path for m in every.matches} == {"src/app.py", "dist/bundle.py"}
    assert [m.path for m in glob_files(roots_of(ws), "/app.py", path="src").matches] == ["src/app.py"]
    assert glob_files(roots_of(ws), "/app.py").matches == []


def test_glob_refuses_empty_and_negated_patterns(ws: Path) -> None:
    with pytest.raises(QueryError):
        glob_files(roots_of(ws), "")
    with pytest.raises(QueryError, match="negated"):
        glob_files(roots_of(ws), "!*.py")

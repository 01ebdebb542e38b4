"""Path confinement: everything outside the roots is refused, however it is spelled."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from models.errors import PathOutsideRootError, WorkspaceError
from search.errors import InvalidPathError, PathNotFoundError
from search.workspace.confine import Roots


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    outside = tmp_path / "outside"
    (ws / "src").mkdir(parents=True)
    outside.mkdir()
    (ws / "src" / "app.py").write_text("print(1)\n")
    (outside / "secret.txt").write_text("secret\n")
    return ws, outside


def test_relative_path_resolves_against_the_first_root(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    root, abspath, rel = Roots([ws]).resolve("src/app.py")
    assert root == ws.resolve()
    assert abspath == ws.resolve() / "src" / "app.py"
    assert rel == "src/app.py"


def test_empty_and_dot_mean_the_root(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    assert Roots([ws]).resolve("").relpath == "."
    assert Roots([ws]).resolve("./").relpath == "."


def test_absolute_path_inside_a_second_root_selects_that_root(
    layout: tuple[Path, Path], tmp_path: Path
) -> None:
    ws, _ = layout
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("x")
    confined = Roots([ws, other]).resolve(str(other / "x.txt"))
    assert confined.root == other.resolve()
    assert confined.relpath == "x.txt"


@pytest.mark.parametrize(
    "arg", ["../outside/secret.txt", "src/../../outside/secret.txt", "../../../../etc/passwd"]
)
def test_dotdot_escapes_are_refused(layout: tuple[Path, Path], arg: str) -> None:
    ws, _ = layout
    with pytest.raises(PathOutsideRootError, match="outside the workspace"):
        Roots([ws]).resolve(arg, must_exist=False)


def test_dotdot_that_stays_inside_is_allowed(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    assert Roots([ws]).resolve("src/../src/app.py").relpath == "src/app.py"


def test_absolute_path_outside_is_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve(str(outside / "secret.txt"))
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("/etc/passwd")


def test_symlinked_file_pointing_out_is_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    os.symlink(outside / "secret.txt", ws / "link.txt")
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("link.txt")
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("link.txt", must_exist=False)


def test_dangling_symlink_pointing_out_is_refused_for_writes(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    os.symlink(outside / "new.txt", ws / "dangling.txt")
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("dangling.txt", must_exist=False)


def test_symlinked_parent_directory_pointing_out_is_refused(layout: tuple[Path, Path]) -> None:
    ws, outside = layout
    os.symlink(outside, ws / "linkdir")
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("linkdir/secret.txt")
    with pytest.raises(PathOutsideRootError):
        Roots([ws]).resolve("linkdir/new/deeper.txt", must_exist=False)


def test_symlink_inside_the_root_resolves_to_its_target(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    os.symlink("src/app.py", ws / "alias.py")
    assert Roots([ws]).resolve("alias.py").relpath == "src/app.py"


def test_symlink_loop_is_refused(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    os.symlink("loop_b", ws / "loop_a")
    os.symlink("loop_a", ws / "loop_b")
    with pytest.raises(InvalidPathError, match="loop"):
        Roots([ws]).resolve("loop_a", must_exist=False)


@pytest.mark.parametrize("arg", ["src\\app.py", "..\\outside\\secret.txt", "C:/Windows/system32", "c:\\x"])
def test_windows_style_paths_are_refused_with_a_hint(layout: tuple[Path, Path], arg: str) -> None:
    ws, _ = layout
    with pytest.raises(InvalidPathError, match="forward slashes"):
        Roots([ws]).resolve(arg, must_exist=False)


def test_nul_byte_is_refused(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    with pytest.raises(InvalidPathError, match="NUL"):
        Roots([ws]).resolve("src/app.py\0.txt", must_exist=False)


def test_over_long_component_and_path_are_refused(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    with pytest.raises(InvalidPathError, match="255-byte"):
        Roots([ws]).resolve("a" * 256, must_exist=False)
    with pytest.raises(InvalidPathError, match="4096-byte"):
        Roots([ws]).resolve("/".join(["d" * 200] * 25), must_exist=False)
    # multi-byte characters count in bytes, not characters
    with pytest.raises(InvalidPathError, match="255-byte"):
        Roots([ws]).resolve("é" * 128, must_exist=False)


def test_missing_path_is_refused_only_when_it_must_exist(layout: tuple[Path, Path]) -> None:
    ws, _ = layout
    with pytest.raises(PathNotFoundError, match="list_directory"):
        Roots([ws]).resolve("nope.txt")
    assert Roots([ws]).resolve("new/dir/file.txt", must_exist=False).relpath == "new/dir/file.txt"


def test_a_root_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="not a directory"):
        Roots([tmp_path / "missing"])
    with pytest.raises(WorkspaceError):
        Roots([])


def test_a_symlinked_root_is_resolved(layout: tuple[Path, Path], tmp_path: Path) -> None:
    ws, _ = layout
    os.symlink(ws, tmp_path / "ws-link")
    roots = Roots([tmp_path / "ws-link"])
    assert roots.primary == ws.resolve()
    assert roots.resolve(str(tmp_path / "ws-link" / "src" / "app.py")).relpath == "src/app.py"

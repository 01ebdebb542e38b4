"""The in-process verbatim reader answers as ``rg -i --only-matching`` does for the phrase's pattern
(its words, each space matching a run of spaces and tabs), and hands back to ripgrep what it cannot
read the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import search.engine.retrievers.verbatim as verbatim
from indexer import Settings
from search.engine.retrievers.verbatim import MAX_FILES, find_verbatim, phrase_pattern
from search.workspace.ripgrep import RgCommand, run_rg

FILES: dict[str, str | bytes] = {
    "a.py": "x = 'Checksum Mismatch'  # checksum mismatch, CHECKSUM MISMATCH\nok\nchecksum  mismatch\n",
    "b.txt": "line one\r\nthe checksum mismatch\r\n\r\nchecksum mismatchchecksum mismatch\r\n",
    "c.py": "def f():\n    pass\n",
    "d.js": 'alert("Could not verify PIN.  Network error?");\nmsg = "Could not verify PIN.\tNetwork error?"\n',
    "bin.dat": b"checksum mismatch\x00\x01\x02",
    "latin.txt": "caf\xe9 checksum mismatch".encode("latin-1"),
}


def ripgrep(settings: Settings, phrase: str, paths: list[str]) -> list[tuple[str, int, tuple[str, ...]]]:
    command = RgCommand("matches", (phrase_pattern(phrase),), tuple(paths), case="insensitive")
    return sorted((m.path, m.line, m.submatches) for m in run_rg(settings, command, timeout=10).lines)


def test_reads_the_files_as_ripgrep_does(make_repo: Callable[..., Path], settings_for) -> None:
    root = make_repo(FILES)
    settings = settings_for(root)
    paths = [*FILES, "gone.py"]
    phrases = (
        "checksum mismatch",
        "CHECKSUM MISMATCH",
        "def f():",
        "line one",
        "nowhere at all",
        "PIN. Network",
    )
    for phrase in phrases:
        mine = find_verbatim(str(root), phrase, paths)
        assert mine is not None
        assert sorted((m.path, m.line, m.submatches) for m in mine) == ripgrep(settings, phrase, paths)
    found = find_verbatim(str(root), "checksum mismatch", paths)
    assert found is not None and {m.path for m in found} == {"a.py", "b.txt", "latin.txt"}
    first = next(m for m in found if m.path == "a.py")
    assert first.line == 1 and first.submatches == (
        "Checksum Mismatch",
        "checksum mismatch",
        "CHECKSUM MISMATCH",
    )


def test_a_space_of_the_phrase_matches_any_run_of_spaces_and_tabs_on_a_line(make_repo, settings_for) -> None:
    """A sentence is compared whitespace-normalised: "verify PIN. Network error?" is the text of a line
    that aligns or double-spaces it, as ripgrep finds it with the same pattern; never across lines."""
    root = make_repo(FILES)
    found = find_verbatim(str(root), "could not verify PIN. Network error?", ["d.js"])
    assert found is not None
    assert [(m.line, m.submatches) for m in found] == [
        (1, ("Could not verify PIN.  Network error?",)),
        (2, ("Could not verify PIN.\tNetwork error?",)),
    ]
    double = find_verbatim(str(root), "checksum mismatch", ["a.py"])
    assert double is not None and [m.line for m in double] == [1, 3]
    assert find_verbatim(str(root), "line one the checksum", ["b.txt"]) == []  # not across a line end
    assert sorted((m.path, m.line, m.submatches) for m in found) == ripgrep(
        settings_for(root), "could not verify PIN. Network error?", ["d.js"]
    )


def test_a_named_file_is_read_whatever_its_size_like_ripgrep(make_repo, settings_for, monkeypatch) -> None:
    root = make_repo(
        {"big.py": "pad = 1\n" * 200 + "needle in a haystack\n", "small.py": "needle in a haystack\n"}
    )
    settings = settings_for(root, max_file_bytes=1000)
    found = find_verbatim(str(root), "needle in a haystack", ["big.py", "small.py"])
    assert found is not None
    assert sorted((m.path, m.line, m.submatches) for m in found) == ripgrep(
        settings, "needle in a haystack", ["big.py", "small.py"]
    )
    assert sorted(m.path for m in found) == ["big.py", "small.py"]
    monkeypatch.setattr(verbatim, "MAX_BYTES", 1000)  # more bytes than it reads in the query's thread
    assert find_verbatim(str(root), "needle in a haystack", ["big.py", "small.py"]) is None


def test_what_it_cannot_read_the_same_way_goes_to_ripgrep(tmp_path: Path) -> None:
    many = [f"f{i}.py" for i in range(MAX_FILES + 1)]
    assert find_verbatim(str(tmp_path), "checksum mismatch", many) is None
    assert find_verbatim(str(tmp_path), "café au lait", ["a.py"]) is None

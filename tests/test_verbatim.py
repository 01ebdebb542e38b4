"""The in-process verbatim reader answers as ``rg -i --only-matching`` does for the phrase's pattern
(its words, each space matching a run of spaces and tabs) within a line, finds a phrase wrapped over
lines too, and hands back to ripgrep what it cannot read the same way."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import search.engine.retrievers.verbatim as verbatim
from indexer import Settings
from search.engine.query import collapsed
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
    that aligns or double-spaces it, as ripgrep finds it with the same pattern."""
    root = make_repo(FILES)
    found = find_verbatim(str(root), "could not verify PIN. Network error?", ["d.js"])
    assert found is not None
    assert [(m.line, m.submatches) for m in found] == [
        (1, ("Could not verify PIN.  Network error?",)),
        (2, ("Could not verify PIN.\tNetwork error?",)),
    ]
    double = find_verbatim(str(root), "checksum mismatch", ["a.py"])
    assert double is not None and [m.line for m in double] == [1, 3]
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


WRAPPED = {
    "errors.py": (
        "def render(path, kwargs):\n"
        "    if seen[path] != kwargs:\n"
        "        raise ValueError(\n"
        '            "set_resources called with different "\n'
        '            "resources for the same template"\n'
        "        )\n"
        "    log.warning(f'max_clients limit reached, ' \\\n"
        "                f'request queued')\n"
        "    # If none, the server won't touch the\n"
        "    # logging configuration.\n"
    ),
    "client.js": (
        "/**\n"
        " * Define argument syntax for\n"
        " * the command.\n"
        " */\n"
        "throw new Error('Body must be None for method ' +\n"
        "  'PUT (unless allowed)');\n"
        "msg = 'first part'\n"
        "  + ' second part';\n"
    ),
    "notes.md": "A sentence that wraps\nonto the next line.\n\nA paragraph\n\nends at a blank line.\n",
}


def test_a_phrase_wrapped_over_lines_is_found_on_its_first_line(make_repo) -> None:
    """A space of the phrase matches a line break with what a wrapped message or sentence carries
    across it: the end of one string literal and the start of the next (adjacent, joined by ``+`` or
    after a backslash), a comment's leader, indentation. The occurrence is reported on its first line,
    its words as they read with each joint one line break."""
    root = make_repo(WRAPPED)
    paths = list(WRAPPED)

    def places(phrase: str) -> list[tuple[str, int, tuple[str, ...]]]:
        found = find_verbatim(str(root), phrase, paths)
        assert found is not None
        return [(m.path, m.line, m.submatches) for m in found]

    assert places("called with different resources for the same template") == [
        ("errors.py", 4, ("called with different\nresources for the same template",))
    ]
    assert places("limit reached, request queued") == [("errors.py", 7, ("limit reached,\nrequest queued",))]
    assert places("won't touch the logging configuration") == [
        ("errors.py", 9, ("won't touch the\nlogging configuration",))
    ]
    assert places("argument syntax for the command.") == [
        ("client.js", 2, ("argument syntax for\nthe command.",))
    ]
    assert places("Body must be None for method PUT") == [
        ("client.js", 5, ("Body must be None for method\nPUT",))
    ]
    assert places("first part second part") == [("client.js", 7, ("first part\nsecond part",))]
    assert places("that wraps onto the next line") == [("notes.md", 1, ("that wraps\nonto the next line",))]
    assert places("a paragraph ends at a blank line") == []  # a blank line ends a sentence


def test_a_wrapped_phrase_is_matched_in_linear_time(make_repo) -> None:
    """Runs of spaces before and after line breaks, where the phrase's next word never comes, are read
    once: every run of spaces in the pattern is followed by something that is not a space."""
    run = " " * 200_000
    text = f"word{run}x\nword \"{run}+{run}\\{run}\n{run}+{run}'{run}y\n" + f"word\n{run}\n" * 8
    root = make_repo({"spaces.txt": text})
    assert find_verbatim(str(root), "word other", ["spaces.txt"]) == []


def test_only_ascii_whitespace_separates_a_phrases_words(make_repo, settings_for) -> None:
    """A non-breaking space is a character the phrase holds, as ripgrep reads it: matched as written,
    not as a space; a space of the phrase does not match one either."""
    assert collapsed(" name() = 'h\u00a0ref'\t\n x ") == "name() = 'h\u00a0ref' x"
    assert phrase_pattern("h\u00a0ref  x") == "h\u00a0ref[ \\t]+x"
    root = make_repo({"t.py": "a = 'h\u00a0ref x'\nb = 'h ref x'\n"})
    paths = ["t.py"]
    held = ripgrep(settings_for(root), "'h\u00a0ref x'", paths)
    assert held == [("t.py", 1, ("'h\u00a0ref x'",))]
    assert find_verbatim(str(root), "'h\u00a0ref x'", paths) is None  # not ASCII: ripgrep's to read
    spaced = find_verbatim(str(root), "'h ref x'", paths)
    assert spaced is not None and [(m.line, m.submatches) for m in spaced] == [(2, ("'h ref x'",))]
    assert ripgrep(settings_for(root), "'h ref x'", paths) == [("t.py", 2, ("'h ref x'",))]

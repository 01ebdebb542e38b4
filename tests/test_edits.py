"""The edit tools: exact and whitespace-tolerant replacement, insert, delete, diffs, refusals, and a
fuzz test of random edit sequences against an in-memory model."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.errors import PlaitError
from search.errors import (
    AmbiguousEditError,
    BinaryFileError,
    EditNotFoundError,
    GuardBlockedError,
    LineRangeError,
    QueryError,
    ReadOnlyError,
    StaleEditError,
    UndecodableFileError,
)
from search.workspace.confine import Roots
from search.workspace.edits import (
    EditResult,
    Replacement,
    delete_lines,
    edit_delete,
    edit_insert,
    edit_replace,
    insert_lines,
    replace_text,
    unified_diff,
)
from search.workspace.files import read_file
from search.workspace.guard import parse_rules
from search.workspace.policy import WritePolicy

PY = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text(PY)
    return root


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- edit_replace ------------------------------------------------------------------------------------


def test_unique_exact_replacement_writes_and_returns_a_diff(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    seen: list[Path] = []
    result = edit_replace(
        Roots([ws]),
        "a.py",
        [Replacement("def g(self):", "def h(self):")],
        policy=WritePolicy(on_write=seen.append),
    )
    after = (ws / "a.py").read_bytes()
    assert after == before.replace(b"def g", b"def h")
    assert result.written and not result.fuzzy and result.replacements == 1
    assert (result.sha256_before, result.sha256_after) == (sha(before), sha(after))
    assert result.diff.startswith("--- a/a.py\n+++ b/a.py\n@@")
    assert "-    def g(self):\n+    def h(self):\n" in result.diff
    assert seen == [(ws / "a.py").resolve()]


def test_ambiguous_match_is_refused_with_the_count_and_a_hint(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    with pytest.raises(AmbiguousEditError, match=r"2 matches.*replace_all"):
        edit_replace(Roots([ws]), "a.py", [Replacement("return 1", "return 2")])
    assert (ws / "a.py").read_bytes() == before


def test_replace_all_changes_every_occurrence(ws: Path) -> None:
    result = edit_replace(Roots([ws]), "a.py", [Replacement("return 1", "return 2", replace_all=True)])
    assert result.replacements == 2
    assert (ws / "a.py").read_text().count("return 2") == 2


def test_several_edits_apply_in_order_or_not_at_all(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    edits = [Replacement("def f", "def first"), Replacement("def nope", "x")]
    with pytest.raises(EditNotFoundError, match="edit 2"):
        edit_replace(Roots([ws]), "a.py", edits)
    assert (ws / "a.py").read_bytes() == before
    chained = [Replacement("def f", "def first"), Replacement("def first(self)", "def first(self, x)")]
    edit_replace(Roots([ws]), "a.py", chained)
    assert "def first(self, x):" in (ws / "a.py").read_text()


def test_whitespace_tolerant_match_keeps_the_file_indentation(ws: Path) -> None:
    old = "def f(self):\n    return 1\n"  # the agent lost the class indentation
    new = "def f(self):\n    x = 2\n    return x\n"
    result = edit_replace(Roots([ws]), "a.py", [Replacement(old, new)])
    assert result.fuzzy and result.written
    assert any("ignoring whitespace" in n for n in result.notes)
    assert (ws / "a.py").read_text() == PY.replace(
        "    def f(self):\n        return 1\n", "    def f(self):\n        x = 2\n        return x\n"
    )


def test_whitespace_tolerant_match_ignores_trailing_spaces_and_inner_runs() -> None:
    text = "a = 1   \nif  x:\n\tcall( y )\n"
    change = replace_text(text, [Replacement("a = 1\nif x:\n\tcall( y )", "a = 2\nif x:\n\tcall(y)")])
    assert change.fuzzy
    assert change.text == "a = 2\nif x:\n\tcall(y)\n"


def test_ambiguous_whitespace_tolerant_match_is_refused(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    with pytest.raises(AmbiguousEditError, match="2 whitespace-tolerant matches"):
        edit_replace(Roots([ws]), "a.py", [Replacement("  return   1", "return 3")])
    assert (ws / "a.py").read_bytes() == before


def test_no_match_at_all_says_to_copy_the_text_exactly_and_shows_the_closest_line(ws: Path) -> None:
    with pytest.raises(EditNotFoundError, match="copy the text exactly"):
        edit_replace(Roots([ws]), "a.py", [Replacement("qqq", "def yyy")])
    with pytest.raises(EditNotFoundError, match=r"closest is line 5: 'def g\(self\):'"):
        edit_replace(Roots([ws]), "a.py", [Replacement("def gg(self):", "def h(self):")])


def test_empty_and_identical_strings_are_refused() -> None:
    with pytest.raises(QueryError, match="empty"):
        replace_text("x\n", [Replacement("", "y")])
    with pytest.raises(QueryError, match="identical"):
        replace_text("x\n", [Replacement("x", "x")])
    with pytest.raises(QueryError, match="no edits"):
        replace_text("x\n", [])


# --- line endings and the final newline ---------------------------------------------------------------


def test_crlf_file_stays_crlf_whichever_endings_the_arguments_use() -> None:
    text = "one\r\ntwo\r\nthree\r\n"
    assert replace_text(text, [Replacement("two\nthree", "2\n3")]).text == "one\r\n2\r\n3\r\n"
    assert replace_text(text, [Replacement("two\r\n", "2\r\nb\r\n")]).text == "one\r\n2\r\nb\r\nthree\r\n"
    assert insert_lines(text, 2, "new\n").text == "one\r\nnew\r\ntwo\r\nthree\r\n"
    assert delete_lines(text, 1, 2).text == "three\r\n"


def test_lf_file_gets_lf_from_crlf_arguments() -> None:
    assert replace_text("a\nb\n", [Replacement("a\r\nb", "x\r\ny")]).text == "x\ny\n"


def test_mixed_endings_are_left_as_they_are() -> None:
    text = "a\r\nb\nc\r\n"
    assert replace_text(text, [Replacement("b", "B")]).text == "a\r\nB\nc\r\n"
    assert delete_lines(text, 2, 2).text == "a\r\nc\r\n"


def test_missing_final_newline_is_preserved() -> None:
    text = "a\nb\nc"
    assert replace_text(text, [Replacement("c", "C")]).text == "a\nb\nC"
    assert insert_lines(text, 4, "d\n").text == "a\nb\nc\nd"
    assert insert_lines(text, 1, "z").text == "z\na\nb\nc"
    assert delete_lines(text, 3, 3).text == "a\nb"
    assert delete_lines(text, 1, 3).text == ""
    assert replace_text("x = 1", [Replacement("  x =  1", "y = 2")]).text == "y = 2"


def test_crlf_file_without_final_newline_on_disk(ws: Path) -> None:
    (ws / "dos.txt").write_bytes(b"one\r\ntwo")
    edit_insert(Roots([ws]), "dos.txt", 3, "three")
    assert (ws / "dos.txt").read_bytes() == b"one\r\ntwo\r\nthree"
    edit_delete(Roots([ws]), "dos.txt", 1, 1)
    assert (ws / "dos.txt").read_bytes() == b"two\r\nthree"
    edit_replace(Roots([ws]), "dos.txt", [Replacement("two\nthree", "2\n3")])
    assert (ws / "dos.txt").read_bytes() == b"2\r\n3"


def test_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff("a\nb", "a\nc", "f.txt")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")


# --- insert and delete -------------------------------------------------------------------------------


def test_insert_at_the_top_middle_and_end(ws: Path) -> None:
    (ws / "f.txt").write_text("1\n2\n3\n")
    edit_insert(Roots([ws]), "f.txt", 1, "top")
    edit_insert(Roots([ws]), "f.txt", 3, "mid\nmid2\n")
    result = edit_insert(Roots([ws]), "f.txt", 7, "end\n")
    assert (ws / "f.txt").read_text() == "top\n1\nmid\nmid2\n2\n3\nend\n"
    assert result.replacements == 1 and "+end\n" in result.diff


def test_insert_into_an_empty_file(ws: Path) -> None:
    (ws / "e.txt").write_bytes(b"")
    edit_insert(Roots([ws]), "e.txt", 1, "x")
    assert (ws / "e.txt").read_bytes() == b"x\n"


def test_line_numbers_outside_the_file_are_refused(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    with pytest.raises(LineRangeError, match="has 6 line"):
        edit_insert(Roots([ws]), "a.py", 8, "x")
    with pytest.raises(LineRangeError):
        edit_insert(Roots([ws]), "a.py", 0, "x")
    with pytest.raises(LineRangeError):
        edit_delete(Roots([ws]), "a.py", 3, 7)
    with pytest.raises(LineRangeError):
        edit_delete(Roots([ws]), "a.py", 4, 3)
    with pytest.raises(QueryError):
        edit_insert(Roots([ws]), "a.py", 1, "")
    assert (ws / "a.py").read_bytes() == before


def test_delete_a_range(ws: Path) -> None:
    result = edit_delete(Roots([ws]), "a.py", 4, 6)
    assert (ws / "a.py").read_text() == "class A:\n    def f(self):\n        return 1\n"
    assert result.replacements == 3


# --- dry run, hashes, modes, guards -------------------------------------------------------------------


def test_dry_run_returns_the_diff_and_writes_nothing(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    seen: list[Path] = []
    result = edit_delete(Roots([ws]), "a.py", 1, 1, dry_run=True, policy=WritePolicy(on_write=seen.append))
    assert "-class A:\n" in result.diff
    assert not result.written and seen == []
    assert result.sha256_after == sha(before.split(b"\n", 1)[1])
    assert (ws / "a.py").read_bytes() == before


def test_stale_expected_hash_is_refused_and_the_first_edit_is_kept(ws: Path) -> None:
    token = read_file(Roots([ws]), "a.py").sha256
    edit_replace(Roots([ws]), "a.py", [Replacement("class A", "class B")], expected_sha256=token)
    with pytest.raises(StaleEditError, match="re-read the file"):
        edit_replace(Roots([ws]), "a.py", [Replacement("def f", "def ff")], expected_sha256=token)
    assert (ws / "a.py").read_text() == PY.replace("class A", "class B")
    fresh = read_file(Roots([ws]), "a.py").sha256
    edit_replace(Roots([ws]), "a.py", [Replacement("def f", "def ff")], expected_sha256=fresh)
    assert "def ff" in (ws / "a.py").read_text()


def test_read_only_mode_refuses_every_edit_tool(ws: Path) -> None:
    before = (ws / "a.py").read_bytes()
    with pytest.raises(ReadOnlyError, match="edit_replace"):
        edit_replace(Roots([ws]), "a.py", [Replacement("A", "B")], policy=WritePolicy(read_only=True))
    with pytest.raises(ReadOnlyError, match="edit_insert"):
        edit_insert(Roots([ws]), "a.py", 1, "x", policy=WritePolicy(read_only=True))
    with pytest.raises(ReadOnlyError, match="edit_delete"):
        edit_delete(Roots([ws]), "a.py", 1, 1, policy=WritePolicy(read_only=True), dry_run=True)
    assert (ws / "a.py").read_bytes() == before


def test_generated_paths_cannot_be_edited(ws: Path) -> None:
    (ws / "gen").mkdir()
    (ws / "gen" / "api.py").write_text("X = 1\n")
    rules = parse_rules([{"id": "gen", "type": "generated", "globs": ["gen/"], "message": "run make gen"}])
    with pytest.raises(GuardBlockedError, match=r"'gen'.*run make gen"):
        edit_replace(
            Roots([ws]), "gen/api.py", [Replacement("1", "2")], policy=WritePolicy(guard_rules=rules)
        )
    with pytest.raises(GuardBlockedError):
        edit_insert(Roots([ws]), "gen/api.py", 1, "x", policy=WritePolicy(guard_rules=rules))
    with pytest.raises(GuardBlockedError):
        edit_delete(Roots([ws]), "gen/api.py", 1, 1, policy=WritePolicy(guard_rules=rules))
    assert (ws / "gen" / "api.py").read_text() == "X = 1\n"


def test_binary_and_non_utf8_files_are_not_edited(ws: Path) -> None:
    (ws / "b.bin").write_bytes(b"ab\0cd\n")
    (ws / "l.txt").write_bytes("café\n".encode("latin-1"))
    with pytest.raises(BinaryFileError):
        edit_insert(Roots([ws]), "b.bin", 1, "x")
    with pytest.raises(UndecodableFileError, match="write_file"):
        edit_replace(Roots([ws]), "l.txt", [Replacement("caf", "CAF")])
    assert (ws / "l.txt").read_bytes() == "café\n".encode("latin-1")


# --- fuzz: random edit sequences against an in-memory model -------------------------------------------


@dataclass
class Model:
    """The file as a list of lines, one line ending, and whether the last line is terminated."""

    lines: list[str]
    eol: str
    final_newline: bool = True
    log: list[str] = field(default_factory=list)

    def render(self) -> bytes:
        if not self.lines:
            return b""
        tail = self.eol if self.final_newline else ""
        return (self.eol.join(self.lines) + tail).encode()

    def lf_text(self) -> str:
        return self.render().decode().replace("\r\n", "\n")

    def set_lf_text(self, text: str) -> None:
        self.final_newline = text.endswith("\n") or not text
        self.lines = text.split("\n")
        if self.final_newline:
            self.lines.pop()
        if "\n" not in text:  # nothing tells the tools which ending the file uses
            self.eol = "\n"

    def normalise(self) -> None:
        """Canonical form: an unterminated empty last line is no line at all."""
        self.set_lf_text(self.lf_text())


WORDS = st.sampled_from(["a", "b", "ab", " ", "  x", "\ty", "z z", ""])
LINE = st.lists(WORDS, max_size=3).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINE, max_size=8),
    eol=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
    data=st.data(),
)
def test_random_edit_sequences_match_the_model_and_refusals_change_nothing(
    tmp_path: Path, lines: list[str], eol: str, final_newline: bool, data: st.DataObject
) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    model = Model(list(lines), eol, final_newline)
    model.normalise()
    target = root / "f.txt"
    target.write_bytes(model.render())
    roots = Roots([root])
    for _ in range(data.draw(st.integers(1, 6), label="steps")):
        before = target.read_bytes()
        n = len(model.lines)
        op = data.draw(st.sampled_from(["replace", "insert", "delete", "bad-line", "missing", "stale"]))
        expect_refusal: type[PlaitError] | None = None
        token = sha(before)
        run: Callable[[], EditResult]
        if op == "replace":
            text = model.lf_text()
            if not text:
                continue
            i = data.draw(st.integers(0, len(text) - 1))
            j = data.draw(st.integers(i + 1, len(text)))
            old = text[i:j]
            new = data.draw(st.lists(st.sampled_from(["q", "\n", " ", "ab"]), max_size=4).map("".join))
            replace_all = data.draw(st.booleans())
            count = text.count(old)
            if old == new:
                expect_refusal = QueryError
            elif count > 1 and not replace_all:
                expect_refusal = AmbiguousEditError
            call_eol = data.draw(st.sampled_from(["\n", "\r\n"]))
            args = [Replacement(old.replace("\n", call_eol), new.replace("\n", call_eol), replace_all)]

            run = partial(edit_replace, roots, "f.txt", args, expected_sha256=token)

            if expect_refusal is None:
                model.set_lf_text(text.replace(old, new) if replace_all else text.replace(old, new, 1))
        elif op == "insert":
            at = data.draw(st.integers(1, n + 1))
            new_lines = data.draw(st.lists(LINE, min_size=1, max_size=3))

            run = partial(edit_insert, roots, "f.txt", at, "\n".join(new_lines) + "\n", expected_sha256=token)

            model.lines[at - 1 : at - 1] = new_lines
        elif op == "delete":
            if n == 0:
                continue
            start = data.draw(st.integers(1, n))
            end = data.draw(st.integers(start, n))

            run = partial(edit_delete, roots, "f.txt", start, end, expected_sha256=token)

            del model.lines[start - 1 : end]
        elif op == "bad-line":
            expect_refusal = LineRangeError

            run = partial(edit_delete, roots, "f.txt", 1, n + 1)
        elif op == "missing":
            expect_refusal = EditNotFoundError

            run = partial(edit_replace, roots, "f.txt", [Replacement("a\n§never§", "b")])
        else:
            expect_refusal = StaleEditError

            run = partial(edit_insert, roots, "f.txt", 1, "x", expected_sha256=sha(b"something else"))

        if expect_refusal is not None:
            with pytest.raises(expect_refusal):
                run()
            assert target.read_bytes() == before, f"a refused {op} changed the file"
        else:
            run()
            model.normalise()
            assert target.read_bytes() == model.render(), f"{op} diverged from the model"

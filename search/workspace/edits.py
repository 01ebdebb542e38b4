"""The edit tools: replace, insert and delete, each returning a unified diff.

Two layers. The pure functions (:func:`replace_text`, :func:`insert_lines`, :func:`delete_lines`,
:func:`unified_diff`) compute new text from old and are what the property tests fuzz. The applying
functions (:func:`edit_replace`, :func:`edit_insert`, :func:`edit_delete`) confine the path, refuse in
read-only mode and on guarded paths, then — holding the directory lock of :mod:`search.workspace.files` — read
the file, check ``expected_sha256``, compute, and write atomically unless ``dry_run``. Any refusal
happens before the write, so a refused edit leaves the file byte for byte as it was, and several
replacements to one file are all applied or none.

Text rules. Line endings are kept: in a file whose every newline is CRLF, edits work on LF text and
CRLF is restored (so ``old_string``/``new_string`` may use either); in an LF file, CRLF in the
arguments becomes LF; a mixed file is matched exactly as given. Inserted lines take the file's
dominant ending. A missing final newline stays missing. ``old_string`` must match exactly once unless
``replace_all``; when it matches nowhere, a whitespace-tolerant match is tried — whole lines compared
with runs of whitespace collapsed and ends trimmed — and used only if it is unique; the new text is
then re-indented from ``old_string``'s indentation to the file's, and the result says ``fuzzy``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from indexer.beneath import dir_beneath, open_regular, read_fd, write_atomic
from search.errors import (
    AmbiguousEditError,
    BinaryFileError,
    EditNotFoundError,
    FileTooLargeError,
    LineRangeError,
    QueryError,
    UndecodableFileError,
)
from search.workspace.confine import Roots
from search.workspace.files import (
    check_expected,
    check_writable,
    fd_lock,
    fs_error,
    sha256_bytes,
    split_lines,
)
from search.workspace.policy import DEFAULT_POLICY, WritePolicy

MAX_DIFF_CHARS = 100_000
NO_NEWLINE = "\\ No newline at end of file\n"

Line = tuple[str, str]  # (content, ending: "\n", "\r\n" or "" for a last line without one)


@dataclass(frozen=True, slots=True)
class Replacement:
    old_string: str
    new_string: str
    replace_all: bool = False


@dataclass(frozen=True, slots=True)
class TextChange:
    """The outcome of the pure edit functions."""

    text: str
    replacements: int = 0
    fuzzy: bool = False
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EditResult:
    path: str  # relative to its root
    root: str
    diff: str  # unified diff (a/PATH, b/PATH); empty when nothing changed
    sha256_before: str
    sha256_after: str  # what the file holds (or would hold, for dry_run) afterwards
    fuzzy: bool  # a whitespace-tolerant match was used
    written: bool  # False for dry_run or when the edit changed nothing
    replacements: int  # occurrences replaced (edit_replace), lines inserted/deleted otherwise
    notes: list[str]


# --- pure text functions -----------------------------------------------------------------------------


def _lines(text: str) -> list[Line]:
    out: list[Line] = []
    for piece in text.split("\n"):
        out.append((piece, "\n"))
    last, _ = out.pop()
    if last:
        out.append((last, ""))
    return [(c[:-1], "\r\n") if e == "\n" and c.endswith("\r") else (c, e) for c, e in out]


def _join(lines: Sequence[Line]) -> str:
    return "".join(c + e for c, e in lines)


def dominant_eol(text: str) -> str:
    """``"\\r\\n"`` when most of ``text``'s line endings are CRLF, else ``"\\n"``."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def _crlf_only(text: str) -> bool:
    crlf = text.count("\r\n")
    return crlf > 0 and crlf == text.count("\n")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _norm(line: str) -> str:
    return " ".join(line.split())


def _closest_line(lines: Sequence[Line], wanted: str) -> str | None:
    """``N: 'text'`` of the file line most like ``wanted`` (a normalised line), if one is close."""
    if len(lines) > 50_000:
        return None  # only a hint; not worth the time on huge files
    normalised = [_norm(content) for content, _ in lines]
    best = difflib.get_close_matches(wanted, normalised, n=1, cutoff=0.6)
    if not best:
        return None
    number = normalised.index(best[0]) + 1
    return f"line {number}: {lines[number - 1][0].strip()[:80]!r}"


def _fuzzy_replace(text: str, old: str, new: str, path: str, index: int | None) -> tuple[str, str]:
    """Replace the unique whitespace-tolerant line match of ``old``; returns (text, note)."""
    lines = _lines(text)
    want = [_norm(line) for line in split_lines(old)]
    if not any(want):
        raise EditNotFoundError(path, old, index)
    k = len(want)
    starts = [
        i for i in range(len(lines) - k + 1) if all(_norm(lines[i + j][0]) == want[j] for j in range(k))
    ]
    anchor = next(j for j, w in enumerate(want) if w)
    if not starts:
        raise EditNotFoundError(path, old, index, _closest_line(lines, want[anchor]))
    if len(starts) > 1:
        raise AmbiguousEditError(path, len(starts), index, fuzzy=True)
    start = starts[0]
    old_lines = split_lines(old)
    old_base, file_base = _indent(old_lines[anchor]), _indent(lines[start + anchor][0])
    block = lines[start : start + k]
    inner_eol = block[0][1] or dominant_eol(text)
    new_lines: list[Line] = []
    for content in split_lines(new):
        if not content.strip():
            content = ""
        elif content.startswith(old_base):
            content = file_base + content[len(old_base) :]
        new_lines.append((content, inner_eol))
    if new_lines:
        new_lines[-1] = (new_lines[-1][0], block[-1][1])
    elif block[-1][1] == "" and start > 0:  # deleted the unterminated last line: keep it unterminated
        lines[start - 1] = (lines[start - 1][0], "")
    lines[start : start + k] = new_lines
    note = f"matched lines {start + 1}-{start + k} ignoring whitespace; the new text was re-indented"
    return _join(lines), note


def replace_text(text: str, edits: Sequence[Replacement], *, path: str = "<text>") -> TextChange:
    """Apply ``edits`` in order to ``text`` (each sees the result of the previous ones).

    Raises :class:`QueryError` (no edits, empty ``old_string``, nothing to change),
    :class:`EditNotFoundError`, :class:`AmbiguousEditError`; the error names the failing edit (1-based)
    when there are several.
    """
    if not edits:
        raise QueryError("no edits were given; pass at least one old_string/new_string pair.")
    crlf = _crlf_only(text)
    normalise = crlf or "\r\n" not in text
    model = text.replace("\r\n", "\n") if crlf else text
    count = 0
    fuzzy = False
    notes: list[str] = []
    for number, edit in enumerate(edits, start=1):
        index = number if len(edits) > 1 else None
        old, new = edit.old_string, edit.new_string
        if normalise:
            old, new = old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
        label = f"edit {index}: " if index else ""
        if not old:
            raise QueryError(f"{label}old_string is empty; use edit_insert to add text at a line.")
        if old == new:
            raise QueryError(f"{label}old_string and new_string are identical; there is nothing to change.")
        found = model.count(old)
        if found == 0:
            model, note = _fuzzy_replace(model, old, new, path, index)
            fuzzy = True
            notes.append(label + note)
            count += 1
        elif found > 1 and not edit.replace_all:
            raise AmbiguousEditError(path, found, index)
        else:
            model = model.replace(old, new) if edit.replace_all else model.replace(old, new, 1)
            count += found
    return TextChange(model.replace("\n", "\r\n") if crlf else model, count, fuzzy, tuple(notes))


def insert_lines(text: str, line: int, new: str, *, path: str = "<text>") -> TextChange:
    """Insert ``new`` as whole lines so that its first line becomes line ``line`` (1-based);
    ``line = total + 1`` appends. Its line endings become the file's. Raises :class:`LineRangeError`,
    :class:`QueryError` for empty text."""
    if not new:
        raise QueryError('the text to insert is empty; pass at least "\\n" for a blank line.')
    lines = _lines(text)
    if not 1 <= line <= len(lines) + 1:
        raise LineRangeError(path, f"cannot insert at line {line} (use 1 to {len(lines) + 1})", len(lines))
    eol = dominant_eol(text)
    added = [(content, eol) for content in split_lines(new)]
    if line == len(lines) + 1 and lines and lines[-1][1] == "":
        lines[-1] = (lines[-1][0], eol)
        added[-1] = (added[-1][0], "")
    lines[line - 1 : line - 1] = added
    return TextChange(_join(lines), len(added))


def delete_lines(text: str, start_line: int, end_line: int, *, path: str = "<text>") -> TextChange:
    """Delete lines ``start_line``..``end_line`` (1-based, inclusive). Raises :class:`LineRangeError`."""
    lines = _lines(text)
    if not 1 <= start_line <= end_line <= len(lines):
        raise LineRangeError(
            path, f"cannot delete lines {start_line}-{end_line} (need 1 <= start <= end <= total)", len(lines)
        )
    cut_unterminated_tail = end_line == len(lines) and lines[-1][1] == ""
    del lines[start_line - 1 : end_line]
    if cut_unterminated_tail and lines:  # the new last line stays unterminated, as the file was
        lines[-1] = (lines[-1][0], "")
    return TextChange(_join(lines), end_line - start_line + 1)


def unified_diff(old: str, new: str, path: str, *, context: int = 3) -> str:
    """A git-style unified diff of ``old`` → ``new`` (``\\ No newline at end of file`` markers included),
    cut at 100,000 characters."""
    a = [c + e for c, e in _lines(old)]
    b = [c + e for c, e in _lines(new)]
    out: list[str] = []
    size = 0
    for line in difflib.unified_diff(a, b, f"a/{path}", f"b/{path}", n=context):
        if not line.endswith("\n"):
            line += "\n" + NO_NEWLINE
        out.append(line)
        size += len(line)
        if size > MAX_DIFF_CHARS:
            out.append(f"... diff cut at {MAX_DIFF_CHARS:,} characters\n")
            break
    return "".join(out)


# --- applying to files -------------------------------------------------------------------------------

Compute = Callable[[str, str], TextChange]


def _apply(
    roots: Roots,
    path: str,
    tool: str,
    compute: Compute,
    *,
    dry_run: bool,
    expected_sha256: str | None,
    policy: WritePolicy,
) -> EditResult:
    confined = roots.resolve(path, must_exist=True)
    check_writable(roots, confined, tool=tool, read_only=policy.read_only, guard_rules=policy.guard_rules)
    max_bytes = policy.max_bytes
    rel = confined.relpath
    parent, _, name = rel.rpartition("/")
    try:
        with dir_beneath(confined.root, parent) as dir_fd, fd_lock(dir_fd, rel):
            data = _read(dir_fd, name, rel, max_bytes)
            if b"\0" in data:
                raise BinaryFileError(rel)
            before = sha256_bytes(data)
            check_expected(rel, expected_sha256, before)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UndecodableFileError(rel, f"invalid byte at offset {exc.start}") from exc
            change = compute(text, rel)
            try:
                new_data = change.text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise QueryError(
                    f"the new text for {rel} cannot be encoded as UTF-8 ({exc.reason})."
                ) from exc
            if len(new_data) > max_bytes:
                raise FileTooLargeError(rel, len(new_data), max_bytes, "write")
            written = not dry_run and new_data != data
            if written:
                write_atomic(dir_fd, name, new_data)
    except OSError as exc:
        raise fs_error(rel, exc, "edited") from exc
    if written and policy.on_write is not None:
        policy.on_write(confined.abspath)
    notes = list(change.notes)
    if dry_run:
        notes.append("dry run: nothing was written")
    elif new_data == data:
        notes.append("the edit leaves the file unchanged; nothing was written")
    return EditResult(
        path=rel,
        root=str(confined.root),
        diff=unified_diff(text, change.text, rel),
        sha256_before=before,
        sha256_after=sha256_bytes(new_data),
        fuzzy=change.fuzzy,
        written=written,
        replacements=change.replacements,
        notes=notes,
    )


def _read(dir_fd: int, name: str, rel: str, max_bytes: int) -> bytes:
    """The regular file ``name`` of ``dir_fd``: not followed if a symlink, refused if special."""
    fd, st = open_regular(dir_fd, name)
    try:
        if st.st_size > max_bytes:
            raise FileTooLargeError(rel, st.st_size, max_bytes, "read")
        data = read_fd(fd, max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise FileTooLargeError(rel, len(data), max_bytes, "read")
    return data


def edit_replace(
    roots: Roots,
    path: str,
    edits: Sequence[Replacement],
    *,
    dry_run: bool = False,
    expected_sha256: str | None = None,
    policy: WritePolicy = DEFAULT_POLICY,
) -> EditResult:
    """Apply ``edits`` to one file, all or nothing (see the module docstring).

    ``policy`` says whether and what may be written (:class:`WritePolicy`). Raises
    :class:`ReadOnlyError`, :class:`GuardBlockedError`, :class:`StaleEditError`,
    :class:`EditNotFoundError`, :class:`AmbiguousEditError`, :class:`QueryError`, the read errors of
    :func:`search.workspace.files.read_file` and the confinement errors; nothing is written when any is raised.
    """
    return _apply(
        roots,
        path,
        "edit_replace",
        lambda text, rel: replace_text(text, edits, path=rel),
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=policy,
    )


def edit_insert(
    roots: Roots,
    path: str,
    line: int,
    text: str,
    *,
    dry_run: bool = False,
    expected_sha256: str | None = None,
    policy: WritePolicy = DEFAULT_POLICY,
) -> EditResult:
    """Insert ``text`` before line ``line`` (``total + 1`` appends); raises as :func:`edit_replace`,
    plus :class:`LineRangeError`."""
    return _apply(
        roots,
        path,
        "edit_insert",
        lambda old, rel: insert_lines(old, line, text, path=rel),
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=policy,
    )


def edit_delete(
    roots: Roots,
    path: str,
    start_line: int,
    end_line: int,
    *,
    dry_run: bool = False,
    expected_sha256: str | None = None,
    policy: WritePolicy = DEFAULT_POLICY,
) -> EditResult:
    """Delete lines ``start_line``..``end_line`` (inclusive); raises as :func:`edit_replace`, plus
    :class:`LineRangeError`."""
    return _apply(
        roots,
        path,
        "edit_delete",
        lambda old, rel: delete_lines(old, start_line, end_line, path=rel),
        dry_run=dry_run,
        expected_sha256=expected_sha256,
        policy=policy,
    )

"""The one ripgrep gateway: a typed command, the argv built from it, its run, its output read back.

Every caller (the text retriever and its listing, ``grep``, ``find_references``, ``glob``, the guard)
describes what it wants as an :class:`RgCommand`; :func:`argv` is the only place that writes ripgrep
flags, :func:`run` the only place that starts ripgrep (through the Landlock sandbox of
:mod:`indexer.sandbox`, with a timeout and an output cap) and translates its failures into plait's
errors, and :func:`parse_json`, :func:`parse_matches` and :func:`parse_files` the only readers of its
three output formats. The output format is the command's own ``output`` field, never guessed from argv.

What is in the workspace is decided as the indexer's walker decides it (:mod:`indexer.workspace`):
the same ignore files (:data:`indexer.workspace.IGNORE_FILES`, none read above the root, no global
git excludes), the same always-skipped directories, the index directory and plait's temp files,
hidden files included, symlinks never followed, and the configured include/exclude globs. A positive
``--glob`` is an override in ripgrep that would bring back ignored files; with one, the matched paths
are checked against the walker's rules after the run (:func:`search.workspace.ignores.not_ignored`).
``include_ignored`` lifts the ignore files and the configured globs, never the skipped directories,
the index or the temp files.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Literal, NamedTuple

from indexer import (
    ALWAYS_SKIP_DIRS,
    BINARY_SNIFF_BYTES,
    EXTENSIONS,
    FILENAMES,
    SHARED_SUFFIXES,
    TEMP_FILE_GLOB,
    ProcResult,
    Settings,
    detect_language,
    read_beneath,
    rg_binary,
    run_beneath,
)
from models import PlaitError
from search.errors import QueryError
from search.workspace.ignores import not_ignored

Output = Literal["json", "matches", "files"]
Case = Literal["smart", "sensitive", "insensitive"]

MAX_OUTPUT = 24 * 1024 * 1024
MAX_COLUMNS = 2000
MAX_COUNT_PER_FILE = 200  # matching lines read per file by a ranked search (a common word matches thousands)


class RipgrepTimeoutError(PlaitError):
    """ripgrep ran past its deadline (the engine reports the text retriever as degraded)."""

    def __init__(self, timeout: float) -> None:
        super().__init__(
            f"ripgrep took longer than {timeout:.0f}s; narrow it with a path, glob, language or a "
            "more specific pattern."
        )


class RegexError(QueryError):
    """ripgrep refused a pattern (``detail`` is its own explanation)."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"invalid regex: {detail}; fix the pattern (Rust regex syntax: no look-around or "
            "backreferences), or search it as a literal string."
        )
        self.detail = detail


@dataclass(frozen=True, slots=True)
class RgCommand:
    """One ripgrep run over a workspace, typed; :func:`argv` turns it into flags.

    ``output``: ``json`` (each matching line with its text, and context lines), ``matches`` (path, line
    number and matched text only, ~10x cheaper to decode when a common word matches tens of thousands of
    lines) or ``files`` (the files a search would read, no pattern). ``targets`` are root-relative files
    or directories; ``globs`` gitignore-style, ``!glob`` excludes; ``language`` a plait language name.
    """

    output: Output
    patterns: tuple[str, ...] = ()
    targets: tuple[str, ...] = (".",)
    globs: tuple[str, ...] = ()
    language: str | None = None
    fixed: bool = False
    case: Case = "smart"
    word: bool = False
    max_count: int | None = None  # matching lines read per file
    context: int = 0  # lines around each match (json output)
    include_ignored: bool = False
    size_limit: bool = True  # leave out files over Settings.max_file_bytes (a search reads none)
    max_columns: int | None = MAX_COLUMNS

    def __post_init__(self) -> None:
        if (self.output == "files") == bool(self.patterns):
            raise ValueError("a files listing takes no pattern, and a search at least one")


class RgLine(NamedTuple):  # a tuple: tens of thousands are made per query, and tuples are cheap
    path: str
    line: int
    text: str  # "" in ``matches`` output
    submatches: tuple[str, ...]
    match: bool = True  # False: a context line


@dataclass(frozen=True, slots=True)
class RgResult:
    lines: list[RgLine]  # json and matches output; in ripgrep's order
    files: list[str]  # files output
    binary: frozenset[str]  # json output: files ripgrep stopped reading at a NUL byte
    truncated: bool  # the output cap was hit: lines or files are incomplete
    errors: tuple[str, ...]  # what ripgrep said about the files it could not read


def language_globs(language: str) -> list[str]:
    """The file types of ``language`` for ripgrep: its suffixes, a suffix it shares with another language
    (``.h``: C and C++; :func:`run_rg` then keeps the files whose first bytes show ``language``) and its
    file names."""
    exts = [f"*{ext}" for ext, lang in EXTENSIONS.items() if lang == language]
    exts += [
        f"*{ext}" for ext, langs in SHARED_SUFFIXES.items() if language in langs and f"*{ext}" not in exts
    ]
    names = [name for name, lang in FILENAMES.items() if lang == language]
    return exts + names


def language_of(root: Path | str, path: str) -> str | None:
    """The language of the workspace file ``path`` as the index tells it: by its name; where its suffix
    is shared by two languages (``.h``), or where neither its name nor its suffix is known (a script's
    ``#!`` line), by its first bytes, read beneath the root (no symlink, no special file). A file that
    cannot be read is told by its name alone."""
    head = b""
    name = PurePosixPath(path)
    suffix = name.suffix.lower()
    if suffix in SHARED_SUFFIXES or (name.name not in FILENAMES and suffix not in EXTENSIONS):
        try:
            head = read_beneath(root, path, BINARY_SNIFF_BYTES)
        except OSError:
            pass
    return detect_language(path, head)


def language_check(settings: Settings, language: str | None) -> Callable[[str], bool] | None:
    """For a language that shares a suffix with another (C and C++ in ``.h``), whether a path that
    ripgrep found by that suffix is of ``language`` (:func:`language_of`); ``None`` where ripgrep's file
    types alone decide."""
    shared = tuple(ext for ext, langs in SHARED_SUFFIXES.items() if language in langs)
    if language is None or not shared:
        return None
    seen: dict[str, bool] = {}

    def keep(path: str) -> bool:
        if not path.lower().endswith(shared):
            return True
        known = seen.get(path)
        if known is None:
            known = seen[path] = language_of(settings.root, path) == language
        return known

    return keep


def skip_globs(settings: Settings) -> list[str]:
    """Exclusions nothing lifts: the always-skipped directories, the index inside the root, temp files."""
    out = [f"!{d}/" for d in sorted(ALWAYS_SKIP_DIRS)]
    if settings.index_is_local:
        index_dir = Path(settings.index_dir).resolve()
        if index_dir.is_relative_to(settings.root) and index_dir != settings.root:
            out.append(f"!/{index_dir.relative_to(settings.root).as_posix()}/")
    return [*out, f"!{TEMP_FILE_GLOB}"]


def argv(settings: Settings, cmd: RgCommand) -> list[str]:
    """The full ``rg`` argv for ``cmd`` in the workspace of ``settings`` (see the module docstring)."""
    out = [rg_binary(), "--no-config", "--hidden", "--no-require-git", "--no-ignore-parent"]
    out.append("--no-ignore-global")  # the walker reads no global git excludes either
    if cmd.size_limit:
        out += ["--max-filesize", str(settings.max_file_bytes)]
    if cmd.include_ignored:
        out.append("--no-ignore")
    globs = [] if cmd.include_ignored else list(settings.include)
    globs += cmd.globs
    if cmd.language:  # a file type, not a glob: types cannot bring back ignored files
        for g in language_globs(cmd.language):
            out += ["--type-add", f"plaitlang:{g}"]
        out += ["--type", "plaitlang"]
    # The later of two matching globs wins in ripgrep: the exclusions come last, so that no user glob
    # (``*``, ``**``) brings back .git or the index.
    if not cmd.include_ignored:
        globs += [f"!{pattern}" for pattern in settings.exclude]
    globs += skip_globs(settings)
    for g in globs:
        out += ["--glob", g]
    if cmd.output == "files":
        return [*out, "--files", "--null", "--", *cmd.targets]
    if cmd.output == "json":
        out.append("--json")
    else:
        out += ["--only-matching", "--null", "--line-number", "--with-filename", "--no-heading"]
        out.append("--color=never")
    if cmd.max_columns is not None:
        out += ["--max-columns", str(cmd.max_columns)]
    if cmd.max_count is not None:
        out += ["--max-count", str(cmd.max_count)]
    if cmd.fixed:
        out.append("--fixed-strings")
    out.append(
        {"smart": "--smart-case", "sensitive": "--case-sensitive", "insensitive": "--ignore-case"}[cmd.case]
    )
    if cmd.word:
        out.append("--word-regexp")
    if cmd.context:
        out += ["--context", str(cmd.context)]
    for p in cmd.patterns:
        out += ["-e", p]
    return [*out, "--", *cmd.targets]


def run_rg(settings: Settings, cmd: RgCommand, *, timeout: float, max_output: int = MAX_OUTPUT) -> RgResult:
    """Run ``cmd`` confined to the root and read its output.

    Exit 1 is "no match"; no targets, nothing searched. Raises :class:`RipgrepTimeoutError` past ``timeout``, :class:`RegexError`
    for a pattern ripgrep refuses, and :class:`QueryError` when ripgrep failed without any output for
    another reason than an unreadable file (those are listed in ``errors``).
    """
    if not cmd.targets:  # nothing named (an empty changed scope): ripgrep would read stdin instead
        return RgResult([], [], frozenset(), False, ())
    res = run_beneath(settings.root, argv(settings, cmd), timeout=timeout, max_output=max_output)
    errors = _check(res, timeout)
    checks = [
        check
        for check in (
            not_ignored(settings) if _rechecks_ignores(settings, cmd) else None,
            language_check(settings, cmd.language),
        )
        if check is not None
    ]
    if cmd.output == "files":
        files = parse_files(res.stdout)
        for check in checks:
            files = [f for f in files if check(f)]
        return RgResult([], files, frozenset(), res.truncated, errors)
    if cmd.output == "json":
        lines, binary = parse_json(res.stdout, context=cmd.context > 0)
    else:
        lines, binary = parse_matches(res.stdout), frozenset()
    for check in checks:
        lines = [m for m in lines if check(m.path)]
    return RgResult(lines, [], binary, res.truncated, errors)


def list_files(
    settings: Settings, rel: str = ".", *, include_ignored: bool = False, timeout: float = 30.0
) -> list[str]:
    """Files under ``rel`` (a directory relative to the root) as sorted root-relative paths: what the
    ripgrep gateway lists (the walker's ignore rules and configured
    globs unless ``include_ignored``; never the skipped directories, the index or temp files; symlinks
    not followed), whatever their size. Raises :class:`~search.workspace.ripgrep.RipgrepTimeoutError`."""
    command = RgCommand("files", targets=(rel,), include_ignored=include_ignored, size_limit=False)
    return sorted(run_rg(settings, command, timeout=timeout).files)


def _rechecks_ignores(settings: Settings, cmd: RgCommand) -> bool:
    """Whether a positive glob could bring back ignored files, so matched paths are checked again."""
    if cmd.include_ignored:
        return False
    return any(not g.startswith("!") for g in (*cmd.globs, *settings.include))


def _check(res: ProcResult, timeout: float) -> tuple[str, ...]:
    if res.timed_out:
        raise RipgrepTimeoutError(timeout)
    said = tuple(line.strip() for line in res.stderr.splitlines() if line.strip())
    if res.returncode == 2 and not res.stdout:
        detail = " ".join(said[:6]) or "ripgrep failed"
        low = res.stderr.lower()
        if "regex" in low or "parse error" in low:
            raise RegexError(detail)
        if not any("No such file" in m or "os error" in m for m in said):
            raise QueryError(f"ripgrep failed: {detail}")
    return said if res.returncode == 2 else ()


def _path(raw: str) -> str:
    return raw[2:] if raw.startswith("./") else raw


def parse_json(stdout: bytes, *, context: bool = False) -> tuple[list[RgLine], frozenset[str]]:
    """Match lines (and with ``context`` the context lines) of ``rg --json`` output, and the files
    ripgrep found binary. Paths and text may come base64-encoded; a line cut by the output cap is
    skipped."""
    lines: list[RgLine] = []
    binary: set[str] = set()
    for raw in stdout.splitlines():
        if raw.startswith(b'{"type":"match"'):
            is_match = True
        elif context and raw.startswith(b'{"type":"context"'):
            is_match = False
        elif raw.startswith(b'{"type":"end"'):
            if b'"binary_offset":null' in raw:
                continue  # the common case, told without decoding the file's statistics
            try:
                data = json.loads(raw)["data"]
                if data.get("binary_offset") is not None:
                    binary.add(_path(rg_text(data["path"])))
            except (ValueError, KeyError, TypeError, AttributeError):
                pass
            continue
        else:
            continue
        try:
            data = json.loads(raw)["data"]
            subs = tuple(rg_text(s["match"]) for s in data.get("submatches", ()))
            path = _path(rg_text(data["path"]))
            lines.append(RgLine(path, int(data["line_number"]), rg_text(data["lines"]), subs, is_match))
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a line cut by the output cap
    return lines, frozenset(binary)


def parse_matches(stdout: bytes) -> list[RgLine]:
    """Matches from ``matches`` output (``path NUL line:match`` per match), grouped into one
    :class:`RgLine` per line, without its text."""
    out: list[RgLine] = []
    key: tuple[bytes, bytes] | None = None
    subs: list[str] = []
    for raw in stdout.split(b"\n"):
        path, sep, rest = raw.partition(b"\0")
        number, colon, match = rest.partition(b":")
        if not sep or not colon or not number.isdigit():
            continue
        if key != (path, number):
            if key is not None:
                out.append(_grouped(key, subs))
            key, subs = (path, number), []
        subs.append(match.decode("utf-8", "replace"))
    if key is not None:
        out.append(_grouped(key, subs))
    return out


def _grouped(key: tuple[bytes, bytes], subs: list[str]) -> RgLine:
    return RgLine(_path(key[0].decode("utf-8", "replace")), int(key[1]), "", tuple(subs))


def parse_files(stdout: bytes) -> list[str]:
    """Root-relative paths from ``files`` output (NUL-separated; a name cut by the cap is dropped)."""
    names = stdout.split(b"\0")
    if stdout and not stdout.endswith(b"\0"):
        names.pop()
    return [_path(n.decode("utf-8", "surrogateescape")) for n in names if n]


def rg_text(obj: Any) -> str:
    """The text of an ``rg --json`` data element (``{"text": ...}``, or base64 ``{"bytes": ...}`` for
    non-UTF-8 data); ``""`` for anything else."""
    if isinstance(obj, dict):
        if "text" in obj:
            return str(obj["text"])
        if "bytes" in obj:
            return base64.b64decode(obj["bytes"]).decode("utf-8", "replace")
    return ""


def by_file(lines: Iterable[RgLine], keep: Callable[[str], bool] = bool) -> dict[str, list[RgLine]]:
    """``lines`` grouped per file, in their order (context lines included)."""
    out: dict[str, list[RgLine]] = {}
    for ln in lines:
        if keep(ln.path):
            out.setdefault(ln.path, []).append(ln)
    return out

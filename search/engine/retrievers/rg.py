"""ripgrep: command lines, the one runner, and readers of its two output formats.

Commands are built with ``ripgrepy`` and run through the one subprocess gateway
(:mod:`indexer.procs`) with a timeout and an output cap. ripgrep honours the same ignore rules as the
indexer (``.gitignore`` even outside git, ``.ignore``, configured excludes), searches hidden files but
never ``.git``, and never follows symlinks. Output is ``--json`` (the line text included, for the grep
tool and the guard), or the compact ``--only-matching --null`` form (path, line number and matched
text only), which costs ~10× less to decode when a common word matches tens of thousands of lines.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import ripgrepy

from indexer import Settings
from indexer.languages import EXTENSIONS, FILENAMES
from indexer.procs import rg_binary
from indexer.sandbox import run_beneath
from indexer.workspace import ALWAYS_SKIP_DIRS
from search.engine.retrievers import ResolvedScope
from search.errors import QueryError
from search.workspace.ignores import not_ignored

MAX_OUTPUT = 24 * 1024 * 1024
MAX_COUNT_PER_FILE = 200


class LineMatch(NamedTuple):  # a tuple: tens of thousands are made per query, and tuples are cheap
    path: str
    line: int
    text: str
    submatches: tuple[str, ...]


def parse_rg_json(lines: Sequence[bytes] | Iterator[bytes]) -> Iterator[LineMatch]:
    """Matches from ``rg --json`` output lines (paths and text may come base64-encoded)."""
    for raw in lines:
        if not raw.startswith(b'{"type":"match"'):
            continue
        try:
            data = json.loads(raw)["data"]
        except (ValueError, KeyError):
            continue
        path = rg_text(data["path"])
        path = path[2:] if path.startswith("./") else path
        subs = tuple(rg_text(s["match"]) for s in data.get("submatches", ()))
        yield LineMatch(path, int(data["line_number"]), rg_text(data["lines"]), subs)


def parse_rg_only_matching(stdout: bytes) -> list[LineMatch]:
    """Matches from ``rg --only-matching --null --line-number --with-filename`` output: one
    ``path NUL line:match`` per match, grouped into one :class:`LineMatch` per line (without its text)."""
    out: list[LineMatch] = []
    key: tuple[bytes, bytes] | None = None
    subs: list[str] = []
    for raw in stdout.split(b"\n"):
        path, sep, rest = raw.partition(b"\0")
        number, colon, match = rest.partition(b":")
        if not sep or not colon or not number.isdigit():
            continue
        if key != (path, number):
            if key is not None:
                out.append(_line_match(key, subs))
            key, subs = (path, number), []
        subs.append(match.decode("utf-8", "replace"))
    if key is not None:
        out.append(_line_match(key, subs))
    return out


def _line_match(key: tuple[bytes, bytes], subs: list[str]) -> LineMatch:
    path = key[0].decode("utf-8", "replace")
    return LineMatch(path[2:] if path.startswith("./") else path, int(key[1]), "", tuple(subs))


def rg_text(obj: Any) -> str:
    """The text of an ``rg --json`` data element (``{"text": ...}``, or base64 ``{"bytes": ...}`` for
    non-UTF-8 data); ``""`` for anything else."""
    if isinstance(obj, dict):
        if "text" in obj:
            return str(obj["text"])
        if "bytes" in obj:
            return base64.b64decode(obj["bytes"]).decode("utf-8", "replace")
    return ""


def language_globs(language: str) -> list[str]:
    exts = [f"*{ext}" for ext, lang in EXTENSIONS.items() if lang == language]
    names = [name for name, lang in FILENAMES.items() if lang == language]
    return exts + names


def rg_command(
    settings: Settings,
    patterns: Sequence[str],
    scope: ResolvedScope,
    *,
    fixed: bool,
    ignore_case: bool,
    extra: Sequence[str] = (),
    compact: bool = False,
    cap: bool = True,
) -> RgArgv:
    """The full ``rg`` argv: flags via ripgrepy, then ``-e`` patterns, ``--`` and the paths.
    Output is ``--json``, or with ``compact`` only the matches (see :func:`parse_rg_only_matching`).
    ``cap`` stops reading a file after :data:`MAX_COUNT_PER_FILE` matching lines."""
    rg = ripgrepy.Ripgrepy("", ".", rg_path=rg_binary()).hidden().no_config()
    rg = rg.only_matching().null().line_number().with_filename().no_heading() if compact else rg.json()
    rg = rg.max_columns(2000)
    if cap:
        rg = rg.max_count(MAX_COUNT_PER_FILE)
    if fixed:
        rg = rg.fixed_strings()
    rg = rg.ignore_case() if ignore_case else rg.smart_case()
    argv = [
        *_filtered(rg, settings, scope).command,
        "--no-require-git",
        *(["--color=never"] if compact else []),
    ]
    argv += extra
    for p in patterns:
        argv += ["-e", p]
    return _checked([*argv, "--", *_targets(scope)], settings, scope)


class RgArgv(list[str]):
    """An ``rg`` argv that remembers which matched paths to keep (see :func:`_checked`)."""

    keep: Callable[[str], bool] | None = None


def _checked(argv: list[str], settings: Settings, scope: ResolvedScope) -> RgArgv:
    """A positive ``--glob`` is an override in ripgrep and would bring back ignored files: with one,
    the matched paths are checked against the ignore rules after the run (:func:`run_rg`)."""
    out = RgArgv(argv)
    if any(not g.startswith("!") for g in (*scope.globs, *settings.include)):
        out.keep = not_ignored(settings)
    return out


def rg_files_command(settings: Settings, scope: ResolvedScope) -> list[str]:
    """``rg --files`` over ``scope`` with the same filters as :func:`rg_command`: the files a search reads."""
    rg = _filtered(
        ripgrepy.Ripgrepy("", ".", rg_path=rg_binary()).hidden().no_config().null(), settings, scope
    )
    return [*rg.command, "--no-require-git", "--files", "--", *_targets(scope)]


def _filtered(rg: ripgrepy.Ripgrepy, settings: Settings, scope: ResolvedScope) -> ripgrepy.Ripgrepy:
    """The ignore rules, size limit, include/exclude patterns and the scope's globs and language."""
    rg = rg.max_filesize(str(settings.max_file_bytes))
    for pattern in settings.include:
        rg = rg.glob(pattern)
    for g in scope.globs:
        rg = rg.glob(g)
    if scope.language:  # a file type, not a glob: types cannot bring back ignored files
        for g in language_globs(scope.language):
            rg = rg.type_add(f"plaitlang:{g}")
        rg = rg.type_("plaitlang")
    # The later of two matching globs wins in ripgrep: the exclusions come last, so that no user glob
    # (``*``, ``**``) brings back .git or the index.
    for pattern in settings.exclude:
        rg = rg.glob(f"!{pattern}")
    if settings.index_is_local:
        try:
            rel = Path(settings.index_dir).resolve().relative_to(settings.root)
            rg = rg.glob(f"!/{rel.as_posix()}")
        except ValueError:
            pass
    for skipped in sorted(ALWAYS_SKIP_DIRS):
        rg = rg.glob(f"!{skipped}")
    return rg


def _targets(scope: ResolvedScope) -> list[str]:
    if scope.paths is not None:
        return list(scope.paths)
    return [scope.path] if scope.path else ["."]


def run_rg(settings: Settings, argv: list[str], *, timeout: float) -> tuple[list[LineMatch], bool]:
    """Run rg; returns (matches, truncated), read as ``--json`` or compact output, whichever ``argv``
    asks for. Exit 1 is "no match"; exit 2 with no output is an error."""
    res = run_beneath(settings.root, argv, timeout=timeout, max_output=MAX_OUTPUT)
    if res.timed_out:
        raise TimeoutError(f"ripgrep took longer than {timeout:.0f}s; narrow the query or scope")
    if res.returncode == 2 and not res.stdout:
        msg = res.stderr.splitlines()
        detail = " ".join(line.strip() for line in msg[:6] if line.strip()) or "ripgrep failed"
        if "regex" in res.stderr.lower() or "parse error" in res.stderr.lower():
            raise QueryError(f"invalid regex: {detail}; fix the pattern or search it as a literal.")
        if not any("No such file" in m or "os error" in m for m in msg):
            raise QueryError(f"ripgrep failed: {detail}")
    keep = getattr(argv, "keep", None) or bool
    if "--json" not in argv:
        return [m for m in parse_rg_only_matching(res.stdout) if m.path and keep(m.path)], res.truncated
    return [m for m in parse_rg_json(res.stdout.splitlines()) if m.path and keep(m.path)], res.truncated

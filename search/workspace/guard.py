"""Guard rules: what must not appear in, be imported by, or be written to the workspace.

Three rule types, configured as ``[[guard.rules]]`` in ``plait.toml`` / ``[tool.plait]`` or passed
inline by a tool call (:func:`parse_rules` validates either, raising :class:`ConfigError` that names the
rule)::

    [[guard.rules]]
    id = "no-print"            # unique
    type = "regex"             # a pattern that must not appear (ripgrep syntax: no backtracking)
    pattern = '\\bprint\\('
    globs = ["src/**/*.py"]    # gitignore-style, relative to the root; empty = every file
    exclude = ["src/cli.py"]   # optional
    message = "use logging"

    type = "import"            # imports whose module starts with a forbidden prefix
    prefixes = ["requests", "internal/"]

    type = "generated"         # paths that must not be written (forbid_writes defaults to true)
    globs = ["gen/**", "*.pb.go"]

:func:`run_guard` checks a target — ``ws``, ``changed`` (git-modified and untracked), ``dir:P`` or
``file:P`` — and returns a :class:`GuardReport`. Files are listed by
:func:`search.workspace.ripgrep.list_files` (the workspace as every tool sees it) and regex rules run
on the rule's files, both through the ripgrep gateway (:mod:`search.workspace.ripgrep`); import
rules parse files with tree-sitter (:func:`indexer.imports.extract_imports`), never a text grep;
``generated`` rules report generated files that git shows as modified. :func:`check_write_allowed`
makes the write and edit tools refuse ``forbid_writes`` paths.

An import prefix matches a module equal to it, or starting with it followed by a separator
(``.``, ``/``, ``:``, ``\\``), or any module starting with it when the prefix itself ends in one of
those — so ``os`` forbids ``os`` and ``os.path`` but not ``oslo``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pathspec

from indexer.beneath import read_beneath
from indexer.config import Settings
from indexer.errors import GrammarUnavailableError
from indexer.imports import IMPORT_LANGUAGES, ImportRef, extract_imports
from indexer.languages import detect_language
from indexer.procs import git_status
from indexer.workspace import BINARY_SNIFF_BYTES, is_binary
from models.errors import ConfigError
from search.errors import GuardBlockedError, QueryError
from search.types import ResolvedScope, Scope
from search.workspace import ripgrep
from search.workspace.ripgrep import RegexError, RgCommand, RipgrepTimeoutError, list_files
from search.workspace.scope import parse_scope, resolve_scope

RuleType = Literal["regex", "import", "generated"]
RULE_TYPES: tuple[str, ...] = ("regex", "import", "generated")
_KEYS = frozenset({"id", "type", "message", "pattern", "prefixes", "globs", "exclude", "forbid_writes"})
_SEPARATORS = "./:\\"
_BATCH = 500  # paths per ripgrep invocation
MAX_TEXT = 300  # characters of the offending line kept in a violation


@functools.lru_cache(maxsize=256)
def _spec(globs: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(globs)


@dataclass(frozen=True, slots=True)
class GuardRule:
    id: str
    type: RuleType
    message: str = ""
    pattern: str | None = None  # regex rules
    prefixes: tuple[str, ...] = ()  # import rules
    globs: tuple[str, ...] = ()  # files the rule applies to; empty = all
    exclude: tuple[str, ...] = ()
    forbid_writes: bool = False  # generated rules (default true there)

    def applies_to(self, relpath: str) -> bool:
        """Whether ``relpath`` (relative to the root, forward slashes) is in the rule's globs."""
        if self.globs and not _spec(self.globs).match_file(relpath):
            return False
        return not (self.exclude and _spec(self.exclude).match_file(relpath))

    def forbids_module(self, module: str) -> bool:
        return any(_prefix_matches(p, module) for p in self.prefixes)


def _prefix_matches(prefix: str, module: str) -> bool:
    if not module.startswith(prefix):
        return False
    return len(module) == len(prefix) or prefix[-1] in _SEPARATORS or module[len(prefix)] in _SEPARATORS


@dataclass(frozen=True, slots=True)
class Violation:
    rule_id: str
    path: str  # relative to the root, forward slashes
    line: int | None  # 1-based; None for a generated file that was modified
    text: str  # the offending line (or import statement), trimmed
    message: str


@dataclass(frozen=True, slots=True)
class GuardReport:
    target: str
    violations: list[Violation]
    files_checked: int
    rules_checked: int
    errors: list[str] = field(default_factory=list)  # files that could not be read or parsed

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def exit_code(self) -> int:
        """0 clean, 1 violations (``plait guard``'s contract)."""
        return 1 if self.violations else 0


# --- rules -------------------------------------------------------------------------------------------


def _strs(value: Any, rule_id: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"guard rule {rule_id!r}: {key} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def parse_rule(raw: Mapping[str, Any], position: int = 1) -> GuardRule:
    """Validate one raw rule table (raises :class:`ConfigError` naming the rule and the fix)."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"guard rule #{position} must be a table, got {raw!r}")
    rule_id = raw.get("id")
    if not isinstance(rule_id, str) or not rule_id.strip():
        raise ConfigError(f"guard rule #{position} needs an id (a non-empty string)")
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise ConfigError(
            f"guard rule {rule_id!r}: unknown key(s) {', '.join(unknown)}; "
            f"allowed: {', '.join(sorted(_KEYS))}"
        )
    kind = raw.get("type")
    if kind not in RULE_TYPES:
        raise ConfigError(
            f"guard rule {rule_id!r}: type must be one of {', '.join(RULE_TYPES)}, got {kind!r}"
        )
    message = raw.get("message", "")
    if not isinstance(message, str):
        raise ConfigError(f"guard rule {rule_id!r}: message must be a string")
    globs = _strs(raw["globs"], rule_id, "globs") if "globs" in raw else ()
    exclude = _strs(raw["exclude"], rule_id, "exclude") if "exclude" in raw else ()
    forbid = raw.get("forbid_writes", kind == "generated")
    if not isinstance(forbid, bool):
        raise ConfigError(f"guard rule {rule_id!r}: forbid_writes must be true or false")
    if forbid and kind != "generated":
        raise ConfigError(f"guard rule {rule_id!r}: forbid_writes only applies to rules of type generated")
    pattern = raw.get("pattern")
    prefixes: tuple[str, ...] = ()
    if kind == "regex":
        if not isinstance(pattern, str) or not pattern:
            raise ConfigError(f"guard rule {rule_id!r}: a regex rule needs a non-empty pattern")
    elif pattern is not None:
        raise ConfigError(f"guard rule {rule_id!r}: pattern only applies to rules of type regex")
    if kind == "import":
        if "prefixes" not in raw:
            raise ConfigError(f"guard rule {rule_id!r}: an import rule needs prefixes (module prefixes)")
        prefixes = _strs(raw["prefixes"], rule_id, "prefixes")
        if not prefixes:
            raise ConfigError(
                f"guard rule {rule_id!r}: prefixes must be a list of at least one module prefix"
            )
    elif "prefixes" in raw:
        raise ConfigError(f"guard rule {rule_id!r}: prefixes only apply to rules of type import")
    if kind == "generated" and not globs:
        raise ConfigError(f"guard rule {rule_id!r}: a generated rule needs globs (the generated paths)")
    return GuardRule(
        id=rule_id,
        type=kind,
        message=message,
        pattern=pattern,
        prefixes=prefixes,
        globs=globs,
        exclude=exclude,
        forbid_writes=forbid,
    )


def parse_rules(raw: Sequence[Mapping[str, Any]]) -> list[GuardRule]:
    """Validate raw rule tables (from ``Settings.guard`` or a tool call); ids must be unique."""
    rules = [parse_rule(r, i) for i, r in enumerate(raw, start=1)]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise ConfigError(f"guard rule id {rule.id!r} is used twice; give each rule its own id")
        seen.add(rule.id)
    return rules


def rules_for(settings: Settings, inline: Sequence[Mapping[str, Any]] | None = None) -> list[GuardRule]:
    """The rules to run: ``inline`` ones when given (a tool call's own rules), else the configured ones."""
    return parse_rules(inline if inline is not None else settings.guard)


def check_write_allowed(rules: Iterable[GuardRule], relpath: str) -> None:
    """Raise :class:`GuardBlockedError` if a ``forbid_writes`` rule covers ``relpath``."""
    for rule in rules:
        if rule.forbid_writes and rule.applies_to(relpath):
            raise GuardBlockedError(relpath, rule.id, rule.message)


# --- targets -----------------------------------------------------------------------------------------


def _target_files(settings: Settings, target: ResolvedScope, timeout: float) -> list[str]:
    if target.kind == "file" and target.path is not None:
        return [target.path]
    if target.paths is not None:  # changed: regular files reached without a symlink, not ignored
        return list(target.paths)
    return list_files(settings, target.path or ".", timeout=timeout)


# --- checks ------------------------------------------------------------------------------------------


def _trim(text: str) -> str:
    text = text.rstrip("\r\n").strip()
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _check_regex(
    settings: Settings, rule: GuardRule, files: list[str], timeout: float, errors: list[str]
) -> list[Violation]:
    assert rule.pattern is not None
    out: list[Violation] = []
    for start in range(0, len(files), _BATCH):
        batch = tuple(files[start : start + _BATCH])
        # Named files are searched whatever the ignore rules; whole lines, whatever their length.
        command = RgCommand(
            "json", (rule.pattern,), batch, case="sensitive", size_limit=False, max_columns=None
        )
        try:
            res = ripgrep.run(settings, command, timeout=timeout)
        except RipgrepTimeoutError as exc:
            raise QueryError(
                f"guard rule {rule.id!r} took over {timeout:g}s; narrow its globs or the target"
            ) from exc
        except RegexError as exc:
            raise QueryError(
                f"guard rule {rule.id!r} has an invalid regex {rule.pattern!r} ({exc.detail}); "
                "fix the pattern (ripgrep's Rust regex syntax; no look-around or backreferences)"
            ) from exc
        errors += [f"rule {rule.id}: {e}" for e in res.errors]
        for m in res.lines:
            if m.path not in res.binary:
                out.append(Violation(rule.id, m.path, m.line, _trim(m.text), rule.message))
    return out


def _read_imports(settings: Settings, rel: str, errors: list[str]) -> list[ImportRef]:
    try:
        data = read_beneath(settings.root, rel, settings.max_file_bytes + 1)  # no symlink, no FIFO
        if len(data) > settings.max_file_bytes:
            return []
    except OSError as exc:
        errors.append(f"{rel}: {exc.strerror or exc}")
        return []
    if is_binary(data[:BINARY_SNIFF_BYTES]):
        return []
    language = detect_language(rel, data[:BINARY_SNIFF_BYTES])
    if language not in IMPORT_LANGUAGES:
        return []
    try:
        return extract_imports(data, language)
    except GrammarUnavailableError as exc:
        errors.append(f"{rel}: {exc}")
        return []


def run_guard(
    settings: Settings, rules: Sequence[GuardRule], target: Scope | str = "ws", *, timeout: float = 30.0
) -> GuardReport:
    """Check ``rules`` over ``target`` in the workspace of ``settings`` (see the module docstring).

    Raises :class:`QueryError` for an unknown target, ``changed`` outside a git work tree, an invalid
    regex or a timeout; the path of ``dir:``/``file:`` is confined to the root like every tool path.
    """
    scope = target if isinstance(target, Scope) else parse_scope(target, what="guard target")
    if scope.kind == "changed" and not rules:
        parsed = ResolvedScope("changed", None, (), (), None)  # nothing to check: git is not asked
    else:
        parsed = resolve_scope(settings, scope)
    files = _target_files(settings, parsed, timeout) if rules else []
    errors: list[str] = []
    violations: list[Violation] = []
    imports: dict[str, list[ImportRef]] = {}
    modified: frozenset[str] | None = None
    for rule in rules:
        if rule.type == "regex":
            selected = [f for f in files if rule.applies_to(f)]
            if selected:
                violations += _check_regex(settings, rule, selected, timeout, errors)
        elif rule.type == "import":
            for rel in files:
                if not rule.applies_to(rel):
                    continue
                if rel not in imports:
                    imports[rel] = _read_imports(settings, rel, errors)
                for ref in imports[rel]:
                    if rule.forbids_module(ref.module):
                        violations.append(Violation(rule.id, rel, ref.line, _trim(ref.text), rule.message))
        else:
            if modified is None:
                status = git_status(settings.root, timeout=timeout)
                # without git there is no record of a generated file being edited by hand
                modified = frozenset() if status is None else status.modified | frozenset(status.renamed)
            violations += _check_generated(rule, parsed, modified)
    violations.sort(key=lambda v: (v.path, v.line or 0, v.rule_id))
    return GuardReport(_scope_text(scope), violations, len(files), len(rules), errors)


def _scope_text(scope: Scope) -> str:
    return scope.kind if scope.path is None else f"{scope.kind}:{scope.path}"


def _check_generated(rule: GuardRule, target: ResolvedScope, modified: frozenset[str]) -> list[Violation]:
    message = rule.message or "this generated file was edited by hand"
    return [
        Violation(rule.id, p, None, "(modified generated file)", message)
        for p in sorted(modified)
        if (target.kind == "changed" or target.allows(p)) and rule.applies_to(p)
    ]

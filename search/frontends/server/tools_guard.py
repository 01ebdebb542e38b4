"""The ``guard`` tool (category ``guard``): check regex, import and generated-file rules over a target.

An adapter over :func:`search.workspace.guard.run_guard`, a module-level function of ``(state, ...)``. Rules come from ``plait.toml`` / ``[tool.plait]`` of
each root, or inline from the call. ``ws`` and ``changed`` targets cover every root; ``dir:P`` and
``file:P`` the root holding ``P``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

from search.frontends.server.boundary import MAX_OUTPUT_CHARS, ToolAdder, bound, respond, truncation_note
from search.frontends.server.models import GuardOutput, ViolationOut
from search.frontends.server.served import Workspace
from search.frontends.server.state import ServerState
from search.types import Scope
from search.workspace.guard import rules_for, run_guard
from search.workspace.scope import parse_scope


class GuardRuleIn(BaseModel):
    """An inline guard rule (same keys as [[guard.rules]] in plait.toml)."""

    id: str = Field(description="Unique rule id.")
    type: Literal["regex", "import", "generated"] = Field(
        description="regex: a pattern that must not appear; import: forbidden module prefixes; "
        "generated: paths that must not be edited by hand."
    )
    pattern: str | None = Field(None, description="regex rules: the forbidden pattern (ripgrep syntax).")
    prefixes: list[str] | None = Field(None, description="import rules: forbidden module prefixes.")
    globs: list[str] | None = Field(
        None, description="Files the rule applies to (gitignore-style); default all."
    )
    exclude: list[str] | None = Field(None, description="Files the rule skips.")
    message: str | None = Field(None, description="What to tell whoever breaks the rule.")
    forbid_writes: bool | None = Field(
        None, description="generated rules: also refuse writes (default true)."
    )


def guard(
    state: ServerState,
    target: Annotated[
        str,
        Field(
            description="ws (all files, default) | changed (git-modified and untracked) | dir:PATH | "
            "file:PATH."
        ),
    ] = "ws",
    rules: Annotated[
        list[GuardRuleIn] | None,
        Field(description="Rules to check instead of the configured ones (omit to use plait.toml's)."),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=5000, description="Maximum violations returned.")] = 200,
) -> Annotated[CallToolResult, GuardOutput]:
    """Check the workspace's guard rules — forbidden patterns (regex), forbidden imports (parsed
    with tree-sitter) and hand-edited generated files — over a target, and list the violations
    with path, line and the rule's message. Use it before finishing a change (target=changed) to
    catch what the project forbids."""
    inline = None if rules is None else [r.model_dump(exclude_none=True) for r in rules]
    violations: list[ViolationOut] = []
    files = checked = 0
    errors: list[str] = []
    plan = _plan(state, target)
    for ws, text in plan:
        report = run_guard(ws.settings, rules_for(ws.settings, inline), text)
        files += report.files_checked
        checked = max(checked, report.rules_checked)
        errors += report.errors
        violations += [
            ViolationOut(rule_id=v.rule_id, path=v.path, line=v.line, text=v.text, message=v.message)
            for v in report.violations
        ]
    shown: list[ViolationOut] = []
    size = 0
    for v in violations:
        size += len(v.text) + len(v.message) + len(v.path) + 40
        if len(shown) >= limit or size > MAX_OUTPUT_CHARS:
            break
        shown.append(v)
    out = GuardOutput(
        target=target,
        root=", ".join(str(ws.root) for ws, _ in plan),
        ok=not violations,
        violations=shown,
        files_checked=files,
        rules_checked=checked,
        errors=errors[:50],
        truncated=len(shown) < len(violations),
    )
    lines = [
        f"{v.path}:{v.line}: [{v.rule_id}] {v.message}\n    {v.text}"
        if v.line
        else f"{v.path}: [{v.rule_id}] {v.message}"
        for v in shown
    ]
    lines.append(f"[{len(violations)} violation(s) in {files} file(s), {checked} rule(s)]")
    if out.truncated:
        lines.append(
            "note: "
            + truncation_note(len(shown), len(violations), "violations", "target=dir:PATH or file:PATH")
        )
    lines += [f"error: {e}" for e in errors[:10]]
    return respond(out, "\n".join(lines))


def register(add: ToolAdder, state: ServerState) -> None:
    """Wire the ``guard`` tool to ``state``."""
    add("guard", bound(guard, state))


def _plan(state: ServerState, target: str) -> list[tuple[Workspace, Scope]]:
    """The roots to check, each with its target: ``ws``/``changed`` for every root, a path for the root
    holding it (made relative to that root)."""
    scope = parse_scope(target, what="guard target")
    if scope.path is None:
        return [(ws, scope) for ws in state.workspaces.values()]
    ws, confined = state.resolve(scope.path)
    return [(ws, Scope() if confined.relpath == "." else replace(scope, path=confined.relpath))]

"""``plait``: the command line. A thin adapter over ``indexer.Index`` and ``search.Engine``.

Exit codes: 0 success, 1 "found problems" (guard violations), 2 usage or input error (one line on
stderr naming the fix). Heavy modules (torch, the MCP server) are imported only by the commands
that need them, so ``plait search --mode text`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.errors import PlaitError

log = logging.getLogger("plait")


def _settings(root_arg: str | None, args: argparse.Namespace, *, detect: bool = True) -> Any:
    from indexer import find_root, load_settings

    start = Path(root_arg or ".")
    if not start.exists():
        raise PlaitError(f"{start} does not exist; pass an existing directory as the root.")
    root = find_root(start) if detect and root_arg is None else start.resolve()
    return load_settings(root, env=os.environ, overrides=flag_overrides(args))


def flag_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The settings overrides given by the common flags (``--index-dir``, ``--model``, ``--device``,
    ``--exclude``) of any sub-command."""
    overrides: dict[str, Any] = {}
    if getattr(args, "index_dir", None):
        overrides["index_dir"] = args.index_dir
    if getattr(args, "model", None):
        overrides["model_name"] = args.model
    if getattr(args, "device", None):
        overrides["model_device"] = args.device
    if getattr(args, "exclude", None):
        overrides["exclude"] = list(args.exclude)
    return overrides


# -- index / status ------------------------------------------------------------------------------
class _RichProgress:
    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.bar = Progress(
            TextColumn("{task.description:>10}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            transient=False, console=Console(stderr=True),
        )  # fmt: skip
        self.task: Any = None

    def start(self, phase: str, total: int) -> None:
        if self.task is None:
            self.bar.start()
        self.task = self.bar.add_task(phase, total=total)

    def advance(self, n: int = 1) -> None:
        if self.task is not None:
            self.bar.advance(self.task, n)

    def stop(self) -> None:
        if self.task is not None:
            self.bar.stop()


def cmd_index(args: argparse.Namespace) -> int:
    from indexer import Index

    settings = _settings(args.root, args)
    progress = _RichProgress() if sys.stderr.isatty() and not args.json else None
    try:
        report = Index(settings).build(
            full=args.full, vectors=not args.no_vectors, progress=progress, wait=args.wait, tier=args.tier
        )
    finally:
        if progress is not None:
            progress.stop()
    data = {"root": str(settings.root), "index_dir": settings.index_dir, **report.as_dict()}
    if args.json:
        print(json.dumps(data))
        return 0
    vec = (
        "vectors skipped (--no-vectors)"
        if report.vectors_skipped
        else (
            f"{report.vectors:,} vectors ({report.embedded:,} embedded, {report.from_cache:,} from cache; "
            + ", ".join(f"{t} tier {d['vectors']:,}" for t, d in report.tiers.items())
            + ")"
        )
    )
    print(
        f"indexed {settings.root}: {report.files:,} files ({report.changed:,} changed, {report.deleted:,} deleted), "
        f"{report.symbols:,} symbols and {report.chunks:,} chunks written, {report.chunks_total:,} chunks in all, "
        f"{vec}, in {report.seconds:.1f}s"
    )
    if report.skipped:
        print("skipped: " + ", ".join(f"{k.removeprefix('skipped_')} {v}" for k, v in report.skipped.items()))
    if report.rebuilt_reason:
        print(f"rebuilt: {report.rebuilt_reason}")
    for err in report.errors[:10]:
        print(f"warning: {err}", file=sys.stderr)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from indexer import Index

    settings = _settings(args.root, args)
    status = Index(settings).status()
    data = status.as_dict()
    from indexer.daemon_state import describe_watcher, read_watcher_state

    data["watcher"] = read_watcher_state(settings)
    if args.json:
        print(json.dumps(data))
        return 0
    print(f"root:      {status.root}")
    print(f"index:     {status.location}")
    print(f"state:     {status.state.value}" + (f" ({status.detail})" if status.detail else ""))
    print(f"files:     {status.files:,}   symbols: {status.symbols:,}   chunks: {status.chunks:,}")
    print(f"vectors:   {status.coverage}" + (f"   model: {status.model}" if status.model else ""))
    print(f"tiers:     {status.tier_line()}")
    changed = len(status.stale_files) + len(status.new_files) + len(status.deleted_files)
    print(
        f"changed:   {changed} file(s) since the last build"
        + (
            f" (e.g. {', '.join((status.stale_files + status.new_files + status.deleted_files)[:3])})"
            if changed
            else ""
        )
    )
    if status.last_build:
        import time

        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status.last_build.get("finished", 0)))
        print(f"last build: {when} ({status.last_build.get('seconds', 0):.1f}s)")
    if status.size_bytes is not None:
        print(f"size:      {status.size_bytes / 1e6:.1f} MB")
    print(f"watcher:   {describe_watcher(data['watcher'])}")
    return 0


# -- search --------------------------------------------------------------------------------------
def cmd_search(args: argparse.Namespace) -> int:
    from search.engine import Engine, parse_scope
    from search.types import Query

    settings = _settings(args.root, args)
    scope = parse_scope(args.scope, args.glob or (), args.lang)
    query = Query(args.query, mode=args.mode, limit=args.limit, regex=args.regex, explain=args.explain)
    response = None
    if args.mode in ("hybrid", "semantic") and not args.no_daemon:
        from search.remote import try_remote_search

        response = try_remote_search(settings, query, args.scope, args.glob or (), args.lang, args.fusion)
    if response is None:
        engine = Engine(settings)
        try:
            response = engine.search(query, scope, fusion=args.fusion)
        finally:
            engine.close()
    if args.json:
        print(json.dumps([r.to_json() for r in response.results]))
        for name, why in response.degraded.items():
            print(f"plait: {name} search unavailable: {why}", file=sys.stderr)
        return 0
    from search.render import render_results

    render_results(response, color=sys.stdout.isatty())
    return 0


# -- guard ---------------------------------------------------------------------------------------
def cmd_guard(args: argparse.Namespace) -> int:
    from search.guard import rules_for, run_guard

    settings = _settings(args.root, args)
    report = run_guard(settings, rules_for(settings), args.target)
    if args.json:
        print(json.dumps({
            "target": report.target, "files_checked": report.files_checked, "rules_checked": report.rules_checked,
            "violations": [v.__dict__ if hasattr(v, "__dict__") else _violation(v) for v in report.violations],
            "errors": report.errors,
        }))  # fmt: skip
    else:
        for v in report.violations:
            where = f"{v.path}:{v.line}" if v.line else v.path
            print(f"{where}: [{v.rule_id}] {v.message}\n    {v.text}")
        print(
            f"{len(report.violations)} violation(s) in {report.files_checked} file(s), "
            f"{report.rules_checked} rule(s)"
        )
    return report.exit_code


def _violation(v: Any) -> dict[str, Any]:
    return {"rule_id": v.rule_id, "path": v.path, "line": v.line, "text": v.text, "message": v.message}


# -- serve / watch -------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    from search.server.main import serve

    return serve(args)


def cmd_watch(args: argparse.Namespace) -> int:
    from indexer.daemon import run_watch
    from search.engine import Engine
    from search.remote import remove_endpoints, start_endpoint

    settings = _settings(args.root, args)
    # The daemon keeps the model loaded anyway: let `plait search` use it through the local endpoint.
    engines = {str(settings.root): Engine(settings)}
    endpoint = start_endpoint(engines)
    try:
        return run_watch(settings, verbose=args.verbose, vectors=not args.no_vectors)
    finally:
        endpoint.shutdown()
        remove_endpoints(engines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="plait", description="Hybrid code search: ripgrep + symbols + vectors.")
    p.add_argument("--verbose", "-v", action="store_true", help="log progress and details to stderr")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--verbose", "-v", action="store_true", default=argparse.SUPPRESS,
                        help="log progress and details to stderr")  # fmt: skip
        sp.add_argument("--index-dir", help="index location (path or LanceDB URI); env PLAIT_INDEX_DIR")
        sp.add_argument("--model", help="embedding model name or local path; env PLAIT_MODEL")
        sp.add_argument("--device", choices=["cpu", "cuda", "auto"], help="device for the model")
        sp.add_argument("--exclude", action="append", help="extra gitignore-style exclude glob; repeatable")

    sp = sub.add_parser("index", help="build or update the index")
    sp.add_argument("root", nargs="?")
    sp.add_argument("--full", action="store_true", help="rebuild from scratch (the embedding cache is kept)")
    sp.add_argument("--no-vectors", action="store_true", help="build the symbol index only")
    sp.add_argument("--tier", choices=["fast", "full"], default="fast",
                    help="fast: static vectors in seconds (default); full: the transformer's too")  # fmt: skip
    sp.add_argument("--wait", type=float, default=0.0, help="seconds to wait for another writer")
    sp.add_argument("--json", action="store_true")
    common(sp)
    sp.set_defaults(func=cmd_index)

    sp = sub.add_parser("search", help="search the workspace")
    sp.add_argument("query")
    sp.add_argument("--root")
    sp.add_argument("--mode", choices=["hybrid", "text", "symbol", "semantic"], default="hybrid")
    sp.add_argument("--limit", type=int, default=10)
    sp.add_argument("--glob", action="append", help="include (or !exclude) glob; repeatable")
    sp.add_argument("--lang", help="only this language (e.g. python, go, typescript)")
    sp.add_argument("--scope", default="ws", help="ws | changed | dir:PATH | file:PATH")
    sp.add_argument("--regex", action="store_true", help="treat the query as a regular expression")
    sp.add_argument(
        "--fusion",
        choices=["weighted", "rrf"],
        default="weighted",
        help="query-aware weighted RRF (default) or plain RRF",
    )
    sp.add_argument(
        "--explain",
        action="store_true",
        help="show each result's rank per retriever and every ranking rule applied to it",
    )
    sp.add_argument("--no-daemon", action="store_true", help="do not use a running plait server")
    sp.add_argument("--json", action="store_true")
    common(sp)
    sp.set_defaults(func=cmd_search)

    sp = sub.add_parser("status", help="index freshness, sizes, model, last build")
    sp.add_argument("root", nargs="?")
    sp.add_argument("--json", action="store_true")
    common(sp)
    sp.set_defaults(func=cmd_status)

    sp = sub.add_parser("serve", help="run the MCP server")
    sp.add_argument("--root", action="append", help="workspace root; repeatable")
    sp.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    sp.add_argument("--host", default="127.0.0.1")
    sp.add_argument("--port", type=int, default=8765, help="HTTP port (0: a free one, printed on stderr)")
    sp.add_argument("--token", help="bearer token for HTTP (env PLAIT_TOKEN); required off loopback")
    sp.add_argument("--read-only", action="store_true")
    sp.add_argument("--watch", action="store_true", help="keep the indexes fresh as files change")
    sp.add_argument(
        "--enable",
        action="append",
        help="offer only these tools or categories (search, files, edit, guard, index, info; "
        "tool:search is the search tool alone); repeatable or comma-separated",
    )
    sp.add_argument("--disable", action="append", help="do not offer these tools or categories")
    sp.add_argument("--no-preload", action="store_true", help="do not load the model at start")
    common(sp)
    sp.set_defaults(func=cmd_serve)

    sp = sub.add_parser("watch", help="foreground reindex daemon")
    sp.add_argument("root", nargs="?")
    sp.add_argument("--no-vectors", action="store_true")
    common(sp)
    sp.set_defaults(func=cmd_watch)

    sp = sub.add_parser("guard", help="check the workspace's guard rules; exit 1 on violations")
    sp.add_argument("--root")
    sp.add_argument("--target", default="ws", help="ws | changed | dir:PATH | file:PATH")
    sp.add_argument("--json", action="store_true")
    common(sp)
    sp.set_defaults(func=cmd_guard)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # Opt in to LanceDB's future default now; otherwise every vector-index check prints a warning.
    os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="plait: %(message)s",
        stream=sys.stderr,
    )
    try:
        code: int = args.func(args)
        return code
    except PlaitError as exc:
        print(f"plait: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("plait: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

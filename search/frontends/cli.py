"""``plait``: the command line. A thin adapter over ``indexer.Index`` and ``search.Engine``.

It follows ripgrep's conventions. Exit codes: 0 success (``search``: something found), 1 nothing
found (``search``) or problems found (``guard`` violations), 2 usage or input error (one line on stderr
naming the fix). Results go to stdout, every message to stderr. Colour follows ``--color`` and
``NO_COLOR``; piped output is never cut to a width. Every command takes ``--root`` (``index``,
``status`` and ``watch`` also a positional ROOT).

Heavy modules (lancedb, torch, sentence-transformers, onnxruntime, the MCP server) are imported only
by the commands that need them: ``--version`` and ``--help`` import nothing of plait's dependencies,
and ``plait search --mode text`` neither the model nor LanceDB when there is no index to read.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger("plait")
PROGRESS_EVERY = 2.0  # seconds between progress lines when stderr is not a terminal


def _root_arg(args: argparse.Namespace) -> str | None:
    """The root given as ``--root`` or as the positional ROOT (both: they must agree)."""
    positional = getattr(args, "root_pos", None)
    flag = getattr(args, "root", None)
    if isinstance(flag, list):  # serve: repeatable
        flag = flag[0] if flag else None
    if positional and flag and Path(positional).resolve() != Path(flag).resolve():
        from models import PlaitError

        raise PlaitError(f"two roots given ({positional} and --root {flag}); pass one.")
    return positional or flag


def _settings(root_arg: str | None, args: argparse.Namespace, *, detect: bool = True) -> Any:
    from search.frontends.settings import command_settings

    return command_settings(root_arg, args, detect=detect)


# -- index / status ------------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    from indexer import Index
    from search.frontends.progress import for_stream

    if args.cluster or args.more_roots:
        return cmd_index_fleet(args)
    settings = _settings(_root_arg(args), args)
    progress = for_stream(quiet=args.quiet)
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
        print(f"plait: warning: {err}", file=sys.stderr)
    return 0


def cmd_index_fleet(args: argparse.Namespace) -> int:
    """Several repositories: one after another here, or one Ray task each with ``--cluster``."""
    from indexer import FleetResult, fleet_summary, plan_fleet, run_fleet_here, run_fleet_on_ray
    from search.frontends.settings import flag_overrides

    roots = [r for r in (args.root_pos, args.root, *args.more_roots) if r]
    overrides = {k: v for k, v in flag_overrides(args).items() if k != "index_dir"}
    jobs = plan_fleet(roots, base=args.index_dir, env=os.environ, overrides=overrides)
    vectors = not args.no_vectors

    def show(r: FleetResult) -> None:
        if not args.json and not args.quiet:
            print(f"{r.outcome:9} {r.root} ({r.seconds:.1f}s): {r.detail}", file=sys.stderr)

    t0 = time.perf_counter()
    if args.cluster:
        results = run_fleet_on_ray(jobs, cluster=args.cluster, vectors=vectors, tier=args.tier, wait=args.wait,
                                   full=args.full, on_result=show)  # fmt: skip
    else:
        results = run_fleet_here(
            jobs, vectors=vectors, tier=args.tier, wait=args.wait, full=args.full, on_result=show
        )
    seconds = time.perf_counter() - t0
    counts = fleet_summary(results)
    if args.json:
        print(json.dumps({"seconds": seconds, **counts, "repositories": [r.as_dict() for r in results]}))
    else:
        print(f"{len(results)} repositories in {seconds:.1f}s: {counts['built']} built, "
              f"{counts['unchanged']} unchanged, {counts['failed']} failed")  # fmt: skip
    return 2 if counts["failed"] else 0


def cmd_status(args: argparse.Namespace) -> int:
    from indexer import Index

    settings = _settings(_root_arg(args), args)
    status = Index(settings).status()
    data = status.as_dict()
    from indexer import describe_watcher, read_watcher_state

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
    if status.revision is not None or status.checkout is not None:
        from indexer import describe_revision

        print(f"indexed:   {describe_revision(status.revision)}")
        print(f"checkout:  {describe_revision(status.checkout)}")
    if status.last_build:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status.last_build.get("finished", 0)))
        print(f"last build: {when} ({status.last_build.get('seconds', 0):.1f}s)")
    if status.size_bytes is not None:
        print(f"size:      {status.size_bytes / 1e6:.1f} MB")
    print(f"watcher:   {describe_watcher(data['watcher'])}")
    return 0


# -- search --------------------------------------------------------------------------------------
def use_color(choice: str, stream: Any, env: Any = os.environ) -> bool:
    """``--color``: always / never, or auto = a terminal and no ``NO_COLOR`` (https://no-color.org)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    return bool(stream.isatty()) and not env.get("NO_COLOR")


def cmd_search(args: argparse.Namespace) -> int:
    from search.types import MODE_RETRIEVERS, Query

    settings = _settings(_root_arg(args), args)
    query = Query(args.query, mode=args.mode, limit=args.limit, regex=args.regex, explain=args.explain)
    response = None
    if not args.no_daemon:  # a warm server answers every mode (and checks the scope) without the engine here
        from search.frontends.remote import try_remote_search

        response = try_remote_search(settings, query, args.scope, args.glob or (), args.lang, args.fusion)
    if response is None:
        from search.engine.engine import Engine, parse_scope

        scope = parse_scope(args.scope, args.glob or (), args.lang)
        engine = Engine(settings)
        try:
            response = engine.search(query, scope, fusion=args.fusion)
        finally:
            engine.close()
    from search.engine.snippets import focus_results, monotonic_scores

    results = focus_results(
        monotonic_scores(response.results),
        str(settings.root),
        args.query,
        regex=args.regex,
        max_tokens=args.max_tokens,
    )
    if args.json or args.jsonl:
        rows = [{**r.to_json(), "snippet_line": snip.start_line} for r, snip in results]
        if args.json:
            print(json.dumps(rows))
        else:
            for row in rows:
                print(json.dumps(row))
    else:
        from search.frontends.render import render_results

        render_results(results, color=use_color(args.color, sys.stdout))
    for name, why in response.degraded.items():
        print(f"plait: {name} search unavailable: {why}", file=sys.stderr)
    for note in response.notes:
        print(f"plait: note: {note}", file=sys.stderr)
    if results:
        return 0
    if set(MODE_RETRIEVERS[args.mode]) <= set(response.degraded):
        return 2  # nothing could search: an error, not "no match"
    if not (args.json or args.jsonl):
        print(f"plait: no results for {args.query!r}", file=sys.stderr)
    return 1


# -- guard ---------------------------------------------------------------------------------------
def cmd_guard(args: argparse.Namespace) -> int:
    from search.workspace.guard import rules_for, run_guard

    settings = _settings(_root_arg(args), args)
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
            f"{report.rules_checked} rule(s)",
            file=sys.stderr,
        )
    return report.exit_code


def _violation(v: Any) -> dict[str, Any]:
    return {"rule_id": v.rule_id, "path": v.path, "line": v.line, "text": v.text, "message": v.message}


# -- serve / watch -------------------------------------------------------------------------------
def cmd_serve(args: argparse.Namespace) -> int:
    from search.frontends.server.main import serve

    return serve(args)


def cmd_watch(args: argparse.Namespace) -> int:
    from indexer import run_watch
    from search.engine.engine import Engine
    from search.frontends.remote import remove_endpoints, start_endpoint

    settings = _settings(_root_arg(args), args)
    # The daemon keeps the model loaded anyway: let `plait search` use it through the local endpoint.
    engines = {str(settings.root): Engine(settings)}
    endpoint = start_endpoint(engines)
    print(
        f"plait: watching {settings.root} (index {settings.index_dir}); Ctrl-C stops after the current batch",
        file=sys.stderr,
        flush=True,
    )
    try:
        return run_watch(settings, verbose=args.verbose, vectors=not args.no_vectors)
    finally:
        endpoint.shutdown()
        remove_endpoints(engines)


# -- the parser ----------------------------------------------------------------------------------
class _HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default after its help, unless the default is nothing (None, False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "%(default)" in text
            or default in (None, False, argparse.SUPPRESS)
            or isinstance(default, list)
            or not action.option_strings
        ):
            return text
        return f"{text} (default: %(default)s)"


def build_parser() -> argparse.ArgumentParser:
    def parser(sub: Any, name: str, text: str) -> argparse.ArgumentParser:
        made: argparse.ArgumentParser = sub.add_parser(
            name, help=text, description=text, formatter_class=_HelpFormatter
        )
        return made

    p = argparse.ArgumentParser(
        prog="plait",
        description="Hybrid code search: ripgrep + symbols + vectors. Exit status: 0 found or done, "
        "1 nothing found (search) or violations (guard), 2 error.",
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action="store_true", help="print plait's version and exit")
    p.add_argument("--verbose", "-v", action="store_true", help="log progress and details to stderr")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def common(sp: argparse.ArgumentParser, *, positional_root: bool = False) -> None:
        if positional_root:
            sp.add_argument("root_pos", nargs="?", metavar="ROOT", help="workspace root (same as --root)")
        if sp.prog.split()[-1] != "serve":
            sp.add_argument(
                "--root", help="workspace root (default: the repository around the current directory)"
            )
        sp.add_argument("--verbose", "-v", action="store_true", default=argparse.SUPPRESS,
                        help="log progress and details to stderr")  # fmt: skip
        sp.add_argument(
            "--index-dir", help="index location, a path or LanceDB URI (default: env PLAIT_INDEX_DIR, "
            "else the user cache directory)"
        )  # fmt: skip
        sp.add_argument("--model", help="embedding model name or local path (default: env PLAIT_MODEL, "
                        "else plait.toml, else all-MiniLM-L6-v2)")  # fmt: skip
        sp.add_argument("--device", choices=["cpu", "cuda", "auto"],
                        help="device for the model (default: env PLAIT_DEVICE, else plait.toml, else cpu)")  # fmt: skip
        sp.add_argument("--exclude", action="append", help="extra gitignore-style exclude glob; repeatable")

    sp = parser(sub, "index", "build or update the index")
    sp.add_argument("--full", action="store_true", help="rebuild from scratch (the embedding cache is kept)")
    sp.add_argument("--no-vectors", action="store_true", help="build the symbol index only")
    sp.add_argument("--tier", choices=["fast", "full"], default="full",
                    help="full: the transformer's vectors (default); fast: only static ones, in seconds")  # fmt: skip
    sp.add_argument("--wait", type=float, default=0.0, help="seconds to wait for another writer")
    sp.add_argument("--json", action="store_true", help="print the build report as one JSON object")
    sp.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    sp.add_argument("--cluster", metavar="auto|ray://HOST:PORT",
                    help="index the ROOTs as Ray tasks (needs plait[cluster]); auto: this machine's cluster "
                    "or a local Ray. With --index-dir BASE, repository NAME goes to BASE/NAME")  # fmt: skip
    common(sp, positional_root=True)
    sp.add_argument("more_roots", nargs="*", metavar="ROOT",
                    help="more repositories: several roots are indexed one by one, or on Ray with --cluster")  # fmt: skip
    sp.set_defaults(func=cmd_index)

    sp = parser(sub, "search", "search the workspace; exit 0 when something is found, 1 when nothing")
    sp.add_argument("query", help="words, an identifier, a quoted literal, or a regex with --regex")
    sp.add_argument("--mode", choices=["hybrid", "text", "symbol", "semantic"], default="hybrid",
                    help="retrievers to use: all fused, ripgrep only, symbol index only, vectors only")  # fmt: skip
    sp.add_argument("--limit", type=int, default=10, help="maximum results (1-200)")
    sp.add_argument("--glob", action="append", help="include (or !exclude) glob; repeatable")
    sp.add_argument("--lang", help="only this language (e.g. python, go, typescript)")
    sp.add_argument("--scope", default="ws", help="ws | changed | dir:PATH | file:PATH")
    sp.add_argument("--regex", action="store_true", help="treat the query as a regular expression")
    sp.add_argument("--fusion", choices=["weighted", "rrf"], default="weighted",
                    help="query-aware weighted RRF or plain RRF")  # fmt: skip
    sp.add_argument("--max-tokens", type=int, default=2000,
                    help="token budget for all snippets together (about 4 characters a token)")  # fmt: skip
    sp.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                    help="colour the output; auto: on a terminal unless NO_COLOR is set")  # fmt: skip
    sp.add_argument("--explain", action="store_true",
                    help="show each result's rank per retriever and every ranking rule applied to it")  # fmt: skip
    sp.add_argument("--no-daemon", action="store_true", help="do not use a running plait server")
    out = sp.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the results as one JSON array")
    out.add_argument("--jsonl", action="store_true", help="print one JSON object per result per line")
    common(sp)
    sp.set_defaults(func=cmd_search)

    sp = parser(sub, "status", "index freshness, sizes, model, last build")
    sp.add_argument("--json", action="store_true", help="print the status as one JSON object")
    common(sp, positional_root=True)
    sp.set_defaults(func=cmd_status)

    sp = parser(sub, "serve", "run the MCP server (stdio, or streamable HTTP)")
    sp.add_argument("--root", action="append",
                    help="workspace root; repeatable (default: the repository around the current directory)")  # fmt: skip
    sp.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    sp.add_argument("--host", default="127.0.0.1", help="HTTP address to listen on")
    sp.add_argument("--port", type=int, default=8765, help="HTTP port (0: a free one, printed on stderr)")
    sp.add_argument("--token", help="bearer token for HTTP (env PLAIT_TOKEN); required off loopback")
    sp.add_argument("--read-only", action="store_true", help="offer and allow no tool that writes files")
    sp.add_argument("--watch", action="store_true", help="keep the indexes fresh as files change")
    sp.add_argument("--profile", choices=["full", "search"], default="full",
                    help="tool set: all tools, or search alone (search, grep, find_symbol, find_references, "
                    "outline, ast_query) for hosts that bring their own file tools")  # fmt: skip
    sp.add_argument(
        "--enable",
        action="append",
        help="offer only these tools or categories (search, files, edit, guard, index, info; "
        "tool:search is the search tool alone); repeatable or comma-separated",
    )
    sp.add_argument("--disable", action="append", help="do not offer these tools or categories")
    sp.add_argument("--no-preload", action="store_true", help="do not load the model at start")
    sp.add_argument("--no-auto-index", action="store_true",
                    help="do not build a missing or stale index in the background")  # fmt: skip
    common(sp)
    sp.set_defaults(func=cmd_serve)

    sp = parser(sub, "watch", "foreground reindex daemon")
    sp.add_argument("--no-vectors", action="store_true", help="keep the symbol index only")
    common(sp, positional_root=True)
    sp.set_defaults(func=cmd_watch)

    sp = parser(sub, "guard", "check the workspace's guard rules; exit 1 on violations")
    sp.add_argument("--target", default="ws", help="ws | changed | dir:PATH | file:PATH")
    sp.add_argument("--json", action="store_true", help="print the report as one JSON object")
    common(sp)
    sp.set_defaults(func=cmd_guard)
    return p


def version() -> str:
    """plait's installed version, read from its ``dist-info`` without ``importlib.metadata`` (whose
    import alone takes ~0.13 s, most of what ``plait --version`` would cost)."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith("plait-") and name.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry, name, "METADATA"), encoding="utf-8") as fh:
                        for line in fh:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                            if not line.strip():
                                break
                except OSError:
                    continue
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("plait")
    except PackageNotFoundError:
        return "0+unknown"


def main(argv: Sequence[str] | None = None) -> int:
    # Opt in to LanceDB's future default now; otherwise every vector-index check prints a warning.
    os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        print(f"plait {version()}")
        return 0
    if args.command is None:
        parser.print_usage(sys.stderr)
        print(
            "plait: error: a command is required (index, search, status, serve, watch, guard)",
            file=sys.stderr,
        )
        return 2
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="plait: %(message)s",
        stream=sys.stderr,
    )
    from models import PlaitError

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
        # The reader went away (| head): quiet, like rg; stdout's buffer must not complain at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())

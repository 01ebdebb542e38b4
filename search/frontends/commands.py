"""The commands of ``plait``: each a function of the parsed arguments returning the exit code
(see :mod:`search.frontends.cli` for the conventions). Each imports what it needs when it runs."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

LOG_FORMAT = "plait: %(message)s"


def setup_logging(verbose: bool) -> None:
    """Log to stderr as ``plait: MESSAGE``, INFO and up with ``--verbose``, else WARNING and up.
    Called by each command before its work (not by a search that a running server answers)."""
    import logging

    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format=LOG_FORMAT, stream=sys.stderr
    )


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
    if report.files == 0 and report.skipped.get("skipped_ignored"):
        # A tree whose ignore files exclude everything (Debian's source packages ship a .gitignore
        # with "/*") would otherwise look indexed and answer nothing.
        print(
            f"plait: warning: no file of {settings.root} is indexed: its ignore files exclude every entry "
            f"({report.skipped['skipped_ignored']:,} ignored). plait honours .gitignore, .ignore and "
            ".rgignore whether or not the tree is a git repository (as `rg --no-require-git` does); "
            "add a negating rule to .ignore (`!*`), or narrow the rule that matches everything.",
            file=sys.stderr,
        )
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
    full = report.tiers.get("full")
    if "fast" in report.tiers and (full is None or full["vectors"] < report.chunks_total):
        print(
            "searches rank with the fast tier's static vectors; the transformer's (the full tier) fill in "
            "behind them under `plait watch` or `plait serve`, or now with `plait index --tier full`"
        )
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
    from indexer import saved_status

    settings = _settings(_root_arg(args), args)
    # The record the last build saved answers without LanceDB or pyarrow (a third of a second).
    status = saved_status(settings)
    if status is None:
        from indexer import Index

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
    if status.rerank_line():
        print(f"re-rank:   {status.rerank_line()}")
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
    """A running server answers (:mod:`search.frontends.remote`) when there is one for this root and
    index; otherwise the search runs here. Both print what :func:`~search.frontends.render.present_search`
    makes of the response."""
    output = "json" if args.json else "jsonl" if args.jsonl else "plain"
    if output == "plain" and use_color(args.color, sys.stdout):
        output = "color"
    root_arg = _root_arg(args)
    resolved: list[Any] = []  # the full settings, when the warm path needed them to find the index
    if not args.no_daemon:
        from search.frontends.remote import ask_server

        def locate() -> tuple[Path, str]:
            resolved.append(_settings(root_arg, args))
            return resolved[0].root, resolved[0].index_dir

        answer, how = ask_server(args, root_arg, output, locate=locate)
        if how and args.verbose:
            # The warm path leaves logging unconfigured (importing it costs ~10 ms); same format.
            print(LOG_FORMAT % {"message": how}, file=sys.stderr, flush=True)
        if answer is not None:
            if "error" in answer:
                from models import PlaitError

                raise PlaitError(str(answer["error"]))
            if answer.get("stdout") is not None:
                return _emit(str(answer["stdout"]), list(answer["stderr"]), int(answer["code"]))
            from search.frontends.render import from_wire

            return _emit_output(from_wire(answer))
    setup_logging(args.verbose)
    from search.engine.engine import Engine, parse_scope
    from search.frontends.render import present_search
    from search.types import Query

    settings = resolved[0] if resolved else _settings(root_arg, args)
    query = Query(args.query, mode=args.mode, limit=args.limit, regex=args.regex, explain=args.explain)
    scope = parse_scope(args.scope, args.glob or (), args.lang)
    engine = Engine(settings)
    try:
        response = engine.search(query, scope, fusion=args.fusion)
    finally:
        engine.close()
    return _emit_output(
        present_search(response, str(settings.root), query, max_tokens=args.max_tokens, output=output)
    )


def _emit(stdout: str, stderr: list[str], code: int) -> int:
    sys.stdout.write(stdout)
    sys.stdout.flush()
    for line in stderr:
        print(line, file=sys.stderr)
    return code


def _emit_output(out: Any) -> int:
    """Print a :class:`~search.frontends.render.SearchOutput` (rendering coloured results here)."""
    if out.stdout is None:
        from search.frontends.render import render_results

        render_results(out.results, color=True)
        return _emit("", out.stderr, out.code)
    return _emit(out.stdout, out.stderr, out.code)


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
    from models import embed_in_background
    from search.engine.engine import Engine
    from search.frontends.endpoint import remove_endpoints, start_endpoint

    settings = _settings(_root_arg(args), args)
    embed_in_background()  # the daemon's builds run behind searches, its own and other processes' (models.priority)
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

"""``python -m benchmarks quality|latency|tokens|index|plot|embed|freshness|ann|object-storage|cross-repo|fleet|large-tree|peer-replay|quality-replay|peer-tokens|static-train|cold-index|encoder-throughput``: the benchmark CLI.

Every sub-command prints a readable table (``--markdown`` for GitHub markdown) or, with ``--json``,
one JSON object. Exit codes follow plait's: 0 success, 2 usage or input error (one line on stderr).
The user's repository is only read: each run works on a copy in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.progress import phase, progress_to_stderr
from models import PlaitError

if TYPE_CHECKING:
    from benchmarks.evalset import Corpus, EvalSet
    from benchmarks.workspace import Prepared

MODES = ("text", "symbol", "semantic", "hybrid")
BASELINES = ("ripgrep", "bm25")
# Sub-commands that live in their own modules, with their own options.
DELEGATED = {
    "embed": "benchmarks.embedders",
    "freshness": "benchmarks.freshness",
    "ann": "benchmarks.ann",
    "object-storage": "benchmarks.object_storage",
    "cross-repo": "benchmarks.cross_repo",
    "fleet": "benchmarks.fleet_index",
    "large-tree": "benchmarks.large_tree",
    "static-train": "benchmarks.static_train",
    "cold-index": "benchmarks.cold_index",
    "encoder-throughput": "benchmarks.encoder_throughput",
}


def _names(value: str, allowed: Sequence[str], what: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip() and v.strip() != "none"]
    bad = [n for n in names if n not in allowed]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(bad)}; choose from {', '.join(allowed)}")
    return names


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description="Benchmarks for plait.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
        sp.add_argument("--root", type=Path, default=Path("."), help="repository to benchmark (only read)")
        sp.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
        sp.add_argument("--markdown", action="store_true", help="print tables as GitHub markdown")
        sp.add_argument("--model", help="embedding model (default: PLAIT_MODEL, plait.toml, then plait's)")
        sp.add_argument("--workdir", type=Path, help="keep the copy and index here instead of a temp dir")
        sp.add_argument("--keep", action="store_true", help="do not delete the temporary work directory")

    def queries(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
        sp.add_argument("--size", type=int, default=100, help="queries per family at most (default 100)")
        sp.add_argument(
            "--min-words", type=int, default=4, help="words a doc's first sentence needs (default 4)"
        )
        sp.add_argument("--queries", type=Path, help="load the query set from this JSON file")
        sp.add_argument("--save-queries", type=Path, help="save the query set to this JSON file")
        sp.add_argument("--modes", type=lambda v: _names(v, MODES, "mode"), default=list(MODES),
                        help="plait modes, comma-separated (default: all)")  # fmt: skip
        sp.add_argument("--baselines", type=lambda v: _names(v, BASELINES, "baseline"),
                        default=list(BASELINES), help="ripgrep,bm25 or none (default: both)")  # fmt: skip
        sp.add_argument("--plot", type=Path, help="also draw the results into this PNG")

    sp = sub.add_parser("quality", help="retrieval quality per query family and system")
    common(sp)
    queries(sp)
    sp.add_argument("--no-rrf", action="store_true", help="skip hybrid with plain RRF (measured by default)")
    sp.set_defaults(func=cmd_quality)

    sp = sub.add_parser("latency", help="warm query latency (library, MCP stdio) and CLI cold start")
    common(sp)
    queries(sp)
    sp.add_argument("--max-queries", type=int, default=60, help="queries timed per system (seeded sample)")
    sp.add_argument("--repeats", type=int, default=3, help="CLI cold starts per mode (default 3)")
    sp.add_argument(
        "--passes", type=int, default=1, help="passes over the queries, in process and over MCP (default 1)"
    )
    sp.add_argument("--no-mcp", action="store_true", help="skip the MCP server over stdio")
    sp.add_argument("--no-cli", action="store_true", help="skip the CLI cold start")
    sp.set_defaults(func=cmd_latency)

    sp = sub.add_parser("tokens", help="tokens an agent reads per query before the first relevant result")
    common(sp)
    sp.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    sp.add_argument("--size", type=int, default=100, help="queries per family at most (default 100)")
    sp.add_argument("--min-words", type=int, default=4, help="words a doc's first sentence needs (default 4)")
    sp.add_argument("--queries", type=Path, help="load the query set from this JSON file")
    sp.add_argument("--save-queries", type=Path, help="save the query set to this JSON file")
    sp.add_argument("--max-tokens", type=int, help="snippet budget per search (default: the search tool's)")
    sp.add_argument("--budget", type=int, default=2000, help="report the share found within this many tokens")
    sp.set_defaults(func=cmd_tokens)

    sp = sub.add_parser("index", help="build cost: full, no-change and one-file-edit builds, peak RSS")
    common(sp)
    sp.add_argument("--raw-sample", type=int, default=512, help="chunks for the model's raw throughput")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--freshness-edits", type=int, default=3, help="saves timed with the daemon (0: skip)")
    sp.add_argument(
        "--tier", choices=["fast", "full"], default="full", help="vectors built (plait index --tier)"
    )
    sp.set_defaults(func=cmd_index)

    sp = sub.add_parser("plot", help="draw saved --json results of quality and/or latency into a PNG")
    sp.add_argument("--quality", type=Path, help="JSON written by `quality --json`")
    sp.add_argument("--latency", type=Path, help="JSON written by `latency --json`")
    sp.add_argument("-o", "--out", type=Path, required=True, help="PNG to write")
    sp.set_defaults(func=cmd_plot)

    sp = sub.add_parser(
        "peer-replay", help="the peer suite's NDCG@10 by replaying plait's ranking (see module)"
    )
    sp.add_argument(
        "--suite", type=Path, default=Path("../shared/peer-bench"), help="the peer suite's folder"
    )
    sp.add_argument("--half", choices=["tuning", "report", "all"], default="tuning", help="default: tuning")
    sp.add_argument("--variants", default="hybrid,lexical", help="hybrid, lexical (no vectors), semantic")
    sp.add_argument("--repo", action="append", help="only this repository (repeatable)")
    sp.add_argument(
        "--recordings",
        type=Path,
        help="keep each repository's retriever rankings in this folder and replay them from there on "
        "later runs (delete a file to record it again; default: record afresh, keep nothing)",
    )
    sp.add_argument(
        "--index-dirs",
        type=Path,
        help="read repository NAME's index from DIR/NAME (as `cold-index --suite --keep DIR` leaves "
        "them; default: each corpus's own index, `plait index ROOT`)",
    )
    _add_again(sp)
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.set_defaults(func=cmd_peer_replay)

    sp = sub.add_parser(
        "quality-replay",
        help="a kept quality run's queries scored again by replaying plait's ranking (see module)",
    )
    sp.add_argument("--workdir", type=Path, required=True, help="a quality run's --workdir, kept with --keep")
    sp.add_argument("--queries", type=Path, required=True, help="its query set (--save-queries)")
    sp.add_argument(
        "--family",
        action="append",
        choices=("docstring", "symbol", "literal", "phrase", "member"),
        help="only this family (repeatable; default: all)",
    )
    sp.add_argument(
        "--recordings",
        type=Path,
        help="keep the retrievers' rankings in this file and replay them from there on later runs "
        "(delete it to record again; default: record afresh, keep nothing)",
    )
    sp.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a [ranking] setting for the replay, as plait.toml writes it (repeatable): --set name_words=0.3",
    )
    _add_again(sp)
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.set_defaults(func=cmd_quality_replay)

    sp = sub.add_parser(
        "peer-tokens",
        help="tokens to the first relevant result on the peer suite's queries (semble's metric)",
    )
    sp.add_argument(
        "--suite", type=Path, default=Path("../shared/peer-bench"), help="the peer suite's folder"
    )
    sp.add_argument("--half", choices=["tuning", "report", "all"], default="tuning", help="default: tuning")
    sp.add_argument("--repo", action="append", help="only this repository (repeatable)")
    sp.add_argument("--limit", type=int, default=10, help="results per search (default 10, the tool's)")
    sp.add_argument("--max-tokens", type=int, help="snippet budget per search (default: the search tool's)")
    sp.add_argument(
        "--more", type=int, help="results after --limit listed by location only (default: the search tool's)"
    )
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.add_argument("--markdown", action="store_true", help="print tables as GitHub markdown")
    sp.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    sp.set_defaults(func=cmd_peer_tokens)

    sub.add_parser("embed", help="compare embedding models (see `python -m benchmarks embed --help`)",
                   add_help=False)  # fmt: skip
    sub.add_parser("freshness", help="reindex daemon freshness (see `python -m benchmarks freshness --help`)",
                   add_help=False)  # fmt: skip
    sub.add_parser("ann", help="ANN index vs exact search (see `python -m benchmarks ann --help`)",
                   add_help=False)  # fmt: skip
    sub.add_parser("static-train", add_help=False,
                   help="fit the fast tier's static table on the peer suite's tuning half (see --help)")  # fmt: skip
    sub.add_parser("large-tree", add_help=False,
                   help="a very large index: cold BM25, ANN recall, cold and warm searches (see --help)")  # fmt: skip
    sub.add_parser("cold-index", add_help=False,
                   help="a new workspace from cold processes: plait index, then plait status fresh (see --help)")  # fmt: skip
    sub.add_parser("encoder-throughput", add_help=False,
                   help="the transformer tier's chunks/s against another checkout (see --help)")  # fmt: skip
    return p


def cmd_peer_replay(args: argparse.Namespace) -> int:
    from benchmarks.peer_replay import run

    data = run(
        args.suite.resolve(), args.half, args.variants.split(","), args.repo, args.recordings,
        index_dirs=args.index_dirs.resolve() if args.index_dirs else None, again=args.again,
    )  # fmt: skip
    lines = [
        f"{v}: {d['ndcg10_mean_of_repos']:.4f} over {d['repos']} repos; "
        + ", ".join(f"{c} {x:.3f}" for c, x in d["by_category"].items())
        for v, d in data.items()
    ]
    _emit(args, data, "\n".join(lines))
    return 0


def _add_again(sp: argparse.ArgumentParser) -> None:
    """A replay's ``--again``: retrievers asked again over its recordings."""
    sp.add_argument(
        "--again",
        action="append",
        default=[],
        choices=("text", "symbol", "vector"),
        help="ask this retriever again over the recordings, the others as recorded (repeatable; the "
        "recordings are kept as they are)",
    )


def _ranking_settings(items: Sequence[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` read as ``plait.toml`` reads its ``[ranking]`` table (the engine validates
    the keys and values)."""
    import tomllib

    settings: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        try:
            if not sep:
                raise ValueError(item)
            settings.update(tomllib.loads(f"{key.strip()} = {value.strip()}"))
        except ValueError:  # tomllib's decode error is one
            raise PlaitError(
                f"--set {item!r}: write KEY=VALUE as plait.toml would, e.g. --set name_words=0.3"
            ) from None
    return settings


def cmd_quality_replay(args: argparse.Namespace) -> int:
    from benchmarks.quality_replay import run

    settings = _ranking_settings(args.settings)
    try:
        data = run(
            args.workdir, args.queries, families=args.family, recordings=args.recordings, settings=settings,
            again=args.again,
        )  # fmt: skip
    except FileNotFoundError as exc:
        raise PlaitError(str(exc)) from exc
    lines = [
        f"{f}: MRR@10 {s['mrr@10']:.4f}, R@1 {s['recall@1']:.3f}, R@10 {s['recall@10']:.3f} over {s['n']} queries"
        for f, s in data["families"].items()
    ]
    _emit(args, data, "\n".join(lines))
    return 0


def cmd_peer_tokens(args: argparse.Namespace) -> int:
    from benchmarks import peer_tokens

    rep = peer_tokens.run(
        args.suite.resolve(),
        args.half,
        repos=args.repo,
        limit=args.limit,
        max_tokens=args.max_tokens,
        more=args.more,
    )
    _emit(args, rep.as_dict(), peer_tokens.render(rep, markdown=args.markdown))
    return 0


def _emit(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    print(json.dumps(data, indent=1) if args.json else text)


def _check_root(root: Path) -> Path:
    if not root.is_dir():
        raise PlaitError(f"{root} is not a directory; pass the repository to benchmark with --root.")
    return root.resolve()


def _scan_and_queries(args: argparse.Namespace, root: Path, work: Path) -> tuple[Corpus, EvalSet]:
    """The repository's indexable files and the query set (built, or loaded with ``--queries``)."""
    from benchmarks import workspace

    phase(f"scanning {root}")
    corpus = workspace.scan_original(root, work, os.environ)
    phase(f"{len(corpus.files):,} files; building the query set")
    es = workspace.query_set(corpus, seed=args.seed, size=args.size, min_words=args.min_words,
                             load=args.queries, save=args.save_queries)  # fmt: skip
    return corpus, es


def _blanked_copy(args: argparse.Namespace, root: Path, work: Path) -> tuple[EvalSet, Prepared]:
    """The query set and an indexed copy of the repository with its documentation blanked (the
    setting of ``quality`` and ``tokens``)."""
    from benchmarks import workspace

    corpus, es = _scan_and_queries(args, root, work)
    if not es.queries:
        raise PlaitError(f"no queries could be built from {root}; does it hold documented functions?")
    phase("indexing a copy with the documentation blanked")
    return es, workspace.prepare_copy(corpus, work, os.environ, model=args.model)


def cmd_quality(args: argparse.Namespace) -> int:
    from benchmarks import quality, workspace

    root = _check_root(args.root)
    with workspace.workdir(args.workdir, keep=args.keep) as work:
        es, prepared = _blanked_copy(args, root, work)
        rep = quality.run(prepared, es, modes=args.modes, baselines=args.baselines, rrf=not args.no_rrf)
    rep.setup = {"root": str(root), **rep.setup}
    data = rep.as_dict()
    if args.plot:
        from benchmarks import plot

        plot.draw(args.plot, quality=data)
    _emit(args, data, quality.render(rep, markdown=args.markdown))
    return 0


def cmd_latency(args: argparse.Namespace) -> int:
    from benchmarks import latency, workspace
    from benchmarks.systems import make_systems
    from search import Engine

    root = _check_root(args.root)
    if args.passes < 1:
        raise PlaitError(f"--passes must be at least 1, got {args.passes}.")
    with workspace.workdir(args.workdir, keep=args.keep) as work:
        corpus, es = _scan_and_queries(args, root, work)
        texts = [q.text for q in es.queries]
        if len(texts) > args.max_queries:
            picked = sorted(random.Random(args.seed).sample(range(len(texts)), args.max_queries))
            texts = [texts[i] for i in picked]
        if not texts:
            raise PlaitError(f"no queries could be built from {root}; does it hold documented functions?")
        # Speed is measured on the files as they are (no blanked docs), so an index of the same
        # repository built before (same work dir) supplies every vector from its embedding cache.
        phase("indexing a copy")
        prepared = workspace.prepare_copy(corpus, work, os.environ, model=args.model, blanked=False)
        engine = Engine(prepared.settings)
        try:
            engine.warm()
            systems = make_systems(engine, modes=args.modes, baselines=args.baselines, rrf=False)
            rows = latency.time_systems(systems, texts, passes=args.passes)
        finally:
            engine.close()
        flags = latency.common_flags(prepared.settings.index_dir, prepared.settings.model.name)
        rep = latency.LatencyReport(rows, {"root": str(root), "queries": len(texts),
                                           "model": prepared.settings.model.name})  # fmt: skip
        if args.no_mcp:
            rep.skipped["mcp-stdio"] = "--no-mcp"
        else:
            phase("starting `plait serve` for the MCP timings")
            rep.rows += latency.time_mcp(prepared.root, flags, dict(os.environ), texts, args.modes,
                                         log_path=work / "serve.log", passes=args.passes,
                                         cli_repeats=0 if args.no_cli else max(args.repeats, 5))  # fmt: skip
        if args.no_cli:
            rep.skipped["cli-cold"] = "--no-cli"
        else:
            rep.rows += latency.time_cli_start(prepared.root, repeats=max(args.repeats, 5))
            rep.rows += latency.time_cli_cold(prepared.root, flags, texts, args.modes, repeats=args.repeats)
    data = rep.as_dict()
    if args.plot:
        from benchmarks import plot

        plot.draw(args.plot, latency=data)
    _emit(args, data, latency.render(rep, markdown=args.markdown))
    return 0


def cmd_tokens(args: argparse.Namespace) -> int:
    from benchmarks import tokens, workspace

    root = _check_root(args.root)
    with workspace.workdir(args.workdir, keep=args.keep) as work:
        es, prepared = _blanked_copy(args, root, work)
        rep = tokens.run(prepared, es, max_tokens=args.max_tokens, budget=args.budget)
    rep.setup = {"root": str(root), **rep.setup}
    _emit(args, rep.as_dict(), tokens.render(rep, markdown=args.markdown))
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    from benchmarks import index_cost, workspace

    root = _check_root(args.root)
    with workspace.workdir(args.workdir, keep=args.keep) as work:
        phase(f"scanning {root}")
        corpus = workspace.scan_original(root, work, os.environ)
        phase(f"{len(corpus.files):,} files; building the query set")
        if not corpus.files:
            raise PlaitError(f"{root} has no indexable files; pass a repository with source files.")
        cost = index_cost.measure(corpus, work, os.environ, model=args.model, raw_sample=args.raw_sample,
                                  seed=args.seed, freshness_edits=args.freshness_edits, tier=args.tier)  # fmt: skip
    cost.setup = {"root": str(root), **cost.setup}
    _emit(args, cost.as_dict(), index_cost.render(cost, markdown=args.markdown))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from benchmarks import plot

    def read(path: Path | None) -> dict[str, Any] | None:
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise PlaitError(f"cannot read {path} ({exc}); pass a file written with --json.") from exc
        if not isinstance(data, dict):
            raise PlaitError(f"{path} is not a benchmark report; pass a file written with --json.")
        return data

    q, lat = read(args.quality), read(args.latency)
    if q is None and lat is None:
        raise PlaitError("nothing to plot; pass --quality and/or --latency.")
    try:
        plot.draw(args.out, quality=q, latency=lat)
    except KeyError as exc:
        raise PlaitError(
            f"a report lacks {exc}; pass files written by `quality --json` / `latency --json`."
        ) from exc
    print(args.out)
    return 0


def _delegate(command: str, rest: list[str]) -> int:
    """Hand ``command`` to its own module's ``main`` (imported only when asked for)."""
    import importlib

    module = DELEGATED[command]
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        print(f"benchmarks: the {command} benchmark ({module}) is not installed", file=sys.stderr)
        return 2
    return int(found.main(rest) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in DELEGATED:
        progress_to_stderr(quiet=False)
        return _delegate(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    progress_to_stderr(quiet=getattr(args, "quiet", False))
    try:
        code: int = args.func(args)
        return code
    except PlaitError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("benchmarks: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

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
import gc
import os
import sys
from collections.abc import Sequence
from typing import Any

from search.frontends import commands


# -- the parser ----------------------------------------------------------------------------------
def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` without importing shutil (and with it bz2, lzma and
    zlib): argparse makes a help formatter for every option it adds, and each asks for the width."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    """Shows each option's default after its help, unless the default is nothing (None, False)."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        super().__init__(
            prog, indent_increment, max_help_position, terminal_columns() if width is None else width
        )

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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with ``only`` a parser whose sub-command ``only`` alone has its
    options (the others are listed, as ``plait --help`` shows them, but empty): parsing a command line
    of that command gives the same result, and a search saves the ~5 ms of making the rest."""

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
    # prog given: argparse would otherwise make a help formatter to work it out (importing shutil).
    sub = p.add_subparsers(dest="command", metavar="COMMAND", prog="plait")

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
    if only in (None, "index"):  # the other commands' options are not needed to parse
        sp.add_argument(
            "--full", action="store_true", help="rebuild from scratch (the embedding cache is kept)"
        )
        sp.add_argument("--no-vectors", action="store_true", help="build the symbol index only")
        sp.add_argument("--tier", choices=["auto", "fast", "full"], default="auto",
                        help="fast: static vectors, in seconds (plait watch and plait serve add the transformer's "
                        "behind them); full: the transformer's now; auto: full for an index whose full "
                        "tier is complete, else fast")  # fmt: skip
        sp.add_argument("--wait", type=float, default=0.0, help="seconds to wait for another writer")
        sp.add_argument("--json", action="store_true", help="print the build report as one JSON object")
        sp.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
        sp.add_argument("--cluster", metavar="auto|ray://HOST:PORT",
                        help="index the ROOTs as Ray tasks (needs plait[cluster]); auto: this machine's cluster "
                        "or a local Ray. With --index-dir BASE, repository NAME goes to BASE/NAME")  # fmt: skip
        common(sp, positional_root=True)
        sp.add_argument("more_roots", nargs="*", metavar="ROOT",
                        help="more repositories: several roots are indexed one by one, or on Ray with --cluster")  # fmt: skip
        sp.set_defaults(func=commands.cmd_index)

    sp = parser(sub, "search", "search the workspace; exit 0 when something is found, 1 when nothing")
    if only in (None, "search"):  # the other commands' options are not needed to parse
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
        sp.set_defaults(func=commands.cmd_search)

    sp = parser(sub, "status", "index freshness, sizes, model, last build")
    if only in (None, "status"):  # the other commands' options are not needed to parse
        sp.add_argument("--json", action="store_true", help="print the status as one JSON object")
        common(sp, positional_root=True)
        sp.set_defaults(func=commands.cmd_status)

    sp = parser(sub, "serve", "run the MCP server (stdio, or streamable HTTP)")
    if only in (None, "serve"):  # the other commands' options are not needed to parse
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
        sp.set_defaults(func=commands.cmd_serve)

    sp = parser(sub, "watch", "foreground reindex daemon")
    if only in (None, "watch"):  # the other commands' options are not needed to parse
        sp.add_argument("--no-vectors", action="store_true", help="keep the symbol index only")
        common(sp, positional_root=True)
        sp.set_defaults(func=commands.cmd_watch)

    sp = parser(sub, "guard", "check the workspace's guard rules; exit 1 on violations")
    if only in (None, "guard"):  # the other commands' options are not needed to parse
        sp.add_argument("--target", default="ws", help="ws | changed | dir:PATH | file:PATH")
        sp.add_argument("--json", action="store_true", help="print the report as one JSON object")
        common(sp)
        sp.set_defaults(func=commands.cmd_guard)
    return p


COMMANDS = ("index", "search", "status", "serve", "watch", "guard")


def _command(argv: Sequence[str]) -> str | None:
    """Whose options :func:`build_parser` needs for ``argv``: its first word that is not an option
    (plait's own options take no value) if that names a command; "" (none) when there is no such word
    (``--version``, ``--help``) or it names no command (argparse then says so); ``None`` (all) after a
    ``--``."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else ""
    return ""


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
    parser = build_parser(only=_command(sys.argv[1:] if argv is None else argv))
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
    if args.command != "search":  # a search sets logging up when it runs here, not through a server
        commands.setup_logging(args.verbose)
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


def run() -> None:
    """The ``plait`` program: :func:`main`, then exit with its status."""
    code = main()
    # At exit the interpreter collects garbage over every object the imports made (LanceDB's and
    # pydantic's among them): 0.1-0.3 s here that free nothing the ending process needs. Frozen
    # objects are left out of those collections; atexit handlers, finalizers and flushes run as before.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()

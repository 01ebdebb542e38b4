"""Language detection by file name, extension (a ``.h`` by its first bytes too) and shebang.

Language names are those of tree-sitter-language-pack. ``SYMBOL_LANGUAGES`` have tags queries;
other detected languages (markdown, yaml, ...) are indexed as plain line windows.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

SYMBOL_LANGUAGES: frozenset[str] = frozenset(
    {
        "python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
        "csharp", "ruby", "php", "kotlin", "swift", "scala", "bash", "haskell", "lua",
    }
)  # fmt: skip

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby",
    ".php": "php", ".kt": "kotlin", ".kts": "kotlin", ".swift": "swift",
    ".scala": "scala", ".sc": "scala",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".bats": "bash",
    ".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".txt": "text",
    ".toml": "toml", ".yaml": "yaml", ".yml": "yaml", ".json": "json",
    ".html": "html", ".css": "css", ".scss": "scss", ".sql": "sql",
    ".lua": "lua", ".rockspec": "lua", ".hs": "haskell", ".hs-boot": "haskell", ".ex": "elixir", ".exs": "elixir", ".zig": "zig",
    ".dart": "dart", ".r": "r", ".pl": "perl", ".pm": "perl", ".vue": "vue",
    ".proto": "proto", ".tf": "hcl", ".cmake": "cmake", ".el": "elisp",
    ".m": "objc", ".mm": "objc", ".clj": "clojure", ".erl": "erlang", ".ml": "ocaml",
}  # fmt: skip

FILENAMES: dict[str, str] = {
    "Makefile": "make", "makefile": "make", "GNUmakefile": "make", "Dockerfile": "dockerfile",
    "CMakeLists.txt": "cmake", "Rakefile": "ruby", "Gemfile": "ruby", "Vagrantfile": "ruby",
    "BUILD": "starlark", "BUILD.bazel": "starlark", "WORKSPACE": "starlark",
    ".bashrc": "bash", ".bash_profile": "bash", ".zshrc": "bash", ".profile": "bash",
}  # fmt: skip

INTERPRETERS: dict[str, str] = {
    "python": "python", "python3": "python", "python2": "python",
    "node": "javascript", "nodejs": "javascript", "deno": "typescript", "bun": "javascript",
    "bash": "bash", "sh": "bash", "zsh": "bash", "dash": "bash", "ksh": "bash",
    "ruby": "ruby", "php": "php", "perl": "perl", "lua": "lua",
}  # fmt: skip


def language_from_shebang(head: bytes) -> str | None:
    """The language named by a ``#!`` line (``/usr/bin/env python3``, ``/bin/sh``), if any."""
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    parts = line.split()
    if not parts:
        return None
    prog = parts[0].rsplit("/", 1)[-1]
    if prog == "env":
        args = [p for p in parts[1:] if not p.startswith("-")]
        if not args:
            return None
        prog = args[0].rsplit("/", 1)[-1]
    prog = prog.rstrip("0123456789.") or prog
    return INTERPRETERS.get(prog) or INTERPRETERS.get(prog + "3")


# A ``.h`` header is C unless its first bytes show C++: a namespace, a template, a class with a body or
# a base, an access label, ``using namespace`` or a standard C++ header included (``<vector>``,
# ``<cstdint>``). abseil and fmt write every header so; of the Linux tree's 23,431 headers, 8 match
# (a Qt dialog's and the GCC plugins', which are C++).
_CPP_HEADER = re.compile(
    rb"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<"
    rb"|class[ \t]+\w+[^;\n]*(?:\{|:[ \t]*(?:public|private|protected)\b|$)"
    rb"|(?:public|private|protected)[ \t]*:|using[ \t]+namespace\b"
    rb"|#[ \t]*include[ \t]*<(?:string|vector|memory|map|set|unordered_map|unordered_set|iostream|ostream"
    rb"|istream|sstream|utility|type_traits|cstddef|cstdint|cstdlib|cstring|cstdio|cassert|cmath|climits"
    rb"|algorithm|functional|atomic|mutex|thread|tuple|array|optional|variant|limits|initializer_list"
    rb"|string_view|iterator|chrono|new|exception|stdexcept)>)",
    re.MULTILINE,
)


# Suffixes that more than one language writes: the file's first bytes decide (see detect_language).
SHARED_SUFFIXES: dict[str, tuple[str, ...]] = {".h": ("c", "cpp")}


def detect_language(path: str | PurePosixPath, head: bytes = b"") -> str | None:
    """Language of a file from its name, then extension (a ``.h`` whose ``head``, its first bytes,
    shows C++ is ``cpp``), then shebang; ``None`` if unknown."""
    name = path.rpartition("/")[2] if isinstance(path, str) else path.name
    if name in ("", ".", ".."):  # not a file's name: what pathlib makes of the path
        name = PurePosixPath(path).name
    if name in FILENAMES:
        return FILENAMES[name]
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""  # pathlib's suffix
    lang = EXTENSIONS.get(suffix)
    if lang == "c" and head and suffix == ".h" and _CPP_HEADER.search(head) is not None:
        return "cpp"
    if lang is not None:
        return lang
    return language_from_shebang(head) if head else None

"""The names of a function's opposite, as code writes them.

A doc sentence that calls its function the reverse, inverse or opposite of another ("Reverse of
:meth:`dumps`.", "Return the singular form of a word, the reverse of :func:`pluralize`.", "Inverse of
:func:`os.path.expanduser`.") documents the function that undoes that one, and code names the two as
a pair: ``dumps``/``loads``, ``pluralize``/``singularize``, ``expanduser``/``collapseuser``,
``to_json``/``from_json``, ``zip``/``unzip``. :func:`opposite_names` writes the names the opposite
may have; the symbol retriever looks them up and the ranking lifts a candidate that defines one.
"""

from __future__ import annotations

from indexer import normalise

# Words code pairs with their opposite in names, each way. A word may have several opposites
# (``load``: ``dump``, ``save``, ``store``); a name is swapped at its start or its end only.
_PAIRS = (
    ("load", "dump"), ("load", "save"), ("load", "store"), ("read", "write"), ("get", "set"),
    ("get", "put"), ("push", "pop"), ("open", "close"), ("start", "stop"), ("start", "end"),
    ("begin", "end"), ("enable", "disable"), ("show", "hide"), ("add", "remove"), ("add", "delete"),
    ("insert", "remove"), ("insert", "delete"), ("append", "pop"), ("expand", "collapse"),
    ("expand", "shrink"), ("expand", "contract"), ("indent", "dedent"), ("plural", "singular"),
    ("upper", "lower"), ("min", "max"), ("first", "last"), ("head", "tail"), ("prev", "next"),
    ("previous", "next"), ("before", "after"), ("left", "right"), ("forward", "backward"),
    ("increment", "decrement"), ("inc", "dec"), ("to", "from"), ("import", "export"),
    ("encode", "decode"), ("encrypt", "decrypt"), ("compress", "decompress"), ("attach", "detach"),
    ("acquire", "release"), ("alloc", "free"), ("join", "split"), ("parse", "format"),
    ("parse", "stringify"), ("serialize", "deserialize"), ("freeze", "thaw"), ("escape", "unescape"),
    ("quote", "unquote"), ("lock", "unlock"), ("wrap", "unwrap"), ("pack", "unpack"),
    ("marshal", "unmarshal"), ("register", "unregister"), ("subscribe", "unsubscribe"),
    ("connect", "disconnect"), ("mount", "unmount"), ("install", "uninstall"),
    ("key", "value"), ("keys", "values"), ("send", "receive"), ("upload", "download"),
    ("input", "output"), ("ascending", "descending"), ("asc", "desc"), ("floor", "ceil"),
    ("horizontal", "vertical"), ("on", "off"), ("in", "out"), ("up", "down"), ("true", "false"),
)  # fmt: skip
_OPPOSITES: dict[str, tuple[str, ...]] = {}
for _a, _b in _PAIRS:
    _OPPOSITES[_a] = (*_OPPOSITES.get(_a, ()), _b)
    _OPPOSITES[_b] = (*_OPPOSITES.get(_b, ()), _a)
# A prefix that undoes what the rest of the name does (``unzip`` of ``zip``, ``deserialize`` of
# ``serialize``, ``disconnect`` of ``connect``); only ``un`` is added to a name that has none.
_UNDOING = ("un", "de", "dis")
_SHORTEST = 3  # letters a name keeps where a word at its end or an undoing prefix is taken from it


def opposite_names(name: str) -> tuple[str, ...]:
    """The names, folded as the symbol index folds them (:func:`indexer.normalise`), that the
    opposite of ``name`` may have: a paired word at its start or its end swapped for its opposite
    (``dumps`` → ``loads``, ``saves``, ``stores``; ``pluralize`` → ``singularize``; ``to_json`` →
    ``fromjson``), an undoing prefix taken away or ``un`` added (``unparse`` → ``parse``; ``zip`` →
    ``unzip``). ``name`` is a bare name (no owner or module)."""
    squashed = normalise(name)
    out: list[str] = []
    for word, opposites in _OPPOSITES.items():
        if squashed.startswith(word):
            out += [o + squashed[len(word) :] for o in opposites]
        if squashed.endswith(word) and len(squashed) - len(word) >= _SHORTEST:
            out += [squashed[: -len(word)] + o for o in opposites]
    out += [
        squashed[len(p) :] for p in _UNDOING if squashed.startswith(p) and len(squashed) - len(p) >= _SHORTEST
    ]
    out.append("un" + squashed)
    return tuple(n for n in dict.fromkeys(out) if n != squashed)

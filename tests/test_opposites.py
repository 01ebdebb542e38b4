"""A doc sentence that calls its function the reverse, inverse or opposite of another ("Reverse of
:meth:`dumps`.") documents the function that undoes that one: code names the pair (``dumps`` and
``loads``), so the names the opposite may have are looked up and lifted, and every definition of the
name compared with is demoted, since the function documented never shares it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from search.engine.fusion import Fused
from search.engine.opposites import opposite_names
from search.engine.query import analyse
from search.engine.ranking import RankingConfig, rank
from search.types import Hit, Span

# every rule off but the two these tests name
OFF = RankingConfig(
    coherence=0, definition=0, path=0, saturation=1.0, keep_text_top=False, phrase_rule=False,
    undefined_penalty=1.0, keep_test_top=0, tests_found=0, name_words=0, relative_penalty=1.0,
)  # fmt: skip


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dumps", {"loads"}),  # a paired word at the start, the rest kept
        ("pluralize", {"singularize"}),
        ("expanduser", {"shrinkuser", "collapseuser"}),  # os.path.expanduser
        ("to_json", {"fromjson"}),  # folded as the symbol index folds names
        ("zip", {"unzip"}),  # an undoing prefix added
        ("unparse", {"parse"}),  # … or taken away
        ("deserialize", {"serialize"}),
        ("dedent", {"indent"}),
        ("wrap_object", {"unwrapobject"}),
        ("getUserName", {"setusername", "putusername"}),
        ("file_read", {"filewrite"}),  # a paired word at the end
        ("map_values", {"mapkeys"}),  # pydash's "The opposite of :func:`map_values`" is ``map_keys``
        ("sort_ascending", {"sortdescending"}),
        ("upload", {"download"}),
        ("on", {"off"}),  # an emitter's listener added and removed
    ],
)
def test_the_names_an_opposite_may_have(name: str, expected: set[str]) -> None:
    names = opposite_names(name)
    assert expected <= set(names)
    assert name.lower().replace("_", "") not in names  # never the name itself


def test_a_word_at_the_end_is_swapped_where_three_letters_stay_before_it() -> None:
    assert "fileremove" in opposite_names("file_add")
    assert "reremove" not in opposite_names("readd")  # ``re`` is too little to be a name's first word


@pytest.mark.parametrize(
    ("text", "opposed", "opposites"),
    [
        ("Reverse of :meth:`dumps`.", ("dumps",), ("loads",)),
        ("Return the singular form of a word, the reverse of :func:`pluralize`.", ("pluralize",),
         ("singularize",)),
        ("Inverse of :func:`os.path.expanduser`.", ("os.path.expanduser",), ("shrinkuser",)),
        ("The inverse of :func:`zip`, this function disaggregates the elements.", ("zip",), ("unzip",)),
        ("Emit an XML document for the given `input_dict` (reverse of `parse`).", ("parse",), ("unparse",)),
        ("Like :meth:`loads` but without verifying the signature.", (), ()),  # likeness, not opposition
        ("Shortcut for :meth:`route` with methods GET.", (), ()),  # a stand-in
        ("Reverse the list in place.", (), ()),  # a verb, nothing compared with
        ("what is the reverse of `dumps`", (), ()),  # a question, not a function's documentation
    ],
)  # fmt: skip
def test_a_function_sentence_names_what_it_is_the_opposite_of(
    text: str, opposed: tuple[str, ...], opposites: tuple[str, ...]
) -> None:
    analysed = analyse(text)
    assert analysed.opposed == opposed
    assert set(opposites) <= set(analysed.opposites)
    assert bool(analysed.opposites) == bool(opposites)


def _fused(path: str, line: int, score: float, symbol: str, symbol_rank: int | None = None) -> Fused:
    span = Span(path, line, line + 9)
    ranks = {"text": None, "symbol": symbol_rank, "vector": None}
    return Fused(span, score, ranks, Hit(span, 1.0, symbol, "method"))


DEFINED = {
    ("serializer.py", 311): ["Serializer.dumps", "Serializer.dump"],
    ("serializer.py", 330): ["Serializer.loads"],
    ("_json.py", 1): ["_CompactJSON.loads", "_CompactJSON.dumps"],
    ("signer.py", 227): ["Signer.verify_signature"],
}


def _within(path: str, start: int, end: int) -> list[str]:
    return DEFINED.get((path, start), [])


CANDIDATES = [
    _fused("serializer.py", 311, 0.05, "Serializer.dumps", symbol_rank=2),
    _fused("_json.py", 1, 0.045, "_CompactJSON.dumps", symbol_rank=1),
    _fused("signer.py", 227, 0.038, "Signer.verify_signature"),
    _fused("serializer.py", 330, 0.03, "Serializer.loads", symbol_rank=3),
]


def test_the_opposite_gains_and_every_definition_of_the_name_compared_with_is_demoted() -> None:
    """itsdangerous' "Reverse of :meth:`dumps`." documents ``Serializer.loads``. With name_words 0.2
    and the top score 0.05, ``loads`` gains 0.2 × 0.05 = 0.01, from 0.03 to 0.04; ``Serializer.dumps``
    is halved to 0.025 although two candidates define ``dumps`` (a likeness would keep both); the chunk
    that writes ``dumps`` beside ``loads`` keeps its 0.045 and gains nothing."""
    query = analyse("Reverse of :meth:`dumps`.")
    config = replace(OFF, name_words=0.2, relative_penalty=0.5)
    ranked = rank(CANDIDATES, query, config, functions_within=_within)
    assert [(r.fused.span.path, r.fused.span.start_line) for r in ranked] == [
        ("_json.py", 1), ("serializer.py", 330), ("signer.py", 227), ("serializer.py", 311),
    ]  # fmt: skip
    scores = {r.fused.span.start_line: r for r in ranked}
    assert scores[330].score == pytest.approx(0.04)
    assert scores[330].steps == [("the opposite (loads)", "+0.0100")]
    assert scores[311].score == pytest.approx(0.025)
    assert scores[311].steps == [("a relative (dumps)", "×0.5")]
    assert scores[1].score == pytest.approx(0.045) and scores[1].steps == []
    # switched off with the two rules: the fused order
    off = rank(CANDIDATES, query, OFF,
               functions_within=_within)  # fmt: skip
    assert [r.fused.span.start_line for r in off] == [311, 1, 227, 330]


def test_a_likeness_keeps_the_shared_name_and_lifts_no_opposite() -> None:
    """ "Same as :meth:`dumps`, except …" may document another ``dumps``: with two candidates defining
    it neither is demoted, and ``loads`` gains nothing."""
    query = analyse("Same as :meth:`dumps`, except that it writes to a file.")
    assert query.siblings == ("dumps",) and query.opposites == ()
    config = replace(OFF, name_words=0.2, relative_penalty=0.5)
    ranked = rank(CANDIDATES, query, config, functions_within=_within)
    assert [r.fused.span.start_line for r in ranked] == [311, 1, 227, 330]
    assert all(not r.steps for r in ranked)


def test_the_symbol_retriever_looks_up_the_opposite_first(indexed_engine) -> None:
    """The names the opposite may have come before the name compared with, which a definition of the
    opposite leaves behind as a near miss (``dumps`` is not what "Reverse of :meth:`dumps`." asks
    for); where the workspace defines no opposite, the name compared with is found as before."""
    engine = indexed_engine({
        "src/dumping.py": "def dumps(obj):\n    return repr(obj)\n",
        "src/loading.py": "def loads(text):\n    return eval(text)\n",
        "src/checks.py": "def validate(text):\n    return bool(text)\n",
    })  # fmt: skip
    found = [h.symbol for h in engine.rankings("Reverse of :meth:`dumps`.")["symbol"]]
    assert found[0] == "loads" and "dumps" not in found
    liked = [h.symbol for h in engine.rankings("Like :meth:`dumps` but to a file.")["symbol"]]
    assert liked[0] == "dumps" and "loads" not in liked
    alone = [h.symbol for h in engine.rankings("Reverse of :meth:`validate`.")["symbol"]]
    assert alone[0] == "validate"

"""The file-aware ranking after fusion: each rule with hand-computed scores, the tiers, explanations."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from models.errors import ConfigError
from search import Query, QueryError
from search.engine.fusion import Fused
from search.engine.query import (
    NameRequest,
    analyse,
    as_definition,
    as_usages,
    implies_get,
    initialisms,
    named_in_sentence,
)
from search.engine.ranking import Ranked, RankingConfig, file_roles, path_words, rank, superseded
from search.types import WRAPPED, Hit, Span

OFF = RankingConfig(
    coherence=0,
    definition=0,
    path=0,
    saturation=1.0,
    keep_text_top=False,
    phrase_rule=False,
    undefined_penalty=1.0,
    name_words=0,
    keep_test_top=0,
    tests_found=0,
)


def _only(**on: float | bool) -> RankingConfig:
    """Every rule off but the ones named (role penalties stay at their defaults unless named)."""
    values = {f: getattr(OFF, f) for f in OFF.__dataclass_fields__}
    values.update(on)
    return RankingConfig(**values)


def fused(
    path: str,
    line: int,
    score: float,
    *,
    symbol: str | None = None,
    exact: bool = False,
    symbol_rank: int | None = None,
    kind: str | None = None,
    **ranks: int,
) -> Fused:
    span = Span(path, line, line + 9)
    ranks_of = {"text": None, "symbol": symbol_rank, "vector": None, **ranks}
    return Fused(span, score, ranks_of, Hit(span, 1.0, symbol, kind), exact)


def paths(ranked) -> list[tuple[str, int]]:
    return [(r.fused.span.path, r.fused.span.start_line) for r in ranked]


def test_coherence_lifts_the_best_chunk_of_a_file_with_several_candidates() -> None:
    cands = [fused("a.py", 1, 0.030), fused("b.py", 1, 0.032), fused("a.py", 20, 0.020)]
    ranked = rank(cands, analyse("how is the settings file parsed"), _only(coherence=0.2))
    # top 0.032; file sums a 0.050 (largest), b 0.032 (one candidate: no gain)
    assert paths(ranked) == [("a.py", 1), ("b.py", 1), ("a.py", 20)]
    assert ranked[0].score == pytest.approx(0.030 + 0.2 * 0.032 * 0.050 / 0.050)
    assert ranked[1].score == pytest.approx(0.032)
    assert ranked[0].steps == [("coherence", "+0.0064")]


def test_saturation_decays_later_chunks_of_one_file() -> None:
    cands = [
        fused("a.py", 1, 0.05),
        fused("a.py", 20, 0.04),
        fused("a.py", 40, 0.035),
        fused("b.py", 1, 0.015),
    ]
    ranked = rank(cands, analyse("settings file parsing"), _only(saturation=0.5))
    assert [round(r.score, 6) for r in ranked] == [0.05, 0.02, 0.015, 0.00875]
    assert paths(ranked) == [("a.py", 1), ("a.py", 20), ("b.py", 1), ("a.py", 40)]
    assert ranked[3].steps == [("saturation", "×0.25")]


def test_path_words_of_a_sentence_add_the_share_matched_times_the_top_score() -> None:
    others = [fused(p, 1, 0.01) for p in ("core/a.py", "core/b.py", "core/c.py")]
    cands = [fused("core/engine.py", 1, 0.04), fused("http/retry_policy.py", 1, 0.03), *others]
    ranked = rank(cands, analyse("where do we retry failed uploads"), _only(path=1.0))
    # words: retry, failed, uploads; "retry" is in one stem of five files (specific: 1 - 1/5), so
    # 0.8 of one word in three, times the top score 0.04
    assert paths(ranked)[0] == ("http/retry_policy.py", 1)
    assert ranked[0].score == pytest.approx(0.03 + 0.04 * 0.8 / 3)
    assert ranked[1].score == pytest.approx(0.04)
    assert path_words("src/http/RetryPolicy.py") == {"http", "retrypolicy", "retry", "policy"}


def test_path_words_match_a_query_word_of_the_same_stem() -> None:
    cands = [fused(p, 1, 0.01) for p in ("lib/core.bash", "lib/tracing.bash", "lib/warnings.bash")]
    cands += [fused("lib/preprocessing.bash", 1, 0.02), fused("lib/test_functions.bash", 1, 0.025)]
    ranked = rank(cands, analyse("how the preprocessed source is evaluated"), _only(path=1.0))
    # words: preprocessed, source, evaluated; "preprocessed" and "preprocessing" share the stem
    # "preprocess" (no prefix of four letters or more joins them); one stem of five files
    assert paths(ranked)[0] == ("lib/preprocessing.bash", 1)
    assert ranked[0].score == pytest.approx(0.02 + 0.025 * 0.8 / 3)


def test_path_words_apply_to_sentences_only() -> None:
    cands = [fused("core/engine.py", 1, 0.04), fused("retry/retry.py", 1, 0.03)]
    assert paths(rank(cands, analyse("retry_upload"), _only(path=1.0)))[0] == ("core/engine.py", 1)


def test_definition_boost_counts_the_file_stem_named_after_the_identifier() -> None:
    cands = [
        fused("mux.go", 1, 0.05, symbol="Mux.Handle"),
        fused("tree.go", 1, 0.03, symbol="Router"),
        fused("router.go", 1, 0.02, symbol="Router"),
    ]
    cands = [Fused(c.span, c.score, {"symbol": 1}, c.hit, False) for c in cands]
    ranked = rank(cands, analyse("Router"), _only(definition=3.0))
    top = 0.05
    assert paths(ranked) == [("router.go", 1), ("tree.go", 1), ("mux.go", 1)]
    assert ranked[0].score == pytest.approx(0.02 + 3.0 * top * 1.5)
    assert ranked[1].score == pytest.approx(0.03 + 3.0 * top)
    assert ranked[0].steps[0][0] == "definition+stem"


def test_definition_reads_the_name_the_symbol_index_found_and_prefers_it_as_written() -> None:
    span = Span("command.go", 1401, 1462)
    labelled_otherwise = Fused(span, 0.02, {"text": 1, "symbol": 1}, Hit(span, 1.0, "RemoveCommand"),
                               definition=Hit(span, 1.0, "Command.PrintErrf"))  # fmt: skip
    plain = fused("util.go", 1, 0.05)
    sentence = analyse("PrintErrf is a convenience method to Printf to the Err output.")
    assert sentence.names == ("PrintErrf",)
    ranked = rank([plain, labelled_otherwise], sentence, _only(definition=3.0))
    # top 0.05; a sentence naming it: half the definition weight
    assert paths(ranked)[0] == ("command.go", 1401)
    assert ranked[0].score == pytest.approx(0.02 + 3.0 * 0.05 * 0.5)
    # genBashCompletion is not GenBashCompletion: once one is defined as written, the other gains half.
    exported = Fused(Span("bash.go", 683, 698), 0.03, {"symbol": 1}, Hit(Span("bash.go", 683, 698), 1.0,
                     "Command.GenBashCompletion"))  # fmt: skip
    private = Fused(Span("bash_v2.go", 24, 29), 0.04, {"symbol": 2}, Hit(Span("bash_v2.go", 24, 29), 1.0,
                    "Command.genBashCompletion"))  # fmt: skip
    asked = analyse("GenBashCompletion generates bash completion file and writes to the writer.")
    ranked = rank([private, exported], asked, _only(definition=3.0))
    assert paths(ranked) == [("bash.go", 683), ("bash_v2.go", 24)]
    assert ranked[0].score == pytest.approx(0.03 + 3.0 * 0.04 * 0.5)
    assert ranked[1].score == pytest.approx(0.04 + 3.0 * 0.04 * 0.5 * 0.5)
    assert ranked[1].steps[0][0] == "definition (case differs)"
    # Typed in another case than every definition: no candidate is preferred for its case.
    lower = rank([private, exported], analyse("genbashcompletion"), _only(definition=3.0))
    assert [r.score for r in lower] == pytest.approx([0.04 + 3.0 * 0.04, 0.03 + 3.0 * 0.04])


def test_a_function_sentence_boosts_only_the_name_it_opens_with() -> None:
    """A function's docstring names what it works on: "Return a copy of this RequestsCookieJar." is
    the copy method's, not the class's; "BindJSON is a shortcut for c.MustBindWith(…)." is BindJSON's."""
    jar = fused("cookies.py", 176, 0.03, symbol="RequestsCookieJar", symbol_rank=1)
    copy = fused("cookies.py", 428, 0.05, symbol="RequestsCookieJar.copy", text=2, vector=1)
    sentence = analyse("Return a copy of this RequestsCookieJar.")
    assert sentence.form == "function" and sentence.identifiers == ("RequestsCookieJar",)
    ranked = rank([jar, copy], sentence, _only(definition=3.0))
    assert paths(ranked) == [("cookies.py", 428), ("cookies.py", 176)]
    assert all(not r.steps for r in ranked)
    topic = rank([jar, copy], analyse("how RequestsCookieJar stores cookies"), _only(definition=3.0))
    assert paths(topic)[0] == ("cookies.py", 176)  # a topic naming it asks for it: +3 × 0.05 × 0.5
    assert topic[0].score == pytest.approx(0.03 + 0.075)
    bind = fused("context.go", 591, 0.03, symbol="Context.BindJSON", symbol_rank=1)
    must = fused("context.go", 663, 0.05, symbol="Context.MustBindWith", symbol_rank=2)
    named = analyse("BindJSON is a shortcut for c.MustBindWith(obj, binding.JSON).")
    assert named.identifiers[0] == "BindJSON" and "c.MustBindWith" in named.identifiers
    ranked = rank([must, bind], named, _only(definition=3.0))
    # no definition gain for the name it is a shortcut for: a relative of the function it documents
    assert paths(ranked)[0] == ("context.go", 591)
    assert ranked[1].steps == [("a relative (MustBindWith)", "×0.5")]
    assert ranked[0].score == pytest.approx(0.03 + 3.0 * 0.05 * 0.5)


def test_a_signature_line_documents_the_function_it_names() -> None:
    """ "pop(index) -> remove the item at index" opens with the name it documents, however plain a word
    the name is: that definition gains as a "Name verbs …" sentence's does."""
    sentence = analyse("pop(index) -> remove the item at the given index")
    assert sentence.form == "function" and sentence.identifiers[:1] == ("pop",) and sentence.opens_with_name
    assert analyse("Call pop(index) to remove the item.").opens_with_name is False  # not its opening
    remove = fused("sets.py", 240, 0.05, symbol="IndexedSet.remove", text=2, vector=1)
    pop = fused("sets.py", 422, 0.03, symbol="IndexedSet.pop", symbol_rank=1, kind="method", text=4, vector=2)
    ranked = rank([remove, pop], sentence, _only(definition=3.0))
    assert paths(ranked)[0] == ("sets.py", 422)
    assert ranked[0].score == pytest.approx(0.03 + 3.0 * 0.05 * 0.5)


def test_a_named_sentence_prefers_the_symbol_indexs_first_definition_of_its_name() -> None:
    """The sentence "Trace logs a message at level Trace." documents one ``Trace``: the package's wrapper, one call
    long, tells itself from ``Logger.Trace`` by nothing but the symbol index's order."""
    query = named_in_sentence(analyse("Trace logs a message at level Trace."), ["logrus.Trace"])
    assert query.identifiers == ("Trace",)
    cands = [
        fused("logger.go", 1, 0.05, symbol="logrus.Logger.Trace", symbol_rank=3),
        fused("entry.go", 1, 0.04, symbol="logrus.Entry.Trace", symbol_rank=2),
        fused("exported.go", 1, 0.03, symbol="logrus.Trace", symbol_rank=1),
    ]
    ranked = rank(cands, query, _only(definition=3.0))
    # top 0.05, a sentence's scale 0.5: the first gains 3 × 0.05 × 0.5 = 0.075, the others half.
    assert paths(ranked) == [("exported.go", 1), ("logger.go", 1), ("entry.go", 1)]
    assert [round(r.score, 6) for r in ranked] == [0.105, 0.0875, 0.0775]
    assert ranked[1].steps == [("definition (not the symbol index's first)", "+0.0375")]
    even = rank(cands, query, _only(definition=3.0, named_others=1.0))
    assert paths(even) == [("logger.go", 1), ("entry.go", 1), ("exported.go", 1)]
    # An identifier of a sentence's own, not its first word, is not the convention: all gain alike.
    other = rank(cands, analyse("the Trace method logs a message"), _only(definition=3.0))
    assert paths(other)[0] == ("logger.go", 1)


def test_a_named_sentence_takes_the_method_its_words_and_meaning_agree_on() -> None:
    """Among methods of one name the symbol index's order (the shortest qualified name) tells nothing:
    "Headers registers a new route …" is ``Route.Headers`` where the text and the dense leg both rank it
    above ``Router.Headers``; a package's function keeps its place, and one leg alone decides nothing."""
    query = named_in_sentence(
        analyse("Headers registers a new route with a matcher for header values."), ["mux.Route.Headers"]
    )
    assert query.identifiers == ("Headers",)
    router = fused("mux.go", 1, 0.05, symbol="mux.Router.Headers", symbol_rank=1, kind="method", vector=11)
    route = fused(
        "route.go", 1, 0.04, symbol="mux.Route.Headers", symbol_rank=2, kind="method", text=3, vector=1
    )
    ranked = rank([router, route], query, _only(definition=3.0))
    # top 0.05, a sentence's scale 0.5: Route.Headers gains 3 × 0.05 × 0.5 = 0.075, Router.Headers half
    assert paths(ranked) == [("route.go", 1), ("mux.go", 1)]
    assert [round(r.score, 6) for r in ranked] == [0.115, 0.0875]
    assert ranked[1].steps == [("definition (not the symbol index's first)", "+0.0375")]
    one_leg = fused("route.go", 1, 0.04, symbol="mux.Route.Headers", symbol_rank=2, kind="method", vector=1)
    assert paths(rank([router, one_leg], query, _only(definition=3.0))) == [("mux.go", 1), ("route.go", 1)]
    wrapper = fused("exported.go", 1, 0.03, symbol="mux.Headers", symbol_rank=1, kind="function", vector=12)
    kept = rank([wrapper, route], query, _only(definition=3.0))
    assert kept[0].fused.span.path == "exported.go"
    assert [r.steps for r in kept][1] == [("definition (not the symbol index's first)", "+0.0300")]


def test_a_named_sentence_takes_the_definition_whose_owner_it_names() -> None:
    """The sentence "Serialize allows StringSlice to fulfill Serializer": of the ``Serialize`` methods, the one of
    ``StringSlice`` gains in full, the others half; where no candidate's owner is named, all alike."""
    query = named_in_sentence(
        analyse("Serialize allows StringSlice to fulfill Serializer"), ["cli.StringSlice.Serialize"]
    )
    assert query.identifiers[:2] == ("Serialize", "StringSlice")
    hook = fused("hook.go", 1, 0.05, symbol="cli.flagValueHook.Serialize", symbol_rank=1, kind="method")
    owned = fused("slice.go", 1, 0.04, symbol="cli.StringSlice.Serialize", symbol_rank=2, kind="method")
    ranked = rank([hook, owned], query, _only(definition=3.0))
    # top 0.05, a sentence's scale 0.5: StringSlice.Serialize gains 0.075, flagValueHook.Serialize 0.0375
    assert paths(ranked) == [("slice.go", 1), ("hook.go", 1)]
    assert [round(r.score, 6) for r in ranked] == [0.115, 0.0875]
    unowned = fused("slice.go", 1, 0.04, symbol="cli.IntSlice.Serialize", symbol_rank=2, kind="method")
    alike = rank([hook, unowned], query, _only(definition=3.0))
    assert [round(r.score, 6) for r in alike] == [0.125, 0.115]


def test_a_plain_word_names_the_file_of_its_stem() -> None:
    cands = [fused("model.py", 1, 0.05), fused("quantization.py", 1, 0.02)]
    ranked = rank(cands, analyse("quantize"), _only(definition=3.0))
    # "quantize" and "quantization" share the lexical stemmer's stem: the file is named after it, and
    # counts as much as a definition of the name
    assert paths(ranked)[0] == ("quantization.py", 1)
    assert ranked[0].score == pytest.approx(0.02 + 3.0 * 0.05)
    assert paths(rank(cands, analyse("quantum"), _only(definition=3.0)))[0] == ("model.py", 1)


def test_a_constant_in_capitals_names_no_file_after_its_plural() -> None:
    """jsonpickle's ``ERROR`` (an enum member) is no module's name: errors.py gains nothing for it,
    where ``Error`` names errors.py's module and ``URL`` url.py as written."""
    cands = [fused("model.py", 1, 0.05), fused("jsonpickle/errors.py", 1, 0.02)]
    constant = rank(cands, analyse("ERROR"), _only(definition=3.0))
    assert paths(constant)[0] == ("model.py", 1) and constant[1].score == pytest.approx(0.02)
    assert not constant[1].steps
    named = rank(cands, analyse("Error"), _only(definition=3.0))
    assert paths(named)[0] == ("jsonpickle/errors.py", 1) and named[0].score == pytest.approx(
        0.02 + 3.0 * 0.05
    )
    acronym = rank(
        [fused("model.py", 1, 0.05), fused("url.py", 1, 0.02)], analyse("URL"), _only(definition=3.0)
    )
    assert paths(acronym)[0] == ("url.py", 1) and acronym[0].steps == [("file named after it", "+0.1500")]
    # jsonmerge's ``Merger.STRATEGIES``, defined as written: strategies.py, named after the constant
    # as written, is not what it asks for
    member = fused(
        "jsonmerge/__init__.py", 223, 0.04, symbol="Merger.STRATEGIES", symbol_rank=1, kind="field"
    )
    module = fused("jsonmerge/strategies.py", 9, 0.02)
    asked = rank([member, module], analyse("STRATEGIES"), _only(definition=3.0))
    # the definition gains 3.0 * 0.04; the module keeps its own score
    assert paths(asked) == [("jsonmerge/__init__.py", 223), ("jsonmerge/strategies.py", 9)]
    assert asked[0].score == pytest.approx(0.04 + 3.0 * 0.04) and not asked[1].steps
    # without the member, the file named after it as written keeps its gain, as for ``URL``
    alone = rank(
        [fused("jsonmerge/__init__.py", 223, 0.04), module], analyse("STRATEGIES"), _only(definition=3.0)
    )
    assert paths(alone)[0] == ("jsonmerge/strategies.py", 9) and alone[0].steps[0][0] == "file named after it"


def test_a_topic_naming_an_identifier_lifts_the_file_named_after_it() -> None:
    cands = [fused("Core.hs", 1, 0.05), fused("ManageHook.hs", 1, 0.02)]
    topic = analyse("how ManageHook routes new windows to workspaces")
    assert topic.form == "area" and topic.names == ("ManageHook",)
    ranked = rank(cands, topic, _only(definition=3.0))
    # a sentence: half the definition weight; a file named after it, no definition seen: as much as a
    # definition of the name
    assert paths(ranked)[0] == ("ManageHook.hs", 1)
    assert ranked[0].score == pytest.approx(0.02 + 3.0 * 0.05 * 0.5)
    assert ranked[0].steps[0][0] == "file named after it"
    # A function sentence names what its definition takes or returns: no gain for the file.
    doc = rank(cands, analyse("Apply the ManageHook to a new window."), _only(definition=3.0))
    assert paths(doc)[0] == ("Core.hs", 1) and not doc[1].steps


def test_of_two_definitions_of_a_name_the_one_nearer_the_root_comes_first() -> None:
    def definition(path: str, symbol_rank: int, score: float) -> Fused:
        span = Span(path, 10, 40)
        return Fused(span, score, {"symbol": symbol_rank}, Hit(span, 1.0, "Request"), True)

    client = definition("src/Http/Client/Request.php", 1, 0.05)
    http = definition("src/Http/Request.php", 2, 0.03)
    facade = definition("src/Support/Facades/Request.php", 3, 0.04)
    test = definition("tests/Request.php", 4, 0.06)
    ranked = rank([client, facade, test, http], analyse("Request"), _only())
    # all named after it; tests after real code; then by depth, then by the symbol index's order
    assert [p for p, _ in paths(ranked)] == [
        "src/Http/Request.php", "src/Http/Client/Request.php", "src/Support/Facades/Request.php",
        "tests/Request.php",
    ]  # fmt: skip
    # A literal's verified chunks keep ripgrep's order whatever their depth.
    found = [Fused(Span(p, 1, 9), 0.01, {"text": i + 1}, Hit(Span(p, 1, 9), 1.0), True)
             for i, p in enumerate(["a/b/c.py", "d.py"])]  # fmt: skip
    assert [p for p, _ in paths(rank(found, analyse('"x y"'), _only()))] == ["a/b/c.py", "d.py"]


def test_a_macro_that_shares_its_name_with_a_function_goes_after_it_however_near_the_root() -> None:
    def definition(path: str, kind: str, symbol_rank: int) -> Fused:
        span = Span(path, 10, 40)
        hit = Hit(span, 1.0, "kmalloc", kind)
        return Fused(span, 0.03, {"symbol": symbol_rank}, hit, True, hit)

    shim = definition("lib/decompress_unxz.c", "macro", 3)  # #define kmalloc(size, flags) malloc(size)
    real = definition("include/linux/slab.h", "function", 1)
    stub = definition("tools/lib/slab.c", "function", 2)
    ranked = rank([shim, stub, real], analyse("kmalloc"), _only())
    assert [p for p, _ in paths(ranked)] == [
        "include/linux/slab.h",
        "tools/lib/slab.c",
        "lib/decompress_unxz.c",
    ]
    assert ranked[2].steps[-1] == ("exact", "first, a macro beside a definition of another kind")
    # A name defined only as macros keeps the order of depth (printk.h's printk, not a copy deeper down).
    macros = [definition("include/linux/printk.h", "macro", 2), definition("tools/a/b/printk.h", "macro", 1)]
    assert paths(rank(macros, analyse("printk"), _only()))[0] == ("include/linux/printk.h", 10)


def test_roles_are_demoted_unless_the_query_asks_for_them() -> None:
    cands = [fused("tests/test_retry.py", 1, 0.05), fused("src/retry.py", 1, 0.03)]
    demoted = rank(cands, analyse("retry logic with backoff"), _only())
    assert paths(demoted)[0] == ("src/retry.py", 1)
    assert demoted[1].score == pytest.approx(0.05 * 0.3)
    assert ("role:test", "×0.3") in demoted[1].steps
    asked = rank(cands, analyse("tests for the retry logic"), _only())
    assert paths(asked)[0] == ("tests/test_retry.py", 1)
    assert asked[0].score == pytest.approx(0.05)


@pytest.mark.parametrize(
    ("role_path", "code_path", "sentence", "asking", "role", "penalty"),
    [
        # termcolor's CI workflows and pre-commit settings share a sentence's words ("env", "color")
        (
            ".github/workflows/test.yml",
            "src/termcolor/termcolor.py",
            "color applied when the env var is present",
            ("github workflow that runs the tests",),
            "hidden",
            0.5,
        ),
        # pathspec's benchmarks share the patterns they time: tests that time the code
        (
            "benchmarks/bench_lexer.py",
            "pathspec/lexer.py",
            "split a pattern into tokens",
            ("benchmarks for the lexer",),
            "test",
            0.3,
        ),
        # simplejson's stress test races the scanner whose members it reads: a test that exercises the code
        (
            "tsan_stress_simplejson.py",
            "simplejson/scanner.py",
            "scan a JSON string concurrently",
            ("fuzz targets for the scanner", "stress tests of the scanner"),
            "test",
            0.3,
        ),
        # a project's manifest repeats its name, description and modules' paths (werkzeug's "Compiles
        # the regular expression and stores it.")
        (
            "pyproject.toml",
            "src/werkzeug/routing/rules.py",
            "compile the regular expression and store it",
            ("which license is the project under", "how is the extension built"),
            "manifest",
            0.5,
        ),
    ],
)
def test_housekeeping_is_demoted_unless_the_query_asks_for_it(
    role_path: str, code_path: str, sentence: str, asking: tuple[str, ...], role: str, penalty: float
) -> None:
    """Hidden files, benchmarks, stress tests and manifests share a sentence's words and not its meaning; a query
    that names them asks for them."""
    cands = [fused(role_path, 1, 0.04), fused(code_path, 10, 0.03)]
    demoted = rank(cands, analyse(sentence), _only())
    assert paths(demoted)[0] == (code_path, 10)
    assert demoted[1].score == pytest.approx(0.04 * penalty)
    assert demoted[1].steps == [(f"role:{role}", f"×{penalty:g}")]
    for query in asking:
        asked = rank(cands, analyse(query), _only())
        assert paths(asked)[0] == (role_path, 1) and asked[0].score == pytest.approx(0.04)


def test_a_sentence_opening_with_build_documents_a_function_and_asks_for_no_build_settings() -> None:
    """The sentence "Build the URL for an endpoint." opens with the verb it documents, as "Mock the
    clock" does: the Makefile stays demoted."""
    cands = [fused("Makefile", 1, 0.04), fused("src/flask/helpers.py", 190, 0.03)]
    ranked = rank(cands, analyse("Build the URL for an endpoint."), _only())
    assert paths(ranked)[0] == ("src/flask/helpers.py", 190)
    assert ranked[1].steps == [("role:manifest", "×0.5")]


def test_a_demoted_definition_of_a_name_asked_about_keeps_its_penalty_where_real_code_defines_it() -> None:
    """zod: "how ZodType base class parses …" — the legacy ``v3/`` copy and a test's own ``ZodType``
    define the name as the current code does: they stay demoted, the current class first. Where only
    the test defines it, the test is what is asked for. A function sentence documents its function
    wherever it is (testify's mock methods): no penalty for defining the name it opens with."""

    def defines(path: str, score: float, symbol_rank: int) -> Fused:
        return fused(path, 1, score, symbol="ZodType", kind="class", symbol_rank=symbol_rank)

    legacy = defines("src/v3/types.ts", 0.05, 1)
    test = defines("src/v4/tests/prototypes.test.ts", 0.04, 2)
    current = defines("src/v4/schemas.ts", 0.035, 3)
    other = fused("src/v4/parse.ts", 1, 0.045)
    question = analyse("how ZodType base class parses and validates input values")
    config = _only(definition=0.5)
    ranked = rank([legacy, test, current, other, fused("src/v4/index.ts", 1, 0.01)], question, config)
    assert paths(ranked)[:2] == [("src/v4/schemas.ts", 1), ("src/v4/parse.ts", 1)]
    by_path = {r.fused.span.path: r for r in ranked}
    assert ("role:compat", "×0.3") in by_path["src/v3/types.ts"].steps  # v3 beside v4
    # the definition's gain, 0.5 × 0.05 (the top score) × 0.5 (a sentence's), then the penalty
    assert by_path["src/v3/types.ts"].score == pytest.approx((0.05 + 0.0125) * 0.3)
    assert by_path["src/v4/schemas.ts"].score == pytest.approx(0.035 + 0.0125)
    assert ("role:test", "×0.3") in by_path["src/v4/tests/prototypes.test.ts"].steps
    alone = rank([test, other], question, config)
    assert paths(alone)[0] == ("src/v4/tests/prototypes.test.ts", 1)
    assert not any(rule.startswith("role") for rule, _ in alone[0].steps)
    run = [fused("mock/mock.go", 1, 0.04, symbol="Call.Run", kind="method", symbol_rank=1),
           fused("suite/suite.go", 1, 0.03, symbol="Run", kind="function", symbol_rank=2)]  # fmt: skip
    sentence = analyse("Run sets a handler to be called before returning.")
    assert sentence.form == "function"
    named = rank(run, replace(sentence, identifiers=("Run",)), config)
    assert paths(named)[0] == ("mock/mock.go", 1) and not any(r.startswith("role") for r, _ in named[0].steps)


def test_a_file_of_several_roles_is_demoted_once_by_the_strongest() -> None:
    """``docs/examples/`` is docs (×0.5) and an example (×0.3): one prior, ×0.3, not ×0.15."""
    cands = [
        fused("docs/examples/eggsample/host.py", 1, 0.05),
        fused("tests/fixtures/data.py", 1, 0.05),
        fused("docs/guide.md", 1, 0.05),
        fused("src/cook.py", 1, 0.01),
    ]
    ranked = rank(cands, analyse("offer your own ingredients"), _only())
    by_path = {r.fused.span.path: r for r in ranked}
    assert by_path["docs/examples/eggsample/host.py"].score == pytest.approx(0.05 * 0.3)
    assert by_path["docs/examples/eggsample/host.py"].steps == [("role:example", "×0.3")]
    assert by_path["tests/fixtures/data.py"].score == pytest.approx(0.05 * 0.3)  # test and fixture: ×0.3
    assert by_path["tests/fixtures/data.py"].steps == [("role:fixture", "×0.3")]
    assert by_path["docs/guide.md"].score == pytest.approx(0.05 * 0.5)
    assert paths(ranked) == [("docs/guide.md", 1), ("docs/examples/eggsample/host.py", 1),
                             ("tests/fixtures/data.py", 1), ("src/cook.py", 1)]  # fmt: skip


def test_words_only_examples_hold_keep_the_examples_role() -> None:
    """ply's grammar rules are its examples' own: a query whose words examples hold more of than any
    candidate of no role (the text retriever's share of its term weight) asks for those example files,
    every chunk of them; not a sentence documenting a function, which asks for the function."""

    def held(path: str, line: int, score: float, coverage: float, text: int) -> Fused:
        return fused(path, line, score, text=text)._replace(coverage=coverage)

    grammar = analyse("plist : plist COMMA pitem | pitem")
    assert grammar.form != "function"
    cands = [
        held("example/BASIC/basparse.py", 429, 0.030, 0.34, 1),
        fused("example/BASIC/basparse.py", 126, 0.028, vector=1),  # no words: its file's are enough
        held("ply/cpp.py", 326, 0.032, 0.23, 2),
        held("example/ansic/clex.py", 41, 0.029, 0.23, 3),  # no more of the words than real code
    ]
    ranked = rank(cands, grammar, _only())
    by_line = {(r.fused.span.path, r.fused.span.start_line): r for r in ranked}
    lifted = ("role:example", "×1: it holds words that only examples hold")
    for line, score in ((429, 0.030), (126, 0.028)):
        assert by_line["example/BASIC/basparse.py", line].score == pytest.approx(score)
        assert by_line["example/BASIC/basparse.py", line].steps == [lifted]
    assert by_line["example/ansic/clex.py", 41].score == pytest.approx(0.029 * 0.3)
    assert paths(ranked)[:3] == [("ply/cpp.py", 326), ("example/BASIC/basparse.py", 429),
                                 ("example/BASIC/basparse.py", 126)]  # fmt: skip
    # real code holding as much of the words: every example is demoted
    level = [*cands[:2], held("ply/cpp.py", 326, 0.032, 0.34, 2)]
    demoted = [r for r in rank(level, grammar, _only()) if r.fused.span.path.startswith("example/")]
    assert len(demoted) == 2 and all(r.steps == [("role:example", "×0.3")] for r in demoted)
    sentence = analyse("Parse a string with respect to the parser definition.")
    assert sentence.form == "function"
    narrated = [
        held("examples/macro_expander.py", 30, 0.05, 0.9, 1),
        fused("pyparsing/core.py", 1274, 0.03, vector=1),
    ]
    assert rank(narrated, sentence, _only())[1].steps == [("role:example", "×0.3")]


def test_every_retrievers_first_keeps_its_role_for_any_query() -> None:
    """The chunk the text, the symbol and the dense retriever each put first is what any query asks
    for, whatever its file's role (ply's C parser example, for one of its grammar rules); first by two
    of them only, a topic's candidate keeps its penalty."""
    topic = analyse("exclusive_or_expression : exclusive_or_expression XOR and_expression")
    assert topic.form != "function"
    first = fused("example/ansic/cparse.py", 786, 0.046, symbol_rank=1, text=1, vector=1)
    cands = [first, fused("ply/yacc.py", 1534, 0.027, vector=2)]
    ranked = rank(cands, topic, _only())
    assert paths(ranked)[0] == ("example/ansic/cparse.py", 786) and ranked[0].score == pytest.approx(0.046)
    assert ranked[0].steps == [("role:example", "×1: first by its words, its name and its meaning")]
    two = [fused("example/ansic/cparse.py", 786, 0.046, text=1, vector=1), cands[1]]
    demoted = rank(two, topic, _only())
    assert paths(demoted)[0] == ("ply/yacc.py", 1534) and demoted[1].steps == [("role:example", "×0.3")]


def test_a_declaration_files_copy_of_a_definition_in_real_code_keeps_its_role() -> None:
    """attrs' ``_version_info.pyi`` declares the ``VersionInfo`` that ``_version_info.py`` defines: the
    copy is first by the words and the meaning it copies, and keeps the stub penalty (×0.7), so the
    code it declares goes first; a declaration of a name no code candidate defines (a type only the
    declaration file has) is lifted as any chunk both retrievers put first."""
    sentence = analyse("Parse *s* and return a _VersionInfo.")
    cands = [
        fused("src/attr/_version_info.pyi", 1, 0.0555, symbol="VersionInfo", kind="class", text=1, vector=1),
        fused("src/attr/_version_info.py", 10, 0.0543, symbol="VersionInfo", kind="class", text=3, vector=2),
    ]
    ranked = rank(cands, sentence, _only())
    assert paths(ranked) == [("src/attr/_version_info.py", 10), ("src/attr/_version_info.pyi", 1)]
    assert ranked[1].score == pytest.approx(0.7 * 0.0555) and ranked[1].steps == [("role:stub", "×0.7")]
    alone = [cands[0]._replace(hit=replace(cands[0].hit, symbol="_VersionInfoProtocol")), cands[1]]
    lifted = rank(alone, sentence, _only())
    assert paths(lifted)[0] == ("src/attr/_version_info.pyi", 1)
    assert lifted[0].steps == [("role:stub", "×1: first by its words and by its meaning")]


def test_a_function_sentences_first_by_words_and_meaning_keeps_its_role() -> None:
    """A test's docstring is a function sentence too: the chunk both retrievers put first is not
    demoted for its role; one the dense retriever ranks below ``agreed_top``, or a topic's, is."""
    sentence = analyse("Python has different netrc parsing behaviours with different versions.")
    assert sentence.form == "function" and not sentence.wants
    agreed = [
        fused("tests/test_headers.py", 1, 0.05, text=1, vector=2),
        fused("src/models.py", 1, 0.04, vector=1),
    ]
    kept = rank(agreed, sentence, _only())
    assert paths(kept)[0] == ("tests/test_headers.py", 1) and kept[0].score == pytest.approx(0.05)
    assert (
        kept[0].steps == [("role:test", "×1: first by its words and by its meaning")] and kept[0].roles == ()
    )
    third = [
        fused("tests/test_headers.py", 1, 0.05, text=1, vector=3),
        fused("src/models.py", 1, 0.04, vector=1),
    ]
    demoted = rank(third, sentence, _only())
    assert paths(demoted)[0] == ("src/models.py", 1) and demoted[1].score == pytest.approx(0.05 * 0.3)
    second_by_text = [
        fused("tests/test_headers.py", 1, 0.05, text=2, vector=1),
        fused("src/models.py", 1, 0.04),
    ]
    assert paths(rank(second_by_text, sentence, _only()))[0] == ("src/models.py", 1)
    topic = rank(agreed, analyse("header encoding in the repr"), _only())
    assert paths(topic)[0] == ("src/models.py", 1)
    off = rank(agreed, sentence, _only(agreed_top=0))
    assert paths(off)[0] == ("src/models.py", 1) and off[1].score == pytest.approx(0.05 * 0.3)


def test_a_function_sentences_first_by_words_and_by_name_keeps_its_role() -> None:
    """A test named for what it checks ("Newlines are mandatory breaks when replace_whitespace is
    False.": ``test_wrap_replace_whitespace_false_newlines_are_mandatory``) is the text retriever's
    first and the symbol retriever's: not demoted for its role, however far the dense one ranks it.
    First by its name alone, or second by its words, it is demoted."""
    sentence = analyse("Newlines are mandatory breaks when replace_whitespace is False.")
    assert sentence.form == "function" and not sentence.wants
    test = "tests/test_textwrap.py"
    named = [
        fused(test, 1, 0.05, text=1, symbol_rank=1, vector=13),
        fused("wcwidth/textwrap.py", 1, 0.04, text=5, vector=4),
    ]
    kept = rank(named, sentence, _only())
    assert paths(kept)[0] == (test, 1) and kept[0].score == pytest.approx(0.05)
    assert kept[0].steps == [("role:test", "×1: first by its words and by its name")] and kept[0].roles == ()
    for first in (
        fused(test, 1, 0.05, text=2, symbol_rank=1, vector=13),
        fused(test, 1, 0.05, text=1, symbol_rank=2, vector=13),
        fused(test, 1, 0.05, symbol_rank=1, vector=13),
    ):
        cands = [first, fused("wcwidth/textwrap.py", 1, 0.04, text=5, vector=4)]
        demoted = rank(cands, sentence, _only())
        assert paths(demoted)[0] == ("wcwidth/textwrap.py", 1)
        assert demoted[1].score == pytest.approx(0.05 * 0.3)
    assert paths(rank(named, sentence, _only(agreed_top=0)))[0] == ("wcwidth/textwrap.py", 1)


def test_a_test_named_in_a_function_sentences_words_keeps_its_role() -> None:
    """``test_center_ambiguous`` is named for what "Center respects ambiguous_width parameter."
    says (the parts of the names it mentions count): not demoted. A name with one word beside
    ``test``, one the sentence does not spell, or one after a function the sentence mentions or real
    code defines (a test of that function) is; so is any for a topic."""
    sentence = analyse("Center respects ambiguous_width parameter.")
    assert sentence.form == "function"
    test = "tests/test_ambiguous.py"

    def cands(name: str) -> list[Fused]:
        return [
            fused(test, 1, 0.05, symbol=name, kind="function", text=1, vector=11),
            fused("wcwidth/align.py", 1, 0.04, symbol="center", kind="function", text=8, vector=3),
        ]

    for name in ("test_center_ambiguous", "TestCenterRespectsWidth", "test_ambiguous_width_parameter_center"):
        kept = rank(cands(name), sentence, _only())
        assert paths(kept)[0] == (test, 1) and kept[0].score == pytest.approx(0.05), name
        assert kept[0].steps == [("role:test", "×1: a test named for the sentence")] and kept[0].roles == ()
    for name in ("test_center", "test_center_wide", "TestAmbiguousWidth", "center_ambiguous"):
        demoted = rank(cands(name), sentence, _only())
        assert paths(demoted)[0] == ("wcwidth/align.py", 1), name
        assert demoted[1].score == pytest.approx(0.05 * 0.3), name
    real = cands("test_center_ambiguous")
    real[1] = fused("wcwidth/align.py", 1, 0.04, symbol="center_ambiguous", kind="function", text=8, vector=3)
    assert paths(rank(real, sentence, _only()))[0] == ("wcwidth/align.py", 1)
    topic = analyse("ambiguous width handling in center")
    assert paths(rank(cands("test_center_ambiguous"), topic, _only()))[0] == ("wcwidth/align.py", 1)
    off = rank(cands("test_center_ambiguous"), sentence, _only(named_tests=False))
    assert paths(off)[0] == ("wcwidth/align.py", 1)
    # a sentence that says what something returns documents an accessor (gson's ``htmlSafe``), not
    # a test whose name its words spell by chance, unless that test is named for what it returns
    accessor = analyse("Returns whether this instance escapes all HTML characters.")
    escaping = cands("testEscapeAllHtmlCharacters")
    assert paths(rank(escaping, accessor, _only()))[0] == ("wcwidth/align.py", 1)
    assert paths(rank(escaping, analyse("Escape all HTML characters."), _only()))[0] == (test, 1)
    returning = cands("test_returns_Attr")
    assert paths(rank(returning, analyse("Returns an instance of Attr."), _only()))[0] == (test, 1)


def test_a_test_class_chunked_whole_keeps_its_role_when_it_holds_a_test_named_for_the_sentence() -> None:
    """uritemplate's "Check simple string expansion." documents ``test_simple_string_expansion``, one
    of a test class's short methods, chunked with the class: the chunk holds the test named for the
    sentence (the symbol index's functions on its lines), so it is not demoted; the same class without
    such a test is."""
    sentence = analyse("Check simple string expansion.")
    test = "tests/test_from_fixtures.py"
    cands = [
        fused(test, 83, 0.05, symbol="TestSpecExamples", kind="class", text=1, vector=12),
        fused(
            "uritemplate/variable.py", 423, 0.04, symbol="URIVariable.expand", kind="method", text=9, vector=1
        ),
    ]
    methods = {
        test: ["TestSpecExamples.test_variable_expansion", "TestSpecExamples.test_simple_string_expansion"]
    }

    def within(path: str, start: int, end: int) -> list[str]:
        return methods.get(path, []) if start == 83 else []

    kept = rank(cands, sentence, _only(), functions_within=within)
    assert paths(kept)[0] == (test, 83) and kept[0].score == pytest.approx(0.05)
    assert kept[0].steps == [("role:test", "×1: a test named for the sentence")]
    # a test among a chunk's others needs three words beside ``test``: two of a sentence's words
    # (``test_string_expansion``) name a test of its topic by chance, where the chunk's own test is
    # named by two (the rule's own threshold)
    for others in (["test_variable_expansion", "test_reserved_expansion"], ["test_string_expansion"]):
        methods[test] = [f"TestSpecExamples.{name}" for name in others]
        demoted = rank(cands, sentence, _only(), functions_within=within)
        assert paths(demoted)[0] == ("uritemplate/variable.py", 423)
        assert demoted[1].score == pytest.approx(0.05 * 0.3)
    own = [
        fused(test, 90, 0.05, symbol="TestSpecExamples.test_string_expansion", kind="method", text=1),
        cands[1],
    ]
    assert paths(rank(own, sentence, _only(), functions_within=within))[0] == (test, 90)
    assert paths(rank(cands, sentence, _only()))[0] == ("uritemplate/variable.py", 423)  # its lines unknown


def test_gos_examples_are_asked_for_as_examples_or_as_tests() -> None:
    cands = [
        fused("route_example_test.go", 1, 0.05, symbol="ExampleRoute_HeadersRegexp", kind="function"),
        fused("route.go", 1, 0.03, symbol="Route.HeadersRegexp", kind="method"),
    ]
    example = rank(
        cands, analyse("This example demonstrates a regular expression matcher for a header."), _only()
    )
    assert paths(example)[0] == ("route_example_test.go", 1) and example[0].score == pytest.approx(0.05)
    claim = analyse("A header matcher works with a regular expression.")  # a test's claim
    assert paths(rank(cands, claim, _only()))[0] == ("route_example_test.go", 1)
    code = rank(cands, analyse("header regexp matcher"), _only())  # neither asked for: demoted once
    assert paths(code)[0] == ("route.go", 1) and code[1].score == pytest.approx(0.05 * 0.3)


@pytest.mark.parametrize(
    ("path", "roles"),
    [
        ("tests/test_app.py", ("test",)),
        ("pkg/app_test.go", ("test",)),
        ("src/components/Button.spec.tsx", ("test",)),
        ("src/test/java/com/x/ParserTest.java", ("test",)),
        ("spec/models/user_spec.rb", ("test",)),
        ("src/set/tests.rs", ("test",)),  # a Rust module's `mod tests;` beside it
        ("polls/tests.py", ("test",)),  # a Django app's tests
        ("src/testing.rs", ()),  # a library's helpers for its users' tests
        ("src/contests.rs", ()),
        ("examples/basic/app.py", ("example",)),
        ("cmp/example_test.go", ("test", "example")),  # Go's runnable examples: tests and examples
        ("example_route_test.go", ("test", "example")),
        ("route_example_test.go", ("test", "example")),
        ("counterexample_test.go", ("test",)),
        ("testdata/input.json", ("fixture",)),
        ("tokio/src/fs/mocks.rs", ("fixture",)),  # test doubles
        ("app/mock_db.py", ("fixture",)),
        ("store/db_mock.go", ("fixture",)),
        ("Lib/unittest/mock.py", ()),  # a mocking library's own code
        ("mock/mock.go", ()),  # …and its package (testify's mock, undici's lib/mock/): not doubles
        ("lib/mock/mock-agent.js", ()),
        ("internal/mocks/store.go", ("fixture",)),  # a folder of doubles
        ("src/__mocks__/fs.js", ("fixture",)),
        ("vendor/github.com/x/y.go", ("vendored",)),
        ("api/v1/service_pb2.py", ("generated",)),
        ("docs/guide.md", ("docs",)),
        ("README.md", ("docs",)),
        ("aiohttp/__init__.py", ("reexport",)),
        ("types/index.d.ts", ("stub",)),
        ("lib/compat/py2.py", ("compat",)),
        ("src/Illuminate/Routing/Console/stubs/controller.stub", ("fixture",)),
        ("go.sum", ("generated",)),
        ("web/package-lock.json", ("generated",)),
        ("Cargo.lock", ("generated",)),
        ("PKG-INFO", ("docs",)),  # a source distribution's metadata: the README again
        ("src/pkg.egg-info/PKG-INFO", ("docs", "manifest")),
        ("dist/esm/escape.js.map", ("generated",)),  # a source map beside the compiler's output
        ("dist/styles/app.css.map", ("generated",)),
        ("assets/world.map", ()),  # a map, not a source map
        ("src/lock.py", ()),
        ("src/request.py", ()),
        ("src/Manifest.java", ()),
        ("lib/defaults/index.js", ()),
        ("src/latest.py", ()),
        # directories named as classes are: Swift's Tests/, Laravel's test helpers, C#'s Fixtures/
        ("Tests/AlamofireTests/SessionTests.swift", ("test",)),
        ("src/Illuminate/Foundation/Testing/Concerns/MakesHttpRequests.php", ("test",)),
        ("src/MyLib.Tests/Fixtures/Data.cs", ("fixture",)),
        ("Examples/Demo/App.swift", ("example",)),
        ("ThirdParty/zlib/inflate.c", ("vendored",)),
        ("Docs/Guide.MD", ("docs",)),
        ("Sources/Alamofire/Core/Session.swift", ()),
        ("src/Illuminate/Http/Request.php", ()),
        # a repository's housekeeping, in hidden files and folders
        (".github/workflows/test.yml", ("hidden",)),
        (".gitignore", ("hidden",)),
        ("web/.eslintrc.js", ("hidden",)),
        (".github/CONTRIBUTING.md", ("docs", "hidden")),
        ("./src/app.py", ()),  # the current folder, not a hidden one
        # a project's manifests, build settings and licence; not code that builds (setup.py, build.py)
        ("pyproject.toml", ("manifest",)),
        ("packages/core/package.json", ("manifest",)),
        ("tsconfig.build.json", ("manifest",)),
        ("go.mod", ("manifest",)),
        ("Makefile", ("manifest",)),
        ("LICENSE", ("manifest",)),
        ("LICENSE.txt", ("docs", "manifest")),
        ("requests.gemspec", ("manifest",)),
        ("setup.py", ()),
        ("noxfile.py", ()),
        ("tools/build.py", ()),
        ("src/manifest.json", ()),
        ("zipp.egg-info/scm_file_list.json", ("manifest",)),  # what a Python build writes
        ("src/info/egg.py", ()),
        # benchmarks are tests that time the code; a benchmarking library's own module is not one
        ("benchmarks/bench_grouping.py", ("test",)),
        ("bench/runner.py", ("test",)),
        ("jsonpickle_benchmarks.py", ("test",)),
        ("tools/bench_lexer.py", ("test",)),
        ("src/pytest_benchmark/benchmark.py", ()),
        ("src/workbench/app.py", ()),
        # so are fuzz targets and stress tests; a fuzzing library's own fuzz.go is not one
        ("fuzzing/fuzz-targets/utils.py", ("test",)),
        ("fuzz/jmespath.go", ("test",)),
        ("fuzz_unpickle.py", ("test",)),
        ("parser_fuzz.go", ("test",)),
        ("tsan_stress_simplejson.py", ("test",)),
        ("fuzz.go", ()),
        # a folder named for the tests it holds
        ("internal/toml-test/toml.go", ("test",)),
        ("integration_tests/client.py", ("test",)),
        ("src/latest/app.py", ()),
        ("pkg/contest/judge.go", ()),
        ("src/distress_signal.py", ()),
        ("src/..hidden", ()),
    ],
)
def test_file_roles_come_from_the_path(path: str, roles: tuple[str, ...]) -> None:
    assert file_roles(path) == roles


def test_generated_rules_of_the_guard_mark_files_generated() -> None:
    assert file_roles("gen/api.py", lambda p: p.startswith("gen/")) == ("generated",)


def test_identifier_definitions_come_first_in_the_symbol_index_order_with_monotonic_scores() -> None:
    cands = [
        fused("a.py", 1, 0.06, text=1, vector=1),
        fused("b.py", 1, 0.02, symbol="size", exact=True),
        fused("c.py", 1, 0.03, symbol="size", exact=True),
    ]
    cands = [
        Fused(c.span, c.score, {"symbol": r, "text": None, "vector": None}, c.hit, c.exact)
        for c, r in zip(cands, (None, 1, 2), strict=True)
    ]
    ranked = rank(cands, analyse("size"), OFF)
    assert paths(ranked) == [("b.py", 1), ("c.py", 1), ("a.py", 1)]  # the symbol index's order
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)  # never rising down the list
    assert scores[-1] == pytest.approx(0.06) and scores[0] >= 1.0


def test_an_older_version_directory_is_compat_only_beside_a_later_one() -> None:
    paths_ = ["src/v3/types.ts", "src/v4/core/schemas.ts", "api/v1/routes.py", "lib/v2/x.py", "lib/v10/x.py"]
    # v3 beside v4 and v2 beside v10 are older; v1 alone under api/ is the only version there
    assert superseded(paths_) == {"src/v3/types.ts", "lib/v2/x.py"}
    cands = [
        fused("src/v3/types.ts", 1, 0.05, symbol="ZodType"),
        fused("src/v4/types.ts", 1, 0.04, symbol="ZodType"),
    ]
    ranked = rank(cands, analyse("how a schema parses input"), OFF)
    assert paths(ranked)[0] == ("src/v4/types.ts", 1)
    assert ranked[1].steps == [("role:compat", "×0.3")]
    asked = rank(cands, analyse("v3 compatibility types"), OFF)  # the query asks for compat code
    assert paths(asked)[0] == ("src/v3/types.ts", 1)


def test_a_compat_folder_that_holds_all_the_code_among_the_candidates_is_the_project() -> None:
    """The Deprecated library's own package is ``deprecated/``: with no candidate defining anything
    outside it (its tests and docs have roles of their own), it is the project, not old code beside
    the current, and is not demoted; beside code of no role it is, as ``lib/compat/`` is."""
    code = fused("deprecated/sphinx.py", 173, 0.03, symbol="versionadded", kind="function")
    test = fused("tests/test_sphinx.py", 14, 0.05, symbol="directive", kind="function")
    readme = fused("README.md", 1, 0.035)
    ranked = rank([code, test, readme], analyse("insert a versionadded directive in a docstring"), OFF)
    assert paths(ranked) == [("deprecated/sphinx.py", 173), ("README.md", 1), ("tests/test_sphinx.py", 14)]
    assert ranked[0].score == pytest.approx(0.03) and ranked[0].steps == []
    assert ranked[1].score == pytest.approx(0.035 * 0.5) and ranked[2].score == pytest.approx(0.05 * 0.3)
    current = fused("src/directives.py", 1, 0.02, symbol="add_directive", kind="function")
    beside = rank(
        [code, test, readme, current], analyse("insert a versionadded directive in a docstring"), OFF
    )
    assert paths(beside)[0] == ("src/directives.py", 1)
    assert ("role:compat", "×0.3") in {r.fused.span.path: r for r in beside}["deprecated/sphinx.py"].steps


def test_an_identifiers_definitions_in_demoted_files_follow_the_real_ones() -> None:
    cands = [
        Fused(Span(p, 1, 9), s, {"symbol": r, "text": None, "vector": None}, Hit(Span(p, 1, 9), 1.0, "ZodError"), True)
        for p, s, r in (("src/v3/ZodError.ts", 0.05, 1), ("src/v4/core/errors.ts", 0.03, 2), ("tests/z.ts", 0.04, 3))
    ]  # fmt: skip
    ranked = rank(cands, analyse("ZodError"), RankingConfig())
    # the v3 file is named after the name and first in the symbol index, but it is the older version
    assert paths(ranked) == [("src/v4/core/errors.ts", 1), ("src/v3/ZodError.ts", 1), ("tests/z.ts", 1)]
    assert ("exact", "after real code, file named after it") in ranked[1].steps


def test_a_definition_in_a_package_init_is_real_code_a_reexport_is_not() -> None:
    def definition(path: str, symbol_rank: int, kind: str) -> Fused:
        span = Span(path, 10, 40)
        hit = Hit(span, 1.0, "print_json", kind)
        return Fused(span, 0.03, {"symbol": symbol_rank}, hit, True, hit)

    init = definition("rich/__init__.py", 1, "function")  # def print_json(...) in the package
    method = definition("rich/console.py", 2, "method")
    ranked = rank([method, init], analyse("print_json"), _only())
    assert paths(ranked) == [("rich/__init__.py", 10), ("rich/console.py", 10)]  # the symbol index's order
    assert ("exact", "first") in ranked[0].steps
    again = definition("rich/__init__.py", 1, "reexport")  # a name re-exported, not defined there
    ranked = rank([method, again], analyse("print_json"), _only())
    assert paths(ranked) == [("rich/console.py", 10), ("rich/__init__.py", 10)]
    assert ("exact", "after real code") in ranked[1].steps


def test_a_rust_pub_use_goes_after_the_definition_it_reexports_however_near_the_root() -> None:
    """textwrap's wrap_algorithms.rs says ``pub use optimal_fit::{wrap_optimal_fit, …}``, nearer the
    root than the definition in wrap_algorithms/optimal_fit.rs, and the text retriever ranks its short
    chunk first: the definition comes first, the re-export after it. A name only re-exported (serde's
    ``pub use serde_derive::Deserialize``) stays first where nothing else defines it."""

    def definition(path: str, kind: str, symbol_rank: int, text: int) -> Fused:
        span = Span(path, 1, 23)
        hit = Hit(span, 1.0, "wrap_optimal_fit", kind)
        return Fused(span, 0.047, {"symbol": symbol_rank, "text": text}, hit, True, hit)

    reexport = definition("src/wrap_algorithms.rs", "reexport", 2, 1)
    real = definition("src/wrap_algorithms/optimal_fit.rs", "function", 1, 4)
    ranked = rank([reexport, real], analyse("wrap_optimal_fit"), _only())
    assert paths(ranked) == [("src/wrap_algorithms/optimal_fit.rs", 1), ("src/wrap_algorithms.rs", 1)]
    assert ranked[1].steps[-1] == ("exact", "after real code")
    alone = rank([reexport], analyse("wrap_optimal_fit"), _only())
    assert paths(alone) == [("src/wrap_algorithms.rs", 1)] and alone[0].tier == 1


def test_a_type_only_a_declaration_file_declares_is_not_demoted_below_real_code() -> None:
    """handlebars: the AST node ``PathExpression`` is an interface in ``types/index.d.ts``; the
    JavaScript defines no such type, only visitor methods of that name. The interface goes as a
    definition in real code would: nearer the root, first. Where real code defines a type of that
    name, the declaration file is its copy and follows it."""

    def definition(path: str, symbol: str, kind: str, symbol_rank: int) -> Fused:
        return fused(path, 10, 0.03, symbol=symbol, kind=kind, exact=True, symbol_rank=symbol_rank)

    declared = definition("types/index.d.ts", "hbs.AST.PathExpression", "interface", 1)
    visitor = definition("lib/handlebars/compiler/compiler.js", "Compiler.PathExpression", "method", 2)
    ranked = rank([visitor, declared], analyse("PathExpression"), _only())
    assert paths(ranked) == [("types/index.d.ts", 10), ("lib/handlebars/compiler/compiler.js", 10)]
    assert ("exact", "first, a type only a declaration file declares") in ranked[0].steps
    assert ("role:stub", "×0.7") in ranked[0].steps  # its score keeps the penalty; its place does not
    real = definition("lib/handlebars/compiler/ast.js", "PathExpression", "class", 3)
    ranked = rank([visitor, declared, real], analyse("PathExpression"), _only())
    assert paths(ranked)[-1] == ("types/index.d.ts", 10)
    assert ("exact", "after real code") in ranked[-1].steps


def test_phrase_rule_puts_the_few_verbatim_places_first() -> None:
    cands = [
        fused("a.py", 1, 0.06, vector=1),
        fused("b.py", 1, 0.05, vector=2),
        fused("errors.py", 40, 0.01, exact=True, text=1),
    ]
    ranked = rank(cands, analyse("checksum mismatch after upload"), _only(phrase_rule=True))
    assert paths(ranked)[0] == ("errors.py", 40)
    assert ("phrase", "first") in ranked[0].steps
    many = [fused(f"f{i}.py", 1, 0.01, exact=True, text=i + 1) for i in range(6)]
    crowded = rank(
        [*cands[:2], *many], analyse("checksum mismatch"), _only(phrase_rule=True, phrase_places=5)
    )
    assert paths(crowded)[0] == ("a.py", 1)  # six places: not rare, no tier
    arrow = rank(cands, analyse("->"), _only(phrase_rule=True))
    assert paths(arrow)[0] == ("a.py", 1)  # punctuation alone is no text to find


def test_phrase_rule_puts_a_documents_quote_after_the_code_and_before_a_declaration() -> None:
    """content-type's README quotes its functions' JSDoc ("Format an object into a `Content-Type`
    header."): BM25 ranks the README's chunk first, the code that the sentence documents comes first,
    then the README, then the declaration file's copy. A query asking for documentation keeps BM25's
    order."""
    cands = [
        fused("README.md", 41, 0.04, exact=True, text=1)._replace(exact_case=True),
        fused("dist/index.d.ts", 1, 0.035, exact=True, text=2)._replace(exact_case=True),
        fused("dist/index.js", 35, 0.03, exact=True, text=3)._replace(exact_case=True),
        fused("dist/other.js", 1, 0.06, vector=1),
    ]
    ranked = rank(cands, analyse("Format an object into a `Content-Type` header."), RankingConfig())
    assert paths(ranked) == [
        ("dist/index.js", 35),
        ("README.md", 41),
        ("dist/index.d.ts", 1),
        ("dist/other.js", 1),
    ]
    assert ("phrase", "after the code (documentation)") in ranked[1].steps
    # ranked first by its words and by its meaning, the README loses its role's penalty (rule 4) and is
    # a document all the same: after the code, as the declaration file is
    agreed = fused("README.md", 41, 0.04, exact=True, text=1, vector=1)._replace(exact_case=True)
    ranked = rank(
        [agreed, *cands[1:3]], analyse("Format an object into a `Content-Type` header."), RankingConfig()
    )
    assert paths(ranked) == [("dist/index.js", 35), ("README.md", 41), ("dist/index.d.ts", 1)]
    assert ("role:docs", "×1: first by its words and by its meaning") in ranked[1].steps
    assert ranked[1].steps[-1] == ("phrase", "after the code (documentation)")
    asked = rank(cands[:1] + cands[2:], analyse("readme: Format an object into a header"), RankingConfig())
    assert paths(asked)[:2] == [("README.md", 41), ("dist/index.js", 35)]
    assert ("phrase", "first") in asked[0].steps


def test_a_function_sentence_that_only_documents_hold_asks_for_the_function() -> None:
    """dpath's README (and the PKG-INFO that repeats it) quotes its functions' docstrings: "Given a
    path glob, set all existing elements in the document to the given value." held by documents only,
    the code wording it otherwise, asks for the function ``set``, not for the pages quoting it. With
    the roles' penalties only (docs 0.5): the README 0.040 × 0.5 = 0.020 and the PKG-INFO 0.038 × 0.5
    = 0.019 follow ``set`` at 0.030, with no tier; the README, the text retriever's first, stays on
    the page. A topic is no function's documentation: the documents holding it come first."""
    sentence = "Given a path glob, set all existing elements in the document to the given value."
    cands = [
        fused("README.rst", 121, 0.040, exact=True, text=1)._replace(exact_case=True),
        fused("PKG-INFO", 161, 0.038, exact=True, text=2)._replace(exact_case=True),
        fused("dpath/__init__.py", 133, 0.030, symbol="set", kind="function", symbol_rank=1, vector=1),
        fused("dpath/segments.py", 10, 0.025, vector=2),
    ]
    query = analyse(sentence)
    assert query.form == "function"
    ranked = rank(cands, query, _only(phrase_rule=True))
    assert paths(ranked) == [
        ("dpath/__init__.py", 133),
        ("dpath/segments.py", 10),
        ("README.rst", 121),
        ("PKG-INFO", 161),
    ]
    assert [r.tier for r in ranked] == [0, 0, 0, 0]
    assert [round(r.score, 4) for r in ranked] == [0.03, 0.025, 0.02, 0.019]
    assert not any(rule == "phrase" for r in ranked for rule, _ in r.steps)
    # where code holds it too, the phrase rule puts the code first and the documents after it
    with_code = [*cands, fused("dpath/legacy.py", 40, 0.01, exact=True, text=3)._replace(exact_case=True)]
    ranked = rank(with_code, query, _only(phrase_rule=True))
    assert paths(ranked)[:3] == [("dpath/legacy.py", 40), ("README.rst", 121), ("PKG-INFO", 161)]
    assert ranked[1].steps[-1] == ("phrase", "after the code (documentation)")
    # a source map carries the sources a build compiled, comments included: held by it and the README
    # only (path-to-regexp's dist/index.js.map), the sentence still asks for the function, and the
    # map (generated, 0.035 × 0.3) follows the code
    mapped = [fused("dist/index.js.map", 1, 0.035, exact=True, text=1)._replace(exact_case=True), *cands]
    ranked = rank(mapped, query, _only(phrase_rule=True))
    assert paths(ranked)[0] == ("dpath/__init__.py", 133) and [r.tier for r in ranked] == [0] * 5
    assert ("dist/index.js.map", 1) in paths(ranked) and ranked[-1].steps[0] == ("role:generated", "×0.3")
    # a Go file in cobra's package doc/ has the docs role by its folder and is code, no document
    go = [fused("doc/rest_docs.go", 138, 0.02, exact=True, text=1)._replace(exact_case=True), cands[2]]
    ranked = rank(go, query, _only(phrase_rule=True))
    assert paths(ranked)[0] == ("doc/rest_docs.go", 138)
    assert ranked[0].steps[-1] == ("phrase", "first")
    # a topic: the documents holding it verbatim come first, in the text retriever's order
    held = [
        fused("README.rst", 121, 0.040, exact=True, text=1)._replace(exact_case=True),
        fused("PKG-INFO", 161, 0.038, exact=True, text=2)._replace(exact_case=True),
        cands[2],
    ]
    phrase = analyse("existing elements in the document")
    assert phrase.form != "function"
    topic = rank(held, phrase, _only(phrase_rule=True))
    assert paths(topic)[:2] == [("README.rst", 121), ("PKG-INFO", 161)]
    assert topic[0].tier == 1


def test_phrase_rule_puts_a_declaration_files_copy_after_the_code_it_documents() -> None:
    """commander ships ``typings/index.d.ts`` with its JSDoc repeated word for word: a pasted doc sentence
    is found in both, BM25 ranks the declarations' chunk first, the implementation comes first."""
    cands = [
        fused("typings/index.d.ts", 367, 0.04, exact=True, text=1)._replace(exact_case=True),
        fused("lib/command.js", 301, 0.03, exact=True, text=2)._replace(exact_case=True),
        fused("lib/option.js", 1, 0.06, vector=1),
    ]
    ranked = rank(cands, analyse("Define argument syntax for command."), RankingConfig())
    assert paths(ranked) == [("lib/command.js", 301), ("typings/index.d.ts", 367), ("lib/option.js", 1)]
    assert ("phrase", "after the code (a declaration)") in ranked[1].steps
    alone = rank([cands[0], cands[2]], analyse("Define argument syntax for command."), RankingConfig())
    assert paths(alone)[0] == ("typings/index.d.ts", 367)  # the only place: still first
    # first in both retrievers, the declarations keep their role (see _roles), not their place
    both = [cands[0]._replace(ranks={"symbol": None, "text": 1, "vector": 1}), *cands[1:]]
    agreed = rank(both, analyse("Define argument syntax for command."), RankingConfig())
    assert paths(agreed)[:2] == [("lib/command.js", 301), ("typings/index.d.ts", 367)]


def test_phrase_rule_puts_a_source_maps_copy_after_the_code_it_maps() -> None:
    """A package's ``dist/`` holds ``escape.js.map`` beside ``escape.js``: one line of JSON carrying the
    source's text, a doc sentence included, which BM25 may rank first; the code comes first."""
    sentence = analyse("Escape all magic characters in a glob pattern.")
    cands = [
        fused("dist/esm/escape.js.map", 1, 0.04, exact=True, text=1)._replace(exact_case=True),
        fused("dist/esm/escape.js", 17, 0.03, exact=True, text=2)._replace(exact_case=True),
    ]
    ranked = rank(cands, sentence, RankingConfig())
    assert paths(ranked) == [("dist/esm/escape.js", 17), ("dist/esm/escape.js.map", 1)]
    assert ("phrase", "after the code (a source map)") in ranked[1].steps
    assert ("role:generated", "×0.3") in ranked[1].steps


def test_phrase_rule_puts_the_phrase_as_written_first_when_it_has_capitals() -> None:
    def place(path: str, score: float, text: int, cased: bool) -> Fused:
        f = fused(path, 1, score, exact=True, text=text)
        return f._replace(exact_case=cased)

    cands = [place("comment.py", 0.05, 1, False), place("errors.py", 0.01, 2, True), fused("a.py", 1, 0.06)]
    pasted = rank(cands, analyse("Event loop is closed"), _only(phrase_rule=True))
    assert paths(pasted) == [("errors.py", 1), ("comment.py", 1), ("a.py", 1)]
    assert pasted[1].steps == [("phrase", "first (case differs)")]
    typed = rank(cands, analyse("event loop is closed"), _only(phrase_rule=True))
    assert paths(typed) == [("comment.py", 1), ("errors.py", 1), ("a.py", 1)]  # BM25's order: no case asked


def test_phrase_rule_puts_a_place_within_a_line_before_one_across_a_line_break() -> None:
    """A message written on one line in one file and split over two literals in another: the line is
    the text it was copied from; the split copy follows, whatever BM25 preferred. Alone, a split
    place is still first."""
    split = fused("validators.py", 349, 0.05, exact=True, text=1)._replace(exact_case=True, loose=WRAPPED)
    whole = fused("validators.py", 485, 0.03, exact=True, text=2)._replace(exact_case=True)
    cands = [split, whole, fused("a.py", 1, 0.06, vector=1)]
    for query in (
        "keyword was immediately followed by keyword character",
        "Call validator.evolve() instead.",
    ):
        ranked = rank(cands, analyse(query), _only(phrase_rule=True))
        assert paths(ranked) == [("validators.py", 485), ("validators.py", 349), ("a.py", 1)]
        assert ranked[0].steps == [("phrase", "first")]
        assert ranked[1].steps[-1][1].endswith("across a line break)")
    alone = rank([split, cands[2]], analyse("Call validator.evolve() instead."), _only(phrase_rule=True))
    assert paths(alone)[0] == ("validators.py", 349)


def _phrase_places(path: str, n: int, *, first_text: int) -> list[Fused]:
    """``n`` places of a phrase in ``path`` that do not hold it as written, the text retriever's from
    ``first_text`` on."""
    return [fused(path, i * 20, 0.05, exact=True, text=first_text + i) for i in range(n)]


def _alone_first(ranked: list[Ranked], place: tuple[str, int]) -> None:
    """The phrase rule put ``place`` first and nothing else in a tier."""
    assert paths(ranked)[0] == place and ("phrase", "first") in ranked[0].steps
    assert all(r.tier == 0 for r in ranked[1:])


def test_phrase_rule_counts_a_pasted_phrase_rare_when_it_is_rare_as_written() -> None:
    """The phrase "Should not match" once as written and in six tests' comments in lower case: ripgrep's smart
    case finds one place, so the phrase rule puts that one first; typed in lower case, it is common."""
    lower = _phrase_places("old_test.go", 6, first_text=1)
    written = fused("mux_test.go", 1786, 0.02, exact=True, text=7)._replace(exact_case=True)
    cands = [*lower, written, fused("route.go", 41, 0.06)]
    _alone_first(rank(cands, analyse("Should not match"), _only(phrase_rule=True)), ("mux_test.go", 1786))
    # typed in lower case, the six comments hold it as typed and the test in another case
    as_typed = [f._replace(exact_case=True) for f in lower]
    typed_cands = [*as_typed, written._replace(exact_case=False), cands[-1]]
    typed = rank(typed_cands, analyse("should not match"), _only(phrase_rule=True))
    assert paths(typed)[0] == ("route.go", 41) and all(r.tier == 0 for r in typed)  # 7 places: not rare


def test_phrase_rule_counts_a_lowercase_phrase_rare_where_few_hold_it_as_typed() -> None:
    """go-flags' "unexpected error: %s": once so, and "Unexpected error: %s" in five tests. Six places in
    any case are too many; the one that holds it as typed, lower case and all, is rare. Where more than
    a few hold it as typed, nothing is."""
    capital = _phrase_places("help_test.go", 5, first_text=2)
    as_typed = fused("group_test.go", 267, 0.02, exact=True, text=1)._replace(exact_case=True)
    cands = [*capital, as_typed, fused("error.go", 104, 0.06)]
    _alone_first(
        rank(cands, analyse("unexpected error: %s"), _only(phrase_rule=True)), ("group_test.go", 267)
    )
    common = [f._replace(exact_case=True) for f in capital] + [as_typed, cands[-1]]
    ranked = rank(common, analyse("unexpected error: %s"), _only(phrase_rule=True))
    assert all(r.tier == 0 for r in ranked)


def test_the_few_places_of_the_words_a_definition_was_asked_in_follow_its_definitions() -> None:
    """urllib3's "HTTPSConnection constructor." is read as the constructor of ``HTTPSConnection``: the
    class first; the one docstring that holds the words as typed right after it, above every other
    mention of the name; in another case after one as written; common words place nothing."""
    query = as_definition(
        analyse("HTTPSConnection constructor."),
        NameRequest("HTTPSConnection", frozenset({"method", "constructor"}), True),
    )
    cls = fused("connection.py", 671, 0.048, exact=True, symbol="HTTPSConnection", kind="class",
                symbol_rank=1, text=4)  # fmt: skip
    mentions = [fused(f"m{i}.py", 1, 0.03 - i * 0.001, text=i + 1) for i in range(12)]
    docstring = fused("connection.py", 751, 0.018, text=11)._replace(asked=2)
    ranked = rank([cls, *mentions, docstring], query, _only(phrase_rule=True))
    assert paths(ranked)[:3] == [("connection.py", 671), ("connection.py", 751), ("m0.py", 1)]
    assert ranked[1].tier == 1 and ranked[1].steps == [
        ("phrase", "after the definitions (the words as asked)")
    ]
    other_case = fused("notes.py", 1, 0.05, text=2)._replace(asked=1)
    ranked = rank([cls, *mentions, other_case, docstring], query, _only(phrase_rule=True))
    assert paths(ranked)[:3] == [("connection.py", 671), ("connection.py", 751), ("notes.py", 1)]
    assert ranked[2].steps == [("phrase", "after the definitions (the words as asked, case differs)")]
    # the class's own chunk holding the words stays the definition; six places as written: not rare
    common = [m._replace(asked=2) for m in mentions[:6]]
    ranked = rank([cls._replace(asked=2), *common, *mentions[6:]], query, _only(phrase_rule=True))
    assert paths(ranked)[:2] == [("connection.py", 671), ("m0.py", 1)] and ranked[1].tier == 0
    assert ranked[0].steps[-1][0] == "exact"
    off = rank([cls, *mentions, docstring], query, OFF)
    assert ("connection.py", 751) not in paths(off)[:10]  # the rule is what keeps it on the page


def test_phrase_rule_counts_a_phrase_rare_when_it_is_rare_within_a_line() -> None:
    """urllib3's "will be removed in urllib3 v3.0." is written whole on one line once and split over
    two string literals in six other places: seven places are not rare, one within a line is, as
    ripgrep reads it; the split ones stay where the score puts them."""
    split = [
        fused(f"fields{i}.py", 1, 0.05, exact=True, text=i + 1)._replace(exact_case=True, loose=WRAPPED)
        for i in range(6)
    ]
    whole = fused("fields.py", 171, 0.02, exact=True, text=7)._replace(exact_case=True)
    cands = [*split, whole, fused("poolmanager.py", 1, 0.06, vector=1)]
    ranked = rank(cands, analyse("will be removed in urllib3 v3.0."), _only(phrase_rule=True))
    assert paths(ranked)[0] == ("fields.py", 171) and ranked[0].steps == [("phrase", "first")]
    assert all(r.tier == 0 for r in ranked[1:])
    assert paths(ranked)[1] == ("poolmanager.py", 1)
    crowded = [*split, *(whole._replace(span=Span(f"w{i}.py", 1, 10)) for i in range(6))]
    assert all(r.tier == 0 for r in rank(crowded, analyse("removed in urllib3"), _only(phrase_rule=True)))


def test_names_written_as_a_phrase_put_its_rare_places_first() -> None:
    """ "div.console div.inner" reads as two names (a CSS selector): the one template that holds it as
    written comes before a definition of ``console``; a single name keeps its definitions first."""
    query = analyse("div.console div.inner")
    assert query.shape == "identifier"
    definition = fused("debug/console.py", 1, 0.05, symbol="console", exact=True, symbol_rank=1)
    template = fused("debug/shared/style.css", 40, 0.02, exact=True, text=1)._replace(exact_case=True)
    ranked = rank([definition, template], query, _only(phrase_rule=True))
    assert paths(ranked) == [("debug/shared/style.css", 40), ("debug/console.py", 1)]
    assert ranked[0].steps[-1] == ("phrase", "first")
    crowded = [definition, *(template._replace(span=Span(f"t{i}.css", 1, 10)) for i in range(6))]
    assert paths(rank(crowded, query, _only(phrase_rule=True)))[0] == ("debug/console.py", 1)
    alone = rank([definition, template], analyse("console"), _only(phrase_rule=True))
    assert paths(alone)[0] == ("debug/console.py", 1)


@pytest.mark.parametrize(
    "pasted", ["name:endblock", "[blue]Title", "$Version=%s", "check-sum", "t.Reversible[V]"]
)
def test_phrase_rule_takes_one_token_of_code_joined_by_punctuation(pasted: str) -> None:
    cands = [
        fused("a.py", 1, 0.06, vector=1),
        fused("b.py", 1, 0.05, vector=2),
        fused("lexer.py", 40, 0.01, exact=True, text=1)._replace(exact_case=True),
    ]
    ranked = rank(cands, analyse(pasted), _only(phrase_rule=True))
    assert paths(ranked)[0] == ("lexer.py", 40)
    assert ("phrase", "first") in ranked[0].steps


def test_the_text_retrievers_top_hit_keeps_a_place_on_the_first_page() -> None:
    cands = [fused(f"v{i}.py", 1, 0.05 - i * 0.001, vector=i + 1) for i in range(12)]
    rare = fused("rare.py", 1, 0.001, text=1)
    ranked = rank(
        [*cands, rare], analyse("some rare words"), _only(keep_text_top=True), text_top=rare, limit=10
    )
    assert paths(ranked)[9] == ("rare.py", 1)
    assert ranked[9].steps[-1] == ("keep", "moved from 13 to 10")
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)
    # Kept hits take places in the second half of the page only: a search for one gets the best one.
    one = rank([*cands, rare], analyse("some rare words"), _only(keep_text_top=True), text_top=rare, limit=1)
    assert paths(one)[0] == ("v0.py", 1)
    two = rank([*cands, rare], analyse("some rare words"), _only(keep_text_top=True), text_top=rare, limit=2)
    assert paths(two)[:2] == [("v0.py", 1), ("rare.py", 1)]


def test_a_function_sentence_keeps_the_dense_retrievers_top_hit_on_the_first_page_too() -> None:
    both = [fused(f"b{i}.py", 1, 0.05 - i * 0.001, text=i + 1, vector=i + 3) for i in range(12)]
    dense = fused("dense.py", 1, 0.002, vector=1)
    rare = fused("rare.py", 1, 0.001, text=20)
    sentence = analyse("Return the running event loop.")
    assert sentence.form == "function"
    config = _only(keep_text_top=True, keep_dense_top=1)
    ranked = rank([*both, dense, rare], sentence, config, text_top=rare, dense_top=[dense], limit=10)
    # 14 candidates: dense.py 13th, rare.py 14th; both move, in their order, to slots 9 and 10.
    assert paths(ranked)[8:10] == [("dense.py", 1), ("rare.py", 1)]
    assert ranked[8].steps[-1] == ("keep", "moved from 13 to 9")
    assert ranked[9].steps[-1] == ("keep", "moved from 14 to 10")
    assert paths(ranked)[10:] == [("b8.py", 1), ("b9.py", 1), ("b10.py", 1), ("b11.py", 1)]
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)
    # A topic question keeps only the text retriever's top hit; 0 switches the dense one off.
    topic = rank([*both, dense, rare], analyse("where are uploads retried"), config, text_top=rare,
                 dense_top=[dense], limit=10)  # fmt: skip
    assert paths(topic)[9] == ("rare.py", 1) and ("dense.py", 1) not in paths(topic)[:10]
    off = rank([*both, dense], sentence, _only(keep_dense_top=0), dense_top=[dense], limit=10)
    assert ("dense.py", 1) not in paths(off)[:10]


def test_a_kept_hit_makes_way_for_itself_below_a_result_both_retrievers_rank_near_their_top() -> None:
    """The text retriever's best hit keeps a place on the page, but not in place of a result the text
    and the dense retrievers both rank within their first three (two retrievers' agreement outweighs
    one's best): the page's last result held by neither makes way instead."""
    cands = [fused(f"v{i}.py", 1, 0.05 - i * 0.001, vector=i + 4) for i in range(9)]
    agreed = fused("agreed.py", 1, 0.03, text=2, vector=2)  # 10th by score: a demoted test, say
    cands += [agreed, *(fused(f"w{i}.py", 1, 0.02 - i * 0.001, vector=i + 20) for i in range(3))]
    rare = fused("rare.py", 1, 0.001, text=1)
    config = _only(keep_text_top=True)
    ranked = rank([*cands, rare], analyse("some rare words"), config, text_top=rare, limit=10)
    assert paths(ranked)[7:11] == [("v7.py", 1), ("agreed.py", 1), ("rare.py", 1), ("v8.py", 1)]
    assert ranked[8].steps == [("keep", "stays: within the text and the dense retrievers' first 3")]
    assert ranked[9].steps == [("keep", "moved from 14 to 10")]
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True)
    # Never in place of a verified (tiered) result: with seven on the page and three kept, it makes way.
    from search.engine.ranking import Ranked, _keep

    tiered = [Ranked(fused(f"t{i}.py", 1, 0.05), 1.05, tier=1) for i in range(7)]
    held = Ranked(agreed, 0.03)
    rest = [Ranked(fused(f"u{i}.py", 1, 0.02), 0.02 - i * 0.001) for i in range(2)]
    kept = [Ranked(fused(f"k{i}.py", 1, 0.001, text=1), 0.001) for i in range(3)]
    page = [*tiered, held, *rest, *kept]
    _keep(page, [k.fused for k in kept], 10)
    assert [r.fused.span.path for r in page[:10]] == [
        *(f"t{i}.py" for i in range(7)),
        "k0.py",
        "k1.py",
        "k2.py",
    ]
    # Ranked fourth by one retriever, it makes way as any result does.
    cands[9] = fused("agreed.py", 1, 0.03, text=2, vector=4)
    ranked = rank([*cands, rare], analyse("some rare words"), config, text_top=rare, limit=10)
    assert paths(ranked)[8:11] == [("v8.py", 1), ("rare.py", 1), ("agreed.py", 1)]


@pytest.mark.parametrize(
    ("text", "relatives"),
    [
        ("This method is like `_.findKey` except that it iterates over elements in the opposite order.",
         ("_.findKey",)),
        ("The same as [`groupBy`]module:Collections.groupBy but runs only a single async operation at a time.",
         ("groupBy", "Collections.groupBy")),
        ("A specialized version of `_.filter` for arrays.", ("_.filter",)),
        ("Creates a getUserMap like `getUser` but keyed by id.", ("getUser",)),  # where written whole
        ("Like iteritems(), but with all lowercase keys.", ("iteritems",)),  # a plain word written as code
        ("Same as `map` but in series.", ("map",)),
        ("Same as map but in series.", ()),  # a plain word as a word: no name
        ("Similar to :func:`pass_context`, but only pass the object on the context onwards.", ("pass_context",)),
        ("Like :meth:`errorhandler`, but for every request.", ("errorhandler",)),  # a reST role's word
        ("Alias for :meth:`main`.", ("main",)),  # what it stands in for
        ("Shortcut for add_route with method GET.", ("add_route",)),
        ("Wrapper around `fetch` that retries on a timeout.", ("fetch",)),
        ("Returns a copy of `current_app` for the request.", ()),  # named, not compared with
        ("how does `_.findKey` compare with find_last_key", ()),  # a question, not a function's documentation
    ],
)  # fmt: skip
def test_a_function_sentence_names_the_relatives_it_compares_its_function_with(
    text: str, relatives: tuple[str, ...]
) -> None:
    assert analyse(text).relatives == relatives


def test_the_one_definition_of_a_relative_a_function_sentence_names_is_demoted() -> None:
    """lodash's "This method is like `_.findKey` except that it iterates … in the opposite order"
    documents findLastKey: findKey.js, the one candidate defining ``findKey``, is halved. attrs' "Same as
    `attr.asdict`, except …" documents the new ``asdict`` beside the old one: two candidates define the
    name, neither is demoted."""
    sentence = analyse(
        "This method is like `_.findKey` except that it iterates over elements in the opposite order."
    )
    relative = fused("findKey.js", 40, 0.05, symbol="findKey", kind="function", symbol_rank=1, text=1)
    described = fused("findLastKey.js", 40, 0.04, symbol="findLastKey", kind="function", vector=1)
    ranked = rank([relative, described], sentence, _only(relative_penalty=0.5))
    assert paths(ranked) == [("findLastKey.js", 40), ("findKey.js", 40)]
    assert ranked[1].score == pytest.approx(0.025) and ranked[1].steps == [("a relative (findKey)", "×0.5")]
    assert paths(rank([relative, described], sentence, _only(relative_penalty=1.0)))[0] == ("findKey.js", 40)
    same = analyse("Same as `attr.asdict`, except that collections types are always retained.")
    old = fused("src/attr/_funcs.py", 10, 0.05, symbol="asdict", kind="function", symbol_rank=1)
    new = fused("src/attr/_next_gen.py", 620, 0.04, symbol="asdict", kind="function", symbol_rank=2)
    both = rank([old, new], same, _only(relative_penalty=0.5))
    assert [r.score for r in both] == [0.05, 0.04] and all(not r.steps for r in both)


@pytest.mark.parametrize(
    ("text", "overrides"),
    [
        ("An overridden version of `DateTime#england` that preserves the associated {TimezoneOffset}.",
         ("DateTime#england",)),
        ("Overrides `Base.save` to flush the cache first.", ("Base.save",)),
        ("Override of :meth:`Mapping.get` that logs each miss.", ("Mapping.get",)),
        ("This method is like `_.findKey` except that it iterates from the right.", ()),  # a relative
        ("Returns the `Base.save` callback, which subclasses override.", ()),  # "override" after the name
        ("how to override `Base.save` in a subclass", ()),  # a question, not a function's documentation
    ],
)  # fmt: skip
def test_a_function_sentence_names_the_method_its_function_overrides(
    text: str, overrides: tuple[str, ...]
) -> None:
    analysed = analyse(text)
    assert analysed.overrides == overrides
    assert not set(overrides) & set(analysed.relatives)  # an override is no relative


def test_an_override_is_the_method_of_the_overridden_name_in_another_owner() -> None:
    """tzinfo's "An overridden version of `DateTime#england` that …" documents
    ``DateTimeWithOffset.england``: a definition of ``england`` gains as a sentence's name does, half
    the definition weight; ``DateTime``'s own ``england``, where the workspace defines it, gains nothing."""
    sentence = analyse(
        "An overridden version of `DateTime#england` that preserves the associated {TimezoneOffset}."
    )
    owner = fused("lib/tzinfo/datetime_with_offset.rb", 1, 0.0524, vector=1, text=2)
    override = fused(
        "lib/tzinfo/datetime_with_offset.rb", 61, 0.0468, symbol="TZInfo.DateTimeWithOffset.england",
        kind="method", symbol_rank=1, text=4,
    )  # fmt: skip
    base = fused("lib/date_time.rb", 5, 0.05, symbol="DateTime.england", kind="method", symbol_rank=2)
    ranked = rank([owner, override, base], sentence, _only(definition=3.0))
    by_line = {r.fused.span.start_line: r for r in ranked}
    # top 0.0524; a sentence's scale 0.5: 0.0468 + 3.0 × 0.0524 × 0.5
    assert paths(ranked)[0] == ("lib/tzinfo/datetime_with_offset.rb", 61)
    assert by_line[61].score == pytest.approx(0.0468 + 3.0 * 0.0524 * 0.5)
    assert by_line[5].score == pytest.approx(0.05) and not by_line[5].steps
    plain = analyse("Preserves the associated {TimezoneOffset} of `DateTime#england`.")
    assert (
        plain.overrides == ()
        and rank([owner, override], plain, _only(definition=3.0))[0].fused.span.start_line == 1
    )


def test_a_chunk_holding_another_function_beside_the_relative_is_not_demoted() -> None:
    """asttokens' "Same as get_token(), but interprets col_offset as a UTF8 offset …" documents
    ``get_token_from_utf8``, which the chunk labelled ``get_token`` holds after it: that chunk is not
    only the relative, and keeps its score. Where the symbol index finds only the relative on its lines,
    it is halved as before."""
    sentence = analyse("Same as get_token(), but interprets col_offset as a UTF8 offset.")
    pair = fused(
        "asttokens.py", 172, 0.06, symbol="ASTTokens.get_token", kind="method", symbol_rank=1, text=1
    )
    other = fused("line_numbers.py", 24, 0.05, symbol="LineNumbers", kind="class", text=2)
    defined = {("asttokens.py", 172): ["ASTTokens.get_token", "ASTTokens.get_token_from_utf8"]}

    def within(path: str, start: int, end: int) -> list[str]:
        return defined.get((path, start), [])

    kept = rank([pair, other], sentence, _only(relative_penalty=0.5), functions_within=within)
    assert paths(kept) == [("asttokens.py", 172), ("line_numbers.py", 24)]
    assert kept[0].score == pytest.approx(0.06) and kept[0].steps == []
    defined[("asttokens.py", 172)] = ["ASTTokens.get_token"]
    alone = rank([pair, other], sentence, _only(relative_penalty=0.5), functions_within=within)
    assert paths(alone) == [("line_numbers.py", 24), ("asttokens.py", 172)]
    assert alone[1].score == pytest.approx(0.03) and alone[1].steps == [("a relative (get_token)", "×0.5")]
    # a function nested in the relative's own is no other function beside it: click's "Similar to
    # :func:`pass_context`, but …" documents ``pass_obj``; ``pass_context`` defines ``new_func`` within
    defined[("asttokens.py", 172)] = ["ASTTokens.get_token", "ASTTokens.get_token.new_func"]
    nested = rank([pair, other], sentence, _only(relative_penalty=0.5), functions_within=within)
    assert paths(nested) == [("line_numbers.py", 24), ("asttokens.py", 172)]
    assert nested[1].steps == [("a relative (get_token)", "×0.5")]


def test_a_function_sentence_demotes_candidates_that_define_nothing() -> None:
    def labelled(path: str, score: float, symbol: str | None, kind: str | None) -> Fused:
        span = Span(path, 1, 10)
        return Fused(span, score, {"text": None, "symbol": None, "vector": 1}, Hit(span, 1.0, symbol, kind))

    cands = [
        labelled("imports.py", 0.050, None, None),  # module-level code: defines nothing
        labelled("script.py", 0.046, None, None),
        labelled("limits.py", 0.031, "MAX_HEADERS", "constant"),  # may hold a function after it
        labelled("loop.py", 0.030, "get_running_loop", "function"),
    ]
    sentence = analyse("Return the running event loop.")
    assert sentence.form == "function"
    ranked = rank(cands, sentence, _only(undefined_penalty=0.5))
    # 0.050 × 0.5 = 0.025 and 0.046 × 0.5 = 0.023 fall below the two chunks that define something.
    assert paths(ranked) == [("limits.py", 1), ("loop.py", 1), ("imports.py", 1), ("script.py", 1)]
    assert [round(r.score, 6) for r in ranked] == [0.031, 0.03, 0.025, 0.023]
    assert ranked[2].steps == [("defines nothing", "×0.5")] and ranked[0].steps == []
    # A topic or a question asks for an area, not one function: nothing is demoted; 1.0 switches it off.
    topic = rank(cands, analyse("where is the event loop started"), _only(undefined_penalty=0.5))
    assert paths(topic)[0] == ("imports.py", 1) and all(not r.steps for r in topic)
    off = rank(cands, sentence, _only(undefined_penalty=1.0))
    assert paths(off)[0] == ("imports.py", 1)


def test_a_kept_hit_never_takes_a_verified_results_place() -> None:
    places = [fused(f"p{i}.py", 1, 0.01, exact=True, text=i + 1) for i in range(9)]
    others = [fused(f"o{i}.py", 1, 0.05, vector=i + 2) for i in range(3)]
    dense = fused("dense.py", 1, 0.001, vector=1)
    rare = fused("rare.py", 1, 0.0005, text=30)
    config = _only(keep_text_top=True, keep_dense_top=1, phrase_rule=True, phrase_places=9)
    ranked = rank([*places, *others, dense, rare], analyse("Return the running event loop."), config,
                  text_top=rare, dense_top=[dense], limit=10)  # fmt: skip
    # The phrase's nine places come first (tier 1); one slot is left, and the first kept hit takes it.
    assert [r.tier for r in ranked[:9]] == [1] * 9
    assert paths(ranked)[9] == ("dense.py", 1) and ("rare.py", 1) not in paths(ranked)[:10]


def test_ranking_is_deterministic_under_ties() -> None:
    cands = [fused(p, 1, 0.02) for p in ("c.py", "a.py", "b.py")]
    first = paths(rank(cands, analyse("parse config"), RankingConfig()))
    assert first == paths(rank(list(reversed(cands)), analyse("parse config"), RankingConfig()))
    assert first == [("a.py", 1), ("b.py", 1), ("c.py", 1)]


def test_explain_lists_ranks_fused_score_and_rules() -> None:
    cands = [fused("tests/test_x.py", 1, 0.05, text=2, vector=1)]
    out = rank(cands, analyse("parse the config"), RankingConfig())[0].explain()
    assert out["ranks"] == {"text": 2, "symbol": None, "vector": 1}
    assert out["fused"] == 0.05
    assert {"rule": "role:test", "effect": "×0.3"} in out["rules"]


def test_ranking_config_rejects_unknown_keys_and_bad_values() -> None:
    assert RankingConfig.from_table({"saturation": 0.7, "phrase_rule": False}).saturation == 0.7
    with pytest.raises(ConfigError, match="no setting 'saturaton'"):
        RankingConfig.from_table({"saturaton": 0.5})
    with pytest.raises(ConfigError, match="true or false"):
        RankingConfig.from_table({"enabled": 1})
    with pytest.raises(ConfigError, match="number"):
        RankingConfig.from_table({"path": -1})
    assert RankingConfig.from_table({"keep_dense_top": 0}).keep_dense_top == 0
    with pytest.raises(ConfigError, match="integer ≥ 0"):
        RankingConfig.from_table({"keep_dense_top": -1})
    with pytest.raises(ConfigError, match="positive integer"):
        RankingConfig.from_table({"pool": 0})


def test_a_sentences_text_top_keeps_its_place_whatever_share_of_the_words_it_holds(tmp_path) -> None:
    """Through the engine: twelve dense hits, and a text hit that holds only some of the words."""
    from indexer import load_settings
    from search.engine.engine import Engine

    engine = Engine(load_settings(tmp_path, env={}, overrides={"index_dir": str(tmp_path / "index")}))
    try:
        dense = [Hit(Span(f"v{i}.py", 1, 9), 1.0) for i in range(12)]
        partial = Hit(Span("rare.py", 1, 9), 1.0, coverage=0.4)
        ranked = engine.order(
            analyse("where are partial uploads resumed"), {"vector": dense, "text": [partial]}
        )
        assert len(ranked) == 10 and paths(ranked)[9] == ("rare.py", 1)
        assert ranked[9].steps[-1][0] == "keep"
        # Twenty asked for, ten shown in full (the MCP tool lists the rest by location): the kept hit
        # is on the first ten, which are those of a search for ten.
        longer = engine.order(
            analyse("where are partial uploads resumed"),
            {"vector": dense, "text": [partial]},
            limit=20,
            page=10,
        )
        assert len(longer) == 13 and paths(longer)[:10] == paths(ranked)
        unpaged = engine.order(analyse("where are partial uploads resumed"), {"vector": dense, "text": [partial]},
                               limit=20)  # fmt: skip
        assert paths(unpaged)[9] != ("rare.py", 1)  # without a page the first page of twenty is twenty
        with pytest.raises(QueryError, match="page must be between 1 and the limit"):
            engine.search(Query("partial uploads", limit=5, page=6))
    finally:
        engine.close()


def test_a_longer_list_begins_as_a_shorter_one_whatever_the_retrievers_deep_hits(tmp_path) -> None:
    """A search for forty asks each retriever for 120 hits, a search for ten for its pool (60): a
    hit the dense retriever ranks 13th and the text retriever 74th would gain from that deep rank in
    the longer search only, and move into its first ten. The ranking reads each retriever's pool
    whatever the limit; the deeper hits only fill a list the pool cannot (a name's pool is 30)."""
    from indexer import load_settings
    from search.engine.engine import Engine

    engine = Engine(load_settings(tmp_path, env={}, overrides={"index_dir": str(tmp_path / "index")}))
    try:
        dense = [Hit(Span(f"v{i}.py", 1, 9), 1.0) for i in range(70)]
        words = [Hit(Span(f"t{i}.py", 1, 9), 1.0) for i in range(80)]
        words[73] = Hit(Span("v12.py", 1, 9), 1.0)
        query = analyse("where are partial uploads resumed")
        ten = engine.order(query, {"vector": dense, "text": words})
        forty = engine.order(query, {"vector": dense, "text": words}, limit=40)
        assert len(forty) == 40 and paths(forty)[:10] == paths(ten)
        assert ("v12.py", 1) not in paths(ten)
        # a name: a pool of 30 each, 60 candidates; a list of 90 is filled from the deeper hits, after
        named = analyse("UploadSession")
        short = engine.order(named, {"vector": dense, "text": words}, limit=20)
        long = engine.order(named, {"vector": dense, "text": words}, limit=90)
        assert paths(long)[:20] == paths(short) and len(long) == 90
        assert all(a.score >= b.score for a, b in itertools.pairwise(long))
    finally:
        engine.close()


def test_a_function_sentence_keeps_a_test_a_retriever_ranks_near_its_top_when_the_page_lists_none() -> None:
    code = [fused(f"b{i}.py", 1, 0.05 - i * 0.001, text=i + 4, vector=i + 4) for i in range(12)]
    test = fused("tests/test_codec.py", 1, 0.03, text=2)  # ×0.3 by its role: 0.009, 13th
    sentence = analyse("Unicode text round-trips through UTF-8.")
    assert sentence.form == "function" and "test" not in sentence.wants
    ranked = rank([*code, test], sentence, _only(keep_test_top=3), limit=10)
    assert paths(ranked)[9] == ("tests/test_codec.py", 1)
    assert ranked[9].steps == [("role:test", "×0.3"), ("keep", "moved from 13 to 10")]
    assert paths(ranked)[10] == ("b9.py", 1)
    # Not beyond the retrievers' first keep_test_top, not with 0, not for a topic.
    far = fused("tests/test_codec.py", 1, 0.03, text=4)
    assert ("tests/test_codec.py", 1) not in paths(rank([*code, far], sentence, _only(keep_test_top=3)))[:10]
    assert ("tests/test_codec.py", 1) not in paths(rank([*code, test], sentence, _only(keep_test_top=0)))[:10]
    topic = analyse("unicode string encoding")
    assert ("tests/test_codec.py", 1) not in paths(rank([*code, test], topic, _only(keep_test_top=3)))[:10]
    # Not when the page lists a test already, and never in place of a result kept there.
    listed = fused("tests/test_other.py", 1, 0.2, text=30)
    page = paths(rank([*code, test, listed], sentence, _only(keep_test_top=3), limit=10))
    assert ("tests/test_codec.py", 1) not in page[:10]
    dense = fused("dense.py", 1, 0.001, vector=1)
    config = _only(keep_test_top=3, keep_dense_top=1)
    kept = rank([*code, test, dense], sentence, config, dense_top=[dense], limit=10)
    assert paths(kept)[9] == ("dense.py", 1) and ("tests/test_codec.py", 1) not in paths(kept)[:10]


def test_a_function_sentence_found_almost_only_in_tests_does_not_demote_them() -> None:
    """Eight of the text retriever's first ten hits and eight of the dense retriever's are tests: the
    sentence is a test's own docstring in words that do not say so, and tests keep their role."""
    tests = [fused(f"tests/test_{i}.py", 1, 0.05 - i * 0.002, text=i + 1, vector=i + 1) for i in range(8)]
    code = [fused(f"src/m{i}.py", 1, 0.045 - i * 0.002, text=9 + i, vector=9 + i) for i in range(2)]
    sentence = analyse("Unicode text round-trips through UTF-8.")
    assert sentence.form == "function" and "test" not in sentence.wants
    ranked = rank([*tests, *code], sentence, _only(tests_found=0.8, agreed_top=0))
    assert paths(ranked)[0] == ("tests/test_0.py", 1) and ranked[0].score == pytest.approx(0.05)
    assert ranked[0].steps == [("role:test", "×1: the sentence is found in tests")]
    demoted = rank([*tests, *code], sentence, _only(tests_found=0, agreed_top=0))
    assert paths(demoted)[0] == ("src/m0.py", 1)  # off: tests ×0.3
    # Seven of ten is not almost only, where code comes first; a topic or a question asks where code
    # lives, tested or not.
    first = fused("src/x.py", 1, 0.03, text=1, vector=1)
    later = [fused(f"tests/test_{i}.py", 1, 0.05 - i * 0.002, text=i + 2, vector=i + 2) for i in range(7)]
    mixed = [first, *later, *code]
    assert paths(rank(mixed, sentence, _only(tests_found=0.8, agreed_top=0)))[0] == ("src/m0.py", 1)
    topic = rank([*tests, *code], analyse("unicode string encoding"), _only(tests_found=0.8, agreed_top=0))
    assert paths(topic)[0] == ("src/m0.py", 1)


def test_a_claim_about_a_name_only_python_defines_keeps_the_tests_role() -> None:
    """ "before_log uses the name parameter …" opens with a name and a verb: Go's doc comments open so,
    Python's docstrings do not (PEP 257: "Return …"), so where only Python files define the name it is
    a claim a test makes about it: tests keep their role and the definition gains nothing; where a Go
    file defines it, its own documentation, the definition gains and tests are demoted."""
    sentence = analyse("before_log uses the name parameter in context manager mode.")
    assert sentence.opens_with_name and "test" not in sentence.wants
    test = fused("tests/test_log.py", 1, 0.05, text=1, vector=2)

    def ranked_with(definition: str) -> list:
        defined = fused(definition, 1, 0.04, symbol="before_log", symbol_rank=1, text=3, vector=1)
        return rank(
            [test, defined, fused("src/other.py", 1, 0.045)], sentence, _only(definition=3.0, agreed_top=0)
        )

    python = ranked_with("src/before.py")
    assert paths(python) == [("tests/test_log.py", 1), ("src/other.py", 1), ("src/before.py", 1)]
    assert python[0].score == pytest.approx(0.05)  # not demoted
    assert python[0].steps == [
        ("role:test", "×1: a claim about a Python name, which its own docstring would not open with")
    ]
    assert python[2].score == pytest.approx(0.04)  # its definition gains nothing
    assert ("definition (a test's claim about it)", "+0.0000") in python[2].steps
    go = ranked_with("src/before.go")
    assert paths(go)[:3] == [("src/before.go", 1), ("src/other.py", 1), ("tests/test_log.py", 1)]
    assert go[0].score == pytest.approx(0.04 + 3.0 * 0.05 * 0.5)  # definition × top × ½ for a sentence
    assert go[2].score == pytest.approx(0.05 * 0.3)  # demoted: a Go doc comment names its definition
    # An imperative documents the function whatever its language: tests are demoted.
    imperative = analyse("Log the name parameter before each attempt.")
    assert not imperative.opens_with_name


def test_a_function_sentence_whose_first_hits_are_all_tests_does_not_demote_them() -> None:
    """The text and the dense retrievers each put three tests first (three of ten, not almost only):
    the words and the meaning agree where the sentence is found, and tests keep their role; where
    either retriever's third hit is code, the tests are demoted."""
    tests = [fused(f"tests/test_{i}.py", 1, 0.05 - i * 0.002, text=i + 1, vector=i + 1) for i in range(3)]
    code = [fused(f"src/m{i}.py", 1, 0.045 - i * 0.002, text=4 + i, vector=4 + i) for i in range(7)]
    sentence = analyse("Unicode text round-trips through UTF-8.")
    assert sentence.form == "function" and "test" not in sentence.wants
    ranked = rank([*tests, *code], sentence, _only(tests_found=0.8, agreed_top=0))
    assert paths(ranked)[:4] == [
        ("tests/test_0.py", 1),
        ("tests/test_1.py", 1),
        ("tests/test_2.py", 1),
        ("src/m0.py", 1),
    ]
    assert ranked[0].score == pytest.approx(0.05)  # not demoted
    assert ranked[0].steps == [("role:test", "×1: the sentence is found in tests")]
    # The dense retriever's third hit is code: tests ×0.3 (0.05 → 0.015), below every code result.
    swapped = [*tests[:2], fused("tests/test_2.py", 1, 0.046, text=3, vector=4)]
    third = [fused("src/m0.py", 1, 0.045, text=4, vector=3), *code[1:]]
    demoted = rank([*swapped, *third], sentence, _only(tests_found=0.8, agreed_top=0))
    assert paths(demoted)[0] == ("src/m0.py", 1)
    assert demoted[-3].score == pytest.approx(0.05 * 0.3) and demoted[-3].steps == [("role:test", "×0.3")]
    # Off with the rule (tests_found = 0), and not for a topic.
    assert paths(rank([*tests, *code], sentence, _only(tests_found=0, agreed_top=0)))[0] == ("src/m0.py", 1)
    topic = analyse("unicode string encoding")
    assert paths(rank([*tests, *code], topic, _only(tests_found=0.8, agreed_top=0)))[0] == ("src/m0.py", 1)


def test_name_words_of_a_sentence_found_in_tests_lift_only_tests() -> None:
    """Where the sentence is found in tests (both retrievers' first three are tests), it is a test's
    own: the code under test whose name its words spell (``start_job``) gains nothing from them."""
    tests = [fused(f"tests/test_{i}.py", 1, 0.05 - i * 0.002, text=i + 1, vector=i + 1) for i in range(3)]
    spelled = fused("src/cron.py", 1, 0.045, text=4, vector=4, symbol="start_job", kind="function")
    sentence = analyse("Add a job, start the scheduler, expect the job runs.")
    assert sentence.form == "function" and not sentence.tests_claim and "test" not in sentence.wants
    config = _only(tests_found=0.8, agreed_top=0, name_words=0.5)
    ranked = rank([*tests, spelled], sentence, config)
    assert paths(ranked)[0] == ("tests/test_0.py", 1) and ranked[0].score == pytest.approx(0.05)
    assert ranked[-1].fused.span.path == "src/cron.py" and ranked[-1].steps == []
    # not found in tests (the dense retriever's third is code): the code is spelled and lifted,
    # 0.045 + 0.5 × 0.05, above the tests demoted to ×0.3
    code_third = [*tests[:2], fused("tests/test_2.py", 1, 0.046, text=3, vector=5)]
    lifted = rank(
        [*code_third, fused("src/cron.py", 1, 0.045, text=4, vector=3, symbol="start_job", kind="function")],
        sentence,
        config,
    )
    assert paths(lifted)[0] == ("src/cron.py", 1) and lifted[0].score == pytest.approx(0.045 + 0.5 * 0.05)
    assert lifted[0].steps == [("name words", "+0.0250")]


def test_ranking_off_keeps_the_fused_order() -> None:
    cands = [fused("tests/t.py", 1, 0.05), fused("a.py", 1, 0.04)]
    assert paths(rank(cands, analyse("x y"), RankingConfig(enabled=False))) == [
        ("tests/t.py", 1),
        ("a.py", 1),
    ]


def test_query_analysis_decodes_roles_tokens_and_terms_once() -> None:
    q = analyse("tests for the RetryPolicy backoff")
    assert q.shape == "natural" and q.wants == {"test"}
    assert q.identifiers == ("RetryPolicy",)
    assert q.tokens == ("test", "retrypolici", "retri", "polici", "backoff")
    assert "retrypolicy" in q.terms and "backoff" in q.terms
    assert analyse("configuration loading").terms == ("configur", "load")  # prefixes every inflection shares
    assert analyse('"a b"').shape == "literal" and analyse("a.*b", regex=True).shape == "regex"


def test_a_docstring_s_rest_roles_are_markup_not_words_of_the_sentence() -> None:
    # ":class:`Arrow`" says that Arrow is a class: "class" would match every class's chunk
    q = analyse("Returns a datetime representation of the :class:`Arrow` object.")
    assert q.tokens == ("datetim", "represent", "arrow", "object")
    assert "class" not in q.terms and "class" not in q.words
    assert q.phrase == q.text  # found verbatim as written, roles included
    meth = analyse("Register a function with :py:meth:`Flask.route` and :func:`send_file`.")
    assert not {"py", "meth", "func"} & {*meth.tokens, *meth.terms, *meth.words}
    assert {"flask", "rout", "send", "file"} <= set(meth.tokens)
    # a colon that is no role's stays a word's neighbour: "Note: class names" keeps its words
    assert "class" in analyse("Note: class names are matched as written").tokens


@pytest.mark.parametrize(
    ("text", "form"),
    [
        ("Return the running event loop or None.", "function"),
        ("Wake up the first waiter that isn't done", "function"),
        ("Get the current event loop policy", "function"),
        ("how are cookies stored between requests", "area"),
        ("parsing a JSON object field with the (.:) operator", "area"),
        ("cookie setting and signing on the response", "area"),
        ("request routing", "area"),
        ("where is the retry policy configured?", "area"),
        # JSDoc first lines, often without a period: a condition after the verb, a doc verb, "It …"
        ("Determine if a value is a Buffer", "function"),
        ("Check whether the adapter is resolved", "function"),
        ("Trim excess whitespace off the beginning and end of a string", "function"),
        ("Returns a string listing the enabled directives", "function"),
        ("It encodes a string by replacing unsafe characters", "function"),
        ("middleware composition and dispatch", "area"),
        ("how routes are registered", "area"),
        ("Erase all content from the cursor position to the end of that line", "function"),  # quantifier
        ("freeing all resources when closing a handle", "area"),
        ("Walks one step in doc and returns the referenced part", "function"),  # a number spelled
        ("Takes two arguments and compares them", "function"),
        ("one two three", "area"),  # a list of numbers, not a verb and its count
        # Go's "Name verbs …" without a period; a name ending in "ing" is not a gerund
        ("OnlyValidArgs returns an error if there are any positional args", "function"),
        ("UsageString returns usage string.", "function"),
        ("Error returns the formatted remote provider error", "function"),  # a plain word as the name
        ("setenv sets or unsets an environment variable", "function"),
        ("walk recursively descends path, calling walkFn", "function"),  # an adverb before the verb
        ("String emulates GNU diff's format.", "function"),  # a noun ending in "ing", not a gerund
        ("Nothing happens if types match.", "function"),
        ("string interning in the parser", "area"),
        ("cycle endlessly cycles through the values", "function"),
        ("indent indents the lines of the given buffer", "function"),  # the name as its own verb
        ("really fast hashing", "area"),
        ("cookie persistence across sessions", "area"),
        ("parsing a JSON object field", "area"),
        # a plural role noun and a preposition asks for files of that role; a verb documents one
        ("tests for the retry logic", "area"),
        ("examples of streaming uploads", "area"),
        ("Test for executable file.", "function"),
        ("Tests whether the value is a Buffer", "function"),
        # "do", "does" and "when" open statements too, when the sentence ends with its period
        ("Do basic configuration for the logging system.", "function"),
        ("When the key is unset, use the default.", "function"),
        ("when is the config loaded", "area"),
        ("Applies various processing to a raw code string", "function"),  # apply → applies
        ("do we retry failed uploads", "area"),
        # a name that reads as a gerund or a question word, then what it does, with the period
        ("String gets the argument at the specified index.", "function"),
        ("String defines a native format for this boolean slice flag value.", "function"),
        ("Uint looks up the value of a local UintFlag, returns 0 if not found", "function"),
        ("Panic specifies if the function call should fail", "function"),
        ("store creation and dispatch lifecycle", "area"),  # "store": a noun here as often as a verb
        ("Is gets whether the objects match the arguments specified.", "function"),
        # a signature line: the name, its arguments, an arrow, then what it does
        ("discard(item) -> drop the item if present", "function"),
        ("mkdirAll(%q): %s", "area"),  # a message's format, no arrow
        ("what returns the config", "area"),
        ("AddFlag will add the flag to the FlagSet", "function"),  # a name, then "will", no period
        ("VarPF is like VarP, but returns the flag created", "function"),
        ("is UploadSession retried", "area"),
        ("Parsing JSON fields", "area"),
        # a gerund that is the subject of a finite verb makes a statement, not a topic
        ("Renaming files present only in the base layer is not permitted", "function"),
        ("Enabling this feature will only change the serialized form", "function"),
        ("parsing headers that are folded", "area"),  # a relative clause's verb
        ("caching of responses which can expire", "area"),
        ("Slicing the peekable shouldn't advance the iterator.", "function"),
        ("handling what to do on errors", "area"),  # an infinitive's verb
        # or of a verb in the third person acting on what a determiner names, with the period
        ("Warning logs a message at level Warn on the standard logger.", "function"),
        ("Removing listeners removes the correct listener from an event.", "function"),
        ("Parsing logs of a server.", "area"),  # a plural noun and a preposition
        ("Warning logs a message at level Warn", "area"),  # no period: typed as a topic may be
        # a noun naming a piece of code, then what it does or is of, documents that piece
        ("Implementation of ``|`` operator - returns :class:`MatchFirst`", "function"),
        ("Helper to create a parse action for converting parsed date string", "function"),
        ("internal factory method to simplify creating one type of exception", "function"),
        ("Alternate constructor that returns a fresh instance", "function"),
        ("Class decorator to create __repr__ from __rich_repr__", "function"),
        ("how does the helper for urls work", "area"),  # a question first
        ("helpers for url building", "area"),  # a plural: files of helpers, not one piece
        ("error handling helpers", "area"),  # no link word after the noun
        ("one version of the config file", "area"),  # not a noun that names code
        # a sentence that opens with an article is documentation's (a field's, a value's), not a topic
        ("The field name found in the", "function"),
        ("A safe Kernel::load, issuing the hooks depending on the results", "function"),
        ("An example on how to use a hook", "function"),
        # an imperative that is seldom a noun, without a period or a determiner after it
        ("Traverse from offset to the specified codepoint", "function"),
        ("Cleans up stale handles after shutdown", "function"),  # clean → cleans
        ("Enable HTTP body compression", "function"),
        ("release process for the wheels", "area"),  # "release" is a topic's noun as often
        # a capitalised label and a colon file a sentence as documentation does
        ("Output: plain with multiline cells without headers", "function"),
        ("Deprecated: use the stream decoder instead", "function"),
        ("Command line utility: read from stdin", "function"),
        ("retry policy: backoff and jitter", "area"),  # typed in lower case: a topic
        ("Note: this deviates from the spec a little", "function"),
        # words that compare, then a name written as code: a relative's documentation, period or not
        ("Like ``is_partial_args`` for the given signature spec", "function"),
        ("Like `either`, but provide some context to whichever of the", "function"),
        ("like button handling in forms", "area"),  # no name after them
        ("same as before in the cache", "area"),
        # a doc verb and one token of words joined by hyphens or slashes: several words, not a topic
        ("Handle repeater-month-name/scalar-day", "function"),
        ("handle errors", "area"),  # two plain words stay a topic
        ("error-handling middleware", "area"),  # no verb first
    ],
)
def test_a_sentence_documenting_one_function_is_told_from_a_question_or_topic(text: str, form: str) -> None:
    assert analyse(text).form == form


def test_a_role_word_that_opens_a_function_sentence_is_its_verb_not_a_role_asked_for() -> None:
    assert analyse("tests for the retry logic").wants == {"test"}
    assert analyse("Test for executable file.").wants == frozenset()
    assert analyse("Tests whether the value is a Buffer").wants == frozenset()
    assert analyse("Mock the clock used by tests.").wants == {"test"}  # "Mock" is the verb, tests are asked


def test_a_spec_is_a_specification_and_specs_are_tests() -> None:
    """A sentence's "spec" is a specification, not a test: the Rack spec's validator, a path-spec's
    methods and ``PathSpec`` are code; "specs for the router" asks for a JavaScript project's tests."""
    assert analyse("Rack spec conformance validator").wants == frozenset()
    assert analyse("Matches the files to this path-spec.").wants == frozenset()
    assert analyse("Initializes the :class:`PathSpec` instance.").wants == frozenset()
    assert analyse("specs for the router").wants == {"test"}


def test_a_qualified_name_puts_the_definitions_it_names_before_others_of_its_last_part() -> None:
    near = _member("crypto/hash.c", 19, 0.03, "hash_ctx.len")  # nearer the root, ranked higher
    owned = _member("include/linux/skbuff.h", 850, 0.02, "sk_buff.len")
    owned = owned._replace(ranks={"text": None, "symbol": 2, "vector": None})
    ranked = rank([near, owned], analyse("sk_buff.len"), _only())
    assert paths(ranked) == [("include/linux/skbuff.h", 850), ("crypto/hash.c", 19)]
    assert ("exact", "first, not as written") in ranked[1].steps
    # …and before a file named after its last part, which an unqualified `pid` would put first
    module = fused("kernel/pid.c", 1, 0.05)
    task = _member("include/linux/sched.h", 947, 0.02, "task_struct.pid")
    ranked = rank([module, task], analyse("task_struct.pid"), _only())
    assert paths(ranked)[0] == ("include/linux/sched.h", 947)
    other = _member("include/linux/sched.h", 947, 0.02, "spu.pid")
    assert paths(rank([module, other], analyse("pid"), _only()))[0] == ("kernel/pid.c", 1)
    # a qualifier that owns no such definition (`self.console.print`) leaves them in the usual order
    ranked = rank([near, owned], analyse("ctx.len"), _only())
    assert paths(ranked)[0] == ("crypto/hash.c", 19)


def test_a_name_the_query_writes_asks_for_the_role_its_parts_name() -> None:
    # rack's lib/rack/mock_request.rb is its public MockRequest, a file of mocks by its name
    sentence = analyse("Make a POST request and return a MockResponse.")
    assert sentence.form == "function" and sentence.wants == {"fixture"}
    assert analyse("TestClient").wants == {"test"} and analyse("how does test_client send").wants == {"test"}
    assert analyse("Mockingbird").wants == frozenset()  # one word, no part of it a role's word
    mocks = fused("lib/mock_request.rb", 50, 0.05)
    other = fused("lib/request.rb", 240, 0.03)
    ranked = rank([mocks, other], sentence, _only())
    assert paths(ranked)[0] == ("lib/mock_request.rb", 50)  # not demoted: the query is about mocks
    ranked = rank([mocks, other], analyse("Make a POST request and return a response."), _only())
    assert paths(ranked)[0] == ("lib/request.rb", 240)  # demoted as a file of mocks (×0.3)


@pytest.mark.parametrize(
    "text",
    [
        "Test that special readable but non-seekable filelike objects are supported.",
        "Tests that no JSON is rendered if code is 204",
        "TestReportCaller verifies that when ReportCaller is set, the 'func' field is added.",
        "test_redirect_loop raises after twenty redirects.",
        "A 303 redirect should remove the request body.",
        "Headers containing non-ascii codepoints should default to decoding as utf-8.",
        "Ensure headers containing leading whitespace raise InvalidHeader Error before sending.",
        "Verify we only append previous fragment if one doesn't exist on new location.",
        "Raises ValueError if type is specified both ways.",
        "TypeError is raised if class does not implement __le__.",
    ],
)
def test_a_tests_own_docstring_asks_for_tests(text: str) -> None:
    """A sentence "Test that …" states what a test checks (a predicate is "Test for …", "Test whether …"), and a
    sentence opening with a test's name (Go's TestXxx, Python's test_xxx) documents that test; an
    expectation ("should", "must") or "Ensure …", "Verify …" is how a test states what it checks."""
    query = analyse(text)
    assert query.form == "function" and query.wants == {"test"}


@pytest.mark.parametrize(
    "text",
    [
        "This tests that one can reset the flags.",
        "This test makes sure a second call to wait() clears the first timeout.",
        "Name normalization function should be called only once on flag addition",
        "Every flag we add, the name (displayed also in usage) should normalized",
    ],
)
def test_a_test_stated_without_a_function_sentences_form_asks_for_tests(text: str) -> None:
    """A sentence "This tests that …" states a test as much as "Test that …", and an expectation asks
    for tests also in a statement that lacks the period or the opening verb of a function sentence."""
    assert analyse(text).wants == {"test"}


@pytest.mark.parametrize(
    "text",
    [
        "merge() keeps the order of the first mapping.",
        "`flatten()` doesn't recurse into strings.",
        "merge(strict=True) rejects a duplicate key.",  # a call with its arguments
        "With a prefix, repr() shows the prefix.",  # under a condition
        "If the file is empty, `load(path)` returns None.",
        "Pickling works on frozen instances.",
        "Reading a closed stream works with buffered readers too.",
        "Nested validators work.",
        "Frozen sessions can be copied.",
        "All retry policies can be serialised with pickle.",
        "When strict=False, unknown keys are kept.",  # the case a keyword argument's setting sets up
        "Duplicate headers are merged when fold=True.",
        "Version(str(Version(v))) == Version(v).",  # what a call equals
        "If the cache is full, the oldest entry is dropped.",  # a case and what then holds
        "When no handler matches, nothing happens.",
        "If a retry succeeds, then it returns the first result.",
        "It's possible to configure only the renderers.",  # that something can be done
        "It will trigger an error when a blank line follows the decorator.",  # what it will do
        "This will deadlock on a cache that uses a regular lock.",
        "A custom error handler can be used.",  # used, and nothing said it is used for
        "The retry_key property can be set and read.",  # a participle that does not end in -ed
        "Cached values are invalidated on reload.",  # what happens, told in the passive
        "Tabs in keys are always escaped.",
        "Calls to a closed pool get rejected.",
        "A broken formatter does not stop the logger.",  # a subject, then what it does
        "The parser stays in sync after an error.",
        "An empty header has no value.",
        "We retry once the pool is drained.",  # a test's narration, in the first person
        "Our handler keeps the order of the records.",
        "There is no leak after a reset.",
        "Closing a pool twice raises nothing.",  # what doing something does
        "Nesting lists past the depth limit causes a ParseError.",
    ],
)
def test_a_claim_about_how_code_behaves_asks_for_tests(text: str) -> None:
    """A call as the sentence's subject (with its arguments or not, under a condition or not), that
    something works or can be done, or a case followed by what then holds ("If …, the … is …") is a
    claim a test's docstring makes: tests are not demoted for it."""
    assert analyse(text).wants == {"test"}


@pytest.mark.parametrize(
    "text",
    [
        "pop(index) -> remove the item at the given index",  # a signature line, with its arguments
        "For the common case, load the file and parse it.",  # a leading clause, no call as subject
        "Like str(), but quotes the value.",  # a comparison: no condition before the call
        "This works exactly like the method of the same name on a dict.",  # a comparison
        "A faster matcher that only works when comparing one character.",  # a relative clause
        "upload retry doesn't work.",  # a complaint: the code is asked for
        "how does the retry work",  # a question
        "Can be overridden by a subclass to change the matching.",  # no subject: the function's own
        "Return a buffer that can be reused.",  # a relative clause
        "NopWriter can be used to discard a logger's output.",  # what it is for: its documentation
        "If ``strict=True``, unknown keys raise an error.",  # the setting as code markup documents it
        "Children returns the commands that are Hidden=false.",  # Go's field, not Python's constant
        "retry with reraise=True",  # a search for the setting, not a sentence
        "If the file is missing, return None.",  # a case and what the function does then
        "Returns the parser. It will be reused by the caller.",  # "It will" after the opening
        "If a callback is given, call it with the response.",
        "When reading, skip the header line.",
        "NopWriter can be used as a logger's output.",  # what it is for
        "Whether the value can be shown bare, without quotes.",  # a predicate's
        "Whether debug mode is enabled.",
        "Check if the cookie is expired.",  # the passive inside a condition
        "Override how a particular field is handled.",  # or inside a clause that says how or what
        "Describe what is expected of the value.",
        "Called before the request is dispatched.",
        "Return the headers that are sent first.",  # a function's own, opening with its verb
        "A socket is closed if its peer hung up.",  # a predicate's: the passive under its condition
        "A `TimeoutError` is an error raised when the deadline passes.",  # what a class is
        "A context manager that keeps the lock.",  # a noun phrase, its verb in a relative clause
        "The base class for handlers that take a stream.",
        "Weights of the edges, by name.",  # "we" only as a word
        "There is one lock per pool.",  # what there is, not what there is not
        "Removing files present in the base layer is not permitted.",  # what a setting permits
        "Parsing JSON fields",  # a topic
        "During startup the loader raises on a missing file.",  # no gerund opens it
        "Encoding the header raises on a bad value.",  # a gerund that is a noun as often
    ],
)
def test_no_claim_where_the_sentence_documents_or_asks(text: str) -> None:
    assert "test" not in analyse(text).wants


def test_a_functions_own_docstring_asks_for_no_role() -> None:
    for text in ("Return the value of the header.", "Checks whether the node is a call.", "Raise an error."):
        assert analyse(text).wants == frozenset()
    assert analyse("how should retries work").wants == frozenset()  # a question, not a specification
    assert analyse("retries that should back off?").wants == frozenset()  # a question too


def test_a_function_sentence_is_ranked_by_span_not_by_file() -> None:
    cands = [fused("a.py", 1, 0.05), fused("a.py", 40, 0.045), fused("b.py", 1, 0.03)]
    area = rank(cands, analyse("event loop policy handling"), RankingConfig())
    assert paths(area)[1] == ("b.py", 1)  # saturation: a.py's second chunk below b.py
    function = rank(cands, analyse("Return the event loop policy."), RankingConfig())
    assert paths(function) == [("a.py", 1), ("a.py", 40), ("b.py", 1)]
    assert all(rule not in ("coherence", "saturation", "path") for r in function for rule, _ in r.steps)


def test_a_go_style_doc_sentence_names_the_definition_the_symbol_index_confirms() -> None:
    from search.engine.query import named_in_sentence

    usage = analyse("Usage puts out the usage for the command.")
    assert usage.form == "function" and usage.names == ()
    named = named_in_sentence(usage, ["cobra.Command.Usage", "cobra.Command.UsageString"])
    assert named.names == ("Usage",)  # now the definition rule and the symbol weight apply
    assert named_in_sentence(usage, ["cobra.Command.Help"]).names == ()  # not confirmed: no name
    imperative = analyse("Add one or more newlines before the next write.")
    assert named_in_sentence(imperative, ["nodes.Add"]).names == ()  # "Add one": a verb, not a name
    question = analyse("how does Usage print the usage")
    assert named_in_sentence(question, ["cobra.Command.Usage"]) is question  # only function sentences
    mentions = analyse("Info uses fmt.Sprint to construct and log a message.")
    assert mentions.identifiers == ("fmt.Sprint",)
    named = named_in_sentence(mentions, ["zap.SugaredLogger.Info", "fmt.Sprint"])
    assert named.identifiers == ("Info", "fmt.Sprint")  # the name it opens with first: the one boosted
    cands = [
        fused("print.go", 1, 0.05, symbol="fmt.Sprint", symbol_rank=1),
        fused("sugar.go", 1, 0.04, symbol="zap.SugaredLogger.Info", symbol_rank=2),
    ]
    ranked = rank(cands, named, _only(definition=3.0))
    assert paths(ranked)[0] == ("sugar.go", 1)
    assert ranked[0].score == pytest.approx(0.04 + 3.0 * 0.05 * 0.5)  # a sentence's name: half


def test_adjacent_words_of_a_topic_that_spell_a_definitions_name_name_it() -> None:
    from search.engine.query import named_in_sentence

    topic = analyse("JSON element hierarchy and tree model")
    assert topic.form == "area" and topic.names == ()
    assert topic.compounds == ("jsonelement", "elementhierarchy", "treemodel", "jsonelementhierarchy")
    named = named_in_sentence(topic, ["com.google.gson.JsonObject", "com.google.gson.JsonElement"])
    assert named.names == ("JsonElement",)  # the definition rule and the symbol weight now apply
    assert named_in_sentence(topic, ["com.google.gson.JsonObject"]) is topic
    own = analyse("where are json_element values merged into element trees")
    assert named_in_sentence(own, ["ElementTrees"]) is own  # a sentence with its own identifiers
    # A function sentence spells what its definition takes or returns, not the definition itself.
    assert analyse("Return the running event loop.").compounds == ()
    assert analyse("Erase all content from the cursor position").compounds == ()


def test_a_confirmed_name_in_a_doc_sentence_puts_its_definition_first(tmp_path) -> None:
    """Through the engine: the dense and text retrievers prefer other chunks; the symbol retriever's
    definition named by the sentence's first word gains the definition rule."""
    from indexer import load_settings
    from search.engine.engine import Engine

    engine = Engine(load_settings(tmp_path, env={}, overrides={"index_dir": str(tmp_path / "index")}))
    try:
        other = [Hit(Span(f"cmd{i}.go", 1, 9), 1.0, coverage=0.5) for i in range(6)]
        usage = Hit(Span("command.go", 478, 480), 1.0, "cobra.Command.Usage", "method", "go")
        rankings = {"vector": other, "text": other[::-1], "symbol": [usage]}
        text = "Usage puts out the usage for the command."
        ranked = engine.order(analyse(text), rankings)
        assert paths(ranked)[0] == ("command.go", 478)
        assert any(rule.startswith("definition") for rule, _ in ranked[0].steps)
        printer = Hit(Span("print.go", 1, 3), 1.0, "cobra.Print", "function", "go")
        imperative = engine.order(
            analyse("Print the usage for the command."), {**rankings, "symbol": [printer]}
        )
        assert not any(rule.startswith("definition") for r in imperative for rule, _ in r.steps)  # a verb
    finally:
        engine.close()


def test_the_function_a_sentence_compares_its_own_with_gains_nothing_by_name_words() -> None:
    """ "Like :func:`escape` but …" names ``escape`` as the function compared with: it spells nothing,
    where the same word as a plain word of the sentence spells it (half: a one-part name)."""
    cands = [
        fused("markup.py", 1, 0.050, symbol="escape", kind="function"),
        fused("markup.py", 20, 0.040, symbol="escape_silent", kind="function"),
    ]
    compared = rank(
        cands, analyse("Like :func:`escape` but treats ``None`` as the empty string."), _only(name_words=0.5)
    )
    assert not any(rule.startswith("name words") for r in compared for rule, _ in r.steps)
    plain = rank(
        cands, analyse("Escape the string and treat None as the empty string."), _only(name_words=0.5)
    )
    # top 0.050; ``escape``, one part among the words: +0.5 × 0.050 × 0.5
    assert plain[0].fused.label.symbol == "escape"
    assert plain[0].score == pytest.approx(0.050 + 0.5 * 0.050 * 0.5)
    assert plain[0].steps == [("name words", "+0.0125")]


def test_a_method_whose_class_name_the_sentence_spells_gains_a_quarter_of_the_name_words_gain() -> None:
    """ "Update sorted list by …" documents ``SortedList.update``: both ``update`` methods gain for their
    one-part name, the sorted list's a quarter more for its class's name; a class of one part
    (``Locale``) is too common a word to count."""
    cands = [
        fused("sortedset.py", 1, 0.050, symbol="SortedSet.update", kind="method"),
        fused("sortedlist.py", 1, 0.048, symbol="SortedList.update", kind="method"),
    ]
    ranked = rank(
        cands, analyse("Update sorted list by adding all values from `iterable`."), _only(name_words=0.5)
    )
    # top 0.050: ``update``, one part: +0.5 × 0.050 × 0.5; the class: +0.5 × 0.050 × 0.25
    assert [r.fused.label.symbol for r in ranked] == ["SortedList.update", "SortedSet.update"]
    assert ranked[0].score == pytest.approx(0.048 + 0.0125 + 0.00625)
    assert ranked[0].steps == [("name words", "+0.0125"), ("name words (its class)", "+0.0063")]
    assert ranked[1].steps == [("name words", "+0.0125")]
    one_part = [fused("locales.py", 1, 0.05, symbol="Locale.meridian", kind="method")]
    lone = rank(one_part, analyse("Returns the meridian of the locale for an hour."), _only(name_words=0.5))
    assert lone[0].steps == [("name words", "+0.0125")]


def test_a_method_of_the_object_a_sentence_calls_this_is_named_with_its_class() -> None:
    """aho-corasick's "Return the pattern ID for this match." documents ``Match.pattern``: the object
    the sentence calls "this match" is the method's receiver, so its name is "match pattern", spelled
    whole as ``match_pattern`` is, and not a part of that longer name (which leaves
    ``Search.pattern`` nothing). The class is named outright, so each method of it gains a quarter
    more, as a class whose name of two parts the words spell does: of the two names spelled whole,
    the receiver's method comes first. A method of another class keeps what it gains by its own name:
    which class a sentence calls "this Repeater" in (the base or an override) is not known."""
    cands = [
        fused("automaton.rs", 1, 0.050, symbol="Automaton.match_pattern", kind="method"),
        fused("search.rs", 1, 0.045, symbol="Match.pattern", kind="method"),
        fused("dfa.rs", 1, 0.044, symbol="Search.pattern", kind="method"),
    ]
    ranked = rank(cands, analyse("Return the pattern ID for this match."), _only(name_words=0.5))
    by_symbol = {r.fused.label.symbol: r for r in ranked}
    # top 0.050: two parts spelled whole, +0.5 × 0.050 each; its class: +0.5 × 0.050 × 0.25
    its_class = ("name words (its class)", "+0.0063")
    assert by_symbol["Match.pattern"].steps == [("name words", "+0.0250"), its_class]
    assert by_symbol["Automaton.match_pattern"].steps == [("name words", "+0.0250")]
    assert by_symbol["Search.pattern"].steps == []
    assert by_symbol["Match.pattern"].score == pytest.approx(0.045 + 0.025 + 0.00625)
    # "the match" with more of the clause after it is not the object acted on ("the haystack" is)
    plain = rank(
        cands, analyse("Return the pattern ID for the match in the haystack."), _only(name_words=0.5)
    )
    assert {r.fused.label.symbol: r.steps for r in plain}["Match.pattern"] == []
    # closing the sentence, "the match" is
    closing = rank(cands, analyse("Return the pattern ID for the match."), _only(name_words=0.5))
    assert {r.fused.label.symbol: r.steps for r in closing}["Match.pattern"] == [
        ("name words", "+0.0250"),
        its_class,
    ]
    # the class written as code, or as a possessive, is named as well
    for text in ("Return the pattern ID for this `Match`.", "Return this match's pattern ID."):
        named = {r.fused.label.symbol: r.steps for r in rank(cands, analyse(text), _only(name_words=0.5))}
        assert named["Match.pattern"] == [("name words", "+0.0250"), its_class], text
    overrides = [
        fused("repeater_time.rb", 1, 0.050, symbol="RepeaterTime.next", kind="method"),
        fused("repeater.rb", 1, 0.040, symbol="Repeater.next", kind="method"),
    ]
    sentence = analyse("Return the next span that this Repeater represents.")
    kept = {r.fused.label.symbol: r.steps for r in rank(overrides, sentence, _only(name_words=0.5))}
    assert kept == {
        "Repeater.next": [("name words", "+0.0250"), its_class],
        "RepeaterTime.next": [("name words", "+0.0125")],
    }


def test_a_short_method_name_is_spelled_with_the_class_of_this_object() -> None:
    """aho-corasick's "Returns the length of this match." documents ``Match.len``: a one-part name of
    three letters spells nothing alone, but with the class the sentence calls "this match" it is a
    name of two parts, "match len", spelled whole (+0.5 × 0.050) as ``match_len`` is, and a quarter
    more for the class. A short name that is a stop word ("… (and or or) …": ``Expression.__and__``)
    is no word of the sentence's."""
    cands = [
        fused("dfa.rs", 1, 0.050, symbol="DFA.match_len", kind="method"),
        fused("search.rs", 1, 0.045, symbol="Match.len", kind="method"),
        fused("search.rs", 40, 0.044, symbol="Span.len", kind="method"),
    ]
    ranked = {
        r.fused.label.symbol: r
        for r in rank(cands, analyse("Returns the length of this match."), _only(name_words=0.5))
    }
    assert ranked["Match.len"].steps == [("name words", "+0.0250"), ("name words (its class)", "+0.0063")]
    assert ranked["Match.len"].score == pytest.approx(0.045 + 0.025 + 0.00625)
    assert ranked["DFA.match_len"].steps == [("name words", "+0.0250")]
    assert ranked["Span.len"].steps == []  # another class's, and too short to count alone
    expression = [fused("boolean.py", 1, 0.05, symbol="Expression.__and__", kind="method")]
    sentence = analyse("Return the evaluation of this expression, applying its operator (and or or).")
    assert rank(expression, sentence, _only(name_words=0.5))[0].steps == [
        ("name words (its class)", "+0.0063")
    ]


def test_a_type_written_as_code_after_the_is_the_object_meant() -> None:
    """arrayvec's "Return the number of elements in the `ArrayVec`." documents ``ArrayVec::len``: a
    type written as code after "the" names the object as "this" does, so its ``len`` is named with
    it (+0.5 × 0.050, and the quarter for its class). In words, "the array vec" closing the sentence
    names it too; before more of the clause it spells the class's name of two parts (its quarter) but
    is no object whose ``len`` a count names."""
    cands = [
        fused("array_string.rs", 1, 0.050, symbol="ArrayString.len", kind="method"),
        fused("arrayvec.rs", 1, 0.045, symbol="ArrayVec.len", kind="method"),
    ]
    coded = rank(cands, analyse("Return the number of elements in the `ArrayVec`."), _only(name_words=0.5))
    assert [r.fused.label.symbol for r in coded] == ["ArrayVec.len", "ArrayString.len"]
    assert coded[0].steps == [("name words", "+0.0250"), ("name words (its class)", "+0.0063")]
    assert coded[1].steps == []
    closing = rank(cands, analyse("Return the number of elements in the array vec."), _only(name_words=0.5))
    assert closing[0].steps == coded[0].steps and closing[1].steps == []
    worded = rank(
        cands, analyse("Return the number of elements in the array vec so far."), _only(name_words=0.5)
    )
    by_symbol = {r.fused.label.symbol: r.steps for r in worded}
    assert by_symbol == {"ArrayVec.len": [("name words (its class)", "+0.0063")], "ArrayString.len": []}


def test_the_constructor_of_what_a_sentence_makes_new_gains_as_a_one_part_name() -> None:
    """bytes' "Creates a new `BytesMut` with default capacity." documents ``BytesMut::new``: a
    sentence that opens with a verb that makes something (create, construct, instantiate, make,
    build) names the class it makes new, whose constructor (``new``, ``__init__``, ``initialize``,
    ``constructor``) is too short a name to spell; it gains half (+0.5 × 0.050 × 0.5), as a
    one-part name, since the words that follow may name another constructor (``zeroed``). Another
    class's ``new`` gains nothing, nor does any where the sentence returns a new one or a qualified
    name is written by its last part (``Rack::Builder``)."""
    cands = [
        fused("bytes.rs", 1, 0.050, symbol="Bytes.new", kind="method"),
        fused("bytes_mut.rs", 1, 0.040, symbol="BytesMut.new", kind="method"),
    ]
    ranked = rank(cands, analyse("Creates a new `BytesMut` with default capacity."), _only(name_words=0.5))
    assert paths(ranked)[0] == ("bytes_mut.rs", 1) and ranked[0].steps == [("name words", "+0.0125")]
    assert ranked[1].steps == []
    returned = rank(cands, analyse("Returns a new `BytesMut` with default capacity."), _only(name_words=0.5))
    assert all(r.steps == [] for r in returned)
    ruby = [fused("builder.rb", 9, 0.04, symbol="Rack::Builder#initialize", kind="method")]
    built = rank(
        ruby, analyse("Create a new Rack::Builder instance and return the app."), _only(name_words=0.5)
    )
    assert built[0].steps == [("name words", "+0.0100")]


def test_a_function_named_from_the_one_a_sentence_likens_it_to_gains_as_a_spelled_name() -> None:
    """memchr's "Like `memchr`, but searches for two bytes instead of one." documents ``memchr2``: a
    sentence that compares its function with another by likeness documents a sibling, usually named
    from it. With name_words 0.2 and the top score 0.052: ``memchr2`` +0.2 × 0.052 = 0.0104, from
    0.045 to 0.0554, above ``memchr`` itself (the name compared with, no gain) and a name that does not
    hold it. A sentence that stands in for another ("Shortcut for :meth:`route` …") likens nothing: the
    function it documents is named otherwise (``get``), and ``_method_route`` gains nothing."""
    query = analyse("Like `memchr`, but searches for two bytes instead of one.")
    assert query.relatives == ("memchr",) and query.siblings == ("memchr",)
    cands = [
        fused("src/fallback.rs", 1, 0.052, symbol="memchr", kind="function"),
        fused("src/memmem/mod.rs", 762, 0.048, symbol="NeedleInfo", kind="struct"),
        fused("src/fallback.rs", 85, 0.045, symbol="memchr2", kind="function"),
    ]
    ranked = rank(cands, query, _only(name_words=0.2, relative_penalty=1.0))
    assert paths(ranked) == [("src/fallback.rs", 85), ("src/fallback.rs", 1), ("src/memmem/mod.rs", 762)]
    assert ranked[0].score == pytest.approx(0.045 + 0.2 * 0.052)
    assert ranked[0].steps == [("named from memchr (compared with)", "+0.0104")]
    assert ranked[1].steps == [] and ranked[2].steps == []
    # with the relatives rule too, ``memchr`` itself falls to 0.026, below the struct
    both = rank(cands, query, _only(name_words=0.2, relative_penalty=0.5))
    assert paths(both) == [("src/fallback.rs", 85), ("src/memmem/mod.rs", 762), ("src/fallback.rs", 1)]
    assert both[2].steps == [("a relative (memchr)", "×0.5")]
    # switched off with the name-words gain
    off = rank(cands, query, _only(name_words=0.0, relative_penalty=1.0))
    assert paths(off)[0] == ("src/fallback.rs", 1)
    # a name of two letters names a sibling as one of its parts (pydash's "Curried version of
    # :func:`eq`." documents ``eq_cmp``), not as letters within a word (``frequency``)
    short = analyse("Curried version of :func:`eq`.")
    assert short.siblings == ("eq",)
    named = [
        fused("a.py", 1, 0.05, symbol="frequency", kind="function"),
        fused("b.py", 1, 0.045, symbol="eq_cmp", kind="function"),
    ]
    ranked = rank(named, short, _only(name_words=0.2, relative_penalty=1.0))
    assert [r.fused.label.symbol for r in ranked] == ["eq_cmp", "frequency"]
    assert ranked[0].steps == [("named from eq (compared with)", "+0.0100")] and ranked[1].steps == []
    shortcut = analyse('Shortcut for :meth:`route` with ``methods=["GET"]``.')
    assert shortcut.relatives == ("route",) and shortcut.siblings == ()
    stand_in = [
        fused("scaffold.py", 296, 0.045, symbol="Scaffold.get", kind="method"),
        fused("scaffold.py", 284, 0.043, symbol="Scaffold._method_route", kind="method"),
    ]
    ranked = rank(stand_in, shortcut, _only(name_words=0.2))
    assert paths(ranked) == [("scaffold.py", 296), ("scaffold.py", 284)]
    assert all(not r.steps for r in ranked)


@pytest.mark.parametrize(
    ("sentence", "widths"),
    [
        ("Writes signed 64 bit integers from `src` into `dst`.", {"i64"}),
        ("Reads an unsigned 24 bit integer from `buf`, stored in u32.", {"u24"}),
        ("Converts a 64-bit integer to a string.", {"i64", "u64"}),
        ("Reads a IEEE754 single-precision (4 bytes) floating point number.", {"f32"}),
        ("Returns the value as a 32-bit float.", {"f32"}),
        ("Reports whether the value held is a []int16 or not.", {"i16"}),
        ("Multiply unsigned 128 bit integers, return upper 128 bits of the result.", {"u128"}),
        ("Encode the bytes as base64 text.", set()),
        ("Fails on 32bit architectures without the build tag.", set()),
    ],
)
def test_a_sentence_names_numeric_types_by_their_width(sentence: str, widths: set[str]) -> None:
    """What a sentence calls "an unsigned 64 bit integer" a name writes ``u64`` (``uint64`` in Go);
    a size that is no type ("the upper 128 bits") names none, nor does a type written beside a width
    in words ("stored in u32": where the 24 bits are kept)."""
    assert analyse(sentence).widths == widths


def test_a_converter_named_the_other_way_round_gains_nothing_by_name_words() -> None:
    """webcolors' "Convert a hexadecimal color value to its corresponding color name." spells
    ``hex_to_name`` and ``name_to_hex`` alike (hex, to, name), and documents the first: the sides of
    a converter's "to" are read in the sentence's order. With name_words 0.2 and the top score 0.050,
    ``hex_to_name`` gains +0.0100 (0.048 → 0.058); ``name_to_hex`` gains nothing, spelled or not.
    "from" reads the other way ("Convert to a color name from a hexadecimal value"), and so does a
    name made with it: smallvec's "Remove all elements from the vector." spells ``from_elem`` (from,
    elem) and documents ``clear``."""
    cands = [
        fused("conversion.py", 21, 0.050, symbol="name_to_hex", kind="function"),
        fused("conversion.py", 112, 0.048, symbol="hex_to_name", kind="function"),
    ]
    sentence = analyse("Convert a hexadecimal color value to its corresponding color name.")
    ranked = rank(cands, sentence, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["hex_to_name", "name_to_hex"]
    assert [r.score for r in ranked] == pytest.approx([0.058, 0.050])
    assert ranked[0].steps == [("name words", "+0.0100")] and ranked[1].steps == []
    built = rank(cands, analyse("Convert to a color name from a hexadecimal value."), _only(name_words=0.2))
    assert [r.steps for r in built] == [[("name words", "+0.0100")], []]
    forward = rank(cands, analyse("Convert a color name to a hexadecimal value."), _only(name_words=0.2))
    assert [r.steps for r in forward] == [[("name words", "+0.0100")], []]
    prefixed = [
        fused("conversion.py", 5, 0.050, symbol="to_hex", kind="function"),
        fused("conversion.py", 9, 0.049, symbol="to_name", kind="function"),
    ]
    assert [r.steps for r in rank(prefixed, sentence, _only(name_words=0.2))] == [
        [("name words", "+0.0100")],
        [],
    ]
    made = [fused("src/lib.rs", 2052, 0.050, symbol="SmallVec.from_elem", kind="method")]
    emptied = rank(made, analyse("Remove all elements from the vector."), _only(name_words=0.2))
    assert emptied[0].steps == []
    from_one = rank(made, analyse("Creates a vector from an element."), _only(name_words=0.2))
    assert from_one[0].steps == [("name words", "+0.0100")]


def test_a_converting_sentence_spells_a_converter_read_its_way_whichever_word_it_writes() -> None:
    """A sentence that converts spells a converter whose sides it spells around its "to", "into" or
    "from", though it writes the other word: "Convert a &str to `NotNan`." documents ordered-float's
    ``from_str`` (str before the "to"), +0.2 × 0.050; "Reads a &str to the end." converts nothing.
    "into" writes a converter's "to" under any verb: mistletoe's "Renders a sequence of Fragments
    into lines." documents ``fragments_to_lines``; a ``from_…`` is read across under a converting
    verb only."""
    parsed = [
        fused("src/lib.rs", 1915, 0.050, symbol="ParseNotNanError.fmt", kind="method"),
        fused("src/lib.rs", 1804, 0.045, symbol="NotNan.from_str", kind="method"),
    ]
    converted = rank(parsed, analyse("Convert a &str to `NotNan`."), _only(name_words=0.2))
    assert [r.fused.label.symbol for r in converted] == ["NotNan.from_str", "ParseNotNanError.fmt"]
    assert converted[0].steps == [("name words", "+0.0100")]
    read = rank(parsed, analyse("Reads a &str to the end."), _only(name_words=0.2))
    assert all(r.steps == [] for r in read)
    # "into" writes a converter's "to" under any verb: mistletoe's ``fragments_to_lines``; not a
    # ``from_``'s, which only a converting verb reads the other way
    rendered = [
        fused("markdown_renderer.py", 1, 0.050, symbol="MarkdownRenderer.render_block", kind="method"),
        fused("markdown_renderer.py", 90, 0.045, symbol="MarkdownRenderer.fragments_to_lines", kind="method"),
        fused("markdown_renderer.py", 120, 0.040, symbol="MarkdownRenderer.from_fragments", kind="method"),
    ]
    lines = rank(rendered, analyse("Renders a sequence of Fragments into lines."), _only(name_words=0.2))
    assert lines[0].fused.label.symbol == "MarkdownRenderer.fragments_to_lines"
    assert lines[0].steps == [("name words", "+0.0100")]
    assert [r.steps for r in lines[1:]] == [[], []]  # ``render_block``, ``from_fragments``


def test_a_to_name_under_a_sending_verb_and_a_name_of_a_width_alone_are_no_converters() -> None:
    """Under a verb that sends, "to" tells where, not what things become: gson's "Writes the JSON …
    to writer." documents ``toJson``, which gains as before. A name that is a width alone has no
    words to read (fastrand's ``u8``) and gains as a one-part name."""
    written = [fused("Gson.java", 1, 0.050, symbol="Gson.toJson", kind="method")]
    sent = rank(written, analyse("Writes the JSON for the element to writer."), _only(name_words=0.2))
    assert sent[0].steps == [("name words", "+0.0100")]
    width = [fused("src/lib.rs", 9, 0.050, symbol="Rng.u8", kind="method")]
    assert rank(width, analyse("Generates a random u8 to the end."), _only(name_words=0.2))[0].steps == [
        ("name words", "+0.0050")
    ]


def test_a_width_a_sentence_names_is_a_part_of_the_name_it_spells() -> None:
    """byteorder's "Writes signed 64 bit integers from `src` into `dst`." documents ``write_i64_into``
    among ``write_u64_into`` and ``write_u16_into``, whose words (write, into) it spells alike. The
    width is a part of each name: ``i64`` is spelled, the full gain, name_words 0.2 × the top score
    0.050 = +0.0100, from 0.046 to 0.056; the others spell two parts of three, half of it (+0.0050):
    0.055 and 0.050. Without the width all three gained alike and ``write_u64_into`` stayed first."""
    query = analyse("Writes signed 64 bit integers from `src` into `dst`.")
    cands = [
        fused("src/lib.rs", 1349, 0.050, symbol="ByteOrder.write_u64_into", kind="method"),
        fused("src/lib.rs", 1506, 0.046, symbol="ByteOrder.write_i64_into", kind="method"),
        fused("src/lib.rs", 1303, 0.045, symbol="ByteOrder.write_u16_into", kind="method"),
    ]
    ranked = rank(cands, query, _only(name_words=0.2))
    assert paths(ranked) == [("src/lib.rs", 1506), ("src/lib.rs", 1349), ("src/lib.rs", 1303)]
    assert [r.score for r in ranked] == pytest.approx([0.056, 0.055, 0.050])
    assert ranked[0].steps == [("name words", "+0.0100")]
    assert ranked[1].steps == ranked[2].steps == [("name words (most of it)", "+0.0050")]
    # Go spells the type in a word of the name: "Reads an unsigned 64 bit integer." spells ``ReadUint64``
    # (read, u64) and not ``ReadUint16``; a name that writes no width (``ReadFull``) is read as before
    go = [
        fused("binary.go", 1, 0.050, symbol="ReadUint16", kind="function"),
        fused("binary.go", 20, 0.048, symbol="ReadUint64", kind="function"),
    ]
    ranked = rank(go, analyse("Reads an unsigned 64 bit integer from the reader."), _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["ReadUint64", "ReadUint16"]
    assert ranked[0].steps == [("name words", "+0.0100")] and ranked[1].steps == []


def test_a_special_method_is_spelled_by_the_words_its_documentation_says_it_in() -> None:
    """Python names a special method for what the language does with it: "Return string
    representation of sorted list." documents ``SortedList.__repr__``, which gains half the name-words
    gain (one part), and a quarter more for its class; ``__len__`` beside it gains nothing, and a
    common word ("… in the string") spells no ``__str__``."""
    cands = [
        fused("sortedlist.py", 1, 0.050, symbol="SortedList.__len__", kind="method"),
        fused("sortedlist.py", 20, 0.040, symbol="SortedList.__repr__", kind="method"),
        fused("sorteddict.py", 1, 0.045, symbol="SortedDict.__repr__", kind="method"),
    ]
    ranked = rank(cands, analyse("Return string representation of sorted list."), _only(name_words=0.5))
    # top 0.050: ``__repr__``, one part: +0.5 × 0.050 × 0.5; the class: +0.5 × 0.050 × 0.25
    assert [r.fused.label.symbol for r in ranked] == [
        "SortedList.__repr__",
        "SortedDict.__repr__",
        "SortedList.__len__",
    ]
    assert ranked[0].score == pytest.approx(0.040 + 0.0125 + 0.00625)
    assert ranked[0].steps == [("name words", "+0.0125"), ("name words (its class)", "+0.0063")]
    assert ranked[1].score == pytest.approx(0.045 + 0.0125)
    assert ranked[2].steps == [("name words (its class)", "+0.0063")]
    size = rank(cands, analyse("Return the size of the sorted dict."), _only(name_words=0.5))
    assert size[0].fused.label.symbol == "SortedList.__len__"
    assert size[0].steps == [("name words", "+0.0125")]
    common = [fused("markup.py", 1, 0.05, symbol="Markup.__str__", kind="method"), fused("m.py", 1, 0.06)]
    plain = rank(
        common,
        analyse("Replace the characters in the string with HTML-safe sequences."),
        _only(name_words=0.5),
    )
    assert all(r.steps == [] for r in plain)


def test_a_sentence_that_removes_all_of_something_spells_clear() -> None:
    """A method that empties its object is named ``clear`` and documented by what it takes out:
    "Remove all values from sorted list." documents ``SortedList.clear``, a one-part name (half the
    gain), and a quarter more for its class, which ``SortedList.discard`` gains alone. A removal of
    some ("Remove `value` from …") or a sentence without the verb first spells no ``clear``; one
    that writes it ("Clears the map, removing all …") spells it by its own word."""
    cands = [
        fused("sortedlist.py", 40, 0.050, symbol="SortedList.discard", kind="method"),
        fused("sortedlist.py", 20, 0.045, symbol="SortedList.clear", kind="method"),
        fused("sortedset.py", 10, 0.040, symbol="SortedSet.clear", kind="method"),
    ]
    query = analyse("Remove all values from sorted list.")
    assert "clear" in query.spelled
    ranked = rank(cands, query, _only(name_words=0.5))
    # top 0.050: ``clear``, one part: +0.5 × 0.050 × 0.5; the class "sorted list": +0.5 × 0.050 × 0.25
    assert [r.fused.label.symbol for r in ranked] == [
        "SortedList.clear",
        "SortedList.discard",
        "SortedSet.clear",
    ]
    assert ranked[0].score == pytest.approx(0.045 + 0.0125 + 0.00625)
    assert ranked[0].steps == [("name words", "+0.0125"), ("name words (its class)", "+0.0063")]
    assert ranked[1].score == pytest.approx(0.050 + 0.00625)
    assert ranked[2].score == pytest.approx(0.040 + 0.0125)
    for text in (
        "Remove `value` from sorted list.",
        "Delete the values of sorted list.",
        "The values all removed.",
    ):
        assert "clear" not in analyse(text).spelled
    assert {"clear", "remov"} <= analyse("Clears the map, removing all key-value pairs.").spelled
    # the other verbs that take things out: guzzle's "Discard all sessions cookies." documents
    # ``clearSessionCookies``, bitflags' "Unsets all bits in the flags." ``Flags::clear``
    for text in ("Discard all sessions cookies.", "Unsets all bits in the flags.", "Purge all entries."):
        assert "clear" in analyse(text).spelled, text
    # the opening verb of such a sentence names no method alone: ``remove`` takes out one value
    removed = [
        fused("sortedlist.py", 60, 0.050, symbol="SortedList.remove", kind="method"),
        fused("sortedlist.py", 20, 0.045, symbol="SortedList.clear", kind="method"),
    ]
    emptied = rank(removed, query, _only(name_words=0.5))
    assert [r.fused.label.symbol for r in emptied] == ["SortedList.clear", "SortedList.remove"]
    assert [r.steps[0][0] for r in emptied] == ["name words", "name words (its class)"]
    one = rank(removed, analyse("Remove `value` from sorted list."), _only(name_words=0.5))
    assert [r.fused.label.symbol for r in one] == ["SortedList.remove", "SortedList.clear"]
    assert one[0].steps[0] == ("name words", "+0.0125")


def test_a_function_sentences_plain_words_that_spell_a_functions_name_lift_it() -> None:
    cands = [
        fused("locales.py", 1, 0.050, symbol="Locale.day_name", kind="method"),
        fused("locales.py", 20, 0.040, symbol="Locale.month_name", kind="method"),
        fused("locales.py", 40, 0.035, symbol="MONTH_NAME", kind="constant"),  # not a function
        fused("util.py", 1, 0.030, symbol="get", kind="function"),  # the opening verb alone
    ]
    ranked = rank(cands, analyse("Get the month name for a specified month."), _only(name_words=0.5))
    # top 0.050; month_name: both parts among the words, +0.5 × 0.050
    assert paths(ranked)[0] == ("locales.py", 20)
    assert ranked[0].score == pytest.approx(0.040 + 0.5 * 0.050)
    assert ranked[0].steps == [("name words", "+0.0250")]
    assert all(r.steps == [] for r in ranked[1:])
    # a one-part name gains half: +0.5 × 0.03 × 0.5
    date = [fused("arrow.py", 1, 0.025, symbol="Arrow.date", kind="method"), fused("a.py", 1, 0.03)]
    lifted = rank(date, analyse("Returns a ``date`` object with the same year."), _only(name_words=0.5))
    assert paths(lifted)[0] == ("arrow.py", 1)  # one part, not the opening verb, four letters
    assert lifted[0].score == pytest.approx(0.025 + 0.5 * 0.03 * 0.5)
    seek = [fused("io.py", 1, 0.025, symbol="Spooled.seek", kind="method"), fused("b.py", 1, 0.03)]
    moved = rank(seek, analyse("Seek to a specific point in a file."), _only(name_words=0.5))
    assert paths(moved)[0] == ("io.py", 1)  # the opening verb, not one documentation opens with
    # a function is named for what it does: a doc verb opening the sentence spells it too, where a
    # getter's opening ("Get …", above) says what it returns
    encode = [fused("model.py", 1, 0.025, symbol="StaticModel.encode", kind="method"), fused("d.py", 1, 0.03)]
    assert paths(rank(encode, analyse("Encode a list of sentences."), _only(name_words=0.5)))[0] == (
        "model.py",
        1,
    )
    # "accepts" says what a named definition does ("Listener accepts …"), yet "Accept …" still spells
    # the method it documents
    accept = [fused("net.py", 1, 0.025, symbol="Listener.accept", kind="method"), fused("c.py", 1, 0.03)]
    assert paths(rank(accept, analyse("Accept an incoming connection."), _only(name_words=0.5)))[0] == (
        "net.py",
        1,
    )
    off = rank(cands, analyse("Get the month name for a specified month."), _only(name_words=0))
    assert paths(off)[0] == ("locales.py", 1)


def test_a_sentence_that_documents_an_event_s_listener_spells_its_on() -> None:
    """ws's "The listener of the socket `'data'` event." documents ``socketOnData``: a listener is
    named ``on`` and its event, so the ``on`` is spelled and the name whole (+0.5 × 0.050: 0.070),
    while of ``socketOnClose`` two parts of three are (+0.5 × 0.050 × 0.5: 0.0625). "callback" spells
    no ``on``: "Add a new enter or exit callback." documents what registers one, not ``on_enter``."""
    cands = [
        fused("websocket.js", 1, 0.050, symbol="socketOnClose", kind="function"),
        fused("websocket.js", 90, 0.045, symbol="socketOnData", kind="function"),
    ]
    ranked = rank(cands, analyse("The listener of the socket `'data'` event."), _only(name_words=0.5))
    assert paths(ranked)[0] == ("websocket.js", 90)
    assert ranked[0].steps == [("name words", "+0.0250")]
    assert ranked[1].steps == [("name words (most of it)", "+0.0125")]
    assert ranked[0].score == pytest.approx(0.070) and ranked[1].score == pytest.approx(0.0625)
    assert "on" in analyse("The `Sender` error event handler.").spelled
    assert "on" in analyse("Fired when the compiler finds a partial.").spelled
    assert "on" not in analyse("Add a new enter or exit callback.").spelled


def test_a_word_spells_the_abbreviation_code_writes_for_it_in_a_name() -> None:
    """ "Initialize a WebSocket client." documents ws's ``initAsClient``: "initialize" spells ``init``,
    as "address" spells ``addr``; a short form spells no other word ("client" is no ``cli``)."""
    cands = [
        fused("websocket.js", 1, 0.050, symbol="WebSocket.setSocket", kind="method"),
        fused("websocket.js", 90, 0.040, symbol="initAsClient", kind="function"),
        fused("cli.js", 1, 0.045, symbol="cliClient", kind="function"),
    ]
    ranked = rank(cands, analyse("Initialize a WebSocket client."), _only(name_words=0.5))
    # init and client spelled, "as" not: two thirds of the name, half the gain (+0.5 × 0.050 × 0.5)
    assert paths(ranked)[0] == ("websocket.js", 90)
    assert ranked[0].score == pytest.approx(0.040 + 0.5 * 0.050 * 0.5)
    assert ranked[0].steps == [("name words (most of it)", "+0.0125")]
    assert all(r.steps == [] for r in ranked[1:])
    # a short form only names write (``indexer.NAME_FORMS``): indexmap's "Gets a mutable reference to
    # the entry's value." spells ``get_mut`` whole, +0.5 × 0.050; without "mutable", nothing (the
    # entry's value before "in the map": no object whose methods are named with their class)
    entry = [
        fused("map.rs", 40, 0.050, symbol="Entry.get", kind="method"),
        fused("map.rs", 60, 0.045, symbol="Entry.get_mut", kind="method"),
    ]
    mutable = rank(
        entry, analyse("Gets a mutable reference to the entry's value in the map."), _only(name_words=0.5)
    )
    assert paths(mutable)[0] == ("map.rs", 60) and mutable[0].steps == [("name words", "+0.0250")]
    plain = rank(entry, analyse("Gets a reference to the entry's value in the map."), _only(name_words=0.5))
    assert paths(plain)[0] == ("map.rs", 40) and all(not r.steps for r in plain)
    addr = [fused("stream.rs", 1, 0.025, symbol="Stream.local_addr", kind="method"), fused("a.rs", 1, 0.03)]
    lifted = rank(
        addr, analyse("Returns the local address that this stream is bound to."), _only(name_words=0.5)
    )
    assert paths(lifted)[0] == ("stream.rs", 1)
    # a case named by its side: hex's "Serializes `data` as hex string using uppercase characters."
    # spells ``serialize_upper`` whole (+0.5 × 0.050), not ``serialize`` alone
    cased = [
        fused("serde.rs", 1, 0.050, symbol="serialize", kind="function"),
        fused("serde.rs", 30, 0.045, symbol="serialize_upper", kind="function"),
    ]
    upper = rank(
        cased, analyse("Serializes `data` as hex string using uppercase characters."), _only(name_words=0.5)
    )
    assert paths(upper)[0] == ("serde.rs", 30) and upper[0].steps == [("name words", "+0.0250")]
    # a parser's short forms: "expression" spells ``expr``, "statement" ``stmt`` (+0.5 × 0.03)
    nodes = [
        fused("util.py", 1, 0.030, symbol="is_slice", kind="function"),
        fused("util.py", 9, 0.025, symbol="is_expr", kind="function"),
        fused("util.py", 20, 0.020, symbol="is_stmt", kind="function"),
    ]
    expr = rank(nodes, analyse("Returns whether node is an expression node."), _only(name_words=0.5))
    assert paths(expr)[0] == ("util.py", 9) and expr[0].score == pytest.approx(0.025 + 0.5 * 0.03)
    stmt = rank(nodes, analyse("Returns whether node is a statement node."), _only(name_words=0.5))
    assert paths(stmt)[0] == ("util.py", 20)
    # mistletoe's "Returns the current reading position." documents ``get_pos``: a getter's "get" and
    # the "pos" code writes for "position", the whole name (+0.5 × 0.03); ``set_pos`` is not spelled
    reader = [
        fused("block_tokenizer.py", 30, 0.030, symbol="FileWrapper.set_pos", kind="method"),
        fused("block_tokenizer.py", 25, 0.025, symbol="FileWrapper.get_pos", kind="method"),
    ]
    pos = rank(reader, analyse("Returns the current reading position."), _only(name_words=0.5))
    assert paths(pos)[0] == ("block_tokenizer.py", 25) and pos[0].steps == [("name words", "+0.0150")]
    assert pos[1].steps == []
    # and "pointer" spells ``ptr``, as arrayvec's pointer getters are named
    getter = fused("arrayvec.rs", 260, 0.02, symbol="ArrayVec.get_ptr", kind="method")
    ptr = rank(
        [reader[0], getter], analyse("Get pointer to where the element would be."), _only(name_words=0.5)
    )
    assert paths(ptr)[0] == ("arrayvec.rs", 260)


def test_the_initials_of_words_joined_by_hyphens_spell_a_part_of_a_name() -> None:
    """chronic's "Handle repeater-month-name/scalar-day" documents ``handle_rmn_sd``: code writes a
    term of hyphenated words by its initials (``rmn``, ``sd``; ``ttl`` for "time-to-live"), so every
    part of the name is spelled and it gains in full; a name whose other parts the sentence does not
    spell (``rdn``, ``od``) gains nothing."""
    assert initialisms("Handle repeater-month-name/scalar-day") == {"rmn", "sd"}
    assert initialisms("the time-to-live of a least-recently-used entry") == {"ttl", "lru"}
    assert initialisms("a snake_case-name or a plain word") == frozenset()  # not within a name
    handlers = [
        fused("handlers.rb", 1, 0.050, symbol="Handlers.handle_m_d", kind="method"),
        fused("handlers.rb", 60, 0.045, symbol="Handlers.handle_rdn_od", kind="method"),
        fused("handlers.rb", 15, 0.040, symbol="Handlers.handle_rmn_sd", kind="method"),
    ]
    query = analyse("Handle repeater-month-name/scalar-day")
    assert query.form == "function" and {"handle", "rmn", "sd"} <= query.spelled
    ranked = rank(handlers, query, _only(name_words=0.5))
    assert paths(ranked)[0] == ("handlers.rb", 15)
    assert ranked[0].score == pytest.approx(0.040 + 0.5 * 0.050)
    assert ranked[0].steps == [("name words", "+0.0250")]
    assert all(r.steps == [] for r in ranked[1:])


def test_a_getters_and_a_predicates_opening_spells_the_prefix_of_their_names() -> None:
    cands = [
        fused("core.py", 20, 0.063, symbol="Command.get_help_option", kind="method"),
        fused("decorators.py", 1, 0.060, symbol="help_option", kind="function"),
        fused("core.py", 40, 0.050, symbol="Command.is_help_option", kind="method"),
    ]
    # "Returns …" spells ``get``: the getter gains +0.5 × 0.063 (without the prefix only ``help_option``
    # gained and went first); ``help_option`` is the same name without the ``get`` the opening implies
    # (a property's, a Go getter's) and gains as much, after it; the predicate is not spelled whole
    # ("is" is not among the words), two of its three parts: half, +0.0158
    getter = rank(cands, analyse("Returns the help option object."), _only(name_words=0.5))
    assert paths(getter) == [("core.py", 20), ("decorators.py", 1), ("core.py", 40)]
    assert getter[0].score == pytest.approx(0.063 + 0.5 * 0.063)
    assert getter[1].steps == [("name words", "+0.0315")]
    assert getter[2].steps == [("name words (most of it)", "+0.0158")]
    # "Return True if …" spells ``is`` and ``has``, not ``get``: the predicate gains, 0.050 + 0.0315
    predicate = rank(cands, analyse("Return True if it names the help option."), _only(name_words=0.5))
    assert paths(predicate) == [("core.py", 40), ("core.py", 20), ("decorators.py", 1)]
    assert predicate[0].score == pytest.approx(0.050 + 0.5 * 0.063)
    assert predicate[1].steps == [("name words (most of it)", "+0.0158")]  # the getter: 2 of 3
    assert predicate[2].steps == []
    whether = rank(cands, analyse("Returns whether the help option is set."), _only(name_words=0.5))
    steps = {r.fused.label.symbol: r.steps for r in whether}
    assert steps["Command.is_help_option"] == [("name words", "+0.0315")]
    assert steps["Command.get_help_option"] == [("name words (most of it)", "+0.0158")]  # not whole
    # another opening verb spells no prefix
    other = rank(cands, analyse("Builds the help option object."), _only(name_words=0.5))
    assert [r.fused.label.symbol for r in other if r.steps == [("name words", "+0.0315")]] == ["help_option"]
    assert paths(other)[0] == ("decorators.py", 1)  # the accessors gain half: two of their three parts


@pytest.mark.parametrize(
    "sentence",
    [
        "Check if the given marshal type maps to a Tree",  # go-toml's ``isTree``, no "is" among the words
        "Checks whether the given marshal type maps to a Tree.",
        "Determine if the marshal type maps to a Tree.",
        "Whether the marshal type maps to a Tree.",
        "Tests if the marshal type maps to a Tree.",
    ],
)
def test_a_predicates_asking_opening_spells_is(sentence: str) -> None:
    """A predicate's documentation opening with a verb that asks "if" or "whether", or with "Whether"
    alone, spells the ``is`` its name opens with, as "Return True if …" does: ``isTree`` {is, tree}
    is spelled whole and gains 0.5 × 0.06 = 0.03, from 0.045 to 0.075, above the marshaller the words
    spell in part. "Check the marshal type …" asks nothing: ``isTree`` gains nothing, and the
    marshaller stays first."""
    cands = [
        fused("marshal.go", 379, 0.06, symbol="toml.Encoder.marshal", kind="method"),
        fused("marshal.go", 160, 0.045, symbol="toml.isTree", kind="function"),
    ]
    assert {"is", "has"} <= analyse(sentence).spelled
    ranked = rank(cands, analyse(sentence), _only(name_words=0.5))
    assert paths(ranked)[0] == ("marshal.go", 160)
    assert ranked[0].score == pytest.approx(0.045 + 0.5 * 0.06)
    plain = analyse("Check the marshal type maps to a Tree.")
    assert "is" not in plain.spelled
    unasked = rank(cands, plain, _only(name_words=0.5))
    assert paths(unasked)[0] == ("marshal.go", 379) and unasked[1].steps == []


def test_a_name_that_longer_names_extend_by_the_alternatives_listed_gains_as_their_dispatcher() -> None:
    """rsa: "Loads a key in PKCS#1 DER or PEM format." spells ``_load_pkcs1_der`` and
    ``_load_pkcs1_pem``, and documents ``load_pkcs1``, which loads either."""
    cands = [
        fused("rsa/key.py", 318, 0.064, symbol="PublicKey._load_pkcs1_pem", kind="method"),
        fused("rsa/key.py", 274, 0.058, symbol="PublicKey._load_pkcs1_der", kind="method"),
        fused("rsa/key.py", 105, 0.063, symbol="AbstractKey.load_pkcs1", kind="method"),
    ]
    listed = rank(cands, analyse("Loads a key in PKCS#1 DER or PEM format."), _only(name_words=0.5))
    # all three gain +0.5 × 0.064 (the dispatcher gaining nothing would fall below the DER loader)
    assert paths(listed) == [("rsa/key.py", 318), ("rsa/key.py", 105), ("rsa/key.py", 274)]
    assert [r.score for r in listed] == pytest.approx([0.064 + 0.032, 0.063 + 0.032, 0.058 + 0.032])
    assert listed[1].steps == [("name words", "+0.0320")]
    # one format named: the longer name spelled is the one documented, the shorter gains nothing
    one = rank(cands, analyse("Loads a key in PKCS#1 PEM format."), _only(name_words=0.5))
    assert paths(one)[0] == ("rsa/key.py", 318)
    assert {r.fused.label.symbol: r.steps for r in one}["AbstractKey.load_pkcs1"] == []
    # both formats named, not as alternatives ("DER format before PEM"): no dispatcher is documented
    both = rank(cands, analyse("Loads a key in PKCS#1 DER format before PEM."), _only(name_words=0.5))
    assert {r.fused.label.symbol: r.steps for r in both}["AbstractKey.load_pkcs1"] == []
    assert [r.fused.label.symbol for r in both if r.steps] == [
        "PublicKey._load_pkcs1_pem",
        "PublicKey._load_pkcs1_der",
    ]


def test_a_name_spelled_only_as_a_part_of_a_longer_name_spelled_gains_nothing() -> None:
    cands = [
        fused("command.js", 1988, 0.061, symbol="Command.unknownOption", kind="method"),
        fused("command.js", 777, 0.060, symbol="Command.requiredOption", kind="method"),
        fused("option.js", 1, 0.030, symbol="Option.allow", kind="method"),
    ]
    held = {("command.js", 777): ["Command.requiredOption", "Command.allowUnknownOption"]}

    def within(path: str, start: int, end: int) -> list[str]:
        return held.get((path, start), [])

    # (the command line before more of the clause: no object whose methods are named with their class)
    query = analyse("Allow unknown options on the command line of a program.")
    ranked = rank(cands, query, _only(name_words=0.5), functions_within=within)
    # allowUnknownOption's parts are all among the words, and unknownOption's and allow's are all
    # within it: only the chunk holding the longer name gains, +0.5 × 0.061
    assert paths(ranked) == [("command.js", 777), ("command.js", 1988), ("option.js", 1)]
    assert ranked[0].score == pytest.approx(0.060 + 0.5 * 0.061)
    assert ranked[0].steps == [("name words", "+0.0305")]
    assert ranked[1].steps == [] and ranked[2].steps == []
    # without the longer name among the candidates both shorter ones gain as before
    alone = rank(cands, query, _only(name_words=0.5))
    gained = {r.fused.label.symbol: r.score - r.fused.score for r in alone if r.steps}
    assert gained == {
        "Command.unknownOption": pytest.approx(0.5 * 0.061),
        "Option.allow": pytest.approx(0.5 * 0.061 * 0.5),  # one part: half
    }
    # names of equal parts are not within each other: both gain
    equal = [
        fused("a.py", 1, 0.05, symbol="help_get", kind="function"),
        fused("b.py", 1, 0.04, symbol="get_help", kind="function"),
    ]
    both = rank(equal, analyse("Get the help of the command."), _only(name_words=0.5))
    assert all(r.steps == [("name words", "+0.0250")] for r in both)


def test_a_getter_named_without_the_prefix_the_opening_implies_is_no_part_of_the_longer_name() -> None:
    """boolean.py's "Return a set of all literals contained in this expression." documents the property
    ``literals`` (here "the expression" before more of the clause: "this expression", or "the
    expression" closing the sentence, would name both with their class,
    :func:`test_a_method_of_the_object_a_sentence_calls_this_is_named_with_its_class`); "Return"
    implies the ``get`` of ``get_literals``, which adds nothing the sentence
    writes: the two are one getter named two ways (Go's and Rust's getters carry no ``get``), and
    both gain. With name_words 0.2 and the top score 0.055: ``get_literals`` (two parts) +0.2 × 0.055 =
    0.011, ``literals`` (one part) half, +0.0055, which lifts it from 0.0521 to 0.0576, above
    ``expression_count`` at 0.055.
    Where the sentence writes "Get", ``get`` is a word of it and ``literals`` only a part of the
    longer name, as before: it gains nothing."""
    cands = [
        fused("boolean.py", 689, 0.0521, symbol="Expression.literals", kind="method"),
        fused("boolean.py", 100, 0.055, symbol="Expression.expression_count", kind="method"),
        fused("boolean.py", 677, 0.0492, symbol="Expression.get_literals", kind="method"),
    ]
    ranked = rank(
        cands,
        analyse("Return a set of all literals contained in the expression or its arguments."),
        _only(name_words=0.2),
    )
    assert paths(ranked) == [("boolean.py", 677), ("boolean.py", 689), ("boolean.py", 100)]
    assert ranked[0].score == pytest.approx(0.0492 + 0.2 * 0.055)
    assert ranked[1].score == pytest.approx(0.0521 + 0.2 * 0.055 * 0.5)
    assert ranked[1].steps == [("name words", "+0.0055")]
    assert ranked[2].steps == []  # expression_count: "count" is not a word of the sentence
    written = rank(
        cands, analyse("Get the literals of the expression or its arguments."), _only(name_words=0.2)
    )
    assert paths(written) == [("boolean.py", 677), ("boolean.py", 100), ("boolean.py", 689)]
    assert written[2].steps == []
    assert written[2].score == pytest.approx(0.0521)
    # the prefix implied, not written; a predicate's is not a getter's
    assert implies_get(["returns", "the", "loop"])
    assert not implies_get(["get", "the", "loop"])
    assert not implies_get(["returns", "whether", "it", "is", "empty"])
    assert not implies_get([])


def test_name_words_read_a_name_that_runs_two_words_together() -> None:
    """``naturalday`` is Python's ``natural_day`` written without the underscore: "Return a natural
    day." spells both its words, a full gain (+0.5 × 0.05), not a one-part name's half; ``naturaldate``
    runs "natural" and "date" together, and "date" is not among the words."""
    cands = [
        fused("time.py", 1, 0.05, symbol="naturaldate", kind="function"),
        fused("time.py", 40, 0.048, symbol="naturalday", kind="function"),
        fused("number.py", 1, 0.047, symbol="apnumber", kind="function"),
    ]
    ranked = rank(cands, analyse("Return a natural day."), _only(name_words=0.5))
    assert [r.fused.label.symbol for r in ranked] == ["naturalday", "naturaldate", "apnumber"]
    assert ranked[0].score == pytest.approx(0.048 + 0.5 * 0.05)
    assert ranked[0].steps == [("name words", "+0.0250")]
    assert ranked[1].steps == [] and ranked[2].steps == []
    # a word's stem ("Reads" for ``read``) and the short form code writes for a word ("cfg" for
    # "configuration") count as they do for the parts of a name
    more = [*cands, fused("io.py", 1, 0.046, symbol="readlines", kind="function")]
    more.append(fused("config.py", 1, 0.045, symbol="loadcfg", kind="function"))
    first = rank(more, analyse("Reads the lines of a file."), _only(name_words=0.5))[0]
    assert first.fused.label.symbol == "readlines" and first.steps == [("name words", "+0.0250")]
    first = rank(more, analyse("Load the configuration file."), _only(name_words=0.5))[0]
    assert first.fused.label.symbol == "loadcfg" and first.steps == [("name words", "+0.0250")]


def test_a_one_part_name_first_by_words_and_meaning_gains_in_full() -> None:
    """The sentence "Returns the root state ID, and if it doesn't exist, creates it." spells ``root``
    (one part: half the gain) and ``create_state`` (two: all of it); the chunk that the text and the dense
    retrievers both rank first is what the sentence documents, and its one-part name gains in full."""
    query = analyse("Returns the root state ID, and if it doesn't exist, creates it.")
    cands = [
        fused("literal.rs", 2295, 0.0503, symbol="PreferenceTrie.root", kind="method", text=1, vector=1),
        fused("literal.rs", 2304, 0.0494, symbol="PreferenceTrie.create_state", kind="method", text=2, vector=2),
    ]  # fmt: skip
    ranked = rank(cands, query, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["PreferenceTrie.root", "PreferenceTrie.create_state"]
    assert ranked[0].score == pytest.approx(0.0503 + 0.2 * 0.0503)
    assert ranked[0].steps == [("name words", "+0.0101")]
    assert ranked[1].steps == [("name words", "+0.0101")]
    # first by its words alone (the dense retriever did not find it), it gains half (0.2 × 0.0503 ×
    # 0.5) and the two-part name passes it
    cands[0] = fused("literal.rs", 2295, 0.0503, symbol="PreferenceTrie.root", kind="method", text=1)
    ranked = rank(cands, query, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["PreferenceTrie.create_state", "PreferenceTrie.root"]
    assert ranked[1].steps == [("name words", "+0.0050")]
    # a name shorter than four letters is spelled by chance ("put" among the words of a request), but
    # not in the chunk both retrievers put first: guzzle's "Create and send an HTTP PUT request."
    query = analyse("Create and send an HTTP PUT request.")
    sends = [
        fused("Client.php", 430, 0.0584, symbol="Client.sendRequest", kind="method", text=6),
        fused("ClientTrait.php", 383, 0.0656, symbol="ClientTrait.put", kind="method", text=1, vector=1),
    ]
    ranked = rank(sends, query, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["ClientTrait.put", "Client.sendRequest"]
    assert ranked[0].steps == [("name words", "+0.0131")]
    sends[1] = fused("ClientTrait.php", 383, 0.0656, symbol="ClientTrait.put", kind="method", text=1)
    ranked = rank(sends, query, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked] == ["Client.sendRequest", "ClientTrait.put"]
    assert ranked[1].steps == []


def test_a_name_built_of_a_name_mentioned_and_the_words_gains_as_one_spelled() -> None:
    """lodash documents ``baseIsArguments`` as "The base implementation of `_.isArguments`.": its
    parts are the word "base" and the name the sentence mentions. The mentioned name itself is not
    spelled (the sentence names it as another function), nor a name of the words without it."""
    query = analyse("The base implementation of `_.isArguments`.")
    cands = [
        fused("index.js", 714, 0.052, symbol="arrayLikeKeys", kind="function"),
        fused("index.js", 1600, 0.050, symbol="isArguments", kind="function"),
        fused("index.js", 835, 0.049, symbol="baseIsArguments", kind="function"),
        fused("index.js", 900, 0.048, symbol="baseIsNative", kind="function"),
    ]
    ranked = rank(cands, query, _only(name_words=0.2))
    assert [r.fused.label.symbol for r in ranked][:2] == ["baseIsArguments", "arrayLikeKeys"]
    assert ranked[0].score == pytest.approx(0.049 + 0.2 * 0.052)
    assert ranked[0].steps == [("name words", "+0.0104")]
    assert all(r.steps == [] for r in ranked[1:])
    # a qualified name is mentioned by its last part: "Default function for `datetime.date` instances"
    dated = [
        fused("json.py", 24, 0.0454, symbol="JsonEncoder.default", kind="method"),
        fused("defaults.py", 104, 0.0450, symbol="date_default", kind="function"),
        fused("defaults.py", 118, 0.0449, symbol="datetime_default", kind="function"),
    ]
    ranked = rank(dated, analyse("Default function for `datetime.date` instances"), _only(name_words=0.2))
    assert ranked[0].fused.label.symbol == "date_default"
    assert ranked[0].steps == [("name words", "+0.0091")]


def test_a_long_name_two_thirds_spelled_gains_as_a_one_part_name() -> None:
    cands = [
        fused("command.js", 1944, 0.052, symbol="Command._conflictingOption", kind="method"),
        fused("command.js", 1621, 0.050, symbol="Command._checkForConflictingLocalOptions", kind="method"),
        fused("command.js", 1700, 0.049, symbol="Command.checkLocal", kind="method"),  # 1 of 2 parts
        fused("help.js", 1, 0.048, symbol="Help.displayErrorMessageOnce", kind="method"),
    ]
    query = analyse("Display an error message if conflicting options are used in this command.")
    ranked = rank(cands, query, _only(name_words=0.5))
    gained = {r.fused.label.symbol: (r.score - r.fused.score, r.steps) for r in ranked if r.steps}
    # _conflictingOption: spelled whole, +0.5 × 0.052; _checkForConflictingLocalOptions: check, for,
    # local not among the words, conflicting and options are: 2 of 5, no gain; displayErrorMessageOnce:
    # 3 of 4 parts (two thirds or more), +0.5 × 0.052 × 0.5; checkLocal: 0 of 2. Each method of "this
    # command" gains a quarter for its class, +0.5 × 0.052 × 0.25
    its_class = ("name words (its class)", "+0.0065")
    assert gained == {
        "Command._conflictingOption": (pytest.approx(0.026 + 0.0065), [("name words", "+0.0260"), its_class]),
        "Command._checkForConflictingLocalOptions": (pytest.approx(0.0065), [its_class]),
        "Command.checkLocal": (pytest.approx(0.0065), [its_class]),
        "Help.displayErrorMessageOnce": (pytest.approx(0.013), [("name words (most of it)", "+0.0130")]),
    }
    # "… for local conflicting options …" spells 4 of its 5 parts (check is not among the words)
    local = analyse("Display an error message for local conflicting options used in this command.")
    steps = {r.fused.label.symbol: r.steps for r in rank(cands, local, _only(name_words=0.5)) if r.steps}
    assert steps["Command._checkForConflictingLocalOptions"] == [
        ("name words (most of it)", "+0.0130"),
        its_class,
    ]
    # a chunk that gains for a name spelled whole gains once, not again for one it mostly spells
    held = {("command.js", 1944): ["Command._conflictingOption", "Command.displayErrorMessageTwice"]}
    both = rank(cands, query, _only(name_words=0.5), functions_within=lambda p, s, e: held.get((p, s), []))
    assert [r.steps for r in both if r.fused.label.symbol == "Command._conflictingOption"] == [
        [("name words", "+0.0260"), its_class]
    ]


def test_name_words_read_the_functions_a_chunk_holds_after_its_first() -> None:
    cands = [
        fused("core.py", 1, 0.054, symbol="Parameter.make_metavar", kind="method"),
        # one chunk of ParamType's short methods, labelled with its first
        fused("types.py", 83, 0.050, symbol="ParamType.__call__", kind="method"),
        fused("types.py", 200, 0.040, symbol="ParamType", kind="class"),
    ]
    held = {
        ("types.py", 83): [
            "ParamType.__call__",
            "ParamType.get_metavar",
            "ParamType.get_metavar_hint",
            "ParamType.get_metavar_default",
        ],
        ("types.py", 200): ["ParamType.split_envvar_value"],
    }

    def within(path: str, start: int, end: int) -> list[str]:
        assert end == start + 9  # the span asked about is the candidate's
        return held.get((path, start), [])

    query = analyse("Returns the metavar default for this param if it provides one.")
    ranked = rank(cands, query, _only(name_words=0.5), functions_within=within)
    # get_metavar: "get" (the getter's opening) and "metavar"; get_metavar_default too, but the chunk
    # gains once, +0.5 × 0.054 (get_metavar_hint is not spelled: "hint" is not among the words)
    assert paths(ranked)[0] == ("types.py", 83)
    assert ranked[0].score == pytest.approx(0.050 + 0.5 * 0.054)
    assert ranked[0].steps == [("name words", "+0.0270")]
    assert all(r.steps == [] for r in ranked[1:])
    # without the symbol index's view a chunk is known by its label only
    alone = rank(cands, query, _only(name_words=0.5))
    assert paths(alone)[0] == ("core.py", 1) and all(r.steps == [] for r in alone)


def test_name_words_leave_a_sentence_that_opens_with_a_name_and_the_names_it_mentions() -> None:
    cands = [
        fused("field.go", 1, 0.050, symbol="zap.Durationp", kind="function"),
        fused("field.go", 20, 0.040, symbol="zap.Duration", kind="function"),
    ]
    # "Name verbs …", the name confirmed by the symbol index (as Engine.order does): the definition
    # rule's, not this one's
    opens = named_in_sentence(
        analyse("Durationp constructs a field that carries a *time.Duration."), ["zap.Durationp"]
    )
    assert all(r.steps == [] for r in rank(cands, opens, _only(name_words=0.5)))
    mentions = analyse("Construct a field that carries a *time.Duration.")
    assert all(r.steps == [] for r in rank(cands, mentions, _only(name_words=0.5)))  # an identifier's word
    topic = analyse("month name lookup")  # not a function sentence
    assert all(r.steps == [] for r in rank(cands, topic, _only(name_words=0.5)))


def test_name_words_in_a_tests_claim_lift_only_tests() -> None:
    cands = [
        fused("src/pipeline.py", 1, 0.050, symbol="merge_sources", kind="function"),
        fused("tests/test_pipeline.py", 1, 0.045, symbol="test_repeated_keys", kind="function"),
        fused("tests/test_pipeline.py", 30, 0.030, symbol="test_other", kind="function"),
    ]
    # a case and what then holds: a test's claim. The code under test whose name its words spell
    # (``merge_sources``) gains nothing from them; the test named mostly in its words gains half:
    # 0.045 + 0.5 × 0.050 × 0.5
    claim = analyse("If two sources repeat a key, the merged sources keep the first value.")
    assert claim.tests_claim and "test" in claim.wants
    ranked = rank(cands, claim, _only(name_words=0.5))
    assert paths(ranked) == [
        ("tests/test_pipeline.py", 1),
        ("src/pipeline.py", 1),
        ("tests/test_pipeline.py", 30),
    ]
    assert ranked[0].score == pytest.approx(0.045 + 0.5 * 0.050 * 0.5)
    assert [r.steps for r in ranked] == [[("name words (most of it)", "+0.0125")], [], []]
    # the same words as a definition's own docstring lift the code: 0.050 + 0.5 × 0.050
    plain = analyse("Merge the sources, keeping the first value of a repeated key.")
    assert not plain.tests_claim
    lifted = rank(cands, plain, _only(name_words=0.5))
    assert paths(lifted)[0] == ("src/pipeline.py", 1) and lifted[0].score == pytest.approx(0.075)
    # the language of a specification alone ("must") asks for tests as much as for code, and is no
    # test's claim: a definition's docstring speaks it too ("+gets+ must be called without arguments")
    spec = analyse("The merged sources must keep the first value of a repeated key.")
    assert "test" in spec.wants and not spec.tests_claim


def test_a_link_in_a_sentence_names_code_by_its_file_stem_only() -> None:
    walk = analyse(
        "walk descends path, calling walkFn adapted from https://golang.org/src/path/filepath/path.go"
    )
    assert walk.identifiers == ("walkFn",)  # not golang.org, not path.go (whose "go" named go.mod)
    react = analyse(
        "Adapted from React: https://github.com/facebook/react/blob/main/shared/formatProdErrorMessage.js"
    )
    assert react.identifiers == ("formatProdErrorMessage",)
    assert analyse("See https://github.com/spf13/afero/issues/169.").identifiers == ()


def test_the_readme_names_every_ranking_setting() -> None:
    from dataclasses import fields
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("\n[ranking]") :].split("\n\n", 1)[0]
    # "also example_, fixture_, … (0.3)": a role's penalty may be named by its role's prefix
    named = [
        f.name for f in fields(RankingConfig) if f.name in block or f.name.replace("penalty", "") in block
    ]
    missing = [f.name for f in fields(RankingConfig) if f.name not in named]
    assert missing == [], f"README's [ranking] block does not name {missing}"


@pytest.mark.parametrize(
    "text",
    [
        "Make sure passing a default into ``peek()`` works.",
        "Ensure tabulate accepts specific count",
        "ensure a non-specified exception is raised",
        "Verify that the lock is released after a timeout.",
        "Test that the cookie is kept.",
        "This test makes sure a second call to wait() clears the first timeout.",
        "Regression test for the unbounded cache.",
        "Test structuring Optional primitive types.",
        "Tests prepending in front of an empty iterable",
        "Test the happy path here",
        "Test that cookies persist",  # "Test that …" however short
        "Test the Bytes() function.",  # a short sentence, its period says so
        "Test repr of ``Node``.",
        "Benchmark ljust() with an ASCII string.",  # a benchmark is a test that states what it times
        "Benchmarks parsing of a long header list",
    ],
)
def test_a_sentence_opening_by_stating_a_test_asks_for_the_test(text: str) -> None:
    query = analyse(text)
    assert query.states_test and query.wants == {"test"}


@pytest.mark.parametrize(
    "text",
    [
        "Ensures the directory exists.",  # the third person documents the code that does it
        "Verifies the signature of a message.",
        "Checks that the value is valid.",
        "Check that an object is callable, else raise a TypeError.",  # a validator's as often as a test's
        "Tests whether or not an object is a typed array.",
        "Test for executable file.",
        "Test whether the path exists.",
        "Test if the token matches.",
        "Test to see if we have a reason to print See Also information",
        "Test sets the test struct variable of the mock object",  # Go: the definition Test, then a verb
        "verify jwt signature",  # fewer than five words: a search for the code that does it
        "ensure directory exists",
        "test runner configuration",
        "Returns True if the cookie should be secure.",  # an expectation asks for tests as much as code
        "make sure retries back off",  # a topic opening so is a stated test too; a name is not one
        "ensure_dir",
        "Benchmark for the parser.",  # a predicate's "for", as "Test for …"
        "benchmark the parser",  # fewer than five words
    ],
)
def test_only_an_imperative_that_states_a_test_asks_for_the_test_over_code(text: str) -> None:
    expected = text == "make sure retries back off"
    assert analyse(text).states_test is expected


def test_a_stated_test_puts_the_test_before_the_code_it_checks() -> None:
    cands = [
        fused("more/more.py", 1, 0.05),  # the code under test, first by the retrievers
        fused("tests/test_more.py", 1, 0.03),
        fused("tests/conftest.py", 1, 0.02),  # a fixture is found with the tests
        fused("docs/api.rst", 1, 0.028),
    ]
    query = analyse("Make sure passing a default into peek() works.")
    ranked = rank(cands, query, _only(code_penalty=0.5))
    # code ×0.5: 0.05 → 0.025; the test (0.03) and the fixture file under tests/ keep their scores;
    # the docs page is not a test either, and docs are demoted as ever (×0.5 twice: 0.007)
    assert paths(ranked) == [
        ("tests/test_more.py", 1),
        ("more/more.py", 1),
        ("tests/conftest.py", 1),
        ("docs/api.rst", 1),
    ]
    by_path = {r.fused.span.path: r for r in ranked}
    assert by_path["more/more.py"].score == pytest.approx(0.025)
    assert by_path["more/more.py"].steps == [("code: a test is stated", "×0.5")]
    assert by_path["tests/test_more.py"].score == pytest.approx(0.03)
    assert by_path["tests/test_more.py"].steps == []
    assert by_path["tests/conftest.py"].score == pytest.approx(0.02)
    assert by_path["docs/api.rst"].score == pytest.approx(0.007)
    assert by_path["docs/api.rst"].steps == [("code: a test is stated", "×0.5"), ("role:docs", "×0.5")]
    off = rank(cands, query, _only(code_penalty=1.0))
    assert paths(off)[0] == ("more/more.py", 1)
    assert all(rule != "code: a test is stated" for r in off for rule, _ in r.steps)
    # an expectation alone asks for tests as much as code: nothing demoted for it
    expectation = rank(
        cands, analyse("Returns True if the cookie should be secure."), _only(code_penalty=0.5)
    )
    assert paths(expectation)[0] == ("more/more.py", 1)


def test_the_pool_is_shallower_where_the_verifier_decides_the_first_places() -> None:
    from search.engine.engine import PLAIN_POOL, pool_depth

    config = RankingConfig()
    assert (config.pool, config.verified_pool, PLAIN_POOL) == (60, 30, 30)
    sentence = analyse("retry failed uploads after a delay")
    assert pool_depth(sentence, config) == 60  # the file rules order many candidates
    assert pool_depth(analyse("UploadSession"), config) == 30  # the definitions found come first
    assert pool_depth(analyse('"checksum mismatch"'), config) == 30
    assert pool_depth(analyse("retry.*upload", regex=True), config) == 30
    verbatim = {"text": [Hit(Span("a.py", 1, 3), 1.0, exact=True)]}
    assert pool_depth(sentence, config, verbatim) == 30  # pasted from the code: its places come first
    assert pool_depth(sentence, config, {"text": [Hit(Span("a.py", 1, 3), 1.0)]}) == 60
    assert pool_depth(sentence, RankingConfig(enabled=False)) == PLAIN_POOL
    assert pool_depth(analyse("UploadSession"), RankingConfig(pool=20)) == 20  # never deeper than the pool
    assert pool_depth(sentence, RankingConfig(verified_pool=100)) == 60
    # a name's usages: every place is verified alike, and the ranking must see those in real code
    usages = as_usages(analyse("who calls send"), NameRequest("send", frozenset(), True))
    assert pool_depth(usages, config) == 200
    assert pool_depth(usages, RankingConfig(usage_pool=80)) == 80


def test_a_place_of_the_words_a_definition_was_asked_in_below_the_pool_keeps_its_place(tmp_path) -> None:
    """luxon's "Zone is an abstract class" is read as the search for the class ``Zone``: the text
    retriever's ranking of the name alone leaves the one place that holds the words (an error's
    message) below the 30 hits a search reads, and appends it after them, marked; the ranking still
    puts it right after the definition, for a search that reads 30 hits as for one that reads 90."""
    from indexer import load_settings
    from search.engine.engine import Engine

    engine = Engine(load_settings(tmp_path, env={}, overrides={"index_dir": str(tmp_path / "index")}))
    try:
        query = as_definition(
            analyse("Zone is an abstract class"), NameRequest("Zone", frozenset({"class", "struct"}), False)
        )
        text = [Hit(Span(f"src/zones/z{i:02}.js", 1, 9), 9.0 - i / 10) for i in range(40)]
        message = Hit(Span("src/errors.js", 54, 61), 0.0, "ZoneIsAbstractError", "class", asked=2)
        defined = Hit(Span("src/zone.js", 3, 42), 1.0, "Zone", "class", exact=True)
        for limit in (10, 30):
            ranked = engine.order(query, {"text": [*text, message], "symbol": [defined]}, limit=limit)
            assert paths(ranked)[:2] == [("src/zone.js", 3), ("src/errors.js", 54)], limit
            assert ("phrase", "after the definitions (the words as asked)") in ranked[1].steps
        unmarked = engine.order(query, {"text": [*text, replace(message, asked=0)], "symbol": [defined]})
        assert ("src/errors.js", 54) not in paths(unmarked)  # below the pool, unmarked: not read
    finally:
        engine.close()


def test_deeper_rankings_are_ranked_as_a_search_asks_for_them(tmp_path) -> None:
    """A replay of rankings recorded deeper than the pool orders exactly what a search would fetch:
    here, text hits below the 30th would lift ``b.py`` by coherence if they were read."""
    from indexer import load_settings
    from search.engine.engine import Engine

    engine = Engine(load_settings(tmp_path, env={}, overrides={"index_dir": str(tmp_path / "index")}))
    try:
        text = [Hit(Span(f"a{i}.py", 1, 9), 1.0) for i in range(30)]
        text[4] = Hit(Span("b.py", 1, 9), 1.0)
        tail = [Hit(Span("b.py", 100 + 20 * i, 110 + 20 * i), 1.0) for i in range(20)]
        query = analyse("UploadSession")
        deep = engine.order(query, {"text": text + tail})
        shallow = engine.order(query, {"text": text})
        assert paths(deep) == paths(shallow) and [r.score for r in deep] == [r.score for r in shallow]
        unread = engine.order(query, {"text": text + tail}, config=RankingConfig(verified_pool=60))
        assert paths(unread)[0] == ("b.py", 1)  # what the tail would have done
        assert paths(shallow)[0] == ("a0.py", 1)
    finally:
        engine.close()


def test_a_qualified_name_in_a_sentence_favours_its_own_definition() -> None:
    def definition(path: str, name: str, symbol_rank: int) -> Fused:
        span = Span(path, 10, 40)
        hit = Hit(span, 1.0, name, "method" if "." in name else "function")
        return Fused(span, 0.04, {"symbol": symbol_rank, "text": None, "vector": None}, hit, False, hit)

    plain = definition("rich/__init__.py", "print", 1)
    method = definition("rich/console.py", "Console.print", 2)
    ranked = rank([plain, method], analyse("how does Console.print handle markup"), _only(definition=3.0))
    assert paths(ranked)[0] == ("rich/console.py", 10)
    assert ranked[0].steps == [("definition", f"+{3.0 * 0.04 * 0.5:.4f}")]  # top × weight × ½ (a sentence)
    assert ranked[1].steps == [("definition (not as written)", f"+{3.0 * 0.04 * 0.5 * 0.5:.4f}")]


def test_tests_asked_for_a_name_are_the_tests_named_after_it() -> None:
    def chunk(path: str, name: str, score: float, symbol_rank: int | None = None) -> Fused:
        span = Span(path, 10, 40)
        hit = Hit(span, 1.0, name, "class")
        ranks = {"symbol": symbol_rank, "text": 1, "vector": None}
        return Fused(span, score, ranks, hit, False, hit if symbol_rank else None)

    code = chunk("src/dev.py", "ConsoleRenderer", 0.06, symbol_rank=1)
    test = chunk("tests/test_dev.py", "TestConsoleRenderer.test_pads", 0.05)
    other = chunk("tests/test_other.py", "TestOther.test_pads", 0.055)
    ranked = rank([code, test, other], analyse("tests for ConsoleRenderer"), _only(definition=3.0))
    assert [p for p, _ in paths(ranked)] == ["tests/test_dev.py", "src/dev.py", "tests/test_other.py"]
    assert ranked[0].steps[0] == ("a test of it", f"+{3.0 * 0.06 * 0.5:.4f}")  # top × weight × ½
    assert ranked[1].steps == []  # the definition tested is not what is asked for
    ranked = rank([code, test, other], analyse("ConsoleRenderer"), _only(definition=3.0))
    assert paths(ranked)[0] == ("src/dev.py", 10)  # without "tests", the definition


def test_the_tests_named_after_a_name_alone_go_before_those_that_add_words_the_query_lacks() -> None:
    def test(name: str, score: float) -> Fused:
        span = Span(f"{name}_test.go", 10, 40)
        hit = Hit(span, 1.0, name, "function")
        return Fused(span, score, {"symbol": None, "text": 1, "vector": None}, hit, False, None)

    each = test("TestEachInt16", 0.06)  # a test of Each, for int16 values
    slice_ = test("TestInt16Slice", 0.058)
    own = test("TestInt16", 0.05)
    ranked = rank([each, slice_, own], analyse("Tests for Int16 (int16 and []int16)"), _only(definition=3.0))
    assert [r.fused.label.symbol for r in ranked] == ["TestInt16", "TestEachInt16", "TestInt16Slice"]
    assert ranked[0].steps[0] == ("a test of it", f"+{3.0 * 0.06 * 0.5:.4f}")  # top × weight × ½
    assert ranked[1].steps[0] == ("a test of it (a longer name)", f"+{3.0 * 0.06 * 0.5 * 0.5:.4f}")
    # a query that tells more than the name may name its test in other words: each gains in full
    ranked = rank([each, slice_, own], analyse("Test Int16 over a fresh slice"), _only(definition=3.0))
    assert [r.fused.label.symbol for r in ranked] == ["TestEachInt16", "TestInt16Slice", "TestInt16"]
    assert {r.steps[0][0] for r in ranked} == {"a test of it"}
    # a method of the test class named after it tests it, whatever its own name
    method = test("TestInt16.TestOverflow", 0.04)
    ranked = rank([each, method], analyse("tests for Int16"), _only(definition=3.0))
    assert ranked[0].fused.label.symbol == "TestInt16.TestOverflow"


def test_a_stand_in_named_as_the_name_in_a_test_file_is_no_test_of_it() -> None:
    """go-schema's decoder_test.go defines ``S22.UnmarshalText``, a fake type's method of the
    interface: another definition of the name, not a test of it. ``TestUnmarshalTextEmpty`` gains
    (top 0.06 × 3.0 × ½ = +0.0900); the stand-in gains nothing and goes after it."""

    def chunk(name: str, score: float) -> Fused:
        span = Span("decoder_test.go", 10 if name.startswith("Test") else 60, 40)
        hit = Hit(span, 1.0, name, "function")
        return Fused(span, score, {"symbol": None, "text": 1, "vector": None}, hit, False, None)

    stand_in = chunk("schema.S22.UnmarshalText", 0.06)
    test = chunk("schema.TestUnmarshalTextEmpty", 0.05)
    ranked = rank([stand_in, test], analyse("tests for UnmarshalText"), _only(definition=3.0))
    assert [r.fused.label.symbol for r in ranked] == [
        "schema.TestUnmarshalTextEmpty",
        "schema.S22.UnmarshalText",
    ]
    assert ranked[0].steps[0] == ("a test of it", f"+{3.0 * 0.06 * 0.5:.4f}")
    assert ranked[1].steps == []
    # a test asked for by its own name is itself
    race = chunk("afero.TestMemFsDataRace", 0.05)
    ranked = rank([stand_in, race], analyse("tests for TestMemFsDataRace"), _only(definition=3.0))
    assert (
        ranked[0].fused.label.symbol == "afero.TestMemFsDataRace" and ranked[0].steps[0][0] == "a test of it"
    )


def test_a_names_usages_in_real_code_come_first_then_in_tests_then_its_definitions() -> None:
    query = as_usages(analyse("who calls parse_args"), NameRequest("parse_args", frozenset(), True))

    def place(path: str, text_rank: int, defines: str | None = None) -> Fused:
        span = Span(path, 10, 40)
        hit = Hit(span, 1.0, defines, "function" if defines else None, exact=True)
        ranks = {"text": text_rank, "symbol": 1 if defines else None, "vector": None}
        return Fused(span, 0.03, ranks, hit, True, hit if defines else None)

    definition = place("src/cli.py", 1, defines="parse_args")
    test = place("tests/test_cli.py", 2)
    call = place("src/main.py", 3)
    ranked = rank([definition, test, call], query, _only())
    assert [p for p, _ in paths(ranked)] == ["src/main.py", "tests/test_cli.py", "src/cli.py"]
    assert ("exact", "after real code") in ranked[1].steps
    assert ("exact", "after the usages (it defines the name)") in ranked[2].steps


def test_a_topic_that_says_where_to_look_puts_that_file_or_folder_first() -> None:
    cands = [
        fused("shop/cart.py", 1, 0.06),
        fused("shop/http/client.py", 20, 0.03),
        fused("lib/client.py", 5, 0.02),
    ]
    ranked = rank(cands, analyse("retry handling in http/client.py"), _only())
    assert paths(ranked)[0] == ("shop/http/client.py", 20)  # its path ends with the one named
    assert ("within", "first (where the query says to look)") in ranked[0].steps
    ranked = rank(cands, analyse("how are retries done inside shop/http/"), _only())
    assert paths(ranked)[0] == ("shop/http/client.py", 20)
    ranked = rank(cands, analyse("retry handling in client.py"), _only())
    assert [p for p, _ in paths(ranked)[:2]] == ["shop/http/client.py", "lib/client.py"]  # both, in order
    dotted = [fused(".github/workflows/ci.yml", 1, 0.01), *cands]
    ranked = rank(dotted, analyse("release steps inside .github/"), _only())
    assert paths(ranked)[0] == (".github/workflows/ci.yml", 1)  # a folder whose name opens with a dot
    ranked = rank(cands, analyse("retry handling in ./shop/http/client.py"), _only())
    assert paths(ranked)[0] == ("shop/http/client.py", 20)
    assert analyse("retry handling (in `http/client.py`)").within == ("http/client.py",)  # as written in chat
    off = rank(cands, analyse("retry handling in client.py"), _only(where_to_look=False))
    assert paths(off)[0] == ("shop/cart.py", 1)  # switched off: the score decides
    # a short request is; a function's documentation that mentions a file is not where to look
    short = analyse("split cells in segment.py")
    assert (short.form, short.within, short.identifiers) == ("function", ("segment.py",), ())  # no ``py``
    assert analyse("Read the settings in setup.py and return them.").within == ()
    assert paths(rank(cands, analyse("retry handling for client code"), _only()))[0] == ("shop/cart.py", 1)


def _member(path: str, line: int, score: float, name: str) -> Fused:
    span = Span(path, line, line + 9)
    field = Hit(span, 1.0, name, "field")
    ranks = {"text": None, "symbol": 1, "vector": None}
    return Fused(span, score, ranks, field, True, definition=field)


def test_a_members_declaration_leads_an_identifier_query_unless_a_file_is_named_after_it() -> None:
    usage = fused("src/send.py", 1, 0.05)
    declared = _member("src/client.py", 4, 0.02, "Client.max_redirects")
    ranked = rank([usage, declared], analyse("max_redirects"), _only())
    assert paths(ranked)[0] == ("src/client.py", 4)  # the declaration, though used more elsewhere
    assert ("exact", "first") in ranked[0].steps
    # cobra's `Args`: the field Command.Args and args.go, where the argument checks live
    module = fused("cli/args.go", 1, 0.03)
    field = _member("cli/command.go", 50, 0.02, "Command.Args")
    ranked = rank([field, module], analyse("Args"), _only())
    assert paths(ranked)[0] == ("cli/args.go", 1)
    assert not any(step[0] == "exact" for r in ranked for step in r.steps)
    # mux's `routes`: the field Router.routes, and route.go, whose stem is the name's by the stemmer
    # only (a plural field is not the module of its singular): the field leads
    module = fused("route.go", 1, 0.03)
    field = _member("mux.go", 57, 0.02, "Router.routes")
    ranked = rank([module, field], analyse("routes"), _only())
    assert paths(ranked)[0] == ("mux.go", 57) and ("exact", "first") in ranked[0].steps
    # cobra's `commands`: the field of command.go's `Command`, declared in the file named after it,
    # before that file's other chunks
    method = fused("cli/command.go", 1400, 0.04)
    own = _member("cli/command.go", 190, 0.02, "Command.commands")
    ranked = rank([method, own], analyse("commands"), _only())
    assert paths(ranked)[0] == ("cli/command.go", 190)
    assert ("exact", "first, declared in the file named after it") in ranked[0].steps
    # …where it goes as a definition elsewhere would: flask's `Request.blueprint` (a property, the
    # symbol index's first) before `BlueprintSetupState.blueprint`, an attribute set in blueprints.py
    attribute = _member("sansio/blueprints.py", 41, 0.05, "BlueprintSetupState.blueprint")
    attribute = attribute._replace(ranks={"text": None, "symbol": 4, "vector": None})
    prop = Hit(Span("wrappers.py", 161, 170), 1.0, "Request.blueprint", "method")
    prop_fused = Fused(
        prop.span, 0.04, {"text": None, "symbol": 1, "vector": None}, prop, True, definition=prop
    )
    ranked = rank([attribute, prop_fused], analyse("blueprint"), _only())
    assert paths(ranked) == [("wrappers.py", 161), ("sansio/blueprints.py", 41)]
    assert ("exact", "first, declared in the file named after it") in ranked[1].steps


PARAM_TYPES = '''class ParamType:
    """The base of every parameter type."""

    name = "text"

    def __call__(self, value, param=None, ctx=None):
        if value is not None:
            return self.convert(value, param, ctx)

    def get_metavar(self, param, ctx):
        return None

    def split_envvar_value(self, rv):
        return (rv or "").split(self.envvar_list_splitter)


def convert_type(ty, default=None):
    if ty is None and default is not None:
        ty = type(default)
    return ty
'''


def test_a_search_reads_the_functions_a_chunk_holds_from_its_snapshot_and_the_local_delta(
    indexed_engine: Callable[..., Any],
) -> None:
    """Through a search: the chunk of ParamType's short methods is labelled with its first; the
    sentence spells the second's name. An edit not indexed yet answers from the reader's delta."""
    from search import Query, Scope

    engine = indexed_engine({"types.py": PARAM_TYPES})
    spans = engine.index.chunk_spans(["types.py"])["types.py"]
    holding = [s for s in spans if s.start_line <= 11 <= s.end_line]
    assert holding and all(s.symbol != "ParamType.get_metavar" for s in holding)  # not its label

    def name_words(engine: Any, text: str) -> list[tuple[int, int]]:
        query = Query(text, mode="hybrid", limit=10, explain=True)
        results = engine.search(query, Scope()).results
        return [
            (r.start_line, r.end_line)
            for r in results
            if r.explain and any(step["rule"] == "name words" for step in r.explain["rules"])
        ]

    found = name_words(engine, "Returns the metavar default for this param.")
    assert found and all(start <= 11 <= end for start, end in found)
    # a method added since the build, in the same chunk of the reader's copy (the delta's table)
    edited = PARAM_TYPES.replace(
        "    def get_metavar(", "    def get_choices(self):\n        return []\n\n    def get_metavar("
    )
    (engine.settings.root / "types.py").write_text(edited)
    from search.engine.engine import Engine

    delta = Engine(engine.settings, local_delta=True)
    try:
        assert name_words(delta, "Returns the choices of this param.")
        assert not name_words(engine, "Returns the choices of this param.")  # the snapshot's copy
    finally:
        delta.close()


def test_adjacent_words_run_together_spell_a_part_of_a_longer_name() -> None:
    """textwrap's "Fill `text` in-place without reallocating the input string." documents
    ``fill_inplace``: code writes "in-place" as one word. Both parts are spelled, the full gain, 0.2 ×
    the top score 0.050 = +0.0100, from 0.046 to 0.056; ``fill``, a part of the longer name spelled,
    gains nothing. Read as "in" and "place" only, ``fill`` gained half (0.055) and stayed first."""
    query = analyse("Fill `text` in-place without reallocating the input string.")
    assert "inplace" in query.spelled_joined and "inplace" not in query.spelled
    # two stop words are no compound: "… stays the same object in it" spells no ``__init__``
    assert "init" not in analyse("A key that is also a value stays the same object in it.").spelled_joined
    cands = [
        fused("src/lib.rs", 603, 0.050, symbol="fill", kind="function"),
        fused("src/lib.rs", 1260, 0.046, symbol="fill_inplace", kind="function"),
    ]
    ranked = rank(cands, query, _only(name_words=0.2))
    assert paths(ranked) == [("src/lib.rs", 1260), ("src/lib.rs", 603)]
    assert [r.score for r in ranked] == pytest.approx([0.056, 0.050])
    assert ranked[0].steps == [("name words", "+0.0100")] and ranked[1].steps == []
    # "Set up …" spells ``setup_logging``, two words run together. A one-part name two adjacent words
    # run together is two parts spelled (the full gain), as inflect's ``joinstem`` for "Join stem of
    # each word …", not one word (half), however short a word: rack's "… used to warm-up the
    # application." spells ``warmup``; not with a word of one letter: idna's "… that a label is …"
    # does not spell ``alabel``
    cases = [
        ("Set up logging for the command line tool.", "setup_logging", True),
        ("Join stem of each word in words into a string for regex.", "joinstem", True),
        ("Takes a lambda or block that is used to warm-up the application.", "Rack.Builder.warmup", True),
        ("Require that a label is in Unicode Normalization Form C.", "alabel", False),
        # and their short forms run together: "environment variable" is ``envvar``
        ("Read an environment variable and return its value.", "read_envvar", True),
        ("Parse the configuration file and yield pairs.", "parse_cfgfile", True),
    ]
    for sentence, name, spelled in cases:
        one = [fused("src/a.py", 1, 0.050, symbol=name, kind="function")]
        steps = rank(one, analyse(sentence), _only(name_words=0.2))[0].steps
        assert steps == ([("name words", "+0.0100")] if spelled else []), sentence


def test_a_rust_test_beside_its_code_is_a_test() -> None:
    """A Rust file's ``mod tests`` holds tests whatever the file's path says: textwrap's
    ``tests.fill_inplace_empty`` in ``src/lib.rs`` is demoted as a test (×0.3: 0.050 → 0.015) below
    ``fill_inplace`` (0.030), unless the query asks for tests. A Python function of a module named
    ``tests`` is not Rust's test module."""

    def rust(line: int, score: float, symbol: str, language: str = "rust") -> Fused:
        span = Span("src/lib.rs", line, line + 9)
        hit = Hit(span, 1.0, symbol, "function", language)
        return Fused(span, score, {"text": None, "symbol": None, "vector": None}, hit)

    cands = [rust(1762, 0.050, "tests.fill_inplace_empty"), rust(1260, 0.030, "fill_inplace")]
    ranked = rank(cands, analyse("Fill the text in place without a copy."), _only())
    assert paths(ranked) == [("src/lib.rs", 1260), ("src/lib.rs", 1762)]
    assert ranked[1].score == pytest.approx(0.015) and ranked[1].steps == [("role:test", "×0.3")]
    asked = rank(cands, analyse("tests for filling text in place"), _only())
    assert paths(asked)[0] == ("src/lib.rs", 1762) and asked[0].score == pytest.approx(0.050)
    python = [rust(1762, 0.050, "tests.fill_inplace_empty", "python"), rust(1260, 0.030, "fill_inplace")]
    in_python = rank(python, analyse("Fill the text in place without a copy."), _only())
    assert paths(in_python)[0] == ("src/lib.rs", 1762) and in_python[0].steps == []

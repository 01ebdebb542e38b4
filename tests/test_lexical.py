"""BM25 over indexed chunks: code-aware tokens, hand-computed scores, scope masks, and the text
retriever's merge of that ranking with what ripgrep sees in changed files."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer import Index, short_forms
from indexer.lexical import COLUMNS, K1, B, LexicalIndex, code_tokens, phrase_tokens
from search import Engine, Query, Scope
from search.engine.query import analyse


def table(rows: list[tuple[str, int, int, str]]) -> pa.Table:
    return pa.table(
        {
            "path": [r[0] for r in rows],
            "start_line": [r[1] for r in rows],
            "end_line": [r[2] for r in rows],
            "symbol": [None] * len(rows),
            "kind": [None] * len(rows),
            "language": ["python" if r[0].endswith(".py") else "markdown" for r in rows],
            "content_hash": [f"{r[0]}:{r[1]}:{r[3]}" for r in rows],
            "text": [r[3] for r in rows],
        }
    )


def test_tokens_split_identifiers_drop_stop_words_and_stem() -> None:
    assert code_tokens("retry_failed_uploads") == ["retry_failed_upload", "retri", "fail", "upload"]
    assert code_tokens("UploadSession.sendAll") == [
        "uploadsess",
        "upload",
        "session",
        "sendal",
        "send",
    ]  # "all" is a stop word: one list for chunks and queries
    assert code_tokens("HTTPServer") == ["httpserver", "http", "server"]
    assert code_tokens("the (a) x, is") == []  # stop words and one-letter words
    assert code_tokens("Retries the failed uploads") == ["retri", "fail", "upload"]
    # Words of any script are words: not the ASCII letters between their accents.
    assert code_tokens("naïve café, Před hodinou") == ["naïv", "café", "před", "hodinou"]
    assert code_tokens("GrößeÄndern(“x1”) — 重试上传") == ["größeändern", "größe", "ändern", "x1", "重试上传"]


def _index_tokens_equal_code_tokens(texts: list[str]) -> None:
    lex = LexicalIndex(table([(f"f{i}.py", 1, 2, text) for i, text in enumerate(texts)]))
    for doc, text in enumerate(texts):
        expected: dict[str, int] = {}
        for t in code_tokens(text):
            expected[t] = expected.get(t, 0) + 1
        got = {}
        every = {t for other in texts for t in code_tokens(other)}
        for token, tid in ((t, lex._vocab[t]) for t in every):
            lo, hi = lex._offsets[tid], lex._offsets[tid + 1]
            for d, tf in zip(lex._docs[lo:hi], lex._tf[lo:hi], strict=True):
                if d == doc:
                    got[token] = int(tf)
        assert got == expected
        assert lex._doc_len[doc] == len(code_tokens(text))
    assert len(lex._vocab) == len({t for text in texts for t in code_tokens(text)})


def test_index_tokens_equal_the_tokenizer_on_each_chunk() -> None:
    _index_tokens_equal_code_tokens(
        [
            "def retry_upload(session):\n    return session.sendAll()",
            "# notes\nUpload retries: 3",
            "",
            "msg = 'Před hodinou'  # naïve café\u00a0au lait — GrößeÄndern(“x”)\n重试上传失败",
        ]
    )


_SOME_TEXT = st.lists(
    st.sampled_from([*"aZ_9 \t\n.(“—\u00a0\u0301éÄßř重试", "Size", "HTTP", "x2", "of"]), max_size=30
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_SOME_TEXT, min_size=1, max_size=4))
def test_index_tokens_equal_the_tokenizer_for_text_of_any_script(texts: list[str]) -> None:
    """The build splits pieces on ASCII bytes first (Arrow, in C) and a piece holding other characters
    again on word characters: the same tokens as :func:`code_tokens`, which a query goes through."""
    _index_tokens_equal_code_tokens(texts)


def test_bm25_scores_by_hand() -> None:
    rows = [
        ("a.py", 1, 3, "upload upload file"),  # 3 tokens (file is kept: not a stop word here)
        ("b.py", 1, 1, "upload"),  # 1 token
        ("c.py", 1, 2, "download file"),  # 2 tokens
    ]
    lex = LexicalIndex(table(rows))
    hits = lex.search("uploads", 10)
    avg = (3 + 1 + 2) / 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))

    def part(tf: int, dl: int) -> float:
        return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avg))

    # the short chunk wins with one occurrence against two in a longer one: 0.6065 vs 0.5785
    assert [h.path for h in hits] == ["b.py", "a.py"]
    assert hits[0].score == pytest.approx(part(1, 1)) and part(1, 1) == pytest.approx(0.6065, abs=1e-4)
    assert hits[1].score == pytest.approx(part(2, 3)) and part(2, 3) == pytest.approx(0.5785, abs=1e-4)
    both = lex.search("upload a file", 10)
    idf_file = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert both[0].path == "a.py" and both[0].coverage == pytest.approx(1.0)
    assert {h.path: h.coverage for h in both}["b.py"] == pytest.approx(idf / (idf + idf_file))
    unknown = math.log(1 + 3.5 / 0.5)  # a word no chunk holds weighs as the rarest
    assert lex.search("upload zebra", 10)[0].coverage == pytest.approx(idf / (idf + unknown))
    assert lex.search("nothing here matches", 10) == []


def test_a_word_and_the_short_forms_code_writes_for_it_are_one_term() -> None:
    assert short_forms(code_tokens("Read the configuration directory")) == (
        ("configur", ("cfg", "conf", "config")),
        ("directori", ("dir",)),
    )
    # iterate stems to iter, its own short form; a query that writes init asks for init
    assert short_forms(code_tokens("iterate over the init args")) == ()
    # werkzeug's ``tell`` beside ``get_pos``, arrayvec's ``as_ptr``, highline's ``terminal_cols``
    assert short_forms(code_tokens("position pointer columns")) == (
        ("posit", ("pos",)),
        ("pointer", ("ptr",)),
        ("column", ("col",)),  # "columns" and "cols" stem to these
    )
    # no short form that is a type or a keyword everywhere: the word would weigh as little as it does
    assert short_forms(code_tokens("an integer, a boolean, a character or a dictionary")) == ()
    # …nor one that only names write (``indexer.NAME_FORMS``): "mutable" stays a term apart from ``mut``,
    # and spells it in a name only
    assert short_forms(code_tokens("a mutable representation of the dictionary")) == ()
    spelled = analyse("Returns a mutable reference to the string representation.").spelled
    assert {"mut", "repr"} <= spelled
    assert {"del", "incr", "inc"} <= analyse("Delete the counter, then increment the total.").spelled
    # operators' and builtins' names: pydash's ``concat``, humanize's ``_abs_timedelta``, Rust's ``mul``
    worded = analyse("Concatenates the absolute values, then multiplies and compares them.")
    assert {"concat", "abs", "mul", "cmp"} <= worded.spelled
    assert short_forms(code_tokens("concatenates the absolute total")) == ()  # names only, not BM25
    assert "int" not in analyse("Reads an unsigned 16 bit integer from the reader.").spelled  # widths say it
    # a function's documentation reads so; a topic's words name a concept, not the code's variables
    assert analyse("Load the configuration.").short_forms == (("configur", ("cfg", "conf", "config")),)
    assert analyse("how is the configuration loaded").short_forms == ()
    rows = [
        ("a.py", 1, 2, "load config"),  # 2 tokens
        ("b.py", 1, 3, "configuration config path"),  # 3 tokens: the word and a short form, one term twice
        ("c.py", 1, 1, "path"),  # 1 token
    ]
    lex = LexicalIndex(table(rows))
    tokens = tuple(code_tokens("load the configuration"))
    assert [h.path for h in lex.search(tokens, 10)] == ["a.py", "b.py"]  # load; configuration
    hits = {h.path: h for h in lex.search(tokens, 10, short=dict(short_forms(tokens)))}
    avg = (2 + 3 + 1) / 3
    idf_load = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    idf_conf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # held by a.py and b.py: the term's df is 2, not 1 + 2

    def part(idf: float, tf: int, dl: int) -> float:
        return idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avg))

    assert hits["a.py"].score == pytest.approx(part(idf_load, 1, 2) + part(idf_conf, 1, 2))
    assert hits["b.py"].score == pytest.approx(part(idf_conf, 2, 3))  # its two forms, counted together
    assert hits["a.py"].coverage == pytest.approx(1.0)
    assert hits["b.py"].coverage == pytest.approx(idf_conf / (idf_load + idf_conf))
    assert set(hits) == {"a.py", "b.py"}


def test_masks_and_limits() -> None:
    rows = [(f"src/m{i}.py", 1, 5, f"cache entry {'cache ' * i}") for i in range(6)] + [
        ("docs/cache.md", 1, 2, "cache cache cache")
    ]
    lex = LexicalIndex(table(rows))
    assert len(lex.search("cache", 3)) == 3
    only_docs = lex.search("cache", 10, allow=lex.file_mask(lambda p, lang: p.startswith("docs/")))
    assert [h.path for h in only_docs] == ["docs/cache.md"]
    python = lex.search("cache", 10, allow=lex.file_mask(lambda p, lang: lang == "python"))
    assert len(python) == 6 and all(h.path.endswith(".py") for h in python)
    assert LexicalIndex(table([])).search("cache", 10) == []


DOCS = {
    "src/queue.py": (
        "class WorkQueue:\n"
        "    def pending_count(self):\n"
        "        return len(self.items)\n"
        "\n"
        "    def push(self, item):\n"
        "        self.items.append(item)\n"
    ),
    "src/other.py": "def unrelated():\n    return 'queue of words, queue'\n",
    "src/billing/invoice_export.py": "def run(rows):\n    return [r for r in rows if r]\n",
}


@pytest.fixture
def engine(indexed_engine):
    return indexed_engine(DOCS)


def test_text_ranks_sentences_with_bm25_over_the_index(engine: Engine) -> None:
    res = engine.search(Query("count the pending items of a work queue", mode="text"))
    assert res.results[0].path == "src/queue.py"
    # The chunk's header (path and scope) is indexed too: words only its path holds still find it.
    by_path = engine.search(Query("export the invoices", mode="text"))
    assert by_path.results[0].path == "src/billing/invoice_export.py"
    scoped = engine.search(
        Query("count the pending items of a work queue", mode="text"), Scope("file", "src/other.py")
    )
    assert {r.path for r in scoped.results} == {"src/other.py"}


def test_a_changed_file_is_ranked_from_its_live_text_not_its_stale_chunks(engine: Engine) -> None:
    root = engine.settings.root
    (root / "src/other.py").write_text("def drain_pending_queue_items():\n    return 'drained'\n")
    res = engine.search(Query("drain the pending queue items", mode="text"))
    top = res.results[0]
    assert top.path == "src/other.py" and top.stale and "drain_pending_queue_items" in top.snippet
    (root / "src/queue.py").unlink()  # indexed chunks of a deleted file are not offered as fresh results
    gone = engine.search(Query("count the pending items of a work queue", mode="text"))
    assert all(r.stale for r in gone.results if r.path == "src/queue.py")


def test_a_short_form_counts_as_its_word_in_indexed_chunks_and_live_files_alike(indexed_engine) -> None:
    files = {
        "src/setup.py": "def load_cfg(path):\n    return read_settings(path)\n",
        "src/other.py": "def load_plugins(path):\n    return scan(path)\n",
    }
    engine = indexed_engine(files)
    query = Query("load the configuration", mode="text")
    indexed = engine.search(query).results
    assert [r.path for r in indexed][:2] == ["src/setup.py", "src/other.py"]  # cfg is the configuration
    explained = engine.search(Query("load the configuration", mode="text", explain=True)).notes
    assert (
        "the text retriever counts cfg, conf, config (configuration) as the words they stand for" in explained
    )
    assert not any("short" in n or "counts cfg" in n for n in engine.search(query).notes)  # --explain only
    root = engine.settings.root
    for path, text in files.items():  # the same text, now read live: ripgrep's BM25 finds it the same way
        (root / path).write_text(text + "\n")
    live = engine.search(query).results
    assert [r.path for r in live][:2] == ["src/setup.py", "src/other.py"] and all(r.stale for r in live)


def test_a_verbatim_sentence_late_in_a_big_file_is_found(make_repo, settings_for) -> None:
    # More lines than ripgrep reads per file for a term search hold the query's words first.
    body = "".join(f"def option_{i}(name):\n    return 'option', name, {i}\n" for i in range(300))
    body += 'def last():\n    raise TypeError("No options defined but a name was passed.")\n'
    root = make_repo({"src/big.py": body})
    settings = settings_for(root)
    Index(settings).build()
    engine = Engine(settings)
    try:
        top = engine.search(Query("No options defined but a name was passed.", mode="text")).results[0]
    finally:
        engine.close()
    assert top.start_line <= 602 <= top.end_line


def test_files_holding_every_token_of_a_phrase() -> None:
    rows = [
        ("a.py", 1, 5, "raise ValueError('checksum mismatch in upload')"),
        ("a.py", 6, 9, "checksum = 0"),
        ("b.py", 1, 5, "mismatch of the checksum"),  # both words, another order: still a candidate
        ("c.py", 1, 5, "checksum only"),
    ]
    lex = LexicalIndex(table(rows))
    assert lex.files_holding(phrase_tokens("checksum mismatch")) == ["a.py", "b.py"]
    assert lex.files_holding(
        phrase_tokens("checksum mismatch"), allow=lex.file_mask(lambda p, lang: p != "a.py")
    ) == ["b.py"]
    assert lex.files_holding(phrase_tokens("upload only")) == []
    assert lex.files_holding(phrase_tokens("hecksum mismatch")) is None  # a partial word: cannot narrow
    assert lex.files_holding(phrase_tokens("checksum mismatc")) is None
    assert (
        lex.files_holding(phrase_tokens("the checksum wobble mismatch")) == []
    )  # a whole word that no chunk holds
    assert lex.files_holding(phrase_tokens("is it")) is None  # no tokens at all


def test_a_sentence_written_since_indexing_is_found_verbatim(engine: Engine) -> None:
    root = engine.settings.root
    (root / "src/new_module.py").write_text(
        "def fail():\n    raise RuntimeError('spool directory is not writable')\n"
    )
    (root / "src/other.py").write_text("def unrelated():\n    return 'the spool directory is not writable'\n")
    res = engine.search(Query("spool directory is not writable", mode="text"))
    assert {r.path for r in res.results[:2]} == {"src/new_module.py", "src/other.py"}
    assert all(r.stale for r in res.results[:2])


def test_a_new_version_reuses_the_tokens_of_unchanged_chunks_and_scores_the_same() -> None:
    rows = [
        (f"m{i}.py", 1, 5, f"def handler_{i}(request):\n    return retry_upload(request, {i})")
        for i in range(20)
    ]
    first = LexicalIndex(table(rows))
    changed = [*rows[:5], ("m5.py", 1, 5, "def drain_queue():\n    return pending_items"), *rows[6:]]
    changed.append(("new.py", 1, 2, "class UploadQueue:\n    retries = 3"))
    reused = LexicalIndex(table(changed), first)
    fresh = LexicalIndex(table(changed))
    for query in [
        "retry the upload of a request",
        "drain pending queue items",
        "upload queue retries",
        "handler 7",
    ]:
        assert [(h.path, round(h.score, 4), round(h.coverage, 4)) for h in reused.search(query, 10)] == [
            (h.path, round(h.score, 4), round(h.coverage, 4)) for h in fresh.search(query, 10)
        ]
    assert (
        reused.files_holding(phrase_tokens("drain pending")) == ["m5.py"]
        and first.files_holding(phrase_tokens("drain pending")) is None
    )


def test_the_bm25_index_is_saved_for_the_next_process_and_checked_on_load(make_repo, settings_for) -> None:
    settings = settings_for(make_repo(DOCS))
    Index(settings).build()
    built = Index(settings).lexical()
    saved = list((Path(settings.index_dir) / "lexical").glob("chunks-v*.bm25"))
    assert len(saved) == 1
    columns = [c for c in COLUMNS if c != "text"]
    table_now = Index(settings).snapshot().read("chunks", columns)
    loaded = LexicalIndex.load(saved[0], table_now)
    assert loaded is not None
    query = "count the pending items of a work queue"
    assert [(h.path, h.score) for h in loaded.search(query, 5)] == [
        (h.path, h.score) for h in built.search(query, 5)
    ]
    assert loaded.files_holding(phrase_tokens("pending count")) == built.files_holding(
        phrase_tokens("pending count")
    )
    other = table(rows=[("x.py", 1, 2, "something else")]).drop_columns(["text"])
    assert LexicalIndex.load(saved[0], other) is None  # saved for other chunks: rebuilt, never trusted
    saved[0].write_bytes(b"not a zip file")
    assert LexicalIndex.load(saved[0], table_now) is None
    assert Index(settings).lexical().search(query, 1)[0].path == "src/queue.py"  # rebuilt and saved again
    assert LexicalIndex.load(saved[0], table_now) is not None


def test_a_new_process_reuses_the_saved_tokens_of_the_previous_version(
    make_repo, settings_for, count_tokenising
) -> None:
    files = {
        f"src/m{i}.py": f"def handler_{i}(request):\n    return retry_upload(request, {i})\n"
        for i in range(30)
    }
    settings = settings_for(make_repo(files))
    Index(settings).build()  # saves the BM25 index of this version
    (settings.root / "src/m3.py").write_text("def drain_pending_queue():\n    return 'drained'\n")
    seen = count_tokenising()
    Index(settings).build(paths=["src/m3.py"])  # a fresh Index, as the daemon makes one per batch
    assert seen and max(seen) < 15  # only the changed chunk's pieces, not all 30 files'
    saved = list((Path(settings.index_dir) / "lexical").glob("chunks-v*.bm25"))
    assert len(saved) == 1  # the older version's file is gone
    hits = Index(settings).lexical().search("drain the pending queue", 3)
    assert hits[0].path == "src/m3.py"


@pytest.mark.parametrize(
    "text",
    [
        "checksum mismatch",
        "  retry_policy.backoff(attempt)   in  HTTPClient ",
        "the is it",
        "",
        "naïve café x2",
        "Před\u00a0hodinou “GrößeÄndern” 重试",
    ],
)
def test_a_phrase_is_tokenised_once_per_word_into_the_same_tokens(text: str) -> None:
    per_word = phrase_tokens(text)
    assert len(per_word) == len(text.split())
    assert [t for word in per_word for t in word] == code_tokens(text)


def test_counted_pairs_sort_by_text_then_token_id_packed_or_not() -> None:
    """A window's (text, token) keys and counts are sorted as one packed array when both fit 63 bits,
    else by an indirect sort: the same order and counts either way (a count over 65,535 included)."""
    import numpy as np

    from indexer.lexical import _by_doc_then_id

    rng = np.random.default_rng(7)
    for top in (1 << 20, 1 << 50):  # packed with a 17-bit count; too wide to pack
        keys = rng.choice(top, size=500, replace=False).astype(np.int64)
        tf = rng.integers(1, 1 << 17, size=500).astype(np.int64)
        got_keys, got_tf = _by_doc_then_id(keys, tf)
        order = np.argsort(keys)
        assert got_keys.tolist() == keys[order].tolist()
        assert got_tf.tolist() == tf[order].tolist()


def test_the_vocabulary_numbers_new_tokens_by_hash_and_keeps_known_ids() -> None:
    import numpy as np

    from indexer.lexical import _Vocab, token_hashes

    vocab = _Vocab()
    first = token_hashes(["retry", "upload", "session"])
    ids = vocab.add(first)
    by_hash = np.argsort(first)  # new tokens are numbered in the order of their hashes
    assert ids[by_hash].tolist() == [0, 1, 2]
    again = token_hashes(["session", "checksum", "retry", "checksum"])
    got = vocab.add(again)
    assert got[0] == ids[2] and got[2] == ids[0]  # known: the ids they had
    assert got[1] == got[3] == 3  # new, asked twice in one window: one id
    assert vocab["checksum"] == 3 and vocab["upload"] == ids[1] and len(vocab) == 4
    assert vocab.keys.tolist() == sorted(vocab.keys.tolist())

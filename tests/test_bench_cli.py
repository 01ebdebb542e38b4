"""``python -m benchmarks`` end to end on a tiny repository, with the hashing embedder.

The quality run uses a fixed, hand-written query set; the ripgrep baseline's numbers below are
worked out by hand from the fixture (see ``test_quality_*``), so a bug anywhere between the query set,
the blanked copy, the baseline and the metrics fails here.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from benchmarks import metrics
from benchmarks.__main__ import main

CART_PY = '''def add_item(cart, item):
    """Put an item into the shopping cart and update the total."""
    cart.items.append(item)
    cart.total += item.price
    return cart


def checkout(cart):
    """Charge the customer for every item in the cart."""
    if not cart.items:
        raise ValueError("cannot checkout an empty cart")
    return charge(cart.total)
'''

PAY_GO = """package shop

// Charge sends the amount to the payment gateway and returns a receipt.
func Charge(amount int) string {
\treturn "payment gateway unreachable"
}
"""

FORMAT_JS = """/**
 * Format a price in cents as a currency string.
 */
export function formatPrice(cents) {
  return "$" + (cents / 100).toFixed(2);
}
"""

FILES = {"shop/cart.py": CART_PY, "shop/pay.go": PAY_GO, "web/format.js": FORMAT_JS}

# (qid, family, text, path, start, end)
QUERIES = [
    ("docstring-001", "docstring", "Put an item into the shopping cart", "shop/cart.py", 1, 5),
    ("docstring-002", "docstring", "Charge the customer for every item in the cart", "shop/cart.py", 8, 12),
    ("symbol-001", "symbol", "checkout", "shop/cart.py", 8, 12),
    ("symbol-002", "symbol", "formatPrice", "web/format.js", 4, 6),
    ("literal-001", "literal", "payment gateway unreachable", "shop/pay.go", 4, 6),
]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLAIT_MODEL", "hashing")
    monkeypatch.delenv("PLAIT_INDEX_DIR", raising=False)
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def query_file(repo: Path, tmp_path: Path) -> Path:
    data = {
        "version": 1,
        "seed": 0,
        "params": {},
        "files": {p: hashlib.sha256((repo / p).read_bytes()).hexdigest() for p in FILES},
        "queries": [
            {"qid": q, "family": f, "text": t, "path": p, "start_line": s, "end_line": e, "language": "x"}
            for q, f, t, p, s, e in QUERIES
        ],
    }
    path = tmp_path / "queries.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_quality_scores_the_ripgrep_baseline_as_computed_by_hand(
    repo: Path, query_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "quality.png"
    data = run_json(capsys, "quality", "--root", str(repo), "--queries", str(query_file), "--plot", str(png))
    assert list(data["systems"]) == [
        "plait-text", "plait-symbol", "plait-semantic", "plait-hybrid", "plait-hybrid-rrf", "ripgrep", "bm25",
    ]  # fmt: skip
    # ripgrep ORs the query's words and ranks files by match count, reporting each file's best line.
    # On the blanked copy (docstrings gone):
    #  docstring-001 put/item/shopping/cart: only cart.py matches; best line 1 (2 distinct words,
    #    3 matches, ties with line 3 and the first wins) lies in 1-5 -> rank 1.
    #  docstring-002 charge/customer/every/item/cart: cart.py (15 matches) then pay.go (1: "Charge");
    #    cart.py's best line is again line 1, outside 8-12 -> no span hit; the file is rank 1.
    #  symbol-001 checkout: cart.py, best line 8 -> rank 1.  symbol-002 formatprice: format.js line 4 -> 1.
    #  literal-001 payment/gateway/unreachable: pay.go line 5 (the comment is blanked) -> rank 1.
    #  phrase-001, the same words unquoted (derived from literal-001): the same -> rank 1.
    rg = {q["qid"]: (q["span_rank"], q["file_rank"]) for q in data["per_query"]["ripgrep"]}
    assert rg == {
        "docstring-001": (1, 1),
        "docstring-002": (None, 1),
        "symbol-001": (1, 1),
        "symbol-002": (1, 1),
        "literal-001": (1, 1),
        "phrase-001": (1, 1),
    }
    scores = data["systems"]["ripgrep"]["scores"]
    assert scores["docstring"] == {
        "n": 2,
        "mrr@10": 0.5,
        "recall@1": 0.5,
        "recall@10": 0.5,
        "file_recall@10": 1.0,
    }
    assert scores["symbol"] == {
        "n": 2,
        "mrr@10": 1.0,
        "recall@1": 1.0,
        "recall@10": 1.0,
        "file_recall@10": 1.0,
    }
    assert scores["literal"] == {
        "n": 1,
        "mrr@10": 1.0,
        "recall@1": 1.0,
        "recall@10": 1.0,
        "file_recall@10": 1.0,
    }
    assert scores["overall"] == {
        "n": 6,  # the five queries and phrase-001
        "mrr@10": 0.8333,
        "recall@1": 0.8333,
        "recall@10": 0.8333,
        "file_recall@10": 1.0,
    }
    # plait's symbol mode finds both definitions by exact name at rank 1
    assert data["systems"]["plait-symbol"]["scores"]["symbol"]["mrr@10"] == 1.0
    # every system's table agrees with its own per-query ranks
    for name, rows in data["per_query"].items():
        outcomes = [metrics.Outcome(r["qid"], r["family"], r["span_rank"], r["file_rank"]) for r in rows]
        table = metrics.by_family(outcomes, data["families"])
        assert data["systems"][name]["scores"] == {f: s.as_dict() for f, s in table.items()}, name
    assert data["findings"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_quality_prints_a_table_and_builds_its_own_query_set(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "saved.json"
    args = [
        "quality",
        "--root",
        str(repo),
        "--modes",
        "text,symbol",
        "--baselines",
        "ripgrep",
        "--min-words",
        "3",
    ]
    assert main([*args, "--save-queries", str(saved)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "benchmarks: scanning" in captured.err and "benchmarks: quality plait-text" in captured.err
    assert "benchmarks:" not in out
    assert "MRR@10" in out and "plait-text" in out and "ripgrep" in out and "Findings" in out
    queries = json.loads(saved.read_text())["queries"]
    assert {q["family"] for q in queries} == {"docstring", "symbol", "literal", "phrase"}
    docs = {q["text"] for q in queries if q["family"] == "docstring"}
    assert "Put an item into the shopping cart and update the total." in docs
    assert "Format a price in cents as a currency string." in docs


def test_quality_replay_scores_a_kept_run_s_queries_as_the_run_did(
    repo: Path, query_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    quality = run_json(
        capsys, "quality", "--root", str(repo), "--queries", str(query_file), "--workdir", str(work),
        "--keep", "--modes", "hybrid", "--baselines", "none", "--no-rrf",
    )  # fmt: skip
    hybrid = quality["systems"]["plait-hybrid"]["scores"]
    recording = tmp_path / "rankings.pickle"
    args = [
        "quality-replay",
        "--workdir",
        str(work),
        "--queries",
        str(query_file),
        "--recordings",
        str(recording),
    ]
    replayed = run_json(capsys, *args)
    assert replayed["queries"] == len(quality["per_query"]["plait-hybrid"]) and recording.is_file()
    assert replayed["families"] == {f: s for f, s in hybrid.items() if f != metrics.OVERALL}
    assert replayed["ranks"] == {r["qid"]: r["span_rank"] for r in quality["per_query"]["plait-hybrid"]}
    stamp = recording.stat().st_mtime_ns
    again = run_json(capsys, *args, "--family", "docstring", "--family", "symbol")
    assert set(again["families"]) == {"docstring", "symbol"}  # other queries: recorded again
    assert again["ranks"] == {
        q: r for q, r in replayed["ranks"].items() if q.startswith(("docstring", "symbol"))
    }
    assert recording.stat().st_mtime_ns != stamp
    # --again: retrievers asked again over a recording, the others as recorded, the file untouched
    whole = run_json(capsys, *args)
    saved = pickle.loads(recording.read_bytes())
    saved["rankings"] = [{k: v for k, v in r.items() if k == "symbol"} for r in saved["rankings"]]
    recording.write_bytes(pickle.dumps(saved))
    kept = recording.read_bytes()
    assert run_json(capsys, *args)["ranks"] != whole["ranks"]  # the sentences' places are gone
    assert run_json(capsys, *args, "--again", "text", "--again", "vector")["ranks"] == whole["ranks"]
    assert recording.read_bytes() == kept
    assert (
        main([*args, "--set", "bogus=1"]) == 2
        and "[ranking] has no setting 'bogus'" in capsys.readouterr().err
    )
    assert main([*args, "--set", "name_words"]) == 2 and "KEY=VALUE" in capsys.readouterr().err
    missing = ["quality-replay", "--workdir", str(tmp_path / "none"), "--queries", str(query_file)]
    assert main(missing) == 2 and "holds no index" in capsys.readouterr().err


def test_index_reports_full_no_change_and_one_file_edit_builds(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "index", "--root", str(repo))
    full, noop, edit = data["full"], data["no_change"], data["one_file_edit"]
    assert full["files"] == 3 and full["changed"] == 3
    assert full["embedded"] == full["chunks_total"] > 0
    assert full["files_per_s"] > 0 and full["chunks_per_s"] > 0 and full["peak_rss_mb"] > 0
    assert data["model_raw"]["chunks"] == full["chunks_total"] and data["model_raw"]["chunks_per_s"] > 0
    assert noop["changed"] == 0 and noop["embedded"] == 0
    assert edit["file"] == "shop/cart.py"  # the largest file
    assert edit["changed"] == 1
    assert 1 <= edit["embedded"] <= edit["chunks_written"]
    fresh = data["freshness"]  # the reindex daemon saw three saves of the edited file
    assert fresh["measured"] is True
    assert len(fresh["index_ms"]) == len(fresh["batch_ms"]) == 3
    assert all(0 < i <= b for i, b in zip(fresh["index_ms"], fresh["batch_ms"], strict=True))


@pytest.mark.slow
def test_latency_times_every_mode_through_library_mcp_and_cli(
    repo: Path, query_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "latency.png"
    data = run_json(
        capsys,
        "latency",
        "--root",
        str(repo),
        "--queries",
        str(query_file),
        "--repeats",
        "1",
        "--passes",
        "2",
        "--plot",
        str(png),
    )
    rows = {(r["system"], r["path"]): r for r in data["rows"]}
    asked = 2 * (len(QUERIES) + 1)  # two passes over the five queries and the phrase derived from the literal
    for mode in ("text", "symbol", "semantic", "hybrid"):
        assert rows[(f"plait-{mode}", "library")]["n"] == asked
        assert rows[(f"plait-{mode}", "mcp-stdio")]["n"] == asked
        assert rows[(f"plait-{mode}", "cli-cold")]["n"] == 1
        assert rows[(f"plait-{mode}", "cli-warm")]["n"] == 5  # answered by the running server
    assert rows[("ripgrep", "library")]["n"] == asked
    assert rows[("plait-serve", "mcp-start")]["n"] == 1
    for name in ("plait --version", "plait --help", "plait search --mode text (no index)"):
        assert rows[(name, "cli-start")]["n"] == 5
    for r in data["rows"]:
        assert 0 < r["p50_ms"] <= r["p95_ms"] <= r["max_ms"]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_plot_draws_saved_reports(
    repo: Path, query_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "quality", "--root", str(repo), "--queries", str(query_file), "--modes", "symbol")
    saved = tmp_path / "q.json"
    saved.write_text(json.dumps(data))
    out = tmp_path / "out.png"
    assert main(["plot", "--quality", str(saved), "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_input_errors_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["quality", "--root", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("benchmarks:") and "--root" in err and "\n" not in err
    bad = tmp_path / "q.json"
    bad.write_text("{}")
    assert main(["plot", "--quality", str(bad), "-o", str(tmp_path / "x.png")]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["quality", "--modes", "fuzzy"])
    assert exc.value.code == 2


def test_a_query_set_from_another_revision_is_refused(
    repo: Path, query_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "shop" / "pay.go").write_text(PAY_GO + "\n// changed\n")
    assert main(["quality", "--root", str(repo), "--queries", str(query_file)]) == 2
    assert "changed since the query set was built" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["embed", "freshness", "cold-index", "encoder-throughput"])
def test_delegated_sub_commands_reach_their_own_parsers(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_cold_index_times_plait_index_and_status_processes_alternated_with_another_tree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    here = Path(__file__).resolve().parent.parent  # this checkout stands in for the other tree too
    data = run_json(capsys, "cold-index", "--root", str(repo), "--rounds", "2", "--compare", str(here))
    for name in ("this", "compare"):
        runs = data[name]["runs"]
        assert data[name]["all_fresh"] and len(runs) == 2
        assert all(r["total_s"] >= r["index_s"] > 0 and r["chunks"] > 0 and r["fresh"] for r in runs)
        assert (
            data[name]["median_total_s"]
            == sorted(r["total_s"] for r in runs)[0] / 2 + sorted(r["total_s"] for r in runs)[1] / 2
        )
    assert data["this_over_compare"] == round(
        data["this"]["median_total_s"] / data["compare"]["median_total_s"], 3
    )


def test_encoder_throughput_times_fresh_processes_of_two_trees_on_an_index_s_chunks(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from indexer import Index, load_settings
    from indexer.embedding import tier_config
    from models import ModelConfig, load_embedder

    index_dir = tmp_path / "index"
    Index(load_settings(repo, env=os.environ, overrides={"index_dir": str(index_dir)})).build()
    here = Path(__file__).resolve().parent.parent  # this checkout stands in for the other tree too
    data = run_json(
        capsys, "encoder-throughput", "--chunks-of", str(repo), "--index-dir", str(index_dir), "--tier",
        "fast", "--rounds", "2", "--repeats", "2", "--compare", str(here), "--cache-dir", str(tmp_path / "models"),
    )  # fmt: skip
    chunks = (
        Index(load_settings(repo, env=os.environ, overrides={"index_dir": str(index_dir)})).status().chunks
    )
    fast_tier = load_embedder(tier_config(ModelConfig(), "fast")).model_id
    assert "/static-" in fast_tier
    assert data["texts"] == chunks > 0
    for name in ("this", "compare"):
        runs = data[name]["runs"]
        assert len(runs) == 2 and all(len(r["passes"]) == 2 for r in runs)
        assert [r["chunks_per_s"] for r in runs] == [
            round(chunks / min(p[0] for p in r["passes"]), 2) for r in runs
        ]
        assert data[name]["model_id"] == fast_tier  # the static model as the fast tier reads texts
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["compare", "this"]
    assert data["this_over_compare"] == round(
        data["this"]["median_chunks_per_s"] / data["compare"]["median_chunks_per_s"], 3
    )


def test_encoder_throughput_on_cuda_times_the_gpu_where_one_is_found_else_says_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(["def retry_upload(session):\n    return session.send()"] * 40))
    data = run_json(
        capsys, "encoder-throughput", "--texts", str(texts), "--device", "cuda", "--rounds", "1", "--repeats", "1",
        "--cache-dir", str(tmp_path / "models"),
    )  # fmt: skip
    if torch.cuda.is_available():
        assert data["this"]["device"] == "cuda" and data["this"]["median_chunks_per_s"] > 0
    else:
        assert data == {"device": "cuda", "skipped": data["skipped"]} and "no CUDA device" in data["skipped"]
        assert not (tmp_path / "models").exists()  # nothing loaded, nothing exported
    cpu = ["--backend", "static", "--rounds", "1", "--repeats", "1", "--cache-dir", str(tmp_path / "cpu")]
    assert main(["encoder-throughput", "--texts", str(texts), *cpu]) == 0  # the CPU, as before
    assert "on cpu, batches of 32" in capsys.readouterr().out
    torch_cpu = ["--backend", "torch", "--batch-size", "8", *cpu[2:]]
    data = run_json(capsys, "encoder-throughput", "--texts", str(texts), *torch_cpu)
    assert data["batch_size"] == 8 and [r["batch_size"] for r in data["this"]["runs"]] == [8]
    for wrong in (
        ["--tier", "fast", "--device", "cuda"],
        ["--tier", "fast", "--batch-size", "8"],
        ["--batch-size", "0"],
    ):
        with pytest.raises(SystemExit):
            main(["encoder-throughput", "--texts", str(texts), *wrong])


def test_cold_index_over_a_suite_sums_one_cold_plait_index_per_repository(repo: Path, tmp_path: Path) -> None:
    from benchmarks import cold_index

    other = tmp_path / "other"
    other.mkdir()
    (other / "retry.py").write_text("def retry_upload(session):\n    return session.send()\n")
    kept = tmp_path / "kept"
    kept.mkdir()
    data = cold_index.run_suite([repo, other], rounds=1, tier=None, compare=None, keep=kept)
    (round_,) = data["this"]["rounds"]
    assert [r["root"] for r in round_["repos"]] == [repo.name, "other"]
    assert round_["all_fresh"] and data["this"]["all_fresh"]
    assert round_["index_s_sum"] == pytest.approx(sum(r["index_s"] for r in round_["repos"]), abs=0.01)
    assert data["this"]["median_index_s_sum"] == round_["index_s_sum"]
    assert [r["chunks"] > 0 for r in round_["repos"]] == [True, True]
    # each index stays where peer-replay --index-dirs reads it, and reads as the one just built
    assert sorted(p.name for p in kept.iterdir()) == sorted([repo.name, "other"])
    from indexer import Index, load_settings

    settings = load_settings(other, env=os.environ, overrides={"index_dir": str(kept / "other")})
    index = Index(settings)
    status = index.status()
    assert status.state == "fresh" and status.chunks == round_["repos"][1]["chunks"]


def test_tokens_reports_what_an_agent_reads_before_the_first_relevant_result(
    repo: Path, query_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = run_json(capsys, "tokens", "--root", str(repo), "--queries", str(query_file))
    per_query = data["per_query"]
    asked = {q["qid"] for q in json.loads(query_file.read_text())["queries"]}
    assert asked <= {q["qid"] for q in per_query}  # the loaded set may derive more (a phrase family)
    for q in per_query:
        assert 0 < q["tokens_to_first"] <= q["tokens_shown"]
        if q["rank"] is None:
            assert q["tokens_to_first"] == q["tokens_shown"]
    found = [q for q in per_query if q["rank"] is not None]
    assert found, "the fixture's queries must find their targets"
    overall = data["overall"]
    n = len(per_query)
    assert overall["n"] == n and overall["found@10"] == round(len(found) / n, 4)
    assert overall["tokens_to_first_found"] == round(sum(q["tokens_to_first"] for q in found) / len(found), 1)


def test_large_tree_build_measures_every_process_of_a_build_from_scratch(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The memory of a build is that of all its processes (parse workers, the child that saves the BM25
    # file), not of the one /usr/bin/time -v reports the largest of.
    target = tmp_path / "idx"
    assert main(["large-tree", "build", "--root", str(repo), "--index-dir", str(target), "--no-vectors"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["returncode"] == 0 and data["report"]["files"] == len(FILES)
    assert data["report"]["vectors_skipped"] and (target / "plait-index.json").exists()
    assert data["samples"] >= 1 and 0 < data["peak_tree_pss_mb"] <= data["peak_tree_rss_mb"]
    assert data["peak_process_rss_mb"] > 0
    with pytest.raises(SystemExit, match="not empty"):  # it measures a build from scratch only
        main(["large-tree", "build", "--root", str(repo), "--index-dir", str(target), "--no-vectors"])

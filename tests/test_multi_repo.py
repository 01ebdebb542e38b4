"""Several repositories in one server: one ranking, a subset per call, each result naming its repo.

The fusion across roots is a pure function (:func:`search.engine.federation.merge_roots`), tested with
hand-computed numbers; the server behaviour goes through the real ``mcp`` client in memory over two
fixture roots, a large one and a small one, each with its own LanceDB index.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from models.errors import ConfigError
from search.engine.federation import merge_roots, tier_of
from search.frontends.server.main import build
from search.frontends.server.served import repo_names
from tests.server_harness import connect, make_workspace, serve_args, server_env

# --- the fusion across roots, by hand ------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    name: str
    score: float


def test_tier_is_the_whole_number_part_of_the_score() -> None:
    assert [tier_of(s) for s in (0.04, 1.02, 2.5, -0.1, float("nan"))] == [0, 1, 2, 0, 0]


def test_each_roots_best_hit_meets_the_others_best_not_their_scores() -> None:
    big = [Item("b1", 0.09), Item("b2", 0.08), Item("b3", 0.07)]
    small = [Item("s1", 0.02), Item("s2", 0.01)]
    merged = merge_roots([big, small])
    assert [m.item.name for m in merged] == ["b1", "s1", "b2", "s2", "b3"]
    assert [m.rank for m in merged] == [1, 1, 2, 2, 3]
    assert merged[0].score == pytest.approx(1 / 61) and merged[2].score == pytest.approx(1 / 62)
    assert [m.root for m in merged] == [0, 1, 0, 1, 0]


def test_a_tier_outranks_any_rank_of_another_root() -> None:
    big = [Item("b1", 0.09), Item("b2", 0.08)]
    small = [Item("exact", 1.01), Item("s2", 0.05)]
    merged = merge_roots([big, small])
    assert [m.item.name for m in merged] == ["exact", "b1", "s2", "b2"]
    assert merged[0].score == pytest.approx(1 + 1 / 61)
    scores = [m.score for m in merged]
    assert scores == sorted(scores, reverse=True)  # monotonic down the list


def test_ties_between_first_hits_go_to_the_stronger_share_of_its_roots_top() -> None:
    # Both roots' rank-2 results tie on rank; a's is 0.9 of its top, b's 0.5: a's comes first.
    a = [Item("a1", 0.10), Item("a2", 0.09)]
    b = [Item("b1", 0.50), Item("b2", 0.25)]
    names = [m.item.name for m in merge_roots([a, b])]
    assert names[2:] == ["a2", "b2"]
    with pytest.raises(ValueError, match="k must be positive"):
        merge_roots([a], k=0)


def test_repo_names_are_the_directory_names_made_unique_by_their_parents() -> None:
    roots = [Path("/x/a/app"), Path("/x/b/app"), Path("/x/lib")]
    assert repo_names(roots) == {roots[0]: "a/app", roots[1]: "b/app", roots[2]: "x/lib"}
    assert repo_names([Path("/x/app"), Path("/y/lib")]) == {Path("/x/app"): "app", Path("/y/lib"): "lib"}


# --- through the MCP client --------------------------------------------------------------------------

BIG = {
    f"core/module_{i}.py": (
        f'"""Request handling, part {i}."""\n\n\n'
        f"def handle_request_{i}(request: dict[str, str]) -> str:\n"
        f'    """Handle an incoming request and return the rendered page {i}."""\n'
        f'    return request.get("page", "index") + "{i}"\n'
    )
    for i in range(24)
} | {
    f"ledger/rate_{i}.py": (
        f'"""Exchange rate table {i} for the ledger: yearly rates by currency."""\n\n\n'
        f"def rate_{i}(currency: str, years: int) -> float:\n"
        f'    """The rate of a currency over the years, from table {i}."""\n'
        f"    return {i} / 100 * years\n"
    )
    for i in range(8)
}
SMALL = {
    "ledger/interest.py": (
        '"""Compound interest for the ledger."""\n\n\n'
        "def compound_interest(principal: float, rate: float, years: int) -> float:\n"
        '    """Grow the principal at the yearly rate, compounded once a year."""\n'
        "    return principal * (1 + rate) ** years\n"
    ),
}


@pytest.fixture(scope="module")
def two_repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("repos")
    return make_workspace(base, BIG, name="platform"), make_workspace(base, SMALL, name="billing"), base


def _env(base: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("XDG_CACHE_HOME", str(base / "cache"))  # each root's index in plait's cache dir
    return {k: v for k, v in server_env(base / "unused").items() if k != "PLAIT_INDEX_DIR"}


def test_a_small_repositorys_best_hit_ranks_first_and_results_name_their_repo(
    two_repos: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small, base = two_repos
    state, server = build(serve_args([big, small]), env=_env(base, monkeypatch))
    with connect(server) as client:
        client.ok("reindex", {"wait": True})
        statuses = client.ok("index_status")["roots"]
        assert {(s["repo"], s["state"]) for s in statuses} == {("platform", "fresh"), ("billing", "fresh")}
        for query in ("compound interest on the principal", "compound_interest"):
            out = client.ok("search", {"query": query, "limit": 5})
            first = out["results"][0]
            assert (first["repo"], first["path"], first["root"]) == (
                "billing",
                "ledger/interest.py",
                str(small),
            )
            assert {r["repo"] for r in out["results"]} <= {"platform", "billing"}
            scores = [r["score"] for r in out["results"]]
            assert scores == sorted(scores, reverse=True)
        # Eight near-identical files of the big repository all outscore the small one's best on raw
        # score (sorting the union by score would push it off a page of five); fused per root, the
        # small repository's best hit meets the big one's best.
        out = client.ok("search", {"query": "yearly rate over the years", "limit": 5})
        repos = [r["repo"] for r in out["results"]]
        assert repos[:2] in (["platform", "billing"], ["billing", "platform"]), repos
        assert (
            repos.count("billing") == 1
            and out["results"][repos.index("billing")]["path"] == "ledger/interest.py"
        )
        # a query about the big repository still finds its own files first
        out = client.ok("search", {"query": "handle_request_7", "limit": 5})
        assert (out["results"][0]["repo"], out["results"][0]["path"]) == ("platform", "core/module_7.py")
    state.close()


def test_repos_picks_a_subset_by_name_or_path_and_unknown_names_are_listed(
    two_repos: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small, base = two_repos
    state, server = build(serve_args([big, small]), env=_env(base, monkeypatch))
    with connect(server) as client:
        client.ok("reindex", {"wait": True})
        only_big = client.ok("search", {"query": "compound interest", "repos": ["platform"], "limit": 20})
        assert only_big["results"] and {r["repo"] for r in only_big["results"]} == {"platform"}
        by_path = client.ok("search", {"query": "request", "repos": [str(small)], "mode": "text"})
        assert {r["repo"] for r in by_path["results"]} <= {"billing"}
        grep_all = client.ok(
            "grep", {"pattern": "def ", "output_mode": "files_with_matches", "head_limit": 100}
        )
        assert {f["repo"] for f in grep_all["files"]} == {"platform", "billing"}
        grep_one = client.ok("grep", {"pattern": "def ", "repos": "billing", "output_mode": "count"})
        assert [(f["repo"], f["path"], f["count"]) for f in grep_one["files"]] == [
            ("billing", "ledger/interest.py", 1)
        ]
        message = client.error("search", {"query": "x", "repos": ["nosuch"]})
        assert "no repository named 'nosuch'" in message and "billing" in message and "platform" in message
        message = client.error("grep", {"pattern": "def", "path": str(big / "core"), "repos": ["billing"]})
        assert "leaves out" in message
        symbols = client.ok("find_symbol", {"name": "compound_interest"})["symbols"]
        assert symbols[0]["repo"] == "billing"
    state.close()


def test_workspaces_in_plait_toml_add_roots_and_a_bad_entry_is_a_config_error(
    two_repos: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    big, small, base = two_repos
    lead = make_workspace(
        base, {"plait.toml": '[server]\nworkspaces = ["../platform", "../billing"]\n'}, "lead"
    )
    state, _ = build(serve_args([lead]), env=_env(base, monkeypatch))
    assert list(state.workspaces) == [lead, big, small]
    assert sorted(state.repos.values()) == ["billing", "lead", "platform"]
    state.close()
    broken = make_workspace(base, {"plait.toml": '[server]\nworkspaces = ["../nowhere"]\n'}, "broken")
    with pytest.raises(ConfigError, match="not a directory"):
        build(serve_args([broken]), env=_env(base, monkeypatch))

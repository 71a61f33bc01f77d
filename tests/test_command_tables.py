"""The library functions behind the commands, called from Python: the tables over α and measures,
the papers' tables with their captions, the tested risk table, the champion names, the LTR steps,
the score inputs and the table writers.  The command line's bytes are pinned by the test_cli*
files; here each function is checked against the functions it assembles."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.analysis import alpha_tables as at
from riskeval.analysis.topics import system_topic_risk
from riskeval.datasets import example_scores
from riskeval.errors import RiskevalError
from riskeval.evaluation.score_inputs import ScoreInputError, mean_scores, read_score_inputs, split_measures
from riskeval.io import table_export as te
from riskeval.io.variation_inputs import MAX_SWEEP_POINTS, number_or_label, sweep_alphas
from riskeval.ltr import workflow as w
from riskeval.measures.declared import TRisk, URisk, ZRisk
from riskeval.reporting import champion_tables as ct
from riskeval.reporting import paper_tables as pt
from riskeval.reporting import risk_tables as rt
from riskeval.settings import RiskSettings


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    return example_scores()


# --- analysis.alpha_tables


def test_topic_risk_by_alpha_stacks_system_topic_risk_per_alpha(X):
    settings = RiskSettings(baseline="bm25base_p", alphas=(0.0, 5.0), correction="holm")
    got = at.topic_risk_by_alpha(X, "p_bert", settings)
    assert len(got) == 2 * X.shape[1]
    for alpha, part in got.groupby("alpha", sort=False):
        want = system_topic_risk(X, "p_bert", "bm25base_p", alpha, correction="holm").reset_index()
        pd.testing.assert_frame_equal(part.reset_index(drop=True), want)


def test_integral_ranks_only_when_no_rank_is_tied():
    untied = pd.DataFrame({"rank": [1.0, 2.0, np.nan], "x": [0.5, 0.25, 1.0]})
    assert str(at.integral_ranks(untied)["rank"].dtype) == "Int64"
    assert at.integral_ranks(untied)["x"].dtype == np.float64
    tied = pd.DataFrame({"rank": [1.5, 1.5]})
    assert at.integral_ranks(tied)["rank"].dtype == np.float64


def test_ranking_measure_takes_one_ranking_measure():
    assert at.ranking_measure([URisk(alpha=5)], "caller") == URisk(alpha=5)
    with pytest.raises(RiskevalError, match=r"^caller takes one of .*URisk.*Got ZRisk"):
        at.ranking_measure([ZRisk()], "caller")
    with pytest.raises(RiskevalError, match="Got URisk, TRisk"):
        at.ranking_measure([URisk(), TRisk()], "caller")


def test_bias_study_tables_compute_each_study_once_with_its_overview(X):
    M = X.iloc[:8]
    table, overview = at.bias_study_tables({"a": M, "b": M * 0.5}, [1.0, 5.0], show="ranks")
    assert list(table.columns[:2]) == ["measure", "alpha"]
    assert overview[["measure", "alpha"]].values.tolist() == [["a", 1.0], ["a", 5.0], ["b", 1.0], ["b", 5.0]]
    want = rk.analysis.bias_table(M, [1.0, 5.0], show="ranks")
    got = table[table["measure"] == "a"].drop(columns="measure").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(RiskevalError, match="^--systems"):
        at.bias_study_tables({"a": M}, [1.0], systems="nope", systems_option="--systems")


def test_mean_variance_table_ranks_each_alpha():
    df = pd.DataFrame(
        {
            "system": ["a"] * 4 + ["b"] * 4,
            "topic": ["t1", "t1", "t2", "t2"] * 2,
            "variant": ["v1", "v2"] * 4,
            "score": [0.9, 0.1, 0.8, 0.2, 0.5, 0.5, 0.5, 0.4],
        }
    )
    table = at.mean_variance_table(df, [0.0, 10.0])
    assert list(table.columns[:2]) == ["system", "alpha"]
    by_alpha = {a: part["system"].tolist() for a, part in table.groupby("alpha")}
    assert by_alpha[0.0] == ["a", "b"]  # the mean alone: a (0.5) above b (0.475)
    assert by_alpha[10.0] == ["b", "a"]  # risk-averse: b's small variance wins
    assert table.groupby("alpha")["rank"].apply(list).tolist() == [[1, 2], [1, 2]]


# --- reporting.risk_tables


def test_tested_risk_table_is_risk_table_then_with_test(X):
    settings = RiskSettings(baseline="bm25base_p", alphas=(5.0,))
    plain = rt.tested_risk_table(X, settings)
    pd.testing.assert_frame_equal(plain, rk.risk_table(X, baseline="bm25base_p", settings=settings))
    tested = rt.tested_risk_table(X, settings, test="permutation", n_resamples=50, rng=1)
    assert {"pvalue_maxt", "n_resamples", "seed"} <= set(tested.columns)
    assert (tested["seed"] == 1).all()


def test_tested_risk_table_with_own_baselines_names_each(X):
    systems = list(X.index[:3])
    own = {systems[0]: systems[0], systems[1]: systems[0], systems[2]: systems[1]}
    table = rt.tested_risk_table(X.loc[systems], RiskSettings(alphas=(1.0,)), own=own)
    assert table["baseline"].tolist() == [own[s] for s in table["system"].astype(str)]


def test_with_test_measures_adds_trisk_at_each_alpha():
    got = rt.with_test_measures([URisk(alpha=5)], RiskSettings(alphas=(1.0,)), "caller")
    assert got == [URisk(alpha=5), TRisk(alpha=5)]


def test_check_baseline_name_suggests_close_names():
    rt.check_baseline_name("mean", ["a"])
    rt.check_baseline_name("bm25", ["bm25"])
    with pytest.raises(RiskevalError, match="Did you mean 'mean'"):
        rt.check_baseline_name("MEAN", ["a"])
    with pytest.raises(RiskevalError, match="Did you mean 'bm25base_p'"):
        rt.check_baseline_name("bm25_base_p", ["bm25base_p", "x"])


def test_risk_caption_states_baseline_critical_and_test(X):
    settings = RiskSettings(baseline="bm25base_p", alphas=(5.0,), correction="holm")
    table = rt.tested_risk_table(X, settings, test="bootstrap", n_resamples=50, rng=2)
    caption = rt.risk_caption("about", table, settings, shown=True)
    assert caption.startswith(f"about ({X.shape[0]} shown); baseline bm25base_p; critical |t| = ")
    assert ", holm-adjusted" in caption
    assert "\np-values: BCa bootstrap of URisk over topics, 50 resamples, seed 2" in caption
    assert caption.endswith("low, high: the BCa 95% interval of URisk")


def test_tukey_table_letters_for_people_pairs_for_programs(X):
    M = X.iloc[:5]
    settings = RiskSettings(baseline="mean", alphas=(1.0,))
    letters, caption = rt.tukey_table(M, settings, n_resamples=50, rng=3, human=True)
    pairs, same = rt.tukey_table(M, settings, n_resamples=50, rng=3)
    assert len(letters) == 5 and len(pairs) == 10 and caption == same
    assert caption.startswith("Randomised Tukey HSD of URisk against MEAN, 5 systems × 43 topics")


# --- reporting.paper_tables


def test_correlation_table_caption_and_rows(X):
    settings = RiskSettings(alphas=(1.0, 5.0))
    people = pt.correlation_table(X, "about", None, settings, human=True)
    programs = pt.correlation_table(X, "about", None, settings)
    assert people.caption == programs.caption
    lines = people.caption.split("\n")
    assert (
        lines[0] == f"about; URisk against each system in turn; {X.shape[0] * (X.shape[0] - 1)} pairs "
        "(a system against itself left out)"
    )
    assert [line.split(":")[0] for line in lines[1:]] == ["α = 1", "α = 5"]
    assert "is_baseline" in programs.table.columns and "is_baseline" not in people.table.columns
    assert len(people.table) == (~programs.table["is_baseline"]).sum()


def test_tradeoff_table_keeps_the_baseline_for_people(X):
    got = pt.tradeoff_table({"m": X}, "about", RiskSettings(baseline="bm25base_p"), human=True)
    assert got.baseline == "bm25base_p" and "baseline" not in got.table.columns
    want = rk.analysis.risk_reward_tradeoff(X, "bm25base_p")
    assert got.table["system"].tolist() == want["system"].tolist()


def test_ranks_table_systems_are_rows_shown_only(X):
    settings = RiskSettings(baseline="mean", alphas=(5.0,))
    got = pt.ranks_table(X, "about", settings, tidy=True, systems="p_bert")
    assert set(got.table["system"].astype(str)) == {"p_bert"}
    full = pt.ranks_table(X, "about", settings, tidy=True)
    pd.testing.assert_frame_equal(
        got.table.reset_index(drop=True),
        full.table[full.table["system"].astype(str) == "p_bert"].reset_index(drop=True),
    )


def test_pair_table_summary_notes_the_test(X):
    settings = RiskSettings(alphas=(5.0,))
    got = pt.pair_table(X, "src", "p_bert", "bm25base_p", settings, show="summary")
    assert (
        got.caption == f"p_bert and bm25base_p on {X.shape[1]} topics of src; p-values: paired t test; "
        "intervals: 95% t intervals"
    )
    assert len(got.table) == 2  # the mean of A − B, URisk at α = 5


# --- reporting.champion_tables


def test_check_names_of_champion_and_challengers():
    systems = ["bm25", "bert", "splade"]
    assert ct.check_names(systems, "bm25", None, "cmd") is None
    assert ct.check_names(systems, "bm25", "bert, splade", "cmd") == ["bert", "splade"]
    with pytest.raises(RiskevalError, match=r"'--champion' option of cmd names 'bm26'.*Did you mean 'bm25'"):
        ct.check_names(systems, "bm26", None, "cmd")
    with pytest.raises(RiskevalError, match="holds the champion 'bm25'"):
        ct.check_names(systems, "bm25", "bm25,bert", "cmd")
    with pytest.raises(RiskevalError, match="names no system"):
        ct.check_names(systems, "bm25", " , ", "cmd")


def test_verdict_and_probabilities_as_text():
    assert ct.verdict([]).startswith("sampling checks passed at every α: R-hat < 1.01")
    assert ct.verdict([], independent=True) == (
        "sampling checks passed at every α: independent exact draws, at least 10,000 per effect"
    )
    assert ct.verdict(["α = 0: ESS"], independent=True).startswith("sampling checks FAILED at α = 0")
    assert ct.verdict(["α = 1: R-hat", "α = 1: ESS", "α = 5: ESS"]).startswith(
        "sampling checks FAILED at α = 1, α = 5 "
    )
    table = pd.DataFrame({"p_better": [np.nan, 0.0, 0.12345], "p_better_margin": [np.nan, 1.0, 0.5]})
    shown = ct.probabilities_as_text(table)
    assert shown["p_better"].tolist() == ["", "0.000", "0.123"]
    assert shown["p_better_margin"].tolist() == ["", "1.000", "0.500"]


# --- ltr.workflow


def test_parse_params_casts_and_refuses():
    assert w.parse_params(["num_leaves=50", "learning_rate=0.1", "boosting=dart"]) == {
        "verbose": -1,
        "num_leaves": 50,
        "learning_rate": 0.1,
        "boosting": "dart",
        "num_threads": 1,  # the command line's default thread count (docs/ltr.md, "Threads")
    }
    with pytest.raises(RiskevalError, match="KEY=VALUE"):
        w.parse_params(["oops"])


@pytest.mark.parametrize("given", ["num_threads=0", "nthread=2", "n_jobs=2"])
def test_parse_params_keeps_the_threads_given_by_any_alias(given):
    params = w.parse_params([given])
    key, value = given.split("=")
    assert params == {"verbose": -1, key: int(value)}


def test_parse_grid():
    assert w.parse_grid([]) is None
    assert w.parse_grid(["num_leaves=7,15"]) == {"num_leaves": [7, 15]}
    assert set(w.parse_grid(["default"]) or {}) == {"learning_rate", "num_leaves"}
    with pytest.raises(RiskevalError, match="--grid must be"):
        w.parse_grid(["num_leaves="])


def test_table7_for_print_counts_and_macro_note():
    frame = pd.DataFrame(
        {"baseline": ["f", "macro"], "model": ["m", "m"], "NDCG": [0.5, 0.5], "Wins": [3.0, 2.5]}
    ).set_index(["baseline", "model"])
    text, note = w.table7_for_print(frame, True)
    assert text["Wins"].tolist() == ["3", "2.5"]
    assert note == "macro: each measure averaged over the baselines; Wins are mean counts."
    programs, none = w.table7_for_print(frame, False)
    assert programs["Wins"].tolist() == [3.0, 2.5] and none is None
    single, _ = w.table7_for_print(frame.iloc[:1], False)
    assert single["Wins"].dtype == np.int64


def test_read_letor_files_aligns_columns(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1 qid:1 1:0.5\n0 qid:1 1:0.1\n", encoding="utf-8")
    b.write_text("2 qid:2 3:0.7\n", encoding="utf-8")
    data, sizes = w.read_letor_files([str(a), str(b)])
    assert data.X.shape == (3, 4) and sizes == [1, 1]  # column j holds feature j: b's 3 widens a
    assert data.group.tolist() == [2, 1] and data.y.tolist() == [1, 0, 2]
    assert data.X[2, 3] == 0.7 and data.X[0, 1] == 0.5


# --- evaluation.score_inputs, io.variation_inputs, io.table_export


def test_split_measures_keeps_the_order_of_systems_and_topics():
    long = pd.DataFrame(
        {
            "system": ["b", "b", "a", "a", "b", "a"],
            "topic": ["2", "1", "2", "1", "2", "2"],
            "measure": ["m", "m", "m", "m", "n", "n"],
            "score": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    got = split_measures(long)
    assert list(got) == ["m", "n"]
    assert got["m"].index.tolist() == ["b", "a"] and got["m"].columns.tolist() == ["2", "1"]
    assert got["m"].loc["a", "1"] == 4.0
    means = mean_scores(long, wide=True)
    assert means.columns.tolist() == ["system", "m", "n"] and means["m"].tolist() == [1.5, 3.5]


def test_read_score_inputs_refuses_what_is_not_one_source(tmp_path):
    with pytest.raises(ScoreInputError, match="is a folder"):
        read_score_inputs((str(tmp_path),), None, [], names=None, missing=None)
    with pytest.raises(ScoreInputError, match="--qrels needs at least one run file"):
        read_score_inputs((), "qrels.txt", [], names=None, missing=None)
    with pytest.raises(ScoreInputError, match="Give one score table file"):
        read_score_inputs((), None, [], names=None, missing=None)


def test_sweep_alphas():
    np.testing.assert_allclose(sweep_alphas("-1:1:0.5"), [-1.0, -0.5, 0.0, 0.5, 1.0])
    assert len(sweep_alphas("-20:20:0.1")) == 401
    with pytest.raises(RiskevalError, match="START:STOP:STEP"):
        sweep_alphas("0:1")
    with pytest.raises(RiskevalError, match="STEP > 0"):
        sweep_alphas("0:1:0")
    with pytest.raises(RiskevalError, match=f"at most {MAX_SWEEP_POINTS}"):
        sweep_alphas("0:1:1e-9")
    assert number_or_label("0.5") == 0.5 and number_or_label("best") == "best"


def test_table_export_for_programs():
    frame = pd.DataFrame({"system": ["=cmd", "-0.5", "ok"], "x": [1.5, np.inf, np.nan]})
    assert te.neutralise_formulas(frame)["system"].tolist() == ["'=cmd", "-0.5", "ok"]
    out = io.StringIO()
    te.write_for_programs(frame, "json", out)
    assert json.loads(out.getvalue())[1:] == [{"system": "-0.5", "x": None}, {"system": "ok", "x": None}]
    with pytest.raises(ValueError, match="fmt must be one of"):
        te.write_for_programs(frame, "table", io.StringIO())
    assert te.OUTPUT_FORMATS == (*te.PEOPLE_FORMATS, *te.PROGRAM_FORMATS)

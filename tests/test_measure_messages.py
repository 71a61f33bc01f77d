"""Bad input to a risk measure is refused with a message that names the function and the parameter
(and, for a score, the system and topic), and results carry the measure's name.  An IR measure that
cannot be evaluated is refused saying what is wrong and what to write instead, in riskeval's words
rather than ir_measures' internals."""

from __future__ import annotations

import pandas as pd
import pytest

import riskeval as rk

X = pd.DataFrame([[0.1, 0.2, 0.3], [0.3, 0.2, 0.1], [0.2, 0.2, 0.2]], index=list("abc"), columns=list("xyz"))


@pytest.mark.parametrize("measure", [rk.zrisk, rk.georisk])
def test_chi_square_measures_name_themselves(measure):
    name = measure.__name__
    assert measure(X).name == name
    with pytest.raises(
        rk.RiskevalError, match=rf"^The 'alpha' parameter of {name} must be a finite number >= 0"
    ):
        measure(X, alpha=-1)
    with pytest.raises(rk.RiskevalError, match=rf"^The 'baseline' parameter of {name} names no system"):
        measure(X, baseline="nope")
    negative = X.copy()
    negative.loc["a", "x"] = -0.1
    with pytest.raises(rk.RiskevalError, match=rf"^{name} needs scores >= 0 .* system 'a', topic 'x'"):
        measure(negative)


@pytest.mark.parametrize("measure", [rk.urisk, rk.trisk, rk.topic_risk])
def test_paired_measures_name_themselves(measure):
    with pytest.raises(
        rk.RiskevalError, match=rf"^The 'alpha' parameter of {measure.__name__} must be a finite number >= 0"
    ):
        measure(X.loc["a"], X.loc["b"], alpha=-1)


def test_a_pair_of_different_lengths_is_refused_naming_the_function():
    with pytest.raises(rk.RiskevalError, match=r"^trisk: the system has 3 topic scores and the baseline 2"):
        rk.trisk(X.loc["a"], [0.1, 0.2])


@pytest.mark.parametrize("measure", [rk.zrisk, rk.georisk])
def test_baseline_systems_must_score_every_topic(measure):
    with pytest.raises(
        rk.RiskevalError,
        match=rf"^The 'baseline' systems of {measure.__name__} lack 1 topic\(s\) of the matrix: \['z'\]\.$",
    ):
        measure(X, baseline=X[["x", "y"]])


def test_chi_square_residuals_say_which_baseline():
    assert set(rk.analysis.chisq_residuals(X)["baseline"]) == {"every system"}
    assert set(rk.analysis.chisq_residuals(X, baseline=X.iloc[:2])["baseline"]) == {"baseline systems"}


def test_trisk_says_why_it_has_no_statistic():
    assert rk.trisk(X.loc["a"], X.loc["a"]).reason == "the system equals the baseline on every topic"
    assert rk.trisk(X.loc["a"], X.loc["a"] - 0.1).reason == (
        "every topic has the same risk-reward score (zero variance, up to rounding)"
    )


def test_jackknife_series_are_named():
    r = rk.trisk(X.loc["a"], X.loc["b"], se="jackknife")
    assert (r.leave_one_out.name, r.pseudo_values.name) == ("leave_one_out", "pseudo_value")


def test_risk_reward_and_topic_risk_name_themselves():
    with pytest.raises(
        rk.RiskevalError, match=r"^The 'baseline' parameter of risk_reward must be a 1-D vector"
    ):
        rk.analysis.risk_reward(X.loc["a"], [0.1])
    with pytest.raises(rk.RiskevalError, match=r"^The 'level' parameter of topic_risk must be a number"):
        rk.topic_risk(X.loc["a"], X.loc["b"], level=2)


# --- IR effectiveness measures: what is wrong and what to write --------------------------------

IR_MEASURE_MESSAGES = [
    (
        "ERR",
        "measure 'ERR': ERR needs a cutoff for gdeval, the installed evaluator of ERR. Write e.g. ERR@20.",
    ),
    (
        "RBP(p=1.5)",
        "measure 'RBP(p=1.5)': RBP's p (persistence) must be a number strictly between 0 and 1; got 1.5. "
        "Write e.g. RBP(p=0.8).",
    ),
    (
        "AP(rel=-1)",
        "measure 'AP(rel=-1)': AP's rel (the lowest grade counted relevant) must be a whole number from 1 "
        "to 2147483647; got -1. Write e.g. AP(rel=1).",
    ),
    (
        "ERR@-5",
        "measure 'ERR@-5': ERR's cutoff must be a whole number from 1 to 2147483647; got -5. Write e.g. ERR@20.",
    ),
    (
        "INSQ(T=-1)",
        "measure 'INSQ(T=-1)': INSQ's T (total desired gain) must be a number > 0; got -1; INSQ needs "
        "max_rel (the highest relevance grade). Write e.g. INSQ(T=1.0,max_rel=3).",
    ),
    ("P", "measure 'P': P needs a cutoff. Write e.g. P@10."),
    ("IPrec", "measure 'IPrec': IPrec needs recall level. Write e.g. IPrec@0.5."),
    (
        "alpha_nDCG(alpha=2)@10",
        "measure 'alpha_nDCG(alpha=2)@10': alpha_nDCG's alpha must be a number from 0 to 1; got 2. "
        "Write e.g. alpha_nDCG(alpha=0.5)@10.",
    ),
    (
        "AP(foo=1)",
        "measure 'AP(foo=1)': AP has no parameter 'foo' (its parameters: cutoff, rel, judged_only).",
    ),
    (
        "AP(judged_only=1)",
        "measure 'AP(judged_only=1)': AP's judged_only must be True or False; got 1. "
        "Write e.g. AP(judged_only=False).",
    ),
    (
        "nDCG(dcg='exp-log2',judged_only=True)@10",
        "measure \"nDCG(dcg='exp-log2',judged_only=True)@10\": nDCG's dcg must be 'log2' for pytrec_eval, "
        "the installed evaluator of nDCG. Write e.g. nDCG(dcg='log2',judged_only=True)@10.",
    ),
]


@pytest.mark.parametrize(("measure", "message"), IR_MEASURE_MESSAGES)
def test_ir_measure_problems_say_what_to_write(measure, message):
    from riskeval.evaluation.measures import parse_measures

    with pytest.raises(rk.RiskevalError) as info:
        parse_measures([measure])
    assert str(info.value) == message


def test_a_measure_no_installed_evaluator_computes_names_what_to_install():
    import ir_measures

    from riskeval.io.measures import measure_problems

    if any(
        p.is_available()
        for p in ir_measures.providers.registry.values()
        if p.NAME in ("trectools", "cwl_eval")
    ):
        pytest.skip("an evaluator of RBP is installed")
    assert measure_problems(["RBP"]) == [
        "measure 'RBP': no installed evaluator computes RBP; install one that does "
        "(trectools: pip install ir-measures[trectools])."
    ]


def test_every_problem_of_a_measure_list_at_once_and_the_help_only_for_names():
    from riskeval.io.measures import measure_problems

    problems = measure_problems(["nDCG@10", "ERR", "Ndcg@10", "P@ten"])
    assert problems[0].startswith("measure 'ERR': ERR needs a cutoff")
    assert problems[1] == "unknown measure 'Ndcg@10': no measure is called 'Ndcg'; did you mean nDCG or NDCG?"
    assert problems[2] == "measure 'P@ten' is not of the form Name@cutoff or Name(param=value, ...)@cutoff"
    assert problems[3].startswith("Measures are named as in ir_measures") and len(problems) == 4
    assert measure_problems(["nDCG@10", "ndcg_cut_10", "AP(rel=2)", "ERR@20", "P@10", "map"]) == []
    assert "Measures are named" not in " ".join(measure_problems(["ERR", "P"]))


@pytest.mark.parametrize(("measure", "message"), IR_MEASURE_MESSAGES[:5])
def test_the_command_line_prints_the_message_alone(tmp_path, capsys, measure, message):
    from cli_runner import run_cli

    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d 1 1.0 a\n")
    code, out, err = run_cli(
        ["evaluate", "--qrels", tmp_path / "q", "-m", measure, tmp_path / "a.run"], capsys
    )
    assert (code, out, err) == (2, "", f"riskeval: error: {message}\n")

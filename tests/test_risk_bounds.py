"""Score and risk bounds over the completions of the qrels, checked by brute force: every way of
grading the unjudged documents the runs retrieve (0..G, the same qrels for both runs) is evaluated
by ir_measures, and each run's score, each topic's difference, URisk and TRisk must lie in the
bounds, the exact bounds must be reached, and a topic labelled a robust loss must be a loss under
every completion (a topic labelled no loss, under none)."""

from __future__ import annotations

import itertools
import random

import ir_measures
import numpy as np
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.analysis.unjudged_risk import LABELS, label_changes, risk_bounds, topic_bounds, trisk_interval
from riskeval.errors import RiskevalError
from riskeval.evaluation.pool_reuse import pool_contributions, without_run
from riskeval.evaluation.score_bounds import score_bounds

#: measure -> whether its bounds are exact (low, high)
MEASURES = {
    "nDCG@3": (False, False),
    "nDCG": (False, False),
    "AP": (False, True),
    "AP@3": (False, True),
    "P@3": (True, True),
    "R@3": (True, True),
    "RR": (True, True),
    "RR@2": (True, True),
}
G = 2
TOPICS = ("1", "2", "3")


def _case(seed):
    """Qrels with one to three judged documents per topic and two runs of up to five documents,
    at most three of them unjudged per topic over both runs (so 3**3 completions per topic)."""
    rng = random.Random(seed)
    qrels, runs = {}, {"sys": {}, "base": {}}
    for t in TOPICS:
        docs = [f"d{i}" for i in range(7)]
        rng.shuffle(docs)
        judged, unjudged = docs[:3], docs[3:6]
        qrels[t] = {d: rng.randint(0, G) for d in judged[: rng.randint(1, 3)]}
        pool = [d for d in judged if d in qrels[t]] + unjudged
        for name in runs:
            chosen = rng.sample(pool, rng.randint(1, min(5, len(pool))))
            runs[name][t] = {d: float(rng.choice([1, 2, 3, 4])) for d in chosen}
    return qrels, runs


def _completions(qrels, runs, topic):
    """Every completion of one topic's qrels: (qrels of the topic, completed)."""
    unjudged = sorted({d for r in runs.values() for d in r[topic] if d not in qrels[topic]})
    for grades in itertools.product(range(G + 1), repeat=len(unjudged)):
        yield {**qrels[topic], **dict(zip(unjudged, grades, strict=True))}


def _values(measure, qrels, runs):
    """Per topic, per completion: {run: value} by ir_measures (a topic with no relevant document
    in the completion: ir_measures' value, 0 when it gives none)."""
    parsed = ir_measures.parse_measure(measure)
    out = {}
    for t in TOPICS:
        values = []
        for judged in _completions(qrels, runs, t):
            row = {}
            for name, run in runs.items():
                got = [m.value for m in ir_measures.iter_calc([parsed], {t: judged}, {t: run[t]})]
                row[name] = got[0] if got else 0.0
            values.append(row)
        out[t] = values
    return out


SEEDS = [*range(2), *(pytest.param(s, marks=pytest.mark.slow) for s in range(2, 30))]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("measure", list(MEASURES))
def test_bounds_hold_every_completion(measure, seed):
    qrels, runs = _case(seed)
    bounds = score_bounds(qrels, runs, measure, grade=G)
    values = _values(measure, qrels, runs)
    exact_low, exact_high = MEASURES[measure]
    for t in TOPICS:
        for name in runs:
            seen = [row[name] for row in values[t]]
            low, high = bounds.low.at[name, t], bounds.high.at[name, t]
            assert low - 1e-12 <= min(seen) and max(seen) <= high + 1e-12, (name, t, low, high, seen)
            assert bounds.scores.at[name, t] == pytest.approx(values[t][0][name])  # all unjudged 0
            if exact_low:
                assert low == pytest.approx(min(seen), abs=1e-12)
            if exact_high:
                assert high == pytest.approx(max(seen), abs=1e-12)
    alpha = 2.0
    table = topic_bounds(bounds, "sys", "base", alpha).set_index("topic")
    deltas = {t: [row["sys"] - row["base"] for row in values[t]] for t in TOPICS}
    for t in TOPICS:
        lo, hi, label = table.at[t, "delta_low"], table.at[t, "delta_high"], table.at[t, "label"]
        assert lo - 1e-12 <= min(deltas[t]) and max(deltas[t]) <= hi + 1e-12
        if label == LABELS[0]:
            assert max(deltas[t]) < 0
        if label == LABELS[2]:
            assert min(deltas[t]) >= -1e-12
    # URisk and TRisk under every joint completion of the three topics
    row = risk_bounds(bounds, "base", [alpha]).set_index("system").loc["sys"]
    for joint in itertools.product(*(deltas[t] for t in TOPICS)):
        x = rk.core.paired.risk_scores(np.array(joint), alpha)
        u = x.mean()
        assert row["urisk_low"] - 1e-12 <= u <= row["urisk_high"] + 1e-12
        sd = x.std(ddof=1)
        if sd > 1e-9:
            t_value = u / (sd / np.sqrt(x.size))
            assert row["trisk_low"] - 1e-9 <= t_value <= row["trisk_high"] + 1e-9


def test_a_relevant_document_can_lower_ndcg():
    """A run whose first document is the only relevant one, an unjudged document at rank 10: made
    relevant (grade 3), it raises the ideal DCG, so the run's least nDCG@10 is below its value with
    unjudged documents non-relevant."""
    qrels = {"1": {"r": 3, "n": 0}}
    run = {"1": {"r": 10.0, **{f"x{i}": 9.0 - i for i in range(8)}, "u": 0.5}}
    qrels["1"].update({f"x{i}": 0 for i in range(8)})
    bounds = score_bounds(qrels, {"a": run}, "nDCG@10", grade=3)
    assert bounds.scores.at["a", "1"] == 1.0
    completed = {"1": {**qrels["1"], "u": 3}}
    lower = next(ir_measures.iter_calc([ir_measures.parse_measure("nDCG@10")], completed, run)).value
    assert lower < 1.0
    assert bounds.low.at["a", "1"] <= lower


def test_trisk_interval_holds_on_random_boxes():
    rng = np.random.default_rng(7)
    for _ in range(150):
        c = int(rng.integers(2, 6))
        a, b = rng.normal(size=c), rng.normal(size=c)
        low, high = np.minimum(a, b), np.maximum(a, b)
        t_lo, t_hi = trisk_interval(low, high)
        x = rng.uniform(low, high, size=(200, c))
        x[:2] = [low, high]  # the corners too
        t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / np.sqrt(c))
        assert (t_lo - 1e-9 <= t).all() and (t <= t_hi + 1e-9).all()


def test_unbounded_measures_are_refused():
    with pytest.raises(RiskevalError, match="Score bounds over the completions"):
        score_bounds({"1": {"a": 1}}, {"s": {"1": {"a": 1.0}}}, "ERR@10")


def test_pool_contributions_and_leave_one_run_out():
    """Three runs, pool depth 2: a judged document in one run's first two and no other's is that
    run's alone; removed from the qrels, the run's loss on that topic is no longer decided."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "z": 2}, "2": {"a": 1, "d": 2}}
    runs = {
        "new": {"1": {"c": 3.0, "a": 2.0, "b": 1.0}, "2": {"d": 3.0, "x": 2.0}},
        "base": {"1": {"a": 3.0, "z": 2.0, "c": 1.0}, "2": {"d": 3.0, "a": 2.0}},
        "other": {"1": {"b": 3.0, "z": 2.0}, "2": {"a": 3.0, "y": 2.0}},
    }
    alone = pool_contributions(qrels, runs, depth=2)
    # new's first two: c, a (topic 1; a also base's) and d, x (topic 2; d also base's, x unjudged)
    assert alone == {"new": {"1": {"c"}}, "base": {}, "other": {"1": {"b"}}}  # b: new ranks it 3rd
    reduced = without_run(qrels, runs, "new", depth=2)
    assert reduced == {"1": {"a": 2, "b": 0, "z": 2}, "2": {"a": 1, "d": 2}}
    pair = {"new": runs["new"], "base": runs["base"]}
    full = score_bounds(qrels, pair, "P@2", grade=2)
    fewer = score_bounds(reduced, pair, "P@2", grade=2)
    changes = label_changes(full, fewer, "new", "base")
    # topic 1: new finds c, a (P@2 1.0), base a, z (1.0): no loss with full qrels; without c's
    # judgment new's P@2 is 0.5 to 1: a possible loss.  Topic 2: new d (0.5, 1 with x), base 1.0.
    assert changes["losses"] == 1 and changes["robust"] == 0 and changes["possible"] == 1
    assert changes["losses_reduced"] == 2 and changes["possible_reduced"] == 2
    assert changes["robust_not_lost"] == 0
    with pytest.raises(RiskevalError, match="No run 'nope'"):
        without_run(qrels, runs, "nope")
    with pytest.raises(RiskevalError, match="depth"):
        pool_contributions(qrels, runs, depth=0)


def _files(tmp_path):
    """Qrels and two runs on two topics: on topic 1 'new' retrieves an unjudged document first."""
    q = tmp_path / "qrels.txt"
    q.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n2 0 d 0\n")
    new, base = tmp_path / "new.run", tmp_path / "base.run"
    new.write_text("1 Q0 x 1 3 new\n1 Q0 b 2 2 new\n2 Q0 d 1 3 new\n2 Q0 c 2 2 new\n")
    base.write_text("1 Q0 a 1 3 base\n1 Q0 b 2 2 base\n2 Q0 c 1 3 base\n2 Q0 d 2 2 base\n")
    return q, new, base


def test_cli_risk_unjudged_bounds(tmp_path, capsys):
    q, new, base = _files(tmp_path)
    args = ["risk", "--qrels", q, "-m", "P@1", "--unjudged", "bounds", "-b", "base", "--alpha", "1"]
    code, out, err = run_cli([*args, "--format", "csv", base, new], capsys)
    assert code == 0, err
    rows = out.splitlines()
    assert rows[0] == (
        "system,alpha,baseline,urisk,urisk_low,urisk_high,trisk_low,trisk_high,losses,robust_losses,possible_losses"
    )
    # topic 1: new 0..1 (x unjudged) against 1: a possible loss; topic 2: 0 against 1: robust
    assert rows[1].startswith("new,1.0,base,-2.0,-2.0,-1.0,") and rows[1].endswith(",2,1,1")
    code, out, err = run_cli([*args, "--topics", "new", "--format", "csv", base, new], capsys)
    assert code == 0, err
    labels = [line.split(",")[-2] for line in out.splitlines()[1:]]
    assert labels == ["possible loss", "robust loss"]


@pytest.mark.parametrize(
    ("command", "words"),
    [
        (["risk", "--unjudged", "bounds", "--tukey"], "leave out --tukey"),
        (["risk-reward", "--unjudged", "bounds"], "does not take --unjudged bounds"),
        (["evaluate", "--unjudged", "bounds"], "'--unjudged' parameter of riskeval evaluate must be one of"),
    ],
)
def test_cli_bounds_refused_where_not_computed(tmp_path, capsys, command, words):
    q, new, base = _files(tmp_path)
    code, _, err = run_cli([*command, "--qrels", q, base, new], capsys)
    assert code == 2
    assert words in err and "Traceback" not in err


def test_cli_unjudged_needs_qrels(tmp_path, capsys):
    table = tmp_path / "scores.csv"
    table.write_text("system,topic,score\na,1,0.5\nb,1,0.25\na,2,0.1\nb,2,0.3\n")
    code, _, err = run_cli(["risk", "--unjudged", "condensed", table], capsys)
    assert code == 2
    assert "--unjudged goes with runs evaluated against --qrels" in err


def test_cli_compare_unjudged_bounds(tmp_path, capsys):
    q, new, base = _files(tmp_path)
    args = ["compare", "--qrels", q, "-m", "P@1", "--unjudged", "bounds", "-b", "base", "--alpha", "1"]
    code, out, err = run_cli([*args, base, new], capsys)
    assert code == 0, err
    assert "Risk against base over every completion of the qrels" in out
    # TRisk's greatest value is -1 (topic 1's risk at 0); the bound on the standard error gives -0.6325
    last = ["new", "1", "base", "-2.0000", "-2.0000", "-1.0000", "-inf", "-0.6325", "2", "1", "1"]
    assert out.splitlines()[-1].split() == last
    code, _, err = run_cli([*args, "--format", "csv", base, new], capsys)
    assert code == 2 and "for csv or json use riskeval risk --unjudged bounds" in err

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

import riskeval as rk
from riskeval.analysis.risk_bounds import LABELS, risk_bounds, topic_bounds, trisk_interval
from riskeval.errors import RiskevalError
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


SEEDS = [*range(3), *(pytest.param(s, marks=pytest.mark.slow) for s in range(3, 30))]


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
    for _ in range(200):
        c = rng.integers(2, 6)
        a, b = rng.normal(size=c), rng.normal(size=c)
        low, high = np.minimum(a, b), np.maximum(a, b)
        t_lo, t_hi = trisk_interval(low, high)
        for _ in range(50):
            x = rng.uniform(low, high)
            t = x.mean() / (x.std(ddof=1) / np.sqrt(c))
            assert t_lo - 1e-9 <= t <= t_hi + 1e-9


def test_unbounded_measures_are_refused():
    with pytest.raises(RiskevalError, match="Score bounds over the completions"):
        score_bounds({"1": {"a": 1}}, {"s": {"1": {"a": 1.0}}}, "ERR@10")

"""Risk under several qrels: Kendall's τ against scipy, τ_AP against the paper's definition written
out naively, identical qrels agreeing fully, agreement falling as labels are flipped at known rates,
invariants under reordering, the command line, and CLEF eHealth 2015's graded and binary qrels."""

from __future__ import annotations

import warnings
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from riskeval.analysis.qrels_comparison import qrels_agreement
from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.evaluation.several_qrels import evaluate_under_qrels, qrels_names
from tests.cli_runner import run_cli
from tests.shared_data import shared_data


def naive_tau_ap(reference: np.ndarray, evaluated: np.ndarray) -> float:
    """τ_AP from its definition (Yilmaz, Aslam & Robertson, SIGIR 2008, eq. 2), in O(n²): down the
    ranking by ``evaluated``, C(i) counts the items above position i that the ranking by
    ``reference`` also puts above the item at i.  Distinct values only."""
    n = len(reference)
    order = np.argsort(-evaluated)
    total = 0.0
    for i in range(1, n):
        item = order[i]
        c = sum(1 for j in range(i) if reference[order[j]] > reference[item])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def matrix(values: np.ndarray, prefix: str = "s") -> pd.DataFrame:
    r, c = values.shape
    return pd.DataFrame(
        values,
        index=pd.Index([f"{prefix}{i}" for i in range(r)], name="system"),
        columns=pd.Index([f"t{j}" for j in range(c)], name="topic"),
    )


def test_identical_qrels_agree_fully():
    M = matrix(np.random.default_rng(1).random((8, 12)))
    r = qrels_agreement({"a": M, "b": M.copy()}, baseline="s0", alphas=[0, 5])
    np.testing.assert_allclose(r.ranking[["tau", "tau_ap"]], 1.0, rtol=0, atol=1e-12)
    assert set(r.ranking["measure"]) == {"urisk", "trisk"}
    assert (r.losses["agreement"] == 1).all()
    assert (r.losses["losses_reference"] == r.losses["losses_both"]).all()
    assert (r.losses["losses_evaluated"] == r.losses["losses_both"]).all()
    assert "s0" not in set(r.losses["system"])  # the baseline run has no losses against itself
    assert np.allclose(r.spread["variance"], 0)
    assert set(r.scores["variant"]) == {"a", "b"} and len(r.scores) == 2 * 8 * 12


def test_tau_equals_scipy_and_tau_ap_the_definition():
    rng = np.random.default_rng(7)
    A = matrix(rng.random((15, 20)))
    B = (A + rng.normal(0, 0.15, A.shape)).clip(0, 1)
    r = qrels_agreement({"A": A, "B": B}, baseline="mean", alphas=[0, 1, 5])
    for alpha in (0, 1, 5):
        ua = r.risk[(r.risk["qrels"] == "A") & (r.risk["alpha"] == alpha)].set_index("system")["urisk"]
        ub = r.risk[(r.risk["qrels"] == "B") & (r.risk["alpha"] == alpha)].set_index("system")["urisk"]
        row = r.ranking[(r.ranking["measure"] == "urisk") & (r.ranking["alpha"] == alpha)].iloc[0]
        x, y = ua.to_numpy(), ub.loc[ua.index].to_numpy()
        assert row["tau"] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
        assert row["tau_ap"] == pytest.approx(naive_tau_ap(x, y), abs=1e-12)
        assert row["systems"] == 15
    assert r.ranking["tau"].lt(1).any()  # the noise changed some order: the test can fail


def test_sign_agreement_by_hand():
    # baseline b; x loses on t1 under both qrels, gains on t2 under A but ties under B, loses on t3
    # under B only.
    A = pd.DataFrame({"t1": [0.5, 0.2], "t2": [0.5, 0.7], "t3": [0.5, 0.6]}, index=["b", "x"])
    B = pd.DataFrame({"t1": [0.4, 0.1], "t2": [0.3, 0.3], "t3": [0.5, 0.4]}, index=["b", "x"])
    r = qrels_agreement({"A": A, "B": B}, baseline="b", alphas=[0])
    row = r.losses.set_index("system").loc["x"]
    assert (
        row["topics"],
        row["agree"],
        row["losses_reference"],
        row["losses_evaluated"],
        row["losses_both"],
    ) == (
        3,
        1,
        1,
        2,
        1,
    )
    assert row["agreement"] == pytest.approx(1 / 3)


def test_common_topics_and_errors():
    rng = np.random.default_rng(3)
    A = matrix(rng.random((4, 6)))
    B = A.drop(columns=["t5"])
    with pytest.warns(RiskevalWarning, match="1 of A topic"):
        r = qrels_agreement({"A": A, "B": B}, baseline="s0")
    assert r.scores["topic"].nunique() == 5
    with pytest.raises(RiskevalError, match="at least two"):
        qrels_agreement({"A": A})
    with pytest.raises(RiskevalError, match="differ in systems"):
        qrels_agreement({"A": A, "B": A.rename(index={"s3": "other"})})
    with pytest.raises(RiskevalError, match="no topic"):
        qrels_agreement({"A": A, "B": A.set_axis([f"u{j}" for j in range(6)], axis=1)})


def test_qrels_names():
    assert list(qrels_names(["x/graded.txt", "y/bin.txt.gz"])) == ["graded", "bin"]
    assert list(qrels_names(["a.txt", "b.txt"], ["people", "llm"])) == ["people", "llm"]
    with pytest.raises(RiskevalError, match="same name"):
        qrels_names(["x/q.txt", "y/q.txt"])
    with pytest.raises(RiskevalError, match="one label per qrels"):
        qrels_names(["a.txt", "b.txt"], ["only"])
    with pytest.raises(RiskevalError, match="at least two"):
        qrels_names(["a.txt"])
    assert list(qrels_names({"one": {"1": {"d": 1}}, "two": {"1": {"d": 0}}})) == ["one", "two"]


def synthetic(n_systems: int = 10, n_topics: int = 25, n_docs: int = 30, seed: int = 0):
    """Binary qrels (a fifth of the documents relevant) and runs of increasing quality: system s
    scores a relevant document higher by s/2 on average, so the true order is s0 < s1 < ..."""
    rng = np.random.default_rng(seed)
    qrels = {f"q{t}": {f"d{d}": int(rng.random() < 0.2) for d in range(n_docs)} for t in range(n_topics)}
    runs = {}
    for s in range(n_systems):
        runs[f"s{s}"] = {
            q: {d: float(rng.normal() + 0.5 * s * g) for d, g in judged.items()}
            for q, judged in qrels.items()
        }
    return qrels, runs


def flipped(qrels: dict, rate: float, seed: int) -> dict:
    """``qrels`` with each binary label flipped with probability ``rate``."""
    rng = np.random.default_rng(seed)
    return {q: {d: g ^ int(rng.random() < rate) for d, g in judged.items()} for q, judged in qrels.items()}


def test_tau_falls_as_labels_are_flipped():
    """Flipping k% of the binary labels: at 0% the orders agree exactly; the mean τ of the orders by
    URisk@0 (the means) falls as k grows, towards 0 at 50% (labels independent of the truth)."""
    qrels, runs = synthetic()
    mean_tau = {}
    for rate in (0.0, 0.1, 0.3, 0.5):
        taus = []
        for seed in range(2):
            matrices = evaluate_under_qrels(
                {"truth": qrels, "flipped": flipped(qrels, rate, seed)}, runs, "P@10"
            )
            r = qrels_agreement(matrices, baseline="s0", alphas=[0])
            taus.append(r.ranking.query("measure == 'urisk'")["tau"].iloc[0])
            if rate == 0:
                assert (r.losses["agreement"] == 1).all()
        mean_tau[rate] = float(np.mean(taus))
    assert mean_tau[0.0] == pytest.approx(1.0, abs=1e-12)
    assert mean_tau[0.0] > mean_tau[0.1] > mean_tau[0.3] > mean_tau[0.5]
    assert abs(mean_tau[0.5]) < 0.5


@settings(max_examples=6, deadline=None)
@given(st.integers(3, 9), st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_invariants(n_systems, n_topics, seed):
    """τ is symmetric in the qrels; swapping them swaps the loss counts and keeps the agreement;
    reordering the systems changes nothing; agreement and counts stay in range."""
    rng = np.random.default_rng(seed)
    A = matrix(rng.random((n_systems, n_topics)))
    B = matrix(np.where(rng.random(A.shape) < 0.5, A.to_numpy(), rng.random(A.shape)))
    r = qrels_agreement({"A": A, "B": B}, baseline="s0", alphas=[5])
    s = qrels_agreement({"B": B, "A": A}, baseline="s0", alphas=[5])
    np.testing.assert_allclose(r.ranking["tau"], s.ranking["tau"], atol=1e-12)
    np.testing.assert_array_equal(r.losses["losses_reference"], s.losses["losses_evaluated"])
    np.testing.assert_array_equal(r.losses["agree"], s.losses["agree"])
    order = rng.permutation(n_systems)
    p = qrels_agreement({"A": A.iloc[order], "B": B.iloc[order]}, baseline="s0", alphas=[5])
    np.testing.assert_allclose(r.ranking[["tau", "tau_ap"]], p.ranking[["tau", "tau_ap"]], atol=1e-12)
    lo = r.losses
    assert ((lo["agreement"] >= 0) & (lo["agreement"] <= 1)).all()
    assert (lo["losses_both"] <= np.minimum(lo["losses_reference"], lo["losses_evaluated"])).all()
    tau = r.ranking["tau"].dropna()
    assert ((tau >= -1 - 1e-12) & (tau <= 1 + 1e-12)).all()


QRELS_A = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 a 0\n2 0 b 1\n"
QRELS_B = "1 0 a 0\n1 0 b 1\n1 0 c 1\n2 0 a 0\n2 0 b 1\n"
RUN_X = "1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n2 Q0 a 1 2 x\n2 Q0 b 2 1 x\n"
RUN_Y = "1 Q0 c 1 3 y\n1 Q0 b 2 2 y\n1 Q0 a 3 1 y\n2 Q0 b 1 2 y\n2 Q0 a 2 1 y\n"


def test_cli(tmp_path: Path, capsys):
    for name, text in {"a.txt": QRELS_A, "b.txt": QRELS_B, "x.run": RUN_X, "y.run": RUN_Y}.items():
        (tmp_path / name).write_text(text)
    args = ["qrels-agreement", "--qrels", tmp_path / "a.txt", "--qrels", tmp_path / "b.txt", "-m", "P@2"]
    code, out, err = run_cli(
        [*args, "--table", "losses", "--format", "csv", tmp_path / "x.run", tmp_path / "y.run"], capsys
    )
    assert code == 0, err
    table = pd.read_csv(StringIO(out))
    assert list(table["system"]) == ["y"]  # x is the baseline: the first of two runs
    assert (table["reference"].iloc[0], table["evaluated"].iloc[0]) == ("a", "b")
    # y against x: topic 1 P@2 a: x 0.5, y 0.5 (tie); b: x 0.5, y 1.0 (gain); topic 2: y gains under both
    assert (table["topics"].iloc[0], table["agree"].iloc[0]) == (2, 1)
    code, out, err = run_cli([*args, "--label", "one", tmp_path / "x.run"], capsys)
    assert code == 2 and err.startswith("riskeval: error: --label was given 1 time(s) for 2 --qrels")
    code, out, err = run_cli(["qrels-agreement", "--qrels", tmp_path / "a.txt", tmp_path / "x.run"], capsys)
    assert code == 2 and "at least twice" in err


CLEF = "clef-ehealth-2015-task2"


@pytest.mark.slow
def test_clef_graded_against_binary():
    """CLEF eHealth 2015: the 68 runs under the graded and the binary qrels (the figures of
    docs/qrels.md); τ equal to scipy's on the URisk values of the two risk tables."""
    d = shared_data(CLEF)
    runs = sorted(str(p) for p in (d / "runs-en").glob("*.gz"))
    qrels = {
        "graded": d / "qrels" / "qrels.eng.clef2015.qtest.graded.txt",
        "binary": d / "qrels" / "qrels.eng.clef2015.qtest.bin.txt",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RiskevalWarning)  # topic qtest.62 of some runs is not judged
        matrices = evaluate_under_qrels(qrels, runs, "nDCG@10", names="file")
    r = qrels_agreement(matrices, baseline="baseline_run.1", alphas=[0, 5])
    assert r.scores["topic"].nunique() == 66 and r.scores["system"].nunique() == 68
    got = r.ranking.set_index(["measure", "alpha"])[["tau", "tau_ap"]].round(4)
    assert got.loc[("urisk", 0.0)].tolist() == [0.9710, 0.9568]
    assert got.loc[("urisk", 5.0)].tolist() == [0.9754, 0.9521]
    assert got.loc[("trisk", 5.0)].tolist() == [0.9438, 0.9182]
    for alpha in (0.0, 5.0):
        u = r.risk[r.risk["alpha"] == alpha].pivot(index="system", columns="qrels", values="urisk")
        tau = stats.kendalltau(u["graded"], u["binary"]).statistic
        assert got.loc[("urisk", alpha), "tau"] == pytest.approx(tau, abs=1e-4)
    assert r.losses["agreement"].min() == pytest.approx(59 / 66)
    assert r.losses["agreement"].mean() == pytest.approx(63.029851 / 66, abs=1e-6)


def test_default_baseline_is_the_settings_mean_resolved_under_each_qrels():
    rng = np.random.default_rng(11)
    A, B = matrix(rng.random((5, 8))), matrix(rng.random((5, 8)))
    default = qrels_agreement({"A": A, "B": B}, alphas=[0])
    mean = qrels_agreement({"A": A, "B": B}, baseline="mean", alphas=[0])
    pd.testing.assert_frame_equal(default.losses, mean.losses)
    assert (default.risk["baseline"] == "MEAN").all()
    # under each qrels its own MEAN: the losses under B are those against B's per-topic mean
    expected = (B.to_numpy() < B.to_numpy().mean(axis=0)).sum(axis=1)
    np.testing.assert_array_equal(default.losses["losses_evaluated"], expected)


def test_a_caveat_is_given_once_per_qrels_naming_it():
    """Topics of the runs that neither qrels judges: one warning per qrels, each naming its qrels,
    so the two do not read as the same message printed twice."""
    qrels, runs = synthetic(n_systems=2, n_topics=3)
    runs["s0"]["unjudged"] = {"d0": 1.0}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate_under_qrels({"first": qrels, "second": flipped(qrels, 0.1, 0)}, runs, "P@10")
    messages = [str(w.message) for w in caught if issubclass(w.category, RiskevalWarning)]
    assert [m.split(":")[0] for m in messages] == ["under the qrels first", "under the qrels second"]
    assert all("no judgments in the qrels" in m for m in messages)

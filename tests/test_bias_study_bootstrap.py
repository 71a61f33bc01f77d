"""The baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014) and bootstrap intervals."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import riskeval as rk
from riskeval.analysis.baseline_bias import pca

# Table 2 of Dinçer, Ounis & Macdonald (ECIR 2014): URisk (α = 10) of the top 8 TREC 2012 runs (rows)
# with each run in turn as the baseline (columns, same order).  The paper reports p = 0.0003 for
# Friedman's test of these rankings.
RUNS = [
    "uogTrA44xi",
    "srchvrs12c09",
    "DFalah121A",
    "QUTparaBline",
    "utw2012fc1",
    "ICTNET12ADR2",
    "irra12c",
    "qutwb",
]
TABLE2 = np.array(
    [
        [0, -0.928, -0.882, -1.072, -0.319, -0.255, -0.068, -0.047],
        [-1.027, 0, -0.944, -0.830, -0.387, -0.497, -0.351, -0.159],
        [-1.135, -1.098, 0, -0.835, -0.421, -0.617, -0.329, -0.202],
        [-1.349, -1.008, -0.858, 0, -0.540, -0.611, -0.293, -0.298],
        [-1.443, -1.412, -1.291, -1.387, 0, -0.843, -0.432, -0.224],
        [-1.434, -1.577, -1.542, -1.513, -0.897, 0, -0.581, -0.613],
        [-1.758, -1.941, -1.766, -1.706, -0.997, -1.092, 0, -0.610],
        [-1.814, -1.826, -1.715, -1.788, -0.866, -1.201, -0.687, 0],
    ]
)

RNG = np.random.default_rng(7)
M = pd.DataFrame(RNG.beta(2, 4, size=(8, 30)), index=RUNS, columns=[f"t{j}" for j in range(30)])


def test_bias_study_on_the_papers_table2_gives_its_p_value(monkeypatch):
    """bias_study's Friedman test and ranks, given the paper's URisk values of Table 2 in place of
    the ones it computes: systems as treatments, baselines as blocks, p = 0.0003 as printed."""
    import riskeval.analysis.baseline_bias as bs

    monkeypatch.setattr(bs, "_urisk_against_every_run", lambda *args: TABLE2.T.copy())
    study = rk.bias_study(M, alpha=10, virtual=())
    assert round(study.friedman.pvalue, 4) == 0.0003
    # every baseline ranks the seven other runs 1..7 (Table 2's own order: 1 = highest URisk)
    for b in RUNS:
        row = study.ranks.loc[b]
        assert np.isnan(row[b]) and sorted(row.dropna()) == list(range(1, 8))
    # Table 2's column utw2012fc1: uogTrA44xi loses least (−0.319), irra12c most (−0.997)
    assert study.ranks.loc["utw2012fc1", "uogTrA44xi"] == 1 and study.ranks.loc["utw2012fc1", "irra12c"] == 7


def test_bias_study_structure_and_friedman():
    study = rk.bias_study(M, alpha=10)
    assert list(study.urisk.index) == RUNS + ["MEAN", "MEDIAN", "MAX"]
    assert list(study.urisk.columns) == RUNS
    for b in RUNS:
        assert study.urisk.loc[b, b] == 0 and np.isnan(study.ranks.loc[b, b])
        for s in RUNS:
            assert study.urisk.loc[b, s] == pytest.approx(rk.urisk(M.loc[s], M.loc[b], 10))
    # ranks among the others: 1..7 for real baselines
    assert sorted(study.ranks.loc[RUNS[0]].dropna()) == list(range(1, 8))
    ref = stats.friedmanchisquare(*study.urisk.loc[RUNS].to_numpy().T)
    assert study.friedman.pvalue == pytest.approx(ref.pvalue)
    np.testing.assert_allclose(
        study.correlation.loc["qutwb", "MEAN"], stats.pearsonr(M.loc["qutwb"], M.mean())[0]
    )


def test_pca_explained_variance_and_coordinates():
    study = rk.bias_study(M, alpha=1, virtual=["mean"])
    p = study.pca
    assert p.explained.sum() == pytest.approx(100.0)
    assert (np.diff(p.explained.to_numpy()) <= 1e-9).all()
    runs = pd.concat([M, M.mean().to_frame("MEAN").T])
    centred = runs - runs.mean()
    # coordinates are the projections of the centred runs on the loadings
    np.testing.assert_allclose(
        p.coordinates.to_numpy(), centred.to_numpy() @ p.loadings.to_numpy(), atol=1e-12
    )
    # the MEAN virtual run sits near the origin only when it is the sole virtual run
    assert np.abs(p.coordinates.loc["MEAN"]).max() < np.abs(p.coordinates).max().max()
    # % variance of PC1 equals the top eigenvalue of the covariance of the runs
    ev = np.linalg.eigvalsh(np.cov(centred.to_numpy(), rowvar=False))
    assert p.explained.iloc[0] == pytest.approx(100 * ev[-1] / ev.sum())


def test_pca_of_identical_profiles_is_one_component():
    base = RNG.uniform(0.1, 0.5, 20)
    runs = pd.DataFrame([base * k for k in (0.5, 1.0, 1.5, 2.0)])
    assert pca(runs).explained.iloc[0] == pytest.approx(100.0)

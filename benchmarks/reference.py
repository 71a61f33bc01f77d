"""Fair references for the benchmarks: what a good engineer writes without riskeval.

Each reference is short and idiomatic (batched numpy vectorised over resamples, scipy, ir_measures,
a numpy pass), computes the same statistic as the riskeval call it is timed against, and is never
a Python loop per resample or per item.  The benchmarks print riskeval's time as a ratio against
these in the same run.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtr, stdtr

# --------------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Permutation (sign-flip) test and max-T table
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Randomised Tukey HSD
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Evaluation of runs
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# Risk tables: risk_table, zrisk, georisk, long tables
# --------------------------------------------------------------------------------------------------


def risk_table_numpy(X: np.ndarray, alphas: np.ndarray) -> dict[str, np.ndarray]:
    """URisk, its SE, TRisk and p-value (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 3–12) against the
    per-topic MEAN, ZRisk and GeoRisk over the whole matrix (SIGIR 2016, eq. 4–7), FRisk, FReward,
    wins, losses and Loss>20%, for every system (columns) and α (rows), in one pass of numpy over
    the matrix: the variance of x(α) = δ⁺ + (1+α)δ⁻ from the variances and covariance of δ⁺, δ⁻."""
    r, c = X.shape
    a = 1.0 + np.asarray(alphas, dtype=np.float64)[:, None]
    b = X.mean(axis=0)
    d = X - b
    pos, neg = np.maximum(d, 0.0), np.minimum(d, 0.0)
    cp, cn = pos - pos.mean(axis=1, keepdims=True), neg - neg.mean(axis=1, keepdims=True)
    m2p, m2n, cross = (cp * cp).sum(axis=1), (cn * cn).sum(axis=1), (cp * cn).sum(axis=1)
    urisk = (pos.sum(axis=1) + a * neg.sum(axis=1)) / c
    se = np.sqrt((m2p + a * a * m2n + 2 * a * cross) / (c - 1) / c)
    trisk = urisk / se
    S, T = X.sum(axis=1), X.sum(axis=0)
    e = S[:, None] * T / S.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(e > 0, (X - e) / np.sqrt(e), 0.0)
    zrisk = np.maximum(z, 0).sum(axis=1) + a * np.minimum(z, 0).sum(axis=1)
    return {
        "urisk": urisk,
        "se": se,
        "trisk": trisk,
        "pvalue": 2 * stdtr(c - 1, -np.abs(trisk)),
        "zrisk": zrisk,
        "georisk": np.sqrt(S / c * ndtr(zrisk / c)),
        "frisk": np.broadcast_to(-neg.sum(axis=1) / c, urisk.shape),
        "freward": np.broadcast_to(pos.sum(axis=1) / c, urisk.shape),
        "wins": np.broadcast_to((d > 0).sum(axis=1), urisk.shape),
        "losses": np.broadcast_to((d < 0).sum(axis=1), urisk.shape),
        "loss20": np.broadcast_to(((b > 0) & (-d > 0.2 * b)).sum(axis=1), urisk.shape),
    }


def zrisk_numpy(X: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """ZRisk of every system (columns) at every α (rows), every system a baseline (SIGIR 2016, eq.
    4–6): the residuals z_ij once, their positive and negative sums, then each α."""
    S, T = X.sum(axis=1), X.sum(axis=0)
    e = S[:, None] * T / S.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(e > 0, (X - e) / np.sqrt(e), 0.0)
    a = 1.0 + np.asarray(alphas, dtype=np.float64)[:, None]
    return np.maximum(z, 0).sum(axis=1) + a * np.minimum(z, 0).sum(axis=1)


def georisk_numpy(X: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """GeoRisk = sqrt((S_i/c) Φ(ZRisk_i/c)) (SIGIR 2016, eq. 7) from :func:`zrisk_numpy`."""
    c = X.shape[1]
    return np.sqrt(X.sum(axis=1) / c * ndtr(zrisk_numpy(X, alphas) / c))


def long_table_pandas(path: str, alphas: np.ndarray) -> pd.DataFrame:
    """URisk and TRisk against the per-topic MEAN (SIGIR 2014, eq. 3–12) and ZRisk with every system
    a baseline (SIGIR 2016, eq. 4–6) of every system of a long (system, topic, score) Parquet table,
    with pandas: read the table, ``groupby`` per topic for the MEAN and the column totals, per
    system for the row totals, the sums and second moments of δ⁺ and δ⁻ and the residuals' sums,
    then each α."""
    df = pd.read_parquet(path, columns=["system", "topic", "score"])
    by_topic = df.groupby("topic")["score"]
    d = df["score"] - by_topic.transform("mean")
    S = df.groupby("system")["score"].transform("sum")
    e = S * by_topic.transform("sum") / df["score"].sum()
    z = ((df["score"] - e) / np.sqrt(e)).where(e > 0, 0.0)
    parts = pd.DataFrame({"pos": d.clip(lower=0.0), "neg": d.clip(upper=0.0), "system": df["system"]})
    parts["pn"] = parts["pos"] * parts["neg"]
    parts["zp"], parts["zn"] = z.clip(lower=0.0), z.clip(upper=0.0)
    g = parts.groupby("system", sort=False)
    mean, var, n = g[["pos", "neg"]].mean(), g[["pos", "neg"]].var(), g["pos"].size()
    cov = (g["pn"].sum() - n * mean["pos"] * mean["neg"]) / (n - 1)
    zsum = g[["zp", "zn"]].sum()
    rows = []
    for alpha in alphas:
        k = 1.0 + alpha
        urisk = mean["pos"] + k * mean["neg"]
        se = np.sqrt((var["pos"] + k * k * var["neg"] + 2 * k * cov) / n)
        zrisk = zsum["zp"] + k * zsum["zn"]
        rows.append(pd.DataFrame({"alpha": alpha, "urisk": urisk, "trisk": urisk / se, "zrisk": zrisk}))
    return pd.concat(rows)


# --------------------------------------------------------------------------------------------------
# Report and analyses: rank correlations, bias study
# --------------------------------------------------------------------------------------------------

__all__ = ["np"]

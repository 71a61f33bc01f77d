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


def bootstrap_intervals(
    X: np.ndarray,
    base: np.ndarray,
    alphas: np.ndarray,
    n_resamples: int,
    seed: int,
    confidence_level: float = 0.95,
    batch: int = 1000,
) -> dict[str, np.ndarray]:
    """Percentile intervals of URisk, TRisk, ZRisk and GeoRisk of every system (rows of ``X``, r × c)
    at every α over bootstrap resamples of the topics: {measure: (2, k, r) bounds}.

    Indices drawn as :func:`scipy.stats.bootstrap` draws them, ``batch`` resamples at a time and
    turned into topic counts W (b × c); the statistics of the whole batch at once: URisk and TRisk
    from the weighted sums of x(α) and x(α)² (matrix products), ZRisk and GeoRisk from the
    chi-square matrix of every resample (b × r × c); ``np.quantile`` at the end.
    """
    from scipy.special import ndtr

    rng = np.random.default_rng(seed)
    r, c = X.shape
    d = X - base
    x = np.where(d >= 0, d, (1 + alphas[:, None, None]) * d).reshape(-1, c)  # (k·r) × c
    T = X.sum(axis=0)
    f = 1 + alphas[:, None, None]
    out: dict[str, list[np.ndarray]] = {m: [] for m in ("urisk", "trisk", "zrisk", "georisk")}
    for start in range(0, n_resamples, batch):
        b = min(batch, n_resamples - start)
        idx = rng.integers(0, c, (b, c))
        W = np.zeros((b, c))
        np.add.at(W, (np.arange(b)[:, None], idx), 1.0)
        u = (x @ W.T / c).reshape(len(alphas), r, b)
        var = ((x**2 @ W.T).reshape(len(alphas), r, b) - c * u**2) / (c - 1)
        out["urisk"].append(u)
        out["trisk"].append(u / np.sqrt(var / c))
        S = W @ X.T  # b × r
        e = S[:, :, None] * T / (W @ T)[:, None, None]  # b × r × c expected values
        z = np.divide(X - e, np.sqrt(e), out=np.zeros_like(e), where=e > 0)
        zp = (np.maximum(z, 0) @ W[:, :, None])[:, :, 0]  # b × r, each topic counted w_j times
        zn = (np.minimum(z, 0) @ W[:, :, None])[:, :, 0]
        zr = (zp + f * zn).transpose(0, 2, 1)  # k × r × b
        out["zrisk"].append(zr)
        out["georisk"].append(np.sqrt(S.T / c * ndtr(zr / c)))
    tail = (1 - confidence_level) / 2
    return {m: np.quantile(np.concatenate(v, axis=2), [tail, 1 - tail], axis=2) for m, v in out.items()}


# --------------------------------------------------------------------------------------------------
# Permutation (sign-flip) test and max-T table
# --------------------------------------------------------------------------------------------------


def permutation_maxt(
    v: np.ndarray, alphas: np.ndarray, n: int, seed: int, batch: int = 1000
) -> tuple[np.ndarray, np.ndarray]:
    """Sign-flip p-values of URisk(α) of every system against the MEAN baseline and every α, and
    their single-step max-T adjustment (Westfall & Young, 1993): per batch of resamples, random
    signs (``rng.integers``), one matrix product with every (α, system) cell, the counts."""
    rng = np.random.default_rng(seed)
    d = v - v.mean(axis=0)
    cells = np.concatenate([np.where(d >= 0, d, (1 + a) * d) for a in alphas])  # (k·r) × c
    c = cells.shape[1]
    scale = 1 / np.sqrt(c * (cells**2).sum(axis=1))
    obs = np.abs(cells.sum(axis=1)) * scale - 1e-12
    count = np.zeros(len(cells))
    maxima = []
    for start in range(0, n, batch):
        eps = rng.integers(0, 2, (min(batch, n - start), c)) * 2.0 - 1.0
        u = np.abs(eps @ cells.T) * scale
        count += (u >= obs).sum(axis=0)
        maxima.append(u.max(axis=1))
    top = np.sort(np.concatenate(maxima))
    count_max = n - np.searchsorted(top, obs)
    return (1 + count) / (1 + n), (1 + count_max) / (1 + n)


# --------------------------------------------------------------------------------------------------
# Randomised Tukey HSD
# --------------------------------------------------------------------------------------------------


def tukey_hsd(v: np.ndarray, n: int, seed: int, batch: int = 250) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise and family-wise p-values of the randomised Tukey HSD (Carterette, TOIS 2012) of the
    systems (rows of ``v``): per batch of resamples, ``rng.permuted`` shuffles every topic across
    the systems of a (batch, systems, topics) copy, then the means, the pairs' differences and
    the ranges."""
    rng = np.random.default_rng(seed)
    r, c = v.shape
    m = v.mean(axis=1)
    iu, ku = np.triu_indices(r, 1)
    obs = np.abs(m[iu] - m[ku]) - 1e-12
    count = np.zeros(iu.size)
    ranges = []
    for start in range(0, n, batch):
        shuffled = rng.permuted(np.broadcast_to(v, (min(batch, n - start), r, c)), axis=1)
        means = shuffled.mean(axis=2)
        count += (np.abs(means[:, iu] - means[:, ku]) >= obs).sum(axis=0)
        ranges.append(means.max(axis=1) - means.min(axis=1))
    count_range = n - np.searchsorted(np.sort(np.concatenate(ranges)), obs)
    return (1 + count) / (1 + n), (1 + count_range) / (1 + n)


# --------------------------------------------------------------------------------------------------
# Evaluation of runs
# --------------------------------------------------------------------------------------------------


def ir_measures_per_topic(
    qrels: str, runs: list[str], measures: list[str]
) -> dict[tuple[str, str, str], float]:
    """ir_measures' own route: the qrels read once, then ``read_trec_run`` + ``iter_calc`` per run
    file (``calc_aggregate`` does the same work and averages); ``{(run file, topic, measure): value}``."""
    import ir_measures

    parsed = [ir_measures.parse_measure(m) for m in measures]
    judged = list(ir_measures.read_trec_qrels(qrels))
    return {
        (run, m.query_id, str(m.measure)): m.value
        for run in runs
        for m in ir_measures.iter_calc(parsed, judged, ir_measures.read_trec_run(run))
    }


def zcat_lines(runs: list[str]) -> int:
    """The floor every route pays, in one process: ``zcat RUNS | wc -l`` (decompressing the runs)."""
    import shlex
    import subprocess

    command = f"zcat {' '.join(map(shlex.quote, runs))} | wc -l"
    return int(subprocess.run(command, shell=True, check=True, capture_output=True, text=True).stdout)


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


def pandas_read_pivot(path: str, wide: bool = False) -> tuple[int, int]:
    """A score matrix from a Parquet score table the way pandas users build it: ``read_parquet``,
    then ``pivot`` of a long table (system, topic, score) into systems × topics, or the ``system``
    column as the index of a wide one.  Returns the matrix's shape."""
    import pandas as pd

    frame = pd.read_parquet(path)
    if wide:
        matrix = frame.set_index("system").astype(np.float64)
    else:
        matrix = frame.pivot(index="system", columns="topic", values="score")
    return matrix.shape


def kendalltau_per_column(reference: np.ndarray, evaluated: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of every column of ``evaluated`` against ``reference``: one
    ``scipy.stats.kendalltau`` call per column."""
    from scipy import stats

    return np.array([stats.kendalltau(reference, column).statistic for column in evaluated.T])


def pca_default_threads(runs: np.ndarray, components: int | None) -> np.ndarray:
    """Singular values of the topic-centred run × topic matrix with the BLAS's own thread count:
    the economy SVD (``numpy.linalg.svd``), or ``scipy.sparse.linalg.svds`` for the leading
    ``components``."""
    centred = runs - runs.mean(axis=0)
    if components is None:
        return np.linalg.svd(centred, compute_uv=True, full_matrices=False)[1]
    from scipy.sparse.linalg import svds

    v0 = np.full(min(centred.shape), 1.0 / np.sqrt(min(centred.shape)))
    return svds(centred, k=components, v0=v0)[1]


__all__ = ["np"]

"""Fair references for the benchmarks: what a good engineer writes without riskeval.

Each reference is short and idiomatic (batched numpy vectorised over resamples, scipy, ir_measures,
a numpy pass), computes the same statistic as the riskeval call it is timed against, and is never
a Python loop per resample or per item.  The benchmarks print riskeval's time as a ratio against
these in the same run.
"""

from __future__ import annotations

import numpy as np

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

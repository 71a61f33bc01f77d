"""Baselines of the risk-sensitive objectives: per-query NDCG@k of one or several systems (Dinçer,
Macdonald & Ounis, SIGIR 2014, §6; SIGIR 2016, §6).

A baseline is given as
- a feature index (or a column name when ``X`` is a DataFrame): the ranking of each query's
  documents by that feature (descending, ties in input order) is scored with NDCG@k, as the
  papers do with MSLR's BM25 feature;
- a per-query vector of effectiveness values (length Q);
- a systems × queries matrix of effectiveness values (T*-FARO, GeoRisk).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from riskeval.errors import RiskevalError


def feature_column(X: Any, feature: Any) -> np.ndarray:
    """One feature of ``X`` (dense array, scipy sparse matrix or DataFrame) as a float64 vector."""
    n_features = X.shape[1]
    if isinstance(feature, str):
        columns = getattr(X, "columns", None)
        if columns is None or feature not in columns:
            raise RiskevalError(
                f"Baseline feature {feature!r} is not a column of X"
                + ("" if columns is None else f" (columns: {list(columns)[:10]}...)")
                + "; give a feature index instead."
            )
        return np.asarray(X[feature], dtype=np.float64)
    if not isinstance(feature, numbers.Integral) or isinstance(feature, bool):
        raise RiskevalError(f"A baseline feature must be an integer index; got {feature!r}.")
    j = int(feature)
    if not 0 <= j < n_features:
        raise RiskevalError(
            f"Baseline feature index {j} is out of range: X has {n_features} features (0...{n_features - 1})."
        )
    if hasattr(X, "iloc"):
        return np.asarray(X.iloc[:, j], dtype=np.float64)
    if hasattr(X, "tocsc"):
        return np.asarray(X[:, [j]].toarray(), dtype=np.float64).ravel()
    return np.ascontiguousarray(np.asarray(X)[:, j], dtype=np.float64)


def ranking_ndcg(
    scores: np.ndarray, labels: np.ndarray, bounds: np.ndarray, k: int, gains: np.ndarray
) -> np.ndarray:
    """Per-query NDCG@k of the ranking by ``scores`` (see :func:`riskeval.ltr.kernels.ndcg_at_k`)."""
    from riskeval.ltr import kernels

    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if not np.isfinite(scores).all():
        raise RiskevalError("Scores to rank by must be finite numbers (no NaN or infinity).")
    return kernels.ndcg_at_k(scores, labels, bounds, int(k), gains)


def baseline_matrix(
    baseline: Any,
    X: Any,
    labels: np.ndarray,
    bounds: np.ndarray,
    *,
    k: int,
    gains: np.ndarray,
) -> np.ndarray:
    """The baseline as a float64 (systems × queries) matrix of per-query effectiveness."""
    nq = bounds.shape[0] - 1
    if isinstance(baseline, (numbers.Integral, str)) and not isinstance(baseline, bool):
        column = feature_column(X, baseline)
        return ranking_ndcg(column, labels, bounds, k, gains)[None, :]
    values = baseline.to_numpy() if hasattr(baseline, "to_numpy") else baseline
    try:
        B = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(
            "A baseline must be a feature index, a per-query vector or a systems × queries "
            f"matrix of numbers; got {type(baseline).__name__}."
        ) from None
    if B.ndim == 1:
        B = B[None, :]
    if B.ndim != 2 or B.shape[1] != nq or B.shape[0] == 0:
        raise RiskevalError(
            f"A baseline vector must have one value per training query ({nq}), a baseline matrix "
            f"shape (systems, {nq}); got shape {np.shape(values)}."
        )
    if not np.isfinite(B).all():
        raise RiskevalError("Baseline effectiveness values must be finite (no NaN or infinity).")
    return np.ascontiguousarray(B)

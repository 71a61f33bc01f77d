"""Mean–variance evaluation over query variations: the numeric kernels.

Zuccon, Palotti & Hanbury, "Query Variations and their Effect on Comparing Information
Retrieval Systems" (CIKM 2016), eq. 2–9.  Effectiveness is held per system as an ``N × M`` array
``R[i, k]``: the score of the query that user ``k`` issued for topic ``i``.  Every function here
works on a stack of such arrays (shape ``(..., N, M)``, typically ``(systems, N, M)``), takes
validated numpy arrays and does no I/O; topic weights arrive already normalised to sum to 1
(:func:`normalise_weights`).

A query issued by several users is a column repeated once per user, so its score counts once per
user (eq. 2's ``p(r_k^i)``); nothing here needs to know about it.
"""

from __future__ import annotations

import numpy as np

from riskeval.errors import RiskevalError


def normalise_weights(weights: np.ndarray | None, n: int, *, name: str = "weights") -> np.ndarray:
    """Topic weights ``w_i`` (the paper's wealth of investment) normalised to sum to 1.

    ``None`` gives uniform weights ``1/n``.  Negative, non-finite or all-zero weights are refused.
    """
    if weights is None:
        return np.full(n, 1.0 / n)
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise RiskevalError(f"{name} must hold one weight per topic ({n}); got shape {w.shape}.")
    if not np.isfinite(w).all() or (w < 0).any():
        raise RiskevalError(f"{name} must be finite and >= 0; got {w.tolist()[:10]}.")
    total = w.sum()
    if total <= 0:
        raise RiskevalError(f"{name} must not all be zero.")
    return w / total


def _check_ddof(ddof: int, count: int, what: str) -> None:
    if ddof not in (0, 1):
        raise RiskevalError(f"The 'ddof' parameter must be 0 or 1; got {ddof!r}.")
    if count - ddof <= 0:
        raise RiskevalError(
            f"A variance with ddof={ddof} needs more than {ddof} {what}; got {count}. "
            "Use ddof=0 or provide more observations."
        )


def general_moments(R: np.ndarray, weights: np.ndarray, ddof: int = 1):
    """Portfolio mean and variance of the general framework (eq. 2–4).

    ``μ = Σ_i w_i mean_k R[i, k]`` and ``σ² = Σ_i Σ_j w_i w_j cov(R_i, R_j)``, the covariance of
    topics ``i`` and ``j`` taken across the ``M`` users with ``ddof``.  Because the sample
    covariance is bilinear, ``σ²`` equals the variance across users of each user's weighted mean
    ``y_k = Σ_i w_i R[i, k]`` (same ``ddof``), which is how it is computed: one product, O(N·M),
    no N×N matrix.  Returns ``(mean, variance)`` over the leading axes of ``R`` (shape
    ``(..., N, M)``).
    """
    _check_ddof(ddof, R.shape[-1], "variants per topic (users)")
    per_user = np.matmul(weights, R)  # (..., M)
    return per_user.mean(axis=-1), per_user.var(axis=-1, ddof=ddof)


def topic_variance(R: np.ndarray, weights: np.ndarray, ddof: int = 1) -> np.ndarray:
    """The diagonal part of eq. 3, ``Σ_i w_i² var(R_i)`` (variance across users within each topic);
    the rest of ``σ²`` is the covariance part ``Σ_{i≠j} w_i w_j cov(R_i, R_j)``."""
    _check_ddof(ddof, R.shape[-1], "variants per topic (users)")
    return R.var(axis=-1, ddof=ddof) @ weights**2


def intra_topic_moments(R: np.ndarray, ddof: int = 1):
    """Per-topic mean and variance across users: the intra-topic framework (eq. 8).

    ``R`` has shape ``(..., N, M)``; missing variants may be NaN (topics may then have different
    numbers of variants; each topic needs more than ``ddof`` of them).  Returns ``(mean, variance)``
    of shape ``(..., N)``.  Eq. 8 scales the mean by ``w_1`` and the variance by ``w_1²``; with one
    topic in the comparison that scaling does not change the ranking, so it is left out.
    """
    counts = np.sum(~np.isnan(R), axis=-1)
    low = counts.min() if counts.size else 0
    _check_ddof(ddof, int(low), "variants in every topic")
    return np.nanmean(R, axis=-1), np.nanvar(R, axis=-1, ddof=ddof)


def inter_topic_moments(r: np.ndarray, weights: np.ndarray, ddof: int = 1):
    """Mean and variance over topics of one query per topic: modified inter-topic form (eq. 9).

    ``r`` has shape ``(..., N)``.  ``μ = Σ_i w_i r_i`` and ``σ² = Σ_i w_i (r_i − μ)² / (1 − ddof·Σ_i
    w_i²)``: with ``ddof=0`` the weighted population variance, with ``ddof=1`` the unbiased
    estimate for reliability weights (``numpy.cov``'s ``aweights`` convention), which for uniform
    weights is the ordinary sample variance over topics.
    """
    n = r.shape[-1]
    _check_ddof(ddof, n, "topics")
    mean = r @ weights
    dev2 = (r - mean[..., None]) ** 2
    return mean, (dev2 @ weights) / (1.0 - ddof * np.sum(weights**2))


def portfolio_value(mean: np.ndarray, variance: np.ndarray, alpha) -> np.ndarray:
    """``O = μ − α σ²`` (eq. 5) for every system and every ``alpha``.

    ``alpha`` is a scalar (result shaped like ``mean``) or a 1-D grid (result ``mean.shape +
    (len(alpha),)``): one pass per system, O(1) per α.
    """
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim == 0:
        return mean - a * variance
    return mean[..., None] - variance[..., None] * a


def swap_alpha(mean_a, variance_a, mean_b, variance_b) -> np.ndarray:
    """The α at which systems A and B exchange places: ``(μ_A − μ_B) / (σ²_A − σ²_B)``.

    ``O_A − O_B = (μ_A − μ_B) − α (σ²_A − σ²_B)`` changes sign there.  Equal variances give
    ``±inf`` (they never swap) or NaN (identical mean and variance: tied for every α).
    """
    dm = np.asarray(mean_a, dtype=np.float64) - mean_b
    dv = np.asarray(variance_a, dtype=np.float64) - variance_b
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return dm / dv

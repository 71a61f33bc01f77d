"""Bias–variance decomposition of effectiveness, robustness index and GMAP.

Zhang, Song, Wang & Hou, "Bias-Variance Decomposition of IR Evaluation" (SIGIR 2013), §2.
Inputs are ``(r, c)`` arrays of per-topic scores (AP or any measure in [0, 1]): rows systems,
columns topics; expectations are over topics, uniform, so every variance is the population
variance (ddof = 0), as in the paper's Table 1 (``[(0.3 − 0.2)² + (0.1 − 0.2)²]/2 = 0.01``).
"""

from __future__ import annotations

import numpy as np

# trec_eval's MIN_GEO_MEAN: per-topic scores are floored here before the geometric mean (gm_map).
GMAP_FLOOR = 1e-5


def bias_variance_ap(scores: np.ndarray, target_mean: float):
    """AP form (eq. 1–3): ``Bias = MAP_T − MAP``, ``Var = Var(AP)`` and
    ``Bias² + Var = E(AP − MAP_T)²``.

    Returns ``(bias, variance, total)``, each of shape ``(r,)``.
    """
    mean = scores.mean(axis=1)
    bias = target_mean - mean
    variance = scores.var(axis=1)
    return bias, variance, bias**2 + variance


def bias_variance_delta(scores: np.ndarray, target: np.ndarray):
    """Δ form (eq. 4–7): ``Δ_j = AP_T,j − AP_j``, ``Bias(Δ) = E(Δ)``, ``Var(Δ)`` and
    ``Bias² + Var = E(AP − AP_T)²``.

    ``target`` holds one target score per topic (shape ``(c,)``).  Returns ``(bias, variance,
    total)``, each of shape ``(r,)``.
    """
    delta = target[None, :] - scores
    bias = delta.mean(axis=1)
    variance = delta.var(axis=1)
    return bias, variance, bias**2 + variance


def error_to_perfect(scores: np.ndarray) -> np.ndarray:
    """``E(AP − 1)² = (1 − MAP)² + Var(AP)`` (eq. 9): the error against a perfect system."""
    return (1.0 - scores.mean(axis=1)) ** 2 + scores.var(axis=1)


def robustness_counts(scores: np.ndarray, reference: np.ndarray):
    """Topics improved and hurt against a reference model (ties count as neither).

    Returns ``(n_plus, n_minus, robustness_index, worse_fraction)`` over the rows of ``scores``:
    ``RI = (n₊ − n₋)/c`` (Collins-Thompson 2009, quoted by Zhang et al. 2013 §1) and ``<Init =
    n₋/c``, the fraction of topics worse than the reference (Zighelnic & Kurland 2008).
    """
    c = scores.shape[1]
    diff = scores - reference[None, :]
    n_plus = np.count_nonzero(diff > 0, axis=1)
    n_minus = np.count_nonzero(diff < 0, axis=1)
    return n_plus, n_minus, (n_plus - n_minus) / c, n_minus / c


def gmap(scores: np.ndarray, floor: float = GMAP_FLOOR) -> np.ndarray:
    """Geometric mean over topics of ``max(score, floor)`` per row, as trec_eval's ``gm_map``
    (``exp(mean(log(max(AP, 1e-5))))``, Robertson 2006)."""
    return np.exp(np.log(np.maximum(scores, floor)).mean(axis=1))

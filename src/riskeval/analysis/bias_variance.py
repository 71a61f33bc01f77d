"""Bias–variance evaluation, robustness index and GMAP of a score matrix.

Zhang, Song, Wang & Hou, "Bias-Variance Decomposition of IR Evaluation" (SIGIR 2013), §2.
The total error ``Bias² + Var`` rates effectiveness (bias against a target) and stability (variance
over topics) in one number; smaller is better.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from riskeval.core import bias_variance as kernels
from riskeval.errors import RiskevalError
from riskeval.model.matrix import as_matrix
from riskeval.options import BIAS_VARIANCE_FORMS, check_option

TARGET_KEYWORDS = ("perfect", "best")


class BiasVarianceResult(NamedTuple):
    """Bias, variance and total error of each system (rows of the input, in order).

    ``bias``, ``variance``, ``total`` (= bias² + variance), ``mean`` (MAP), ``error_to_perfect``
    (``E(AP − 1)² = (1 − MAP)² + Var(AP)``, eq. 9) are arrays with one value per system;
    ``target_mean`` is ``MAP_T``; ``form`` is ``"ap"`` (eq. 1–3) or ``"delta"`` (eq. 4–7);
    ``target`` says which target was used.
    """

    bias: np.ndarray
    variance: np.ndarray
    total: np.ndarray
    mean: np.ndarray
    error_to_perfect: np.ndarray
    target_mean: float
    systems: list[str]
    form: str
    target: str

    def to_frame(self) -> pd.DataFrame:
        """One row per system: mean, bias, bias2, variance, total, error_to_perfect."""
        return pd.DataFrame(
            {
                "mean": self.mean,
                "bias": self.bias,
                "bias2": self.bias**2,
                "variance": self.variance,
                "total": self.total,
                "error_to_perfect": self.error_to_perfect,
            },
            index=pd.Index(self.systems, name="system"),
        )


def bias_variance(scores, target="perfect", *, form: str = "ap", best_of=None) -> BiasVarianceResult:
    """Bias–variance decomposition of each system's per-topic scores (Zhang et al., SIGIR 2013, eq. 1–9).

    Parameters
    ----------
    scores : score matrix or 2-D array-like
        Rows systems, columns topics, values AP (or another measure in [0, 1]).
    target :
        The upper bound the systems are measured against:

        - ``"perfect"`` (default): 1 on every topic; then ``total`` is ``E(AP − 1)²``;
        - ``"best"``: per topic, the best score of the systems in ``best_of`` (all rows by
          default) — a virtual state of the art;
        - a system label (a row of ``scores``): that system's per-topic scores;
        - a sequence with one target score per topic (e.g. ``[.7, .2]``);
        - a single number: the target mean ``MAP_T`` only (AP form only).

        The keywords win over a system with the same label.
    form : {"ap", "delta"}
        ``"ap"``: ``Bias = MAP_T − MAP``, ``Var = Var(AP)``, total ``E(AP − MAP_T)²`` (eq. 1–3,
        Table 1).  ``"delta"``: on ``Δ = AP_T − AP``, total ``E(AP − AP_T)²`` (eq. 4–7, Table 2);
        needs a per-topic target.
    best_of : list of system labels, optional
        The systems whose per-topic maximum is the ``"best"`` target.

    Notes
    -----
    Variances are over topics, population (ddof = 0), as in the paper.
    """
    check_option(form, BIAS_VARIANCE_FORMS, "bias_variance", "form")
    matrix = as_matrix(scores, name="scores")
    values = matrix.to_numpy()
    per_topic, label = _target(matrix, target, best_of)
    if per_topic is None:
        if form == "delta":
            raise RiskevalError(
                "form='delta' needs a per-topic target (Δ = AP_T − AP per topic); a target mean "
                "only allows form='ap'."
            )
        target_mean = float(target)
    else:
        target_mean = float(per_topic.mean())
    if form == "ap":
        bias, var, total = kernels.bias_variance_ap(values, target_mean)
    else:
        assert per_topic is not None  # form='delta' without a per-topic target was refused above
        bias, var, total = kernels.bias_variance_delta(values, per_topic)
    return BiasVarianceResult(
        bias,
        var,
        total,
        values.mean(axis=1),
        kernels.error_to_perfect(values),
        target_mean,
        list(matrix.index),
        form,
        label,
    )


def _target(matrix: pd.DataFrame, target, best_of) -> tuple[np.ndarray | None, str]:
    """(per-topic target or None for a target mean only, description)."""
    if best_of is not None and not (isinstance(target, str) and target == "best"):
        raise RiskevalError("The 'best_of' parameter applies to target='best' only.")
    if isinstance(target, str):
        if target == "perfect":
            return np.ones(matrix.shape[1]), "perfect"
        if target == "best":
            rows = matrix.index if best_of is None else pd.Index([str(s) for s in best_of])
            unknown = rows.difference(matrix.index)
            if len(unknown) or len(rows) == 0:
                raise RiskevalError(
                    f"best_of must name systems of the matrix; unknown: {list(unknown)[:10]}."
                )
            return matrix.loc[rows].max(axis=0).to_numpy(), "best"
        if target in matrix.index:
            return matrix.loc[target].to_numpy(), f"system {target}"
        raise RiskevalError(
            f"target {target!r} is neither 'perfect', 'best' nor a system of the matrix "
            f"(systems: {list(matrix.index)[:10]})."
        )
    if isinstance(target, pd.Series):  # aligned by topic label
        series = target.set_axis(target.index.map(str))
        absent = matrix.columns.difference(series.index)
        if len(absent):
            raise RiskevalError(f"The target has no score for topic(s) {list(absent)[:10]}.")
        target = series.reindex(matrix.columns)
    try:
        arr = np.asarray(target, dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(f"The target must be numeric or a keyword; got {target!r}.") from None
    if arr.ndim == 0:
        if not np.isfinite(arr):
            raise RiskevalError(f"The target mean must be finite; got {target!r}.")
        return None, "target mean"
    if arr.shape != (matrix.shape[1],) or not np.isfinite(arr).all():
        raise RiskevalError(
            f"A per-topic target needs one finite score per topic ({matrix.shape[1]}); got shape {arr.shape}."
        )
    return arr, "per-topic target"


class RobustnessResult(NamedTuple):
    """Robustness of each system against a reference model (Zhang et al. 2013, §1, Table 1).

    ``robustness_index = (n₊ − n₋)/c``, ``below_init`` (<Init) ``= n₋/c``, with ``n_better``
    (``n₊``) and ``n_worse`` (``n₋``) the topics improved and hurt; ties count as neither.
    """

    robustness_index: np.ndarray
    below_init: np.ndarray
    n_better: np.ndarray
    n_worse: np.ndarray
    systems: list[str]
    reference: str

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "robustness_index": self.robustness_index,
                "below_init": self.below_init,
                "n_better": self.n_better,
                "n_worse": self.n_worse,
            },
            index=pd.Index(self.systems, name="system"),
        )


def robustness_index(scores, reference) -> RobustnessResult:
    """Robustness index and <Init of every system against ``reference``, a system label (a row of
    ``scores``, e.g. the original query model) or a per-topic score sequence."""
    matrix = as_matrix(scores, name="scores")
    if isinstance(reference, str):
        if reference not in matrix.index:
            raise RiskevalError(f"Reference system {reference!r} is not in the matrix.")
        ref, label = matrix.loc[reference].to_numpy(), reference
    else:
        ref, label = np.asarray(reference, dtype=np.float64), "per-topic reference"
        if ref.shape != (matrix.shape[1],):
            raise RiskevalError(
                f"The reference needs one score per topic ({matrix.shape[1]}); got shape {ref.shape}."
            )
    n_plus, n_minus, ri, below = kernels.robustness_counts(matrix.to_numpy(), ref)
    return RobustnessResult(ri, below, n_plus, n_minus, list(matrix.index), label)


def gmap(scores, floor: float = kernels.GMAP_FLOOR) -> pd.Series:
    """Geometric mean of per-topic scores, each floored at ``floor`` (trec_eval's ``gm_map``:
    ``exp(mean(log(max(AP, 1e-5))))``).  Returns a Series indexed by system."""
    if not floor > 0:
        raise RiskevalError(f"The 'floor' parameter must be > 0; got {floor!r}.")
    matrix = as_matrix(scores, name="scores")
    return pd.Series(kernels.gmap(matrix.to_numpy(), floor), index=matrix.index, name="gmap")

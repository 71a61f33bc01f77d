"""Train a risk-sensitive LambdaMART model with LightGBM."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from riskeval.errors import RiskevalError
from riskeval.ltr.baselines import baseline_matrix
from riskeval.ltr.groups import check_labels, label_gains, query_bounds
from riskeval.ltr.lightgbm_params import check_lightgbm_params
from riskeval.ltr.objectives import OBJECTIVES, RiskObjective, lightgbm_threads
from riskeval.ltr.options import check_ltr_options
from riskeval.options import check_alpha

if TYPE_CHECKING:
    import lightgbm

_OBJECTIVE_ALIASES = ("objective", "objective_type", "app", "application", "loss")


def _flag(value: Any, name: str) -> bool:
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "+", "-"):
        return value.lower() in ("true", "1", "+")
    if isinstance(value, (bool, np.bool_, int)):
        return bool(value)
    raise RiskevalError(f"The LightGBM parameter '{name}' must be true or false. Got {value!r}.")


def _number(params: Mapping, name: str, default: float, *, integer: bool = False) -> float:
    """A numeric LightGBM parameter (a number or its text), else a :class:`RiskevalError`."""
    value = params.get(name, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or (integer and number != int(number)):
        kind = "an integer" if integer else "a finite number"
        raise RiskevalError(f"The LightGBM parameter '{name}' must be {kind}. Got {value!r}.")
    return number


def make_objective(
    params: dict,
    X: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    objective: str = "lambdarank",
    alpha: float = 0.0,
    baseline: Any = None,
    k: int = 10,
    sx_update: str = "first_tree",
    georisk_update: str = "first_order",
    variant: str = "paper",
) -> RiskObjective:
    """The custom objective :func:`train` passes to LightGBM, built from the same arguments.

    LambdaMART's parameters are LightGBM's own, read from ``params`` with LightGBM's defaults:
    ``lambdarank_truncation_level`` (30), ``lambdarank_norm`` (true), ``sigmoid`` (1.0),
    ``label_gain`` (``2^l − 1``) and ``num_threads`` (used for the objective's kernels too).
    """
    objective, sx_update, georisk_update, variant = check_ltr_options(
        "train", objective=objective, sx_update=sx_update, georisk_update=georisk_update, variant=variant
    )
    alpha = check_alpha(alpha, "train")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise RiskevalError(f"The 'k' parameter of train (NDCG@k) must be an integer >= 1. Got {k!r}.")
    if not isinstance(params, Mapping):
        raise RiskevalError(f"params must be a dict of LightGBM parameters; got {type(params).__name__}.")
    check_lightgbm_params(params, "train")
    gains = label_gains(params.get("label_gain"))
    labels = check_labels(y, gains)
    if getattr(X, "ndim", 2) != 2 or not hasattr(X, "shape"):
        raise RiskevalError(
            "X must be a 2-D array, scipy sparse matrix or DataFrame of features (documents × "
            f"features); got {type(X).__name__}."
        )
    if X.shape[0] != labels.shape[0]:
        raise RiskevalError(f"X has {X.shape[0]} rows but y has {labels.shape[0]} labels.")
    bounds = query_bounds(group, qid, n_docs=labels.shape[0])
    truncation = int(_number(params, "lambdarank_truncation_level", 30, integer=True))
    if truncation < 1:
        raise RiskevalError(
            f"The LightGBM parameter 'lambdarank_truncation_level' must be >= 1. Got {truncation}."
        )
    info = OBJECTIVES[objective]
    if info.baseline == "none":
        if baseline is not None:
            raise RiskevalError("The lambdarank objective takes no baseline (baseline=None).")
        baselines = None
    else:
        if baseline is None:
            raise RiskevalError(
                f"The {objective} objective needs a baseline: a feature index, a per-query vector "
                "or a systems × queries matrix."
            )
        baselines = baseline_matrix(baseline, X, labels, bounds, k=k, gains=gains)
        if info.baseline == "single" and baselines.shape[0] != 1:
            raise RiskevalError(
                f"The {objective} objective takes one baseline system; got a matrix of "
                f"{baselines.shape[0]}. Use tstar_faro (their per-query mean) or georisk."
            )
        if info.baseline == "systems" and (baselines < 0).any():
            raise RiskevalError(
                "GeoRisk needs baseline effectiveness values >= 0 (its expected values S·T_q/N must be "
                "non-negative; Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4)."
            )
    return RiskObjective(
        objective,
        labels,
        bounds,
        alpha=alpha,
        baselines=baselines,
        k=int(k),
        truncation_level=truncation,
        norm=_flag(params.get("lambdarank_norm", True), "lambdarank_norm"),
        sigmoid=_number(params, "sigmoid", 1.0),
        label_gain=gains,
        sx_update=sx_update,
        georisk_update=georisk_update,
        variant=variant,
        num_threads=lightgbm_threads(params),
    )


def train(
    params: dict,
    X: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    objective: str = "lambdarank",
    alpha: float = 0.0,
    baseline: Any = None,
    k: int = 10,
    sx_update: str = "first_tree",
    georisk_update: str = "first_order",
    variant: str = "paper",
    **kwargs: Any,
) -> lightgbm.Booster:
    """Train LambdaMART or one of its risk-sensitive variants with ``lightgbm.train``.

    Parameters
    ----------
    params : dict
        LightGBM parameters.  An ``objective`` in them is replaced by ``objective``; LambdaMART's
        own parameters (``lambdarank_truncation_level``, ``lambdarank_norm``, ``sigmoid``,
        ``label_gain``) and ``num_threads`` apply to the risk-sensitive objectives as to
        LightGBM's ``lambdarank``.  The numeric parameters of tree growth and boosting are checked
        first (:func:`riskeval.ltr.check_lightgbm_params`): ``num_leaves`` >= 2,
        counts >= 1, fractions in (0, 1], ``num_threads`` at most the CPUs available.
    X : array-like or scipy sparse matrix
        Features, one row per document, each query's documents contiguous.
    y : array-like
        Integer relevance labels.
    group, qid
        The queries: LightGBM group sizes (documents per query, in order) or one query id per
        document.  Give exactly one.
    objective : str
        One of :data:`riskeval.ltr.options.OBJECTIVE_NAMES` (LambdaMART, U-CRO, T-SARO, T-FARO,
        T*-FARO, GeoRisk), see :mod:`riskeval.ltr.objectives`.  At ``alpha = 0`` every objective trains
        the same model as LightGBM's ``lambdarank``.
    alpha : float
        Risk aversion α ≥ 0.
    baseline
        A feature index (or column name of a DataFrame ``X``) whose ranking is scored per query, a
        per-query vector of effectiveness, or a systems × queries matrix (T*-FARO: its mean;
        GeoRisk: every row).  Values are compared with the model's NDCG@k.
    k : int
        The cut-off of the NDCG@k that defines each query's effectiveness for the risk terms.
    sx_update : {"first_tree", "every_tree"}
        T-SARO/T-FARO/T*-FARO: when ``s_x``, the standard deviation of the risk-reward scores in
        ``TR_q = x_q / s_x`` (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 21), is estimated:
        ``"first_tree"`` from the model after the first boosting iteration, then kept (the paper,
        §6.3; the first iteration uses the starting model's), or ``"every_tree"``, re-estimated at
        every iteration.
    georisk_update : {"first_order", "shortcut"}
        GeoRisk: the swapped query exact and every other query to first order, or the paper's
        shortcut (only the swapped query's z recomputed).
    variant : {"paper", "jforests"}
        ``"paper"``: the papers' equations.  ``"jforests"``: U-CRO, T-SARO, T-FARO and T*-FARO as
        the authors' Jforests implementation (which ran the papers' experiments) computes them:
        ``TR_q = δ_q / s_x``; ``s_x`` estimated once, before the first tree, against a model scoring
        0 on every query; the model's NDCG@k taken as 0 during the first tree; the baseline crossing
        decided on the pair's own ``|ΔM|`` (untruncated discounts).  No effect on ``lambdarank``
        and ``georisk``; needs ``sx_update="first_tree"``.  See docs/ltr.md.
    **kwargs
        Passed to ``lightgbm.train`` (``num_boost_round``, ``valid_sets``, ``callbacks``, ...).

    Returns
    -------
    lightgbm.Booster
    """
    import lightgbm

    params = {key: value for key, value in params.items() if key not in _OBJECTIVE_ALIASES}
    fobj = make_objective(
        params,
        X,
        y,
        group,
        qid=qid,
        objective=objective,
        alpha=alpha,
        baseline=baseline,
        k=k,
        sx_update=sx_update,
        georisk_update=georisk_update,
        variant=variant,
    )
    params["objective"] = fobj
    dataset = lightgbm.Dataset(X, label=fobj.labels, group=np.diff(fobj.bounds))
    return lightgbm.train(params, dataset, **kwargs)

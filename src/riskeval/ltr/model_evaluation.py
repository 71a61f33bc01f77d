"""Learned models in the papers' terms (Dinçer, Macdonald & Ounis, SIGIR 2016, Table 7; SIGIR 2014,
Table 3).

Per model: mean NDCG@k, and against each baseline Reward (FReward), Risk (FRisk), Reward/Risk,
Wins, Losses, W/L and Loss>20%; with several baselines also their macro-average (each measure
computed against each baseline in turn, then averaged, as the bottom half of SIGIR 2016's Table 7).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from riskeval.core.paired import paired_sums, risk_reward_sums
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.ltr.baselines import feature_column, ranking_ndcg
from riskeval.ltr.groups import check_labels, label_gains, query_bounds

MEASURES = ("NDCG", "Reward", "Risk", "Reward/Risk", "Wins", "Losses", "W/L", "Loss>20%")
MACRO = "macro"


def ndcg_per_query(
    scores: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    k: int = 10,
    label_gain: Any = None,
) -> np.ndarray:
    """NDCG@k of each query for the ranking by ``scores`` (descending; ties keep input order).

    Gains ``2^l − 1`` (or ``label_gain``), discount ``1/log2(1 + rank)``, ideal DCG at k over the
    query's labels; a query without relevant documents scores 0.  Queries from ``group`` sizes or
    ``qid`` (see :func:`riskeval.ltr.train`).
    """
    gains = label_gains(label_gain)
    labels = check_labels(y, gains)
    bounds = query_bounds(group, qid, n_docs=labels.shape[0])
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError("scores must be numbers, one per document.") from None
    if scores.shape != labels.shape:
        raise RiskevalError(f"scores has shape {scores.shape} but there are {labels.shape[0]} labels.")
    return ranking_ndcg(scores, labels, bounds, k, gains)


def _as_systems(systems: Any, what: str) -> pd.DataFrame:
    """A mapping name → per-query vector, or a (systems × queries) DataFrame."""
    if isinstance(systems, pd.DataFrame):
        frame = systems.astype(np.float64)
    elif isinstance(systems, Mapping):
        if not systems:
            raise RiskevalError(f"Give at least one {what}.")
        try:
            rows = {str(name): np.asarray(v, dtype=np.float64).ravel() for name, v in systems.items()}
        except (TypeError, ValueError):
            raise RiskevalError(f"Every {what} must be a vector of per-query numbers.") from None
        sizes = {v.size for v in rows.values()}
        if len(sizes) != 1:
            raise RiskevalError(
                f"Every {what} must score the same queries; got vectors of lengths {sorted(sizes)}."
            )
        frame = pd.DataFrame.from_dict(rows, orient="index")
    else:
        raise RiskevalError(
            f"{what}s must be a mapping name → per-query scores or a DataFrame "
            f"(systems × queries); got {type(systems).__name__}."
        )
    if not np.isfinite(frame.to_numpy()).all():
        raise RiskevalError(f"{what} scores must be finite numbers.")
    return frame


@dataclass(frozen=True)
class RiskProfile:
    """Table 7 of Dinçer, Macdonald & Ounis (SIGIR 2016): every model against every baseline, and
    their macro-average.

    ``long`` is tidy: one row per (model, baseline, measure) with ``value``; ``baseline`` is a
    baseline's name or ``"macro"``.  :meth:`to_frame` renders it wide, one block per baseline.
    """

    long: pd.DataFrame
    baselines: tuple[str, ...]

    def to_frame(self, baseline: str | None = None) -> pd.DataFrame:
        """Wide table: rows (baseline, model), columns the measures of Table 7.  ``baseline``
        selects one block (a baseline name or ``"macro"``)."""
        frame = self.long
        if baseline is not None:
            frame = frame[frame["baseline"] == baseline]
        wide = frame.pivot_table(index=["baseline", "model"], columns="measure", values="value", sort=False)
        return wide.reindex(columns=list(MEASURES))


def risk_profile(models: Any, baselines: Any) -> RiskProfile:
    """Evaluate models' per-query effectiveness against baselines (Dinçer, Macdonald & Ounis,
    SIGIR 2016, Table 7).

    ``models`` and ``baselines``: mappings name → per-query NDCG@k vector (same queries, same
    order) or DataFrames (systems × queries, aligned by column label).  Reward = FReward,
    Risk = FRisk (SIGIR 2014, §3); Loss>20% counts queries where a model loses more than 20% of the
    baseline's score.  With more than one baseline the ``"macro"`` block averages each measure
    over the baselines.
    """
    M = _as_systems(models, "model")
    B = _as_systems(baselines, "baseline")
    if isinstance(models, pd.DataFrame) or isinstance(baselines, pd.DataFrame):
        missing = M.columns.symmetric_difference(B.columns)
        if len(missing):
            raise RiskevalError(
                f"Models and baselines must score the same queries; {len(missing)}"
                f" differ, e.g. {list(missing[:5])}."
            )
        B = B[M.columns]
    elif M.shape[1] != B.shape[1]:
        raise RiskevalError(f"Models score {M.shape[1]} queries but baselines {B.shape[1]}.")
    values = M.to_numpy()
    blocks = []
    for name, row in B.iterrows():
        s = risk_reward_sums(paired_sums(values, row.to_numpy()))
        blocks.append(
            {
                "NDCG": values.mean(axis=1),
                "Reward": s.freward,
                "Risk": s.frisk,
                "Reward/Risk": s.reward_risk,
                "Wins": s.wins,
                "Losses": s.losses,
                "W/L": s.win_loss,
                "Loss>20%": s.loss20,
                "baseline": str(name),
            }
        )
    if len(blocks) > 1:
        blocks.append({m: np.mean([b[m] for b in blocks], axis=0) for m in MEASURES} | {"baseline": MACRO})
    rows = [
        pd.DataFrame(
            {
                "model": M.index.astype(str),
                "baseline": block["baseline"],
                "measure": m,
                "value": np.asarray(block[m], dtype=np.float64),
            }
        )
        for block in blocks
        for m in MEASURES
    ]
    return RiskProfile(pd.concat(rows, ignore_index=True), tuple(B.index.astype(str)))


def evaluate(
    models: Mapping[str, Any],
    X: Any,
    y: Any,
    group: Any = None,
    *,
    qid: Any = None,
    baselines: Mapping[str, Any],
    k: int = 10,
    label_gain: Any = None,
) -> RiskProfile:
    """Score models and baselines on a labelled set and build their :class:`RiskProfile`.

    ``models``: name → a ``lightgbm.Booster`` (or anything with ``predict(X)``; a Booster's
    refusal of ``X``, e.g. of another number of features, is an error naming the model, as for
    files: :func:`model_predict`).  ``baselines``:
    name → a feature index or column name (ranked by that feature), a model, or a per-query vector
    of effectiveness.
    """

    def effectiveness(name: str, system: Any) -> np.ndarray:
        if hasattr(system, "predict"):
            scores = model_predict(system, X, name)
        elif isinstance(system, (int, np.integer, str)) and not isinstance(system, bool):
            scores = feature_column(X, system)
        else:
            return np.asarray(system, dtype=np.float64)
        return ndcg_per_query(scores, y, group, qid=qid, k=k, label_gain=label_gain)

    return risk_profile(
        {name: effectiveness(name, m) for name, m in models.items()},
        {name: effectiveness(name, b) for name, b in baselines.items()},
    )


def model_predict(model: Any, X: Any, name: str, data: str = "X") -> Any:
    """The scores ``model`` gives the rows of ``X``.  A ``lightgbm.Booster`` gets sparse features
    of fewer columns than it was trained on widened (a feature not stored is 0); features of more
    columns, dense features of fewer, and any other refusal of LightGBM's are an
    :class:`~riskeval.errors.InputFormatError` at ``data`` (the features' file, or ``"X"``) naming
    the model ``name`` and both counts, never LightGBM's own error."""
    if not hasattr(model, "num_feature"):  # not a Booster: anything with predict(X)
        return model.predict(X)
    import lightgbm
    import scipy.sparse as sp

    width, trained = (X.shape if hasattr(X, "shape") else np.shape(X))[1], model.num_feature()
    if sp.issparse(X) and width < trained:
        X = sp.csr_matrix(X, shape=(X.shape[0], trained))
    elif width != trained:
        raise InputFormatError(
            [
                (
                    data,
                    f"has {width} feature columns (feature ids up to {width - 1}) but the model "
                    f"{name} was trained on {trained} (ids up to {trained - 1}): give it data of "
                    "the features it was trained on, or a model trained on these.",
                )
            ]
        )
    try:
        return model.predict(X)
    except lightgbm.basic.LightGBMError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputFormatError(
            [(data, f"the model {name} cannot score its {width} feature columns: {reason}")]
        ) from None

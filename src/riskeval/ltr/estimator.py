"""A scikit-learn-style estimator around :func:`riskeval.ltr.train`."""

from __future__ import annotations

from typing import Any

import numpy as np

from riskeval.errors import RiskevalError

_OWN = ("objective", "alpha", "k", "sx_update", "georisk_update", "variant", "num_boost_round")


class RiskLambdaMART:
    """LambdaMART or a risk-sensitive variant as an estimator: ``fit`` / ``predict``.

    Constructor arguments are those of :func:`riskeval.ltr.train` (``objective``, ``alpha``, ``k``,
    ``sx_update``, ``georisk_update``, ``variant``), ``num_boost_round``, and LightGBM parameters as keywords
    (``num_leaves=31``, ...).  The baseline depends on the training queries, so it is given to
    :meth:`fit`.  After fitting, ``booster_`` is the ``lightgbm.Booster``.
    """

    def __init__(
        self,
        objective: str = "lambdarank",
        alpha: float = 0.0,
        *,
        k: int = 10,
        sx_update: str = "first_tree",
        georisk_update: str = "first_order",
        variant: str = "paper",
        num_boost_round: int = 100,
        **params: Any,
    ):
        self.objective = objective
        self.alpha = alpha
        self.k = k
        self.sx_update = sx_update
        self.georisk_update = georisk_update
        self.variant = variant
        self.num_boost_round = num_boost_round
        self.params = params

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Constructor arguments (scikit-learn convention)."""
        return {
            "objective": self.objective,
            "alpha": self.alpha,
            "k": self.k,
            "sx_update": self.sx_update,
            "georisk_update": self.georisk_update,
            "variant": self.variant,
            "num_boost_round": self.num_boost_round,
            **self.params,
        }

    def set_params(self, **params: Any) -> RiskLambdaMART:
        """Change constructor arguments (scikit-learn convention); returns ``self``."""
        for key, value in params.items():
            if key in _OWN:
                setattr(self, key, value)
            else:
                self.params[key] = value
        return self

    def fit(
        self,
        X: Any,
        y: Any,
        group: Any = None,
        *,
        qid: Any = None,
        baseline: Any = None,
        **kwargs: Any,
    ) -> RiskLambdaMART:
        """Train on ``X``, ``y`` with queries from ``group`` sizes or ``qid``; ``kwargs`` go to
        ``lightgbm.train`` (``valid_sets``, ``callbacks``, ...)."""
        from riskeval.ltr.training import train

        self.booster_ = train(
            {"verbose": -1, **self.params},
            X,
            y,
            group,
            qid=qid,
            objective=self.objective,
            alpha=self.alpha,
            baseline=baseline,
            k=self.k,
            sx_update=self.sx_update,
            georisk_update=self.georisk_update,
            variant=self.variant,
            num_boost_round=self.num_boost_round,
            **kwargs,
        )
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Scores to rank each query's documents by (higher first)."""
        if not hasattr(self, "booster_"):
            raise RiskevalError("This RiskLambdaMART is not fitted yet: call fit(X, y, group).")
        return np.asarray(self.booster_.predict(X), dtype=np.float64)

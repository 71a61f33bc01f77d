"""LightGBM parameters checked before they reach LightGBM.

LightGBM checks most parameters itself, but some values crash the process instead of raising
(``num_threads=100000`` starts that many OpenMP threads), and its own messages name its C++
internals.  :func:`check_lightgbm_params` checks the numeric parameters of tree growth and
boosting, under any of their aliases, against the constraints of LightGBM's parameter reference
(https://lightgbm.readthedocs.io/en/stable/Parameters.html), and bounds ``num_threads`` by the
CPUs this process may run on.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any, NamedTuple

from riskeval.errors import RiskevalError


class Rule(NamedTuple):
    """A numeric LightGBM parameter: its aliases, whether it is an integer, its allowed range."""

    aliases: tuple[str, ...]
    integer: bool
    low: float = -math.inf
    low_open: bool = False  # low itself excluded
    high: float = math.inf

    def describe(self) -> str:
        kind = "an integer" if self.integer else "a number"
        parts = []
        if self.low > -math.inf:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high < math.inf:
            parts.append(f"<= {self.high:g}")
        return f"{kind} {' and '.join(parts)}".rstrip()


#: canonical name -> rule (LightGBM 4 parameter reference: type, aliases, constraints)
RULES: dict[str, Rule] = {
    "num_leaves": Rule(("num_leaf", "max_leaves", "max_leaf", "max_leaf_nodes"), True, 2, high=131072),
    "num_iterations": Rule(
        (
            "num_iteration",
            "n_iter",
            "num_tree",
            "num_trees",
            "num_round",
            "num_rounds",
            "nrounds",
            "num_boost_round",
            "n_estimators",
            "max_iter",
        ),
        True,
        1,
    ),
    "learning_rate": Rule(("shrinkage_rate", "eta"), False, 0, low_open=True),
    "min_data_in_leaf": Rule(
        ("min_data_per_leaf", "min_data", "min_child_samples", "min_samples_leaf"), True, 0
    ),
    "min_sum_hessian_in_leaf": Rule(
        ("min_sum_hessian_per_leaf", "min_sum_hessian", "min_hessian", "min_child_weight"), False, 0
    ),
    "max_depth": Rule((), True),
    "max_bin": Rule(("max_bins",), True, 2),
    "min_data_in_bin": Rule((), True, 1),
    "bin_construct_sample_cnt": Rule(("subsample_for_bin",), True, 1),
    "bagging_fraction": Rule(("sub_row", "subsample", "bagging"), False, 0, low_open=True, high=1),
    "bagging_freq": Rule(("subsample_freq",), True),
    "feature_fraction": Rule(("sub_feature", "colsample_bytree"), False, 0, low_open=True, high=1),
    "lambda_l1": Rule(("reg_alpha", "l1_regularization"), False, 0),
    "lambda_l2": Rule(("reg_lambda", "lambda", "l2_regularization"), False, 0),
    "min_gain_to_split": Rule(("min_split_gain",), False, 0),
    "early_stopping_round": Rule(("early_stopping_rounds", "early_stopping", "n_iter_no_change"), True),
    "lambdarank_truncation_level": Rule((), True, 1),
    "num_threads": Rule(("num_thread", "nthread", "nthreads", "n_jobs"), True),
}


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def check_lightgbm_params(params: Mapping[str, Any], func: str) -> None:
    """Raise :class:`RiskevalError` naming the parameter and ``func`` when a value in ``params``
    breaks a rule of :data:`RULES`; ``num_threads`` (any alias) may be at most
    :func:`available_cpus` (0 or less: LightGBM's default).  Values may be numbers or their text;
    ``None`` and unknown keys are left to LightGBM."""
    for canonical, rule in RULES.items():
        for name in (canonical, *rule.aliases):
            if name in params and params[name] is not None:
                _check(name, canonical, rule, params[name], func)


def _check(name: str, canonical: str, rule: Rule, value: Any, func: str) -> None:
    alias = f" (LightGBM's '{canonical}')" if name != canonical else ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    low_ok = number > rule.low if rule.low_open else number >= rule.low
    whole = math.isfinite(number) and (not rule.integer or number == int(number))
    if isinstance(value, bool) or not whole or not low_ok or number > rule.high:
        raise RiskevalError(
            f"The LightGBM parameter '{name}'{alias} must be {rule.describe()} in {func}. Got {value!r}."
        )
    if canonical == "num_threads" and number > available_cpus():
        cpus = available_cpus()
        raise RiskevalError(
            f"The LightGBM parameter '{name}'{alias} is {int(number)} in {func}, more than the {cpus} "
            f"CPUs this process may use: LightGBM would start a thread for each and can crash. Give "
            f"at most {cpus}, or 0 for LightGBM's default (one thread per CPU)."
        )

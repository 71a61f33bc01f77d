"""Baselines: a named system, a per-topic aggregate (MEAN, MEDIAN, MAX) or a given vector
(Dinçer, Ounis & Macdonald, ECIR 2014, §3), and the alignment of a system with its baseline."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from riskeval.core import baselines as kernels
from riskeval.errors import RiskevalError
from riskeval.model.matrix import MAX_MAGNITUDE, as_matrix, refuse_non_real
from riskeval.options import AGGREGATES, check_option


@dataclass(frozen=True)
class ResolvedBaseline:
    """A baseline ready for the kernels: ``values`` is (c,) or, leave-one-out, (r × c);
    ``is_self[i]`` marks rows that *are* the baseline (a named system)."""

    values: np.ndarray
    name: str
    is_self: np.ndarray


def baseline(X: Any, kind: str = "mean") -> pd.Series:
    """Per-topic baseline over every system of ``X``: ``"mean"``, ``"median"`` or ``"max"``.

    MEAN is the "unbiased" baseline of Dinçer, Ounis & Macdonald (ECIR 2014, eq. 2); MAX is the
    per-topic best ("loss in state of the art").  Returns a Series indexed by topic and named
    ``"MEAN"``, ``"MEDIAN"`` or ``"MAX"``.  A topic's MEAN or MEDIAN within
    :data:`~riskeval.core.baselines.TIE_RTOL` times its largest |score| of a score is that score
    (the nearest), so that decimal scores tie with it as in exact arithmetic.
    :func:`loo_baseline` leaves the evaluated system out.
    """
    M = as_matrix(X)
    kind = check_option(kind, AGGREGATES, "baseline", "kind")
    return pd.Series(kernels.aggregate(M.to_numpy(), kind), index=M.columns, name=kind.upper())


def loo_baseline(X: Any, kind: str = "mean") -> pd.DataFrame:
    """Leave-one-out baselines: row ``i`` is the per-topic ``kind`` aggregate over every system of
    ``X`` but ``i`` (``"mean"``, ``"median"`` or ``"max"``; at least two systems).

    Returns a systems × topics DataFrame aligned with ``X``.  Leaving the evaluated system out of
    its own baseline removes the dependence that Dinçer, Ounis & Macdonald (ECIR 2014, §2.3) discuss.
    A MEAN or MEDIAN within :data:`~riskeval.core.baselines.TIE_RTOL` times the topic's largest
    |score| of the system's own score is that score.
    """
    M = as_matrix(X)
    kind = check_option(kind, AGGREGATES, "loo_baseline", "kind")
    _need_two(M.shape[0], "loo_baseline")
    return pd.DataFrame(kernels.aggregate_loo(M.to_numpy(), kind), index=M.index, columns=M.columns)


class BaselineOption(NamedTuple):
    """A checked ``baseline=`` option: a per-topic ``aggregate`` (``"mean"``, ``"median"`` or
    ``"max"``), a ``system`` of the matrix, or the given scores ``values``: (c,), or (r × c) for
    each system's own baseline run.  ``name`` is how tables show the baseline."""

    name: str
    aggregate: str | None = None
    system: str | None = None
    values: np.ndarray | None = None


def baseline_option(
    spec: Any,
    systems: pd.Index,
    topics: pd.Index,
    func: str,
    *,
    leave_one_out: bool,
    partial_sums: bool = False,
) -> BaselineOption:
    """Read a ``baseline=`` option for a matrix with these ``systems`` and ``topics``: the one check
    of the option, with the same messages whether the matrix is in memory or known by its per-topic
    partial sums (``partial_sums``, a long table: no MEDIAN, no leave-one-out MAX, and no baseline
    without topic labels or per system, each refused with the reason).

    ``spec``: ``"mean"``/``"median"``/``"max"`` (checked before system names), the name of a
    system, a pandas Series indexed by topic (must cover every topic; extra topics are ignored), an
    array-like of length c, or a systems × topics DataFrame holding each system's own baseline run
    (:func:`baseline_runs`; extra rows and topics are ignored).
    """
    if isinstance(spec, pd.DataFrame):
        if partial_sums:
            raise RiskevalError(
                f"{func}: a per-system baseline DataFrame needs each system's scores beside its own "
                "baseline's, which partial sums do not give; use the in-memory risk_table."
            )
        return BaselineOption("per-system", values=per_system_baseline(spec, systems, topics, func))
    if isinstance(spec, str) and spec in AGGREGATES:
        if leave_one_out:
            _need_two(len(systems), func)
        if partial_sums and spec == "median":
            raise RiskevalError(
                f"{func}: the MEDIAN baseline needs every score of a topic at once, which partial sums "
                "do not give; use 'mean', 'max' or a system name, or the in-memory risk_table."
            )
        if partial_sums and spec == "max" and leave_one_out:
            raise RiskevalError(
                f"{func}: the leave-one-out MAX baseline needs the two largest scores of every topic; "
                "use 'mean', or the in-memory risk_table."
            )
        return BaselineOption(spec.upper(), aggregate=spec)
    if isinstance(spec, str):
        if spec not in systems:
            raise _unknown_system(spec, systems, func)
        return BaselineOption(spec, system=spec)
    if isinstance(spec, pd.Series):
        return BaselineOption(str(spec.name or "baseline"), values=align_vector(spec, topics, func))
    refuse_non_real(spec, f"The 'baseline' of {func}")
    arr = np.asarray(spec, dtype=np.float64) if _numeric_like(spec) else None
    if arr is None or arr.ndim != 1 or arr.shape[0] != len(topics):
        raise RiskevalError(
            f"The 'baseline' parameter of {func} must be 'mean', 'median', 'max', a system name, a "
            f"Series indexed by topic, or a vector of {len(topics)} scores. Got {_describe(spec)}."
        )
    _check_finite(arr, "baseline", func)
    if partial_sums:
        raise RiskevalError(
            f"{func}: a baseline vector has no topic labels, and the topics of a long table have no "
            "fixed order; give a Series indexed by topic."
        )
    return BaselineOption("baseline", values=arr)


def resolve_baseline(
    M: pd.DataFrame, spec: Any, func: str, *, leave_one_out: bool = False
) -> ResolvedBaseline:
    """A baseline option (:func:`baseline_option`) as arrays aligned with the topics of matrix
    ``M``; aggregates over the systems of ``M``, leaving each out with ``leave_one_out``."""
    option = baseline_option(spec, M.index, M.columns, func, leave_one_out=leave_one_out)
    if option.values is not None:
        values = option.values
    elif option.aggregate is not None:
        aggregate = kernels.aggregate_loo if leave_one_out else kernels.aggregate
        values = aggregate(M.to_numpy(), option.aggregate)
    else:
        values = M.loc[option.system].to_numpy()
    is_self = np.asarray(M.index == option.system) if option.system is not None else np.zeros(len(M), bool)
    return ResolvedBaseline(values, option.name, is_self)


def baseline_runs(X: Any, mapping: Any) -> pd.DataFrame:
    """Each system's own baseline run, as the systems × topics DataFrame that ``baseline=`` accepts.

    ``mapping`` (a dict or a Series) names, for every system of ``X``, the system of ``X`` that is
    its baseline, as in §5 of Dinçer, Ounis & Macdonald (ECIR 2014), where each group's runs are
    evaluated against the group's own baseline run.  A baseline run maps to itself (URisk 0, TRisk
    NaN with its reason).  Systems of the mapping absent from ``X`` are ignored; a system of ``X``
    without a baseline, or a baseline that is not a system of ``X``, is an error.
    """
    M = as_matrix(X)
    if isinstance(mapping, pd.Series):
        mapping = dict(zip(mapping.index.map(str), mapping.map(str), strict=True))
    if not isinstance(mapping, dict):
        raise RiskevalError(
            f"The 'mapping' parameter of baseline_runs must be a dict or a Series (system -> "
            f"baseline). Got {type(mapping).__name__}."
        )
    mapping = {str(k): str(v) for k, v in mapping.items()}
    unmapped = [s for s in M.index if s not in mapping]
    if unmapped:
        raise RiskevalError(
            f"baseline_runs: {len(unmapped)} system(s) have no baseline: {unmapped[:10]}. Map every "
            "system (a baseline run to itself)."
        )
    targets = pd.Index([mapping[s] for s in M.index])
    unknown = targets.difference(M.index)
    if len(unknown):
        raise RiskevalError(
            f"baseline_runs: {len(unknown)} baseline(s) are not systems of the matrix: "
            f"{unknown.tolist()[:10]}."
        )
    return pd.DataFrame(M.loc[targets].to_numpy(), index=M.index, columns=M.columns)


def per_system_baseline(B: pd.DataFrame, systems: pd.Index, topics: pd.Index, func: str) -> np.ndarray:
    """Each system against its own baseline run (Dinçer, Ounis & Macdonald, ECIR 2014, §5): row ``i``
    of the (r × c) result is the row of ``B`` labelled like ``systems[i]``, its columns in the order
    of ``topics``.  ``B`` must have one row per system (extra rows and topics are ignored)."""
    rows = pd.Index(B.index.map(str))
    cols = pd.Index(B.columns.map(str))
    for what, labels in (("system", rows), ("topic", cols)):
        if labels.has_duplicates:
            raise RiskevalError(
                f"The per-system 'baseline' DataFrame of {func} has duplicate {what} labels: "
                f"{labels[labels.duplicated()].unique().tolist()[:5]}."
            )
    for what, want, have in (("system", systems, rows), ("topic", topics, cols)):
        missing = want.difference(have, sort=False)
        if len(missing):
            raise RiskevalError(
                f"The per-system 'baseline' DataFrame of {func} has no {what} "
                f"{missing.tolist()[:10]} ({len(missing)} missing): it needs one row per system of "
                "the matrix (labelled like it) and a column for each of its topics."
            )
    cells = B.to_numpy()
    refuse_non_real(cells, f"The per-system 'baseline' DataFrame of {func}")
    frame = pd.DataFrame(cells, index=rows, columns=cols)
    try:
        values = frame.reindex(index=systems, columns=topics).to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(f"The per-system 'baseline' DataFrame of {func} must hold numbers.") from None
    _check_finite(values.ravel(), "per-system baseline", func)
    return np.ascontiguousarray(values)


def align_vector(v: pd.Series, topics: pd.Index, func: str, name: str = "baseline") -> np.ndarray:
    """Values of Series ``v`` in the order of ``topics``; every topic must be present."""
    refuse_non_real(v, f"The '{name}' of {func}")
    v = pd.Series(v.to_numpy(), index=v.index.map(str))
    if v.index.has_duplicates:
        raise RiskevalError(
            f"The '{name}' Series of {func} has duplicate topics: "
            f"{v.index[v.index.duplicated()].unique().tolist()[:5]}."
        )
    missing = topics.difference(v.index)
    if len(missing):
        raise RiskevalError(
            f"The '{name}' of {func} has no score for {len(missing)} topic(s) of the system: "
            f"{missing.tolist()[:10]}. Build both from one score matrix with a missing-topic "
            "policy (riskeval.score_matrix(..., missing='zero' or 'drop'))."
        )
    try:
        arr = v.reindex(topics).to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise RiskevalError(f"The '{name}' of {func} must hold numbers only.") from None
    _check_finite(arr, name, func)
    return arr


def as_pair(system: Any, base: Any, func: str) -> tuple[np.ndarray, np.ndarray, pd.Index]:
    """A system's and a baseline's per-topic scores, aligned: (s, b, topics).

    Two Series are aligned by topic label and must cover the same topics; otherwise both must be
    1-D with the same length (topics are then numbered from 0).
    """
    if isinstance(system, pd.Series):
        topics = pd.Index(system.index.map(str), name="topic")
        s = align_vector(system, topics, func, "system")
        if isinstance(base, pd.Series):
            extra = pd.Index(base.index.map(str)).difference(topics)
            if len(extra):
                raise RiskevalError(
                    f"The 'baseline' of {func} has {len(extra)} topic(s) the system lacks: "
                    f"{extra.tolist()[:10]}. Build both from one score matrix with a missing-topic "
                    "policy (riskeval.score_matrix(..., missing='zero' or 'drop'))."
                )
            return s, align_vector(base, topics, func), topics
        b = _vector(base, "baseline", func)
        _same_length(s, b, func)
        return s, b, topics
    s = _vector(system, "system", func)
    b = (
        align_vector(base, pd.RangeIndex(s.size).map(str), func)
        if isinstance(base, pd.Series)
        else _vector(base, "baseline", func)
    )
    _same_length(s, b, func)
    return s, b, pd.Index(pd.RangeIndex(s.size).map(str), name="topic")


def listed(names: Any, most: int = 10) -> str:
    """The first ``most`` names, quoted and comma-separated, and `` ...`` when there are more: how
    error messages show what a matrix or table holds."""
    names = list(names)
    return ", ".join(map(repr, names[:most])) + (" ..." if len(names) > most else "")


def _unknown_system(spec: str, systems: Any, func: str) -> RiskevalError:
    """The error for a ``baseline=`` name that is neither an aggregate nor a system."""
    if spec.lower() in AGGREGATES:
        hint = f" Aggregate baselines are lower case: use {spec.lower()!r}."
    else:
        close = difflib.get_close_matches(spec, [str(s) for s in systems], n=3, cutoff=0.6)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return RiskevalError(
        f"The 'baseline' parameter of {func} names no system of the matrix: {spec!r}.{hint} "
        f"Use 'mean', 'median', 'max', a system name ({listed(systems)}) or a per-topic vector."
    )


def _need_two(r: int, func: str) -> None:
    if r < 2:
        raise RiskevalError(f"{func}: a leave-one-out baseline needs at least two systems.")


def _vector(v: Any, name: str, func: str) -> np.ndarray:
    refuse_non_real(v, f"The '{name}' of {func}")
    arr = np.asarray(v, dtype=np.float64) if _numeric_like(v) else None
    if arr is None or arr.ndim != 1 or arr.size < 2:
        raise RiskevalError(
            f"The '{name}' parameter of {func} must be a 1-D vector of at least two per-topic "
            f"scores. Got {_describe(v)}."
        )
    _check_finite(arr, name, func)
    return arr


def _same_length(s: np.ndarray, b: np.ndarray, func: str) -> None:
    if s.shape != b.shape:
        raise RiskevalError(
            f"{func}: the system has {s.size} topic scores and the baseline {b.size}; they must "
            "score the same topics."
        )


def _check_finite(arr: np.ndarray, name: str, func: str) -> None:
    if not np.isfinite(arr).all():
        j = int(np.argmin(np.isfinite(arr)))
        raise RiskevalError(
            f"The '{name}' of {func} has a non-finite score ({float(arr[j])}) at position {j}; "
            "missing topics need a policy (riskeval.score_matrix(..., missing=...))."
        )
    if arr.size and np.abs(arr).max() >= MAX_MAGNITUDE:
        j = int(np.argmax(np.abs(arr)))
        raise RiskevalError(
            f"The '{name}' of {func} has a score of magnitude {float(arr[j]):g} at position {j}; "
            f"scores must be below {MAX_MAGNITUDE:g} in magnitude (rescale them, which changes no "
            "ranking)."
        )


def _numeric_like(v: Any) -> bool:
    try:
        np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return not isinstance(v, (str, bytes, dict))


def _describe(v: Any) -> str:
    shape = getattr(np.asarray(v, dtype=object), "shape", None)
    return f"{type(v).__name__} of shape {shape}" if shape else repr(v)

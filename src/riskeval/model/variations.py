"""The query-variation data model: per-query scores plus a mapping query → (topic, variant)
(Zuccon, Palotti & Hanbury, CIKM 2016, §4.1).

The exchange format is a tidy table with one row per system, topic and variant::

    system  topic  variant  score   [query]

A *variant* is one user's query for a topic (CLEF eHealth 2015: ``pivot``, ``most``, ``least``);
variant ``k`` of every topic belongs to the same user, which is what gives the covariance across
topics a meaning.  A query issued by several users appears once per user (same query id and score,
different variants), so it counts once per user — the query popularity ``p(r_k^i)`` of Zuccon et al.
(CIKM 2016, §4.1, eq. 2).

:func:`variation_array` turns the table into the ``systems × N topics × M variants`` array the
kernels of :mod:`riskeval.core.mve` use, and applies the explicit policies for missing cells and
for topics with different numbers of variants.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from riskeval.errors import InputFormatError, RiskevalError, RiskevalWarning
from riskeval.model.matrix import apply_missing
from riskeval.options import UNEQUAL_POLICIES, MissingPolicy, check_option

COLUMNS = ("system", "topic", "variant", "score")
MAPPING_COLUMNS = ("query", "topic", "variant")


@dataclass(frozen=True)
class VariationArray:
    """Scores of every system on every (topic, variant) cell.

    Attributes
    ----------
    scores : ndarray, shape (systems, N, M)
        ``scores[s, i, k]``: system ``s`` on the query of user ``k`` for topic ``i``.  NaN only
        where a topic has fewer than ``M`` variants (``unequal="keep"``).
    systems, topics : list of str
    variants : list of str
        Label of each of the ``M`` user positions: the variant labels when every topic has the
        same ones, else ``"1".."M"`` (after downsampling; see ``cells``).
    cells : ndarray of object, shape (N, M)
        The original variant label held in each cell (None where empty).
    dropped : tuple of str
        Topics removed by ``unequal="drop"``.
    seed : int or None
        The seed of ``unequal="downsample"``: the ``rng`` given when it is an int, else None.
    """

    scores: np.ndarray
    systems: list[str]
    topics: list[str]
    variants: list[str]
    cells: np.ndarray
    dropped: tuple[str, ...] = ()
    seed: int | None = None


def as_variations(df: pd.DataFrame, *, name: str = "df") -> pd.DataFrame:
    """Validate a tidy query-variation table and return a clean copy.

    Requires columns ``system``, ``topic``, ``variant`` and ``score`` (a ``query`` column and
    others are kept); ids become ``str``, scores ``float64``.  Every problem (missing column,
    non-numeric or non-finite score, duplicated system/topic/variant) is collected and reported at
    once, naming the rows.  A label (system, topic, variant) that is missing or blank is a problem
    too: it would make a topic ``''`` of its own.
    """
    if not isinstance(df, pd.DataFrame):
        raise RiskevalError(
            f"{name} must be a pandas DataFrame with columns {', '.join(COLUMNS)}; got {type(df).__name__}."
        )
    absent = [c for c in COLUMNS if c not in df.columns]
    if absent:
        needs = (
            f"a query-variation table needs columns {list(COLUMNS)} (one row per system, topic and variant)"
        )
        raise InputFormatError([(name, f"lacks column(s) {absent}; {needs}. Got {list(df.columns)}.")])
    if df.empty:
        raise InputFormatError([(name, "has no rows.")])
    out = df.copy()
    problems = []
    for col in ("system", "topic", "variant"):
        empty = out[col].isna().to_numpy() | (out[col].astype(str).str.strip() == "").to_numpy()
        problems += [
            (f"row {label}", f"the {col} label is empty: every row needs a system, topic and variant")
            for label in out.index[empty]
        ]
        out[col] = out[col].astype(str)
    if "query" in out.columns:
        out["query"] = out["query"].astype(str)
    scores = pd.to_numeric(out["score"], errors="coerce").astype(np.float64)
    finite = np.isfinite(scores.to_numpy())
    problems += [
        (f"row {label}", f"score {value!r} is not a finite number")
        for label, value, ok in zip(out.index, df["score"], finite, strict=True)
        if not ok
    ]
    dup = out.duplicated(["system", "topic", "variant"], keep=False)
    for label, row in out.loc[dup, ["system", "topic", "variant"]].iterrows():
        problems.append(
            (
                f"row {label}",
                f"system {row.system!r}, topic {row.topic!r}, variant {row.variant!r} appears "
                "more than once (one score per system, topic and variant)",
            )
        )
    if problems:
        raise InputFormatError(problems)
    out["score"] = scores
    return out.reset_index(drop=True)


def from_scores(scores: pd.DataFrame, mapping: pd.DataFrame) -> pd.DataFrame:
    """Tidy variation table from a systems × queries score matrix and a query mapping.

    ``scores`` is a score matrix whose columns are query ids (as read from trec_eval ``-q``
    files); ``mapping`` has columns ``query``, ``topic``, ``variant``.  A query mapped to several
    (topic, variant) cells is copied to each (query popularity).  Mapped queries without scores
    are left out of the table with a warning counting them (an incomplete topic is then handled by
    :func:`variation_array`'s ``unequal`` policy); scored queries absent from the mapping are left
    out with a warning too.
    """
    missing = [c for c in MAPPING_COLUMNS if c not in mapping.columns]
    if missing:
        raise RiskevalError(f"The mapping lacks column(s) {missing}; need {list(MAPPING_COLUMNS)}.")
    mapping = mapping.astype({c: str for c in MAPPING_COLUMNS})
    queries = pd.Index(scores.columns.map(str))
    unscored = sorted(set(mapping["query"]) - set(queries))
    unmapped = sorted(set(queries) - set(mapping["query"]))
    if unscored:
        warnings.warn(
            f"{len(unscored)} mapped query(ies) have no scores and are left out: {_preview(unscored)}.",
            RiskevalWarning,
            stacklevel=2,
        )
    if unmapped:
        warnings.warn(
            f"{len(unmapped)} scored query(ies) are not in the mapping and are left out: "
            f"{_preview(unmapped)}.",
            RiskevalWarning,
            stacklevel=2,
        )
    long = scores.set_axis(queries, axis=1).rename_axis(index="system", columns="query")
    long = long.stack().rename("score").reset_index()
    long["system"] = long["system"].astype(str)
    # systems in matrix order, each with the mapping's rows in the mapping's order
    tidy = long.merge(mapping.assign(_row=np.arange(len(mapping))), on="query", how="inner")
    tidy = tidy.sort_values("_row", kind="stable")
    tidy = tidy.sort_values("system", key=lambda s: s.map(_positions(long["system"])), kind="stable")
    return as_variations(tidy[["system", "topic", "variant", "score", "query"]])


def _cube(df: pd.DataFrame):
    """(scores (S, N, L) with NaN for absent cells, systems, topics, variant labels)."""
    s_codes, systems = pd.factorize(df["system"])
    t_codes, topics = pd.factorize(df["topic"])
    v_codes, labels = pd.factorize(df["variant"])
    cube = np.full((len(systems), len(topics), len(labels)), np.nan)
    cube[s_codes, t_codes, v_codes] = df["score"].to_numpy()
    return cube, list(systems), list(topics), list(labels)


def _apply_missing(cube, systems, topics, labels, missing: MissingPolicy) -> np.ndarray:
    """Make every system cover the same (topic, variant) cells with the project's missing-topic
    policy (:func:`riskeval.io.apply_missing`) on the systems × cells matrix: ``"raise"`` names the
    missing cells, ``"zero"`` scores them 0 (trec_eval ``-c``), ``"drop"`` removes each cell some
    system lacks for every system; filling and dropping warn with counts."""
    t_idx, v_idx = np.nonzero(~np.isnan(cube).all(axis=0))  # the cells some system has
    columns = [f"{topics[t]} [{labels[v]}]" for t, v in zip(t_idx, v_idx, strict=True)]
    cells = pd.DataFrame(cube[:, t_idx, v_idx], index=systems, columns=columns)
    fixed = apply_missing(cells, missing, source="the query-variation table (cells 'topic [variant]')")
    kept = cells.columns.get_indexer(fixed.columns)
    out = np.full_like(cube, np.nan)
    out[:, t_idx[kept], v_idx[kept]] = fixed.to_numpy()
    return out


def _drop_short(counts: pd.Series, what: str) -> list[str]:
    """Topics with fewer variants than the most complete one, with a warning naming them."""
    full = counts.max()
    short = counts[counts < full]
    if not short.empty:
        detail = ", ".join(f"{t} ({n})" for t, n in short.items())
        warnings.warn(
            f"Dropped {len(short)} {what}(s) with fewer than {full} variants: {detail} "
            f"(variant counts in brackets); {int(short.sum())} query score(s) per system not used. "
            f"{len(counts) - len(short)} {what}(s) × {full} variants remain.",
            RiskevalWarning,
            stacklevel=4,
        )
    return list(short.index)


def drop_incomplete_topics(df: pd.DataFrame, *, what: str = "topic") -> pd.DataFrame:
    """Remove topics with fewer variants than the most complete one, warning which and how many."""
    first = df["system"].iloc[0]
    counts = df.loc[df["system"] == first].groupby("topic", sort=False)["variant"].nunique()
    short = _drop_short(counts, what)
    return df.loc[~df["topic"].isin(short)].reset_index(drop=True)


def variation_array(
    df: pd.DataFrame,
    *,
    unequal: str = "raise",
    rng: int | np.random.Generator | None = None,
    missing: MissingPolicy = "raise",
) -> VariationArray:
    """The ``systems × N × M`` array of a tidy variation table (Zuccon, Palotti & Hanbury, CIKM 2016, §4.1).

    Parameters
    ----------
    df : DataFrame
        Tidy table (columns system, topic, variant, score), validated by :func:`as_variations`.
        Systems, topics and variants keep their order of first appearance.
    unequal : {"raise", "drop", "downsample", "keep"}
        What to do when topics have different numbers of variants (the general framework needs
        the same ``M`` everywhere, Zuccon et al. 2016 §7): ``"raise"`` names the topics and the
        options; ``"drop"`` removes topics with fewer variants than the most complete one;
        ``"downsample"`` keeps, per topic, a random subset (``rng``) of as many variants as the
        least complete topic has, user ``k`` then being the ``k``-th kept variant (in order of
        first appearance); ``"keep"`` pads with NaN (for the intra-topic form only).
    rng : int, numpy.random.Generator or None
        The randomness of the downsampling: a seed (recorded in the result), a generator, or
        None for fresh randomness.
    missing : {"raise", "zero", "drop"}
        Policy for (topic, variant) cells some systems lack: raise naming them, score them 0, or
        remove those cells for every system (both with a warning counting the cells).
    """
    check_option(unequal, UNEQUAL_POLICIES, "variation_array", "unequal")
    cube, systems, topics, labels = _cube(as_variations(df))
    cube = _apply_missing(cube, systems, topics, labels, missing)
    present = ~np.isnan(cube[0])  # (N, L): the same for every system now
    counts = pd.Series(present.sum(axis=1), index=topics)
    if (counts == 0).any():  # every cell of a topic dropped by missing="drop"
        keep = (counts > 0).to_numpy()
        cube, present, counts = cube[:, keep], present[keep], counts[keep]
        topics = list(counts.index)
    dropped: tuple[str, ...] = ()
    if counts.nunique() > 1 and unequal == "raise":
        full = counts.max()
        short = counts[counts < full]
        detail = ", ".join(f"{t} ({n})" for t, n in short.items())
        raise RiskevalError(
            f"Topics have different numbers of variants: {len(short)} topic(s) have fewer "
            f"than {full}: {detail}. The general mean-variance form needs the same number of "
            "variants (users) for every topic. Options: unequal='downsample' with rng= a seed "
            f"(every topic keeps {counts.min()} random variant(s)), unequal='drop' (remove "
            "those topics), or form='intra' (each topic on its own)."
        )
    if counts.nunique() > 1 and unequal == "drop":
        dropped = tuple(_drop_short(counts, "topic"))
        keep = ~counts.index.isin(dropped)
        cube, present, topics = cube[:, keep], present[keep], list(counts.index[keep])
    return _align(cube, present, systems, topics, labels, unequal, rng, dropped)


def _align(cube, present, systems, topics, labels, unequal, rng, dropped) -> VariationArray:
    """Pair variant k of every topic (the same user): by label, or by position when downsampling."""
    seed = int(rng) if isinstance(rng, (int, np.integer)) else None
    used = present.any(axis=0)  # labels left after dropping topics
    cube, present, label_arr = cube[:, :, used], present[:, used], np.array(labels, dtype=object)[used]
    if present.all():
        cells = np.tile(label_arr, (len(topics), 1))
        return VariationArray(cube, systems, topics, list(label_arr), cells, dropped, seed)
    if unequal == "keep":  # NaN-padded, for the intra-topic form
        cells = np.where(present, label_arr[None, :], np.array(None, dtype=object))
        return VariationArray(cube, systems, topics, list(label_arr), cells, dropped, seed)
    if unequal != "downsample":
        first, other = np.flatnonzero(present[0]), np.flatnonzero((present != present[0]).any(1))
        raise RiskevalError(
            "Variant labels differ between topics (e.g. topic "
            f"{topics[0]!r}: {label_arr[first].tolist()}, topic {topics[other[0]]!r}: "
            f"{label_arr[present[other[0]]].tolist()}), so variant k of one topic cannot be "
            "paired with variant k of another (the same user). Give the variants shared labels, "
            "use unequal='downsample' to pair them by position, or form='intra'."
        )
    m = int(present.sum(axis=1).min())
    draw = np.random.default_rng(rng)
    out = np.empty((len(systems), len(topics), m))
    cells = np.empty((len(topics), m), dtype=object)
    for i in range(len(topics)):
        kept = np.sort(draw.choice(np.flatnonzero(present[i]), size=m, replace=False))
        out[:, i, :] = cube[:, i, kept]
        cells[i] = label_arr[kept]
    return VariationArray(out, systems, topics, [str(k + 1) for k in range(m)], cells, dropped, seed)


def topic_weights(weights: Mapping[str, float] | pd.Series | None, topics: list[str]):
    """Weights in the order of ``topics`` (None stays None: uniform).  Every topic needs a weight;
    weights of topics not in the data are ignored with a warning naming them."""
    if weights is None:
        return None
    series = pd.Series(weights, dtype=np.float64)
    series.index = series.index.map(str)
    absent = [t for t in topics if t not in series.index]
    if absent:
        raise RiskevalError(
            f"The 'weights' parameter has no weight for {len(absent)} topic(s): {_preview(absent)}."
        )
    extra = sorted(set(series.index) - set(topics))
    if extra:
        warnings.warn(
            f"Weights given for {len(extra)} topic(s) not in the data are ignored: {_preview(extra)}.",
            RiskevalWarning,
            stacklevel=3,
        )
    return series.reindex(topics).to_numpy()


def _positions(labels: pd.Series) -> dict[str, int]:
    return {label: i for i, label in enumerate(pd.unique(labels))}


def _preview(items: list[str], k: int = 10) -> str:
    head = ", ".join(map(str, items[:k]))
    return head + (f", ... ({len(items) - k} more)" if len(items) > k else "")

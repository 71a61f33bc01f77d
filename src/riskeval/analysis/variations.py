"""Mean–variance evaluation over query variations: tables, α sweeps and rank comparisons.

Zuccon, Palotti & Hanbury (CIKM 2016), §4–5.  Input is a tidy table with columns ``system``,
``topic``, ``variant``, ``score`` (see :mod:`riskeval.model.variations`).  Three forms:

``"general"`` (eq. 2–7)
    ``μ = Σ_i w_i mean_k R[i,k]``, ``σ² = Σ_i Σ_j w_i w_j cov(R_i, R_j)`` (covariances across
    users), ``O = μ − α σ²``.  One row per system.
``"intra"`` (eq. 8)
    Per topic: ``O_i = mean_k R[i,k] − α var_k R[i,k]``.  One row per system and topic; topics may
    have different numbers of variants.
``"inter"`` (modified inter-topic, eq. 9)
    One query per topic (``variant=`` picks it): ``O = Σ_i w_i r_i − α Σ_i w_i (r_i − μ)²``
    (sample-variance correction with ``ddof=1``).  One row per system.

Variances use ``ddof=1`` by default: the sample estimate reproduces the variances the paper reports
for CLEF eHealth 2015 (e.g. 5.5×10⁻³ for CUNI_EN_Run.6, §5.2); ``ddof=0`` is available.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from riskeval.core import mve
from riskeval.core.rank_correlation import competition_ranks, rank_correlations
from riskeval.errors import RiskevalError
from riskeval.model.variations import as_variations, topic_weights, variation_array
from riskeval.options import MEAN_VARIANCE_FORMS, check_alpha, check_alphas, check_option


@dataclass(frozen=True)
class _Moments:
    systems: list[str]
    topics: list[str] | None  # per-topic moments (intra form) when not None
    mean: np.ndarray  # (S,) or (S, N)
    variance: np.ndarray
    topic_variance: np.ndarray | None = None  # Σ w_i² var(R_i), general form with decompose=True


def _moments(df, *, form, weights, ddof, variant, unequal, rng, missing, decompose) -> _Moments:
    check_option(form, MEAN_VARIANCE_FORMS, "mean_variance", "form")
    if decompose and form != "general":
        raise RiskevalError("decompose=True splits the variance of form='general' only.")
    df = as_variations(df)
    if form == "inter":
        df = _one_query_per_topic(df, variant)
    elif variant is not None:
        raise RiskevalError("The 'variant' parameter applies to form='inter' only.")
    if form == "intra":
        if weights is not None:
            raise RiskevalError("Topic weights do not apply to form='intra' (each topic on its own).")
        arr = variation_array(df, unequal="keep", missing=missing)
        mean, var = mve.intra_topic_moments(arr.scores, ddof)
        return _Moments(arr.systems, arr.topics, mean, var)
    if unequal == "keep":
        raise RiskevalError(
            f"unequal='keep' pads topics that have fewer variants with empty cells, which only "
            f"form='intra' can use (each topic on its own); form={form!r} pairs variant k of every "
            "topic (the same user) and needs them all. Use unequal='raise', 'drop' or "
            "'downsample', or form='intra'."
        )
    arr = variation_array(df, unequal=unequal, rng=rng, missing=missing)
    w = mve.normalise_weights(topic_weights(weights, arr.topics), len(arr.topics))
    if form == "inter":
        mean, var = mve.inter_topic_moments(arr.scores[:, :, 0], w, ddof)
        return _Moments(arr.systems, None, mean, var)
    mean, var = mve.general_moments(arr.scores, w, ddof)
    diagonal = mve.topic_variance(arr.scores, w, ddof) if decompose else None
    return _Moments(arr.systems, None, mean, var, diagonal)


def _one_query_per_topic(df: pd.DataFrame, variant: str | None) -> pd.DataFrame:
    if variant is not None:
        picked = df[df["variant"] == str(variant)]
        if picked.empty:
            raise RiskevalError(
                f"No rows with variant {variant!r}; variants present: "
                f"{sorted(pd.unique(df['variant']))[:10]}."
            )
        return picked.assign(variant="1")
    counts = df.groupby(["system", "topic"])["variant"].nunique()
    if (counts > 1).any():
        raise RiskevalError(
            "form='inter' takes one query per topic, but topics have several variants; choose one "
            f"with variant=... (present: {sorted(pd.unique(df['variant']))[:10]})."
        )
    return df.assign(variant="1")


def mean_variance(
    df: pd.DataFrame,
    alpha: float = 1.0,
    *,
    form: str = "general",
    weights=None,
    ddof: int = 1,
    variant: str | None = None,
    unequal: str = "raise",
    rng: int | np.random.Generator | None = None,
    missing: str = "raise",
    decompose: bool = False,
) -> pd.DataFrame:
    """Mean, variance and portfolio value ``O = μ − α σ²`` of every system (Zuccon et al., eq. 5–9).

    Parameters
    ----------
    df : DataFrame
        Long table with columns ``system``, ``topic``, ``variant``, ``score``: one row per system,
        topic and query variant (variant ``k`` of every topic is the same user's query).
    alpha : float
        Risk preference: > 0 risk-averse, < 0 risk-seeking, 0 the mean alone (eq. 5).
    form : {"general", "intra", "inter"}
        See the module docstring.
    weights : mapping topic -> weight, optional
        Topic importance ``w_i`` (normalised to sum to 1); uniform by default.  Refused by the
        intra-topic form, which has one topic at a time.
    ddof : {1, 0}
        Variance estimator: 1 (sample, default) or 0 (population).
    variant : str, optional
        For ``form="inter"``: the variant that is each topic's only query (e.g. ``"pivot"``).
    unequal, rng, missing :
        Policies for topics with different numbers of variants and for missing cells, see
        :func:`riskeval.model.variations.variation_array`.  ``unequal="keep"`` (empty cells where
        a topic has fewer variants) is refused by the general and inter-topic forms, which pair
        variant ``k`` of every topic; the intra-topic form always keeps every topic's variants.
    decompose : bool
        General form only: add the columns ``topic_variance`` (``Σ_i w_i² var(R_i)``, the spread
        of each user's queries within topics) and ``covariance`` (``Σ_{i≠j} w_i w_j cov(R_i,
        R_j)``, users good on one topic being good on others), which sum to ``variance`` (eq. 3).

    Returns
    -------
    DataFrame
        Indexed by ``system`` (by ``system`` and ``topic`` for the intra-topic form), columns
        ``alpha`` (the setting, as in every table of riskeval), ``mean``, ``variance``, ``value``
        (and the two parts with ``decompose=True``).
    """
    a = check_alpha(alpha, "mean_variance", negative_ok=True)
    m = _moments(
        df,
        form=form,
        weights=weights,
        ddof=ddof,
        variant=variant,
        unequal=unequal,
        rng=rng,
        missing=missing,
        decompose=decompose,
    )
    value = mve.portfolio_value(m.mean, m.variance, a)
    if m.topics is None:
        index = pd.Index(m.systems, name="system")
    else:
        index = pd.MultiIndex.from_product([m.systems, m.topics], names=["system", "topic"])
    table = pd.DataFrame(
        {"alpha": a, "mean": m.mean.ravel(), "variance": m.variance.ravel(), "value": value.ravel()},
        index=index,
    )
    if m.topic_variance is not None:
        table["topic_variance"] = m.topic_variance
        table["covariance"] = m.variance - m.topic_variance
    return table


@dataclass(frozen=True)
class MeanVarianceSweep:
    """Rankings by portfolio value over an α grid, compared with the mean-only ranking.

    Attributes
    ----------
    alphas : ndarray (A,)
    systems : list of str
    topics : list of str or None
        The topics of a per-topic (intra-topic) sweep, else None.
    mean, variance : ndarray, shape (S,) or (S, N)
    tau, tau_ap : ndarray, shape (A,) or (N, A)
        Kendall's τ-b and AP correlation τ_AP (Yilmaz et al. 2008) of the ranking by ``O(α)``
        against the ranking by the mean (the reference of τ_AP).
    form : str
    """

    alphas: np.ndarray
    systems: list[str]
    topics: list[str] | None
    mean: np.ndarray
    variance: np.ndarray
    tau: np.ndarray
    tau_ap: np.ndarray
    form: str

    def values(self) -> np.ndarray:
        """Portfolio values ``O(α)``, shape ``mean.shape + (A,)``."""
        return mve.portfolio_value(self.mean, self.variance, self.alphas)

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: one row per α (and topic) with columns ``tau`` and ``tau_ap``."""
        if self.topics is None:
            return pd.DataFrame({"alpha": self.alphas, "tau": self.tau, "tau_ap": self.tau_ap})
        n, a = self.tau.shape
        return pd.DataFrame(
            {
                "topic": np.repeat(self.topics, a),
                "alpha": np.tile(self.alphas, n),
                "tau": self.tau.ravel(),
                "tau_ap": self.tau_ap.ravel(),
            }
        )

    def values_frame(self) -> pd.DataFrame:
        """Tidy table of portfolio values: system, (topic,) alpha, value."""
        vals = self.values()
        cols = {"system": np.repeat(self.systems, vals.size // len(self.systems))}
        if self.topics is not None:
            cols["topic"] = np.tile(np.repeat(self.topics, self.alphas.size), len(self.systems))
        cols["alpha"] = np.tile(self.alphas, vals.size // self.alphas.size)
        cols["value"] = vals.ravel()
        return pd.DataFrame(cols)


def mean_variance_sweep(df: pd.DataFrame, alphas=None, **options) -> MeanVarianceSweep:
    """Compare the ranking by ``O(α) = μ − α σ²`` with the ranking by ``μ`` over a grid of α
    (Zuccon et al. 2016, Figures 2–4).

    ``alphas`` defaults to the paper's grid −20, −19.9, …, 20.  Moments are computed once; each α
    then costs O(S) for the values plus the rank correlations (τ-b as ``scipy.stats.kendalltau``
    computes it, and τ_AP, vectorised over the grid; ties as in
    :mod:`riskeval.core.rank_correlation`).  ``options`` are those of :func:`mean_variance`
    (``form``, ``weights``, ``ddof``, ``variant``, ``unequal``, ``rng``, ``missing``); with
    ``form="intra"`` the correlations are per topic (Figure 3).
    """
    grid = check_alphas(
        np.linspace(-20.0, 20.0, 401) if alphas is None else alphas, "mean_variance_sweep", negative_ok=True
    )
    table = mean_variance(df, 0.0, **options)
    systems = list(pd.unique(table.index.get_level_values("system")))
    if len(systems) < 2:
        raise RiskevalError("Ranking systems needs at least two systems.")
    topics = None
    mean, variance = table["mean"].to_numpy(), table["variance"].to_numpy()
    if table.index.nlevels == 2:  # intra-topic: (system, topic) rows, systems outermost
        topics = list(pd.unique(table.index.get_level_values("topic")))
        mean, variance = mean.reshape(len(systems), -1), variance.reshape(len(systems), -1)
    values = mve.portfolio_value(mean, variance, grid)
    if topics is None:
        tau, tau_ap = rank_correlations(mean, values)
    else:
        per_topic = [rank_correlations(mean[:, i], values[:, i]) for i in range(len(topics))]
        tau, tau_ap = (np.array(x) for x in zip(*per_topic, strict=True))
    form = options.get("form", "general")
    return MeanVarianceSweep(grid, systems, topics, mean, variance, tau, tau_ap, form)


def rank_changes(
    df: pd.DataFrame,
    alpha_from: float = 0.0,
    alpha_to: float = 5.0,
    **options,
) -> pd.DataFrame:
    """How each system's rank moves between two risk preferences (general or inter form).

    Returns a DataFrame indexed by ``system`` with ``mean``, ``variance``, ``rank_from``,
    ``rank_to`` (1 = best; tied values share the best rank) and ``change = rank_from − rank_to``
    (positive: moved up), sorted by decreasing ``|change|``, then by ``rank_from``.  ``options``
    are those of :func:`mean_variance`.
    """
    if options.get("form", "general") == "intra":
        raise RiskevalError("rank_changes ranks whole systems: use form='general' or 'inter'.")
    a0 = check_alpha(alpha_from, "rank_changes", negative_ok=True)
    a1 = check_alpha(alpha_to, "rank_changes", negative_ok=True)
    table = mean_variance(df, a0, **options)[["mean", "variance"]]
    v0 = mve.portfolio_value(table["mean"], table["variance"], a0)
    v1 = mve.portfolio_value(table["mean"], table["variance"], a1)
    out = table.assign(rank_from=competition_ranks(np.asarray(v0)), rank_to=competition_ranks(np.asarray(v1)))
    out["change"] = out["rank_from"] - out["rank_to"]
    order = np.lexsort((out["rank_from"].to_numpy(), -out["change"].abs().to_numpy()))
    return out.iloc[order]


def swap_alpha(table: pd.DataFrame, system_a: str, system_b: str) -> float:
    """The α at which two systems exchange ranks: ``(μ_A − μ_B)/(σ²_A − σ²_B)`` (from eq. 6).

    ``table`` is a :func:`mean_variance` result (any α; columns ``mean`` and ``variance`` indexed by
    system).  For α above the returned value the system with the smaller variance ranks first.
    ``±inf`` when the variances are equal (no swap), NaN when mean and variance are both equal.
    """
    if table.index.nlevels != 1 or not {"mean", "variance"} <= set(table.columns):
        raise RiskevalError(
            "swap_alpha needs a mean_variance table of form 'general' or 'inter' (one row per system, "
            "columns mean and variance)."
        )
    for s in (system_a, system_b):
        if s not in table.index:
            raise RiskevalError(f"System {s!r} is not in the table.")
    a, b = table.loc[system_a], table.loc[system_b]
    return float(mve.swap_alpha(a["mean"], a["variance"], b["mean"], b["variance"]))

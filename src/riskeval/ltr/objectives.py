"""Risk-sensitive LambdaMART objectives for LightGBM (Dinçer, Macdonald & Ounis, SIGIR 2014, §6;
Dinçer, Macdonald & Ounis, SIGIR 2016, §6).

Every objective is LambdaMART exactly as LightGBM's ``lambdarank`` computes it
(:mod:`riskeval.ltr.kernels`), with each pair's ``|ΔM|`` multiplied by a ratio ``|ΔM'|/|ΔM|``.
``M`` is the query's NDCG@k (``M_m(q)`` for the current model, ``M_b(q)`` for the baseline) and
``ΔM`` the change of NDCG@k if the pair swapped places:

- ``lambdarank``: ratio 1.
- ``ucro`` (U-CRO, Wang, Bennett & Collins-Thompson, SIGIR 2012, §4.3; SIGIR 2016, eq. 9):
  ``ΔM' = U(M_m + ΔM) − U(M_m)`` with ``U(x) = x − M_b`` above the baseline and
  ``(1+α)(x − M_b)`` below it, so the ratio is ``1 + α·φ`` with φ the share of the change that
  lies below the baseline: 0 or 1 unless the swap crosses the baseline, where it is exact.
- ``tsaro`` (T-SARO, SIGIR 2014, eq. 24–25): U-CRO with α replaced per query by
  ``α'_q = [1 − Φ(TR_q)]·α``, ``TR_q = x_q / s_x`` (SIGIR 2014, eq. 21), ``x_q`` the risk-reward
  score of query q (eq. 3) and ``s_x`` their sample standard deviation.
- ``tfaro`` (T-FARO, SIGIR 2014, eq. 26): ratio ``1 + α'_q`` on every pair of query q.
- ``tstar_faro`` (T*-FARO, SIGIR 2016, §6): T-FARO against the per-query mean of several baselines.
- ``georisk`` (SIGIR 2016, §6): ``ΔM' = GeoRisk_m(after swap) − GeoRisk_m(before)`` over the
  matrix (model + baselines) × training queries; see :func:`georisk_parameters`.

``variant="jforests"`` gives U-CRO, T-SARO, T-FARO and T*-FARO as the authors' Jforests
implementation computes them, which is what ran the papers' experiments (see :class:`RiskObjective`),
documents of equal score ranked lowest label first as Jforests ranks them (:func:`lowest_label_first`).

When the pair is below the truncation level but beyond rank k on both sides, ``ΔM`` is 0 and the
ratio is its limit (the derivative).  Where ``k`` equals the truncation level and the query has at
most ``k`` documents, ``|ΔM|·ratio`` is exactly the ``|ΔM'|`` of the papers' definitions.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from riskeval.errors import RiskevalError
from riskeval.ltr.options import GEORISK_UPDATES, SX_UPDATES, VARIANTS, check_ltr_options
from riskeval.measures.declared import GeoRisk
from riskeval.options import check_alpha

__all__ = [
    "GEORISK_UPDATES",
    "JFORESTS_OBJECTIVES",
    "OBJECTIVES",
    "SX_UPDATES",
    "VARIANTS",
    "ObjectiveInfo",
    "RiskObjective",
    "georisk_parameters",
    "jforests_risk_sd",
    "risk_sd",
    "trisk_alphas",
]


@dataclass(frozen=True)
class ObjectiveInfo:
    """What an objective is: its name, title, paper and the baseline it needs."""

    name: str
    title: str
    source: str
    baseline: str  # "none", "single" (one system), "mean" (mean of systems), "systems"


OBJECTIVES: dict[str, ObjectiveInfo] = {
    info.name: info
    for info in (
        ObjectiveInfo("lambdarank", "LambdaMART", "LightGBM lambdarank (Burges 2010)", "none"),
        ObjectiveInfo("ucro", "U-CRO", "Wang et al., SIGIR 2012; Dinçer et al., SIGIR 2016, eq. 9", "single"),
        ObjectiveInfo("tsaro", "T-SARO", "Dinçer et al., SIGIR 2014, §6.3, eq. 24-25", "single"),
        ObjectiveInfo("tfaro", "T-FARO", "Dinçer et al., SIGIR 2014, §6.3, eq. 26", "single"),
        ObjectiveInfo("tstar_faro", "T*-FARO", "Dinçer et al., SIGIR 2016, §6", "mean"),
        # the objective of GeoRisk is named as GeoRisk's column of the risk table
        ObjectiveInfo(GeoRisk.column, GeoRisk.header, "Dinçer et al., SIGIR 2016, §6", "systems"),
    )
}


#: The objectives that ``variant="jforests"`` changes (Jforests has no GeoRisk; LambdaMART has no
#: risk term).
JFORESTS_OBJECTIVES = ("ucro", "tsaro", "tfaro", "tstar_faro")
_FARO = ("tfaro", "tstar_faro")

# LightGBM parameter names (and aliases) that the objective reads.
_NUM_THREADS = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")


def trisk_alphas(delta: np.ndarray, alpha: float, sx: float, *, raw: bool = False) -> np.ndarray:
    """Per-query ``α'_q = [1 − Φ(TR_q)]·α`` with ``TR_q = x_q / s_x`` (Dinçer, Macdonald & Ounis,
    SIGIR 2014, eq. 21, 24-25).

    ``x_q`` is δ_q above the baseline and ``(1+α)δ_q`` below it (``raw``: ``TR_q = δ_q / s_x``, as
    Jforests computes it).  With ``s_x = 0`` every query has ``TR_q = 0`` (no evidence of risk
    either way), so ``α'_q = α/2``.
    """
    from riskeval.ltr import kernels

    return kernels.query_alphas(np.ascontiguousarray(delta, dtype=np.float64), float(alpha), float(sx), raw)


def risk_sd(delta: np.ndarray, alpha: float) -> float:
    """``s_x``: sample standard deviation (ddof = 1) of the per-query risk-reward scores
    ``x_q`` (:func:`riskeval.core.paired.risk_scores`; Dinçer, Macdonald & Ounis, SIGIR 2014,
    eq. 3 and 8)."""
    from riskeval.core.paired import risk_scores  # numba: imported on use

    return float(np.std(risk_scores(delta, alpha), ddof=1))


def jforests_risk_sd(baseline: np.ndarray, relevant: np.ndarray, alpha: float) -> float:
    """``s_x`` as Jforests estimates it, once, before the first tree: against a model whose NDCG@k is
    0 on every query, so ``x_q = (1+α)(0 − M_b(q))`` and ``s_x = (1+α)·sd(M_b)`` (ddof = 1).  Jforests
    scores a query without relevant documents (``relevant`` False) NDCG 1, so its ``M_b`` is 1 here.
    """
    b = np.where(relevant, baseline, 1.0)
    return risk_sd(-b, alpha)


def lowest_label_first(labels: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The documents' positions with each query's documents in ascending order of label (ties in
    input order).  Jforests ranks documents of equal score lowest label first; LightGBM, and
    riskeval's kernels, rank them in input order: the ``jforests`` variant hands the kernels the
    documents in this order, so that their ties fall as Jforests' do."""
    query = np.repeat(np.arange(bounds.shape[0] - 1), np.diff(bounds))
    return np.lexsort((labels, query))


def georisk_parameters(
    m: np.ndarray, baselines: np.ndarray, alpha: float, update: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """Per-query and global parameters of the GeoRisk ratio (:func:`kernels.georisk_ratio`).

    Over the matrix ``[m; baselines]`` (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–8): ``S`` the
    model's total, ``T_q`` the query totals, ``N`` the grand total, ``e_q = S·T_q/N``,
    ``z_q = (m_q − e_q)/√e_q`` (0 where ``e_q = 0``), ``ZRisk = Σ w(z_q)`` with ``w(z) = z`` for
    ``z ≥ 0`` and ``(1+α)z`` below, and ``GeoRisk = sqrt(S/c · Φ(ZRisk/c))``.

    A change Δ of ``m_q`` moves ``S``, ``T_q`` and ``N`` and so every ``e_j``.  Query q's z is
    recomputed exactly; the others move to first order: with ``ρ = S/N``,
    ``∂z_j/∂Δ = −(1 − ρ)(z_j + 2√e_j)/(2ρN)``, so
    ``∂ZRisk_others/∂Δ = −(1−ρ)/(2ρN) · Σ_{j≠q} w'(z_j)(z_j + 2√e_j)`` — one O(Q) sum per
    iteration, O(1) per swap.  ``update="shortcut"`` is the paper's: only query q's z is
    recomputed.

    ``|ΔGeoRisk|`` is expressed in NDCG units by dividing it by ``∂GeoRisk/∂S = GeoRisk/(2S)`` (the
    change per unit of NDCG at fixed ZRisk), so that gradients have LambdaMART's scale and
    LightGBM's regularisation parameters keep their meaning.  Returns ``None`` when the model's
    total is 0 (GeoRisk = 0 has no finite derivative); the caller then uses ratio 1.
    """
    from riskeval.core.paired import risk_scores

    c = m.shape[0]
    S = float(m.sum())
    T = m + baselines.sum(axis=0)
    N = float(T.sum())
    if S <= 0.0 or N <= 0.0:
        return None
    rho = S / N
    e = rho * T
    root = np.sqrt(e)
    positive = e > 0.0
    z = np.zeros(c)
    np.divide(m - e, root, out=z, where=positive)
    slope = np.where(z < 0.0, 1.0 + alpha, 1.0)  # w'(z)
    zrisk = float(np.sum(risk_scores(z, alpha)))  # w(z) is the risk-reward score of z
    phi_c = float(ndtr(zrisk / c))
    geo = float(np.sqrt(S / c * phi_c))
    if update == "first_order":
        own = slope * (z + 2.0 * root)
        d_others = -(1.0 - rho) / (2.0 * rho * N) * (own.sum() - own)
    else:
        d_others = np.zeros(c)
    # ratio as Δ → 0 (pairs that leave NDCG@k unchanged): |1 + S φ(ZRisk/c) ∂ZRisk/∂Δ / (c Φ)|,
    # with ∂e_q/∂Δ = e_q (1/S + 1/T_q − 1/N) and ∂z_q/∂Δ = ((1 − ∂e_q) − z_q ∂e_q / (2√e_q)) / √e_q
    dz = np.zeros(c)
    with np.errstate(divide="ignore", invalid="ignore"):
        de = e * (1.0 / S + 1.0 / T - 1.0 / N)
        np.divide((1.0 - de) - z * de / (2.0 * root), root, out=dz, where=positive)
    density = float(np.exp(-0.5 * (zrisk / c) ** 2) / np.sqrt(2.0 * np.pi))
    ratio0 = np.abs(1.0 + S * density / (c * phi_c) * (slope * dz + d_others))
    qp = np.column_stack([m, T, z, d_others, ratio0])
    gp = np.array([S, N, float(c), alpha, zrisk, geo, 2.0 * S / geo])
    return np.ascontiguousarray(qp), gp


@functools.lru_cache(maxsize=4)
def _sigmoid_table(sigmoid: float) -> tuple[np.ndarray, float, float, float]:
    """LightGBM's sigmoid table (8 MB), built once per σ and shared read-only."""
    from riskeval.ltr import kernels

    table, lo, hi, factor = kernels.sigmoid_table(sigmoid)
    table.flags.writeable = False
    return table, lo, hi, factor


@functools.lru_cache(maxsize=1)
def _discounts() -> np.ndarray:
    from riskeval.ltr import kernels

    disc = kernels.discounts()
    disc.flags.writeable = False
    return disc


def _numba_max_threads() -> int:
    """The size of numba's thread pool (``NUMBA_NUM_THREADS``)."""
    from numba.np.ufunc.parallel import get_thread_count

    return int(get_thread_count())


@contextlib.contextmanager
def numba_threads(n: int | None, chunk: int = 1) -> Iterator[None]:
    """Run numba's parallel kernels on ``n`` threads (all when ``None``) handing out ``chunk``
    tasks at a time (dynamic scheduling: a thread slowed by other work takes fewer), then
    restore the caller's settings (numba keeps both per calling thread)."""
    import numba

    old_threads = numba.get_num_threads()
    old_chunk = numba.get_parallel_chunksize()
    if n and n > 0:
        numba.set_num_threads(min(int(n), _numba_max_threads()))
    numba.set_parallel_chunksize(chunk)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(old_chunk)
        numba.set_num_threads(old_threads)


def lightgbm_threads(params: dict) -> int | None:
    """LightGBM's ``num_threads`` (any alias) from ``params``; ``None`` when unset or 0."""
    for name in _NUM_THREADS:
        if name in params and params[name] is not None:
            value = params[name]
            try:
                n = int(value)
            except (TypeError, ValueError):
                raise RiskevalError(
                    f"The LightGBM parameter '{name}' must be an integer. Got {value!r}."
                ) from None
            return n if n > 0 else None
    return None


class RiskObjective:
    """A LightGBM custom objective ``fobj(preds, train_data) -> (grad, hess)``.

    Build it with :func:`riskeval.ltr.train` (which resolves baselines and LightGBM parameters)
    rather than directly.  ``baselines`` is a (systems × queries) matrix of NDCG@k values (one row
    for U-CRO/T-SARO/T-FARO; T*-FARO uses the mean of its rows).  State kept between iterations:
    ``iteration`` (gradient evaluations so far) and ``risk_sd_`` (the ``s_x`` in use by T-SARO and
    T-FARO).  The returned gradient and hessian arrays are reused (overwritten) by the next call,
    as LightGBM only reads them during its update; copy them to keep them.
    """

    def __init__(
        self,
        objective: str,
        labels: np.ndarray,
        bounds: np.ndarray,
        *,
        alpha: float = 0.0,
        baselines: np.ndarray | None = None,
        k: int = 10,
        truncation_level: int = 30,
        norm: bool = True,
        sigmoid: float = 1.0,
        label_gain: np.ndarray,
        sx_update: str = "first_tree",
        georisk_update: str = "first_order",
        variant: str = "paper",
        num_threads: int | None = None,
    ):
        from riskeval.ltr import kernels

        self.objective, self.sx_update, self.georisk_update, self.variant = check_ltr_options(
            "train", objective=objective, sx_update=sx_update, georisk_update=georisk_update, variant=variant
        )
        self.alpha = check_alpha(alpha, "train")
        self.jforests = self.variant == "jforests" and self.objective in JFORESTS_OBJECTIVES
        if self.jforests and self.sx_update != "first_tree":
            raise RiskevalError(
                "variant='jforests' estimates s_x once, before the first tree, as Jforests does; "
                "it takes sx_update='first_tree'."
            )
        if isinstance(sigmoid, bool) or not isinstance(sigmoid, (int, float)) or not sigmoid > 0:
            raise RiskevalError(f"The LightGBM parameter 'sigmoid' must be a number > 0. Got {sigmoid!r}.")
        self.k = int(k)
        self.truncation_level = int(truncation_level)
        self.norm = bool(norm)
        self.sigmoid = float(sigmoid)
        self.num_threads = num_threads
        # variant="jforests": the kernels see each query's documents lowest label first
        self._tie_order = lowest_label_first(labels, bounds) if self.jforests else None
        self.labels = labels if self._tie_order is None else labels[self._tie_order]
        self.bounds = bounds
        self.gains = label_gain
        self.baselines = baselines
        self.iteration = 0
        self.risk_sd_: float | None = None
        nq = bounds.shape[0] - 1
        if self.objective in ("tsaro", "tfaro", "tstar_faro") and nq < 2:
            raise RiskevalError(f"{objective} needs at least 2 training queries to estimate s_x.")
        table, lo, hi, factor = _sigmoid_table(self.sigmoid)
        disc = _discounts()
        with numba_threads(num_threads):
            self._inv = kernels.inverse(
                kernels.max_dcgs(labels, bounds, self.truncation_level, self.gains, disc)
            )
            self._inv_k = kernels.inverse(kernels.max_dcgs(labels, bounds, self.k, self.gains, disc))
        self._loop = kernels.PairLoop(
            self.gains,
            disc,
            table,
            lo,
            hi,
            factor,
            self.sigmoid,
            self.truncation_level,
            self.norm,
            self.k,
            kernels.CONSTANT,
        )
        self._reference = np.zeros(nq) if baselines is None else baselines.mean(axis=0)
        if self.jforests and self.objective != "ucro":
            self.risk_sd_ = jforests_risk_sd(self._reference, self._inv_k > 0.0, self.alpha)
        # each query's ranking by the latest scores (re-sorted from there at the next call)
        self._order = np.arange(labels.shape[0])
        # returned to LightGBM, which uses them during its update only: reused at every call
        self._grad = np.empty(labels.shape[0], dtype=np.float32)
        self._hess = np.empty(labels.shape[0], dtype=np.float32)
        self._zeros = (np.zeros((nq, 5)), np.zeros(7))
        if self._tie_order is not None:  # gradients back in the caller's order
            self._jforests_out = (np.empty_like(self._grad), np.empty_like(self._hess))

    def __deepcopy__(self, memo: dict) -> RiskObjective:
        # lightgbm.train deep-copies its params: keep one objective (and its state), not a copy
        return self

    def __call__(self, preds: np.ndarray, train_data: object = None) -> tuple[np.ndarray, np.ndarray]:
        scores = np.ascontiguousarray(preds, dtype=np.float64)
        if scores.shape != self.labels.shape:
            raise RiskevalError(
                f"The objective was built for {self.labels.shape[0]} documents; got scores for "
                f"{scores.shape[0]}."
            )
        from riskeval.ltr import kernels

        if self._tie_order is not None:
            scores = scores[self._tie_order]
        grad, hess = self._grad, self._hess
        loop = self._loop
        rule = self._one_pass_rule()
        with numba_threads(self.num_threads):
            if rule is not None:
                mode = kernels.CROSSING if rule in (kernels.UCRO, kernels.TSARO) else kernels.CONSTANT
                if self.jforests and mode == kernels.CROSSING:
                    mode = kernels.CROSSING_UNTRUNCATED
                kernels.fused_lambdas(
                    scores,
                    self.labels,
                    self.bounds,
                    self._order,
                    self._inv,
                    self._inv_k,
                    rule,
                    self._reference,
                    self.alpha,
                    self.risk_sd_ or 0.0,
                    self.jforests,
                    loop._replace(mode=mode),
                    grad,
                    hess,
                )
            else:
                m = kernels.rank_and_score(
                    scores,
                    self.labels,
                    self.bounds,
                    self.k,
                    self.gains,
                    loop.disc,
                    self._inv_k,
                    self._order,
                )
                mode, qp, gp = self._ratio_parameters(m)
                kernels.lambdas(
                    scores,
                    self.labels,
                    self.bounds,
                    self._order,
                    self._inv,
                    self._inv_k,
                    qp,
                    gp,
                    loop._replace(mode=mode),
                    grad,
                    hess,
                )
        self.iteration += 1
        if self._tie_order is not None:
            out_grad, out_hess = self._jforests_out
            out_grad[self._tie_order] = grad
            out_hess[self._tie_order] = hess
            return out_grad, out_hess
        return grad, hess

    def _one_pass_rule(self) -> int | None:
        """The per-query rule when each query's ratio parameters follow from its own NDCG@k, else
        ``None`` (GeoRisk, or an iteration that estimates ``s_x`` from every query)."""
        from riskeval.ltr import kernels

        name = self.objective
        if name == "lambdarank" or self.alpha == 0.0 and name == GeoRisk.column:
            # α = 0 is LambdaMART for every objective (SIGIR 2014, footnote 6; SIGIR 2016, footnote 5)
            return kernels.PLAIN
        if self.jforests:
            # the first tree takes the model's NDCG@k as 0 on every query: parameters apart
            if self.iteration == 0:
                return None
            return kernels.UCRO if name == "ucro" else kernels.TFARO if name in _FARO else kernels.TSARO
        if name == "ucro":
            return kernels.UCRO
        if name == GeoRisk.column or self._estimate_sd():
            return None
        return kernels.TSARO if name == "tsaro" else kernels.TFARO

    def _estimate_sd(self) -> bool:
        # "first_tree": estimated after the first boosting iteration and kept (SIGIR 2014, §6.3);
        # the first iteration uses the starting model's
        return self.risk_sd_ is None or self.sx_update == "every_tree" or self.iteration == 1

    def _ratio_parameters(self, m: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        from riskeval.ltr import kernels

        if self.objective == GeoRisk.column:
            assert self.baselines is not None  # GeoRisk is built with its baselines
            params = georisk_parameters(m, self.baselines, self.alpha, self.georisk_update)
            if params is None:
                return kernels.CONSTANT, *self._zeros
            return kernels.GEORISK, params[0], params[1]
        qp = np.zeros((m.shape[0], 5))
        if self.jforests:  # the first tree: the model's NDCG@k taken as 0
            delta = -self._reference
            if self.objective == "ucro":
                qp[:, 0] = self.alpha
            else:
                qp[:, 0] = trisk_alphas(delta, self.alpha, self.risk_sd_ or 0.0, raw=True)
            if self.objective in _FARO:
                return kernels.CONSTANT, qp, self._zeros[1]
            qp[:, 1] = delta
            return kernels.CROSSING_UNTRUNCATED, qp, self._zeros[1]
        delta = m - self._reference
        self.risk_sd_ = risk_sd(delta, self.alpha)
        qp[:, 0] = trisk_alphas(delta, self.alpha, self.risk_sd_)
        if self.objective == "tsaro":
            qp[:, 1] = delta
            return kernels.CROSSING, qp, self._zeros[1]
        return kernels.CONSTANT, qp, self._zeros[1]

"""The baseline-bias study (Dinçer, Ounis & Macdonald, ECIR 2014, §2.3–2.4 and §3).

Each system in turn is the baseline; the URisk ranking of the others changes with that choice
(Table 2), which a Friedman test makes formal; the Pearson correlation of each system with the
baseline across topics and a PCA of the run × topic matrix (Figures 1–2) show why: a baseline
favours the systems whose per-topic profile resembles its own.  The per-topic MEAN, MEDIAN and MAX
can join as virtual runs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from riskeval import _display
from riskeval.core import baselines as agg
from riskeval.core import paired, pairwise
from riskeval.errors import RiskevalError
from riskeval.measures.declared import URisk
from riskeval.model.matrix import as_matrix
from riskeval.options import AGGREGATES, check_alpha, check_option


@dataclass(frozen=True)
class PCAResult:
    """PCA of the run × topic matrix, columns centred by their topic means.

    ``explained`` (% of the total sum of squared deviations per component), ``coordinates``
    (runs × components: the run scores on the principal axes), ``loadings`` (topics × components).
    """

    explained: pd.Series
    coordinates: pd.DataFrame
    loadings: pd.DataFrame


@dataclass(frozen=True)
class BiasStudy:
    """Result of :func:`bias_study`.

    ``urisk``: baselines (rows) × systems (columns), URisk(α) of each system against each baseline
    (0 where a system is its own baseline).  ``ranks``: rank of each system among the others for
    each baseline (1 = highest URisk; NaN for the baseline itself).  ``friedman``: scipy's
    Friedman test with systems as treatments and real-system baselines as blocks on the URisk
    values (the paper's Table 2 test, p = 0.0003).  ``correlation``: Pearson correlation across
    topics between every pair of runs (NaN for a run with the same score on every topic).
    ``pca``: :class:`PCAResult`.  Virtual runs (``"MEAN"``, ``"MEDIAN"``, ``"MAX"``) appear as
    extra baselines, in the correlations and in the PCA.
    """

    alpha: float
    urisk: pd.DataFrame
    ranks: pd.DataFrame
    friedman: Any
    correlation: pd.DataFrame
    pca: PCAResult

    def summary(self) -> pd.DataFrame:
        """One row per system, by mean rank: its mean, best and worst rank among the others over
        the real-system baselines (how much the choice of baseline moves it, Table 2 of the paper)
        and its URisk(α) against each virtual baseline."""
        real = self.ranks.loc[list(self.ranks.columns)]
        out = pd.DataFrame(
            {"mean rank": real.mean(), "best rank": real.min(), "worst rank": real.max()},
            index=self.ranks.columns,
        )
        for name in self.urisk.index[len(self.ranks.columns) :]:
            out[f"URisk vs {name}"] = self.urisk.loc[name]
        return out.sort_values("mean rank", kind="stable").rename_axis("system")

    def _facts(self) -> list[str]:
        r = self.urisk.shape[1]
        virtual = list(self.urisk.index[r:])
        return [
            f"{r} systems × {self.pca.loadings.shape[0]} topics",
            f"α = {self.alpha:g}",
            f"virtual baselines: {', '.join(map(str, virtual)) or 'none'}",
            f"Friedman χ² = {self.friedman.statistic:.4g}, p = {self.friedman.pvalue:.3g}",
        ]

    def __repr__(self) -> str:
        return f"<BiasStudy: {'; '.join(self._facts())}>"

    def _repr_html_(self) -> str:
        return _display.block(
            "Baseline-bias study",
            self._facts(),
            [("Systems by their mean rank over the real-system baselines", self.summary())],
            note="Attributes: urisk, ranks (baselines × systems), friedman, correlation, pca.",
        )


def bias_study(
    X: Any,
    alpha: float = 1.0,
    *,
    virtual: Any = ("mean", "median", "max"),
    progress: bool | None = None,
) -> BiasStudy:
    """Run the baseline-bias study on score matrix ``X`` at risk level ``alpha``.

    Every system is every other's baseline: r²·c cell visits by nature, halved by symmetry
    (:mod:`riskeval.core.pairwise`).  ``progress``: a progress bar on stderr (default: when stderr
    is a terminal and the matrix has more than 10⁹ cell visits to make).
    """
    M = as_matrix(X)
    alpha = check_alpha(alpha, "bias_study")
    kinds = [virtual] if isinstance(virtual, str) else list(virtual or ())
    kinds = [check_option(k, AGGREGATES, "bias_study", "virtual") for k in kinds]
    values = M.to_numpy()
    r, c = values.shape
    if r < 3 or c < 2:
        raise RiskevalError(f"bias_study needs at least 3 systems and 2 topics; got {r} × {c}.")
    virtual_rows = {k.upper(): agg.aggregate(values, k.lower()) for k in kinds}
    runs = pd.DataFrame(
        np.vstack([values, *virtual_rows.values()]) if virtual_rows else values,
        index=pd.Index([*M.index, *virtual_rows], name="run"),
        columns=M.columns,
    )
    U = _urisk_against_every_run(values, list(virtual_rows.values()), alpha, progress)
    urisk = pd.DataFrame(U, index=runs.index.rename("baseline"), columns=M.index)
    others = U.copy()
    others[np.arange(r), np.arange(r)] = np.nan  # a baseline does not rank itself
    ranks = pd.DataFrame(others, index=urisk.index, columns=urisk.columns).rank(
        axis=1, ascending=False, method="average"
    )
    friedman = stats.friedmanchisquare(*U[:r].T)
    # a constant run correlates with nothing: NaN
    with np.errstate(divide="ignore", invalid="ignore"), threadpool_limits(1, user_api="blas"):
        corr = pd.DataFrame(np.corrcoef(runs.to_numpy()), index=runs.index, columns=runs.index)
    return BiasStudy(alpha, urisk, ranks, friedman, corr, pca(runs))


def _urisk_against_every_run(
    values: np.ndarray, virtual: list[np.ndarray], alpha: float, progress: bool | None
) -> np.ndarray:
    """URisk(α) of every system (columns) against every system, then every virtual run (rows)."""
    r, c = values.shape
    S = values.sum(axis=1)
    visits = r * r * c // 2
    show = sys.stderr.isatty() and visits > 10**9 if progress is None else bool(progress)
    bar = tqdm(total=r, desc="bias study: baselines", unit="run", disable=not show, file=sys.stderr)
    with bar:
        N = pairwise.negative_part_sums(values, progress=bar.update)
    # Σδ⁻ of every pair from the pairwise kernel, Σδ⁺ = Σδ − Σδ⁻: URisk's own formula on these sums
    # (the moments and counts, which URisk does not read, are left NaN)
    unread = np.full((r, r), np.nan)
    pairs = paired.PairedSums(float(c), (S[None, :] - S[:, None]) - N, N, *[unread] * 7)
    own = URisk().value(pairs, alpha)
    others = [URisk().value(paired.paired_sums(values, b), alpha) for b in virtual]
    return np.vstack([own, *others]) if others else own


#: Beyond this many cells of the run × topic matrix the PCA keeps the leading components only.
PCA_FULL_CELLS = 4_000_000
#: Components kept beyond :data:`PCA_FULL_CELLS`.
PCA_COMPONENTS = 10


def pca(runs: pd.DataFrame) -> PCAResult:
    """PCA by SVD of the topic-centred run × topic matrix (Dinçer, Ounis & Macdonald, ECIR 2014, §2.4).

    Up to :data:`PCA_FULL_CELLS` cells every component is kept (the economy SVD: min(runs, topics)
    components); beyond, the leading :data:`PCA_COMPONENTS` (a truncated SVD, ARPACK), whose
    ``explained`` shares are still of the total sum of squares, so that they keep their meaning.
    The SVD runs on one BLAS thread: its bits do not depend on the thread count, and threads that
    wait for one another do not stall it when other processes hold the cores.
    """
    centred = runs.to_numpy() - runs.to_numpy().mean(axis=0)
    with threadpool_limits(1, user_api="blas"):
        if centred.size > PCA_FULL_CELLS and min(centred.shape) > PCA_COMPONENTS + 1:
            from scipy.sparse.linalg import svds

            v0 = np.full(min(centred.shape), 1.0 / np.sqrt(min(centred.shape)))  # deterministic start
            u, s, vt = svds(centred, k=PCA_COMPONENTS, v0=v0)
            order = np.argsort(s)[::-1]
            u, s, vt = u[:, order], s[order], vt[order]
            total = float(np.einsum("ij,ij->", centred, centred))
        else:
            u, s, vt = np.linalg.svd(centred, full_matrices=False)
            total = float((s**2).sum())
    # A deterministic sign: each axis points towards its largest loading.
    flip = np.sign(vt[np.arange(vt.shape[0]), np.abs(vt).argmax(axis=1)])
    flip[flip == 0] = 1.0
    u, vt = u * flip, vt * flip[:, None]
    names = [f"PC{i + 1}" for i in range(s.size)]
    explained = pd.Series(
        100 * s**2 / total if total > 0 else np.zeros_like(s), index=names, name="explained_%"
    )
    coords = pd.DataFrame(u * s, index=runs.index, columns=names)
    loadings = pd.DataFrame(vt.T, index=runs.columns, columns=names)
    return PCAResult(explained, coords, loadings)

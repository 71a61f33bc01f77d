"""A seeded synthetic learning-to-rank set, for tests, examples and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from riskeval.errors import RiskevalError


class RankingData(NamedTuple):
    """Features, labels and query groups of a learning-to-rank set.

    ``X`` is (documents × features), ``y`` integer relevance labels, ``group`` the number of
    documents of each query in order (LightGBM's group sizes) and ``qid`` each document's query id.
    """

    X: np.ndarray
    y: np.ndarray
    group: np.ndarray
    qid: np.ndarray


def make_ranking(
    n_queries: int = 100,
    docs_per_query: int = 50,
    n_features: int = 20,
    *,
    max_label: int = 4,
    label_shares: Sequence[float] | None = None,
    noise: float = 1.0,
    rng: int | np.random.Generator | None = 0,
) -> RankingData:
    """Draw a ranking problem whose labels depend on a few features, with query-level difficulty.

    Each document's latent relevance is a linear function of the first ``min(5, n_features)``
    features plus a query effect and Gaussian noise (``noise``); labels ``0..max_label`` are cut
    at fixed quantiles of that latent score, so most documents are non-relevant as in web data
    (``label_shares``: the share of each label instead, e.g. MSLR-Web10K's
    ``(0.52, 0.32, 0.13, 0.02, 0.01)``).
    Feature 0 is a noisy copy of the latent score (a "BM25-like" single-feature baseline), and the
    last feature takes only 4 values, so rankings by it have ties.  ``rng`` (an int seed, None or a
    :class:`numpy.random.Generator`) draws everything.
    """
    sizes = (n_queries, docs_per_query, n_features, max_label)
    if any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in sizes):
        raise RiskevalError(
            "make_ranking needs integers n_queries, docs_per_query, n_features and max_label; got "
            f"{n_queries!r}, {docs_per_query!r}, {n_features!r}, {max_label!r}."
        )
    if n_queries < 1 or docs_per_query < 2 or n_features < 2:
        raise RiskevalError(
            "make_ranking needs n_queries >= 1, docs_per_query >= 2 and n_features >= 2; got "
            f"{n_queries}, {docs_per_query}, {n_features}."
        )
    if not 1 <= max_label <= 30:
        raise RiskevalError(f"max_label must be between 1 and 30; got {max_label}.")
    if label_shares is not None:
        shares = np.asarray(label_shares, dtype=np.float64)
        if shares.shape != (max_label + 1,) or (shares < 0).any() or not np.isclose(shares.sum(), 1.0):
            raise RiskevalError(
                f"label_shares must give one share >= 0 per label 0..{max_label}, adding up to 1; "
                f"got {label_shares!r}."
            )
        quantiles = np.cumsum(shares)[:-1]
    else:
        quantiles = np.linspace(0.6, 0.97, max_label)
    rng = np.random.default_rng(rng)
    n = n_queries * docs_per_query
    X = rng.standard_normal((n, n_features))
    informative = min(5, n_features)
    weights = rng.uniform(0.5, 1.5, size=informative)
    query_effect = np.repeat(rng.normal(0.0, 1.0, size=n_queries), docs_per_query)
    latent = X[:, :informative] @ weights + query_effect + rng.normal(0.0, noise, size=n)
    cuts = np.quantile(latent, quantiles)
    y = np.searchsorted(cuts, latent).astype(np.int64)
    X[:, 0] = latent + rng.normal(0.0, 2.0 * noise, size=n)
    X[:, -1] = np.floor(rng.uniform(0, 4, size=n))
    group = np.full(n_queries, docs_per_query, dtype=np.int64)
    qid = np.repeat(np.arange(n_queries, dtype=np.int64), docs_per_query)
    return RankingData(X, y, group, qid)

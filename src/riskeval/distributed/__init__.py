"""Scale-out on Dask (``pip install "riskeval[dask]"``): a client on a local or an existing cluster
(:func:`cluster`, :mod:`riskeval.distributed.client`) to evaluate runs on
(:func:`riskeval.evaluate_runs` with ``client=``), and the risk measures of a long score table larger
than memory, from mergeable partial sums (:mod:`riskeval.distributed.risk`)."""

from riskeval.distributed.client import cluster

__all__ = ["cluster"]

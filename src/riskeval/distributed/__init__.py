"""Scale-out on Dask (``pip install "riskeval[dask]"``): a cluster to evaluate runs on
(:mod:`riskeval.distributed.cluster`), and the risk measures of a long score table larger than
memory, from mergeable partial sums (:mod:`riskeval.distributed.risk`)."""

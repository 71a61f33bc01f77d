"""``--scheduler ADDRESS`` / ``--workers N``: run a command on a Dask cluster.

With either option, :func:`riskeval.distributed.cluster` is open while the command runs (connected to
the scheduler at ADDRESS, or a local cluster of N worker processes started for the command and shut
down after it) and the command gets its client as ``client`` (``None`` without the options).
Without dask and distributed installed (``pip install "riskeval[dask]"``), either option is a
one-line error naming the extra.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from riskeval.cli._input import WholeNumber
from riskeval.errors import RiskevalError

_OPTIONS = [
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        help="Evaluate runs on the Dask cluster whose scheduler is at ADDRESS (e.g. "
        "tcp://10.0.0.5:8786); its workers must see the run files at the same paths. risk also "
        "computes the risk table of a long Parquet score table there. Needs "
        'pip install "riskeval[dask]".',
    ),
    click.option(
        "--workers",
        type=WholeNumber(1),
        metavar="N",
        help="Evaluate runs on a local Dask cluster of N worker processes, started for this "
        "command (risk: and the risk table of a long Parquet score table). Needs "
        'pip install "riskeval[dask]".',
    ),
]


def cluster_options(func: Callable) -> Callable:
    """Add ``--scheduler`` and ``--workers`` to a command, which gets the open client as ``client``."""

    @functools.wraps(func)
    def wrapper(*args: Any, scheduler: str | None = None, workers: int | None = None, **kwargs: Any) -> Any:
        if scheduler is None and workers is None:
            return func(*args, client=None, **kwargs)
        if scheduler is not None and workers is not None:
            raise click.UsageError(
                "Use either --scheduler (an existing cluster) or --workers (a local one), not both."
            )
        from riskeval._optional import require
        from riskeval.distributed.client import address_problem, cluster

        problem = None if scheduler is None else address_problem(scheduler)
        if problem is not None:
            raise RiskevalError(f"The '--scheduler' option {problem}")

        require("distributed", f"riskeval {'--scheduler' if scheduler is not None else '--workers'}")
        with cluster(workers, scheduler=scheduler) as client:
            return func(*args, client=client, **kwargs)

    return functools.reduce(lambda f, option: option(f), reversed(_OPTIONS), wrapper)

"""A Dask client for the length of a ``with`` block: on a local cluster started for it, or on an
existing cluster given by its scheduler's address."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from riskeval._optional import require
from riskeval.errors import RiskevalError


@contextlib.contextmanager
def cluster(
    workers: int | None = None, *, scheduler: str | None = None, timeout: str = "20s"
) -> Iterator[Any]:
    """A ``dask.distributed.Client``, closed (with its local cluster) when the block ends.

    Parameters
    ----------
    workers : start a local cluster of this many worker processes, one thread each (evaluation holds
        Python's GIL, so processes, not threads, run in parallel).
    scheduler : instead, connect to the scheduler at this address (``"tcp://10.0.0.5:8786"``).
    timeout : how long to try connecting to ``scheduler``.

    Notes
    -----
    Exactly one of ``workers`` and ``scheduler`` is given.  While the block runs, the client is Dask's
    current client (in this thread), so :func:`riskeval.analysis.long_risk_table` runs on it; pass it to
    :func:`riskeval.evaluate_runs` as ``client=``.

    Raises
    ------
    RiskevalError
        Both or neither given, ``workers`` < 1, or no scheduler reachable at ``scheduler`` (a bad
        address, or nothing answering there within ``timeout``).
    MissingDependencyError
        dask and distributed are not installed (``pip install "riskeval[dask]"``).

    Examples
    --------
    >>> import riskeval as rk
    >>> from riskeval.distributed import cluster
    >>> with cluster(2) as client:  # doctest: +SKIP
    ...     M = rk.evaluate_runs("qrels.txt", ["a.run.gz", "b.run.gz"], client=client)
    """
    if (workers is None) == (scheduler is None):
        raise RiskevalError(
            "cluster() takes either workers= (a local cluster) or scheduler= (an existing one's "
            f"address), not both or neither; got workers={workers!r}, scheduler={scheduler!r}."
        )
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise RiskevalError(f"The 'workers' parameter of cluster must be an integer >= 1. Got {workers!r}.")
    distributed = require("distributed", "riskeval's cluster")
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            try:
                client = stack.enter_context(
                    distributed.Client(scheduler, timeout=timeout, set_as_default=False)
                )
            except (OSError, TimeoutError, ValueError, TypeError) as exc:
                raise RiskevalError(
                    f"Cannot connect to the Dask scheduler at {scheduler!r}: {exc}. Give the address "
                    "of a running scheduler, e.g. tcp://10.0.0.5:8786 (dask scheduler prints it)."
                ) from None
        else:
            local = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
            )
            client = stack.enter_context(distributed.Client(local, set_as_default=False))
        # Dask's current client only once connected: a failed connection leaves Dask as it was
        stack.enter_context(client.as_current())
        yield client

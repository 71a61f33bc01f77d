"""A Dask client for the length of a ``with`` block: on a local cluster started for it, or on an
existing cluster given by its scheduler's address."""

from __future__ import annotations

import contextlib
import re
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
        Both or neither given, ``workers`` < 1, ``scheduler`` not an address of the form
        ``[PROTOCOL://]HOST:PORT`` (:func:`address_problem`), or no scheduler answering there within
        ``timeout``.
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
    if scheduler is not None:
        problem = address_problem(scheduler)
        if problem is not None:
            raise RiskevalError(f"The 'scheduler' parameter of cluster {problem}")
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
            local = stack.enter_context(_local_cluster(distributed, workers))
            client = stack.enter_context(distributed.Client(local, set_as_default=False))
        # Dask's current client only once connected: a failed connection leaves Dask as it was
        stack.enter_context(client.as_current())
        yield client


#: Times a local cluster is started again after a worker process stopped while it started.
START_ATTEMPTS = 3


def _local_cluster(distributed: Any, workers: int | None) -> Any:
    """A ``LocalCluster`` of ``workers`` single-threaded processes, started again (up to
    :data:`START_ATTEMPTS` times in all) when a worker process stops before the cluster is up."""
    problem: Exception | None = None
    for _ in range(START_ATTEMPTS):
        try:
            return distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                # the scheduler's HTTP server (its health checks) on a free local port, not on 8787,
                # which another cluster may hold ("Port 8787 is already in use", a warning)
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            )
        except (RuntimeError, OSError) as exc:  # "Nanny failed to start", a lost connection, a timeout
            problem = exc
    why = str(problem).rstrip(".")
    raise RiskevalError(
        f"The local Dask cluster of {workers} worker process(es) did not start: a worker process "
        f"stopped while starting, {START_ATTEMPTS} times in a row ({why}). Check the memory free "
        "for the workers, start fewer workers (--workers), or evaluate without a cluster."
    )


#: The protocols of a Dask scheduler's address (distributed's ``comm`` backends reached over a
#: network; ``inproc://`` addresses are in-process, checked by distributed itself).
PROTOCOLS = ("tcp", "tls", "ws", "wss", "ucx")
_HOST = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def address_problem(address: Any) -> str | None:
    """What is wrong with a scheduler address, as the end of a sentence ("must be ..."), or
    ``None`` for an address of the form ``[PROTOCOL://]HOST:PORT``: PROTOCOL one of
    :data:`PROTOCOLS` (default tcp), HOST a host name, an IPv4 address or an IPv6 address in
    brackets, PORT from 1 to 65535.

    Checked before distributed sees the address: it would report a malformed one only after trying
    to connect, then block the process's exit for its own close timeout.
    """
    form = (
        "must be a Dask scheduler address tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786 (the address "
        "dask scheduler prints)"
    )
    if not isinstance(address, str):
        return f"{form}. Got {address!r}."
    protocol, sep, rest = address.partition("://")
    if not sep:
        protocol, rest = "tcp", address
    if protocol == "inproc":
        return None
    if protocol not in PROTOCOLS:
        return f"{form}; the protocol {protocol!r} is none of {', '.join(PROTOCOLS)}. Got {address!r}."
    host, colon, port = rest.rpartition(":")
    if not colon or not _HOST.fullmatch(host):
        return f"{form}. Got {address!r}."
    if not port.isascii() or not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"{form}; the port must be a number from 1 to 65535. Got {address!r}."
    return None

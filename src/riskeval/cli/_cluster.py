"""``--scheduler ADDRESS`` / ``--workers N``: evaluate runs on a Dask cluster.

The options wrap a command: with either of them, a ``dask.distributed.Client`` is open while the
command runs (connected to the scheduler at ADDRESS, or to a local cluster of N worker processes
started for the command and shut down after it), and :func:`active_client` hands it to
:func:`riskeval.evaluate_runs`.  Without dask and distributed installed (``pip install
"riskeval[dask]"``), either option is a one-line error naming the extra.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import click

from riskeval.cli._input import WholeNumber

_client: Any = None

_OPTIONS = [
    click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Evaluate runs on the Dask cluster whose scheduler is at ADDRESS (e.g. "
        "tcp://10.0.0.5:8786); its workers must see the run files at the same paths. risk also "
        "computes the risk table of a long Parquet score table there. Needs "
        'pip install "riskeval[dask]".',
    ),
    click.option(
        "--workers",
        type=WholeNumber(1),
        default=None,
        metavar="N",
        help="Evaluate runs on a local Dask cluster of N worker processes, started for this "
        "command (risk: and the risk table of a long Parquet score table). Needs "
        'pip install "riskeval[dask]".',
    ),
]


def cluster_options(func: Callable) -> Callable:
    """Add ``--scheduler`` and ``--workers`` to a command; the client is open while it runs."""

    @functools.wraps(func)
    def wrapper(*args: Any, scheduler: str | None = None, workers: int | None = None, **kwargs: Any) -> Any:
        with cluster(scheduler, workers):
            return func(*args, **kwargs)

    return functools.reduce(lambda f, option: option(f), reversed(_OPTIONS), wrapper)


def active_client() -> Any:
    """The client that ``--scheduler``/``--workers`` opened, or ``None``."""
    return _client


@contextlib.contextmanager
def cluster(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """A client connected to ``scheduler`` or to a local cluster of ``workers`` processes (or
    nothing when both are ``None``), made the active client while the block runs."""
    global _client
    if scheduler is None and workers is None:
        yield None
        return
    if scheduler is not None and workers is not None:
        raise click.UsageError(
            "Use either --scheduler (an existing cluster) or --workers (a local one), not both."
        )
    from riskeval._optional import require
    from riskeval.errors import RiskevalError

    option = "--scheduler" if scheduler is not None else "--workers"
    distributed = require("distributed", f"riskeval {option}")
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            try:
                client = stack.enter_context(distributed.Client(scheduler, timeout="20s"))
            except (OSError, TimeoutError) as exc:
                raise RiskevalError(f"Cannot connect to the Dask scheduler at {scheduler}: {exc}") from None
        else:
            local = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
                )
            )
            client = stack.enter_context(distributed.Client(local))
        _client = client
        try:
            yield client
        finally:
            _client = None

"""Where the runs are evaluated: in this process, in a pool of local processes, or on a Dask client.

The choice depends on the arguments and the size of the input alone, never on the machine's load:

- ``n_jobs`` worker processes, at most one per run file; by default the CPUs this process may use
  (``os.sched_getaffinity``), or this process alone when the run files total less than
  :data:`PARALLEL_MIN_BYTES` on disk;
- the pool starts its processes with ``spawn``: a fresh interpreter, safe however many threads this
  process has started (numba's OpenMP threads would terminate a child made by ``fork``);
- with a ``dask.distributed.Client``, each run is a task, and a run larger than a quarter of the
  piece size on disk is cut here into pieces of whole topics, each a task.

Each process evaluates whole runs (or pieces) with one :class:`~riskeval.evaluation.engine.RunEvaluator`,
so the values are the same whichever executor computes them.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from riskeval.errors import InputFormatError, RiskevalError, RiskevalWarning
from riskeval.evaluation import run_pieces
from riskeval.evaluation.engine import RunEvaluator, RunScores, combine, failed, run_text_bytes
from riskeval.io.interrupt import quiet_on_sigint, sigint_deferred

#: With ``n_jobs=None``, below this much input (bytes of run files on disk) the runs are evaluated in
#: this process: starting worker processes (an interpreter and the compiled kernels each) costs seconds.
PARALLEL_MIN_BYTES = 256_000_000


def default_jobs() -> int:
    """The CPUs this process may use (its affinity mask), else the machine's CPUs."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def processes(n_jobs: int | None, paths: list[str]) -> int:
    """Worker processes for the run files: ``n_jobs``, at most one per run; by default
    :func:`default_jobs`, or one (this process) below :data:`PARALLEL_MIN_BYTES` of runs."""
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs < 1):
        raise RiskevalError(
            f"The 'n_jobs' parameter of evaluate_runs must be an integer >= 1 or None. Got {n_jobs!r}."
        )
    if n_jobs is None:
        if sum(_size(p) for p in paths) < PARALLEL_MIN_BYTES:
            return 1
        n_jobs = default_jobs()
    return max(1, min(n_jobs, len(paths)))


#: On one machine, the wall seconds a local Dask cluster takes to start before it evaluates a run
#: (its scheduler and worker processes, each importing riskeval and loading the kernels), and the
#: seconds one process takes per byte of run text (TREC DL 2019's 300 MB in 1.5 CPU-s, compiled
#: kernels), from whole commands on 2 cores (``docs/scale.md`` gives the measurements).
CLUSTER_START_S = 4.0
SECONDS_PER_TEXT_BYTE = 5e-9


def local_cluster_pays(workers: int, paths: Sequence[str] | None) -> bool:
    """Whether a local cluster of ``workers`` processes evaluates the run files ``paths`` in less
    wall time than this process (``None``: not runs, the cluster is used): the time the evaluation
    saves on min(``workers``, CPUs) processes must exceed the cluster's start
    (:data:`CLUSTER_START_S`).  When it does not pay, a :class:`RiskevalWarning` says so and why."""
    if paths is None:
        return True
    used = min(workers, default_jobs())
    text = run_text_bytes(list(paths))
    if used > 1 and text * SECONDS_PER_TEXT_BYTE * (1 - 1 / used) > CLUSTER_START_S:
        return True
    pays = (
        f"it pays from about {CLUSTER_START_S / (SECONDS_PER_TEXT_BYTE * (1 - 1 / used)) / 1e9:.1f} GB "
        f"of run text with {used} CPUs"
        if used > 1
        else f"this process may use {default_jobs()} CPU"
    )
    warnings.warn(
        f"--workers {workers}: a local Dask cluster would take longer than this process for "
        f"{text / 1e6:.0f} MB of run text ({pays}); evaluating here instead. --scheduler evaluates "
        "on a running cluster.",
        RiskevalWarning,
        stacklevel=2,
    )
    return False


def evaluate_files(
    evaluator: RunEvaluator, paths: list[str], progress: bool | None, n_jobs: int | None, client: Any
) -> list[RunScores]:
    """The scores of every run file, in order, with a progress bar over runs."""
    from tqdm import tqdm

    show = sys.stderr.isatty() if progress is None else bool(progress)
    with tqdm(total=len(paths), desc="evaluating runs", unit="run", disable=not show) as bar:
        if client is not None:
            return list(_ticking(_on_client(client, evaluator, paths), bar))
        workers = processes(n_jobs, paths)
        if workers == 1:
            return list(_ticking(map(evaluator, paths), bar))
        # the largest runs first, so that no worker is left with a large run at the end
        order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
        results: list[Any] = [None] * len(paths)
        context = multiprocessing.get_context("spawn")
        try:
            with ProcessPoolExecutor(workers, context, initializer=_start, initargs=(evaluator,)) as pool:
                with sigint_deferred():  # the processes start here; a Ctrl-C ends them silently
                    done = pool.map(_evaluate_in_worker, [paths[i] for i in order])
                for i, result in zip(order, _ticking(done, bar), strict=True):
                    results[i] = result
        except BrokenProcessPool:
            raise RiskevalError(
                "A worker process evaluating the runs stopped. Worker processes are started with "
                "'spawn' and run the top level of the calling script again: keep the script's work "
                'under `if __name__ == "__main__":`, or pass n_jobs=1 (command line: --jobs 1).'
            ) from None
        return results


def _ticking(results: Iterator[RunScores], bar: Any) -> Iterator[RunScores]:
    for result in results:
        yield result
        bar.update()


def _size(path: str) -> int:
    return os.path.getsize(path) if os.path.isfile(path) else 0


#: The evaluator of a worker process of the pool, set once when the process starts.
_worker_evaluator: list[RunEvaluator] = []


def _start(evaluator: RunEvaluator) -> None:
    quiet_on_sigint()
    _worker_evaluator.append(evaluator)


def _evaluate_in_worker(path: str) -> RunScores:
    return _worker_evaluator[0](path)


#: Times a run is submitted again after its data was lost with the workers holding it.
RESUBMITS = 3


def _on_client(client: Any, evaluator: RunEvaluator, paths: list[str]) -> Iterator[RunScores]:
    """Evaluate the runs as tasks of a ``dask.distributed.Client``, in order.

    The evaluator goes to every worker once.  A run of at most a quarter of the piece size on disk
    is one task that reads the file; a larger run is read here as a stream and cut into pieces of
    whole topics, each a task, with at most two pieces per worker thread waiting or running, so that
    memory stays bounded.

    Dask runs a task again when the worker running it is lost, but not data sent to a worker (a
    piece, the evaluator on every worker that had it): a run whose data was lost, or could not be
    sent (the evaluator's first broadcast included), is submitted again (the evaluator sent again),
    up to :data:`RESUBMITS` times, so that the evaluation survives the loss of any number of workers
    short of all.  A task whose workers keep dying (Dask's ``KilledWorker``), or a run lost more
    often, is a :class:`RiskevalError` naming the run.
    """
    from distributed.client import FutureCancelledError
    from distributed.scheduler import KilledWorker

    lost = (FutureCancelledError, OSError)  # a worker lost while data is sent or gathered
    state = _Submitter(client, evaluator)
    planned: list[tuple[str, list[Any] | None, list[int]]] = []
    for path in paths:
        try:
            planned.append((path, *state.submit(path)))
        except lost:  # submitted again below
            planned.append((path, None, []))
    for path, futures, lines in planned:
        for attempt in range(RESUBMITS + 1):
            try:
                if futures is None:
                    state.resend()
                    futures, lines = state.submit(path)
                results = client.gather(futures)
                break
            except lost as exc:
                if attempt == RESUBMITS:
                    raise RiskevalError(
                        f"The Dask cluster lost the workers holding the data of {path} "
                        f"{RESUBMITS + 1} times ({exc}); the run was not evaluated. Check the "
                        "workers' logs (memory limits, restarts) or evaluate without --scheduler "
                        "and --workers."
                    ) from None
                futures = None
            except KilledWorker as exc:
                raise RiskevalError(
                    f"Evaluating {path}, Dask's workers died each time they ran the task ({exc}). "
                    "Check the workers' memory limit and logs."
                ) from None
        yield results[0] if not lines else combine(path, results, evaluator)


class _Submitter:
    """Submits runs to a client: the evaluator sent to every worker, pieces in flight bounded."""

    def __init__(self, client: Any, evaluator: RunEvaluator):
        self.client, self.evaluator = client, evaluator
        self.in_flight = max(2, 2 * sum(client.nthreads().values()))
        self.pending: list[Any] = []
        self.shared: Any = None  # the evaluator's future, once sent

    def resend(self) -> None:
        """Send the evaluator to every worker (again, after losing workers)."""
        try:
            [self.shared] = self.client.scatter([self.evaluator], broadcast=True)
        except KeyError as exc:  # Dask's, for a worker that left while the evaluator was sent to it
            raise ConnectionError(f"worker {exc} left during the broadcast") from None

    def submit(self, path: str) -> tuple[list[Any], list[int]]:
        """The futures of a run's tasks and, for a run in pieces, each piece's first line."""
        if self.shared is None:
            self.resend()
        client, size = self.client, run_pieces.PIECE_BYTES
        if _size(path) <= size // 4:  # not a file (read, and refused, in the task) or small
            return [client.submit(_evaluate_run, self.shared, path, pure=False)], []
        futures: list[Any] = []
        lines: list[int] = []
        pieces = run_pieces.run_pieces(path, size)
        while True:
            try:
                piece = next(pieces, None)
            except (InputFormatError, OSError) as exc:
                problems = (
                    exc.problems if isinstance(exc, InputFormatError) else [(path, f"cannot read: {exc}")]
                )
                futures.append(client.submit(failed, problems, pure=False))
                lines.append(0)
                break
            if piece is None:
                break
            while sum(not f.done() for f in self.pending) >= self.in_flight:
                # wait for one to finish, fail or be lost: gather reports which, later
                client.gather([next(f for f in self.pending if not f.done())], errors="skip")
            [data] = client.scatter([piece])
            futures.append(client.submit(_evaluate_piece, self.shared, data, pure=False))
            lines.append(piece.first_line)
            self.pending = [f for f in self.pending if not f.done()] + [futures[-1]]
        return futures, lines


def _evaluate_run(evaluator: RunEvaluator, path: str) -> RunScores:
    return evaluator(path)


def _evaluate_piece(evaluator: RunEvaluator, piece: run_pieces.RunPiece) -> RunScores:
    return evaluator.piece(piece)

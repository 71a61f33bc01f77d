"""Whole commands as users run them: ``riskeval evaluate`` in a fresh process per job, against the
tools people would otherwise run on the same files, in the same run.

Every row is one job run by two commands, riskeval's and a reference's, alternating (reference,
riskeval, reference, ...) ``--repeat`` times after one run of each that is not counted; the table
gives the medians of wall time, CPU time (user + system, the command's children included) and peak
resident memory (``os.wait4``, and GNU time for the memory: see :data:`GNU_TIME`), and the ratio
that the target is stated in.  The references:

- ``trec_eval`` (built from its C sources, see ``--trec-eval``): one process per run file, as a
  shell loop, on the runs decompressed beforehand (trec_eval reads no gzip; the decompression is
  not counted); riskeval reads the gzip files as distributed (the 20-line run: the same plain file);
- an ir_measures script: ``read_trec_qrels`` once, then ``iter_calc`` over ``read_trec_run`` of each
  gzip file, one line per value written out (what riskeval writes with ``--per-topic``);
- ``zcat RUNS | wc -l``: decompressing and counting the lines, the floor of any evaluation.

Where no trec_eval binary is found the rows that need it are skipped, saying so.  trec_eval is
built once into a folder of one's choice (9.0.8, the version pytrec_eval-terrier builds: its sdist
fetches these sources from GitHub when it is built, so a machine without that access builds from a
clone; trec_eval 10.0 stops with "result qid ... not found in qrels" on a run that lacks a judged
topic)::

    git clone --branch v9.0.8 https://github.com/usnistgov/trec_eval ~/.cache/trec_eval
    make -C ~/.cache/trec_eval
    python benchmarks/bench_commands.py --trec-eval ~/.cache/trec_eval/trec_eval   # or $TREC_EVAL

``--floors`` also times what any command of a given route pays before its first run line, each in a
fresh process: the interpreter, numpy, riskeval's command line, numba's import, numba's first
cached kernel (its compiler's set-up, which imports SciPy's ``linalg`` for numba's BLAS check),
SciPy's ``linalg`` alone, ir_measures with pytrec_eval, and one trec_eval process per run: the floors
that the whole-command ratios above are measured against.

``--workers`` also times ``evaluate --workers 2``, ``-j 2`` and a local Dask cluster of 2 workers
(``python -c``) against ``evaluate -j 1`` on growing numbers of DL 2019 runs: where a second process
starts to pay on one machine.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from data import ROOT, data_dir

RISKEVAL = [sys.executable, "-m", "riskeval", "evaluate"]

IR_MEASURES = """
import sys
import ir_measures
from ir_measures import *

measures = [ir_measures.parse_measure(m) for m in sys.argv[1].split(",")]
qrels = list(ir_measures.read_trec_qrels(sys.argv[2]))
out = sys.stdout
for path in sys.argv[3:]:
    for m in ir_measures.iter_calc(measures, qrels, ir_measures.read_trec_run(path)):
        out.write(f"{path}\\t{m.query_id}\\t{m.measure}\\t{m.value}\\n")
"""

#: The four measures of the "4 measures" rows, in ir_measures' and trec_eval's names.
FOUR = ("nDCG@10", "AP", "RR", "R@1000")
FOUR_TREC = ("ndcg_cut.10", "map", "recip_rank", "recall.1000")


class Usage(NamedTuple):
    wall: float
    cpu: float
    rss_mb: float


#: GNU time, which reports the peak RSS of the command it runs (``%M``).  ``wait4``'s own figure for a
#: child is at least this script's size: the child is a copy of this process until it executes the
#: command, and Linux keeps that copy's peak as the child's.
GNU_TIME = "/usr/bin/time"


def run(cmd: list[str]) -> Usage:
    """Wall time, CPU time and peak RSS of one run of ``cmd`` (stdout discarded): CPU from
    ``wait4`` (the CPU of the children it waited for included), the peak RSS the largest of them
    all, from GNU time where it is installed (else ``wait4``'s, see :data:`GNU_TIME`)."""
    measured = os.access(GNU_TIME, os.X_OK)
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as rss:
        wrapped = [GNU_TIME, "-f", "%M", "-o", rss.name, *cmd] if measured else cmd
        t0 = time.perf_counter()
        child = subprocess.Popen(wrapped, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            err.seek(0)
            sys.exit(f"{' '.join(cmd)[:300]} failed:\n{err.read().decode(errors='replace')}")
        peak_kb = int(rss.read().split()[-1]) if measured else usage.ru_maxrss
    return Usage(wall, usage.ru_utime + usage.ru_stime, peak_kb / 1024)


def paired(cmd: list[str], ref: list[str], repeat: int) -> tuple[Usage, Usage]:
    """Medians of ``cmd`` and ``ref`` run alternately ``repeat`` times (after one each, uncounted)."""
    run(ref), run(cmd)
    mine: list[Usage] = []
    theirs: list[Usage] = []
    for _ in range(repeat):
        theirs.append(run(ref))
        mine.append(run(cmd))
    return median(mine), median(theirs)


def median(runs: list[Usage]) -> Usage:
    return Usage(*(statistics.median(getattr(u, f) for u in runs) for f in Usage._fields))


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


HEADER = (
    f"{'job':44s} {'reference':20s} {'cpu_s':>6s} {'ref':>6s} {'wall_s':>6s} {'ref':>6s} "
    f"{'MB':>5s} {'ref':>5s}  ratio (target)"
)


def row(job: str, ref_name: str, mine: Usage, theirs: Usage, ratio: str) -> None:
    print(
        f"{job:44s} {ref_name:20s} {mine.cpu:6.2f} {theirs.cpu:6.2f} {mine.wall:6.2f} {theirs.wall:6.2f} "
        f"{mine.rss_mb:5.0f} {theirs.rss_mb:5.0f}  {ratio}",
        flush=True,
    )


def slower(mine: Usage, theirs: Usage, target: float) -> str:
    """riskeval's CPU time as a multiple of the reference's, against a ceiling."""
    got = mine.cpu / theirs.cpu
    return f"{got:.2f}x the reference's CPU (<= {target}x: {'met' if got <= target else 'NOT met'})"


def faster(mine: Usage, theirs: Usage, target: float) -> str:
    """How many times less CPU riskeval takes than the reference, against a floor."""
    got = theirs.cpu / mine.cpu
    return f"{got:.2f}x faster in CPU (>= {target}x: {'met' if got >= target else 'NOT met'})"


def trec_loop(trec_eval: str, measures: tuple[str, ...], qrels: str, runs: list[str]) -> list[str]:
    """trec_eval once per run file, per topic (``-q``), as a shell loop."""
    flags = " ".join(f"-m {m}" for m in measures)
    script = f'q="$1"; shift; for f in "$@"; do "{trec_eval}" -q {flags} "$q" "$f"; done'
    return ["sh", "-c", script, "sh", qrels, *runs]


def riskeval(measures: tuple[str, ...], qrels: str, runs: list[str], *extra: str) -> list[str]:
    flags = [arg for m in measures for arg in ("-m", m)]
    return [*RISKEVAL, "--qrels", qrels, *flags, "--per-topic", "--format", "csv", *extra, *runs]


def ir_measures_script(measures: tuple[str, ...], qrels: str, runs: list[str]) -> list[str]:
    return [sys.executable, "-c", IR_MEASURES, ",".join(measures), qrels, *runs]


def plain_copies(runs: list[Path], folder: Path) -> list[str]:
    """The runs decompressed into ``folder`` (trec_eval reads plain files only)."""
    folder.mkdir(exist_ok=True)
    out = []
    for path in runs:
        target = folder / path.name.removesuffix(".gz")
        with gzip.open(path, "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        out.append(str(target))
    return out


def find_trec_eval(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("TREC_EVAL"), shutil.which("trec_eval")):
        if candidate and os.access(candidate, os.X_OK) and Path(candidate).is_file():
            return str(Path(candidate).resolve())
    return None


def evaluation(repeat: int, trec_eval: str | None, work: Path, only: str) -> None:
    dl19, dl20 = data_dir("trec-dl-2019-passage"), data_dir("trec-dl-2020-passage")
    q19, q20 = str(dl19 / "qrels.dl19-passage.txt"), str(dl20 / "qrels.dl20-passage.txt")
    gz19 = sorted((dl19 / "runs").glob("*.gz"))
    gz20 = sorted((dl20 / "runs-top100").iterdir())
    plain19 = plain_copies(gz19, work / "dl19")
    plain20 = plain_copies(gz20, work / "dl20") if gz20[0].suffix == ".gz" else [str(p) for p in gz20]
    one = next(p for p in plain19 if p.endswith("input.p_bert"))  # 200,000 lines
    one_gz = str(dl19 / "runs" / "input.p_bert.gz")
    text = Path(one).read_text(encoding="utf-8").splitlines(keepends=True)
    judged = {line.split()[0] for line in Path(q19).read_text(encoding="utf-8").splitlines()}
    twenty = work / "twenty.run"
    twenty.write_text("".join([line for line in text if line.split()[0] in judged][:20]), encoding="utf-8")
    n_lines = len(text)

    nd, te = ("nDCG@10",), ("ndcg_cut.10",)
    gz = [str(p) for p in gz19]
    zcat = ["sh", "-c", 'zcat "$@" | wc -l', "sh", *gz]
    twenty_ref = trec_loop(trec_eval, te, q19, [str(twenty)]) if trec_eval else [sys.executable, "-c", "pass"]
    # job, riskeval's command, reference's name and command (None: needs trec_eval), ratio
    cases = [
        ("20-line run, nDCG@10", riskeval(nd, q19, [str(twenty)]), "trec_eval", twenty_ref, absolute),
        (
            f"one DL 2019 run ({n_lines} lines, .gz), nDCG@10",
            riskeval(nd, q19, [one_gz]),
            "trec_eval",
            trec_eval and trec_loop(trec_eval, te, q19, [one]),
            lambda m, t: slower(m, t, 6),
        ),
        (
            f"DL 2020, {len(plain20)} runs top-100 (.gz), nDCG@10",
            riskeval(nd, q20, [str(p) for p in gz20]),
            "trec_eval loop",
            trec_eval and trec_loop(trec_eval, te, q20, plain20),
            lambda m, t: slower(m, t, 1.0),
        ),
        (
            f"DL 2019, {len(gz)} runs (.gz), nDCG@10",
            riskeval(nd, q19, gz),
            "ir_measures script",
            ir_measures_script(nd, q19, gz),
            lambda m, t: faster(m, t, 4),
        ),
        (f"DL 2019, {len(gz)} runs (.gz), nDCG@10", riskeval(nd, q19, gz), "zcat | wc -l", zcat, floor),
        (
            f"DL 2019, {len(plain19)} runs (.gz), nDCG@10",
            riskeval(nd, q19, gz),
            "trec_eval loop",
            trec_eval and trec_loop(trec_eval, te, q19, plain19),
            lambda m, t: faster(m, t, 1.0),
        ),
        (
            f"DL 2019, {len(plain19)} runs (.gz), {', '.join(FOUR)}",
            riskeval(FOUR, q19, gz),
            "trec_eval loop",
            trec_eval and trec_loop(trec_eval, FOUR_TREC, q19, plain19),
            lambda m, t: faster(m, t, 3),
        ),
    ]
    print(HEADER)
    for job, mine_cmd, ref_name, ref_cmd, ratio in cases:
        if only not in f"{job} {ref_name}":
            continue
        if not ref_cmd:
            print(f"{job:44s} {ref_name:20s} skipped: trec_eval not found (--trec-eval PATH or $TREC_EVAL)")
            continue
        if ref_name == "trec_eval" and not trec_eval:
            ref_name = "python -c pass"
        mine, theirs = paired(mine_cmd, ref_cmd, repeat)
        row(job, ref_name, mine, theirs, ratio(mine, theirs))


def absolute(mine: Usage, theirs: Usage) -> str:
    met = mine.cpu <= 1.0 and mine.rss_mb <= 200
    return f"{mine.cpu:.2f} CPU-s, {mine.rss_mb:.0f} MB (<= 1.0 CPU-s, 200 MB: {'met' if met else 'NOT met'})"


def floor(mine: Usage, theirs: Usage) -> str:
    return slower(mine, theirs, 1.5)


CLUSTER = """
import sys, warnings
import riskeval as rk
from riskeval.distributed import cluster

warnings.simplefilter("ignore")
with cluster(int(sys.argv[1])) as client:
    table = rk.io.evaluate_runs_long(sys.argv[2], sys.argv[3:], ["nDCG@10"], client=client)
table.to_csv(sys.stdout, index=False)
"""


def workers(repeat: int) -> None:
    """On 1, 8 and 37 DL 2019 runs (.gz), against ``evaluate -j 1``: ``evaluate --workers 2`` (which
    starts a cluster only where it pays), ``-j 2`` (a pool of processes) and a local cluster of 2
    workers started by a ``python -c`` script whatever the size (what ``--workers 2`` did before)."""
    dl19 = data_dir("trec-dl-2019-passage")
    q19 = str(dl19 / "qrels.dl19-passage.txt")
    gz = [str(p) for p in sorted((dl19 / "runs").glob("*.gz"))]
    print("\n" + HEADER.replace("ratio (target)", "wall ratio"))
    for k in (1, 8, len(gz)):
        runs = gz[:k]
        size = sum(os.path.getsize(p) for p in runs) / 1e6
        base = riskeval(("nDCG@10",), q19, runs, "-j", "1")
        routes = {
            "--workers 2": riskeval(("nDCG@10",), q19, runs, "--workers", "2"),
            "-j 2": riskeval(("nDCG@10",), q19, runs, "-j", "2"),
            "cluster(2), python -c": [sys.executable, "-c", CLUSTER, "2", q19, *runs],
        }
        for name, cmd in routes.items():
            mine, theirs = paired(cmd, base, repeat)
            job = f"{k} DL 2019 runs ({size:.0f} MB .gz), {name}"
            row(job, "-j 1", mine, theirs, f"{mine.wall / theirs.wall:.2f}x the wall of -j 1")


#: The fixed costs of ``--floors``: what each piece of a command's start-up takes on its own.
FLOORS = {
    "python -c pass": "pass",
    "import numpy": "import numpy",
    "import riskeval.cli.main": "import riskeval.cli.main",
    "import numba": "import numba",
    "numba + first cached kernel": (
        "import numpy as np\nfrom riskeval.evaluation.run_arrays import _hash_spans\n"
        "_hash_spans(np.zeros(1, np.uint8), np.zeros(1, np.int64), np.ones(1, np.int64))"
    ),
    "import scipy.linalg": "import scipy.linalg",
    "ir_measures + pytrec_eval": "import ir_measures, pytrec_eval",
}


def floors(repeat: int, trec_eval: str | None) -> None:
    """Medians of CPU time and peak RSS of each of :data:`FLOORS` in a fresh process, and of one
    trec_eval process per DL 2019 and DL 2020 run (nDCG@10, ``-q``, decompressed runs)."""
    print(f"\n{'fixed cost, one fresh process':44s} {'cpu_s':>6s} {'MB':>5s}")
    for name, code in FLOORS.items():
        usage = median([run([sys.executable, "-c", code]) for _ in range(repeat)])
        print(f"{name:44s} {usage.cpu:6.3f} {usage.rss_mb:5.0f}", flush=True)
    if not trec_eval:
        print("trec_eval per run: skipped, trec_eval not found")
        return
    with tempfile.TemporaryDirectory() as work:
        for name, runs, qrels in (
            ("trec-dl-2019-passage", "runs", "qrels.dl19-passage.txt"),
            ("trec-dl-2020-passage", "runs-top100", "qrels.dl20-passage.txt"),
        ):
            folder = data_dir(name)
            plain = plain_copies(sorted((folder / runs).glob("*.gz")), Path(work) / name)
            loop = trec_loop(trec_eval, ("ndcg_cut.10",), str(folder / qrels), plain)
            usage = median([run(loop) for _ in range(repeat)])
            print(f"{'trec_eval per run, ' + name:44s} {usage.cpu / len(plain):6.3f} {usage.rss_mb:5.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command, alternating")
    parser.add_argument("--trec-eval", help="the trec_eval binary (default: $TREC_EVAL, then PATH)")
    parser.add_argument("--workers", action="store_true", help="also time --workers 2 and -j 2")
    parser.add_argument("--only-workers", action="store_true", help="time --workers 2 and -j 2 only")
    parser.add_argument("--floors", action="store_true", help="also time the fixed costs of a command")
    parser.add_argument("--only", default="", help="the rows whose job or reference holds this text")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the riskeval source tree to time")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join([str(args.src.resolve()), os.environ.get("PYTHONPATH", "")])
    trec_eval = find_trec_eval(args.trec_eval)
    print(f"{sys.executable}; riskeval from {args.src.resolve()}; trec_eval: {trec_eval or 'NOT FOUND'}")
    print(f"{os.cpu_count()} CPUs; medians of {args.repeat} runs each, alternating; load before {load()}")
    if not args.only_workers:
        with tempfile.TemporaryDirectory() as work:
            evaluation(args.repeat, trec_eval, Path(work), args.only)
    if args.floors:
        floors(args.repeat, trec_eval)
    if args.workers or args.only_workers:
        workers(args.repeat)
    print(f"load after {load()}")


if __name__ == "__main__":
    main()

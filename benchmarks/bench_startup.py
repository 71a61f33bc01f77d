"""Start-up of the command line: warm ``riskeval risk --example`` against ``python -c "import numpy,
pandas"`` in the same run, ``riskeval --help``, and the first compilation of the kernels.

Targets: the warm ``risk --example`` within 2× the import of numpy and pandas, ``--help`` within
0.1 s.  Each command runs ``--repeat`` times in a fresh interpreter; the table gives the median
wall and CPU time (user + system of the child) and the ratio to the reference.  ``--first-compile``
also runs ``risk`` on a 150 × 120 table (large enough for the compiled kernels) and, where the
campaign data is found, ``evaluate`` of the 37 DL 2019 runs, each with an empty
``NUMBA_CACHE_DIR`` (a first run that compiles), then once more with that cache.

    python benchmarks/bench_startup.py --repeat 7 --first-compile
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from data import ROOT

ENV = dict(os.environ)
RISKEVAL = [sys.executable, "-m", "riskeval"]
REFERENCE = [sys.executable, "-c", "import numpy, pandas"]


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall and CPU seconds of one run of ``cmd`` in a child process, and its stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env or ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, done.stderr


def medians(cmd: list[str], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds over ``repeat`` runs, after one run that is not counted."""
    timed(cmd)
    runs = [timed(cmd)[:2] for _ in range(repeat)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def warm(repeat: int) -> None:
    print(f"warm start-up, median of {repeat} runs; load before {load()}")
    ref_wall, ref_cpu = medians(REFERENCE, repeat)
    rows = [("python -c 'import numpy, pandas'", ref_wall, ref_cpu)]
    for args in (["risk", "--example"], ["--help"]):
        rows.append(("riskeval " + " ".join(args), *medians(RISKEVAL + args, repeat)))
    print(f"{'command':36s} {'wall_s':>7s} {'cpu_s':>7s} {'wall/ref':>8s} {'cpu/ref':>8s}")
    for name, wall, cpu in rows:
        print(f"{name:36s} {wall:7.3f} {cpu:7.3f} {wall / ref_wall:8.2f} {cpu / ref_cpu:8.2f}")
    print(f"load after {load()}")


def first_compile() -> None:
    """Each command once with an empty numba cache (it compiles), then once with that cache."""
    notice = "riskeval: compiling "
    with tempfile.TemporaryDirectory() as work:
        scores = Path(work) / "scores.csv"
        rng = np.random.default_rng(7)
        cells = [f"s{i},t{j},{rng.beta(2, 5):.6f}" for i in range(150) for j in range(120)]
        scores.write_text("system,topic,score\n" + "\n".join(cells) + "\n", encoding="utf-8")
        # a table of 150 × 120 is above NUMPY_CELLS: the risk table's kernels run
        commands = {"riskeval risk (150 × 120 table)": RISKEVAL + ["risk", str(scores)]}
        runs = ROOT.parent / "shared" / "data" / "trec-dl-2019-passage"
        if (runs / "runs").is_dir():
            files = sorted(str(p) for p in (runs / "runs").iterdir())
            qrels = str(runs / "qrels.dl19-passage.txt")
            evaluate = RISKEVAL + ["evaluate", "--qrels", qrels, *files]
            commands["riskeval evaluate (37 DL 2019 runs)"] = evaluate
        print(f"\nfirst compilation (empty NUMBA_CACHE_DIR), then warm; load before {load()}")
        header = ("command", "first_wall", "first_cpu", "warm_wall", "warm_cpu")
        print("{:36s} {:>10s} {:>9s} {:>9s} {:>8s}  notices".format(*header))
        for name, cmd in commands.items():
            with tempfile.TemporaryDirectory() as cache:
                env = {**ENV, "NUMBA_CACHE_DIR": cache}
                first_wall, first_cpu, first_err = timed(cmd, env)
                warm_wall, warm_cpu, warm_err = timed(cmd, env)
            print(
                f"{name:36s} {first_wall:10.2f} {first_cpu:9.2f} {warm_wall:9.2f} {warm_cpu:8.2f}  "
                f"{first_err.count(notice)} then {warm_err.count(notice)}"
            )
    print(f"load after {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--first-compile", action="store_true", help="also time a first run that compiles")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the riskeval source tree to time")
    args = parser.parse_args()
    ENV["PYTHONPATH"] = os.pathsep.join([str(args.src.resolve()), os.environ.get("PYTHONPATH", "")])
    print(f"{sys.executable}; riskeval from {args.src.resolve()}")
    warm(args.repeat)
    if args.first_compile:
        first_compile()


if __name__ == "__main__":
    main()

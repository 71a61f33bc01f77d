"""The cost of ``Judged@k`` in whole commands: ``riskeval evaluate --judged -m nDCG@10`` and
``riskeval report --qrels`` (which adds each system's ``Judged@10``) on the 37 TREC DL 2019 passage
runs (``--campaign dl2020``: the 59 TREC DL 2020 runs cut to 100 documents, small enough for the
evaluation without the compiled kernels), against ``riskeval evaluate -m nDCG@10`` alone and
ir_measures' own ``Judged@10`` (its ``judged`` provider, ``iter_calc`` over the same gzip runs) in
the same run.

Each command runs in a fresh process, the jobs alternating ``--repeat`` times after one run of each
that is not counted; the table gives the median CPU time (user + system of the child, from
``os.wait4``).  ``--src PATH`` times riskeval from another source tree as well (an older commit's,
``git archive COMMIT src | tar -x -C DIR``), in the same rounds::

    python benchmarks/bench_judged.py --repeat 3 --src /tmp/before/src
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from data import ROOT, data_dir

IR_MEASURES = """
import sys
import ir_measures

measure = ir_measures.parse_measure("Judged@10")
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
for path in sys.argv[2:]:
    for m in ir_measures.iter_calc([measure], qrels, ir_measures.read_trec_run(path)):
        pass
"""

#: Campaign -> (folder, qrels, folder of runs) under the data folder.
CAMPAIGNS = {
    "dl2019": ("trec-dl-2019-passage", "qrels.dl19-passage.txt", "runs"),
    "dl2020": ("trec-dl-2020-passage", "qrels.dl20-passage.txt", "runs-top100"),
}


def cpu(cmd: list[str], src: Path) -> float:
    """CPU seconds (user + system) of ``cmd`` run with riskeval from ``src``; it must succeed."""
    env = dict(os.environ, PYTHONPATH=str(src.resolve()))
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", type=Path, action="append", default=[], help="another source tree")
    parser.add_argument("--campaign", choices=sorted(CAMPAIGNS), default="dl2019")
    args = parser.parse_args()
    folder, qrels_name, runs_folder = CAMPAIGNS[args.campaign]
    d = data_dir(folder)
    qrels = str(d / qrels_name)
    runs = sorted(str(p) for p in (d / runs_folder).glob("input.*"))
    out = Path(tempfile.mkdtemp()) / "report.html"
    py = [sys.executable, "-m", "riskeval"]
    evaluate = [*py, "evaluate", "--qrels", qrels, "-m", "nDCG@10", *runs]
    commands = {
        "evaluate -m nDCG@10": evaluate,
        "evaluate --judged -m nDCG@10": [*evaluate, "--judged"],
        "report --qrels": [*py, "report", "--qrels", qrels, "-o", str(out), *runs],
    }
    trees = [ROOT / "src", *args.src]
    jobs = [(name, tree, cmd) for name, cmd in commands.items() for tree in trees]
    jobs.append(("ir_measures Judged@10", trees[0], [sys.executable, "-c", IR_MEASURES, qrels, *runs]))
    print(f"{len(runs)} runs; load {os.getloadavg()[0]:.1f}; trees: {', '.join(map(str, trees))}")
    times: dict[int, list[float]] = {i: [] for i in range(len(jobs))}
    for round_ in range(args.repeat + 1):
        for i, (_, tree, cmd) in enumerate(jobs):
            seconds = cpu(cmd, tree)
            if round_:
                times[i].append(seconds)
    print(f"load {os.getloadavg()[0]:.1f}")
    reference = statistics.median(times[len(jobs) - 1])
    print(f"{'command':32} {'tree':40} {'CPU-s':>7} {'/ ir_measures Judged@10':>24}")
    for i, (name, tree, _) in enumerate(jobs):
        median = statistics.median(times[i])
        print(f"{name:32} {str(tree)[-40:]:40} {median:7.2f} {median / reference:23.2f}x")


if __name__ == "__main__":
    main()

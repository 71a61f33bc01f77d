"""Mutation check of riskeval's risk measures and core maths with mutmut (2.x).

mutmut changes one operator, number or name at a time in the package's source and runs the tests
that cover it; a mutant the tests still pass "survives", and is either a test to write or code that
does not matter.  This script copies the repository (the files git tracks or would track) into one
working folder per source file of the package, so that the checkout itself is never mutated, runs
one mutmut per file at the lowest CPU priority, and prints the score (killed / mutants tried) and
the diff of every survivor.  A timeout counts as killed, as mutmut counts it.

    python tools/mutation.py measures            # src/riskeval/measures/, with its default tests
    python tools/mutation.py core --workdir DIR  # keep (and resume) the run in DIR
    python tools/mutation.py measures --tests tests/test_trisk.py tests/test_zrisk_georisk.py
    python tools/mutation.py measures --workdir DIR --report   # the score so far of a kept run

Needs the ``test`` extra (mutmut).  Not part of the test suite: a run takes tens of minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The tests that exercise each package (fast ones, without subprocesses or campaign data).
TESTS = {
    "measures": [
        "tests/test_trisk.py",
        "tests/test_trisk_jackknife.py",
        "tests/test_zrisk_georisk.py",
        "tests/test_table_and_baselines.py",
        "tests/test_own_baselines.py",
        "tests/test_kernel_edges.py",
        "tests/test_options.py",
        "tests/test_snapshot_defaults.py",
        "tests/test_measure_messages.py",
    ],
    "core": [
        "tests/test_trisk.py",
        "tests/test_zrisk_georisk.py",
        "tests/test_table_and_baselines.py",
        "tests/test_kernel_edges.py",
        "tests/test_normal_cdf.py",
        "tests/test_chisq_residuals.py",
        "tests/test_compiled_measures.py",
        "tests/test_mve.py",
        "tests/test_mve_rank_correlation.py",
        "tests/test_bias_variance.py",
        "tests/test_baseline_rankings.py",
        "tests/test_bias_study_bootstrap.py",
    ],
}

#: mutmut's statuses, as stored in its cache.
KILLED, SURVIVED, TIMEOUT, SUSPICIOUS = "ok_killed", "bad_survived", "bad_timeout", "ok_suspicious"


def copy_repository(dest: Path) -> None:
    """The files git tracks, or would track, copied from the checkout into ``dest``, with numba's
    on-disk cache of the kernels (valid for the copies: their times of modification are kept)."""
    listed = subprocess.check_output(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, text=True)
    names = listed.splitlines()
    kernels = [p for ext in ("nbi", "nbc") for p in (ROOT / "src").rglob(f"*.{ext}")]
    names += [p.relative_to(ROOT).as_posix() for p in kernels]
    for name in names:
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def statuses(workdir: Path) -> list[tuple[int, str, int, str]]:
    """``(id, file, line number, status)`` of every mutant in the mutmut cache of ``workdir``."""
    cache = workdir / ".mutmut-cache"
    if not cache.exists():
        return []
    with sqlite3.connect(cache) as db:
        return db.execute(
            "SELECT m.id, s.filename, l.line_number + 1, m.status FROM Mutant m "
            "JOIN Line l ON m.line = l.id JOIN SourceFile s ON l.sourcefile = s.id ORDER BY m.id"
        ).fetchall()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", choices=sorted(TESTS), help="the package under src/riskeval/")
    parser.add_argument("--tests", nargs="+", help="test files to run (default: the package's own list)")
    parser.add_argument("--workdir", type=Path, help="working folder, kept to resume (default: temporary)")
    parser.add_argument("--report", action="store_true", help="only report the run kept in --workdir")
    args = parser.parse_args()
    if args.report and args.workdir is None:
        parser.error("--report reads the run kept in --workdir")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix=f"riskeval-mutation-{args.package}-"))
    sources = sorted((ROOT / "src" / "riskeval" / args.package).glob("*.py"))
    tests = " ".join(args.tests or TESTS[args.package])
    runner = f"{sys.executable} -m pytest -x -q -n 0 -p no:cacheprovider -o addopts= {tests}"
    mutmut = [sys.executable, "-m", "mutmut"]
    # One mutmut per source file, each in its own copy of the repository, all at the lowest priority
    # (mutmut runs one mutant at a time; the files are independent).
    runs = []
    for source in sources:
        copy = workdir / source.stem
        if not (copy / "src" / "riskeval").is_dir():
            copy.mkdir(parents=True, exist_ok=True)
            copy_repository(copy)
        env = {**os.environ, "PYTHONPATH": str(copy / "src")}
        target = source.relative_to(ROOT).as_posix()
        command = ["nice", "-n", "19", *mutmut, "run", "--paths-to-mutate", target, "--tests-dir", "tests"]
        command += ["--runner", runner, "--no-progress"]
        if not args.report:
            log = (copy / "mutmut.log").open("w")
            runs.append(subprocess.Popen(command, cwd=copy, env=env, stdout=log, stderr=subprocess.STDOUT))
    if runs:
        print(f"mutating {len(runs)} files of src/riskeval/{args.package}/ in {workdir}", flush=True)
    for run in runs:
        run.wait()
    found = [(source.stem, *row) for source in sources for row in statuses(workdir / source.stem)]
    tried = [row for row in found if row[4] in (KILLED, SURVIVED, TIMEOUT, SUSPICIOUS)]
    killed = [row for row in tried if row[4] in (KILLED, TIMEOUT, SUSPICIOUS)]
    print(f"\n{args.package}: {len(killed)} of {len(tried)} mutants killed", end="")
    print(f" ({100 * len(killed) / len(tried):.1f}%)" if tried else "", end="")
    print(f"; {len(found) - len(tried)} not tried")
    for stem, mutant_id, filename, line, status in found:
        if status == SURVIVED:
            print(f"\n--- survived: {filename}:{line} (mutant {mutant_id} in {workdir / stem})", flush=True)
            env = {**os.environ, "PYTHONPATH": str(workdir / stem / "src")}
            subprocess.run([*mutmut, "show", str(mutant_id)], cwd=workdir / stem, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())

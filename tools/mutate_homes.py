"""Mutation check of the homes of the risk statistics against the contract tests.

Each mutation below changes one formula in one home of a statistic (``urisk_from``,
``variance_from``, ``standard_error``, ``trisk_from``, ``zero_spread``, ``zrisk_from``,
``georisk_from``, the paired-sums kernels of ``core/paired.py`` and the chi-square kernels of
``core/chisq.py``). The script copies the repository (the files git tracks or would track) into a
working folder, runs ``tests/test_measure_contract.py`` there once unchanged, then applies the
mutations one at a time and runs the tests that passed unchanged again, up to the first failure: a
mutant is *killed* when one of them fails, else it *survives*. Tests that fail unchanged (consumers
not yet on the contract) decide nothing. A mutation whose text is no longer in its function is
reported *not found*: update its line here.

The kernels are compiled as in use (numba, cached in the working folder), so a mutated kernel is
compiled again for its run; the contract tests' largest input is above ``NUMPY_CELLS``, so both
the compiled kernels and their numpy twins are checked.

    python tools/mutate_homes.py                 # every mutation, a table in Markdown
    python tools/mutate_homes.py --only zero_spread --keep /tmp/homes

Not part of the test suite: each mutant runs the contract file (about half a minute on 2 cores).
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = "tests/test_measure_contract.py"


@dataclass(frozen=True)
class Mutation:
    """Replace the first ``old`` by ``new`` inside function ``function`` of ``path``."""

    path: str
    function: str
    old: str
    new: str


PAIRED, CHISQ = "src/riskeval/core/paired.py", "src/riskeval/core/chisq.py"
MUTATIONS = (
    Mutation(PAIRED, "urisk_from", "(1.0 + alpha) * s.sum_neg", "alpha * s.sum_neg"),
    Mutation(PAIRED, "urisk_from", ") / s.n", ") / (s.n - 1.0)"),
    Mutation(PAIRED, "variance_from", "/ (s.n - 1.0)", "/ s.n"),
    Mutation(PAIRED, "variance_from", "2.0 * k * s.cross", "k * s.cross"),
    Mutation(PAIRED, "variance_from", "k * k * s.m2_neg", "k * s.m2_neg"),
    Mutation(PAIRED, "standard_error", "sd / np.sqrt(s.n)", "sd / np.sqrt(s.n - 1.0)"),
    Mutation(
        PAIRED, "trisk_from", "np.where(constant, np.nan, urisk_from", "np.where(constant, 0.0, urisk_from"
    ),
    Mutation(PAIRED, "zero_spread", "(1.0 + np.asarray(alpha))", "np.asarray(alpha)"),
    Mutation(PAIRED, "zero_spread", "np.asarray(sd) <= ", "np.asarray(sd) <= 0.0 * "),
    Mutation(PAIRED, "ZERO_SPREAD_RTOL", "1024 *", "1 *"),
    Mutation(PAIRED, "_paired_numpy", "-sp * sn / n[:, None]", "sp * sn / n[:, None]"),
    Mutation(PAIRED, "_paired_numpy", "pos, neg = np.maximum(D, 0.0)", "pos, neg = np.abs(D)"),
    Mutation(PAIRED, "_largest", "np.maximum(A.max(axis=0", "np.maximum(A.min(axis=0"),
    Mutation(PAIRED, "_finish", "= -acc[0][k] * acc[1][k] / n", "= acc[0][k] * acc[1][k] / n"),
    Mutation(PAIRED, "_finish", "acc[3][k] - sn * sn / n", "acc[3][k] - sn * sn / (n - 1.0)"),
    Mutation(PAIRED, "_terms", "out[3][k] = (q - kn) * (q - kn)", "out[3][k] = (q - kn) * (p - kn)"),
    Mutation(PAIRED, "_weighted_kernel", "acc[k] += wj * v[k]", "acc[k] += v[k]"),
    Mutation(PAIRED, "_add_topic", "acc[1][k] += wj * q", "acc[1][k] += wj * q * 0.5"),
    Mutation(
        PAIRED,
        "grouped_paired_sums",
        "first[rows][:, None] + np.arange(k)",
        "first[rows][:, None] + 0 * np.arange(k)",
    ),
    Mutation(PAIRED, "merge_paired", "p.m2_neg + p.n * b * b", "p.m2_neg + p.n * b"),
    Mutation(CHISQ, "residual", "x / e - e", "x / e + e"),
    Mutation(CHISQ, "_z_kernel", "lp[k] += wj * max(z, 0.0)", "lp[k] += wj * abs(z)"),
    Mutation(CHISQ, "_z_numpy", "weighted(z), S", "weighted(np.minimum(z, 0.0)), S"),
    Mutation(CHISQ, "_z_numpy", "Xt / np.where(e > 0.0, e, 1.0) - e", "Xt / np.where(e > 0.0, e, 1.0)"),
    Mutation(CHISQ, "_z_numpy", "a = np.sqrt(S / N)", "a = S / N"),
    Mutation(CHISQ, "zrisk_from", "(1.0 + alpha) * z.z_neg", "alpha * z.z_neg"),
    Mutation(CHISQ, "georisk_from", "ndtr(zrisk_from(z, alpha) / z.n)", "ndtr(zrisk_from(z, alpha))"),
    Mutation(CHISQ, "georisk_from", "z.S / z.n", "z.S"),
)


def span(source: str, name: str) -> tuple[int, int]:
    """The character range of the top-level function or assignment ``name`` in ``source``."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    for node in ast.parse(source).body:
        names = [node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else []
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
        if name in names:
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            return starts[first - 1], starts[node.end_lineno or node.lineno]
    raise LookupError(name)


def mutate(text: str, m: Mutation) -> str | None:
    """``text`` with the mutation applied, or ``None`` when its function lacks the text."""
    try:
        a, b = span(text, m.function)
    except LookupError:
        return None
    body = text[a:b]
    if m.old not in body:
        return None
    return text[:a] + body.replace(m.old, m.new, 1) + text[b:]


def copy_repository(dest: Path) -> None:
    files = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def run_tests(work: Path, timeout: float, tests: list[str]) -> tuple[set[str], set[str], float]:
    """The tests that passed and those that did not, and the seconds the run took; ``tests``
    (node ids) run until the first failure, none given: the whole file."""
    report = work / "junit.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": str(work / "src"), "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q", "--tb=no"]
    command += ["-x", *tests] if tests else [TESTS]
    start = time.perf_counter()
    try:
        subprocess.run(
            [*command, f"--junitxml={report}"],
            cwd=work,
            env=env,
            capture_output=True,
            timeout=timeout,
            preexec_fn=lambda: os.nice(10),
        )
    except subprocess.TimeoutExpired:
        return set(), {"(timeout)"}, time.perf_counter() - start
    passed: set[str] = set()
    failed: set[str] = set()
    if report.exists():
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{TESTS}::{case.get('name')}"
            bad = any(child.tag in ("failure", "error") for child in case)
            (failed if bad else passed).add(name)
    if not passed and not failed:
        failed.add("(no report: the tests did not run)")
    return passed, failed, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="the mutations of this function only")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run of the tests")
    args = parser.parse_args()
    chosen = [m for m in MUTATIONS if args.only in (None, m.function)]
    work = args.keep or Path(tempfile.mkdtemp(prefix="riskeval-homes-"))
    work.mkdir(parents=True, exist_ok=True)
    copy_repository(work)
    passing, failing, seconds = run_tests(work, args.timeout, [])
    print(f"unchanged: {len(passing)} passed, {len(failing)} failed ({seconds:.0f} s)", file=sys.stderr)
    if not passing:
        sys.exit(f"no test passes on the unchanged code in {work}; nothing to decide by")
    rows, killed = [], 0
    for m in chosen:
        path = work / m.path
        original = path.read_text(encoding="utf-8")
        mutant = mutate(original, m)
        if mutant is None:
            rows.append((m, "not found", ""))
            continue
        path.write_text(mutant, encoding="utf-8")
        try:
            _, failed, seconds = run_tests(work, args.timeout, sorted(passing))
        finally:
            path.write_text(original, encoding="utf-8")
        killed += bool(failed)
        verdict = "killed" if failed else "survived"
        rows.append((m, verdict, min(failed).rsplit("::", 1)[-1] if failed else ""))
        print(f"{m.function}: {verdict} ({seconds:.0f} s)", file=sys.stderr)
    print("| home | mutation | result | first test that fails |")
    print("|---|---|---|---|")
    for m, verdict, first in rows:
        print(f"| `{Path(m.path).name}:{m.function}` | `{m.old}` → `{m.new}` | {verdict} | {first} |")
    tried = sum(verdict != "not found" for _, verdict, _ in rows)
    print(f"\n{killed} of {tried} mutants killed.")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

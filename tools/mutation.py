"""Mutation check of riskeval's risk measures and core maths with mutmut (2.x).

mutmut changes one operator, number or name at a time in the package's source and runs tests
against the changed code; a mutant the tests still pass "survives", and is either a test to write
or a change that makes no difference.  This script

1. copies the repository (the files git tracks or would track) into a working folder, so that the
   checkout itself is never mutated;
2. runs the package's test files (:data:`TESTS`) once, recording which tests call each function
   of the package (again, for the files changed since, when a kept run is resumed);
3. runs mutmut over every source file of the package, one mutant at a time at the lowest CPU
   priority, each against the tests that call the function it is in (a line outside any function,
   or in a function no test is seen calling: the tests of the whole file), the fastest of each
   test file first, as many as fit in ``--seconds`` (:data:`SECONDS_PER_MUTANT`), stopping at the
   first failure;
   the tests run in a fork of a process that has imported everything but riskeval and the tests;
4. prints the score (killed / all mutants) and the diff of every survivor.

The kernels run as Python (``NUMBA_DISABLE_JIT=1``): compiling them again for every mutant would
take most of the run.  A mutant that only changes how numba compiles a kernel therefore survives,
and so does one in a line no selected test reaches.  The lines whose every mutant computes the same
numbers by construction (numba's ``fastmath`` flag sets, and the ``@njit(parallel=..., cache=...,
fastmath=...)`` decorators of kernels called only from Python) carry ``# pragma: no mutate`` and
are not mutated; no other line does.
A timeout (ten times the unmutated run of the longest selection of tests) counts as killed, as mutmut counts
it.  A resumed run tries its survivors again when test files changed or with ``--seconds``.

    python tools/mutation.py measures              # src/riskeval/measures/, in a temporary folder
    python tools/mutation.py core --workdir DIR    # keep (and resume) the run in DIR
    python tools/mutation.py core --workdir DIR --seconds 8  # then its survivors, with more tests
    python tools/mutation.py core --workdir DIR --report   # the score of a kept run

Needs the ``test`` extra (mutmut 2).  Not part of the test suite: a package takes 30-60 minutes.
"""

from __future__ import annotations

import argparse
import ast
import filecmp
import importlib
import json
import os
import select
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The test files run once to find which tests call each function (fast ones, without
#: subprocesses, campaign data or long-running kernels, which run slowly as Python).
TESTS = {
    "measures": [
        "tests/test_trisk.py",
        "tests/test_trisk_jackknife.py",
        "tests/test_zrisk_georisk.py",
        "tests/test_table_and_baselines.py",
        "tests/test_own_baselines.py",
        "tests/test_declared_risk.py",
        "tests/test_kernel_edges.py",
        "tests/test_options.py",
        "tests/test_snapshot_defaults.py",
        "tests/test_measure_messages.py",
        "tests/test_matrix_labels.py",
        "tests/test_baseline_correlation.py",
        "tests/test_risk_invariants.py",
        "tests/test_baseline_messages.py",
        "tests/test_baseline_resolution.py",
        "tests/test_declared_values.py",
        "tests/test_result_objects.py",
        "tests/test_topic_risk_decisions.py",
    ],
    "core": [
        "tests/test_trisk.py",
        "tests/test_trisk_jackknife.py",
        "tests/test_zrisk_georisk.py",
        "tests/test_table_and_baselines.py",
        "tests/test_own_baselines.py",
        "tests/test_kernel_edges.py",
        "tests/test_numba_loader.py",
        "tests/test_chisq_residuals.py",
        "tests/test_core_random.py",
        "tests/test_mve.py",
        "tests/test_mve_rank_correlation.py",
        "tests/test_bias_variance.py",
        "tests/test_bias_variance_families.py",
        "tests/test_baseline_rankings.py",
        "tests/test_bias_study_bootstrap.py",
        "tests/test_bias_study_scale.py",
        "tests/test_baseline_correlation.py",
        "tests/test_compare.py",
        "tests/test_risk_invariants.py",
        "tests/test_leave_one_out_baselines.py",
        "tests/test_kernel_forms.py",
        "tests/test_mve_moments.py",
        "tests/test_pvalues_and_rank_ties.py",
        "tests/test_compile_notice.py",
    ],
}

#: Tests that can fail when the kernels run as Python (BLAS thread counts in fresh processes):
#: never selected.
UNSTABLE = ("tests/test_bias_study_scale.py::test_pca_and_correlations_have_the_same_bits",)

#: The most test time (of the traced run, which is slower than a plain one) spent on one mutant, by
#: default: the fastest tests kill most mutants; a second pass with more time tries the survivors.
SECONDS_PER_MUTANT = 2.0

#: mutmut's statuses, as stored in its cache.
KILLED, SURVIVED, TIMEOUT, SUSPICIOUS = "ok_killed", "bad_survived", "bad_timeout", "ok_suspicious"

#: The environment of every test run: kernels as Python, one thread.
TEST_ENV = {
    "NUMBA_DISABLE_JIT": "1",
    "NUMBA_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
}

#: pytest's arguments, without the tests: in this process, the fast suite, the tests that failed
#: last first (a test that killed a mutant tends to kill its neighbours).
PYTEST = ["-x", "--ff", "-q", "-p", "no:xdist", "-o", "addopts=", "-m", "not slow", "--tb=no", "--no-header"]


# -- The pytest plugin of step 2 (loaded with ``-p mutation``): the package's functions each test
# -- calls, by the first line of the function's code, and the test's duration.

_calls: dict[str, Any] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Any:
    """Record the package's functions that ``item`` calls (in set-up, call and tear-down)."""
    package = os.environ["RISKEVAL_MUTATION_PACKAGE"]
    called: set[tuple[str, int]] = set()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and package in frame.f_code.co_filename:
            called.add((Path(frame.f_code.co_filename).name, frame.f_code.co_firstlineno))

    start = time.perf_counter()
    sys.setprofile(profile)
    try:
        yield
    finally:
        sys.setprofile(None)
        _calls[item.nodeid] = {"seconds": time.perf_counter() - start, "calls": sorted(called)}


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    """Write the record of every test that passed to ``$RISKEVAL_MUTATION_TRACE``."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    failed = {report.nodeid for report in reporter.stats.get("failed", [])}
    record = {test: row for test, row in _calls.items() if test not in failed}
    Path(os.environ["RISKEVAL_MUTATION_TRACE"]).write_text(json.dumps(record))


# -- The test runner of step 3: a process that has imported everything the tests import except
# -- riskeval and the tests themselves, and forks for every mutant, so that a mutant costs the
# -- import of riskeval (from the mutated source) and its tests, not a Python start-up.

#: The command mutmut runs for a mutant: sends its arguments (socket, then pytest's) to the runner,
#: on one line, and exits with the runner's answer.  ``-S``: no site packages, a start-up of milliseconds.
CLIENT = (
    "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
    "s.sendall('\\0'.join(sys.argv[2:]).encode() + b'\\n'); "
    "sys.exit(int(s.makefile().read() or 1))"
)


def _imported_by(tests: list[str]) -> list[str]:
    """The modules that collecting ``tests`` imports, riskeval's and the tests' own left out (found
    in a child process, which exits after)."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        with open(os.devnull, "w") as quiet:
            os.dup2(quiet.fileno(), 1)
            pytest.main(["--collect-only", "-q", "-p", "no:xdist", "-o", "addopts=", *tests])
        os.write(write, "\n".join(sorted(sys.modules)).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        names = pipe.read().split()
    os.wait()
    own = ("riskeval", "tests", "conftest", "test_", "shared_data", "doc_blocks", "cli_runner")
    return [name for name in names if not name.startswith(own)]


def serve(path: str, tests: list[str]) -> None:
    """Run pytest with the arguments each client sends, in a fork of this process; answer its exit
    status, 1 for any failure or error, 0 when the tests pass.  A client that disconnects (mutmut's
    timeout) ends its run."""
    for name in _imported_by(tests):
        try:
            importlib.import_module(name)
        except Exception:  # a module that cannot be imported alone: the tests import it
            pass
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen()
    while True:
        conn, _ = server.accept()
        with conn:
            args = conn.makefile("rb").readline().decode().rstrip("\n").split("\0")
            child = os.fork()
            if child == 0:
                with open(os.devnull, "w") as quiet:
                    os.dup2(quiet.fileno(), 1)
                    os.dup2(quiet.fileno(), 2)
                    os._exit(int(pytest.main(args)))
            while True:
                done, status = os.waitpid(child, os.WNOHANG)
                if done:
                    code = os.waitstatus_to_exitcode(status)
                    conn.sendall(b"0" if code == 0 else b"1")
                    break
                if select.select([conn], [], [], 0.05)[0]:  # the client is gone
                    os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                    break


# -- Steps 1, 3 and 4.


def copy_repository(dest: Path) -> None:
    """The files git tracks, or would track, copied from the checkout into ``dest`` (where they
    differ)."""
    listed = subprocess.check_output(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, text=True)
    for name in listed.splitlines():
        source = ROOT / name
        target = dest / name
        if source.is_file() and not (target.is_file() and filecmp.cmp(source, target, shallow=False)):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def functions(source: Path) -> list[tuple[int, int]]:
    """``(first line, last line)`` of every function in ``source``, decorators included."""
    spans = []
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first, node.end_lineno or node.lineno))
    return spans


def innermost(spans: list[tuple[int, int]], line: int) -> int | None:
    """The first line of the innermost of ``spans`` around ``line`` (None: outside them all)."""
    around = [span for span in spans if span[0] <= line <= span[1]]
    return min(around, key=lambda span: span[1] - span[0])[0] if around else None


def tests_by_line(package_dir: Path, trace: dict[str, Any], budget: float) -> dict[str, dict[int, list[str]]]:
    """For every source file and line, the tests to run against a mutant there: those that call
    the innermost function around the line (outside any function: any function of the file), the
    fastest of each test file first, then the second fastest of each, and so on, as many as fit in
    ``budget`` seconds of the traced run's time."""
    rank: dict[str, int] = {}
    for test in sorted(trace, key=lambda test: trace[test]["seconds"]):
        rank[test] = sum(other.split("::")[0] == test.split("::")[0] for other in rank)
    order = sorted(trace, key=lambda test: (rank[test], trace[test]["seconds"]))
    selection: dict[str, dict[int, list[str]]] = {}
    for source in sorted(package_dir.glob("*.py")):
        spans = functions(source)
        called_by: dict[int | None, set[str]] = {None: set()}
        for test in order:
            for filename, first_line in trace[test]["calls"]:
                if filename == source.name and innermost(spans, first_line) is not None:
                    called_by.setdefault(innermost(spans, first_line), set()).add(test)
                    called_by[None].add(test)
        lines: dict[int, list[str]] = {}
        for number in range(1, len(source.read_text().splitlines()) + 1):
            # a function no test was seen calling (a numba ufunc, which runs compiled): the file's tests
            chosen = called_by.get(innermost(spans, number)) or called_by[None]
            lines[number], seconds = [], 0.0
            for test in (test for test in order if test in chosen):
                if lines[number] and seconds + trace[test]["seconds"] > budget:
                    continue
                lines[number].append(test)
                seconds += trace[test]["seconds"]
        selection[source.name] = lines
    return selection


#: mutmut's hook, written into the working folder: each mutant runs its line's tests.
HOOK = """import json, shlex
from pathlib import Path

SELECTION = json.loads(Path("mutation-selection.json").read_text())


def pre_mutation(context):
    tests = SELECTION[Path(context.filename).name][str(context.current_line_index + 1)]
    # No test reaches the line: the mutant survives (``true`` passes).
    context.config.test_command = {run!r} + " ".join(map(shlex.quote, tests)) if tests else "true"
"""


def forget_changed_lines(workdir: Path, cache: Path) -> None:
    """Forget the mutants of a file whose lines in mutmut's cache are not the file's lines.

    A run stopped while a mutant was on disk can leave the mutated line in the cache; mutmut 2.5.1
    then stops at that file's mutants with ``ValueError: Attribute Mutant.line is required`` (its
    lookup of the line finds nothing).  mutmut registers the file's lines and mutants again.
    """
    with sqlite3.connect(cache) as db:
        for file_id, filename in db.execute("SELECT id, filename FROM SourceFile").fetchall():
            lines = (workdir / filename).read_text().split("\n") if (workdir / filename).exists() else []
            rows = db.execute("SELECT line, line_number FROM Line WHERE sourcefile = ?", (file_id,))
            if all(number < len(lines) and lines[number] == line for line, number in rows):
                continue
            db.execute(
                "DELETE FROM Mutant WHERE line IN (SELECT id FROM Line WHERE sourcefile = ?)", (file_id,)
            )
            db.execute("DELETE FROM Line WHERE sourcefile = ?", (file_id,))
            db.execute("UPDATE SourceFile SET hash = '' WHERE id = ?", (file_id,))


def run_mutmut(command: list[str], workdir: Path, env: dict[str, str]) -> bool:
    """Run mutmut until it ends; True if it stopped on ``Attribute Mutant.line is required``.

    mutmut 2.5.1 sometimes fails to find a mutant's line in its cache when it records the mutant's
    status, and then hangs instead of exiting (its worker's queues wait for a reader); the run is
    stopped there, and resuming it goes on from the next mutant."""
    log_file = workdir / "mutmut.log"
    start = log_file.stat().st_size if log_file.exists() else 0
    with log_file.open("a") as log:
        mutmut = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        while mutmut.poll() is None:
            time.sleep(5)
            with log_file.open() as text:
                text.seek(start)
                if "Attribute Mutant.line is required" in text.read():
                    os.killpg(mutmut.pid, signal.SIGKILL)  # mutmut and its worker
                    mutmut.wait()
                    for backup in workdir.glob("src/**/*.py.bak"):  # the mutant on disk, if any
                        backup.replace(backup.with_suffix(""))
                    return True
    return False


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
    parser.add_argument("--workdir", type=Path, help="working folder, kept to resume (default: temporary)")
    parser.add_argument("--report", action="store_true", help="only report the run kept in --workdir")
    parser.add_argument(
        "--seconds",
        type=float,
        default=SECONDS_PER_MUTANT,
        help="test time per mutant, as traced (default: %(default)s; more for a second pass on survivors)",
    )
    args = parser.parse_args()
    if args.report and args.workdir is None:
        parser.error("--report reads the run kept in --workdir")
    workdir = (args.workdir or Path(tempfile.mkdtemp(prefix=f"riskeval-mutation-{args.package}-"))).resolve()
    package = f"src/riskeval/{args.package}"
    env = {**os.environ, **TEST_ENV, "PYTHONPATH": f"{workdir / 'src'}{os.pathsep}{ROOT / 'tools'}"}
    runner = workdir / "mutation.sock"
    run = shlex.join([sys.executable, "-S", "-c", CLIENT, str(runner), *PYTEST]) + " "
    if not args.report:
        workdir.mkdir(parents=True, exist_ok=True)
        for backup in (workdir / package).glob("*.py.bak"):  # left by an interrupted mutmut
            backup.unlink()
        copy_repository(workdir)  # again when resuming: the checkout's code and tests as they are now
        trace_file = workdir / "mutation-trace.json"
        # The test files changed since the last trace (all of them the first time) are traced again.
        traced = trace_file.stat().st_mtime if trace_file.exists() else 0.0
        stale = [test for test in TESTS[args.package] if (ROOT / test).stat().st_mtime > traced]
        if stale:
            print(
                f"finding the tests of {len(stale)} file(s) that call each function of {package}/", flush=True
            )
            fresh = workdir / "mutation-trace-new.json"
            trace_env = {
                **env,
                "RISKEVAL_MUTATION_PACKAGE": f"{package}/",
                "RISKEVAL_MUTATION_TRACE": str(fresh),
            }
            command = [sys.executable, "-m", "pytest", *PYTEST[1:], "-p", "mutation", *stale]
            started = time.time()  # a test file changed while it runs is traced again next time
            subprocess.run(["nice", "-n", "19", *command], cwd=workdir, env=trace_env)
            kept = json.loads(trace_file.read_text()) if trace_file.exists() else {}
            kept = {test: row for test, row in kept.items() if test.split("::")[0] in TESTS[args.package]}
            kept = {test: row for test, row in kept.items() if test.split("::")[0] not in stale}
            trace_file.write_text(json.dumps({**kept, **json.loads(fresh.read_text())}))
            os.utime(trace_file, (started, started))
        trace = json.loads(trace_file.read_text())
        trace = {test: row for test, row in trace.items() if not test.startswith(UNSTABLE)}
        selection = tests_by_line(workdir / package, trace, args.seconds)
        (workdir / "mutation-selection.json").write_text(json.dumps(selection))
        (workdir / "mutmut_config.py").write_text(HOOK.format(run=run))
        # No bytecode is written: a mutant and the original in the same second, of the same size,
        # would share it.
        for cache in (workdir / "src").rglob("__pycache__"):
            shutil.rmtree(cache)
        runner.unlink(missing_ok=True)
        serving = f"import mutation; mutation.serve({str(runner)!r}, {TESTS[args.package]!r})"
        server = subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", serving], cwd=workdir, env=env)
        while not runner.exists():
            if server.poll() is not None:
                sys.exit(f"the test runner stopped (exit status {server.returncode}) before it was ready")
            time.sleep(0.1)
        cache = workdir / ".mutmut-cache"
        if cache.exists():
            forget_changed_lines(workdir, cache)
            if stale or args.seconds != SECONDS_PER_MUTANT:  # new tests, or more time for each mutant
                with sqlite3.connect(cache) as db:
                    db.execute("UPDATE Mutant SET status = 'untested' WHERE status = ?", (SURVIVED,))
        # mutmut runs this command once, unmutated, to check that it passes and for its timeout:
        # the longest selection.
        lines = [tests for source in selection.values() for tests in source.values()]
        longest = max(lines, key=lambda tests: sum(trace[test]["seconds"] for test in tests))
        baseline = run + " ".join(map(shlex.quote, longest))
        mutmut_run = ["nice", "-n", "19", sys.executable, "-m", "mutmut", "run"]
        options = ["--paths-to-mutate", package, "--tests-dir", "tests"]
        options += ["--runner", baseline, "--no-progress"]
        command = [*mutmut_run, *options]
        print(f"mutating {package}/ in {workdir} (log: mutmut.log)", flush=True)
        try:
            while run_mutmut(command, workdir, env) and any(
                row[3] == "untested" for row in statuses(workdir)
            ):
                print("mutmut stopped on its cache; resuming", flush=True)
                forget_changed_lines(workdir, cache)
            # mutmut 2.5.1 looks up the status of a whole file's mutants by line text alone, so of
            # two equal lines (two ``@dataclass(frozen=True)``) only the first one's mutants run;
            # the others run one at a time, by id, which looks their own line up.
            for mutant_id, *_ in [row for row in statuses(workdir) if row[3] == "untested"]:
                run_mutmut([*mutmut_run, str(mutant_id), *options], workdir, env)
        finally:
            server.kill()
    found = statuses(workdir)
    killed = [row for row in found if row[3] in (KILLED, TIMEOUT, SUSPICIOUS)]
    untried = [row for row in found if row[3] not in (KILLED, TIMEOUT, SUSPICIOUS, SURVIVED)]
    print(f"\n{args.package}: {len(killed)} of {len(found)} mutants killed", end="")
    print(f" ({100 * len(killed) / len(found):.1f}%)" if found else "", end="")
    print(f"; {len(untried)} not tried" if untried else "")
    for mutant_id, filename, line, status in found:
        if status == SURVIVED:
            print(f"\n--- survived: {filename}:{line} (mutant {mutant_id})", flush=True)
            subprocess.run([sys.executable, "-m", "mutmut", "show", str(mutant_id)], cwd=workdir, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Start-up and the one-line notice of the first compilation: the risk table of a TREC-sized matrix
imports no numba (numpy forms of its sums, equal to the kernels); kernels load on first use; numba
compiling a riskeval kernel writes the notice once per process on stderr, and a run whose kernels
are all in numba's cache writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from riskeval.core import _numba, chisq, paired

SRC = str(Path(__file__).resolve().parents[1] / "src")
RISK_NOTICE = (
    "riskeval: compiling the risk measures' kernels, once: about 5 s; later runs load them from the cache.\n"
)
EVALUATION_NOTICE = (
    "riskeval: compiling the evaluation kernels, once: about 10 s; later runs load them from the cache.\n"
)


def _riskeval(*args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-m", "riskeval", *args], env=env, capture_output=True, text=True, check=True
    )


def _compiled_in(module: str):
    """A function of ``module``, compiled without a disk cache so that numba compiles it."""

    def twice(x):
        return 2.0 * x

    twice.__module__ = module
    return njit(twice)


def test_notice_once_for_riskeval_kernels_only(capsys, monkeypatch):
    _numba._load_numba()
    monkeypatch.setattr(_numba, "quiet", False)  # as in a process that compiled nothing yet
    monkeypatch.setattr(_numba, "announced", set())
    capsys.readouterr()
    assert _compiled_in("elsewhere.module")(np.float64(1.0)) == 2.0
    assert capsys.readouterr().err == ""
    assert _compiled_in("riskeval.core.probe")(np.float64(1.0)) == 2.0
    assert _compiled_in("riskeval.core.probe")(np.float64(2.0)) == 4.0
    assert capsys.readouterr().err == RISK_NOTICE
    assert _numba.announced == {RISK_NOTICE}


def test_notice_text():
    """Each part is named; a module outside riskeval has no notice."""
    assert _numba.compile_notice("riskeval.core.probe") == RISK_NOTICE
    assert _numba.compile_notice("riskeval.evaluation.run_arrays") == EVALUATION_NOTICE
    assert _numba.compile_notice("riskeval.io.qrels") == EVALUATION_NOTICE
    assert _numba.compile_notice("riskeval.inference.tukey").startswith(
        "riskeval: compiling the inference kernels, once: about "
    )
    assert _numba.compile_notice("riskevalx.core") is None


def _scores(path: Path, r: int, c: int) -> Path:
    rng = np.random.default_rng(7)
    rows = [f"s{i},t{j},{rng.beta(2, 5):.6f}" for i in range(r) for j in range(c)]
    path.write_text("system,topic,score\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_first_run_compiles_with_one_notice_and_the_next_is_silent(tmp_path):
    """An empty ``NUMBA_CACHE_DIR`` and a table large enough for the kernels: the first run writes
    the notice once on stderr, never on stdout (json stays parseable); the second run loads the
    kernels from that cache and writes nothing on stderr."""
    scores = _scores(tmp_path / "scores.csv", 150, 120)
    assert 150 * 120 >= _numba.NUMPY_CELLS
    cache = tmp_path / "cache"
    first = _riskeval("risk", str(scores), "-b", "mean", "--format", "json", cache=cache)
    assert first.stderr == RISK_NOTICE
    rows = json.loads(first.stdout)
    second = _riskeval("risk", str(scores), "-b", "mean", "--format", "json", cache=cache)
    assert second.stderr == ""
    assert json.loads(second.stdout) == rows
    assert any(cache.rglob("*.nbi"))  # numba's index files are where NUMBA_CACHE_DIR says


@pytest.mark.slow
def test_the_example_imports_no_numba_and_compiles_nothing(tmp_path):
    code = (
        "import sys\nfrom riskeval.cli.main import main\n"
        "main(['risk', '--example', '-b', 'mean', '--format', 'csv'])\n"
        "print('numba' in sys.modules, file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stderr == "False\n"
    assert not any(tmp_path.iterdir())


def test_the_registry_of_risk_measures_imports_neither_numpy_nor_scipy():
    """Declaring, parsing and listing risk measures (the command line's help lists them) stays
    light: the built-in measures import their kernels when first computed."""
    code = (
        "import sys\nfrom riskeval.measures.declared import measure_table, parse_risk\n"
        "parse_risk('GeoRisk@5'); measure_table()\n"
        "print(sorted({'numpy', 'scipy'} & {m.split('.')[0] for m in sys.modules}), file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stderr == "[]\n"


def _random_case(seed: int, shared: bool, weighted: bool):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(1, 70), rng.integers(1, 60)
    X = rng.choice([0.0, 0.1, 0.25, 0.5, 1.0, rng.random()], size=(r, c)) * rng.integers(0, 2, (r, c))
    X = np.where(rng.random((r, c)) < 0.5, rng.random((r, c)), X)
    B = rng.random(c) if shared else rng.random((r, c))
    w = rng.integers(0, 4, c).astype(np.float64) if weighted else np.ones(c)
    w[0] += 1.0  # a positive total weight
    return X, B, w


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_numpy_forms_equal_the_kernels(seed, shared, weighted):
    """Below :data:`NUMPY_CELLS` the paired and chi-square sums are numpy expressions: the same
    bits as the compiled kernels (the same operations, each sum over the topics in order)."""
    X, B, w = _random_case(seed, shared, weighted)
    Xt = paired.topic_major(X)
    Bt = np.ascontiguousarray(B[:, None]) if shared else paired.topic_major(B)
    W = np.stack([w, np.ones_like(w)])  # two resamples at once
    K = np.zeros((0, X.shape[0]))  # the shift of the moments computed by each form
    for got, want in zip(
        paired._paired_numpy(Xt, Bt, W, K),
        _numba.serial_twin(paired._paired_kernel)(Xt, Bt, W, K, True),
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)
    T, T0 = X.sum(axis=0), np.atleast_2d(B).sum(axis=0)
    for args in ((Xt, T, np.zeros(0)), (Xt, np.zeros(0), T0)):
        sums, n = chisq._z_numpy(*args, w)
        compiled, total = _numba.serial_twin(chisq._z_kernel)(*args, W)
        np.testing.assert_array_equal(sums, compiled[:, :, 0])
        assert n == total[0]


def test_the_size_chooses_the_form(monkeypatch):
    """Tables from NUMPY_CELLS cells up run the kernels; the public sums are the same bits either
    way."""
    X, B, w = _random_case(3, True, True)
    small = paired.paired_sums(X, B, w)
    monkeypatch.setattr(paired, "NUMPY_CELLS", 0)
    compiled = paired.paired_sums(X, B, w)
    for f in small._fields:
        np.testing.assert_array_equal(getattr(small, f), getattr(compiled, f))


def test_kernels_load_on_first_use_and_keep_their_options():
    """A kernel is numba's dispatcher once used, with the options it was declared with; its
    module's name then refers to the dispatcher itself."""
    import numba

    kernel = paired._paired_kernel
    dispatcher = kernel.load() if isinstance(kernel, _numba._Deferred) else kernel
    assert isinstance(dispatcher, numba.core.registry.CPUDispatcher)
    assert dispatcher.targetoptions["parallel"] is True
    assert paired._paired_kernel is dispatcher
    assert isinstance(paired.loss20, numba.np.ufunc.dufunc.DUFunc)  # the kernel's code names it
    np.testing.assert_array_equal(paired.loss20(np.array([-0.3, -0.1]), np.array([1.0, 1.0])), [True, False])


#: Packages that neither ``riskeval evaluate`` nor ``riskeval risk`` of plain files uses: ranx
#: (whose import brings numba, matplotlib and scipy.stats), plotting, reports, clusters, learning to
#: rank and the Bayesian sampler.
UNUSED = ("ranx", "matplotlib", "jinja2", "dask", "distributed", "lightgbm", "jax", "pyarrow")

BUDGET = """
import sys
import pandas  # pandas from 3.0 imports pyarrow where installed: not riskeval's import
through_pandas = {m.split('.')[0] for m in sys.modules}
from riskeval.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    assert not stop.code, stop.code
loaded = {m.split('.')[0] for m in sys.modules} - through_pandas
print(sorted(loaded & set(UNUSED)), file=sys.stderr)
"""


def _imports_of(args: list[str]) -> str:
    code = f"UNUSED = {UNUSED!r}\n" + BUDGET
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stderr.strip().splitlines()[-1]


@pytest.mark.slow
def test_evaluate_and_risk_of_plain_files_import_nothing_they_do_not_use(tmp_path):
    """An import budget in a fresh process: ``evaluate`` of a run file and ``risk`` of its scores
    load none of :data:`UNUSED`, beyond what pandas itself imports.  Checking that nDCG@10 can be
    evaluated asks ir_measures' providers in order and stops at pytrec_eval, so ranx's provider
    (which imports ranx) is never started."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n", encoding="utf-8")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n", encoding="utf-8")
    scores = _scores(tmp_path / "scores.csv", 4, 6)
    assert _imports_of(["evaluate", "--qrels", str(qrels), "-m", "nDCG@10", "-m", "AP", str(run)]) == "[]"
    assert _imports_of(["risk", str(scores), "-b", "mean", "--format", "csv"]) == "[]"


SHIPPED = """
import json, sys
import riskeval as rk
from riskeval.evaluation import engine
from riskeval.io import qrels as reader

qrels_path, runs = sys.argv[1], sys.argv[2:]
seen = []
made = engine.RunEvaluator.__init__
engine.RunEvaluator.__init__ = lambda self, q, m, e="compiled", **kw: seen.append(e) or made(self, q, m, e, **kw)
small = rk.io.evaluate_runs_long(qrels_path, runs, ["nDCG@10", "AP", "RR@10"], n_jobs=1)
light = "numba" in sys.modules
engine.COMPILED_MIN_BYTES = reader.COMPILED_BYTES = 0
compiled = rk.io.evaluate_runs_long(qrels_path, runs, ["nDCG@10", "AP", "RR@10"], n_jobs=1)
print(json.dumps([seen, light, "numba" in sys.modules, small.equals(compiled), len(small)]))
"""


def test_small_inputs_are_left_to_ir_measures_and_the_line_reader_with_the_same_values(tmp_path):
    """With the sizes as shipped (a fresh process, outside this suite's settings), a few small runs
    and qrels are evaluated by ir_measures and read line by line, numba never imported; the values
    are those of the compiled path."""
    rng = np.random.default_rng(3)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} 0 d{d} {rng.integers(0, 4)}\n" for t in range(1, 9) for d in range(30)),
        encoding="utf-8",
    )
    runs = []
    for k in range(3):
        lines = [
            f"{t} Q0 d{d} {r} {rng.random():.3f} sys{k}"
            for t in range(1, 9)
            for r, d in enumerate(rng.permutation(40))
        ]
        runs.append(tmp_path / f"run{k}.txt")
        runs[-1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", SHIPPED, str(qrels), *map(str, runs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == [["ir_measures", "compiled"], False, True, True, 3 * 8 * 3]


def test_the_engine_is_chosen_by_the_run_files_sizes(tmp_path, monkeypatch):
    from riskeval.evaluation import engine

    monkeypatch.setattr(engine, "COMPILED_MIN_BYTES", 400)
    plain, packed = tmp_path / "a.run", tmp_path / "b.run.gz"
    plain.write_bytes(b"x" * 300)
    packed.write_bytes(b"x" * 100)  # counts as GZIP_RATIO × 100 bytes of text
    assert engine.engine_for("compiled", [str(plain)]) == "ir_measures"
    assert engine.engine_for("compiled", [str(packed)]) == "compiled"
    assert engine.engine_for("compiled", [str(plain), str(plain)]) == "compiled"
    assert engine.engine_for("ir_measures", [str(plain), str(plain)]) == "ir_measures"
    assert engine.engine_for("compiled", [str(tmp_path / "absent.run")]) == "ir_measures"


LIGHT = """
import sys
from riskeval.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    assert not stop.code, stop.code
print(sorted({m.split('.')[0] for m in sys.modules} & {"pandas", "pyarrow", "numba"}), file=sys.stderr)
"""


@pytest.mark.slow
def test_per_topic_csv_of_plain_files_imports_neither_pandas_nor_numba(tmp_path):
    """What a script runs per job, ``evaluate --per-topic --format csv`` of small plain files (a
    run lacking a judged topic included, scored 0), loads neither pandas (whose import was most of
    such a command's CPU) nor numba: the scores go from arrays to the csv module."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n3 0 d 1\n", encoding="utf-8")
    run = tmp_path / "a.run"
    run.write_text("1 Q0 a 1 2.0 sys\n1 Q0 b 2 1.0 sys\n2 Q0 c 1 1.0 sys\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    args = ["evaluate", "--qrels", str(qrels), "-m", "nDCG@10", "-m", "AP", "--per-topic", "--format", "csv"]
    done = subprocess.run(
        [sys.executable, "-c", LIGHT, *args, str(run)], env=env, capture_output=True, text=True, check=True
    )
    assert done.stderr.strip().splitlines()[-1] == "[]"
    assert done.stdout.splitlines()[:4] == [
        "system,topic,measure,score",
        "sys,1,nDCG@10,1.0",
        "sys,2,nDCG@10,1.0",
        "sys,3,nDCG@10,0.0",
    ]

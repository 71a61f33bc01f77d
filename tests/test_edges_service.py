"""Inputs a shared evaluation service receives from anyone: each is refused with one clear message
(a RiskevalError; on the command line exit status 2 and no traceback) or gives the right result,
never a traceback or a silent change.

- a scheduler address that is not one, and Dask workers lost during an evaluation (slow);
- Parquet files and DataFrames with MultiIndex rows or columns, NaN system and topic labels;
- boolean and complex scores from Parquet, DataFrames, arrays and vectors;
- a LETOR label too large for a float (``1e400``), an empty topic label in a query-variation table;
- α and ``n_resamples`` beyond their bounds, in functions and on the command line.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io.letor import read_letor
from riskeval.io.variations import read_variation_table
from riskeval.model.variations import as_variations
from riskeval.options import MAX_ALPHA, MAX_RESAMPLES

X = pd.DataFrame(
    [[0.1, 0.5, 0.3, 0.2], [0.3, 0.2, 0.1, 0.4], [0.2, 0.2, 0.6, 0.1]],
    index=pd.Index(["a", "b", "c"], name="system"),
    columns=pd.Index(["q1", "q2", "q3", "q4"], name="topic"),
)


def cli_error(code: int, out: str, err: str) -> str:
    """The message of a command that must stop with status 2 and no traceback."""
    assert code == 2, (out, err)
    assert "Traceback" not in err and err.startswith("riskeval: error: ")
    return err


def one_line_error(code: int, out: str, err: str) -> str:
    """:func:`cli_error`, in one line."""
    err = cli_error(code, out, err)
    assert err.count("\n") == 1, err
    return err


# --- the scheduler address ----------------------------------------------------------------------


@pytest.mark.parametrize("address", ["not a url", "tcp://host:port", "gopher://host:70", "host:0"])
def test_a_malformed_scheduler_address_is_one_line_naming_the_option(tmp_path, capsys, address):
    (tmp_path / "q").write_text("1 0 d 1\n")
    (tmp_path / "a.run").write_text("1 Q0 d 1 1.0 a\n")
    started = time.monotonic()
    result = run_cli(
        ["evaluate", "--qrels", tmp_path / "q", "--scheduler", address, tmp_path / "a.run"], capsys
    )
    err = one_line_error(*result)
    assert "The '--scheduler' option must be a Dask scheduler address tcp://HOST:PORT" in err
    assert f"Got {address!r}." in err
    assert time.monotonic() - started < 5  # refused before any connection is tried


# --- tables: MultiIndex, labels -------------------------------------------------------------------


def test_a_parquet_file_with_multiindex_columns_is_refused(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    wide = X.copy()
    wide.columns = pd.MultiIndex.from_product([["score"], wide.columns])  # as pivot_table gives
    path = tmp_path / "scores.parquet"
    wide.to_parquet(path)
    with pytest.raises(InputFormatError, match=r"has 2 levels of column labels \(a MultiIndex"):
        rk.score_matrix(path)
    err = one_line_error(*run_cli(["risk", path], capsys))
    assert f"{path}: has 2 levels of column labels" in err and "df['score']" in err


def test_multiindex_rows_and_columns_of_a_dataframe_are_refused():
    rows = X.set_axis(pd.MultiIndex.from_tuples([("a", 1), ("b", 1), ("c", 1)]), axis=0)
    with pytest.raises(InputFormatError, match=r"2 levels of row labels \(a MultiIndex, e.g. \('a', 1\)\)"):
        rk.score_matrix(rows)
    with pytest.raises(RiskevalError, match=r"^X has 2 levels of system labels \(a MultiIndex\)"):
        rk.risk_table(rows)
    columns = X.set_axis(pd.MultiIndex.from_product([["score"], X.columns]), axis=1)
    with pytest.raises(RiskevalError, match=r"^X has 2 levels of topic labels"):
        rk.zrisk(columns)


def test_a_nan_system_or_topic_label_is_refused_naming_its_row():
    nan_system = X.set_axis(["a", np.nan, "c"], axis=0)
    with pytest.raises(
        RiskevalError,
        match=r"^X has a missing system label \(nan\) at row 2 \(position 1\): every system needs a name\.$",
    ):
        rk.risk_table(nan_system)
    with pytest.raises(RiskevalError, match=r"missing topic label \(nan\) at column 3 \(position 2\)"):
        rk.georisk(X.set_axis(["q1", "q2", None, "q4"], axis=1))
    with pytest.raises(InputFormatError, match="row nan: the system label is empty"):
        rk.score_matrix(nan_system)


# --- boolean and complex scores ----------------------------------------------------------------


def test_boolean_scores_in_a_parquet_file_are_refused(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    path = tmp_path / "scores.parquet"
    X.assign(q2=[True, False, True]).to_parquet(path)
    with pytest.raises(InputFormatError) as info:
        rk.score_matrix(path)
    assert info.value.problems[0] == (
        f"{path}: row 1, topic 'q2'",
        "True is a boolean, not a score: scores are real numbers.",
    )
    assert len(info.value.problems) == 3  # one per cell, no hint that the table is read the wrong way
    long = X.stack().rename("score").reset_index()
    long["score"] = long["score"] > 0.15  # a long table of booleans
    long.to_parquet(path)
    with pytest.raises(InputFormatError, match=r"row 3: field 'score': True is a boolean"):
        rk.score_matrix(path)
    err = cli_error(*run_cli(["risk", path], capsys))
    assert "row 1: field 'score': False is a boolean, not a score" in err


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (X.assign(q1=[True, False, True]), r"row 'a', topic 'q1': True is a boolean, not a score"),
        (X.astype(complex), r"row 'a', topic 'q1': \(0\.1\+0j\) is a complex number, not a score"),
        (X.astype(object).assign(q3=[0.1, np.True_, 0.3]), r"row 'b', topic 'q3': True is a boolean"),
    ],
)
def test_boolean_and_complex_scores_of_a_dataframe_are_refused_by_score_matrix(frame, message):
    with pytest.raises(InputFormatError, match=message):
        rk.score_matrix(frame)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (
            X.assign(q2=[True, False, True]),
            r"^X, topic 'q2' holds booleans \(dtype bool\): scores must be real",
        ),
        (X.astype(complex), r"^X, topic 'q1' holds complex numbers \(dtype complex128\)"),
        (
            X.astype(object).assign(q4=[0.1, 0.2, True]),
            r"^X, topic 'q4' holds True \(a boolean\) for system 'c'",
        ),
        (X.to_numpy() > 0.2, r"^X holds booleans \(dtype bool\)"),
        (X.to_numpy() + 0j, r"^X holds complex numbers \(dtype complex128\): .* take \.real explicitly"),
        ([[0.1, True], [0.2, 0.3]], r"^X holds True \(a boolean\) for position 1"),
    ],
)
def test_boolean_and_complex_score_matrices_are_refused(matrix, message):
    with pytest.raises(RiskevalError, match=message):
        rk.risk_table(matrix)


def test_boolean_and_complex_score_vectors_are_refused():
    with pytest.raises(RiskevalError, match=r"^The 'system' of urisk holds booleans \(dtype bool\)"):
        rk.urisk(np.array([True, False, True]), [0.1, 0.2, 0.3])
    with pytest.raises(RiskevalError, match=r"^The 'baseline' of trisk holds complex numbers"):
        rk.trisk(X.loc["a"], X.loc["b"].astype(complex))
    with pytest.raises(RiskevalError, match=r"^The 'baseline' of risk_table holds booleans"):
        rk.risk_table(X, baseline=np.array([True, False, True, False]))
    with pytest.raises(
        RiskevalError, match=r"^The 'baseline' of risk_table holds True \(a boolean\) for position 0"
    ):
        rk.risk_table(X, baseline=[True, 0.2, 0.3, 0.4])
    with pytest.raises(
        RiskevalError, match=r"^The 'system' of urisk holds True \(a boolean\) for position 1"
    ):
        rk.urisk([0.1, True, 0.3], [0.1, 0.2, 0.3])


def test_real_scores_of_every_kind_are_still_read():
    """Integers, pandas' nullable floats and numbers held as objects are scores."""
    expected = rk.risk_table(X)
    for variant in (X.astype("Float64"), X.astype(object)):
        pd.testing.assert_frame_equal(rk.risk_table(variant), expected)
    assert rk.io.as_matrix(pd.DataFrame({"x": [1, 0], "y": [0.5, 0.25]})).dtypes.eq(np.float64).all()


# --- LETOR labels, variation tables ----------------------------------------------------------------


@pytest.mark.parametrize("label", ["1e400", "3e9", "1e10"])
def test_a_letor_label_beyond_32_bits_names_file_line_and_field(tmp_path, label):
    path = tmp_path / "train.txt"
    path.write_text(f"0 qid:1 1:0.5\n{label} qid:1 1:0.25\n")
    with pytest.raises(InputFormatError) as info:
        read_letor(path)
    assert info.value.problems == [
        (
            f"{path}:2",
            f"label {label!r} is too large: LightGBM's labels are 32-bit integers (at most 2147483647)",
        )
    ]


@pytest.mark.parametrize("blank", ["", "  "])
def test_an_empty_topic_label_in_a_variation_table_names_file_and_line(tmp_path, blank):
    path = tmp_path / "variations.csv"
    path.write_text(f"system,topic,variant,score\na,1,v1,0.5\na,{blank},v2,0.4\nb,1,v1,0.3\n")
    with pytest.raises(InputFormatError) as info:
        read_variation_table(path)
    assert info.value.problems == [
        (f"{path}:3", "the topic label is empty: every row needs a system, topic and variant")
    ]
    table = pd.DataFrame(
        {"system": ["a", None], "topic": ["1", "1"], "variant": ["v", "v"], "score": [0.1, 0.2]}
    )
    with pytest.raises(InputFormatError, match="row 1: the system label is empty"):
        as_variations(table)


# --- bounds: α and n_resamples --------------------------------------------------------------------


def test_alpha_above_its_bound_is_refused_with_the_reason(capsys):
    assert rk.trisk(X.loc["a"], X.loc["b"], alpha=MAX_ALPHA).se > 0  # the bound itself is allowed
    for call in (
        lambda: rk.trisk(X.loc["a"], X.loc["b"], alpha=1e308),
        lambda: rk.risk_table(X, alphas=[0, 5, 1e7]),
        lambda: rk.risk_table(X, alphas=np.array([0.0, 2e6])),
        lambda: rk.zrisk(X, alpha=1e308),
    ):
        with pytest.raises(
            RiskevalError, match=r"'alpha' parameter of \w+ must be at most 1e\+06\. Got .*no paper"
        ):
            call()
    with pytest.raises(RiskevalError, match=r"must be from -1e\+06 to 1e\+06"):
        rk.variations.mean_variance(pd.DataFrame(), alpha=-1e9)
    err = one_line_error(*run_cli(["risk", "--example", "--alpha", "1e308"], capsys))
    assert "The 'alpha' parameter of riskeval risk must be at most 1e+06. Got 1e+308." in err


def test_n_resamples_above_its_bound_is_refused_with_the_reason(capsys):
    for call in (
        lambda: rk.permutation_test(X.loc["a"], X.loc["b"], n_resamples=MAX_RESAMPLES + 1),
        lambda: rk.bootstrap_ci(X, n_resamples=10**20),
        lambda: rk.tukey_hsd(X, n_resamples=np.int64(2**40)),
    ):
        with pytest.raises(
            RiskevalError, match=r"'n_resamples' parameter of \w+ must be at most 10,000,000\. .*hours"
        ):
            call()
    for command in (["risk", "--example", "--test", "permutation"], ["risk", "--example", "--tukey"]):
        started = time.monotonic()
        result = run_cli([*command, "--n-resamples", "99999999999999999999"], capsys)
        err = one_line_error(*result)
        assert "'--n-resamples' option must be an integer >= 1 and <= 10000000." in err
        assert "time in proportion" in err and "10,000 (the default)" in err
        assert time.monotonic() - started < 5
    err = one_line_error(*run_cli(["risk", "--example", "--n-resamples", "many"], capsys))
    assert "Got 'many'." in err and "time in proportion" not in err


# --- Dask workers lost during an evaluation ---------------------------------------------------------


def _campaign(folder, runs=6, topics=30, docs=200, seed=7):
    """Synthetic qrels and run files (about 300 KB each) in ``folder``."""
    gen = np.random.default_rng(seed)
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(f"{t} 0 d{d} {gen.integers(0, 3)}\n" for t in range(topics) for d in range(0, docs, 5))
    )
    paths = []
    for r in range(runs):
        lines = []
        for t in range(topics):
            scores = gen.random(docs)
            order = np.argsort(-scores)
            lines += [f"{t} Q0 d{d} {k + 1} {scores[d]:.6f} run{r}\n" for k, d in enumerate(order)]
        paths.append(folder / f"run{r}.txt")
        paths[-1].write_text("".join(lines))
    return qrels, paths


@pytest.mark.slow
def test_losing_two_of_three_workers_during_an_evaluation_still_gives_every_score(tmp_path, monkeypatch):
    """Two of three worker processes are killed (SIGKILL) while they hold pieces of runs: Dask runs
    their tasks again on the others, and riskeval sends the lost pieces again."""
    pytest.importorskip("distributed")
    from riskeval.distributed import cluster
    from riskeval.evaluation import run_pieces

    qrels, runs = _campaign(tmp_path)
    expected = rk.evaluate_runs(qrels, runs, "nDCG@10")
    monkeypatch.setattr(run_pieces, "PIECE_BYTES", 32_768)  # every run in pieces, sent to workers
    killed: list[str] = []
    with cluster(3) as client:
        pids = client.run(os.getpid)

        def kill_two_holders() -> None:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                holders: dict[str, int] = {}
                for key, workers in client.who_has().items():
                    if "RunPiece" in str(key):
                        for worker in workers:
                            holders[worker] = holders.get(worker, 0) + 1
                if len(holders) >= 2:
                    for worker in sorted(holders, key=holders.__getitem__)[-2:]:
                        os.kill(pids[worker], signal.SIGKILL)
                        killed.append(worker)
                    return
                time.sleep(0.01)

        killer = threading.Thread(target=kill_two_holders, daemon=True)
        killer.start()
        scores = rk.evaluate_runs(qrels, runs, "nDCG@10", client=client)
        finished_with_kills = len(killed)
        killer.join()
    assert finished_with_kills == 2  # both were killed before the evaluation ended
    pd.testing.assert_frame_equal(scores, expected)

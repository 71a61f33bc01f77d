"""LightGBM models survive faults: saved atomically, refused when cut short (never a crash), and
parameters that would crash or confuse LightGBM refused first, by name."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as run

from riskeval.errors import InputFormatError, OutputError, RiskevalError
from riskeval.io import atomic
from riskeval.ltr import make_ranking, train
from riskeval.ltr.lightgbm_params import RULES, available_cpus, check_lightgbm_params
from riskeval.ltr.models import check_model_text, read_model, write_model

SRC = str(Path(__file__).resolve().parents[2] / "src")
PARAMS = {"num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1}


@pytest.fixture(scope="module")
def data():
    return make_ranking(20, 10, 4, rng=5)


@pytest.fixture(scope="module")
def booster(data):
    return train(PARAMS, data.X, data.y, data.group, num_boost_round=4)


@pytest.fixture(scope="module")
def model_bytes(booster, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.txt"
    write_model(booster, path)
    return path.read_bytes()


def write_letor(path, ranking):
    lines, start = [], 0
    for q, size in enumerate(ranking.group):
        for i in range(start, start + size):
            feats = " ".join(f"{j}:{ranking.X[i, j]:.6g}" for j in range(ranking.X.shape[1]))
            lines.append(f"{ranking.y[i]} qid:{q} {feats}")
        start += size
    path.write_text("\n".join(lines) + "\n")


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- saving ------------------------------------------------------------------------------------


def test_saved_model_is_lightgbms_own_text(booster, model_bytes, data):
    assert model_bytes.decode() == booster.model_to_string()
    loaded = lgb.Booster(model_str=model_bytes.decode())
    np.testing.assert_array_equal(loaded.predict(data.X), booster.predict(data.X))


def test_a_failed_save_keeps_the_previous_model_and_no_temporary(booster, tmp_path, monkeypatch):
    path = tmp_path / "model.txt"
    path.write_text("the previous model")
    real = os.fdopen

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def write(self, data):
            self.handle.write(data[:100])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: Full(real(*a, **k)))
    with pytest.raises(OutputError, match=r"cannot write .*model\.txt: No space left on device"):
        write_model(booster, path)
    assert path.read_text() == "the previous model"
    assert leftovers(tmp_path) == []


def test_an_interrupted_save_keeps_the_previous_model(booster, tmp_path, monkeypatch):
    path = tmp_path / "model.txt"
    path.write_text("the previous model")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_model(booster, path)
    assert path.read_text() == "the previous model"
    assert leftovers(tmp_path) == []


def test_save_refuses_special_files(booster, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutputError, match="it is a FIFO"):
        write_model(booster, tmp_path / "fifo")
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)


# --- loading -----------------------------------------------------------------------------------


def test_every_truncation_of_a_model_is_refused(model_bytes):
    check_model_text(model_bytes)
    end = model_bytes.index(b"end of parameters\n") + len(b"end of parameters\n")
    accepted = []
    for cut in range(len(model_bytes)):
        try:
            check_model_text(model_bytes[:cut], "m.txt")
        except InputFormatError as exc:
            assert re.match(r"m\.txt(:\d+)?: not a", str(exc))  # the empty file has no line
        else:
            accepted.append(cut)
    # what is accepted is the whole model, less at most the Python package's pandas_categorical
    # line (LightGBM's own models end with the parameters)
    assert accepted and min(accepted) == end


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda b: b"", "not a LightGBM model file (the file is empty)"),
        (lambda b: b"\xff" + b, "not a LightGBM model file (byte 0 is not UTF-8 text)"),
        (lambda b: b"1 qid:1 1:0.5\n", "not a LightGBM model file (its first line is not 'tree')"),
        (lambda b: b.replace(b"\nversion=v4", b""), "the header lacks version"),
        (lambda b: b.replace(b"tree_sizes=", b"tree_sizes=9"), "tree 0 of"),
        (lambda b: b.replace(b"tree_sizes=", b"tree_sizes=x"), "is not a list of byte counts"),
        (lambda b: b.replace(b"Tree=1", b"Tree=7"), "tree 1 of"),
        (lambda b: b.replace(b"end of trees", b"end of tree"), "no 'end of trees' line"),
        (lambda b: b.replace(b"end of parameters", b""), "no 'end of parameters' line"),
        (lambda b: b.replace(b"pandas_categorical:null", b"pandas_categorical:nu"), "pandas_categorical"),
    ],
)
def test_damaged_models_are_named(model_bytes, damage, message):
    with pytest.raises(InputFormatError, match=r"^m\.txt(:\d+)?: not a") as info:
        check_model_text(damage(model_bytes), "m.txt")
    assert message in str(info.value)


def test_load_model_reads_a_checked_model(model_bytes, booster, data, tmp_path):
    (tmp_path / "m.txt").write_bytes(model_bytes)
    loaded = read_model(tmp_path / "m.txt")
    np.testing.assert_array_equal(loaded.predict(data.X), booster.predict(data.X))
    with pytest.raises(RiskevalError, match="absent.txt: cannot read the model file"):
        read_model(tmp_path / "absent.txt")


@pytest.mark.parametrize("option", ["--model", "--baseline-model"])
def test_truncated_models_are_refused_by_the_command_line(model_bytes, data, tmp_path, capsys, option):
    (tmp_path / "m.txt").write_bytes(model_bytes[: model_bytes.index(b"Tree=2") + 3])
    (tmp_path / "good.txt").write_bytes(model_bytes)
    write_letor(tmp_path / "test.txt", data)
    models = ["--model", tmp_path / "good.txt"] if option == "--baseline-model" else ["--baseline-feature", 0]
    code, out, err = run(
        ["ltr", "evaluate", tmp_path / "test.txt", option, tmp_path / "m.txt", *models], capsys
    )
    assert code == 2
    assert err.startswith(
        f"riskeval: error: {tmp_path / 'm.txt'}:49: not a complete LightGBM model file (tree 2 of 4"
    )


@pytest.mark.parametrize(
    "options",
    [
        ["evaluate", "--model", "m.txt", "--baseline-feature", "0"],
        ["evaluate", "--model", "m.txt", "--model", "other.txt", "--baseline-feature", "0"],
        ["evaluate", "--model", "other.txt", "--baseline-model", "m.txt"],
        ["train", "--objective", "tfaro", "--baseline-model", "m.txt", "--rounds", "2", "-o", "new.txt"],
    ],
    ids=["evaluate", "two models", "baseline model", "train"],
)
def test_data_of_more_features_than_a_model_names_both_files(model_bytes, tmp_path, capsys, options):
    """The model m.txt has 4 feature columns; LightGBM would refuse 6 with its own error."""
    (tmp_path / "m.txt").write_bytes(model_bytes)
    wide = make_ranking(6, 5, 6, rng=1)
    write_letor(tmp_path / "wide.txt", wide)
    train(PARAMS, wide.X, wide.y, wide.group, num_boost_round=2).save_model(tmp_path / "other.txt")
    command, *rest = options
    files = [tmp_path / o if o.endswith(".txt") else o for o in rest]
    code, _, err = run(["ltr", command, tmp_path / "wide.txt", *files], capsys)
    assert code == 2, err
    assert err == (
        f"riskeval: error: {tmp_path / 'wide.txt'}: has 6 feature columns (feature ids up to 5) but "
        f"the model {tmp_path / 'm.txt'} was trained on 4 (ids up to 3): give it data of the "
        "features it was trained on, or a model trained on these.\n"
    )
    assert not (tmp_path / "new.txt").exists()


def test_data_of_fewer_features_than_a_model_scores_them_as_zero(booster, data, model_bytes, tmp_path):
    from riskeval.io.letor import read_letor
    from riskeval.ltr.workflow import model_scores

    narrow = make_ranking(5, 6, 2, rng=2)
    write_letor(tmp_path / "narrow.txt", narrow)
    (tmp_path / "m.txt").write_bytes(model_bytes)
    scores = model_scores(read_model(tmp_path / "m.txt"), "m.txt", read_letor(tmp_path / "narrow.txt"))
    padded = np.hstack([narrow.X, np.zeros((narrow.X.shape[0], 2))])
    np.testing.assert_allclose(scores, booster.predict(padded))


def test_the_python_api_names_a_booster_refusing_its_features(booster, data):
    """evaluate() with an in-memory Booster: features of another width are refused as the file
    workflow refuses them (naming the model and both counts), never by LightGBM's own error;
    sparse features of fewer columns are scored with the missing ones as 0."""
    import scipy.sparse as sp

    from riskeval.ltr.model_evaluation import evaluate

    wide = make_ranking(5, 6, 6, rng=2)
    for X, width in ((wide.X, 6), (wide.X[:, :3], 3)):
        with pytest.raises(InputFormatError) as refused:
            evaluate({"m": booster}, X, wide.y, wide.group, baselines={"f0": 0})
        assert str(refused.value) == (
            f"X: has {width} feature columns (feature ids up to {width - 1}) but the model m was "
            "trained on 4 (ids up to 3): give it data of the features it was trained on, or a model "
            "trained on these."
        )
    narrow = wide.X[:, :3]
    got = evaluate({"m": booster}, sp.csr_matrix(narrow), wide.y, wide.group, baselines={"f0": 0})
    dense = np.hstack([narrow, np.zeros((30, 1))])
    padded = evaluate({"m": booster}, dense, wide.y, wide.group, baselines={"f0": 0})
    pd.testing.assert_frame_equal(got.long, padded.long)


@pytest.mark.slow
@pytest.mark.parametrize("where", [b"Tree=2", b"[learning_rate"])
def test_evaluate_on_a_truncated_model_is_an_error_not_a_crash(model_bytes, data, tmp_path, where):
    """In a separate process: LightGBM's own loader aborts or crashes on these files."""
    cut = model_bytes.index(where) + 3
    (tmp_path / "m.txt").write_bytes(model_bytes[:cut])
    write_letor(tmp_path / "test.txt", data)
    done = subprocess.run(
        [sys.executable, "-m", "riskeval", "ltr", "evaluate", "test.txt", "--model", "m.txt"]
        + ["--baseline-feature", "0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.returncode == 2, done.stderr
    assert re.match(r"riskeval: error: m\.txt:\d+: not a complete LightGBM model file", done.stderr)


# --- parameters ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"num_leaves": -5}, "'num_leaves' must be an integer >= 2 and <= 131072 in f. Got -5."),
        ({"num_leaves": 1}, "'num_leaves' must be"),
        ({"max_leaves": "2.5"}, "'max_leaves' (LightGBM's 'num_leaves') must be an integer"),
        ({"num_iterations": 0}, "'num_iterations' must be an integer >= 1"),
        ({"learning_rate": 0}, "'learning_rate' must be a number > 0"),
        ({"eta": "fast"}, "'eta' (LightGBM's 'learning_rate') must be a number > 0"),
        ({"min_data_in_leaf": -1}, "'min_data_in_leaf' must be an integer >= 0"),
        ({"bagging_fraction": 1.5}, "'bagging_fraction' must be a number > 0 and <= 1"),
        ({"feature_fraction": 0}, "'feature_fraction' must be a number > 0 and <= 1"),
        ({"lambda_l2": -1}, "'lambda_l2' must be a number >= 0"),
        ({"max_bin": 1}, "'max_bin' must be an integer >= 2"),
        ({"max_depth": 1.5}, "'max_depth' must be an integer in f"),
        ({"num_threads": True}, "'num_threads' must be an integer"),
        ({"num_leaves": float("nan")}, "'num_leaves' must be"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(RiskevalError) as info:
        check_lightgbm_params(params, "f")
    assert message in str(info.value)


def test_threads_are_bounded_by_the_cpus():
    cpus = available_cpus()
    for name in ("num_threads", "n_jobs", "nthread"):
        with pytest.raises(RiskevalError, match=f"more than the {cpus} CPUs this process may use"):
            check_lightgbm_params({name: 100_000}, "f")
        check_lightgbm_params({name: cpus}, "f")
    check_lightgbm_params({"num_threads": 0, "n_jobs": -1}, "f")  # LightGBM's default


def test_good_parameters_pass():
    check_lightgbm_params(
        {
            "num_leaves": "31",
            "max_depth": -1,
            "min_data_in_leaf": 0,
            "bagging_freq": 0,
            "learning_rate": 0.05,
            "bagging_fraction": 1,
            "early_stopping_round": 0,
            "objective": "lambdarank",
            "metric": None,
        },
        "f",
    )
    assert all(alias not in RULES for rule in RULES.values() for alias in rule.aliases)


def test_train_checks_parameters_before_lightgbm(data):
    with pytest.raises(RiskevalError, match="'num_leaves' must be an integer >= 2 and <= 131072 in train"):
        train({**PARAMS, "num_leaves": -5}, data.X, data.y, data.group, num_boost_round=1)


def test_experiment_checks_parameters_and_grid():
    from riskeval.ltr import Experiment

    with pytest.raises(RiskevalError, match="'num_leaves' must be .* in Experiment"):
        Experiment(objectives=["ucro"], params={"num_leaves": 1})
    with pytest.raises(RiskevalError, match="'learning_rate' must be a number > 0 in Experiment"):
        Experiment(objectives=["ucro"], grid={"learning_rate": [0.1, -1]})


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture
def letor(tmp_path, data, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_letor(tmp_path / "train.txt", data)
    return tmp_path


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("num_threads=100000", "'num_threads' is 100000 in riskeval ltr train, more than the"),
        ("num_leaves=-5", "'num_leaves' must be an integer >= 2 and <= 131072 in riskeval ltr train"),
    ],
)
def test_train_refuses_parameters_by_name(letor, capsys, param, message):
    code, out, err = run(["ltr", "train", "train.txt", "--param", param, "-o", "m.txt"], capsys)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert not (letor / "m.txt").exists()


def test_lightgbms_own_refusal_is_a_message(letor, capsys):
    code, out, err = run(
        ["ltr", "train", "train.txt", "--param", "boosting=nonsense", "--rounds", "2", "-o", "m.txt"], capsys
    )
    assert code == 2
    assert err.startswith("riskeval: error: riskeval ltr train: LightGBM refused the training:")
    assert "nonsense" in err


@pytest.mark.parametrize(
    ("target", "message"),
    [("-", "standard output carries the table"), ("link.txt", "it is a symbolic link (to kept.txt)")],
)
def test_train_refuses_outputs_before_training(letor, capsys, target, message):
    (letor / "kept.txt").write_text("kept")
    (letor / "link.txt").symlink_to("kept.txt")
    code, out, err = run(["ltr", "train", "train.txt", "-o", target], capsys)
    assert code == 2
    assert message in err
    assert (letor / "link.txt").is_symlink() and (letor / "kept.txt").read_text() == "kept"


def test_train_never_writes_over_its_data(letor, capsys):
    code, out, err = run(["ltr", "train", "train.txt", "-o", "train.txt"], capsys)
    assert code == 2
    assert "refusing to write the output over an input file" in err


def test_train_saves_atomically_and_evaluate_reads_it_back(letor, capsys):
    code, out, err = run(
        [
            "ltr",
            "train",
            "train.txt",
            "--rounds",
            "3",
            "--param",
            "num_leaves=7",
            "-o",
            "m.txt",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(out)[0]["model"] == "m"
    assert leftovers(letor) == []
    check_model_text((letor / "m.txt").read_bytes())
    code, out, err = run(
        ["ltr", "evaluate", "train.txt", "--model", "m.txt", "--baseline-feature", "0", "--format", "json"],
        capsys,
    )
    assert code == 0, err

    def refuse(name):
        raise ValueError(name)

    assert json.loads(out, parse_constant=refuse)

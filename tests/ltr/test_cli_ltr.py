"""``riskeval ltr train | evaluate | experiment``: outputs, formats and exit status 2 on bad input."""

import io
import json
import sys

import lightgbm as lgb
import pandas as pd
import pytest

from riskeval.cli.main import main
from riskeval.ltr import make_ranking


def _write_letor(path, X, y, group, with_qid=True):
    lines = []
    qid = 0
    for size in group:
        for _ in range(size):
            i = len(lines)
            feats = " ".join(f"{j}:{X[i, j]:.6g}" for j in range(X.shape[1]))
            lines.append(f"{y[i]} " + (f"qid:{qid} " if with_qid else "") + feats)
        qid += 1
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("letor")
    train = make_ranking(30, 12, 5, rng=1)
    test = make_ranking(15, 12, 5, rng=2)
    _write_letor(d / "train.txt", train.X, train.y, train.group)
    _write_letor(d / "test.txt", test.X, test.y, test.group, with_qid=False)
    (d / "test.txt.query").write_text("\n".join(str(g) for g in test.group) + "\n")
    return d


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_train_then_evaluate(files, capsys):
    model = files / "ucro.txt"
    main(
        [
            "ltr",
            "train",
            str(files / "train.txt"),
            "--objective",
            "ucro",
            "--alpha",
            "1",
            "--baseline-feature",
            "0",
            "--rounds",
            "5",
            "--param",
            "num_leaves=7",
            "--param",
            "num_threads=1",
            "--valid",
            str(files / "test.txt"),
            "-o",
            str(model),
            "--format",
            "json",
        ]
    )
    out = capsys.readouterr()
    assert lgb.Booster(model_file=str(model)).current_iteration() == 5
    rows = json.loads(out.out)
    assert rows[0]["baseline"] == "feature 0" and rows[0]["model"] == "ucro"
    assert "saved" in out.err and "boosting" not in out.err  # no progress bar: stderr is not a terminal
    main(
        [
            "ltr",
            "evaluate",
            str(files / "test.txt"),
            "--model",
            str(model),
            "--baseline-feature",
            "0",
            "--baseline-feature",
            "1",
            "--format",
            "csv",
        ]
    )
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(table["baseline"]) == ["feature 0", "feature 1", "macro"]
    assert {"NDCG", "Reward", "Risk", "Reward/Risk", "Wins", "Losses", "W/L", "Loss>20%"} <= set(
        table.columns
    )
    # the table sorted and written to a file, as every table of the command line
    target = files / "table7.csv"
    argv = ["ltr", "evaluate", str(files / "test.txt"), "--model", str(model), "--model", str(model)]
    main(
        [
            *argv,
            "--baseline-feature",
            "0",
            "--format",
            "csv",
            "--sort",
            "baseline:desc",
            "--top",
            "1",
            "-o",
            str(target),
        ]
    )
    assert capsys.readouterr().out == ""
    assert list(pd.read_csv(target)["baseline"]) == ["feature 0"]


def test_train_sx_update_is_the_python_option(files, tmp_path, capsys):
    # --sx-update every_tree trains the model of train(..., sx_update="every_tree"), which differs
    # from the paper's first_tree
    from riskeval.io.letor import read_letor
    from riskeval.ltr import train

    params = {"verbose": -1, "num_leaves": 7, "num_threads": 1}
    d = read_letor(files / "train.txt")
    predictions = {}
    for update in ("first_tree", "every_tree"):
        model = tmp_path / f"{update}.txt"
        argv = ["ltr", "train", str(files / "train.txt"), "--objective", "tfaro", "--alpha", "5"]
        argv += ["--baseline-feature", "0", "--rounds", "4", "--sx-update", update, "-o", str(model)]
        main([*argv, "--param", "num_leaves=7", "--param", "num_threads=1"])
        predictions[update] = lgb.Booster(model_file=str(model)).predict(d.X)
        booster = train(params, d.X, d.y, d.group, objective="tfaro", alpha=5.0, baseline=0, sx_update=update)
        assert (booster.predict(d.X, num_iteration=4) == predictions[update]).all()
    assert (predictions["first_tree"] != predictions["every_tree"]).any()
    capsys.readouterr()
    code, _, err = run(
        ["ltr", "train", str(files / "train.txt"), "--se", "every", "-o", str(tmp_path / "m")], capsys
    )
    assert code == 2 and "No such option '--se'" in err


def test_experiment_prints_table7(files, capsys, monkeypatch):
    argv = [
        "ltr",
        "experiment",
        str(files / "train.txt"),
        "--objectives",
        "lambdarank,tfaro",
        "--alphas",
        "2",
        "--baseline-feature",
        "0",
        "--folds",
        "3",
        "--rounds",
        "3",
        "--param",
        "num_leaves=5",
        "--param",
        "num_threads=1",
        "--format",
        "csv",
    ]
    main(argv)
    out = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out.out))
    assert list(table["objective"]) == ["LambdaMART", "T-FARO"]
    assert list(table["alpha"]) == [0.0, 2.0]
    assert "training" not in out.err  # piped: no progress bar
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    main(argv)
    assert "training" in capsys.readouterr().err  # on a terminal: the progress bar


def test_experiment_runs_the_python_experiment(files, capsys):
    # the command is the Experiment of its options: the same tests, to the last digit
    from riskeval.io.letor import read_letor
    from riskeval.ltr import Experiment

    argv = ["ltr", "experiment", str(files / "train.txt"), "--objectives", "tsaro,georisk", "--alpha", "3"]
    argv += ["--baseline-feature", "1", "--folds", "3", "--rounds", "3", "--sx-update", "every_tree"]
    argv += ["--georisk-update", "shortcut", "--param", "num_threads=1", "--param", "num_leaves=5"]
    argv += ["--resamples", "300", "--seed", "7", "--correction", "bh", "--tests", "--format", "csv"]
    main(argv)
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col=[0, 1])
    d = read_letor(files / "train.txt")
    expected = Experiment(
        objectives=["tsaro", "georisk"],
        alphas=[3.0],
        baseline_feature=1,
        folds=3,
        rounds=3,
        sx_update="every_tree",
        georisk_update="shortcut",
        params={"verbose": -1, "num_threads": 1, "num_leaves": 5},
        n_resamples=300,
        rng=7,
        correction="bh",
    ).run(d.X, d.y, d.group)
    pd.testing.assert_frame_equal(printed, expected.tests, check_exact=False, rtol=1e-15)


def test_experiment_with_one_part_per_file(files, capsys):
    # MSLR-Web10K style: S1..S3 as three files; every query of every file is tested once
    for part, seed in enumerate((3, 4, 5), start=1):
        d = make_ranking(8, 10, 4, rng=seed)
        _write_letor(files / f"S{part}.txt", d.X, d.y, d.group)
    main(
        [
            "ltr",
            "experiment",
            *(str(files / f"S{p}.txt") for p in (1, 2, 3)),
            "--folds-by-file",
            "--objectives",
            "ucro",
            "--alphas",
            "1",
            "--baseline-feature",
            "0",
            "--rounds",
            "2",
            "--param",
            "num_threads=1",
            "--param",
            "min_data_in_leaf=2",
            "--format",
            "json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    assert [(r["objective"], r["alpha"]) for r in rows] == [("U-CRO", 1.0)]


@pytest.mark.parametrize(
    "args, message",
    [
        (["train", "{d}/train.txt", "--objective", "ucro", "-o", "{d}/m.txt"], "needs --baseline"),
        (["train", "{d}/bad.txt", "-o", "{d}/m.txt"], "bad.txt:1"),
        (["train", "{d}/train.txt", "--param", "oops", "-o", "{d}/m.txt"], "KEY=VALUE"),
        (["experiment", "{d}/train.txt", "--alphas", "one"], "'one' is not a decimal number"),
        (["experiment", "{d}/train.txt", "--holdout", "0_5"], "'0_5' is not a decimal number"),
        (["experiment", "{d}/train.txt", "--holdout", "1"], "'1' is not in the range 0 < x < 1"),
        (["experiment", "{d}/train.txt", "--test-alpha", "1_0"], "'1_0' is not a decimal number"),
        (["experiment", "{d}/train.txt", "--test-alpha", "-1"], "'-1' is not in the range 0 ≤ x"),
        (["train", "{d}/train.txt", "--alpha", "1_0", "-o", "{d}/m.txt"], "'1_0' is not a decimal number"),
        (["experiment", "{d}/train.txt", "{d}/test.txt", "--folds-by-file"], "at least 3 DATA files"),
        (["evaluate", "{d}/test.txt", "--model", "{d}/nope.txt"], "does not exist"),
        (["train", "{d}/train.txt", "--param", "sigmoid=abc", "-o", "{d}/m.txt"], "'sigmoid' must be"),
        (["train", "{d}/train.txt", "--param", "num_threads=x", "-o", "{d}/m.txt"], "'num_threads' must"),
        (["train", "{d}/train.txt", "-o", "{d}/no/such/folder/m.txt"], "does not exist"),
        (
            [
                "train",
                "{d}/train.txt",
                "--objective",
                "ucro",
                "--baseline-model",
                "{d}/bad.txt",
                "-o",
                "{d}/m.txt",
            ],
            "bad.txt:1: not a LightGBM model file",
        ),
        (
            ["evaluate", "{d}/test.txt", "--model", "{d}/bad.txt", "--baseline-feature", "0"],
            "not a LightGBM model",
        ),
        (["train", "{d}/latin1.txt", "-o", "{d}/m.txt"], "latin1.txt:2: is not UTF-8 text"),
        (
            ["experiment", "{d}/train.txt", "--resamples", "10000001"],
            "'--resamples' option must be an integer >= 0 and <= 10000000. Got '10000001'. ",
        ),
        (
            ["experiment", "{d}/train.txt", "--resamples", "-1"],
            "'--resamples' option must be an integer >= 0",
        ),
    ],
)
def test_bad_input_exits_with_status_2(files, capsys, args, message):
    (files / "bad.txt").write_text("one qid:1 1:1\n")
    (files / "latin1.txt").write_bytes(b"1 qid:1 1:1\n0 qid:1 1:2 # caf\xe9\n")
    code, out, err = run(["ltr", *[a.format(d=files) for a in args]], capsys)
    assert code == 2
    assert message in err and "Traceback" not in err
    assert "boosting" not in err  # failed before any training


def test_text_table_prints_query_counts_as_integers(files, capsys):
    model = files / "plain.txt"
    base = ["ltr", "train", str(files / "train.txt"), "--rounds", "2", "--param", "num_threads=1"]
    main([*base, "-o", str(model), "--format", "csv"])
    capsys.readouterr()
    main(
        [
            "ltr",
            "evaluate",
            str(files / "test.txt"),
            "--model",
            str(model),
            "--baseline-feature",
            "0",
            "--baseline-feature",
            "1",
        ]
    )
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split()
    rows = [line.split() for line in lines[1:3]]
    for column in ("Wins", "Losses", "Loss>20%"):
        i = header.index(column) - len(header)  # from the right: "feature 0" holds a space
        assert all(row[i].isdigit() for row in rows), (column, rows)
    macro = lines[3].split()
    assert macro[0] == "macro" and "." in macro[header.index("Wins") - len(header)]
    assert lines[-1].startswith("macro: each measure averaged over the baselines")


def test_train_with_the_jforests_variant(files, capsys):
    model = files / "tsaro_jf.txt"
    main(
        [
            "ltr",
            "train",
            str(files / "train.txt"),
            "--objective",
            "tsaro",
            "--alpha",
            "2",
            "--variant",
            "jforests",
            "--baseline-feature",
            "0",
            "--rounds",
            "3",
            "--param",
            "num_threads=1",
            "-o",
            str(model),
            "--format",
            "json",
        ]
    )
    assert json.loads(capsys.readouterr().out)[0]["model"] == "tsaro_jf"
    code, _, err = run(
        ["ltr", "train", str(files / "train.txt"), "--variant", "Jforests", "-o", str(model)], capsys
    )
    assert code == 2 and "'Jforests' is not one of 'paper', 'jforests'" in err


@pytest.mark.slow  # three trainings of 100 trees on LightGBM's LambdaRank example
def test_the_command_line_example_of_docs_ltr_runs_on_the_lambdarank_example(tmp_path, monkeypatch, capsys):
    """docs/ltr.md's first command-line block, as written, in a folder holding LightGBM's
    LambdaRank example; no training there early-stops on the test file it evaluates."""
    import re
    import shlex
    from pathlib import Path

    from shared_data import shared_data

    source = shared_data("letor-lightgbm-lambdarank")
    for name in ("rank.train", "rank.train.query", "rank.test", "rank.test.query"):
        (tmp_path / name).symlink_to(source / name)
    monkeypatch.chdir(tmp_path)
    page = (Path(__file__).resolve().parents[2] / "docs" / "ltr.md").read_text(encoding="utf-8")
    block = page.split("## Command line", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    commands = [line.removeprefix("$ ") for line in block.splitlines() if line.startswith("$ ")]
    assert len(commands) == 3 and not any("--valid rank.test" in c for c in commands)
    for command in commands:
        main_args = shlex.split(command)[1:]
        try:
            main(main_args)
        except SystemExit as exc:
            assert exc.code in (0, None), command
    out = capsys.readouterr().out
    table = pd.read_csv(io.StringIO(out[out.rindex("baseline,") :]))
    assert set(table["model"]) == {"lambdamart", "ucro"}
    assert re.search(r"--valid \S+vali\.txt --early-stopping", page)
    assert (tmp_path / "ucro.txt").read_text().count("Tree=") == 100

"""MSLR-Web10K's folder layout (Fold1..Fold5/{train,vali,test}.txt) read once per query, checked to
rotate as MSLR's, and the experiment run on it with one command."""

import json

import numpy as np
import pytest

from riskeval.cli.main import main
from riskeval.errors import RiskevalError
from riskeval.ltr import make_ranking
from riskeval.ltr.folds import read_folds


def _lines(data, first_qid):
    out = []
    for q, size in enumerate(data.group):
        start = int(np.sum(data.group[:q]))
        for i in range(start, start + size):
            feats = " ".join(f"{j + 1}:{data.X[i, j]:.5g}" for j in range(data.X.shape[1]))
            out.append(f"{data.y[i]} qid:{first_qid + q} {feats}\n")
    return "".join(out)


def mslr_tree(root, n_parts=5, queries=6):
    """S1..S5 as in MSLR-Web10K: FoldN tests on S(N−1) (S5 for Fold1), validates on the subset before
    that, trains on the other three."""
    subsets = [_lines(make_ranking(queries, 8, 4, rng=10 + s), 100 * s) for s in range(n_parts)]
    for n in range(1, n_parts + 1):
        test = (n - 2) % n_parts  # Fold1 → S5 (index 4), Fold2 → S1 (index 0), ...
        vali = (test - 1) % n_parts
        train = [(vali - 3 + j) % n_parts for j in range(n_parts - 2)]
        fold = root / f"Fold{n}"
        fold.mkdir(parents=True)
        (fold / "test.txt").write_text(subsets[test])
        (fold / "vali.txt").write_text(subsets[vali])
        (fold / "train.txt").write_text("".join(subsets[t] for t in sorted(train)))
    return subsets


def test_every_query_once_with_its_fold(tmp_path):
    mslr_tree(tmp_path)
    folds = read_folds(tmp_path)
    assert folds.names == ("Fold1", "Fold2", "Fold3", "Fold4", "Fold5")
    assert folds.data.group.size == 30 and folds.data.X.shape[1] == 5  # 1-based features 1..4
    # Fold1 tests on S5 (qids 400..405), Fold2 on S1 (qids 0..5)
    starts = np.concatenate([[0], np.cumsum(folds.data.group)[:-1]])
    qids = folds.data.qid[starts]
    assert qids[folds.part == 0].tolist() == list(range(400, 406))
    assert qids[folds.part == 1].tolist() == list(range(0, 6))


def test_a_layout_that_does_not_rotate_is_refused(tmp_path):
    mslr_tree(tmp_path)
    (tmp_path / "Fold3" / "vali.txt").write_text((tmp_path / "Fold1" / "test.txt").read_text())
    with pytest.raises(RiskevalError, match="Fold3/vali.txt is not .*Fold2/test.txt"):
        read_folds(tmp_path)
    (tmp_path / "Fold4" / "train.txt").unlink()
    with pytest.raises(RiskevalError, match="Missing fold file"):
        read_folds(tmp_path)


def test_the_experiment_on_a_fold_folder_in_one_command(tmp_path, capsys):
    mslr_tree(tmp_path / "MSLR")
    main(
        [
            "ltr",
            "experiment",
            "--folds-dir",
            str(tmp_path / "MSLR"),
            "--objectives",
            "lambdarank,tfaro",
            "--alphas",
            "1",
            "--baseline-feature",
            "1",
            "--rounds",
            "3",
            "--grid",
            "num_leaves=3,5",
            "--early-stopping",
            "2",
            "--param",
            "min_data_in_leaf=2",
            "--param",
            "num_threads=1",
            "--resamples",
            "100",
            "--tests",
            "--format",
            "json",
        ]
    )
    rows = json.loads(capsys.readouterr().out)
    assert [(r["model"], r["against"]) for r in rows] == [
        ("lambdarank a=0", "feature 1"),
        ("tfaro a=1", "lambdarank a=0"),
        ("tfaro a=1", "feature 1"),
    ]
    assert all(0 <= r["p_adj"] <= 1 and 0 < r["p_perm"] <= 1 for r in rows if r["p"] is not None)


def test_fold_folder_errors_exit_with_status_2(tmp_path, capsys):
    (tmp_path / "Fold1").mkdir()
    with pytest.raises(SystemExit) as info:
        main(["ltr", "experiment", "--folds-dir", str(tmp_path), "--baseline-feature", "1"])
    assert info.value.code == 2
    assert "at least three folders Fold1, Fold2" in capsys.readouterr().err

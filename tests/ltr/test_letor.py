"""The SVMlight/LETOR reader and LightGBM ``.query`` files: content as LightGBM reads it, and every
bad line reported with file:line."""

import lightgbm as lgb
import numpy as np
import pytest

from riskeval.errors import InputFormatError
from riskeval.io.letor import read_letor, read_query_file


def test_shared_set_reads_as_lightgbm_reads_it(letor_dir, letor_train):
    path = letor_dir / "rank.train"
    native = lgb.Dataset(str(path), params={"verbose": -1}).construct()
    np.testing.assert_array_equal(letor_train.y, native.get_label())
    np.testing.assert_array_equal(np.cumsum(letor_train.group), native.get_field("group")[1:])
    assert letor_train.X.shape == (3005, 301) and letor_train.qid is None
    # first line: "0 10:0.89 11:0.75 12:0.01 ..."
    first = path.read_text().splitlines()[0].split()
    assert letor_train.X[0, 10] == 0.89 and letor_train.X[0, 12] == 0.01
    assert letor_train.X[0].nnz == len(first) - 1


def test_qid_lines_comments_and_dense(tmp_path):
    path = tmp_path / "mslr.txt"
    path.write_text("2 qid:10 1:0.5 3:1.5 # docid = a\n0 qid:10 2:0.25\n\n1 qid:7 1:1 2:2 3:3 #b\n")
    data = read_letor(path, dense=True)
    np.testing.assert_array_equal(data.y, [2, 0, 1])
    np.testing.assert_array_equal(data.group, [2, 1])
    np.testing.assert_array_equal(data.qid, [10, 10, 7])
    np.testing.assert_array_equal(data.X, [[0, 0.5, 0, 1.5], [0, 0, 0.25, 0], [0, 1, 2, 3]])
    assert read_letor(path, n_features=6).X.shape == (3, 6)


def test_query_file_beside_the_data_or_given(tmp_path):
    (tmp_path / "a.txt").write_text("1 1:1\n0 1:2\n2 2:1\n")
    (tmp_path / "a.txt.query").write_text("2\n1\n")
    np.testing.assert_array_equal(read_letor(tmp_path / "a.txt").group, [2, 1])
    (tmp_path / "groups").write_text("1\n2\n")
    np.testing.assert_array_equal(
        read_letor(tmp_path / "a.txt", query_file=tmp_path / "groups").group, [1, 2]
    )


def test_every_bad_line_is_reported_with_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(
        "1 qid:1 1:0.5\n"
        "1.5 qid:1 1:0.5\n"  # 2: non-integer label
        "-1 qid:1 1:0.5\n"  # 3: negative label
        "x qid:1 1:0.5\n"  # 4: not a number
        "0 qid:2 1:zero\n"  # 5: bad value
        "0 qid:2 1:1 1:2\n"  # 6: repeated feature
        "0 qid:2 f3:1\n"  # 7: bad index
        "0 1:1\n"  # 8: no qid
        "0 qid:1 1:1\n"  # 9: query 1 again
        "0 qid:a 1:1\n"  # 10: qid not an integer
    )
    with pytest.raises(InputFormatError) as info:
        read_letor(path)
    problems = dict(info.value.problems)
    for line in range(2, 11):
        assert f"{path}:{line}" in problems, line
    assert "not a non-negative integer" in problems[f"{path}:2"]
    assert "'zero'" not in problems[f"{path}:5"] and "1:zero" in problems[f"{path}:5"]
    assert "feature 1 appears twice" in problems[f"{path}:6"]
    assert "no qid but earlier lines have one" in problems[f"{path}:8"]
    assert "query 1 appears again" in problems[f"{path}:9"] and "line 1" in problems[f"{path}:9"]
    assert f"{path}:1" not in problems


def test_missing_or_inconsistent_query_file(tmp_path):
    path = tmp_path / "b.txt"
    path.write_text("1 1:1\n0 1:2\n")
    with pytest.raises(InputFormatError, match="no query file"):
        read_letor(path)
    (tmp_path / "b.txt.query").write_text("3\n")
    with pytest.raises(InputFormatError, match="add up to 3 documents but b.txt has 2"):
        read_letor(path)
    (tmp_path / "q").write_text("2\nzero\n")
    with pytest.raises(InputFormatError) as info:
        read_query_file(tmp_path / "q")
    assert info.value.problems[0][0] == f"{tmp_path / 'q'}:2"

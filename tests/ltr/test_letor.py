"""The SVMlight/LETOR reader and LightGBM ``.query`` files: content as LightGBM and scikit-learn read
it, values exactly as Python's float, and every bad line reported with file:line."""

import gzip

import lightgbm as lgb
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io import letor
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


def test_same_values_as_scikit_learns_reader(letor_dir):
    # scikit-learn's load_svmlight_file reads the same labels, query groups and features
    sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is not installed")
    for name in ("rank.train", "rank.test"):
        ours = read_letor(letor_dir / name)
        X, y = sklearn_datasets.load_svmlight_file(str(letor_dir / name), zero_based=True)
        width = max(X.shape[1], ours.X.shape[1])
        np.testing.assert_array_equal(ours.y, y)
        assert (sp.csr_matrix(X, shape=(X.shape[0], width)) != ours.X).nnz == 0


def test_same_values_and_qids_as_scikit_learns_reader(tmp_path):
    sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is not installed")
    rng = np.random.default_rng(0)
    lines = []
    for i in range(300):
        values = " ".join(
            f"{j}:{float(v)!r}"
            for j, v in enumerate(rng.normal(size=6) * 10.0 ** rng.integers(-30, 30, 6), 1)
        )
        lines.append(f"{rng.integers(0, 5)} qid:{i // 7} {values} # doc {i}")
    path = tmp_path / "svm.txt"
    path.write_text("\n".join(lines) + "\n")
    ours = read_letor(path)
    X, y, qid = sklearn_datasets.load_svmlight_file(str(path), query_id=True, zero_based=True)
    np.testing.assert_array_equal(ours.y, y)
    np.testing.assert_array_equal(ours.qid, qid)
    assert (sp.csr_matrix(X) != ours.X).nnz == 0


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=False, allow_infinity=False).map(repr),
        st.decimals(allow_nan=False, allow_infinity=False).map(str),
        st.from_regex(r"\A[+-]?([0-9]{0,25}\.?[0-9]{0,25})([eE][+-]?[0-9]{1,3})?\Z"),
    )
)
def test_values_are_read_exactly_as_pythons_float(text):
    # the compiled parser's own conversion (status 0) or Python's float (status 1); decimal
    # notation in ASCII only (float also reads '1_0' and non-ASCII digits: refused)
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    status, value = letor._decimal(buf, 0, buf.size)
    try:
        expected = float(text)
    except ValueError:
        assert status == 2
        return
    assert status in (0, 1)
    if status == 0:
        assert value == expected and np.signbit(value) == np.signbit(expected)


@pytest.mark.parametrize("text", ["1_0", "\u0661", "0x10", "nan", "inf", "1e", ".", "+", "--1"])
def test_only_decimal_notation_is_a_number(text):
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    assert letor._decimal(buf, 0, buf.size)[0] == 2


def test_one_query_id_written_two_ways_is_refused(tmp_path):
    # qid:1 and qid:01 are the same number: not silently one query, nor two
    path = tmp_path / "q.txt"
    path.write_text("1 qid:1 1:1\n0 qid:1 1:2\n1 qid:01 1:3\n0 qid:2 1:1\n")
    with pytest.raises(InputFormatError) as info:
        read_letor(path)
    assert info.value.problems == [
        (
            f"{path}:3",
            "qid 01 is the number of qid 1 (line 1) written another way; write each query id one way",
        )
    ]


def test_bytes_that_are_not_utf8_are_named_with_file_and_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"1 qid:1 1:1 # ok\n0 qid:1 1:2 # caf\xe9\n")
    with pytest.raises(RiskevalError) as info:
        read_letor(path)
    assert f"{path}:2" in str(info.value) and "not UTF-8" in str(info.value)


def test_labels_and_feature_indices_beyond_32_bits_are_refused(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text(
        "99999999999999999999 qid:1 1:1\n"
        "3000000000 qid:1 1:1\n"
        "1e30 qid:1 1:1\n"
        "1 qid:1 100000000000:1\n"
        "1 qid:1 99999999999999999999999999:1\n"
        "1 qid:99999999999999999999 1:1\n"
        "2.0 qid:2 2147483646:1\n"
    )
    with pytest.raises(InputFormatError) as info:
        read_letor(path)
    problems = dict(info.value.problems)
    for line in (1, 2, 3):
        assert "too large: LightGBM's labels are 32-bit integers" in problems[f"{path}:{line}"]
    for line in (4, 5):
        assert "feature index of" in problems[f"{path}:{line}"]
    assert "qid '99999999999999999999' is too large" in problems[f"{path}:6"]
    assert f"{path}:7" not in problems  # the largest index LightGBM takes, and a label written 2.0


def test_compressed_files_and_crlf_line_breaks(tmp_path):
    text = "2 qid:10 1:0.5 3:1.5 # a\r\n0 qid:10 2:0.25\r\n1 qid:7 1:1\r\n"
    (tmp_path / "plain.txt").write_text(text, newline="")
    (tmp_path / "packed.txt.gz").write_bytes(gzip.compress(text.encode()))
    plain, packed = read_letor(tmp_path / "plain.txt"), read_letor(tmp_path / "packed.txt.gz")
    np.testing.assert_array_equal(plain.X.toarray(), packed.X.toarray())
    np.testing.assert_array_equal(plain.group, [2, 1])


def test_labels_and_values_that_only_pythons_float_reads_exactly(tmp_path):
    # 21 significant digits or a power of ten beyond 22: Python's float reads them, as
    # scikit-learn's reader does; a label is kept when that value is a small enough integer
    path = tmp_path / "long.txt"
    path.write_text(
        "1.00000000000000000000 qid:-3 1:12345678901234567890123 2:1e-400\n"
        "1000000000000000000000e-20 qid:-3 1:1e300\n"
    )
    data = read_letor(path)
    np.testing.assert_array_equal(data.y, [1, 10])
    np.testing.assert_array_equal(data.qid, [-3, -3])
    X = data.X.toarray()
    assert X[0, 1] == float("12345678901234567890123") and X[0, 2] == 0.0 and X[1, 1] == 1e300

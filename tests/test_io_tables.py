"""Score tables: long vs wide detection, DataFrame/Series/array inputs, order of the result, and
round trips through CSV, TSV and Parquet files."""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.errors import MissingTopicsWarning

rng = np.random.default_rng(20240611)
MATRIX = pd.DataFrame(
    rng.random((4, 6)),
    index=pd.Index(["bm25", "dph", "ql", "7"], name="system"),
    columns=pd.Index(["301", "q2", "0303", "q 4", "q,5", "10"], name="topic"),
)


def long_of(matrix: pd.DataFrame) -> pd.DataFrame:
    return matrix.stack().rename("score").reset_index()


def assert_matrix(result: pd.DataFrame, expected: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(result, expected, check_exact=True)
    assert result.dtypes.eq(np.float64).all()
    assert result.index.name == "system" and result.columns.name == "topic"
    assert all(isinstance(x, str) for x in [*result.index, *result.columns])


def test_long_and_wide_dataframes_give_the_same_matrix():
    assert_matrix(rk.score_matrix(long_of(MATRIX)), MATRIX)
    assert_matrix(rk.io.from_long(long_of(MATRIX)), MATRIX)
    assert_matrix(rk.score_matrix(MATRIX), MATRIX)
    assert_matrix(rk.io.from_wide(MATRIX), MATRIX)
    # a wide table with the systems in a column instead of the index
    assert_matrix(rk.score_matrix(MATRIX.reset_index()), MATRIX)
    assert_matrix(rk.io.from_wide(MATRIX.reset_index()), MATRIX)
    # a long table indexed by (system, topic), as groupby results are
    assert_matrix(rk.score_matrix(long_of(MATRIX).set_index(["system", "topic"])), MATRIX)
    assert_matrix(rk.score_matrix(MATRIX.stack()), MATRIX)  # a (system, topic) Series


def test_wide_without_labels_gets_positions():
    result = rk.score_matrix(np.array([[0.1, 0.2], [0.3, 0.4]]))
    assert list(result.index) == ["0", "1"] and list(result.columns) == ["0", "1"]
    plain = rk.score_matrix(pd.DataFrame([[0.1, 0.2]], index=["a"], columns=[301, 302]))
    assert list(plain.columns) == ["301", "302"]


def test_long_detection_needs_two_of_the_three_columns():
    # "system" alone is a wide table's label column; the other columns are topics
    wide = pd.DataFrame({"system": ["a", "b"], "score": [0.1, 0.2], "q2": [0.3, 0.4]})
    with pytest.raises(rk.errors.InputFormatError, match="missing required column\\(s\\) \\['topic'\\]"):
        rk.score_matrix(wide)  # two of three present: read as long, so 'topic' is required
    only_system = pd.DataFrame({"system": ["a", "b"], "q1": [0.1, 0.2], "q2": [0.3, 0.4]})
    assert list(rk.score_matrix(only_system).columns) == ["q1", "q2"]


def test_custom_column_names_extra_columns_and_measure_column():
    tidy = pd.DataFrame(
        {
            "name": ["bm25", "bm25", "dph", "dph"] * 2,
            "qid": [1, 2, 1, 2] * 2,
            "measure": ["AP"] * 4 + ["nDCG@10"] * 4,
            "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
            "note": "ignored",
        }
    )
    kw = {"system": "name", "topic": "qid", "score": "value"}
    ap = rk.score_matrix(tidy, measure="AP", **kw)
    assert ap.to_numpy().tolist() == [[0.1, 0.2], [0.3, 0.4]]
    assert list(ap.columns) == ["1", "2"]
    # trec_eval names select the same measure as ir_measures names
    ndcg = rk.score_matrix(tidy, measure="ndcg_cut_10", **kw)
    assert ndcg.to_numpy().tolist() == [[0.5, 0.6], [0.7, 0.8]]
    one = tidy[tidy["measure"] == "AP"]
    assert_matrix(rk.io.from_long(one, **kw), ap)  # one measure: no need to choose


def test_order_is_first_appearance_for_long_and_as_given_for_wide():
    rows = [("z", "t9", 1.0), ("a", "t2", 2.0), ("z", "t1", 3.0), ("a", "t9", 4.0)]
    rows += [("a", "t1", 5.0), ("z", "t2", 6.0)]
    long = pd.DataFrame(rows, columns=["system", "topic", "score"])
    result = rk.score_matrix(long)
    assert list(result.index) == ["z", "a"]
    assert list(result.columns) == ["t9", "t2", "t1"]
    wide = result.loc[["a", "z"], ["t1", "t9", "t2"]]
    assert list(rk.score_matrix(wide).columns) == ["t1", "t9", "t2"]


def test_missing_strings_in_wide_tables_are_missing():
    wide = pd.DataFrame({"q1": [0.1, "NA"], "q2": [" null ", 0.4], "q3": [0.5, 0.6]}, index=["a", "b"])
    with pytest.warns(MissingTopicsWarning, match="2 of 6"):
        result = rk.score_matrix(wide, missing="drop")
    assert list(result.columns) == ["q3"]


@pytest.mark.parametrize(
    "name, write",
    [
        ("wide.csv", lambda m, p: m.to_csv(p)),
        ("wide.tsv", lambda m, p: m.to_csv(p, sep="\t")),
        ("wide.tab", lambda m, p: m.to_csv(p, sep="\t")),
        ("wide-crlf.csv", lambda m, p: m.to_csv(p, lineterminator="\r\n")),
        ("wide-bom.csv", lambda m, p: m.to_csv(p, encoding="utf-8-sig")),
        (
            "long-crlf-bom.tsv",
            lambda m, p: long_of(m).to_csv(
                p, sep="\t", index=False, lineterminator="\r\n", encoding="utf-8-sig"
            ),
        ),
        ("wide.csv.gz", lambda m, p: m.to_csv(p)),
        ("wide.tsv.bz2", lambda m, p: m.to_csv(p, sep="\t")),
        ("wide.csv.xz", lambda m, p: m.to_csv(p)),
        ("wide.parquet", lambda m, p: m.to_parquet(p)),
        ("wide-no-index.pq", lambda m, p: m.reset_index().to_parquet(p, index=False)),
        ("long.csv", lambda m, p: long_of(m).to_csv(p, index=False)),
        ("long.tsv", lambda m, p: long_of(m).to_csv(p, sep="\t", index=False)),
        ("long.parquet", lambda m, p: long_of(m).to_parquet(p)),
        ("long-indexed.parquet", lambda m, p: m.stack().rename("score").to_frame().to_parquet(p)),
    ],
)
def test_file_round_trips(tmp_path, name, write):
    path = tmp_path / name
    write(MATRIX, path)
    assert_matrix(rk.score_matrix(path), MATRIX)
    assert_matrix(rk.score_matrix(str(path)), MATRIX)
    assert_matrix(rk.io.read_scores(path), MATRIX)


def test_format_overrides_the_extension(tmp_path):
    path = tmp_path / "scores.txt"
    MATRIX.to_csv(path, sep="\t")
    assert_matrix(rk.score_matrix(path, format="tsv"), MATRIX)
    assert_matrix(rk.io.read_scores(path, format="tsv"), MATRIX)


def test_wide_csv_first_column_names_systems_whatever_its_header(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(",q1,q2\nbm25, 0.5,0.25\ndph,0.125,1\n")
    result = rk.score_matrix(path)
    assert result.to_dict("index") == {
        "bm25": {"q1": 0.5, "q2": 0.25},
        "dph": {"q1": 0.125, "q2": 1.0},
    }


def test_csv_labels_stay_text(tmp_path):
    # topic ids such as 0303 keep their leading zero; quoted fields may hold the delimiter
    path = tmp_path / "long.csv"
    path.write_text('system,topic,score\nbm25,0303,0.5\n"a,b","q,1",1e-3\n')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        result = rk.score_matrix(path, missing="zero")
    assert list(result.columns) == ["0303", "q,1"]
    assert result.loc["a,b", "q,1"] == 0.001


labels = st.text(alphabet="abcxyz019 ._-", min_size=1, max_size=4)
cells = st.dictionaries(
    st.tuples(labels, labels),
    st.floats(min_value=-9.9e99, max_value=9.9e99, allow_nan=False, width=64),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(cells=cells)
def test_long_to_matrix_to_long_keeps_every_value(cells):
    long = pd.DataFrame([(s, t, v) for (s, t), v in cells.items()], columns=["system", "topic", "score"])
    systems = list(dict.fromkeys(s for s, _ in cells))
    topics = list(dict.fromkeys(t for _, t in cells))
    absent = len(systems) * len(topics) - len(cells)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        matrix = rk.score_matrix(long, missing="zero")
    # the warning counts exactly the cells that were filled
    if absent:
        assert len(record) == 1
        assert f"{absent} of {len(systems) * len(topics)} (system, topic) cell(s)" in str(record[0].message)
    else:
        assert not record
    assert list(matrix.index) == systems and list(matrix.columns) == topics
    back = matrix.stack()
    for (s, t), v in cells.items():
        assert back[(s, t)] == v
    assert (back.drop(list(cells)) == 0.0).all()
    # and back through long and wide CSV files, exactly
    with tempfile.TemporaryDirectory() as tmp:
        long_csv, wide_csv = Path(tmp, "long.csv"), Path(tmp, "wide.csv")
        long_of(matrix).to_csv(long_csv, index=False)
        matrix.to_csv(wide_csv)
        pd.testing.assert_frame_equal(rk.score_matrix(long_csv), matrix, check_exact=True)
        pd.testing.assert_frame_equal(rk.score_matrix(wide_csv), matrix, check_exact=True)


def test_categorical_labels_keep_the_order_of_first_appearance(tmp_path):
    # Parquet label columns are read as categories; their category order is not the row order.
    long = long_of(MATRIX).iloc[::-1]
    expected = MATRIX.iloc[::-1, ::-1]
    categorical = long.astype({"system": "category", "topic": "category"})
    assert list(categorical["system"].cat.categories) != list(expected.index)
    assert_matrix(rk.score_matrix(categorical), expected)
    path = tmp_path / "long.parquet"
    long.to_parquet(path, index=False)
    assert_matrix(rk.io.read_scores(path), expected)


def test_labels_that_read_the_same_are_one_label():
    frame = pd.DataFrame({"system": [1, "1", "2"], "topic": ["t", "t", "t"], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(
        rk.errors.InputFormatError, match=r"row 1: duplicate \(system, topic\) \('1', 't'\): first at row 0"
    ):
        rk.score_matrix(frame)
    frame.loc[1, "topic"] = "u"
    with pytest.warns(MissingTopicsWarning):
        got = rk.score_matrix(frame, missing="zero")
    assert list(got.index) == ["1", "2"] and list(got.columns) == ["t", "u"]


def test_parquet_rows_of_one_measure_are_located_in_the_file(tmp_path):
    long = pd.concat([long_of(MATRIX).assign(measure="P@10"), long_of(MATRIX).assign(measure="AP")])
    long = long.sort_index(kind="stable").reset_index(drop=True)  # the measures interleaved
    path = tmp_path / "long.parquet"
    long.to_parquet(path, index=False)
    assert_matrix(rk.io.read_scores(path, measure="AP"), MATRIX)
    row = int(np.flatnonzero(long["measure"] == "AP")[5])
    long.loc[row, "score"] = np.inf
    long.loc[row + 2, "system"] = None  # another AP row, without its system
    long.to_parquet(path, index=False)
    with pytest.raises(rk.errors.InputFormatError) as caught:
        rk.io.read_scores(path, measure="AP")
    assert [place for place, _ in caught.value.problems] == [
        f"{path}: row {row + 1}",
        f"{path}: row {row + 3}",
    ]
    with pytest.raises(rk.errors.InputFormatError, match="there are 2 measures"):
        rk.io.read_scores(path)


def test_long_and_wide_tables_give_the_same_layout_and_the_same_risk_bits():
    long = rk.score_matrix(long_of(MATRIX))
    wide = rk.score_matrix(MATRIX)
    assert long.to_numpy().flags.f_contiguous == wide.to_numpy().flags.f_contiguous
    pd.testing.assert_frame_equal(
        rk.risk_table(long, alphas=[0, 5]), rk.risk_table(wide, alphas=[0, 5]), check_exact=True
    )

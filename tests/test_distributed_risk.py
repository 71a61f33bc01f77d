"""Risk over a long score table from mergeable partial sums equals risk_table in memory.

The out-of-core route sums the same numbers in another order (per partition, then merged), so
values agree to rounding: a sum of c terms taken in two orders differs by at most about c·eps
relative (1.3e-14 for the 60 topics here); the studentised values, p-values and the normal tail of
GeoRisk amplify that by small factors, so ``rtol=1e-10`` is generous and still fails on any real
difference (a wrong baseline or moment shifts values in the third digit).  Counts are exact."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import riskeval as rk
from riskeval.analysis.topics import system_topic_risk
from riskeval.errors import RiskevalError

dd = pytest.importorskip("dask.dataframe")
from riskeval.distributed.risk import long_risk_table, long_topic_risk  # noqa: E402

RTOL = 1e-10


def matrix(r: int = 7, c: int = 60, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    M = pd.DataFrame(
        rng.random((r, c)).round(3), index=[f"s{i}" for i in range(r)], columns=[f"t{j}" for j in range(c)]
    )
    M.iloc[2, 5:9] = 0.0  # ties with a zero baseline, and cells with e_ij = 0 when a topic is all zero
    M.iloc[:, 11] = 0.0
    return M


def long_form(M: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    long = M.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    return long.sample(frac=1, random_state=seed).reset_index(drop=True)  # partitions mix systems


def same(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    keys = ["system", "alpha"]
    got = got.assign(system=got["system"].astype(str)).set_index(keys)
    expected = expected.assign(system=expected["system"].astype(str)).set_index(keys).loc[got.index]
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize(
    ("baseline", "loo"), [("mean", False), ("mean", True), ("max", False), ("s3", False), ("s3", True)]
)
def test_long_risk_table_equals_risk_table(baseline, loo):
    M = matrix()
    got = long_risk_table(
        dd.from_pandas(long_form(M), npartitions=5), baseline, leave_one_out=loo, correction="holm"
    )
    same(got, rk.risk_table(M, baseline, leave_one_out=loo, correction="holm"))


def test_parquet_with_several_measures_and_a_series_baseline(tmp_path):
    pytest.importorskip("pyarrow")
    M, other = matrix(), matrix(seed=5)
    long = pd.concat([long_form(M).assign(measure="AP"), long_form(other).assign(measure="P@10")])
    for k in range(4):
        long.iloc[k::4].to_parquet(tmp_path / f"part{k}.parquet")
    b = M.loc["s1"].rename("B")
    same(long_risk_table(tmp_path, b, measure="AP"), rk.risk_table(M, b))
    with pytest.raises(RiskevalError, match=r"several measures \(AP, P@10\); choose one"):
        long_risk_table(tmp_path)


def test_negative_scores_give_nan_zrisk_with_the_warning():
    M = matrix() - 0.5
    with pytest.warns(rk.errors.RiskevalWarning, match="need scores >= 0"):
        got = long_risk_table(long_form(M), "mean")
    with pytest.warns(rk.errors.RiskevalWarning, match="need scores >= 0"):
        same(got, rk.risk_table(M, "mean"))


def test_per_topic_analysis_equals_system_topic_risk():
    M = matrix()
    got = long_topic_risk(long_form(M), "s2", "mean", 5.0, leave_one_out=True)
    expected = system_topic_risk(M, "s2", "mean", 5.0, leave_one_out=True)
    assert list(got.index) == list(long_form(M).topic.drop_duplicates())  # order of first appearance
    pd.testing.assert_frame_equal(got, expected.loc[got.index], check_exact=False, rtol=RTOL, atol=1e-12)


def test_settings_risk_and_alternative_as_risk_table():
    M = matrix()
    long = long_form(M)
    s = rk.RiskSettings(baseline="s3", alphas=(1.0, 5.0), level=0.1, correction="bh", leave_one_out=True)
    by_settings = long_risk_table(long, settings=s)
    by_keywords = long_risk_table(long, "s3", [1, 5], level=0.1, correction="bh", leave_one_out=True)
    pd.testing.assert_frame_equal(by_settings, by_keywords)
    same(by_settings, rk.risk_table(M, settings=s))
    risk = [rk.URisk(alpha=5), "TRisk", "GeoRisk@1"]
    got = long_risk_table(long, "mean", [0, 1], risk=risk, alternative="less")
    expected = rk.risk_table(M, "mean", [0, 1], risk=risk, alternative="less")
    assert list(got.columns) == list(expected.columns) and "zrisk" not in got.columns
    assert (got["alternative"] == "less").all()
    same(got, expected)
    topics = long_topic_risk(
        long, "s2", settings=rk.RiskSettings(level=0.1), alpha=5.0, alternative="greater"
    )
    b = pd.Series(M.mean().to_numpy(), index=M.columns, name="MEAN")
    ref = rk.topic_risk(M.loc["s2"], b, 5.0, level=0.1, alternative="greater")
    pd.testing.assert_frame_equal(topics, ref.loc[topics.index], check_exact=False, rtol=RTOL, atol=1e-12)


def test_incomplete_tables_and_unsupported_baselines_are_refused():
    long = long_form(matrix())
    swapped = long.copy()  # s0 scores t1 twice and t2 never; s1 the other way round: counts agree
    s0t2 = swapped.index[(swapped.system == "s0") & (swapped.topic == "t2")][0]
    s1t1 = swapped.index[(swapped.system == "s1") & (swapped.topic == "t1")][0]
    swapped.loc[s0t2, "topic"], swapped.loc[s1t1, "topic"] = "t1", "t2"
    with pytest.raises(RiskevalError, match=r"2 system\(s\) have missing or repeated topics: 's0'|'s1'"):
        long_risk_table(swapped)
    with pytest.raises(RiskevalError, match="missing or repeated topics"):
        long_risk_table(long.iloc[1:])
    with pytest.raises(RiskevalError, match="MEDIAN baseline needs every score"):
        long_risk_table(long, "median")
    with pytest.raises(RiskevalError, match="not a finite number: system"):
        long_risk_table(long.assign(score=long.score.where(long.index != 3)))


@pytest.mark.parametrize(
    "baseline",
    ["nosuch", "s_3", "MEAN", 3.5, [0.1, 0.2], {"s0": 1.0}, [True] * 60, [np.nan] * 60],
)
def test_a_bad_baseline_gets_the_same_message_from_both_paths(baseline):
    M = matrix()
    with pytest.raises(RiskevalError) as in_memory:
        rk.risk_table(M, baseline)
    with pytest.raises(RiskevalError) as long:  # systems in matrix order, as the message lists them
        long_risk_table(long_form(M).sort_values("system", kind="stable", ignore_index=True), baseline)
    assert str(long.value) == str(in_memory.value).replace("risk_table", "long_risk_table")


def test_baselines_partial_sums_cannot_give_are_refused_with_the_reason():
    M = matrix()
    long = long_form(M)
    with pytest.raises(RiskevalError, match="leave-one-out MAX baseline needs the two largest scores"):
        long_risk_table(long, "max", leave_one_out=True)
    with pytest.raises(RiskevalError, match="baseline vector has no topic labels"):
        long_risk_table(long, M.loc["s1"].to_numpy())
    with pytest.raises(RiskevalError, match="per-system baseline DataFrame needs each system's scores"):
        long_risk_table(long, M)
    with pytest.raises(RiskevalError, match="a leave-one-out baseline needs at least two systems"):
        long_risk_table(long[long.system == "s0"], leave_one_out=True)


def test_on_a_distributed_client():
    distributed = pytest.importorskip("distributed")
    M = matrix()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        got = long_risk_table(dd.from_pandas(long_form(M), npartitions=7), "s0", alphas=[0, 5])
    same(got, rk.risk_table(M, "s0", alphas=[0, 5]))


def first_appearance(labels: pd.Series) -> list[str]:
    return list(pd.unique(labels.astype(str)))


def test_parquet_dictionaries_that_differ_across_row_groups_and_files(tmp_path):
    """Each row group of a Parquet file has its own dictionary (here in other orders, unsorted and
    with labels no row uses); the codes of every row group must name the right labels."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    M = matrix()
    long = long_form(M, seed=4)
    systems = np.array([*M.index[::-1], "unused system"])
    topics = np.array([*M.columns[::-1], "unused topic", *M.columns[:3] + "x"])
    for k, rows in enumerate((long.iloc[:150], long.iloc[150:])):
        groups = []
        for g in range(3):  # three row groups, each with its own dictionaries
            part = rows.iloc[g::3]
            order = np.random.default_rng(k * 3 + g).permutation
            s, t = systems[order(len(systems))], topics[order(len(topics))]
            groups.append(
                pa.table(
                    {
                        "system": pa.DictionaryArray.from_arrays(
                            pd.Index(s).get_indexer(part["system"]).astype(np.int32), s
                        ),
                        "topic": pa.DictionaryArray.from_arrays(
                            pd.Index(t).get_indexer(part["topic"]).astype(np.int32), t
                        ),
                        "score": part["score"].to_numpy(),
                    }
                )
            )
        with pq.ParquetWriter(tmp_path / f"part{k}.parquet", groups[0].schema) as writer:
            for table in groups:
                writer.write_table(table)
    ordered = pd.concat(
        [long.iloc[:150].iloc[g::3] for g in range(3)] + [long.iloc[150:].iloc[g::3] for g in range(3)]
    )
    got = long_risk_table(tmp_path, "mean", leave_one_out=True)
    same(got, rk.risk_table(M, "mean", leave_one_out=True))
    assert first_appearance(got["system"]) == first_appearance(ordered["system"])
    assert len(pd.read_parquet(tmp_path / "part0.parquet")) == 150  # the files hold what was written


def test_categorical_labels_unsorted_unused_and_of_numbers():
    """Categorical labels: categories in no order, unused ones, numbers (read as their text, as in
    memory), and two categories with one text (1 and "1"), which name one label."""
    M = matrix(r=5, c=12)
    M.columns = range(12)
    long = long_form(M)
    long["system"] = pd.Categorical(long["system"], categories=["s4", "zz", "s1", "s3", "s0", "s2"])
    long["topic"] = pd.Categorical(long["topic"], categories=[11, 3, *range(12)[::2], 99, 1, 5, 7, 9])
    labelled = M.set_axis(M.columns.astype(str), axis=1)
    for frame in (long, dd.from_pandas(long, npartitions=3)):
        got = long_risk_table(frame, "s3", [0, 5])
        same(got, rk.risk_table(labelled, "s3", [0, 5]))
        assert first_appearance(got["system"]) == first_appearance(long["system"])
    mixed = long.assign(topic=long["topic"].astype(object))
    mixed.loc[mixed["topic"] == 1, "topic"] = "1"  # the number 1 and the text "1"
    mixed["topic"] = mixed["topic"].astype("category")
    same(long_risk_table(mixed, "s3", [0, 5]), rk.risk_table(labelled, "s3", [0, 5]))


def test_labels_stay_codes(tmp_path, monkeypatch):
    """The labels of a dictionary-encoded Parquet table and of categoricals are never converted or
    factorised row by row: only the few labels themselves are (a table of 420 rows, 7 systems and
    60 topics; any conversion of more than 100 values is one of rows)."""
    pytest.importorskip("pyarrow")
    M = matrix()
    long = long_form(M)
    long.to_parquet(tmp_path / "strings.parquet")  # pyarrow's default: dictionary-encoded columns
    categorical = long.astype({"system": "category", "topic": "category"})
    rowwise = []
    real_factorize, real_astype = pd.factorize, pd.Series.astype

    def factorize(values, *args, **kwargs):
        if len(values) > 100:
            rowwise.append(f"factorize of {len(values)} values")
        return real_factorize(values, *args, **kwargs)

    def astype(self, *args, **kwargs):
        if len(self) > 100:
            rowwise.append(f"astype of {len(self)} values ({self.dtype})")
        return real_astype(self, *args, **kwargs)

    monkeypatch.setattr(pd, "factorize", factorize)
    monkeypatch.setattr(pd.Series, "astype", astype)
    expected = rk.risk_table(M, "mean")
    for source in (tmp_path / "strings.parquet", categorical, dd.from_pandas(categorical, npartitions=2)):
        same(long_risk_table(source, "mean"), expected)
    assert rowwise == []
    long_risk_table(long, "mean")  # the spies see what a table of plain strings needs
    assert rowwise


def test_rows_without_a_label_are_refused(tmp_path):
    M = matrix()
    long = long_form(M)
    nameless = long.astype({"system": "category"})
    nameless.loc[5, "system"] = np.nan
    with pytest.raises(RiskevalError, match="a row with no system"):
        long_risk_table(nameless)
    pytest.importorskip("pyarrow")
    long.assign(topic=long["topic"].where(long.index != 7)).to_parquet(tmp_path / "t.parquet")
    with pytest.raises(RiskevalError, match="a row with no topic"):
        long_risk_table(tmp_path / "t.parquet")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RiskevalError, match="No Parquet file"):
        long_risk_table(tmp_path / "empty")


def test_a_local_run_does_not_import_distributed(tmp_path):
    """Without a client (none can exist in a process that never imported ``distributed``), the
    long table runs on Dask's local threads without importing ``distributed`` to look for one."""
    pytest.importorskip("pyarrow")
    long_form(matrix()).to_parquet(tmp_path / "t.parquet")
    code = (
        "import sys; from riskeval.distributed.risk import long_risk_table; "
        f"long_risk_table({str(tmp_path / 't.parquet')!r}, 'mean'); print('distributed' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}  # this checkout's riskeval
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "False"


def test_huge_scores_are_refused_naming_the_file_as_in_memory(tmp_path):
    """A score of magnitude 1e100 or more is refused with the in-memory message (naming the file,
    counting the cells over every partition); a frame is "The long table"."""
    M = matrix()
    M.iloc[1, 4], M.iloc[5, 30] = -3e100, 1e200
    long = M.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    folder = tmp_path / "scores"
    folder.mkdir()
    long.iloc[:200].to_parquet(folder / "part0.parquet")  # s1's cell in the first file,
    long.iloc[200:].to_parquet(folder / "part1.parquet")  # s5's in the second
    with pytest.raises(RiskevalError) as in_memory:
        rk.io.as_matrix(M, name=str(folder))
    with pytest.raises(RiskevalError) as out_of_core:
        long_risk_table(str(folder))
    assert str(out_of_core.value) == str(in_memory.value)
    assert str(out_of_core.value).startswith(f"{folder} has 2 infinite or huge cell(s), e.g. -3e+100 for")
    with pytest.raises(RiskevalError, match=r"^The long table has 2 infinite or huge cell\(s\)"):
        long_topic_risk(long, "s0")
    nan = tmp_path / "nan.parquet"
    long.assign(score=long.score.where(long.index != 3)).to_parquet(nan)
    with pytest.raises(
        RiskevalError, match=f"^{nan} has a score that is not a finite number: system 's0', topic"
    ):
        long_risk_table(str(nan))

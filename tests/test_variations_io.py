"""Query-variation inputs: tidy tables, mappings, trec_eval files, the N × M arrays, CLEF 2015."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from shared_data import shared_data

import riskeval as rk
from riskeval.errors import (
    InputFormatError,
    MissingTopicsError,
    MissingTopicsWarning,
    RiskevalError,
    RiskevalWarning,
)
from riskeval.io.clef2015 import read_clef2015_queries
from riskeval.model.variations import as_variations, variation_array


def table(rows):
    return pd.DataFrame(rows, columns=["system", "topic", "variant", "score"])


def grid(systems=("A", "B"), topics=("1", "2"), variants=("pivot", "most", "least")):
    rng = np.random.default_rng(0)
    rows = [(s, t, v, rng.random()) for s in systems for t in topics for v in variants]
    return table(rows)


# --- tidy tables -------------------------------------------------------------------------------


def test_tidy_table_problems_are_collected():
    df = table([("A", 1, "p", 0.1), ("A", 1, "p", 0.2), ("A", 2, "p", "x"), ("A", 3, "p", np.nan)])
    with pytest.raises(InputFormatError) as info:
        as_variations(df)
    problems = info.value.problems
    assert len(problems) == 4  # two duplicates, one non-number, one NaN
    assert any("'x' is not a finite number" in msg for _, msg in problems)
    assert any("appears more than once" in msg for _, msg in problems)


def test_tidy_table_needs_its_columns():
    with pytest.raises(RiskevalError, match=r"lacks column\(s\) \['variant'\]"):
        as_variations(pd.DataFrame({"system": ["A"], "topic": ["1"], "score": [0.1]}))
    with pytest.raises(RiskevalError, match="pandas DataFrame"):
        as_variations([("A", "1", "p", 0.1)])


# --- mapping files and trec_eval files ---------------------------------------------------------


def test_read_mapping_and_its_errors(tmp_path):
    good = tmp_path / "map.txt"
    good.write_text("query topic variant\n# comment\nq1 t1 u1\n\nq2 t1 u2\nq1 t2 u1\n")
    mapping = rk.variations.read_mapping(good)
    assert mapping.to_dict("list") == {
        "query": ["q1", "q2", "q1"],
        "topic": ["t1", "t1", "t2"],
        "variant": ["u1", "u2", "u1"],
    }
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 t1\nq2 t1 u1 extra\nq3 t2 u1\nq4 t2 u1\n")
    with pytest.raises(InputFormatError) as info:
        rk.variations.read_mapping(bad)
    text = str(info.value)
    assert f"{bad}:1: expected 3 fields" in text and f"{bad}:2: expected 3 fields" in text
    assert "topic 't2', variant 'u1' is mapped more than once" in text


def write_trec_eval(path, values, measure="P_10"):
    lines = [f"{measure}\t{q}\t{v:.4f}" for q, v in values.items()]
    lines += [f"map\t{q}\t0.1" for q in values] + [f"runid\tall\t{path.stem}", f"{measure}\tall\t0.5"]
    path.write_text("\n".join(lines) + "\n")


def test_read_variations_from_trec_eval_files_with_popularity(tmp_path):
    # q1 was issued by users u1 and u2 for topic t1: its score counts once per user.
    write_trec_eval(tmp_path / "sysA.dat", {"q1": 0.5, "q2": 0.1, "q3": 0.3, "q4": 0.7})
    write_trec_eval(tmp_path / "sysB.dat", {"q1": 0.2, "q2": 0.2, "q3": 0.6, "q4": 0.0})
    mapping = tmp_path / "map.txt"
    mapping.write_text("q1 t1 u1\nq1 t1 u2\nq2 t2 u1\nq3 t2 u2\n")
    with pytest.warns(UserWarning, match=r"1 scored query\(ies\) are not in the mapping.*q4"):
        df = rk.variations.read_variations(sorted(tmp_path.glob("*.dat")), mapping)
    assert list(df.columns) == ["system", "topic", "variant", "score", "query"]
    a = df[df.system == "sysA"].set_index(["topic", "variant"])["score"]
    assert a.to_dict() == {
        ("t1", "u1"): 0.5,
        ("t1", "u2"): 0.5,
        ("t2", "u1"): 0.1,
        ("t2", "u2"): 0.3,
    }
    arr = variation_array(df)
    assert arr.scores.shape == (2, 2, 2) and arr.systems == ["sysA", "sysB"]


def test_mapped_queries_without_scores_are_counted(tmp_path):
    write_trec_eval(tmp_path / "s.dat", {"q1": 0.5, "q2": 0.1})
    mapping = pd.DataFrame({"query": ["q1", "q2", "q9"], "topic": "t", "variant": ["a", "b", "c"]})
    with pytest.warns(UserWarning, match=r"1 mapped query\(ies\) have no scores.*q9"):
        df = rk.variations.read_variations([tmp_path / "s.dat"], mapping)
    assert len(df) == 2


def test_trec_eval_file_without_the_measure(tmp_path):
    write_trec_eval(tmp_path / "s.dat", {"q1": 0.5}, measure="map")
    with pytest.raises(InputFormatError, match="P_10"):
        rk.variations.read_variations(
            [tmp_path / "s.dat"], pd.DataFrame(columns=["query", "topic", "variant"])
        )


# --- the N x M array and its policies ----------------------------------------------------------


def test_array_shape_order_and_cells():
    arr = variation_array(grid())
    assert arr.scores.shape == (2, 2, 3)
    assert arr.systems == ["A", "B"] and arr.topics == ["1", "2"]
    assert arr.variants == ["pivot", "most", "least"]
    assert arr.cells.tolist() == [["pivot", "most", "least"]] * 2


def uneven():
    df = grid(topics=("1", "2", "3", "4"))
    return df[~((df.topic == "3") & (df.variant == "least")) & ~((df.topic == "4") & (df.variant != "pivot"))]


def test_unequal_variants_raise_naming_topics_and_options():
    with pytest.raises(RiskevalError) as info:
        variation_array(uneven())
    text = str(info.value)
    assert "2 topic(s) have fewer than 3: 3 (2), 4 (1)" in text
    for option in ("unequal='downsample' with rng=", "unequal='drop'", "form='intra'"):
        assert option in text
    # the same through the public analysis
    with pytest.raises(RiskevalError, match="fewer than 3"):
        rk.variations.mean_variance(uneven())


def test_unequal_drop_warns_and_records():
    with pytest.warns(UserWarning, match=r"Dropped 2 topic\(s\).*3 \(2\), 4 \(1\)"):
        arr = variation_array(uneven(), unequal="drop")
    assert arr.topics == ["1", "2"] and arr.dropped == ("3", "4")
    assert arr.scores.shape == (2, 2, 3)


def test_unequal_downsample_is_seeded_and_recorded():
    df = uneven()[lambda d: d.topic != "4"]  # topics with 3, 3 and 2 variants
    a = variation_array(df, unequal="downsample", rng=42)
    b = variation_array(df, unequal="downsample", rng=42)
    assert a.scores.shape == (2, 3, 2) and a.seed == 42 and a.variants == ["1", "2"]
    np.testing.assert_array_equal(a.scores, b.scores)
    assert a.cells[2].tolist() == ["pivot", "most"]  # topic 3 keeps both of its variants
    full = variation_array(grid(topics=("1", "2", "3", "4")))
    for i in range(3):  # every kept cell is the original score of that variant
        for k, label in enumerate(a.cells[i]):
            j = full.variants.index(label)
            np.testing.assert_array_equal(a.scores[:, i, k], full.scores[:, i, j])
    seeds = {tuple(variation_array(df, unequal="downsample", rng=s).cells[:2].ravel()) for s in range(20)}
    assert len(seeds) > 1  # the seed matters
    # a generator draws as the seed it was made from; no seed is recorded
    c = variation_array(df, unequal="downsample", rng=np.random.default_rng(42))
    np.testing.assert_array_equal(c.scores, a.scores)
    assert c.seed is None


def test_unequal_keep_pads_for_the_intra_topic_form():
    arr = variation_array(uneven(), unequal="keep")
    assert np.isnan(arr.scores[:, 3, 1:]).all() and arr.cells[3].tolist() == ["pivot", None, None]
    with pytest.raises(RiskevalError, match="needs more than 1 variants in every topic"):
        rk.variations.mean_variance(uneven(), form="intra")  # topic 4 has one variant: no sample variance
    mv = rk.variations.mean_variance(uneven(), form="intra", ddof=0)
    assert mv.loc[("A", "4"), "variance"] == 0.0


def test_variant_labels_must_pair_users_across_topics():
    df = table([("A", "1", "a", 0.1), ("A", "1", "b", 0.2), ("A", "2", "c", 0.3), ("A", "2", "d", 0.4)])
    with pytest.raises(RiskevalError, match="Variant labels differ between topics"):
        variation_array(df)
    arr = variation_array(df, unequal="downsample")  # pairs variants by position
    assert arr.cells.tolist() == [["a", "b"], ["c", "d"]]


def test_missing_cells_policies():
    df = grid()
    holed = df.drop(index=df.index[(df.system == "B") & (df.topic == "2") & (df.variant == "most")])
    # the project's missing-topic policy (riskeval.io.apply_missing) over the 'topic [variant]' cells
    with pytest.raises(MissingTopicsError, match=r"topic '2 \[most\]' has no score for 'B'"):
        variation_array(holed)
    with pytest.warns(MissingTopicsWarning, match="scored 0"):
        zero = variation_array(holed, missing="zero")
    assert zero.scores[1, 1, 1] == 0.0
    with pytest.warns(MissingTopicsWarning, match="dropped"):
        dropped = variation_array(holed, missing="drop", unequal="keep")
    assert np.isnan(dropped.scores[:, 1, 1]).all()
    with pytest.raises(RiskevalError, match="'missing' parameter"):
        variation_array(holed, missing="fill")
    with pytest.raises(RiskevalError, match="'unequal' parameter"):
        variation_array(df, unequal="pad")


# --- CLEF eHealth 2015 Task 2 --------------------------------------------------------------------


def test_clef_queries_file_is_read_despite_broken_xml(tmp_path):
    text = (
        "<topics>\n\t<top>\n\t\t<num>clef2015.test.7</num>\n\t\t<query>rosacea symptoms</query>\n"
        "\t\t<disease>basal cell carcinoma</disease>\n\t\t<type>least</disease>\n"
        "\t\t<query_index>17</query_index>\n\t</top>\n"
        "\t<top>\n\t\t<num>clef2015.test.8</num>\n\t\t<type>sideways</disease>\n"
        "\t\t<query_index>6</query_index>\n\t</top>\n"
        "\t<top>\n\t\t<num>clef2015.test.9</num>\n\t</top>\n</topics>\n"
    )
    path = tmp_path / "q.txt"
    path.write_text(text)
    with pytest.raises(InputFormatError) as info:
        read_clef2015_queries(path)
    assert [loc for loc, _ in info.value.problems] == [f"{path}:9", f"{path}:14"]
    assert "'sideways' is not one of" in str(info.value)
    assert "without type, query_index" in str(info.value)
    path.write_text(text.split("\t<top>\n\t\t<num>clef2015.test.8")[0] + "</topics>\n")
    row = read_clef2015_queries(path).iloc[0]
    assert (row.query, row.topic, row.variant, row.text) == (
        "qtest.7",
        "17",
        "least",
        "rosacea symptoms",
    )


@pytest.mark.slow
def test_clef2015_queries_file_counts():
    # README: 67 queries = 23 information needs, 22 of them with the 3 variants pivot/most/least.
    mapping = read_clef2015_queries(
        shared_data("clef-ehealth-2015-task2") / "queries/clef2015.test_with_narratives.queries-EN.txt"
    )
    assert len(mapping) == 67 and mapping.topic.nunique() == 23
    per_need = mapping.groupby("topic")["variant"].apply(frozenset)
    assert (per_need == frozenset({"pivot", "most", "least"})).sum() == 22
    assert per_need["23"] == {"pivot"}


@pytest.mark.slow
def test_clef2015_loader_counts_and_incomplete_needs():
    # Evaluations: qtest.62 (need 13, least) was not judged, need 23 has only a pivot: 21 needs
    # × 3 variants = 63 queries remain, as in Zuccon et al. 2016 §5.1; 110 runs.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = rk.variations.read_clef2015(shared_data("clef-ehealth-2015-task2"))
    messages = " ".join(str(w.message) for w in caught)
    assert "qtest.62" in messages
    assert "Dropped 2 information need(s) with fewer than 3 variants: 13 (2), 23 (1)" in messages
    assert df.system.nunique() == 110 and df.topic.nunique() == 21 and df["query"].nunique() == 63
    assert set(df.variant) == {"pivot", "most", "least"} and len(df) == 110 * 63
    assert df.groupby("topic")["variant"].nunique().eq(3).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = rk.variations.read_clef2015(shared_data("clef-ehealth-2015-task2"), incomplete="keep")
    assert kept.topic.nunique() == 23 and kept["query"].nunique() == 66
    counts = kept[kept.system == "baseline_run.1"].groupby("topic")["variant"].nunique()
    assert counts["13"] == 2 and counts["23"] == 1
    # §5.2: "for Topic 1 in CLEF, run FDUSGInfo_EN_Run.5 has a P10 of 0.9 for the most query and
    # 0 for the least query; while baseline_run.1 has P10 of 0.8 and 0.7"
    topic1 = df[df.topic == "1"].set_index(["system", "variant"])["score"]
    assert topic1[("FDUSGInfo_EN_Run.5", "most")] == 0.9
    assert topic1[("FDUSGInfo_EN_Run.5", "least")] == 0.0
    assert topic1[("baseline_run.1", "most")] == 0.8 and topic1[("baseline_run.1", "least")] == 0.7


def test_clef2015_loader_argument_checks(tmp_path):
    with pytest.raises(RiskevalError, match="does not look like the CLEF eHealth 2015"):
        rk.variations.read_clef2015(tmp_path)
    with pytest.raises(RiskevalError, match="'incomplete' parameter"):
        rk.variations.read_clef2015(tmp_path, incomplete="fill")


@pytest.mark.slow
def test_variations_from_runs_match_the_official_evaluations():
    # The raw CLEF 2015 runs + binary qrels through riskeval.evaluate_runs (ir_measures) give the
    # P@10 of the official per-query trec_eval files, cell for cell.
    from riskeval import variations

    root = shared_data("clef-ehealth-2015-task2")
    mapping = read_clef2015_queries(root / "queries/clef2015.test_with_narratives.queries-EN.txt")
    runs = [root / "runs-en/CUNI_EN_Run.2.dat.gz", root / "runs-en/KISTI_EN_RUN.1.dat.gz"]
    with pytest.warns(RiskevalWarning, match="qtest.62"):  # in the queries file, not in the qrels
        df = variations.evaluate_runs(
            root / "qrels/qrels.eng.clef2015.qtest.bin.txt", runs, mapping, measure="P@10",
            names=["CUNI_EN_Run.2", "KISTI_EN_RUN.1"],
        )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        official = rk.variations.read_clef2015(root, incomplete="keep")
    both = df.merge(official, on=["system", "topic", "variant", "query"], suffixes=("", "_official"))
    assert len(df) == len(both) == 2 * 66
    np.testing.assert_array_equal(both["score"], both["score_official"])


def test_query_variation_api_is_exported():
    names = [
        "bias_variance", "gmap", "robustness_index", "mean_variance", "mean_variance_sweep", "rank_changes",
        "swap_alpha", "tau_ap", "read_clef2015", "read_clef2015_queries", "read_mapping", "read_variation_table", "read_variations",
        "variation_array", "evaluate_runs", "from_scores", "read_uqv100", "read_variant_scores", "read_families",
        "bias_variance_families", "error_decomposition",
    ]  # fmt: skip
    for name in names:
        assert callable(getattr(rk.variations, name)) and name in rk.variations.__all__

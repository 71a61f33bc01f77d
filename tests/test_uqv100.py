"""Per-variant score files of UQV100 and Robust04 query variations: the format (file and line in
every error), names from file names, the unequal-variants policy and its warning; on the real files
when the shared data is there (skipped with a message otherwise)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from shared_data import shared_data

import riskeval as rk
from riskeval.io.uqv100 import names_from_path


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_names_from_path():
    assert names_from_path("a/selected_runs__ltr-lgbm.ndcg@10") == ("ltr-lgbm", "ndcg@10")
    assert names_from_path("cs-qpp__robust04_Lucene_indri_porter_QL.ndcg@10.gz") == (
        "robust04_Lucene_indri_porter_QL",
        "ndcg@10",
    )
    assert names_from_path("user_queries__PL2.DFR.SD.ndcg@10") == ("PL2.DFR.SD", "ndcg@10")
    assert names_from_path("scores") == ("scores", None)


def test_read_variant_scores(tmp_path):
    path = write(tmp_path, "x__bm25.ap@1000", "301-1-1\t0.25\n301-4-2 0.5\n\n302-ranking-77 .125\n")
    t = rk.variations.read_variant_scores(path)
    assert list(t.columns) == ["system", "topic", "variant", "score", "query", "measure"]
    assert t["topic"].tolist() == ["301", "301", "302"]
    assert t["variant"].tolist() == ["1-1", "4-2", "ranking-77"]
    assert t["score"].tolist() == [0.25, 0.5, 0.125] and set(t["system"]) == {"bm25"}
    assert set(t["measure"]) == {"ap@1000"}
    assert set(rk.variations.read_variant_scores(path, system="s", measure="AP")["system"]) == {"s"}
    bad = write(tmp_path, "bad", "301-1 0.1\n3011 0.2\n301-2 x\n301-1 0.3\n301-3 0.1 9\n")
    with pytest.raises(rk.errors.InputFormatError) as exc:
        rk.variations.read_variant_scores(bad)
    msg = str(exc.value)
    for line, what in [
        (2, "not TOPIC-VARIANT"),
        (3, "not a decimal"),
        (4, "appears twice"),
        (5, "two fields"),
    ]:
        assert f"bad:{line}: " in msg and what in msg
    with pytest.raises(rk.errors.InputFormatError, match="no scores"):
        rk.variations.read_variant_scores(write(tmp_path, "empty", "\n"))


def test_unequal_policies(tmp_path):
    # topic 1 has 3 variants, topic 2 has 2, topic 3 has 3
    lines = "1-a 0.1\n1-b 0.2\n1-c 0.3\n2-a 0.4\n2-b 0.5\n3-x 0.6\n3-y 0.7\n3-z 0.8\n"
    a = write(tmp_path, "runs__A.ndcg@10", lines)
    b = write(tmp_path, "runs__B.ndcg@10", lines.replace("0.", "0.0"))
    with pytest.warns(
        rk.errors.RiskevalWarning, match=r"1 of 3 topics have fewer variants .*\(2 to 3 variants"
    ):
        with pytest.raises(rk.RiskevalError, match="unequal='keep'"):
            rk.variations.read_uqv100([a, b])
    with pytest.warns(rk.errors.RiskevalWarning):
        kept = rk.variations.read_uqv100([a, b], unequal="keep")
    assert len(kept) == 16
    with pytest.warns(rk.errors.RiskevalWarning):
        dropped = rk.variations.read_uqv100([a, b], unequal="drop")
    assert set(dropped["topic"]) == {"1", "3"} and len(dropped) == 12
    with pytest.warns(rk.errors.RiskevalWarning):
        down = rk.variations.read_uqv100([a, b], unequal="downsample", rng=3)
    with pytest.warns(rk.errors.RiskevalWarning):
        again = rk.variations.read_uqv100([a, b], unequal="downsample", rng=3)
    pd.testing.assert_frame_equal(down, again)
    per = down.groupby(["system", "topic"]).size()
    assert (per == 2).all()  # every topic keeps the smallest count, the same variants for each system
    assert down[down.system == "A"]["variant"].tolist() == down[down.system == "B"]["variant"].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # equal counts: no warning
        rk.variations.read_uqv100(write(tmp_path, "eq", "1-a 0.1\n2-b 0.2\n"))
    other = write(tmp_path, "runs__C.ap@1000", lines)
    with pytest.raises(rk.RiskevalError, match="different measures"):
        rk.variations.read_uqv100([a, other], unequal="keep")
    with pytest.raises(rk.RiskevalError, match="given twice"):
        rk.variations.read_uqv100([a, a], unequal="keep")
    with pytest.raises(rk.RiskevalError, match="'unequal' parameter"):
        rk.variations.read_uqv100(a, unequal="Keep")


def test_uqv100_selected_runs():
    folder = shared_data("query-variations", "uqv100-cs-qpp")
    files = sorted(folder.glob("selected_runs__*.ndcg@10"))
    t = rk.variations.read_uqv100(files)
    assert sorted(t["system"].unique()) == ["PL2-DFR-SD", "ltr-lgbm", "ltr-xgboost", "neur-doc-300"]
    assert len(t) == 4 * 12 * 5 and (t.groupby(["system", "topic"]).size() == 5).all()
    row = t[(t.system == "ltr-lgbm") & (t["query"] == "213-2264")]
    assert row["score"].item() == pytest.approx(0.239475)  # the file's first line
    intra = rk.variations.mean_variance(t, alpha=1, form="intra")
    assert len(intra) == 4 * 12
    # variant ids are per topic: the general form pairs them by position only when asked
    with pytest.raises(rk.RiskevalError, match="Variant labels differ"):
        rk.variations.mean_variance(t, alpha=1)
    general = rk.variations.mean_variance(t, alpha=1, unequal="downsample", rng=0)
    assert general["mean"].to_numpy() == pytest.approx(t.groupby("system")["score"].mean().to_numpy())


def test_uqv100_user_queries_and_robust04():
    folder = shared_data("query-variations")
    with pytest.warns(rk.errors.RiskevalWarning, match="11 of 12 topics .*46 to 114"):
        u = rk.variations.read_uqv100(
            folder / "uqv100-cs-qpp" / "user_queries__PL2.DFR.SD.ndcg@10", unequal="keep"
        )
    assert len(u) == 996 and u["topic"].nunique() == 12
    robust = folder / "robust04-uqv" / "cs-qpp__robust04_Lucene_indri_porter_QL.ndcg@10"
    with pytest.warns(rk.errors.RiskevalWarning, match="248 of 249 topics .*9 to 53"):
        r = rk.variations.read_uqv100(robust, unequal="downsample", rng=1)
    assert r["topic"].nunique() == 249 and (r.groupby("topic").size() == 9).all()
    assert set(r["system"]) == {"robust04_Lucene_indri_porter_QL"} and set(r["measure"]) == {"ndcg@10"}
    ap = rk.variations.read_variant_scores(
        folder / "robust04-uqv" / "cs-qpp__robust_krovetz_nostop_terrier_QL.ap@1000"
    )
    assert len(ap) == 3392 and np.isfinite(ap["score"]).all()

"""One table of measure names (riskeval.io.measures.MEASURE_NAMES): every spelling of every row gives
the ir_measures spelling and back, and each spelling's own tool computes the same values (trec_eval
through pytrec_eval; ranx, slow, on TREC DL 2019)."""

from __future__ import annotations

import warnings

import ir_measures
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import riskeval as rk
from riskeval.io.measures import MEASURE_NAMES, canonical_measure, resolve_measure, spellings
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from tests.shared_data import shared_data


def _examples():
    """(ir_measures, trec_eval or None, ranx or None) for every row: with and without a cutoff,
    with a relevance level where ranx names one."""
    for row in MEASURE_NAMES:
        takes_cutoff = "cutoff" in ir_measures.parse_measure(row.ir_measures).SUPPORTED_PARAMS
        cutoffs = ([None] if row.cutoff_optional else []) + ([10] if takes_cutoff else [])
        for cutoff in cutoffs:
            for rel in (None, 2) if row.rel else (None,):
                ir = row.ir_measures + (f"(rel={rel})" if rel else "") + (f"@{cutoff}" if cutoff else "")
                trec = (
                    row.trec_eval if cutoff is None else row.trec_eval_cut and f"{row.trec_eval_cut}{cutoff}"
                )
                ranx = row.ranx and row.ranx + (f"@{cutoff}" if cutoff else "") + (f"-l{rel}" if rel else "")
                yield ir, (None if rel else trec), ranx


EXAMPLES = list(_examples())


def test_the_table_covers_the_usual_names():
    names = {e for example in EXAMPLES for e in example}
    for name in ("nDCG@10", "P@10", "AP(rel=2)", "RR@10", "R@10", "ndcg_cut_10", "P_10", "map",
                 "recip_rank", "recall_10", "ndcg@10", "precision@10", "mrr@10", "recall@10"):  # fmt: skip
        assert name in names
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("ir", "trec", "ranx"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_spelling_gives_the_ir_measures_name_and_back(ir, trec, ranx):
    assert canonical_measure(ir) == ir == str(ir_measures.parse_measure(ir))
    assert canonical_measure(ir_measures.parse_measure(ir)) == ir
    for spelled in (trec, ranx):
        if spelled is not None:
            assert canonical_measure(spelled) == ir
    assert spellings(ir) == {"ir_measures": ir, "trec_eval": trec, "ranx": ranx}
    if trec is not None:  # ir_measures' own reading of trec_eval names agrees with the table
        assert [str(m) for m in ir_measures.parse_trec_measure(trec)] == [ir]


@given(
    row=st.sampled_from([r for r in MEASURE_NAMES if r.ranx is not None]),
    cutoff=st.integers(1, 2**31 - 1),
    rel=st.integers(1, 2**31 - 1),
)
def test_any_cutoff_and_relevance_level_round_trips(row, cutoff, rel):
    takes_cutoff = "cutoff" in ir_measures.parse_measure(row.ir_measures).SUPPORTED_PARAMS
    ranx = row.ranx + (f"@{cutoff}" if takes_cutoff else "") + (f"-l{rel}" if row.rel else "")
    ir = canonical_measure(ranx)
    assert spellings(ir)["ranx"] == (ranx if rel != 1 or not row.rel else ranx.removesuffix("-l1"))
    parsed = ir_measures.parse_measure(ir)
    assert parsed.params.get("cutoff") == (cutoff if takes_cutoff else None)
    assert parsed.params.get("rel", 1) == (rel if row.rel else 1)
    if row.trec_eval_cut and takes_cutoff and (rel == 1 or not row.rel):
        assert canonical_measure(f"{row.trec_eval_cut}{cutoff}") == ir


def test_a_spelling_ir_measures_also_parses_means_the_same_measure_there():
    """Where ir_measures reads a trec_eval or ranx spelling itself, it reads the measure riskeval
    maps that spelling to: no name means one measure to riskeval and another to ir_measures."""
    checked = 0
    for example in EXAMPLES:
        for spelled in example[1:]:
            try:
                other = ir_measures.parse_measure(spelled)
            except Exception:
                continue
            assert str(other) == canonical_measure(spelled), spelled
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("name", ["P", "ndcg_cut", "precision", "ndcg@10-l2", "ndcg_burges@10", "nope", 3])
def test_names_that_are_not_one_measure_are_refused(name):
    if name == "P":  # ir_measures parses P alone; its missing cutoff is refused where it is used
        with pytest.raises(rk.RiskevalError, match="P needs a cutoff. Write e.g. P@10"):
            rk.evaluate_runs({"1": {"a": 1}}, {"r": {"1": {"a": 1.0}}}, name)
        return
    with pytest.raises(rk.RiskevalError, match="Unknown measure name"):
        canonical_measure(name)


def test_other_trec_eval_names_go_through_ir_measures():
    assert canonical_measure("iprec_at_recall_0.10") == "IPrec@0.1"
    assert canonical_measure("num_rel_ret") == "NumRet(rel=1)"


def test_a_measure_of_an_input_is_chosen_in_any_spelling():
    available = ["ndcg_cut_10", "map", "P_10", "recip_rank"]
    assert resolve_measure("ndcg@10", available) == "ndcg_cut_10"
    assert resolve_measure("AP", available) == "map"
    assert resolve_measure("precision@10", available) == "P_10"
    assert resolve_measure("mrr", available) == "recip_rank"
    assert resolve_measure("map-l2", available) is None  # rel=2 is not trec_eval's map


@pytest.fixture(scope="module")
def dl19():
    base = shared_data("trec-dl-2019-passage")
    qrels = read_qrels(base / "qrels.dl19-passage.txt")
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, d, r in qrels[["query_id", "doc_id", "relevance"]].itertuples(index=False):
        qrels_dict.setdefault(q, {})[d] = int(r)
    run = read_run(base / "runs" / "input.ICT-CKNRM_B50.gz", topics=set(qrels_dict)).scores
    return qrels_dict, run


def _riskeval(qrels, run, measure):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate_runs(qrels, {"run": run}, measure).loc["run"]


def test_trec_eval_names_give_trec_eval_values(dl19):
    import pytrec_eval

    qrels, run = dl19
    names = [trec for _, trec, _ in EXAMPLES if trec is not None and trec != "num_rel"]
    # pytrec_eval takes trec_eval's -m names: ndcg_cut.10 computes ndcg_cut_10
    requested = {n.replace("_cut_", "_cut.").replace("P_", "P.").replace("recall_", "recall.")
                 .replace("success_", "success.") for n in names}  # fmt: skip
    values = pytrec_eval.RelevanceEvaluator(qrels, requested).evaluate(run)
    for name in names:
        expected = pd.Series({q: v[name] for q, v in values.items()}, dtype=float)
        got = _riskeval(qrels, run, name)
        pd.testing.assert_series_equal(got[expected.index], expected, check_names=False, obj=name)


@pytest.mark.slow  # ranx compiles its metrics with numba: about a minute
def test_ranx_names_give_ranx_values(dl19):
    ranx = pytest.importorskip("ranx")
    qrels, run = dl19
    # ranx orders tied documents otherwise than trec_eval (score, then document id in reverse): the
    # run is made tie-free, in trec_eval's order, so that both rank the same documents alike
    untied = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (docs[d], d), reverse=True)
        untied[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    names = [r for _, _, r in EXAMPLES if r is not None]
    ranx_run = ranx.Run(untied)
    ranx.evaluate(ranx.Qrels(qrels), ranx_run, names)
    for name in names:
        expected = pd.Series(ranx_run.scores[name], dtype=float)
        got = _riskeval(qrels, untied, name)
        pd.testing.assert_series_equal(got[expected.index], expected, check_names=False, obj=name)
        # the tie-free run has the values of the original under trec_eval's order
        pd.testing.assert_series_equal(got, _riskeval(qrels, run, name), obj=name)

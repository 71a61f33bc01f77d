"""Per-topic evaluation on real campaign data (shared/data): TREC Web 2012 and TREC DL 2019."""

from __future__ import annotations

import gzip
import re
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest
from scipy import stats
from shared_data import ROOT, shared_data

import riskeval as rk

pytestmark = pytest.mark.slow

DL19_SAMPLE = ["ICT-BERT2", "ICT-CKNRM_B50", "srchvrs_ps_run2"]


def dl19_run(tag: str):
    return shared_data("trec-dl-2019-passage", "runs", f"input.{tag}.gz")


def test_err20_of_the_trec_web_2012_risk_baseline():
    """indriCASP (rm-results-cata-filtered) has ERR@20 = 0.1947 over the 50 topics of TREC Web 2012
    (Dinçer, Macdonald & Ounis, SIGIR 2014, and the TREC 2013/2014 Web track overviews)."""
    web = shared_data("trec-web-2012")
    M = rk.evaluate_runs(
        web / "qrels-topics" / "2012" / "qrels.adhoc.txt",
        [web / "baselines-2012" / "rm-results-cata-filtered.txt"],
        measure="ERR@20",
    )
    assert M.shape == (1, 50) and M.index.tolist() == ["indri"]
    assert M.columns.tolist() == [str(t) for t in range(151, 201)]
    assert M.loc["indri"].mean() == pytest.approx(0.19466, abs=5e-6)


def test_dl19_per_topic_values_equal_ir_measures():
    """The benchmark's three measures on a sample of the official runs: identical values."""
    measures = ["nDCG@10", "AP(rel=2)", "RR(rel=2)@10"]
    qrels_path = shared_data("trec-dl-2019-passage", "qrels.dl19-passage.txt")
    runs = [dl19_run(tag) for tag in DL19_SAMPLE]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the 157 unjudged topics of every run
        long = rk.io.evaluate_runs_long(qrels_path, runs, measures)
    got = {(s, t, m): v for s, t, m, v in long.itertuples(index=False, name=None)}
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    parsed = [ir_measures.parse_measure(m) for m in measures]
    expected = {
        (tag, m.query_id, str(m.measure)): m.value
        for tag, path in zip(DL19_SAMPLE, runs, strict=True)
        for m in ir_measures.iter_calc(parsed, qrels, ir_measures.read_trec_run(str(path)))
    }
    assert len(expected) == 3 * 3 * 43
    assert got == expected


def test_dl19_run_lacking_judged_topics(tmp_path):
    """A real run with two judged topics cut out: scored 0 (trec_eval -c) or dropped, counted."""
    qrels = shared_data("trec-dl-2019-passage", "qrels.dl19-passage.txt")
    lines = gzip.decompress(dl19_run("ICT-BERT2").read_bytes()).decode().splitlines(keepends=True)
    cut = tmp_path / "cut.run"
    cut.write_text("".join(line for line in lines if line.split()[0] not in {"19335", "47923"}))
    runs = [dl19_run("ICT-CKNRM_B"), cut]
    for missing, n_topics in (("zero", 43), ("drop", 41)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            M = rk.evaluate_runs(qrels, runs, measure="nDCG@10", missing=missing)
        assert M.shape == (2, n_topics)
        messages = [str(w.message) for w in caught]
        policy = [m for m in messages if "(system, topic) cell(s)" in m]
        assert len(policy) == 1 and re.search(r"\b2\b", policy[0]) and "ICT-BERT2" in policy[0]
        assert any(m.startswith("314 (run, topic) pair(s) left out: 157 topic(s)") for m in messages)
    assert M.columns.isin(["19335", "47923"]).sum() == 0


def test_shipped_example_is_this_evaluation_of_the_dl19_runs():
    M = rk.example_scores()
    assert M.shape == (37, 43) and M.index.name == "system" and M.columns.name == "topic"
    assert M.dtypes.eq(np.float64).all()
    tags = sorted(
        p.name.removeprefix("input.").removesuffix(".gz")
        for p in shared_data("trec-dl-2019-passage", "runs").glob("input.*.gz")
    )
    assert sorted(M.index) == tags
    sample = ["ICT-BERT2", "srchvrs_ps_run2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fresh = rk.evaluate_runs(
            shared_data("trec-dl-2019-passage", "qrels.dl19-passage.txt"),
            [dl19_run(t) for t in sample],
            measure="nDCG@10",
        )
    pd.testing.assert_frame_equal(M.loc[sample, fresh.columns], fresh)


def test_walkthrough_web2012_numbers():
    """The numbers quoted in docs/walkthrough-web2012.md: mean ERR@20 of the eight Web 2012
    baselines as gdeval computes it (through ir_measures), and TRisk against the official risk
    baseline computed here from its formula (Dinçer, Macdonald & Ounis, SIGIR 2014, eqs. 4 and 9)."""
    web = shared_data("trec-web-2012")
    qrels = web / "qrels-topics" / "2012" / "qrels.adhoc.txt"
    runs = sorted((web / "baselines-2012").glob("*-results-*.txt"))
    M = rk.evaluate_runs(qrels, runs, "ERR@20", names="file")
    topics = list(M.columns)
    judgements = list(ir_measures.read_trec_qrels(str(qrels)))
    assert set(topics) == {q.query_id for q in judgements}
    gdeval = {}
    for run in runs:
        values = dict.fromkeys(topics, 0.0)  # a topic the run does not answer scores 0
        for m in ir_measures.iter_calc(
            [ir_measures.ERR @ 20], judgements, ir_measures.read_trec_run(str(run))
        ):
            values[m.query_id] = m.value
        gdeval[run.stem] = [values[t] for t in topics]
    G = pd.DataFrame(gdeval).T.loc[M.index]
    G.columns = topics
    np.testing.assert_allclose(M.to_numpy(), G.to_numpy(), atol=1e-4)  # gdeval prints 4-5 decimals
    assert G.mean(axis=1).round(4).to_dict() == {
        "ql-results-cata-filtered": 0.1616,
        "ql-results-cata": 0.1018,
        "ql-results-catb-filtered": 0.1781,
        "ql-results-catb": 0.1797,
        "rm-results-cata-filtered": 0.1947,
        "rm-results-cata": 0.0904,
        "rm-results-catb-filtered": 0.1909,
        "rm-results-catb": 0.1550,
    }
    T = rk.risk_table(M, baseline="rm-results-cata-filtered", alphas=[0, 1, 5, 10])
    trisk = T.pivot(index="system", columns="alpha", values="trisk")
    base = M.loc["rm-results-cata-filtered"].to_numpy()
    for system, printed in [
        ("rm-results-cata", [-2.609, -3.392, -3.912, -4.023]),
        ("rm-results-catb-filtered", [-0.403, -1.386, -2.161, -2.339]),
    ]:
        d = M.loc[system].to_numpy() - base
        expected = []
        for alpha in (0, 1, 5, 10):
            x = np.where(d < 0, (1 + alpha) * d, d)
            expected.append(x.mean() / (x.std(ddof=1) / np.sqrt(x.size)))
        np.testing.assert_allclose(trisk.loc[system].to_numpy(), expected, rtol=1e-10)
        assert np.round(expected, 3).tolist() == printed
    critical = stats.t.ppf(0.975, len(topics) - 1)
    assert (trisk[5.0].drop("rm-results-cata-filtered") < -critical).all()


def test_snapshot_walkthrough_web2012_commands_print_what_the_page_shows(tmp_path, monkeypatch, capsys):
    """Regression snapshot of docs/walkthrough-web2012.md, steps 2-3 on the command line: the risk
    table as printed there (its values are checked against ir_measures and the formulas above)."""
    from riskeval.cli.main import main

    web = shared_data("trec-web-2012")
    monkeypatch.chdir(tmp_path)
    runs = [str(p) for p in sorted((web / "baselines-2012").glob("*-results-*.txt"))]
    qrels = str(web / "qrels-topics" / "2012" / "qrels.adhoc.txt")
    main(
        ["evaluate", "--qrels", qrels, "--measure", "ERR@20", "--name-from", "file", "--per-topic"]
        + ["--format", "csv", *runs]
    )
    (tmp_path / "web2012-err20.csv").write_text(capsys.readouterr().out)
    main(["risk", "web2012-err20.csv", "--baseline", "rm-results-cata-filtered", "--alpha", "0,1,5,10"])
    printed = capsys.readouterr().out
    page = (ROOT / "docs" / "walkthrough-web2012.md").read_text(encoding="utf-8")
    start = page.index("8 systems × 50 topics from web2012-err20.csv")
    assert printed == page[start : page.index("```", start)]

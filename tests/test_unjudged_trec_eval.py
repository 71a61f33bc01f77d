"""Unjudged documents on campaign data: ``unjudged="condensed"`` equals ``trec_eval -J`` (9.0.8) on
every official run of TREC DL 2019 and 2020 (passage), for every measure riskeval names in
trec_eval's spelling (trec_eval is found through ``$TREC_EVAL``; that test skips without it); the
policies give the same values in worker processes; ``unjudged="relevant=2"`` equals trec_eval on
qrels completed by the test; the leave-one-run-out study of
docs/unjudged.md gives its numbers."""

from __future__ import annotations

import gzip
import os
import subprocess
import warnings

import pytest
from shared_data import shared_data

import riskeval as rk
from riskeval.io.system_names import system_name_from_file

pytestmark = pytest.mark.slow

#: ir_measures name -> trec_eval -m argument and printed name
MEASURES = {
    "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "nDCG": ("ndcg", "ndcg"),
    "AP": ("map", "map"),
    "AP@100": ("map_cut.100", "map_cut_100"),
    "P@10": ("P.10", "P_10"),
    "R@100": ("recall.100", "recall_100"),
    "RR": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "Success@10": ("success.10", "success_10"),
    "Bpref": ("bpref", "bpref"),
    "NumRel": ("num_rel", "num_rel"),
    "infAP": ("infAP", "infAP"),
}
CAMPAIGNS = {
    "trec-dl-2019-passage": ("qrels.dl19-passage.txt", "runs"),
    "trec-dl-2020-passage": ("qrels.dl20-passage.txt", "runs-top100"),
}


def _trec_eval() -> str:
    path = os.environ.get("TREC_EVAL")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("set TREC_EVAL to a trec_eval 9.0.8 executable to compare with trec_eval -J")
    return path


@pytest.mark.parametrize("campaign", list(CAMPAIGNS))
def test_condensed_equals_trec_eval_j(campaign, tmp_path):
    trec_eval = _trec_eval()
    qrels_name, folder = CAMPAIGNS[campaign]
    qrels = shared_data(campaign, qrels_name)
    runs = sorted(shared_data(campaign, folder).glob("*.gz"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # topics of the runs without judgments
        long = rk.io.evaluate_runs_long(qrels, runs, list(MEASURES), names="file", unjudged="condensed")
    got = {(s, t, m): v for s, t, m, v in long.itertuples(index=False, name=None)}
    checked = 0
    for run in runs:
        plain = tmp_path / "run.txt"
        plain.write_bytes(gzip.decompress(run.read_bytes()))
        flags = [a for option, _ in MEASURES.values() for a in ("-m", option)]
        out = subprocess.run(
            [trec_eval, "-J", "-q", *flags, str(qrels), str(plain)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        printed = {name: m for m, (_, name) in MEASURES.items()}
        system = system_name_from_file(str(run))
        for line in out.splitlines():
            name, topic, value = line.split()
            if topic == "all":
                continue
            # trec_eval prints 4 decimals
            assert got[(system, topic, printed[name])] == pytest.approx(float(value), abs=5.001e-5), (
                system,
                topic,
                name,
            )
            checked += 1
    assert checked >= len(runs) * 43 * len(MEASURES)


def test_policies_in_worker_processes_equal_this_process():
    """The policy travels with the evaluator to worker processes: the same values."""
    d = shared_data("trec-dl-2020-passage")
    qrels = d / "qrels.dl20-passage.txt"
    runs = sorted((d / "runs-top100").glob("*.gz"))[:2]
    for policy in ("condensed", "relevant=2"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            here = rk.io.evaluate_runs_long(qrels, runs, ["nDCG@10", "AP"], unjudged=policy, n_jobs=1)
            there = rk.io.evaluate_runs_long(qrels, runs, ["nDCG@10", "AP"], unjudged=policy, n_jobs=2)
            plain = rk.io.evaluate_runs_long(qrels, runs, ["nDCG@10", "AP"], n_jobs=1)
        assert here.equals(there)
        assert not here.equals(plain)


def test_leave_one_run_out_on_dl19():
    """The study of docs/unjudged.md for the two runs that brought most to the pool: the numbers of
    the page, and no robust loss under the reduced qrels refuted by the full ones."""
    d = shared_data("trec-dl-2019-passage")
    qrels = str(d / "qrels.dl19-passage.txt")
    runs = {
        p.name.removeprefix("input.").removesuffix(".gz"): str(p) for p in sorted((d / "runs").glob("*.gz"))
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = rk.io.pool_contributions(qrels, runs, 10)
        for run, removed, became in (("UNH_exDL_bm25", 368, 39), ("ICT-CKNRM_B50", 94, 9)):
            pair = {run: runs[run], "bm25base_p": runs["bm25base_p"]}
            full = rk.io.score_bounds(qrels, pair, "nDCG@10")
            reduced = rk.io.score_bounds(rk.io.remove_judgments(qrels, alone[run]), pair, "nDCG@10", grade=3)
            changes = rk.analysis.label_changes(full, reduced, run, "bm25base_p")
            assert sum(map(len, alone[run].values())) == removed
            assert changes["became_possible"] == became
            assert changes["robust_not_lost"] == 0


@pytest.mark.parametrize("campaign", list(CAMPAIGNS))
def test_relevant_equals_trec_eval_on_completed_qrels(campaign, tmp_path):
    """``unjudged="relevant=2"`` equals trec_eval against qrels this test writes: the qrels with
    every document the run retrieves for a judged topic and the qrels do not judge added at 2."""
    trec_eval = _trec_eval()
    qrels_name, folder = CAMPAIGNS[campaign]
    qrels = shared_data(campaign, qrels_name)
    lines = qrels.read_text().splitlines()
    judged: dict[str, set[str]] = {}
    for line in lines:
        topic, _, doc, _ = line.split()
        judged.setdefault(topic, set()).add(doc)
    measures = ["nDCG@10", "AP", "P@10", "R@100", "RR"]
    for run in sorted(shared_data(campaign, folder).glob("*.gz"))[:3]:
        text = gzip.decompress(run.read_bytes()).decode()
        added = {
            (f[0], f[2])
            for f in (line.split() for line in text.splitlines())
            if f[0] in judged and f[2] not in judged[f[0]]
        }
        completed = tmp_path / "completed.txt"
        completed.write_text("\n".join([*lines, *(f"{t} 0 {d} 2" for t, d in sorted(added))]) + "\n")
        plain = tmp_path / "run.txt"
        plain.write_text(text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            long = rk.io.evaluate_runs_long(qrels, [run], measures, unjudged="relevant=2")
        got = {(t, m): v for _, t, m, v in long.itertuples(index=False, name=None)}
        flags = [a for m in measures for a in ("-m", MEASURES[m][0])]
        out = subprocess.run(
            [trec_eval, "-q", *flags, str(completed), str(plain)], capture_output=True, text=True, check=True
        ).stdout
        names = {
            "ndcg_cut_10": "nDCG@10",
            "map": "AP",
            "P_10": "P@10",
            "recall_100": "R@100",
            "recip_rank": "RR",
        }
        checked = 0
        for line in out.splitlines():
            name, topic, value = line.split()
            if topic != "all":
                assert got[(topic, names[name])] == pytest.approx(float(value), abs=5.001e-5), (
                    run,
                    topic,
                    name,
                )
                checked += 1
        assert checked == len(measures) * len({t for t, _ in got})

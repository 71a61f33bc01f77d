"""Qrels and topics by ir_datasets id, from small datasets registered here on local files: the values of
the same qrels file, a clear message when ir_datasets would download, and the extra to install when
ir_datasets is absent.  Nothing touches the network."""

from __future__ import annotations

import socket
import sys
import uuid

import pandas as pd
import pytest

import riskeval as rk
from riskeval.io.irds import irds_qrels, irds_topics

ir_datasets = pytest.importorskip("ir_datasets")

QRELS = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n2 0 d1 1\n2 0 d4 3\n"
QUERIES = "1\tcheap flights\n2\tRISK & reward <b>\n"
RUNS = {
    "a": {"1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "2": {"d4": 2.0, "d1": 1.0}},
    "b": {"1": {"d2": 3.0, "d3": 2.0, "d1": 1.0}, "2": {"d1": 2.0, "d9": 1.0}},
}


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the network was used")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture
def register():
    """Register datasets under fresh ids; removed from ir_datasets' registry afterwards."""
    names = []

    def add(*constituents):
        from ir_datasets.datasets.base import Dataset

        name = f"riskeval-test/{uuid.uuid4().hex}"
        ir_datasets.registry.register(name, Dataset(*constituents))
        names.append(name)
        return name

    yield add
    for name in names:
        ir_datasets.registry._registered.pop(name, None)


@pytest.fixture
def local_dataset(tmp_path, register, no_network):
    from ir_datasets.formats import TrecQrels, TsvQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "queries.tsv").write_text(QUERIES)
    name = register(
        TrecQrels(LocalDownload(tmp_path / "qrels.txt"), {0: "not", 1: "related", 2: "high", 3: "perfect"}),
        TsvQueries(LocalDownload(tmp_path / "queries.tsv")),
    )
    return name, tmp_path / "qrels.txt"


def test_qrels_by_id_give_the_values_of_the_qrels_file(local_dataset):
    name, path = local_dataset
    by_id = rk.io.evaluate_runs_long(f"irds:{name}", RUNS, ["nDCG@10", "AP(rel=2)"])
    pd.testing.assert_frame_equal(by_id, rk.io.evaluate_runs_long(str(path), RUNS, ["nDCG@10", "AP(rel=2)"]))
    assert irds_qrels(f"irds:{name}").to_dict("list") == {
        "query_id": ["1", "1", "1", "2", "2"],
        "doc_id": ["d1", "d2", "d3", "d1", "d4"],
        "relevance": [2, 0, 1, 1, 3],
    }


def test_topics_by_id_are_pyterrier_topics(local_dataset):
    name, _ = local_dataset
    topics = irds_topics(f"irds:{name}")
    assert topics.to_dict("list") == {"qid": ["1", "2"], "query": ["cheap flights", "RISK & reward <b>"]}
    with pytest.raises(rk.RiskevalError, match=r"fields \['query_id', 'text'\]; choose the query text"):
        irds_topics(f"irds:{name}", field="title")


def test_a_dataset_that_needs_a_download_is_named_and_nothing_is_downloaded(tmp_path, register, no_network):
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import Download, RequestsDownload

    url = "https://example.invalid/qrels.txt"
    name = register(TrecQrels(Download([RequestsDownload(url)], cache_path=str(tmp_path / "q")), {}))
    with pytest.raises(rk.RiskevalError) as info:
        rk.evaluate_runs(f"irds:{name}", RUNS, "P@1")
    message = str(info.value)
    assert f"ir_datasets dataset '{name}' are not on this machine" in message
    assert f"needs a download ({url})" in message and "does not start" in message
    assert not (tmp_path / "q").exists()


def test_unknown_ids_and_datasets_without_qrels(register, no_network):
    with pytest.raises(rk.RiskevalError, match="ir_datasets has no dataset 'no/such-dataset'"):
        rk.evaluate_runs("irds:no/such-dataset", RUNS, "P@1")
    from ir_datasets.formats import TsvQueries
    from ir_datasets.util import LocalDownload

    name = register(TsvQueries(LocalDownload("/nonexistent")))
    with pytest.raises(rk.RiskevalError, match="has no qrels"):
        irds_qrels(f"irds:{name}")


def test_without_ir_datasets_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(rk.errors.MissingDependencyError, match=r'pip install "riskeval\[irds\]"'):
        rk.evaluate_runs("irds:msmarco-passage/trec-dl-2020/judged", RUNS, "P@1")


def test_risk_experiment_takes_topics_and_qrels_by_id(local_dataset):
    pytest.importorskip("pyterrier")
    name, path = local_dataset
    results = {
        system: pd.DataFrame(
            [(q, d, s) for q, docs in run.items() for d, s in docs.items()], columns=["qid", "docno", "score"]
        )
        for system, run in RUNS.items()
    }
    table = rk.analysis.risk_experiment(results, f"irds:{name}", f"irds:{name}", ["nDCG@10"], baseline="a")
    expected = rk.risk_table(rk.evaluate_runs(str(path), RUNS, "nDCG@10"), "a")
    pd.testing.assert_frame_equal(table, expected)

"""``riskeval.distributed.cluster``: a client for a block, on a local cluster or a scheduler's
address; wrong arguments and unreachable addresses are RiskevalErrors naming what to give."""

from __future__ import annotations

import pytest

from riskeval.distributed import cluster
from riskeval.errors import RiskevalError


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "either workers= .* or scheduler="),
        ({"workers": 2, "scheduler": "tcp://127.0.0.1:8786"}, "not both or neither"),
        ({"workers": 0}, "'workers' parameter of cluster must be an integer >= 1"),
        ({"workers": True}, "'workers' parameter of cluster must be an integer >= 1"),
    ],
)
def test_arguments_are_checked_before_anything_starts(kwargs, message):
    with pytest.raises(RiskevalError, match=message), cluster(**kwargs):
        pytest.fail("no client")


@pytest.mark.parametrize("address", ["nonsense", "foo://host:1", "tcp://localhost:port"])
def test_a_malformed_address_names_itself_and_leaves_dask_as_it_was(address):
    pytest.importorskip("distributed")
    import dask

    before = dask.config.get("scheduler", None)
    with pytest.raises(RiskevalError, match=f"Cannot connect to the Dask scheduler at '{address}'"):
        with cluster(scheduler=address):
            pytest.fail("no client")
    assert dask.config.get("scheduler", None) == before


def test_nothing_answering_is_refused_after_the_timeout():
    pytest.importorskip("distributed")
    with pytest.raises(RiskevalError, match="tcp://127.0.0.1:1.*running scheduler"):
        with cluster(scheduler="tcp://127.0.0.1:1", timeout="1s"):
            pytest.fail("no client")


@pytest.mark.slow
def test_a_local_cluster_is_the_default_client_and_closes():
    distributed = pytest.importorskip("distributed")
    with cluster(workers=1) as client:
        assert distributed.default_client() is client
        assert len(client.scheduler_info()["workers"]) == 1
    assert client.status == "closed"

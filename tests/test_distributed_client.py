"""``riskeval.distributed.cluster``: a client for a block, on a local cluster or a scheduler's
address; wrong arguments and unreachable addresses are RiskevalErrors naming what to give."""

from __future__ import annotations

import pytest

from riskeval.distributed import cluster
from riskeval.distributed.client import address_problem
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


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        ("nonsense", ""),
        ("not a url", ""),
        ("tcp://:8786", ""),
        ("foo://host:1", "; the protocol 'foo' is none of tcp, tls, ws, wss, ucx"),
        ("tcp://localhost:port", "; the port must be a number from 1 to 65535"),
        ("tcp://localhost:65536", "; the port must be a number from 1 to 65535"),
        (8786, ""),
    ],
)
def test_a_malformed_address_is_refused_before_connecting(address, problem):
    """Refused at once, saying the form: distributed would try to connect first, then block the
    interpreter's exit for its close timeout."""
    pytest.importorskip("distributed")
    import dask

    before = dask.config.get("scheduler", None)
    message = (
        "The 'scheduler' parameter of cluster must be a Dask scheduler address tcp://HOST:PORT, e.g. "
        f"tcp://10.0.0.5:8786 (the address dask scheduler prints){problem}. Got {address!r}."
    )
    with pytest.raises(RiskevalError) as info, cluster(scheduler=address):
        pytest.fail("no client")
    assert str(info.value) == message
    assert dask.config.get("scheduler", None) == before


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://[::1]:1", "ws://host-1.lab:80"]
)
def test_well_formed_addresses(address):
    assert address_problem(address) is None


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

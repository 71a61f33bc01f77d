"""A run read in pieces of whole topics: the same text, the same values, and the ordering it needs.

Evaluation by pieces (a stream with bounded memory, and the unit of a Dask task) must give exactly
the values of reading the run whole, also when a topic's lines are not contiguous."""

from __future__ import annotations

import bz2
import gzip
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.errors import InputFormatError
from riskeval.evaluation import run_pieces as piece_reader
from riskeval.evaluation.run_pieces import run_pieces
from riskeval.io.decoding import read_utf8

pytestmark = pytest.mark.filterwarnings("ignore::riskeval.errors.RiskevalWarning")


def make_run(topics: list[str], docs: int, tag: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for t in topics:
        for rank in range(docs):
            lines.append(f"{t} Q0 d{rng.randrange(3 * docs)}_{rank} {rank + 1} {rng.random():.6f} {tag}")
    return "\n".join(lines) + "\n"


def make_qrels(topics: list[str], docs: int, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(
        f"{t} 0 d{d}_{r} {rng.randrange(-1, 4)}\n"
        for t in topics
        for r in range(docs)
        for d in [rng.randrange(3 * docs)]
    )


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 12), min_size=1, max_size=8),
    size=st.integers(1, 300),
    crlf=st.booleans(),
    compress=st.sampled_from([None, "gzip", "bzip2"]),
)
def test_pieces_are_the_text_cut_between_topics(tmp_path_factory, sizes, size, crlf, compress):
    lines = [f"{t} Q0 d{i} {i} 1.0 x" for t, n in enumerate(sizes) for i in range(n)]
    text = "\n".join(lines) + ("\n" if lines else "")
    raw = text.replace("\n", "\r\n").encode() if crlf else text.encode()
    raw = {None: raw, "gzip": gzip.compress(raw), "bzip2": bz2.compress(raw)}[compress]
    path = tmp_path_factory.mktemp("p") / "run"
    path.write_bytes(raw)
    pieces = list(run_pieces(path, size))
    assert b"".join(p.data for p in pieces) == read_utf8(path)
    line = 1
    for piece in pieces:
        assert piece.first_line == line
        line += piece.data.count(b"\n")
    firsts = [p.data.split(None, 1)[0] for p in pieces if p.data]
    assert len(firsts) == len(set(firsts))  # no topic starts two pieces: never cut inside a topic


@pytest.fixture
def campaign(tmp_path):
    topics = [str(t) for t in range(1, 41)]
    (tmp_path / "qrels").write_text(make_qrels(topics[:30], 8, 1))
    runs = []
    for k in range(3):
        path = tmp_path / f"r{k}.run.gz"
        path.write_bytes(gzip.compress(make_run(topics, 25, f"sys{k}", k).encode()))
        runs.append(path)
    return tmp_path / "qrels", runs


MEASURES = ["nDCG@10", "AP", "ERR@20"]


def test_values_are_those_of_the_whole_run(campaign, monkeypatch):
    qrels, runs = campaign
    whole = rk.io.evaluate_runs_long(qrels, runs, MEASURES, n_jobs=1)
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 3000)  # a piece per topic or two
    assert len(list(run_pieces(runs[0], 3000))) >= 8
    pieces = rk.io.evaluate_runs_long(qrels, runs, MEASURES, n_jobs=1)
    assert pieces.equals(whole)


def test_a_topic_resuming_after_others_gives_the_values_of_one_piece(tmp_path, monkeypatch):
    # trec_eval accepts a topic's lines in any order, whatever the file's size
    run = make_run(["1", "2"], 30, "x", 0) + make_run(["1", "2"], 30, "x", 5).replace(" Q0 d", " Q0 late")
    judged = [line.split() for line in run.splitlines()[::3]]
    (tmp_path / "qrels").write_text("".join(f"{f[0]} 0 {f[2]} {i % 3}\n" for i, f in enumerate(judged)))
    (tmp_path / "a.run").write_text(run)
    whole = rk.io.evaluate_runs_long(tmp_path / "qrels", [tmp_path / "a.run"], MEASURES, n_jobs=1)
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 500)
    assert len(list(run_pieces(tmp_path / "a.run", 500))) >= 4
    pieces = rk.io.evaluate_runs_long(tmp_path / "qrels", [tmp_path / "a.run"], MEASURES, n_jobs=1)
    assert pieces.equals(whole)
    assert whole["score"].nunique() > 2


def test_a_document_repeated_in_two_pieces_names_both_lines(tmp_path, monkeypatch):
    run = make_run(["1", "2"], 30, "x", 0).splitlines()
    run.append(run[3].replace(" 4 ", " 99 "))  # topic 1 again, a document of line 4
    (tmp_path / "qrels").write_text("1 0 d1_0 1\n2 0 d1_0 1\n")
    (tmp_path / "a.run").write_text("\n".join(run) + "\n")
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 500)
    with pytest.raises(
        InputFormatError, match=r"a\.run:61: document '\S+' appears twice in topic '1' \(first on line 4\)"
    ):
        rk.evaluate_runs(tmp_path / "qrels", [tmp_path / "a.run"], n_jobs=1)


def test_problems_in_later_pieces_name_the_file_line(tmp_path, monkeypatch):
    text = make_run(["1", "2", "3"], 20, "x", 0).splitlines()
    text[45] = text[45].replace(" x", " x extra")
    text[50] = text[50].replace("3 Q0", "3 Q0 \xe9", 1).encode("latin-1").decode("latin-1")
    (tmp_path / "qrels").write_text("1 0 d1_0 1\n2 0 d1_0 1\n3 0 d1_0 1\n")
    path = tmp_path / "a.run"
    path.write_bytes("\n".join(text[:50]).encode() + b"\n" + text[50].encode("latin-1") + b"\n")
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 400)
    with pytest.raises(InputFormatError, match=r"a\.run:51: is not UTF-8"):
        rk.evaluate_runs(tmp_path / "qrels", [path], n_jobs=1)
    path.write_text("\n".join(text[:50]) + "\n")
    with pytest.raises(InputFormatError, match=r"a\.run:46: expected 6"):
        rk.evaluate_runs(tmp_path / "qrels", [path], n_jobs=1)


def test_dask_client_gives_the_local_values(campaign, monkeypatch):
    distributed = pytest.importorskip("distributed")
    qrels, runs = campaign
    whole = rk.io.evaluate_runs_long(qrels, runs, MEASURES, n_jobs=1)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            assert rk.io.evaluate_runs_long(qrels, runs, MEASURES, client=client).equals(whole)
            monkeypatch.setattr(piece_reader, "PIECE_BYTES", 3000)  # every run split into tasks
            assert rk.io.evaluate_runs_long(qrels, runs, MEASURES, client=client).equals(whole)
            matrix = rk.evaluate_runs(qrels, runs, "AP", client=client)
            assert matrix.equals(rk.evaluate_runs(qrels, runs, "AP", n_jobs=1))

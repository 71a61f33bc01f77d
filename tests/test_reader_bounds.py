"""Readers bounded by the data, not by hostile bytes: error budget, input size limit, special files,
byte-order marks inside the text, pipes read once, and large runs whose topics are not contiguous.

Hostile files here are small (a few MB at most); benchmarks/bench_hostile_inputs.py measures the
25 MB files and the gzip bomb against valid runs of the same size.
"""

from __future__ import annotations

import codecs
import gzip
import os
import resource
import subprocess
import sys
import threading
import zlib

import pytest

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.evaluation import run_pieces as piece_reader
from riskeval.io import decoding
from riskeval.io.baseline_map import read_baseline_map
from riskeval.io.letor import read_query_file
from riskeval.io.problems import MAX_PROBLEMS
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from riskeval.io.topic_texts import read_topic_texts

RUN = "301 Q0 d1 1 2.5 x\n301 Q0 d2 2 1.5 x\n302 Q0 d1 1 0.5 x\n"
QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n"


# --- error budget ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "read, line",
    [
        (read_run, "x\n"),
        (read_qrels, "x\n"),
        (read_query_file, "x\n"),
        (read_baseline_map, "a b c\n"),
        (read_topic_texts, "x\n"),
    ],
)
def test_problems_past_the_budget_are_counted_not_kept(tmp_path, read, line):
    path = tmp_path / "bad"
    path.write_text(line * 5000)
    with pytest.raises(InputFormatError) as info:
        read(path)
    assert len(info.value.problems) == MAX_PROBLEMS
    assert info.value.omitted == 5000 - MAX_PROBLEMS
    assert str(info.value).endswith(f"... and {5000 - 20} more problem(s)")
    assert info.value.problems[0][0] == f"{path}:1"


def test_a_score_table_lists_the_budget_of_problems(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("system,topic,score\nbm25,301,0.5\n" + "\n\n x \n" * 3000 + "bm25,302,x\n")
    with pytest.raises(InputFormatError) as info:
        rk.io.read_scores(path)
    assert len(info.value.problems) == MAX_PROBLEMS
    assert info.value.omitted == 3000 - MAX_PROBLEMS + 1  # the malformed lines, then the bad score
    assert info.value.problems[0] == (f"{path}:5", "expected 3 fields as in the header, got 1.")


def test_the_budget_is_a_reader_option(tmp_path):
    path = tmp_path / "bad.run"
    path.write_text(RUN + "x\n" * 30 + "301 Q0 d1 3 1 x\n")
    with pytest.raises(InputFormatError) as info:
        read_run(path, max_problems=5)
    assert [loc for loc, _ in info.value.problems] == [f"{path}:{n}" for n in range(4, 9)]
    assert info.value.omitted == 26  # 25 lines and the repeated document
    with pytest.raises(InputFormatError) as info:
        read_qrels(path, max_problems=2)
    assert len(info.value.problems) == 2
    with pytest.raises(RiskevalError, match="max_problems must be an integer >= 1; got 0"):
        read_run(path, max_problems=0)


def test_repeated_documents_in_several_windows_name_their_first_line(tmp_path, monkeypatch):
    from riskeval.io import runs

    monkeypatch.setattr(runs, "_WINDOW_BYTES", 64)  # a window every few lines
    lines = [f"301 Q0 d{i} {i} {1 / (i + 1)} x" for i in range(40)] + ["301 Q0 d3 41 0.5 x"]
    path = tmp_path / "a.run"
    path.write_text("\n".join(lines) + "\n\n\n")
    with pytest.raises(InputFormatError, match=r"a\.run:41: document 'd3' appears twice in topic '301' "):
        read_run(path)
    with pytest.raises(InputFormatError, match=r"\(first on line 4\)"):
        read_run(path)
    del lines[-1]
    path.write_text("\n\n" + "\n".join(lines) + "\n")
    assert read_run(path).scores == read_run(path, topics=["301"]).scores
    assert len(read_run(path).scores["301"]) == 40


def test_blank_and_malformed_lines_cost_no_memory_per_line(tmp_path):
    # 4 MB of blank lines, then of one-byte lines: the peak stays that of reading a valid run
    code = (
        "import resource, sys\n"
        "from riskeval.io.runs import read_run\n"
        "from riskeval.errors import InputFormatError\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "try:\n    read_run(sys.argv[1])\nexcept InputFormatError:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
    )
    (tmp_path / "blank").write_bytes(b"\n" * 4_000_000)
    (tmp_path / "bad").write_bytes(b"x\n" * 2_000_000)
    for name in ("blank", "bad"):
        out = subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / name)], capture_output=True, text=True, check=True
        )
        assert int(out.stdout) < 80_000, name  # KB: before the windows, about 700 MB


# --- size limit, special files, NUL bytes ----------------------------------------------------------


def test_a_gzip_bomb_is_refused_at_the_input_size_limit(tmp_path, monkeypatch):
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, str(2**20))
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # expands 229 times
    bomb = packer.compress(b"\n" * 2**26) + packer.flush()
    (tmp_path / "bomb.gz").write_bytes(bomb)  # refused from the size it declares
    (tmp_path / "bomb-2.gz").write_bytes(bomb + gzip.compress(b"\n"))  # declares 1 byte
    (tmp_path / "qrels").write_text(QRELS)
    limit = r" more than 1,048,576 bytes, the input size limit: set the environment variable RISKEVAL_MAX_INPUT_BYTES"
    for name, message in (
        ("bomb.gz", r"bomb\.gz: declares \(gzip\) 67,108,864 bytes of text," + limit),
        ("bomb-2.gz", r"bomb-2\.gz: decompresses \(gzip\) to" + limit),
    ):
        for read in (read_run, read_qrels):
            with pytest.raises(InputFormatError, match=message):
                read(tmp_path / name)
        with pytest.raises(InputFormatError, match=message):
            rk.evaluate_runs(tmp_path / "qrels", [tmp_path / name], n_jobs=1)
    with open(tmp_path / "bomb.gz", "rb") as handle:
        assert decoding.declared_size(handle) == 2**26
    (tmp_path / "big.run").write_text("".join(f"301 Q0 d{i} {i} 1.0 x\n" for i in range(60_000)))
    with pytest.raises(InputFormatError, match=r"big\.run: holds more than 1,048,576 bytes"):
        read_run(tmp_path / "big.run")
    with pytest.raises(InputFormatError, match=r"big\.run: holds more than"):
        rk.evaluate_runs(tmp_path / "qrels", [tmp_path / "big.run"], n_jobs=1)
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, "2 GiB")
    with pytest.raises(RiskevalError, match="RISKEVAL_MAX_INPUT_BYTES must be a whole number of bytes >= 1"):
        read_run(tmp_path / "big.run")
    monkeypatch.delenv(decoding.LIMIT_VARIABLE)
    assert decoding.input_limit() == decoding.MAX_INPUT_BYTES == 2**30
    assert len(read_run(tmp_path / "big.run").scores["301"]) == 60_000


def test_a_large_run_is_streamed_within_the_limit(tmp_path, monkeypatch):
    # a run read in pieces stops at the limit too
    (tmp_path / "qrels").write_text(QRELS)
    text = "".join(f"{t} Q0 d{i} {i} 1.0 x\n" for t in range(300, 400) for i in range(100))
    (tmp_path / "a.run.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "b.run.gz").write_bytes(gzip.compress(text.encode()) + gzip.compress(b"\n"))
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 4000)
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, str(len(text) // 2))
    for name in ("a.run.gz", "b.run.gz"):
        with pytest.raises(InputFormatError, match=rf"{name}: (declares|decompresses) \(gzip\) .*more than"):
            rk.evaluate_runs(tmp_path / "qrels", [tmp_path / name], n_jobs=1)
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, str(len(text)))
    rk.evaluate_runs(tmp_path / "qrels", [tmp_path / "a.run.gz"], n_jobs=1)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_character_devices_are_refused_before_reading(device, tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    message = f"{device}: is a character device .*not a file: give a regular file or a pipe"
    for read in (read_run, read_qrels, read_topic_texts):
        with pytest.raises(InputFormatError, match=message):
            read(device)
    with pytest.raises(InputFormatError, match=message):
        rk.evaluate_runs(tmp_path / "qrels", [device], n_jobs=1)


def test_a_truncated_gzip_file_is_not_taken_at_its_word(tmp_path):
    # the last bytes of a truncated file are not a size: decompressing says what is wrong
    (tmp_path / "cut.gz").write_bytes(gzip.compress(RUN.encode() * 1000)[:40])
    with pytest.raises(InputFormatError, match=r"cut\.gz: is a truncated or corrupt gzip file"):
        read_run(tmp_path / "cut.gz")


def test_a_nul_byte_stops_a_compressed_file_at_its_line(tmp_path):
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = packer.compress(RUN.encode() + b"\x00" * 2**27) + packer.flush()  # 128 MiB of NUL
    (tmp_path / "nul.gz").write_bytes(data)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputFormatError, match=r"nul\.gz:4: holds a NUL byte: this is not a text file"):
        read_run(tmp_path / "nul.gz")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64_000  # KB


# --- byte-order marks inside the text --------------------------------------------------------------


@pytest.mark.parametrize("read", [read_run, read_qrels])
def test_a_byte_order_mark_inside_concatenated_files_is_an_error(tmp_path, read):
    text = RUN if read is read_run else QRELS
    (tmp_path / "cat").write_bytes(codecs.BOM_UTF8 + text.encode() + codecs.BOM_UTF8 + text.encode())
    with pytest.raises(InputFormatError, match=r"cat:4: holds a byte-order mark \(U\+FEFF\) inside the text"):
        read(tmp_path / "cat")
    (tmp_path / "one").write_bytes(codecs.BOM_UTF8 + text.encode())  # at the start: dropped
    read(tmp_path / "one")


def test_a_byte_order_mark_in_a_later_piece_names_the_file_line(tmp_path, monkeypatch):
    (tmp_path / "qrels").write_text(QRELS)
    text = "".join(f"{t} Q0 d{i} {i} 1.0 x\n" for t in range(300, 330) for i in range(20))
    lines = text.encode().splitlines(keepends=True)
    (tmp_path / "a.run").write_bytes(b"".join(lines[:500]) + codecs.BOM_UTF8 + b"".join(lines[500:]))
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 2000)
    with pytest.raises(InputFormatError, match=r"a\.run:501: holds a byte-order mark"):
        rk.evaluate_runs(tmp_path / "qrels", [tmp_path / "a.run"], n_jobs=1)


# --- pipes -----------------------------------------------------------------------------------------


def test_a_pipe_is_read_once(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    expected = rk.evaluate_runs(tmp_path / "qrels", [tmp_path / "a.run"], n_jobs=1)
    read, write = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write, RUN.encode()), os.close(write)))
    writer.start()
    try:
        matrix = rk.evaluate_runs(tmp_path / "qrels", [f"/dev/fd/{read}"], n_jobs=1)
    finally:
        writer.join()
        os.close(read)
    assert matrix.to_numpy().tolist() == expected.to_numpy().tolist()


def test_a_fifo_without_a_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "qrels").write_text(QRELS)
    message = r"fifo: is a pipe \(FIFO\) with nothing to read: no program writes to it"
    with pytest.raises(InputFormatError, match=message):
        read_run(fifo)
    with pytest.raises(InputFormatError, match=message):
        rk.evaluate_runs(tmp_path / "qrels", [fifo], n_jobs=1)


def test_a_fifo_whose_writer_started_first_is_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as handle:  # waits for a reader, as a shell's "> fifo" does
            handle.write(QRELS)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(100):  # until the writer holds the FIFO open
            try:
                qrels = read_qrels(fifo)
                break
            except InputFormatError:
                threading.Event().wait(0.05)
        assert len(qrels) == 3
    finally:
        writer.join(10)

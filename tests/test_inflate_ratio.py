"""The inflate ratio guard: a compressed file whose text outgrows its compressed bytes read so far
more than ``RISKEVAL_MAX_INFLATE_RATIO`` times (100 by default) is refused once its text passes
``INFLATE_FLOOR`` bytes, whatever size it declares; real campaign files are far below the ratio.

benchmarks/bench_hostile_inputs.py measures the time of refusing a 9 MB bomb against reading a valid
9 MB gzip run.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import re
import zlib

import pytest
from cli_runner import run_cli
from shared_data import shared_data

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError, RiskevalWarning
from riskeval.evaluation import run_pieces as piece_reader
from riskeval.io import decoding
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run

QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n"
TEXT = 2**26  # bytes of newlines in the bomb: four times the floor
REFUSED = re.compile(
    r".*/bomb-2\.gz: inflates (\d+) times: its first ([\d,]+) bytes decompress \(gzip\) to ([\d,]+) bytes, "
    r"more than 100 times as many, the inflate ratio limit \(a decompression bomb\): set the "
    r"environment variable RISKEVAL_MAX_INFLATE_RATIO to a larger ratio to read it\.$"
)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    """64 MiB of newlines gzipped (65 KB), then a second member of one byte: the file declares a
    size of 1 byte, so only the ratio refuses it before its end."""
    folder = tmp_path_factory.mktemp("bomb")
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    data = packer.compress(b"\n" * TEXT) + packer.flush() + gzip.compress(b"\n")
    (folder / "bomb-2.gz").write_bytes(data)
    (folder / "qrels").write_text(QRELS)
    with open(folder / "bomb-2.gz", "rb") as handle:
        assert decoding.declared_size(handle) == 1
    return folder


def refused_after(error: pytest.ExceptionInfo, size: int) -> None:
    """The compressed and text bytes a refusal names, checked to be past the floor (one read of
    text past it, a quarter of the file's text), within the file, and more than 100 to 1.  How much
    of the file is read by then depends on the gzip reader's read-ahead (8 KiB in the standard
    library of Python 3.11, 128 KiB in python-isal's): the bound that matters is the text's."""
    found = REFUSED.fullmatch(str(error.value))
    assert found, str(error.value)
    ratio, compressed, text = (int(group.replace(",", "")) for group in found.groups())
    assert decoding.INFLATE_FLOOR < text <= decoding.INFLATE_FLOOR + 2**20 < TEXT  # one read past it
    assert compressed <= size
    assert text > 100 * compressed and ratio == round(text / compressed)


def test_a_two_member_bomb_is_refused_past_the_floor_not_at_the_input_limit(bomb, monkeypatch):
    size = (bomb / "bomb-2.gz").stat().st_size
    for read in (read_run, read_qrels, decoding.read_bytes):
        with pytest.raises(InputFormatError) as error:
            read(bomb / "bomb-2.gz")
        refused_after(error, size)
    with pytest.raises(InputFormatError) as error:
        rk.evaluate_runs(bomb / "qrels", [bomb / "bomb-2.gz"], n_jobs=1)
    refused_after(error, size)
    # read as a stream, in pieces
    monkeypatch.setattr(piece_reader, "PIECE_BYTES", 2**16)
    with pytest.raises(InputFormatError) as error:
        rk.evaluate_runs(bomb / "qrels", [bomb / "bomb-2.gz"], n_jobs=1)
    refused_after(error, size)


def test_the_decompressed_bytes_are_counted_as_they_are_read(bomb):
    with open(bomb / "bomb-2.gz", "rb") as raw:
        stream = decoding.open_compressed(raw, "gzip", "bomb-2.gz")
        given = 0
        with pytest.raises(InputFormatError, match="inflates"):
            while chunk := stream.read(2**20):
                given += len(chunk)
        assert given == decoding.INFLATE_FLOOR  # the read past it is refused


def test_the_setting_raises_the_ratio(bomb, monkeypatch):
    monkeypatch.setenv(decoding.RATIO_VARIABLE, "1100")  # above deflate's most, 1032
    assert decoding.inflate_ratio() == 1100
    assert decoding.read_bytes(bomb / "bomb-2.gz") == b"\n" * (TEXT + 1)
    monkeypatch.setenv(decoding.RATIO_VARIABLE, " 500 ")
    with pytest.raises(InputFormatError, match=r"inflates \d+ times: .* more than 500 times as many"):
        decoding.read_bytes(bomb / "bomb-2.gz")
    monkeypatch.delenv(decoding.RATIO_VARIABLE)
    assert decoding.inflate_ratio() == decoding.MAX_INFLATE_RATIO == 100


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "1e3", "100x", "²", "ten"])
def test_bad_values_of_the_setting_are_refused(value, bomb, monkeypatch):
    monkeypatch.setenv(decoding.RATIO_VARIABLE, value)
    message = (
        "The environment variable RISKEVAL_MAX_INFLATE_RATIO must be a whole number of bytes of text per "
        f"compressed byte >= 1 (e.g. 1000; the default is 100); got '{value}'."
    )
    with pytest.raises(RiskevalError) as error:
        read_run(bomb / "bomb-2.gz")
    assert str(error.value) == message


def test_a_bad_input_limit_is_refused_too(monkeypatch, tmp_path):
    (tmp_path / "a.run").write_text("301 Q0 d1 1 1.0 x\n")
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, "²")  # a digit to str.isdigit, not to int
    with pytest.raises(
        RiskevalError, match=r"RISKEVAL_MAX_INPUT_BYTES must be a whole number of bytes >= 1 .*got '²'"
    ):
        read_run(tmp_path / "a.run")


def test_the_command_line_exits_2_with_one_line(bomb, capsys, monkeypatch):
    monkeypatch.chdir(bomb)
    code, out, err = run_cli(["evaluate", "--qrels", "qrels", "bomb-2.gz"], capsys)
    assert code == 2 and not out
    assert err.startswith("riskeval: error: bomb-2.gz: inflates ") and err.count("\n") == 1, err
    assert "RISKEVAL_MAX_INFLATE_RATIO" in err and "Traceback" not in err
    monkeypatch.setenv(decoding.RATIO_VARIABLE, "many")
    code, out, err = run_cli(["evaluate", "--qrels", "qrels", "bomb-2.gz"], capsys)
    assert code == 2 and err.count("\n") == 1 and "RISKEVAL_MAX_INFLATE_RATIO must be" in err, err


@pytest.mark.parametrize(
    "kind, compress", [("bzip2", lambda data: bz2.compress(data, 9)), ("xz", lzma.compress)]
)
def test_bzip2_and_xz_bombs_are_refused_too(kind, compress, tmp_path, monkeypatch):
    monkeypatch.setattr(decoding, "INFLATE_FLOOR", 2**20)
    (tmp_path / "bomb").write_bytes(compress(b"\n" * 2**23))
    with pytest.raises(InputFormatError, match=rf"bomb: inflates [\d,]+ times: .* decompress \({kind}\) to"):
        read_run(tmp_path / "bomb")


def test_a_corrupt_stream_is_still_called_corrupt(tmp_path):
    data = gzip.compress(b"301 Q0 d1 1 1.0 x\n" * 1000)
    (tmp_path / "cut.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFormatError, match=r"cut\.gz: is a truncated or corrupt gzip file"):
        read_run(tmp_path / "cut.gz")


def test_the_input_limit_is_not_called_corruption(bomb, monkeypatch):
    monkeypatch.setenv(decoding.LIMIT_VARIABLE, str(2**20))
    with pytest.raises(InputFormatError) as error:
        read_run(bomb / "bomb-2.gz")
    assert str(error.value) == (
        f"{bomb / 'bomb-2.gz'}: decompresses (gzip) to more than 1,048,576 bytes, the input size "
        "limit: set the environment variable RISKEVAL_MAX_INPUT_BYTES to read larger files."
    )


def test_every_dl_2019_run_and_the_qrels_pass_the_ratio_from_their_first_byte(monkeypatch, tmp_path):
    # with no floor, the ratio is checked at every read; the largest run inflates 4 times or so
    monkeypatch.setattr(decoding, "INFLATE_FLOOR", 0)
    root = shared_data("trec-dl-2019-passage")
    runs = sorted((root / "runs").glob("input.*.gz"))
    assert len(runs) == 37
    for run in runs:
        assert decoding.read_bytes(run)
    qrels = next(root.glob("*qrels*"))
    for level in (1, 9):
        (tmp_path / "qrels.gz").write_bytes(gzip.compress(qrels.read_bytes(), level))
        assert decoding.read_bytes(tmp_path / "qrels.gz") == qrels.read_bytes()
        (tmp_path / "qrels.xz").write_bytes(lzma.compress(qrels.read_bytes()))
        assert decoding.read_bytes(tmp_path / "qrels.xz") == qrels.read_bytes()
    monkeypatch.undo()
    with pytest.warns(RiskevalWarning, match="no judgments"):  # 157 of the run's topics are not judged
        scores = rk.evaluate_runs(tmp_path / "qrels.gz", runs[:1], "nDCG@10", n_jobs=1)
    assert scores.shape == (1, 43)

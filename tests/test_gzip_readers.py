"""gzip files read by python-isal's ``igzip`` where it is installed, by the standard library
elsewhere: both give the same bytes and refuse the same damaged files."""

from __future__ import annotations

import gzip
import io
import platform
import zlib

import pytest

from riskeval.errors import InputFormatError
from riskeval.io import decoding
from riskeval.io.decoding import gzip_reader, read_bytes

LINES = b"".join(
    b"%d Q0 doc%d %d %r run\n" % (t, d, d + 1, 1.0 / (d + 1)) for t in range(40) for d in range(50)
)
GOOD = gzip.compress(LINES, mtime=0)

#: Machines where riskeval depends on python-isal (pyproject.toml's markers).
ISAL_MACHINES = ("x86_64", "AMD64", "aarch64", "arm64")


@pytest.fixture(params=["installed", "standard library"])
def reader(request, monkeypatch):
    """Each test once with the reader riskeval picked and once with the standard library's."""
    if request.param == "standard library":
        monkeypatch.setattr(decoding, "gzip_reader", lambda: (gzip.GzipFile, zlib.error))
        assert type(decoding.OPEN_COMPRESSED["gzip"](io.BytesIO(GOOD))) is gzip.GzipFile
    return request.param


def test_isal_reads_gzip_where_it_is_a_dependency():
    cls, error = gzip_reader()
    if platform.machine() in ISAL_MACHINES:
        assert cls.__module__ == "isal.igzip"
        assert error.__name__ == "IsalError"
    else:  # pragma: no cover - machines without python-isal's wheels
        assert (cls, error) == (gzip.GzipFile, zlib.error)


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (GOOD, LINES),
        (GOOD + GOOD, LINES + LINES),  # two members, as `cat a.gz b.gz` makes
        (gzip.compress(b"", mtime=0) + GOOD, LINES),  # an empty member first
        (GOOD + bytes(64), LINES),  # zero padding after the last member, as gzip itself accepts
        (
            gzip.compress(LINES, compresslevel=1) + gzip.compress(LINES[:999], compresslevel=9),
            LINES + LINES[:999],
        ),
    ],
)
def test_both_readers_give_the_same_bytes(data, text, reader, tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(data)
    assert read_bytes(path) == text


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("truncated", GOOD[: len(GOOD) // 2]),
        ("header only", GOOD[:10]),
        ("corrupt deflate data", GOOD[:20] + bytes(30) + GOOD[50:]),
        ("wrong CRC", GOOD[:-8] + b"\0\0\0\0" + GOOD[-4:]),
        ("wrong length", GOOD[:-4] + b"\0\0\0\1"),
        ("garbage after the member", GOOD + b"garbage!"),
    ],
)
def test_both_readers_refuse_damaged_files(name, data, reader, tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(data)
    with pytest.raises(InputFormatError, match=r"run\.gz: is a truncated or corrupt gzip file \(.+\)\.$"):
        read_bytes(path)

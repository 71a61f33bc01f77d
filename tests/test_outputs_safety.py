"""What the command line writes is safe: ``-o`` never replaces a special file, JSON never fails on
non-finite values, CSV reads back unchanged, labels never drive the terminal, and a full standard
output is said as such."""

from __future__ import annotations

import errno
import io
import json
import math
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as call

from riskeval.cli._output import emit
from riskeval.io.table_export import OUTPUT_FORMATS as FORMATS
from riskeval.io.table_export import json_records
from riskeval.io.terminal import escape_controls

SRC = str(Path(__file__).resolve().parents[1] / "src")

# "top" never loses against the mean of the systems: its win/loss ratio is infinite.
NEVER_LOSES = "system,topic,score\n" + "".join(
    f"top,{t},1.0\nmid,{t},0.{t}\nlow,{t},0.0{t}\n" for t in range(1, 6)
)


def scores(names: list[str], topics: int = 6) -> str:
    """A long score table; names quoted, so that one may hold a line break."""
    rng = np.random.default_rng(3)
    rows = [f'"{s}",{t},{rng.random():.3f}' for s in names for t in range(1, topics + 1)]
    return "system,topic,score\n" + "\n".join(rows) + "\n"


def strict_json(text: str):
    """JSON as the standard has it: NaN and Infinity are not numbers."""

    def refuse(name: str):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- -o: regular files and new paths only ---------------------------------------------------


@pytest.fixture
def scores_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(scores(["a", "b", "c"]))
    return tmp_path / "s.csv"


def test_report_refuses_a_fifo(scores_file, tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = call(["report", scores_file, "-o", fifo], capsys)
    assert code == 2, err
    assert err.startswith(f"riskeval: error: cannot write {fifo}: it is a FIFO (named pipe).")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert leftovers(tmp_path) == []


def test_report_refuses_a_symlink_and_keeps_its_target(scores_file, tmp_path, capsys):
    (tmp_path / "real.html").write_text("kept")
    (tmp_path / "link.html").symlink_to("real.html")
    code, out, err = call(["report", scores_file, "-o", "link.html"], capsys)
    assert code == 2, err
    assert "cannot write link.html: it is a symbolic link (to real.html)" in err
    assert (tmp_path / "link.html").is_symlink()
    assert (tmp_path / "real.html").read_text() == "kept"
    assert leftovers(tmp_path) == []


def test_report_refuses_a_directory(scores_file, tmp_path, capsys):
    (tmp_path / "folder").mkdir()
    code, out, err = call(["report", scores_file, "-o", "folder"], capsys)
    assert code == 2
    assert "'folder' is a directory" in err
    assert (tmp_path / "folder").is_dir()


@pytest.mark.slow
@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_report_to_standard_output_is_a_stream(scores_file, tmp_path, capsys, target):
    code, out, err = call(["report", scores_file, "--n-risky", "0", "-o", target], capsys)
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>")
    assert not (tmp_path / "-").exists()
    assert leftovers(tmp_path) == []


# --- JSON: NaN and infinity as null ----------------------------------------------------------


def test_json_writes_nan_and_infinity_as_null():
    frame = pd.DataFrame(
        {
            "system": ["a", "b", None, "d"],
            "ratio": [np.inf, -np.inf, np.nan, 2.5],
            "mixed": pd.Series([np.float64(np.inf), pd.NA, "x", 1], dtype=object),
            "count": np.array([1, 2, 3, 4], dtype=np.int64),
            "rank": pd.array([1, None, 3, 4], dtype="Int64"),
        }
    )
    out = io.StringIO()
    emit(frame, "json", out=out)
    rows = strict_json(out.getvalue())
    assert [r["ratio"] for r in rows] == [None, None, None, 2.5]
    assert [r["mixed"] for r in rows] == [None, None, "x", 1]
    assert [r["system"] for r in rows] == ["a", "b", None, "d"]
    assert [r["count"] for r in rows] == [1, 2, 3, 4]
    assert [r["rank"] for r in rows] == [1, None, 3, 4]
    assert json_records(frame.iloc[:0]) == []


def test_risk_json_when_a_system_never_loses(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(NEVER_LOSES)
    code, out, err = call("risk s.csv --alpha 1 --format json".split(), capsys)
    assert code == 0, err
    rows = {r["system"]: r for r in strict_json(out)}
    assert rows["top"]["losses"] == 0 and rows["top"]["win_loss"] is None
    code, table, err = call("risk s.csv --alpha 1 --format csv".split(), capsys)
    assert "inf" in table  # the CSV keeps the value itself


@pytest.mark.parametrize("command", ["risk", "bias-study", "risk-ranks", "risk-reward", "chisq"])
def test_every_json_table_parses_strictly(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(NEVER_LOSES)
    code, out, err = call([command, "s.csv", "--format", "json"], capsys)
    assert code == 0, err
    assert isinstance(strict_json(out), list)


# --- CSV: read back unchanged; the formula guard only for spreadsheets -----------------------

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 0\n"
TAGS = ["-runX", "=1", "+a", "@b"]


def test_evaluate_csv_reads_back_into_risk_unchanged(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    for i, tag in enumerate(TAGS):
        (tmp_path / f"r{i}.run").write_text(
            f"1 Q0 d1 1 {2 + i} {tag}\n1 Q0 d2 2 1.5 {tag}\n2 Q0 d4 1 {i} {tag}\n2 Q0 d3 2 0.5 {tag}\n"
        )
    runs = [f"r{i}.run" for i in range(len(TAGS))]
    code, out, err = call(["evaluate", "--qrels", "q.txt", *runs, "--per-topic", "--format", "csv"], capsys)
    assert code == 0, err
    assert sorted(set(pd.read_csv(io.StringIO(out))["system"])) == sorted(TAGS)
    (tmp_path / "scores.csv").write_text(out)
    code, back, err = call("risk scores.csv --alpha 1 --format csv".split(), capsys)
    assert code == 0, err
    assert sorted(pd.read_csv(io.StringIO(back))["system"]) == sorted(TAGS)
    code, sheet, err = call("risk scores.csv --alpha 1 --format csv-spreadsheet".split(), capsys)
    assert sorted(pd.read_csv(io.StringIO(sheet))["system"]) == sorted("'" + t for t in TAGS)


def test_formats_are_the_documented_ones():
    assert FORMATS == ("table", "latex", "markdown", "csv", "csv-spreadsheet", "json")


# --- terminal control characters --------------------------------------------------------------

HOSTILE = ["\x1b[31mred", "bell\x07", "back\rover", "\u202eevil", "\x9bcsi"]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("a\x07b", "a\\x07b"),
        ("a\rb\nc\td", "a\\rb\\nc\\td"),
        ("\x9b2J", "\\x9b2J"),
        ("\x7f", "\\x7f"),
        ("\u202eabc\u2066", "\\u202eabc\\u2066"),
        ("nDCG@10 été 日本 ✓ \\x", "nDCG@10 été 日本 ✓ \\x"),
    ],
)
def test_escape_controls(text, shown):
    assert escape_controls(text) == shown


def test_escape_controls_keeps_the_lines_of_a_message():
    assert escape_controls("one\n\ttwo\x1b\r", keep_lines=True) == "one\n\ttwo\\x1b\\r"


def raw_controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 32 and c not in "\n") or 0x7F <= ord(c) <= 0x9F or c == "\u202e"]


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_human_tables_show_control_characters_escaped(tmp_path, monkeypatch, capsys, fmt):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(scores(HOSTILE), encoding="utf-8")
    code, out, err = call(["risk", "s.csv", "--alpha", "1", "--format", fmt], capsys)
    assert code == 0, err
    assert raw_controls(out + err) == []
    assert "x1b" in out and "x07" in out and "u202eevil" in out  # shown, as escapes
    if fmt == "table":
        assert "\\x1b[31mred" in out and "bell\\x07" in out
        assert "back\\rover" in out or "back\\nover" in out  # the reader may read \r as a line break


def test_csv_and_json_keep_the_exact_labels(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(scores(HOSTILE[:2] + ["plain"]), encoding="utf-8")
    code, out, err = call("risk s.csv --alpha 1 --format json".split(), capsys)
    assert {r["system"] for r in strict_json(out)} == {*HOSTILE[:2], "plain"}
    code, out, err = call("risk s.csv --alpha 1 --format csv".split(), capsys)
    assert set(pd.read_csv(io.StringIO(out))["system"]) == {*HOSTILE[:2], "plain"}


def test_errors_and_warnings_show_control_characters_escaped(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(scores(HOSTILE), encoding="utf-8")
    code, out, err = call(["risk", "s.csv", "--baseline", "\x1b]0;title\x07"], capsys)
    assert code == 2
    assert "\\x1b]0;title\\x07" in err and raw_controls(err) == []
    # a topic missing for one system: the warning names no raw control character either
    (tmp_path / "holes.csv").write_text(scores(HOSTILE).rsplit("\n", 2)[0] + "\n", encoding="utf-8")
    code, out, err = call(["risk", "holes.csv", "--missing", "zero", "--alpha", "1"], capsys)
    assert code == 0, err
    assert "warning" in err and raw_controls(out + err) == []


# --- a full standard output -------------------------------------------------------------------


class FullStream(io.StringIO):
    """Standard output on a full disk: writes are buffered, flushing fails."""

    def flush(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write(self, text):
        if len(text) > 1000:
            self.flush()
        return super().write(text)


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_a_full_standard_output_is_said_in_process(tmp_path, monkeypatch, capsys, fmt):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.csv").write_text(scores([f"s{i}" for i in range(40)]))
    monkeypatch.setattr(sys, "stdout", FullStream())
    code, out, err = call(["risk", "s.csv", "-b", "mean", "--format", fmt], capsys)
    assert code == 2
    assert err == "riskeval: error: cannot write to standard output: No space left on device.\n"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("fmt", ["table", "csv"])  # a small table, flushed at exit; a larger one
def test_standard_output_on_a_full_device(tmp_path, fmt):
    (tmp_path / "s.csv").write_text(scores([f"s{i}" for i in range(40)]))
    env = {**os.environ, "PYTHONPATH": SRC}
    args = [sys.executable, "-m", "riskeval", "risk", "s.csv", "-b", "mean", "--format", fmt]
    with open("/dev/full", "w") as full:
        done = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr == "riskeval: error: cannot write to standard output: No space left on device.\n"


def test_nan_ratio_is_null_not_a_number():
    frame = pd.DataFrame({"x": [math.nan, 1.0]})
    out = io.StringIO()
    emit(frame, "json", out=out)
    assert out.getvalue() == '[{"x": null}, {"x": 1.0}]\n'

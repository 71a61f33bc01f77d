"""The command line on hostile and broken inputs: exit 2, one message naming the file, no traceback.

One table of bad-input classes (each a set of files and a command line), and one of odd but valid
inputs that must give the same numbers as their plain twin (a byte-order mark, CR line breaks,
UTF-16...).
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import lzma
import sys
from pathlib import Path

import numpy as np
import processes
import pytest
from cli_runner import run_cli as call

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n2 0 d4 0\n3 0 d5 1\n"
RUN = "".join(
    f"{q} Q0 {d} {r} {s} {tag}\n"
    for tag, shift in (("bm25", 0.0), ("dph", 0.5))
    for q, d, r, s in (
        (1, "d1", 1, 2.0 - shift),
        (1, "d2", 2, 1.0 + shift),
        (2, "d4", 1, 3.0),
        (2, "d3", 2, 2.0),
        (3, "d5", 1, 1.0),
    )
)
RUN_A = "".join(line + "\n" for line in RUN.splitlines() if line.endswith("bm25"))
RUN_B = "".join(line + "\n" for line in RUN.splitlines() if line.endswith("dph"))


def scores_csv(names=("a", "b", "c", "d"), topics=7) -> str:
    rng = np.random.default_rng(0)
    rows = [f"{s},{t},{rng.random():.3f}" for s in names for t in range(1, topics + 1)]
    return "system,topic,score\n" + "\n".join(rows) + "\n"


SCORES = scores_csv()
VARIATIONS = "system,topic,variant,score\ns1,1,a,0.5\ns1,1,b,0.25\ns2,1,a,0.1\ns2,1,b,0.0\n"
TREC_EVAL = "map\tq1\t0.5\nmap\tq2\t0.25\nrunid\tall\tA\n"
MAPPING = "q1 1 a\nq2 1 b\n"


def gz(text: str) -> bytes:
    return gzip.compress(text.encode(), mtime=0)


def half(data: bytes) -> bytes:
    return data[: len(data) // 2]


def corrupt(data: bytes) -> bytes:
    damaged = bytearray(data)
    damaged[len(damaged) // 2] ^= 0xFF
    return bytes(damaged)


# name: (files {name: text or bytes}, command line with {file} placeholders, text the message must hold)
BAD_INPUTS = {
    "measure cutoff 0": ({"q.txt": QRELS, "a.run": RUN_A}, "evaluate --qrels q.txt -m nDCG@0 a.run", "nDCG@0"),
    "P@0 among others": ({"q.txt": QRELS, "a.run": RUN_A}, "evaluate --qrels q.txt -m AP -m P(rel=2)@0 a.run", "P(rel=2)@0"),
    "cutoff required": ({"q.txt": QRELS, "a.run": RUN_A}, "evaluate --qrels q.txt -m P a.run", "cutoff"),
    "score 1_0 in a run": ({"q.txt": QRELS, "a.run": RUN_A.replace("2.0", "1_0")}, "evaluate --qrels q.txt a.run", "a.run:1"),
    "grade 1_0 in qrels": ({"q.txt": QRELS.replace("1 0 d1 1", "1 0 d1 1_0"), "a.run": RUN_A}, "evaluate --qrels q.txt a.run", "q.txt:1"),
    "grade beyond int64": ({"q.txt": QRELS + "3 0 d9 99999999999999999999\n", "a.run": RUN_A}, "evaluate --qrels q.txt a.run", "q.txt:6"),
    "random bytes as a run": ({"q.txt": QRELS, "a.run": bytes(range(256)) * 3}, "evaluate --qrels q.txt a.run", "a.run"),
    "a CSV file as a run": ({"q.txt": QRELS, "a.run": SCORES}, "evaluate --qrels q.txt a.run", "a.run:1"),
    "malformed unjudged line": ({"q.txt": QRELS, "a.run": RUN_A + "99 Q0 d1 1\n"}, "evaluate --qrels q.txt a.run", "a.run:6"),
    "blank run": ({"q.txt": QRELS, "a.run": "\n \n"}, "evaluate --qrels q.txt --name x a.run", "a.run"),
    "truncated run.gz": ({"q.txt": QRELS, "a.run.gz": half(gz(RUN_A * 50))}, "evaluate --qrels q.txt a.run.gz", "a.run.gz"),
    "truncated csv.gz": ({"s.csv.gz": half(gz(SCORES))}, "risk s.csv.gz --measure nDCG@10", "s.csv.gz"),
    "truncated csv.bz2": ({"s.csv.bz2": half(bz2.compress(SCORES.encode()))}, "risk s.csv.bz2", "s.csv.bz2"),
    "truncated csv.xz": ({"s.csv.xz": half(lzma.compress(SCORES.encode()))}, "risk s.csv.xz", "s.csv.xz"),
    "corrupt csv.gz": ({"s.csv.gz": corrupt(gz(SCORES * 20))}, "risk s.csv.gz", "s.csv.gz"),
    "corrupt csv.xz": ({"s.csv.xz": corrupt(lzma.compress(SCORES.encode() * 20))}, "report s.csv.xz -o r.html", "s.csv.xz"),
    "latin-1 table": ({"s.csv": SCORES.replace("a,", "\xe9,").encode("latin-1")}, "risk s.csv", "s.csv:2"),
    "NUL in a table": ({"s.csv": SCORES.replace("b,1", "b\x00,1")}, "risk s.csv", "s.csv"),
    "latin-1 mapping": ({"m.txt": "q1 \xe9 a\n".encode("latin-1"), "a.eval": TREC_EVAL}, "mean-variance --mapping m.txt --measure map a.eval", "m.txt:1"),
    "latin-1 trec_eval": ({"m.txt": MAPPING, "a.eval": TREC_EVAL.replace("q2", "q\xe9").encode("latin-1")}, "mean-variance --mapping m.txt a.eval", "a.eval:2"),
    "trec_eval value 1_0": ({"m.txt": MAPPING, "a.eval": TREC_EVAL.replace("0.5", "1_0")}, "mean-variance --mapping m.txt --measure map a.eval", "a.eval:1"),
    "latin-1 weights": ({"v.csv": VARIATIONS, "w.txt": "1 \xe9\n".encode("latin-1")}, "mean-variance v.csv --weights w.txt", "w.txt:1"),
    "weight 1_0": ({"v.csv": VARIATIONS, "w.txt": "1 1_0\n"}, "mean-variance v.csv --weights w.txt", "w.txt:1"),
    "latin-1 CLEF queries": ({"clef/queries/clef2015.test_with_narratives.queries-EN.txt": "<top>\xe9</top>".encode("latin-1"), "clef/pertopic-evals/a.dat": TREC_EVAL}, "mean-variance --clef2015 clef", "queries-EN.txt:1"),
    "variation score on line 3": ({"v.csv": VARIATIONS.replace("0.25", "high")}, "mean-variance v.csv", "v.csv:3"),
    "variation table, UTF-16 junk": ({"v.csv": b"\xff\xfe\x00\xd8"}, "mean-variance v.csv", "v.csv"),
    "sweep of a billion values": ({"v.csv": VARIATIONS}, "mean-variance v.csv --sweep 0:1e9:1", "--sweep"),
    "sweep of infinity": ({"v.csv": VARIATIONS}, "mean-variance v.csv --sweep 0:1e308:1e-308", "--sweep"),
    "report over its input": ({"s.csv": SCORES}, "report s.csv -o s.csv", "s.csv"),
    "report over its qrels": ({"q.txt": QRELS, "a.run": RUN_A, "b.run": RUN_B}, "report --qrels q.txt a.run b.run -o q.txt", "q.txt"),
}  # fmt: skip


def make_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_exits_2_naming_the_file(case, tmp_path, capsys, monkeypatch):
    files, command, named = BAD_INPUTS[case]
    make_files(tmp_path, files)
    before = {name: (tmp_path / name).read_bytes() for name in files}
    monkeypatch.chdir(tmp_path)
    code, out, err = call(command.split(), capsys)
    assert code == 2, (case, out, err)
    assert err.startswith("riskeval: error: "), err
    assert "Traceback" not in err and "Aborted" not in err
    assert named in err, (case, err)
    assert "<object object" not in err
    assert {name: (tmp_path / name).read_bytes() for name in files} == before  # inputs untouched
    assert not [p for p in tmp_path.rglob("*.tmp")]


@pytest.mark.slow
def test_measure_cutoff_0_does_not_abort_the_interpreter(tmp_path):
    """pytrec_eval aborts the process (SIGABRT) on a cutoff of 0: it must never see one."""
    make_files(tmp_path, {"q.txt": QRELS, "a.run": RUN_A})
    for measure in ("nDCG@0", "P@0", "AP@0", "R@0", "Success@0", "P(rel=2)@0"):
        done = processes.run(
            [sys.executable, "-m", "riskeval", "evaluate", "--qrels", "q.txt", "-m", measure, "a.run"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, done.stderr
        assert f"measure {measure!r}: " in done.stderr and "'s cutoff must be a whole number" in done.stderr


# --- odd but valid inputs: the same numbers as the plain file ------------------------------------


def utf16(text: str) -> bytes:
    return text.encode("utf-16")


ODD_INPUTS = {
    "BOM in qrels and run": ({"q.txt": codecs.BOM_UTF8 + QRELS.encode(), "a.run": codecs.BOM_UTF8 + RUN_A.encode()}, "evaluate --qrels q.txt a.run --format csv"),
    "UTF-16 run and qrels": ({"q.txt": utf16(QRELS), "a.run": utf16(RUN_A)}, "evaluate --qrels q.txt a.run --format csv"),
    "CR line breaks in a run": ({"q.txt": QRELS, "a.run": RUN_A.replace("\n", "\r")}, "evaluate --qrels q.txt a.run --format csv"),
    "bzip2 run, no extension": ({"q.txt": QRELS, "a.run": bz2.compress(RUN_A.encode())}, "evaluate --qrels q.txt a.run --format csv"),
    "lone CR in a table": ({"s.csv": SCORES.replace("\n", "\r", 5)}, "risk s.csv --format csv"),
    "BOM and CRLF in a table": ({"s.csv": codecs.BOM_UTF8 + SCORES.replace("\n", "\r\n").encode()}, "risk s.csv --format csv"),
    "UTF-16 table": ({"s.csv": utf16(SCORES)}, "risk s.csv --format csv"),
    "BOM in a variation table": ({"v.csv": codecs.BOM_UTF8 + VARIATIONS.encode()}, "mean-variance v.csv --format csv"),
}  # fmt: skip

PLAIN = {
    "evaluate": ({"q.txt": QRELS, "a.run": RUN_A}, "evaluate --qrels q.txt a.run --format csv"),
    "risk": ({"s.csv": SCORES}, "risk s.csv --format csv"),
    "mean-variance": ({"v.csv": VARIATIONS}, "mean-variance v.csv --format csv"),
}


@pytest.mark.parametrize("case", list(ODD_INPUTS))
def test_odd_input_reads_as_its_plain_twin(case, tmp_path, capsys, monkeypatch):
    files, command = ODD_INPUTS[case]
    plain_files, plain_command = PLAIN[command.split()[0]]
    monkeypatch.chdir(tmp_path)
    make_files(tmp_path, plain_files)
    code, expected, err = call(plain_command.split(), capsys)
    assert code == 0, err
    make_files(tmp_path, files)
    code, out, err = call(command.split(), capsys)
    assert code == 0, (case, err)
    assert out == expected
    assert "\ufeff" not in out


def test_superscript_topic_ids_are_not_numbers(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_files(tmp_path, {"q.txt": QRELS + "¹ 0 d1 1\n", "a.run": RUN_A + "¹ Q0 d1 1 1.0 bm25\n"})
    code, out, err = call("evaluate --qrels q.txt a.run --format csv --per-topic".split(), capsys)
    assert code == 0, err
    assert [line.split(",")[1] for line in out.splitlines()[1:]] == ["1", "2", "3", "¹"]


def test_spreadsheet_formulas_are_neutralised_in_csv_for_spreadsheets(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    evil = ["=HYPERLINK(x)", "+1+1", "@SUM(1)", "-cmd"]
    make_files(tmp_path, {"s.csv": scores_csv(names=evil)})
    code, out, err = call("risk s.csv --alpha 1 --format csv-spreadsheet".split(), capsys)
    assert code == 0, err
    systems = [line.split(",")[0] for line in out.splitlines()[1:]]
    assert sorted(systems) == sorted("'" + name for name in evil)
    code, raw, err = call("risk s.csv --alpha 1 --format csv".split(), capsys)
    assert sorted(line.split(",")[0] for line in raw.splitlines()[1:]) == sorted(evil)
    assert ",-" in out or ",0." in out  # numbers are written as they are


@pytest.mark.slow
def test_dollar_signs_in_system_names_are_plain_text_in_the_report(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_files(tmp_path, {"s.csv": scores_csv(names=["$x^{$", "b$", "c", "$\\alpha$"])})
    code, out, err = call("report s.csv -o r.html".split(), capsys)
    assert code == 0, err
    assert "x^{" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize(("alpha", "code"), [("1e308", 2), ("1e10", 2), ("1e6", 0)])
def test_huge_alpha_is_refused_and_the_largest_computed(alpha, code, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_files(tmp_path, {"s.csv": SCORES})
    status, out, err = call(f"report s.csv --alpha {alpha} -o r.html".split(), capsys)
    assert status == code, err
    assert "Traceback" not in err
    if code == 2:
        assert "The 'alpha' parameter of riskeval report must be at most 1e+06." in err


def test_numpy_runtime_warnings_are_not_printed(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    same = "system,topic,score\n" + "".join(f"{s},{t},0.5\n" for s in "abc" for t in (1, 2, 3))
    make_files(tmp_path, {"s.csv": same})
    code, out, err = call("bias-study s.csv --format csv".split(), capsys)  # 0/0 in the PCA
    assert code == 0, err
    assert "RuntimeWarning" not in err and "invalid value" not in err and "Degrees of freedom" not in err

"""The registry of input formats (:mod:`riskeval.io.formats`): real files of every format are claimed
by one format only, by extension and by content; a file is read in the same format from Python and
from the command line; a format added with one entry is read by both."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import sys
from pathlib import Path

import ir_measures.__main__
import pandas as pd
import pytest

import riskeval as rk
from riskeval.errors import InputFormatError, RiskevalError
from riskeval.io import formats
from riskeval.io.formats import FORMATS, PER_QUERY, TABLE, UNNAMED, Format, Head, format_of, register_format
from tests.cli_runner import run_cli
from tests.shared_data import shared_data

CLEF = ("clef-ehealth-2015-task2", "pertopic-evals")
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d1 1\nq2 0 d4 2\nq3 0 d2 1\n"
RUN = "q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d4 1 1.0 a\nq3 Q0 d3 1 1.0 a\n"
MATRIX = pd.DataFrame(
    [[0.5, 0.25, 1.0], [0.125, 0.75, 0.0]],
    index=pd.Index(["bm25", "dph"], name="system"),
    columns=pd.Index(["q1", "q2", "q3"], name="topic"),
)


def _ir_measures(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, *flags: str
) -> str:
    """What ``ir_measures qrels run nDCG@10 AP FLAGS`` prints: its own command line and writers."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "a.run").write_text(RUN)
    argv = ["ir_measures", str(tmp_path / "qrels.txt"), str(tmp_path / "a.run"), "nDCG@10", "AP", *flags]
    monkeypatch.setattr(sys, "argv", argv)
    capsys.readouterr()
    ir_measures.__main__.main_cli()
    return capsys.readouterr().out


def _trec_eval(name: str) -> str:
    """A real trec_eval ``-q`` output: the official per-query evaluation of a CLEF eHealth 2015 run
    (``trec_eval -q``, as published by the organisers)."""
    return shared_data(*CLEF, name).read_text()


@pytest.fixture
def samples(tmp_path, capsys, monkeypatch) -> dict[str, tuple[Path, str]]:
    """Files of every format, as the tools that write them name and fill them: sample -> (path,
    the format that must claim it)."""
    long = MATRIX.stack().rename("score").reset_index()
    folder = tmp_path / "samples"
    folder.mkdir()
    out: dict[str, tuple[Path, str]] = {}

    def add(sample: str, name: str, fmt: str, text: str | bytes | None = None) -> Path:
        path = folder / name
        if isinstance(text, str):
            path.write_text(text)
        elif isinstance(text, bytes):
            path.write_bytes(text)
        out[sample] = (path, fmt)
        return path

    long.to_csv(add("long CSV (pandas)", "long.csv", "csv"), index=False)
    add("wide CSV, gzipped", "wide.csv.gz", "csv", gzip.compress(MATRIX.to_csv().encode()))
    long.to_csv(add("long TSV (pandas)", "long.tsv", "tsv"), sep="\t", index=False)
    MATRIX.to_csv(add("wide TSV as .tab", "wide.tab", "tsv"), sep="\t")
    long.to_parquet(add("long Parquet (pandas)", "long.parquet", "parquet"), index=False)
    MATRIX.to_parquet(add("wide Parquet as .pq", "wide.pq", "parquet"))
    per_query = _trec_eval("CUNI_EN_Run.1.dat")
    add("trec_eval -q", "CUNI_EN_Run.1.eval", "trec_eval", per_query)
    summary = "".join(line + "\n" for line in per_query.splitlines() if line.split()[1:2] == ["all"])
    add("trec_eval summary (no -q)", "summary.eval", "trec_eval", summary)
    add("trec_eval -q -m ndcg_cut", "ndcg.eval", "trec_eval", _trec_eval("CUNI_EN_Run.1.dat.ndcg"))
    add(
        "ir_measures -q -o jsonl",
        "a.jsonl",
        "ir_measures",
        _ir_measures(tmp_path, capsys, monkeypatch, "-q", "-o", "jsonl"),
    )
    add(
        "ir_measures -o jsonl (summary)",
        "summary.jsonl",
        "ir_measures",
        _ir_measures(tmp_path, capsys, monkeypatch, "-o", "jsonl"),
    )
    return out


@pytest.fixture
def unnamed_samples(tmp_path, capsys, monkeypatch) -> dict[str, tuple[Path, str]]:
    """Files whose names no format claims, each told by its content alone: the CLEF files as
    published, ir_measures' default (tab-separated) output as users save it."""
    folder = tmp_path / "unnamed"
    folder.mkdir()
    out = {}
    for name in ("CUNI_EN_Run.1.dat", "CUNI_EN_Run.1.dat.ndcg"):
        out[f"trec_eval {name}"] = (Path(shutil.copy(shared_data(*CLEF, name), folder)), "trec_eval")
    for sample, flags in (
        ("ir_measures -q", ("-q",)),
        ("ir_measures (summary)", ()),
        ("ir_measures -q -n", ("-q", "-n")),
    ):
        path = folder / f"{sample.replace(' ', '_')}.txt"
        path.write_text(_ir_measures(tmp_path, capsys, monkeypatch, *flags))
        out[sample] = (path, "ir_measures")
    return out


def _claims(path: Path) -> tuple[list[str], list[str]]:
    """The formats whose extension rule, and whose sniffer, claim ``path``."""
    head, registry = Head(path), formats.FORMATS  # the registry as a test may extend it
    return [f.name for f in registry if f.claims_extension(path)], [f.name for f in registry if f.sniff(head)]


def test_every_sample_is_claimed_by_one_extension_and_one_sniffer(samples):
    assert {fmt for _, fmt in samples.values()} == {f.name for f in FORMATS}  # every format sampled
    for sample, (path, fmt) in samples.items():
        assert _claims(path) == ([fmt], [fmt]), sample
        assert format_of(path).name == fmt, sample


def test_files_named_by_no_format_are_claimed_by_one_sniffer(unnamed_samples):
    for sample, (path, fmt) in unnamed_samples.items():
        assert _claims(path) == ([], [fmt]), sample
        assert format_of(path).name == fmt, sample


def test_content_decides_when_the_extension_names_another_format(samples, unnamed_samples, tmp_path):
    """``ir_measures ... -q > bm25.tsv``: a tab-separated file whose first line is no table's header;
    trec_eval output saved as ``.csv``; a CSV table saved as ``.txt``."""
    cases = [
        (unnamed_samples["ir_measures -q"][0], "bm25.tsv", "ir_measures"),
        (samples["trec_eval -q"][0], "run.csv", "trec_eval"),
        (samples["long CSV (pandas)"][0], "scores.txt", "csv"),
        (samples["long TSV (pandas)"][0], "scores", "tsv"),
        (samples["long Parquet (pandas)"][0], "scores.bin", "parquet"),
    ]
    for source, name, fmt in cases:
        path = Path(shutil.copy(source, tmp_path / name))
        assert format_of(path).name == fmt, name
        assert format_of(path, fmt).name == fmt


def test_a_sniffer_claiming_another_formats_files_is_caught(samples, monkeypatch):
    """A JSON Lines score table that claimed every JSON line would take ir_measures' ``-o jsonl``
    output: its extension is refused at registration, and its sniffer fails the sample test."""
    monkeypatch.setattr(formats, "FORMATS", list(FORMATS))
    greedy = Format(
        "jsonl_table", (".jsonl",), lambda h: (h.line or "").startswith("{"), _read_toy, TABLE, ""
    )
    with pytest.raises(RiskevalError, match=r"the extension '.jsonl' is claimed by format 'ir_measures'"):
        register_format(greedy)
    register_format(Format("jsonl_table", (".ndjson",), greedy.sniff, _read_toy, TABLE, "JSON lines"))
    path, _ = samples["ir_measures -q -o jsonl"]
    assert _claims(path)[1] == ["ir_measures", "jsonl_table"]  # what the sample test refuses
    table = path.with_name("long.ndjson")
    MATRIX.stack().rename("score").reset_index().to_json(table, orient="records", lines=True)
    assert _claims(table) == (["jsonl_table"], ["jsonl_table"])  # a JSON line is no CSV header


def test_registration_refuses_a_taken_name_and_bad_extensions(monkeypatch):
    monkeypatch.setattr(formats, "FORMATS", list(FORMATS))
    with pytest.raises(RiskevalError, match="A format named 'csv' is already registered"):
        register_format(Format("csv", (".csv2",), lambda h: False, _read_toy, TABLE, ""))
    with pytest.raises(RiskevalError, match=r"lower case with their dot \('.csv'\); got 'TOY'"):
        register_format(Format("toy", ("TOY",), lambda h: False, _read_toy, TABLE, ""))


def test_samples_read_the_same_from_python_and_the_command_line(samples, capsys):
    tables = [s for s, (_, fmt) in samples.items() if fmt in ("csv", "tsv", "parquet")]
    for sample in tables:
        path = samples[sample][0]
        pd.testing.assert_frame_equal(rk.score_matrix(path), MATRIX, check_names=False, obj=sample)
        assert list(rk.io.score_matrices(path)) == [UNNAMED]
    clef = samples["trec_eval -q"][0]
    p10 = rk.score_matrix(clef, measure="P@10", names="file")
    assert p10.shape == (1, 66) and p10.index.tolist() == ["CUNI_EN_Run.1"]
    assert p10.loc["CUNI_EN_Run.1", "qtest.1"] == 0.1  # the line 'P_10 qtest.1 0.1000' of the file
    jsonl = samples["ir_measures -q -o jsonl"][0]
    both = rk.io.score_matrices(jsonl)
    assert list(both) == ["AP", "nDCG@10"] and both["AP"].shape == (1, 3)
    with pytest.raises(RiskevalError, match="there are 2 measures: .*choose one with measure="):
        rk.score_matrix(jsonl)
    pd.testing.assert_frame_equal(rk.score_matrix(jsonl, measure="AP"), both["AP"])
    runs = [
        clef,
        Path(shutil.copy(shared_data(*CLEF, "CUNI_EN_Run.2.dat"), clef.with_name("CUNI_EN_Run.2.eval"))),
    ]
    cases = [
        ([samples["long CSV (pandas)"][0]], [], MATRIX),
        (runs, ["--name-from", "file", "-m", "P@10"], None),
    ]
    for paths, options, expected in cases:
        if expected is None:
            expected = rk.score_matrix(runs, measure="P@10", names="file")
        code, out, err = run_cli(
            ["risk", *paths, *options, "-b", "mean", "-a", "0", "--format", "csv"], capsys
        )
        assert code == 0, err
        means = pd.read_csv(io.StringIO(out)).set_index("system")["mean"]
        assert means.to_dict() == pytest.approx(expected.mean(axis=1).to_dict())


def test_summaries_without_per_query_values_are_refused_clearly(samples, unnamed_samples):
    with pytest.raises(
        InputFormatError,
        match=r"summary\.eval:1: this output has summary \('all'\) lines only: run trec_eval with -q",
    ):
        rk.io.score_matrices(samples["trec_eval summary (no -q)"][0])
    for path in (samples["ir_measures -o jsonl (summary)"][0], unnamed_samples["ir_measures (summary)"][0]):
        with pytest.raises(InputFormatError, match="summary line .*run ir_measures with -q"):
            rk.io.score_matrices(path)


def test_files_of_no_format_are_refused_naming_every_format(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("\n\nhello there world\n")
    with pytest.raises(InputFormatError) as info:
        format_of(path)
    [(where, message)] = info.value.problems
    assert where == f"{path}:3" and "its first line is 'hello there world'" in message
    assert all(f"{f.name} ({', '.join(f.extensions)}): {f.description}" in message for f in FORMATS)
    with pytest.raises(
        RiskevalError, match=r"absent\.xlsx: unknown score file extension '\.xlsx'; .* cannot be read"
    ):
        rk.score_matrix(tmp_path / "absent.xlsx")
    fifo = tmp_path / "scores"
    os.mkfifo(fifo)
    with pytest.raises(RiskevalError, match="it is a pipe, whose content can be read once only"):
        rk.score_matrix(fifo)


def test_a_list_of_files_is_per_query_output_of_one_tool(samples, unnamed_samples):
    tables = [samples["long CSV (pandas)"][0], samples["long TSV (pandas)"][0]]
    with pytest.raises(
        RiskevalError, match=r"A list of files is read as trec_eval -q output .* or ir_measures -q"
    ):
        rk.score_matrix(tables)
    mixed = [samples["trec_eval -q"][0], unnamed_samples["ir_measures -q"][0]]
    with pytest.raises(RiskevalError, match=r"one tool at a time; got .*\(trec_eval\), .*\(ir_measures\)"):
        rk.io.score_matrices(mixed)


def test_standard_input_is_told_by_its_content(samples, capsys, monkeypatch):
    for sample, measure in (
        ("long TSV (pandas)", []),
        ("ir_measures -q -o jsonl", ["-m", "AP"]),
        ("long Parquet (pandas)", []),
    ):
        data = samples[sample][0].read_bytes()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        code, out, err = run_cli(["risk", "-", "-b", "mean", "-a", "0", "--format", "csv", *measure], capsys)
        assert code == 0, f"{sample}: {err}"
        assert "system" in out


def test_the_help_lists_every_format():
    assert (
        formats.format_names()
        == [f.name for f in FORMATS][:5]
        == ["csv", "tsv", "parquet", "trec_eval", "ir_measures"]
    )
    assert formats.format_help().startswith(
        "csv (.csv), tsv (.tsv, .tab), parquet (.parquet, .pq), trec_eval (.eval)"
    )


# --- a format added with one entry ---------------------------------------------------------------


def _read_toy(paths: list[str], request: formats.Request) -> dict[str, pd.DataFrame]:
    """The toy format: ``#toy`` then ``system topic score`` lines, one measure."""
    [path] = paths
    rows = [line.split() for line in Path(path).read_text().splitlines()[1:] if line.strip()]
    frame = pd.DataFrame(rows, columns=["system", "topic", "score"]).astype({"score": float})
    matrix = rk.io.from_long(frame, missing=request.missing)
    return {formats.unnamed_key(request.measures): matrix}


@pytest.fixture
def toy(monkeypatch) -> Format:
    monkeypatch.setattr(formats, "FORMATS", list(FORMATS))
    return register_format(
        Format(
            "toy",
            (".toy",),
            lambda head: head.line == "#toy",
            _read_toy,
            TABLE,
            "#toy, then system topic score lines",
        )
    )


def test_a_format_added_with_one_entry_is_read_by_score_matrix_and_the_command_line(toy, tmp_path, capsys):
    text = "#toy\n" + "".join(f"{s} {t} {MATRIX.loc[s, t]}\n" for s in MATRIX.index for t in MATRIX.columns)
    MATRIX.to_csv(tmp_path / "same.csv")
    code, expected, err = run_cli(
        ["risk", tmp_path / "same.csv", "-b", "mean", "-a", "1", "--format", "csv"], capsys
    )
    assert code == 0, err
    for name in ("scores.toy", "scores.txt"):  # by extension, and by content
        path = tmp_path / name
        path.write_text(text)
        assert format_of(path) is toy
        pd.testing.assert_frame_equal(rk.score_matrix(path), MATRIX)
        code, out, err = run_cli(["risk", path, "-b", "mean", "-a", "1", "--format", "csv"], capsys)
        assert code == 0, err
        assert out == expected
    assert "toy (.toy)" in formats.format_help() and toy.kind != PER_QUERY

"""A memory budget per input: for every reader, the peak memory of reading a hostile file (one-field
lines, blank lines, one huge line, one line of many fields, compressed one-field lines) is at
most twice that of reading a valid file of the same size (of text), and standard input counts
against the input size limit as it is read.

Each input is read in a process of its own, after a small valid file (imports and compiled
kernels): the peak resident memory (``VmHWM``, reset through ``/proc/self/clear_refs`` after the
small file) less the memory before is the cost of that input alone.  Before the budget, 8 MB of
one-field lines in a CSV table cost 27 times their size and blank lines 44 times (a valid table:
12 times); blank lines in a LETOR file 62 times (valid: 22)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from riskeval.io.formats import FORMATS

SRC = str(Path(__file__).resolve().parents[1] / "src")
SIZE = 4_000_000  # bytes of text of every input
SLACK_KB = 8_000  # the allocator's and the kernel's own noise

PROBE = r"""
import sys, importlib
from riskeval.errors import RiskevalError
if sys.argv[1].startswith("format:"):  # a format of the registry, read as score_matrices reads it
    from riskeval.io.formats import Request, named_format
    fmt = named_format(sys.argv[1][7:], "probe")
    read = lambda path: fmt.read([path], Request())
else:
    module, name = sys.argv[1].rsplit(".", 1)
    read = getattr(importlib.import_module(module), name)
def attempt(path):
    try:
        read(path)
    except RiskevalError:
        pass
def status(key):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(key))
attempt(sys.argv[2])
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # the peak resident memory restarts from the current one
before = status("VmRSS:")
attempt(sys.argv[3])
print(status("VmHWM:") - before)
"""


def _fill(line) -> str:
    out, n, i = [], 0, 0
    while n < SIZE:
        text = line(i)
        out.append(text)
        n += len(text)
        i += 1
    return "".join(out)


CLEF_BLOCK = (
    "<top>\n<num>clef2015.test.{i}</num>\n<query>query {i}</query>\n<disease>d</disease>\n"
    "<type>{kind}</type>\n<query_index>{need}</query_index>\n</top>\n"
)

#: reader → (its function, the file suffix, a header line, the valid line i)
READERS = {
    "LETOR": (
        "riskeval.io.letor.read_letor",
        ".txt",
        "",
        lambda i: f"{i % 3} qid:{i // 20} 1:0.5 2:0.25 3:0.125 4:1\n",
    ),
    "run": (
        "riskeval.io.runs.read_run",
        ".txt",
        "",
        lambda i: f"{i // 1000} Q0 doc{i % 1000} {i % 1000 + 1} {1000 - i % 1000}.5 tag\n",
    ),
    "qrels": ("riskeval.io.qrels.read_qrels", ".txt", "", lambda i: f"{i // 1000} 0 doc{i % 1000} {i % 3}\n"),
    "families": (
        "riskeval.io.families.read_families",
        ".csv",
        "system,family,parameter\n",
        lambda i: f"s{i},f{i % 10},0.{i % 9}\n",
    ),
    "baseline map": ("riskeval.io.baseline_map.read_baseline_map", ".txt", "", lambda i: f"s{i} b{i % 10}\n"),
    "topics": (
        "riskeval.io.topic_texts.read_topic_texts",
        ".tsv",
        "",
        lambda i: f"{i}\tsome query text {i}\n",
    ),
    "topic weights": ("riskeval.io.topic_weights.read_topic_weights", ".txt", "", lambda i: f"{i} 0.5\n"),
    "UQV100 scores": (
        "riskeval.io.uqv100.read_variant_scores",
        ".txt",
        "",
        lambda i: f"{i // 10}-{i % 10} 0.{i % 997:03d}\n",
    ),
    "CLEF 2015 queries": (
        "riskeval.io.clef2015.read_clef2015_queries",
        ".txt",
        "",
        lambda i: CLEF_BLOCK.format(i=i, kind=("pivot", "most", "least")[i % 3], need=i // 3 + 1),
    ),
    "variation table": (
        "riskeval.io.variations.read_variation_table",
        ".csv",
        "system,topic,variant,score\n",
        lambda i: f"s{i % 20},{i // 100},v{i // 20 % 5},0.{i % 997:03d}\n",
    ),
    "variation mapping": (
        "riskeval.io.variations.read_mapping",
        ".txt",
        "",
        lambda i: f"q{i} {i // 5} v{i % 5}\n",
    ),
}

#: A valid file of each text format of the registry (riskeval.io.formats.FORMATS): the file
#: suffix, a header line, the valid line i.  Parquet has its own test below.
TEXT_FORMATS = {
    "csv": (".csv", "system,topic,score\n", lambda i: f"s{i % 50},{i // 50},0.{i % 997:03d}\n"),
    "tsv": (".tsv", "system\ttopic\tscore\n", lambda i: f"s{i % 50}\t{i // 50}\t0.{i % 997:03d}\n"),
    "trec_eval": (".txt", "", lambda i: f"ndcg_cut_10\t{i}\t0.{i % 9973:04d}\n"),
    "ir_measures": (".txt", "", lambda i: f"{i}\tnDCG@10\t0.{i % 9973:04d}\n"),
}
FAST = {"LETOR"}


def inputs(folder: Path, header: str, valid, suffix: str) -> list[Path]:
    """The valid file, then the hostile ones, each of :data:`SIZE` bytes of text."""
    shapes = {
        "valid": header + _fill(valid),
        "one-field": header + "x\n" * (SIZE // 2),
        "blank": header + "\n" * SIZE,
        "huge-line": header + "y" * SIZE + "\n",
        "many-fields": header + " ".join(["1"] * (SIZE // 2)) + "\n",
    }
    paths = []
    for name, text in shapes.items():
        path = folder / f"{name}{suffix}"
        path.write_text(text)
        paths.append(path)
    packed = folder / f"packed{suffix}.gz"
    packed.write_bytes(gzip.compress((header + "x\n" * (SIZE // 2)).encode(), 9))
    return [*paths, packed]


def peaks(function: str, warm: Path, paths: list[Path]) -> dict[str, int]:
    """The peak memory (KB) each of ``paths`` adds, read in a process of its own after ``warm``."""
    out = {}
    for path in paths:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, function, str(warm), str(path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": SRC},
            check=True,
        )
        out[path.name] = int(done.stdout.split()[-1])
    return out


def check_budget(what: str, function: str, warm: Path, paths: list[Path]) -> dict[str, int]:
    """Each of ``paths`` (the valid file first) costs at most twice the valid one, plus noise."""
    cost = peaks(function, warm, paths)
    budget = 2 * cost[paths[0].name] + SLACK_KB
    over = {name: kb for name, kb in cost.items() if kb > budget}
    assert not over, f"{what}: valid {cost[paths[0].name]} KB, over twice that: {over}"
    return cost


@pytest.mark.parametrize(
    "reader", [pytest.param(name, marks=() if name in FAST else pytest.mark.slow) for name in READERS]
)
def test_a_hostile_input_costs_at_most_twice_a_valid_one(reader, tmp_path):
    function, suffix, header, valid = READERS[reader]
    warm = tmp_path / f"warm{suffix}"
    warm.write_text(header + "".join(valid(i) for i in range(200)))
    check_budget(reader, function, warm, inputs(tmp_path, header, valid, suffix))


@pytest.mark.parametrize(
    "name", [pytest.param(f.name, marks=() if f.name == "csv" else pytest.mark.slow) for f in FORMATS]
)
def test_every_format_of_the_registry_keeps_the_budget(name, tmp_path):
    """The readers of :data:`riskeval.io.formats.FORMATS`, each as ``score_matrices`` calls it."""
    if name == "parquet":
        parquet_budget(tmp_path)
        return
    assert name in TEXT_FORMATS, f"format {name!r} has no sample file here: add one"
    suffix, header, valid = TEXT_FORMATS[name]
    warm = tmp_path / f"warm{suffix}"
    warm.write_text(header + "".join(valid(i) for i in range(200)))
    check_budget(name, f"format:{name}", warm, inputs(tmp_path, header, valid, suffix))


#: Rows of the Parquet files: a long table of 8 + 4 + 4 bytes a row as read (score, and the codes
#: of the system and topic labels), about as much as :data:`SIZE` bytes of text of a long table.
ROWS = SIZE // 16


def parquet_inputs(folder: Path) -> list[Path]:
    """A valid long table of :data:`ROWS` rows, then hostile ones of as many bytes as read: many
    row groups, a dictionary bomb (one repeated row: a few kilobytes on disk, every row a duplicate),
    one huge label, a column of huge strings besides the table's, a long table of as many distinct
    systems and topics as rows (refused as too sparse), a wide table of one row and 10,000 topics."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rng = np.random.default_rng(0)
    i = np.arange(ROWS)
    systems, topics = [f"s{k}" for k in i % 50], [str(k) for k in i // 50]
    valid = pa.table({"system": systems, "topic": topics, "score": rng.random(ROWS)})
    one = pa.table({"system": ["s"] * ROWS, "topic": ["1"] * ROWS, "score": np.full(ROWS, 0.5)})
    huge = pa.table({"system": ["y" * SIZE], "topic": ["1"], "score": [0.5]})
    n = 1000
    strings = pa.table({**valid.slice(0, n).to_pydict(), "note": ["z" * (SIZE // n)] * n})
    distinct = pa.table(
        {"system": [f"s{k}" for k in i], "topic": [f"t{k}" for k in i], "score": rng.random(ROWS)}
    )
    wide = pa.table({"system": ["s"], **{f"t{k}": [0.5] for k in range(10_000)}})
    shapes = {
        "valid": (valid, {}),
        "row-groups": (valid, {"row_group_size": 100}),
        "bomb": (one, {}),
        "huge-label": (huge, {}),
        "huge-strings": (strings, {"use_dictionary": ["system", "topic"]}),
        "distinct-labels": (distinct, {}),
        "wide": (wide, {}),
    }
    paths = []
    for name, (table, options) in shapes.items():
        path = folder / f"{name}.parquet"
        pq.write_table(table, path, **options)
        paths.append(path)
    return paths


def parquet_budget(folder: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    warm = folder / "warm.parquet"
    pq.write_table(pa.table({"system": ["a", "b"], "topic": ["1", "1"], "score": [0.1, 0.2]}), warm)
    check_budget("parquet", "format:parquet", warm, parquet_inputs(folder))


def _stdin_peak(data_path: Path, limit: int) -> tuple[int, str, int]:
    """Peak resident memory (KB) of ``riskeval risk -`` reading ``data_path`` on standard input."""
    with open(data_path, "rb") as source:
        child = subprocess.Popen(
            [sys.executable, "-m", "riskeval", "risk", "-"],
            stdin=source,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": SRC, "RISKEVAL_MAX_INPUT_BYTES": str(limit)},
        )
        assert child.stderr is not None
        err = child.stderr.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
    return usage.ru_maxrss, err, os.waitstatus_to_exitcode(status)


def test_standard_input_counts_against_the_limit_as_it_is_read(tmp_path):
    valid = tmp_path / "valid.csv"
    valid.write_text(
        "system,topic,score\n" + "".join(f"s{i % 5},{i // 5},0.{i % 997:03d}\n" for i in range(80_000))
    )
    large = tmp_path / "large.csv"
    large.write_text("system,topic,score\n" + "x\n" * 20_000_000)  # 40 MB, over the limit of 2 MB
    kept, err, code = _stdin_peak(valid, 2_000_000)
    assert code == 0, err
    refused, err, code = _stdin_peak(large, 2_000_000)
    assert code == 2
    assert err == (
        "riskeval: error: standard input: holds more than 2,000,000 bytes, the input size limit: set "
        "the environment variable RISKEVAL_MAX_INPUT_BYTES to read larger files.\n"
    )
    # 40 MB held in memory would show; refusing it costs no more than reading 1 MB
    assert refused <= kept + SLACK_KB


def test_standard_input_is_named_in_problems(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("system,topic,score\na,1,0.5\na,2,x\nb,1,0.3\nb,2,0.1\n")
    _, err, code = _stdin_peak(bad, 2_000_000)
    assert code == 2
    assert err == "riskeval: error: standard input:3: field 'score': 'x' is not a number.\n"

"""Fuzzing every reader: whatever the bytes, a clean result or a riskeval error, nothing else.

Each reader gets two kinds of input: arbitrary bytes, and a valid file whose lines are mutated
(characters deleted, inserted or replaced by troublesome ones: CR, NUL, BOM, ``_``, ``$``, quotes,
delimiters, huge or non-ASCII numbers...), then encoded (UTF-8 with or without BOM, UTF-16, Latin-1)
and possibly compressed or truncated.  The only exceptions allowed out are
:class:`riskeval.errors.RiskevalError` and its subclasses.

The normal suite runs a short profile (a few seconds in all); the slow suite
(``python -m pytest -m slow``) runs every file reader with the long profile.  The long profile for
every test:

    RISKEVAL_FUZZ=long python -m pytest -q tests/test_fuzz_readers.py --hypothesis-show-statistics

``RISKEVAL_FUZZ_STATS=FILE`` appends one line per test: inputs tried, clean results, riskeval errors.
"""

from __future__ import annotations

import bz2
import codecs
import functools
import gzip
import lzma
import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import riskeval as rk
from riskeval.errors import InputFormatError, MissingTopicsError, RiskevalError
from riskeval.io.baseline_map import read_baseline_map
from riskeval.io.clef2015 import read_clef2015_queries
from riskeval.io.families import read_families
from riskeval.io.formats import FORMATS, Request, named_format
from riskeval.io.letor import read_letor, read_query_file
from riskeval.io.qrels import read_qrels
from riskeval.io.runs import read_run
from riskeval.io.topic_texts import read_topic_texts
from riskeval.io.uqv100 import read_variant_scores
from riskeval.io.variations import read_mapping, read_variation_table

settings.register_profile(
    "riskeval-fuzz",
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
settings.register_profile(
    "riskeval-fuzz-long",
    max_examples=4000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
FUZZ = settings.get_profile(
    "riskeval-fuzz-long" if os.environ.get("RISKEVAL_FUZZ") == "long" else "riskeval-fuzz"
)
LONG = settings(settings.get_profile("riskeval-fuzz-long"), max_examples=1000)

TMP = Path(tempfile.mkdtemp(prefix="riskeval-fuzz-"))
OUTCOMES: dict[str, Counter] = {}


@pytest.fixture(scope="module", autouse=True)
def _report_outcomes():
    yield
    shutil.rmtree(TMP, ignore_errors=True)
    stats = os.environ.get("RISKEVAL_FUZZ_STATS")
    if stats:
        with open(stats, "a", encoding="utf-8") as out:
            for name, counts in OUTCOMES.items():
                total = sum(counts.values())
                out.write(
                    f"{name}: {total} inputs, {counts['clean']} clean, {counts['error']} riskeval errors\n"
                )


def only_riskeval_errors(name: str, read: Callable[[], object], *paths: Path) -> None:
    """Call ``read``: a result or a RiskevalError are fine; any other exception fails the test.

    With ``paths`` (the files read), the error is an :class:`InputFormatError` naming one of them
    (:class:`MissingTopicsError` for files that read well but miss topics, the caller's policy)."""
    counts = OUTCOMES.setdefault(name, Counter())
    try:
        read()
    except RiskevalError as exc:
        counts["error"] += 1
        assert str(exc)  # a message, never an empty one
        if paths:
            assert isinstance(exc, (InputFormatError, MissingTopicsError)), (type(exc).__name__, str(exc))
            assert any(str(p) in str(exc) for p in paths) or isinstance(exc, MissingTopicsError), str(exc)
    else:
        counts["clean"] += 1


# --- inputs ----------------------------------------------------------------------------------------

NASTY = [
    "\r", "\n", "\r\n", "\x00", "\ufeff", "\t", " ", "_", "$", '"', ",", ";", "|", "#", "'", "=",
    "-", "+", "@", "e", ".", "0", "1", "¹", "١", "１", "é", "\u2028", "\x85", "nan", "inf", "-inf",
    "1_0", "1e309", "99999999999999999999999", "-2147483649", "all", "runid", "<top>", "</top>",
    "<num>", "<type>", "<query_index>", "pivot", "\udcff",
]  # fmt: skip


@st.composite
def mutated(draw, seed: str) -> str:
    """``seed`` with a few characters deleted, inserted or replaced."""
    text = seed
    for _ in range(draw(st.integers(0, 6))):
        i = draw(st.integers(0, len(text)))
        piece = draw(st.sampled_from(NASTY) | st.text(max_size=3))
        action = draw(st.sampled_from(["insert", "replace", "delete", "duplicate"]))
        if action == "insert":
            text = text[:i] + piece + text[i:]
        elif action == "replace":
            text = text[:i] + piece + text[i + len(piece) :]
        elif action == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)) :]
        else:
            lines = text.split("\n")
            k = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: k + 1] + lines[k:])
    return text


def encode(text: str, how: str) -> bytes:
    if how == "utf-8":
        return text.encode("utf-8", errors="surrogatepass")
    if how == "utf-8-bom":
        return codecs.BOM_UTF8 + text.encode("utf-8", errors="surrogatepass")
    if how == "utf-16":
        return text.encode("utf-16", errors="surrogatepass")
    if how == "utf-16-le":
        return text.encode("utf-16-le", errors="surrogatepass")
    return text.encode("latin-1", errors="replace")


def pack(data: bytes, how: str) -> bytes:
    if how == "gzip":
        return gzip.compress(data)
    if how == "bzip2":
        return bz2.compress(data)
    if how == "xz":
        return lzma.compress(data)
    if how == "truncated-gzip":
        packed = gzip.compress(data)
        return packed[: max(2, len(packed) // 2)]
    if how == "corrupt-xz":
        packed = bytearray(lzma.compress(data))
        packed[len(packed) // 2] ^= 0xFF
        return bytes(packed)
    return data


ENCODINGS = st.sampled_from(["utf-8", "utf-8", "utf-8", "utf-8-bom", "utf-16", "utf-16-le", "latin-1"])
PACKING = st.sampled_from(["plain", "plain", "plain", "gzip", "bzip2", "xz", "truncated-gzip", "corrupt-xz"])


def contents(seed: str):
    """Bytes for a reader: arbitrary, or ``seed`` mutated, encoded and perhaps compressed."""
    structured = st.builds(
        lambda text, enc, packing: pack(encode(text, enc), packing), mutated(seed), ENCODINGS, PACKING
    )
    return st.binary(max_size=300) | structured | structured


def write(name: str, data: bytes) -> Path:
    path = TMP / name
    path.write_bytes(data)
    return path


# --- seeds: one valid file per format ---------------------------------------------------------------

RUN = "301 Q0 d1 1 2.5 bm25\n301 Q0 d2 2 1.5 bm25\n302 Q0 d1 1 0.5 bm25\n303 Q0 d9 1 -1e-3 bm25\n"
QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d1 2\n302 0 d3 -2\n"
TREC_EVAL = "map\t301\t0.5000\nmap\t302\t0.2500\nP_10\t301\t0.1\nrunid\tall\tbm25\nmap\tall\t0.3750\n"
IR_MEASURES = (
    'q1\tnDCG@10\t0.6131\nq1\tAP\t0.5\n{"query_id": "q2", "measure": "AP", "value": 1.0}\nall\tAP\t0.75\n'
)
LONG_CSV = "system,topic,score\nbm25,301,0.42\nbm25,302,0.10\ndph,301,0.38\ndph,302,0.31\n"
WIDE_CSV = "system,301,302\nbm25,0.42,0.10\ndph,0.38,\n"
QUOTED_CSV = 'system,topic,score\n"bm,25",301,0.42\n"bm,25",302,"0.10"\ndph,301,0.38\ndph,302,0.31\n'
MAPPING = "query topic variant\nq1 1 a\nq2 1 b\n# comment\nq3 2 a\nq4 2 b\n"
VARIATIONS = "system,topic,variant,score\ns1,1,a,0.5\ns1,1,b,0.25\ns2,1,a,0.1\ns2,1,b,0.0\n"
CLEF = (
    "<topics>\n<top>\n<num>clef2015.test.1</num>\n<query>sores</query>\n<disease>x</disease>\n"
    "<type>pivot</disease>\n<query_index>1</query_index>\n</top>\n<top>\n<num>clef2015.test.2</num>\n"
    "<query>red</query>\n<type>most</type>\n<query_index>1</query_index>\n</top>\n</topics>\n"
)
LETOR = "2 qid:1 1:0.5 3:1.25 # d1\n0 qid:1 1:-0.5 2:3e-2\n1 qid:2 2:1 3:0\n"
QUERY_FILE = "2\n1\n"
TOPIC_TEXTS = "301\tinternational organized crime\n302:poliomyelitis and post-polio\n"
TOPIC_XML = '<topics>\n<topic number="1"><query>black bear</query></topic>\n</topics>\n'
TREC_TOPICS = "<top>\n<num> Number: 301\n<title> crime\n</top>\n<top>\n<num> 302\n<title> polio\n</top>\n"
FAMILIES = "system,family,parameter\nbm25-0.4,bm25,0.4\nbm25-0.9,bm25,0.9\nql,lm,\n"
BASELINE_MAP = "system,baseline\nrun-a,bm25\nrun-b\tdph\n# comment\nrun-c dph\n"
VARIANT_SCORES = "1-a 0.5\n1-b 0.25\n2-a 0.1\n"


def letor_with_query_file(path: Path, query: bytes) -> object:
    (TMP / "fuzz-letor.query").write_bytes(query)
    return read_letor(path, query_file=TMP / "fuzz-letor.query")


#: Every file reader not fuzzed by a test of its own: (seed, file name, read).
FILE_READERS: dict[str, tuple[str, str, Callable[[Path], object]]] = {
    "read_letor": (LETOR, "fuzz.letor", read_letor),
    "read_letor dense": (LETOR, "fuzz-d.letor", lambda p: read_letor(p, dense=True, n_features=4)),
    "read_query_file": (QUERY_FILE, "fuzz.query", read_query_file),
    "read_topic_texts": (TOPIC_TEXTS, "fuzz-topics.tsv", read_topic_texts),
    "read_topic_texts xml": (TOPIC_XML, "fuzz-topics.xml", read_topic_texts),
    "read_topic_texts trec": (TREC_TOPICS, "fuzz-topics.trec", read_topic_texts),
    "read_families": (FAMILIES, "fuzz-families.csv", read_families),
    "read_baseline_map": (BASELINE_MAP, "fuzz-baselines.txt", read_baseline_map),
    "read_variant_scores": (VARIANT_SCORES, "fuzz-variants.txt", read_variant_scores),
}
#: The readers of the tests below, for the long profile of the slow suite.
EVERY_FILE_READER = {
    **FILE_READERS,
    "read_run": (RUN, "fuzz.run", read_run),
    "read_qrels": (QRELS, "fuzz.qrels", read_qrels),
    "read_trec_eval": (TREC_EVAL, "fuzz.trec_eval", lambda p: rk.io.read_trec_eval(p, "map")),
    "read_ir_measures": (IR_MEASURES, "fuzz.ir_measures", lambda p: rk.io.read_ir_measures(p, ["AP"])),
    "read_scores long": (LONG_CSV, "fuzz-long.csv", rk.io.read_scores),
    "read_scores wide": (WIDE_CSV, "fuzz-wide.csv", rk.io.read_scores),
    "read_scores quoted": (QUOTED_CSV, "fuzz-quoted.csv", rk.io.read_scores),
    "read_mapping": (MAPPING, "fuzz-mapping.txt", read_mapping),
    "read_variation_table": (VARIATIONS, "fuzz-v.csv", read_variation_table),
    "read_clef2015_queries": (CLEF, "fuzz-queries.txt", read_clef2015_queries),
}


def fuzz_reader(name: str, data: st.DataObject, readers: dict) -> None:
    seed, filename, read = readers[name]
    path = write(filename.replace(" ", "-"), data.draw(contents(seed)))
    only_riskeval_errors(name, lambda: read(path), path)


@pytest.mark.parametrize("name", sorted(FILE_READERS))
@FUZZ
@given(data=st.data())
def test_file_readers(name, data):
    fuzz_reader(name, data, FILE_READERS)


@FUZZ
@given(letor=contents(LETOR.replace("qid:1 ", "").replace("qid:2 ", "")), query=contents(QUERY_FILE))
def test_read_letor_with_a_query_file(letor, query):
    path = write("fuzz-q.letor", letor)
    only_riskeval_errors(
        "read_letor query_file", lambda: letor_with_query_file(path, query), path, TMP / "fuzz-letor.query"
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EVERY_FILE_READER))
@LONG
@given(data=st.data())
def test_every_file_reader_long(name, data):
    fuzz_reader(name, data, EVERY_FILE_READER)


# --- one test per reader ---------------------------------------------------------------------------


@FUZZ
@given(data=contents(RUN), topics=st.none() | st.sets(st.sampled_from(["301", "302", "1", "¹"])))
def test_read_run(data, topics):
    path = write("fuzz.run", data)
    only_riskeval_errors("read_run", lambda: read_run(path, topics=topics), path)


@FUZZ
@given(data=contents(QRELS))
def test_read_qrels(data):
    path = write("fuzz.qrels", data)
    only_riskeval_errors("read_qrels", lambda: read_qrels(path), path)


@FUZZ
@given(data=contents(QRELS), run=contents(RUN), measure=st.sampled_from(["nDCG@10", "P@5", "AP(rel=2)"]))
def test_evaluate_runs(data, run, measure):
    qrels, path = write("fuzz-e.qrels", data), write("fuzz-e.run", run)
    only_riskeval_errors(
        "evaluate_runs", lambda: rk.evaluate_runs(qrels, [path], measure, names=["x"], n_jobs=1), qrels, path
    )


@FUZZ
@given(data=contents(TREC_EVAL), measure=st.sampled_from(["map", "AP", "P_10", "ndcg_cut_10"]))
def test_read_trec_eval(data, measure):
    path = write("fuzz.eval", data)
    only_riskeval_errors("read_trec_eval", lambda: rk.io.read_trec_eval(path, measure, missing="zero"), path)


@FUZZ
@given(
    data=st.one_of(contents(TREC_EVAL), contents(IR_MEASURES)),
    name=st.sampled_from(["fuzz-q.txt", "fuzz-q.tsv"]),
    measures=st.none() | st.just(["AP", "map"]),
    as_list=st.booleans(),
)
def test_score_matrices_of_per_query_files(data, name, measures, as_list):
    path = write(name, data)  # one .tsv path may be a score table or per-query output: told by content
    given_as = [path] if as_list else path
    only_riskeval_errors(
        "score_matrices", lambda: rk.io.score_matrices(given_as, measures, missing="zero"), path
    )


@FUZZ
@given(
    data=st.one_of(contents(LONG_CSV), contents(WIDE_CSV), contents(QUOTED_CSV)),
    name=st.sampled_from(["fuzz.csv", "fuzz.tsv", "fuzz.csv.gz", "fuzz.tab"]),
    missing=st.sampled_from(["raise", "zero", "drop"]),
)
def test_read_scores(data, name, missing):
    path = write(name, data.replace(b",", b"\t") if ".t" in name else data)
    only_riskeval_errors("read_scores", lambda: rk.io.read_scores(path, missing=missing), path)


@FUZZ
@given(data=contents(MAPPING))
def test_read_mapping(data):
    path = write("fuzz.map", data)
    only_riskeval_errors("read_mapping", lambda: read_mapping(path), path)


@FUZZ
@given(data=contents(VARIATIONS), name=st.sampled_from(["fuzz-v.csv", "fuzz-v.tsv", "fuzz-v.txt"]))
def test_read_variation_table(data, name):
    path = write(name, data.replace(b",", b"\t") if name.endswith(".tsv") else data)
    only_riskeval_errors("read_variation_table", lambda: read_variation_table(path), path)


@FUZZ
@given(data=contents(CLEF))
def test_read_clef2015_queries(data):
    path = write("fuzz-queries.txt", data)
    only_riskeval_errors("read_clef2015_queries", lambda: read_clef2015_queries(path), path)


class Metric:
    def __init__(self, query_id, measure, value):
        self.query_id, self.measure, self.value = query_id, measure, value


ODD_VALUES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**70), 2**70),
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.sampled_from(["0.5", "1_0", "nan", b"0.5", (1, 2), object()]),
)
IDS = st.one_of(st.text(max_size=4), st.integers(-5, 5), st.none(), st.floats(), st.sampled_from(["¹", ""]))


@FUZZ
@given(
    records=st.lists(
        st.one_of(
            st.builds(Metric, IDS, st.sampled_from(["nDCG@10", "AP", "P@0", "", None, 5]), ODD_VALUES),
            st.tuples(IDS, ODD_VALUES),
            ODD_VALUES,
        ),
        max_size=12,
    ),
    as_dict=st.booleans(),
    measure=st.sampled_from([None, "nDCG@10", "AP", "nDCG@0", "ndcg_cut_10"]),
    missing=st.sampled_from(["raise", "zero", "drop"]),
)
def test_from_ir_measures(records, as_dict, measure, missing):
    results = {"a": records[::2], "b": records[1::2]} if as_dict else records
    system = None if as_dict else "a"
    only_riskeval_errors(
        "from_ir_measures", lambda: rk.io.from_ir_measures(results, measure, system=system, missing=missing)
    )


def parquet_seed() -> bytes:
    """A valid long score table with a measure column, as Parquet bytes."""
    import io

    import pandas as pd

    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "system": ["a", "a", "b", "b"],
            "topic": ["1", "2", "1", "2"],
            "measure": "AP",
            "score": [0.1, 0.2, 0.3, 0.4],
        }
    )
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


@FUZZ
@given(
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=8),
    keep=st.none() | st.integers(0, 10**6),
    read=st.sampled_from(["read_scores", "score_matrices", "read_variation_table"]),
)
def test_damaged_parquet(flips, keep, read):
    """Bytes of a valid Parquet file changed (in the data, the footer's Thrift metadata, the magic
    bytes) or cut: an InputFormatError naming the file, never pyarrow's OSError or ArrowInvalid."""
    data = bytearray(parquet_seed())
    for position, mask in flips:
        data[position % len(data)] ^= mask
    path = write("fuzz.parquet", bytes(data if keep is None else data[: keep % len(data)]))
    readers = {
        "read_scores": lambda: rk.io.read_scores(path, measure="AP"),
        "score_matrices": lambda: rk.io.score_matrices(path),
        "read_variation_table": lambda: read_variation_table(path),
    }
    only_riskeval_errors(f"{read} parquet", readers[read], path)


# --- every format of the registry ------------------------------------------------------------------


@functools.cache
def _parquet_seed() -> bytes:
    return parquet_seed()


@st.composite
def damaged_parquet(draw) -> bytes:
    """A valid Parquet score table with bytes changed, or cut."""
    data = bytearray(_parquet_seed())
    for position, mask in draw(st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), max_size=8)):
        data[position % len(data)] ^= mask
    keep = draw(st.none() | st.integers(0, 10**6))
    return bytes(data if keep is None else data[: keep % len(data)])


#: A valid file of each format of riskeval.io.formats.FORMATS (None: Parquet), and its file name.
FORMAT_SEEDS = {
    "csv": (LONG_CSV, "fuzz-f.csv"),
    "tsv": (LONG_CSV.replace(",", "\t"), "fuzz-f.tsv"),
    "parquet": (None, "fuzz-f.parquet"),
    "trec_eval": (TREC_EVAL, "fuzz-f.eval"),
    "ir_measures": (IR_MEASURES, "fuzz-f.jsonl"),
}


#: The readers above fuzz these formats at length; here each format of the registry gets a few inputs
#: in the normal run (the long profile: as many as every test).
REGISTRY = FUZZ if os.environ.get("RISKEVAL_FUZZ") == "long" else settings(FUZZ, max_examples=15)


@pytest.mark.parametrize("name", [f.name for f in FORMATS])
@REGISTRY
@given(data=st.data())
def test_every_format_of_the_registry(name, data):
    """Each reader of the registry, as ``score_matrices`` calls it: an InputFormatError naming the
    file (or MissingTopicsError), whatever the bytes."""
    assert name in FORMAT_SEEDS, f"format {name!r} has no seed file here: add one"
    seed, filename = FORMAT_SEEDS[name]
    if seed is None:
        pytest.importorskip("pyarrow")
    path = write(filename, data.draw(damaged_parquet() if seed is None else contents(seed)))
    fmt = named_format(name, "fuzz")
    only_riskeval_errors(f"format {name}", lambda: fmt.read([str(path)], Request()), path)

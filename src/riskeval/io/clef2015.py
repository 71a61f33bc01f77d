"""CLEF eHealth 2015 Task 2 (consumer health search with query variations) as variation data.

The campaign folder (upstream CLEFeHealth/CLEFeHealth2015Task2, GPL-2.0) holds:

- ``queries/clef2015.test_with_narratives.queries-EN.txt``: 67 queries ``clef2015.test.N``, each
  with ``<query_index>`` (the information need, 1–23) and ``<type>`` (the variant: ``pivot``,
  ``most`` or ``least`` similar to the pivot).  The file is *not* well-formed XML (``<type>`` is
  closed by ``</disease>``), so it is read block by block with patterns that accept any closing
  tag.
- ``pertopic-evals/<run>.dat``: the official trec_eval ``-q`` output of each of the 110 runs, with
  queries named ``qtest.N`` (the same ``N``).

What the data holds (checked on the files): 22 needs have three variants in the queries file and
need 23 only a pivot (``clef2015.test.60``); query ``clef2015.test.62`` (need 13, ``least``) has no
relevance judgements and therefore no evaluation, so need 13 has two evaluated variants.  That
leaves 21 needs × 3 variants = 63 queries complete in the evaluations, the set Zuccon et al. (2016,
§5.1) used.  :func:`read_clef2015` drops the two incomplete needs by default, with a warning naming
them; ``incomplete="keep"`` keeps their 3 evaluated queries (for the intra-topic form).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from riskeval.errors import RiskevalError
from riskeval.io.decoding import read_text
from riskeval.io.problems import Problems
from riskeval.io.trec_eval import read_trec_eval
from riskeval.model.variations import drop_incomplete_topics, from_scores

QUERIES_FILE = Path("queries") / "clef2015.test_with_narratives.queries-EN.txt"
EVALS_DIR = Path("pertopic-evals")
VARIANTS = ("pivot", "most", "least")

_BLOCK = re.compile(r"<top>((?:(?!<top>).)*?)</top>", re.S)  # not past the next <top>: linear time
_FIELD = {
    name: re.compile(rf"<{name}>\s*(.*?)\s*</\w*>", re.S)
    for name in ("num", "query", "disease", "type", "query_index")
}
_NUM = re.compile(r"(\d+)$", re.ASCII)


def read_clef2015_queries(path: str | Path) -> pd.DataFrame:
    """The query → (need, variant) mapping of the queries file with narratives.

    Returns one row per query with columns ``query`` (the evaluation id ``qtest.N``), ``topic``
    (the need, ``query_index``), ``variant`` (``pivot``/``most``/``least``), ``text`` and
    ``disease``.  Blocks lacking a field, unknown variant types and a need with a variant twice are
    reported together, with the line of each block.
    """
    path = Path(path)
    text = read_text(path)
    rows: list[dict[str, str]] = []
    problems = Problems()
    line, counted = 1, 0  # the line of offset ``counted``, counted on from the previous block
    for block in _BLOCK.finditer(text):
        line += text.count("\n", counted, block.start())
        counted = block.start()
        where = f"{path}:{line}"
        found = {k: pat.search(block.group(1)) for k, pat in _FIELD.items()}
        fields = {k: m.group(1) for k, m in found.items() if m is not None}
        absent = [k for k in ("num", "type", "query_index") if k not in fields]
        if absent:
            problems.append((where, f"<top> block without {', '.join(absent)}"))
            continue
        num = _NUM.search(fields["num"])
        variant = fields["type"].strip().lower()
        need = fields["query_index"].strip()
        if num is None or not (need.isascii() and need.isdigit()):
            problems.append((where, f"cannot read query number / need from {block.group(1)[:200]!r}"))
            continue
        if variant not in VARIANTS:
            problems.append((where, f"variant type {variant!r} is not one of {VARIANTS}"))
            continue
        rows.append(
            {
                "query": f"qtest.{num.group(1)}",
                "topic": need,
                "variant": variant,
                "text": fields.get("query", ""),
                "disease": fields.get("disease", ""),
            }
        )
    if not rows and not problems:
        problems.append((str(path), "no <top> blocks found"))
    mapping = pd.DataFrame(rows)
    if rows:
        dup = mapping.duplicated(["topic", "variant"], keep=False)
        for _, r in mapping[dup].iterrows():
            problems.append((str(path), f"need {r.topic} has variant {r.variant} twice ({r.query})"))
    problems.raise_any()
    rank = {v: i for i, v in enumerate(VARIANTS)}
    order = sorted(range(len(rows)), key=lambda i: (_numeric(rows[i]["topic"]), rank[rows[i]["variant"]]))
    return mapping.iloc[order].reset_index(drop=True)


def _numeric(digits: str) -> tuple[int, str]:
    """Sort key of a string of ASCII digits in numeric order, however many digits it has."""
    significant = digits.lstrip("0")
    return len(significant), significant


def read_clef2015(root: str | Path, *, measure: str = "P_10", incomplete: str = "drop") -> pd.DataFrame:
    """Tidy variation table (system, topic, variant, score, query) of CLEF eHealth 2015 Task 2.

    Parameters
    ----------
    root : path
        The campaign folder (``queries/`` and ``pertopic-evals/`` inside).
    measure : str
        The measure in the ``.dat`` files, by its trec_eval name (``P_10``, the task's primary
        measure; ``map``, ``ndcg_cut_10``, ...) or its ir_measures name (``P@10``, ``AP``).
    incomplete : {"drop", "keep"}
        ``"drop"`` (default) removes needs with fewer evaluated variants than three — needs 13 and
        23 — with a warning that names them; ``"keep"`` keeps every evaluated query.
    """
    root = Path(root)
    if incomplete not in ("drop", "keep"):
        raise RiskevalError(f"The 'incomplete' parameter must be 'drop' or 'keep'; got {incomplete!r}.")
    queries = root / QUERIES_FILE
    files = sorted((root / EVALS_DIR).glob("*.dat"))
    if not queries.is_file() or not files:
        raise RiskevalError(
            f"{root} does not look like the CLEF eHealth 2015 Task 2 folder: expected "
            f"{QUERIES_FILE} and {EVALS_DIR}/*.dat inside it."
        )
    mapping = read_clef2015_queries(queries)
    # systems by file name: the runid lines repeat across teams (e.g. LGDc1.0)
    matrix = read_trec_eval(files, measure, names=[f.name.removesuffix(".dat") for f in files])
    tidy = from_scores(matrix, mapping[["query", "topic", "variant"]])
    if incomplete == "drop":
        tidy = drop_incomplete_topics(tidy, what="information need")
    return tidy

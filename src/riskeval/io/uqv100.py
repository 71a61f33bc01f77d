"""Per-variant score files of query-variation collections: UQV100 and Robust04 user query variations
(for the mean–variance evaluation of Zuccon, Palotti & Hanbury, CIKM 2016).

The format, as the UQV100 (Bailey et al., SIGIR 2016) and Robust04 UQV (Benham & Culpepper, 2017)
score files published with query-performance-prediction studies have it: one line per query
variant, two fields separated by whitespace (a tab or spaces)::

    213-2264        0.239475          UQV100: topic 213, variant 2264
    213-ranking-11207122090 0.075295  UQV100 user queries: topic 213, variant ranking-11207122090
    301-4-2 0.6040                    Robust04: topic 301, variant 4-2

The query id is ``TOPIC-VARIANT``: the topic is the part before the first ``-``, the variant the
rest.  The file name gives the system and the measure when they are not passed: the part after
the last ``__`` (if any) up to the last ``.`` is the system, the part after the last ``.`` the
measure (``selected_runs__ltr-lgbm.ndcg@10`` → system ``ltr-lgbm``, measure ``ndcg@10``;
``cs-qpp__robust04_Lucene_indri_porter_QL.ndcg@10`` → ``robust04_Lucene_indri_porter_QL``).

Variant ids belong to one topic (variant ``2264`` of topic 213 and the variants of topic 223 are
different users), so these collections do not pair "user k" across topics as the general form of
mean–variance evaluation needs: use the intra-topic form, or pair variants by position
(``unequal="downsample"``), which is an assumption to state.  Topics also have different numbers
of variants; :func:`read_uqv100` applies an explicit ``unequal`` policy and warns with the
counts.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from riskeval.errors import RiskevalError, RiskevalWarning
from riskeval.io.decoding import lines, read_text
from riskeval.io.numbers import parse_decimal
from riskeval.io.problems import Problems
from riskeval.options import UNEQUAL_POLICIES, check_option

#: Columns of :func:`read_variant_scores` and :func:`read_uqv100`.
COLUMNS = ("system", "topic", "variant", "score", "query", "measure")

_FIELDS = re.compile(r"\s+")


def names_from_path(path: str | os.PathLike[str]) -> tuple[str, str | None]:
    """``(system, measure)`` from a score file's name (see the module docstring)."""
    name = Path(path).name
    for suffix in (".gz", ".bz2", ".xz"):
        name = name.removesuffix(suffix)
    stem = name.rsplit("__", 1)[-1]
    system, dot, measure = stem.rpartition(".")
    return (system, measure) if dot and system else (stem, None)


def read_variant_scores(
    path: str | os.PathLike[str], *, system: str | None = None, measure: str | None = None
) -> pd.DataFrame:
    """One per-variant score file as a tidy table ``system, topic, variant, score, query, measure``
    (one row per line, in file order).

    ``system`` and ``measure`` default to the names in the file name.  Every malformed line (not
    two fields, a query id without ``-``, a score that is not a decimal number, a query id given
    twice) is reported at once, by file and line, as an :class:`~riskeval.errors.InputFormatError`.
    """
    location = os.fspath(path)
    auto_system, auto_measure = names_from_path(location)
    system = system or auto_system
    measure = measure or auto_measure
    rows: list[tuple[str, str, float, str]] = []
    problems = Problems()
    seen: dict[str, int] = {}
    for number, raw in enumerate(lines(read_text(location)), start=1):
        line = raw.strip()
        if not line:
            continue
        fields = _FIELDS.split(line)
        where = f"{location}:{number}"
        if len(fields) != 2:
            problems.append(
                (where, f"expected two fields, query id and score; got {len(fields)}: {line[:80]!r}")
            )
            continue
        qid, text = fields
        topic, dash, variant = qid.partition("-")
        score = parse_decimal(text)
        if not dash or not topic or not variant:
            problems.append((where, f"query id {qid!r} is not TOPIC-VARIANT"))
        elif score is None or not np.isfinite(score):
            problems.append((where, f"score {text!r} is not a decimal number"))
        elif qid in seen:
            problems.append((where, f"query {qid!r} appears twice (first on line {seen[qid]})"))
        else:
            seen[qid] = number
            rows.append((topic, variant, score, qid))
    if not rows and not problems:
        problems.append((location, "no scores in the file"))
    problems.raise_any()
    frame = pd.DataFrame(rows, columns=["topic", "variant", "score", "query"])
    frame.insert(0, "system", system)
    frame["measure"] = measure
    return frame[list(COLUMNS)]


def read_uqv100(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    systems: Sequence[str] | None = None,
    unequal: str = "raise",
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Per-variant score files of one or more systems, as the tidy table of
    :func:`riskeval.variations.mean_variance` (``system, topic, variant, score, query, measure``).

    Parameters
    ----------
    paths : one file or a list, one per system (:func:`read_variant_scores`).
    systems : the systems' names, one per path (default: from the file names).
    unequal : {"raise", "drop", "downsample", "keep"}
        Topics with different numbers of variants — every topic of UQV100's user queries and of
        Robust04 has its own count.  A :class:`~riskeval.errors.RiskevalWarning` counts them
        whatever the policy.  ``"raise"`` (default): a :class:`~riskeval.errors.RiskevalError`
        naming the options; ``"drop"``: keep only the topics with the most variants;
        ``"downsample"``: keep, per topic, a random subset (``rng``) of as many variants as the
        least complete topic has, the same variants for every system; ``"keep"``: all variants
        (for the intra-topic form, which takes each topic on its own).  The policy names are those
        of :func:`riskeval.variations.variation_array`.
    rng : the randomness of ``"downsample"``: an int seed, a :class:`numpy.random.Generator`, or None.

    Notes
    -----
    Every file must score the same measure (a table mixing nDCG@10 and AP would compare nothing);
    a system's topics and variants are checked downstream by the missing-cell policy of
    :func:`riskeval.variations.variation_array`.
    """
    unequal = check_option(unequal, UNEQUAL_POLICIES, "read_uqv100", "unequal")
    files = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    if not files:
        raise RiskevalError("read_uqv100 needs at least one score file.")
    names = list(systems) if systems is not None else [None] * len(files)
    if len(names) != len(files):
        raise RiskevalError(f"read_uqv100: {len(files)} file(s) but {len(names)} system name(s).")
    frames = [read_variant_scores(p, system=n) for p, n in zip(files, names, strict=True)]
    measures = {f["measure"].iloc[0] for f in frames}
    if len(measures) > 1:
        raise RiskevalError(
            f"read_uqv100: the files score different measures {sorted(map(str, measures))}; "
            "give files of one measure."
        )
    dup = pd.Series([f["system"].iloc[0] for f in frames])
    if dup.duplicated().any():
        raise RiskevalError(
            f"read_uqv100: system name(s) {dup[dup.duplicated()].tolist()} given twice; pass systems=."
        )
    table = pd.concat(frames, ignore_index=True)
    return apply_unequal(table, unequal, rng)


def apply_unequal(table: pd.DataFrame, unequal: str, rng: int | np.random.Generator | None) -> pd.DataFrame:
    """The ``unequal`` policy of :func:`read_uqv100` on a tidy variation table."""
    cells = table.drop_duplicates(["topic", "variant"])
    counts = cells.groupby("topic", sort=False).size()
    if counts.nunique() <= 1:
        return table
    top, low = int(counts.max()), int(counts.min())
    short = int((counts < top).sum())
    warnings.warn(
        f"{short} of {len(counts)} topics have fewer variants than the most complete one "
        f"({low} to {top} variants per topic); unequal={unequal!r}.",
        RiskevalWarning,
        stacklevel=3,
    )
    if unequal == "raise":
        raise RiskevalError(
            f"Topics have different numbers of variants ({low} to {top}; {short} of {len(counts)} "
            f"topics have fewer than {top}). Choose a policy: unequal='keep' (every variant; the "
            f"intra-topic form), 'downsample' with rng= a seed (each topic keeps {low} random variants), "
            f"or 'drop' (only the {len(counts) - short} topics with {top} variants)."
        )
    if unequal == "keep":
        return table
    if unequal == "drop":
        keep = counts.index[counts == top]
        return table[table["topic"].isin(keep)].reset_index(drop=True)
    draw = np.random.default_rng(rng)
    chosen = [
        (topic, variant)
        for topic, part in cells.groupby("topic", sort=False)
        for variant in part["variant"].to_numpy()[np.sort(draw.choice(len(part), size=low, replace=False))]
    ]
    keep_cells = pd.MultiIndex.from_tuples(chosen, names=["topic", "variant"])
    mask = pd.MultiIndex.from_frame(table[["topic", "variant"]]).isin(keep_cells)
    return table[mask].reset_index(drop=True)

"""Qrels and topics by ir_datasets id (``"irds:msmarco-passage/trec-dl-2020/judged"``), read from the
copy ir_datasets keeps on this machine (MacAvaney et al., SIGIR 2021).

riskeval never downloads: when ir_datasets would have to fetch a file to give the qrels or topics,
the error names the dataset and says that a download is needed, before any byte is requested.
ir_datasets is the optional extra ``irds`` (``pip install "riskeval[irds]"``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import pandas as pd

from riskeval._optional import require
from riskeval.errors import RiskevalError

PREFIX = "irds:"


def irds_qrels(spec: str) -> pd.DataFrame:
    """The qrels of an ir_datasets dataset as ir_measures' DataFrame ``query_id, doc_id, relevance``.

    ``spec`` is ``"irds:<dataset id>"`` (or the id alone).

    Raises
    ------
    MissingDependencyError
        ir_datasets is not installed.
    RiskevalError
        No such dataset, a dataset without qrels, or qrels that are not on this machine (reading
        them would need a download, which is not started).
    """
    dataset_id, dataset = _load(spec, "Qrels by ir_datasets id")
    if not dataset.has_qrels():
        raise RiskevalError(f"The ir_datasets dataset {dataset_id!r} has no qrels.")
    with _offline(dataset_id, "qrels"):
        rows = [(str(q.query_id), str(q.doc_id), int(q.relevance)) for q in dataset.qrels_iter()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def irds_topics(spec: str, field: str | None = None) -> pd.DataFrame:
    """The topics of an ir_datasets dataset as PyTerrier's DataFrame ``qid, query``.

    ``field`` is the query field to use; ``None``: ``text`` when the queries have one, else
    ``title`` (TREC topics).  Raises as :func:`irds_qrels`.
    """
    dataset_id, dataset = _load(spec, "Topics by ir_datasets id")
    if not dataset.has_queries():
        raise RiskevalError(f"The ir_datasets dataset {dataset_id!r} has no queries.")
    fields = dataset.queries_cls()._fields
    chosen = field or next((f for f in ("text", "title") if f in fields), None)
    if chosen is None or chosen not in fields or chosen == "query_id":
        raise RiskevalError(
            f"The queries of {dataset_id!r} have the fields {list(fields)}; choose the query text "
            f"with field= (got {field!r})."
        )
    with _offline(dataset_id, "queries"):
        rows = [(str(q.query_id), str(getattr(q, chosen))) for q in dataset.queries_iter()]
    return pd.DataFrame(rows, columns=["qid", "query"])


def _load(spec: str, feature: str) -> tuple[str, Any]:
    ir_datasets = require("ir_datasets", feature)
    dataset_id = spec.removeprefix(PREFIX)
    try:
        return dataset_id, ir_datasets.load(dataset_id)
    except KeyError:
        raise RiskevalError(
            f"ir_datasets has no dataset {dataset_id!r} (ids as on https://ir-datasets.com, "
            "e.g. 'irds:msmarco-passage/trec-dl-2020/judged')."
        ) from None


class _DownloadNeeded(Exception):
    """Raised in place of a download ir_datasets would start."""


@contextlib.contextmanager
def _offline(dataset_id: str, what: str) -> Iterator[None]:
    """Refuse every download ir_datasets would start while reading ``what`` of the dataset."""
    from ir_datasets.util import download  # type: ignore[import-untyped]

    wanted: list[str] = []

    def refuse(self: Any, *args: Any, **kwargs: Any) -> Any:
        wanted.append(str(getattr(self, "url", None) or getattr(self, "uri", None) or self))
        raise _DownloadNeeded(wanted[-1])

    remote = [download.RequestsDownload, download.GoogleDriveDownload, download.GoogleCloudBucketStream]
    saved = [(cls, cls.__dict__["stream"]) for cls in remote]
    disabled = logging.root.manager.disable
    try:
        for cls in remote:
            cls.stream = refuse
        logging.disable(logging.WARNING)  # no "Download failed" warning for a refused download
        try:
            yield
        except Exception as exc:
            if not wanted:
                raise RiskevalError(
                    f"ir_datasets could not read the {what} of {dataset_id!r}: {exc}"
                ) from exc
            raise RiskevalError(
                f"The {what} of the ir_datasets dataset {dataset_id!r} are not on this machine: "
                f"reading them needs a download ({wanted[0]}), which riskeval does not start. "
                f"Download them once with ir_datasets (e.g. `ir_datasets export {dataset_id} "
                f"{'qrels' if what == 'qrels' else 'queries'}` with network access), then try again."
            ) from None
    finally:
        for cls, stream in saved:
            cls.stream = stream
        logging.disable(disabled)

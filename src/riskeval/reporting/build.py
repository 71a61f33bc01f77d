"""``riskeval.report`` (defined here): one self-contained HTML file from a score matrix.

The page is a list of sections.  A section builder is a function ``builder(ctx) -> Section | None``
that reads a :class:`ReportContext` (the matrix, the settings, results computed once and shared)
and returns a :class:`Section` — or ``None`` when it has nothing to show (e.g. its input is not in
``ctx.data``).  :data:`riskeval.reporting.sections.DEFAULT_SECTIONS` lists the built-in builders;
pass ``sections=[*DEFAULT_SECTIONS, my_builder]`` to add one.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from riskeval import __version__
from riskeval._optional import require
from riskeval.errors import RiskevalError
from riskeval.model.matrix import as_matrix
from riskeval.options import SE_METHODS, check_alphas, check_correction, check_level, check_option


@dataclass(frozen=True)
class Section:
    """One part of the page: a title (plain text, escaped; it also makes the anchor unless ``id``
    is given) and its body, HTML inserted as it is (build it with :mod:`riskeval.reporting.html`,
    which escapes text and data)."""

    title: str
    body: str
    id: str | None = None


@dataclass
class ReportContext:
    """What section builders read.

    ``matrix``: the validated systems × topics scores; ``baseline``: the baseline as given
    (``"mean"``, a system name, a per-topic vector); ``settings``: what :attr:`Report.settings`
    records (``alphas``, ``level``, ``correction``, ``se``, ``leave_one_out``, ``topic_alpha``,
    ``bias_alpha``, ``n_risky``, ...); ``data``: further inputs by name, for builders that need more
    than the matrix.  ``risk_table`` and ``bias_study`` are computed on first use and shared.
    """

    matrix: pd.DataFrame
    baseline: Any
    settings: dict[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    n_figures: int = field(default=0, repr=False)

    @functools.cached_property
    def risk_table(self) -> pd.DataFrame:
        from riskeval.analysis.table import risk_table

        s = self.settings
        return risk_table(
            self.matrix,
            baseline=self.baseline,
            alphas=s["alphas"],
            se=s["se"],
            level=s["level"],
            correction=s["correction"],
            leave_one_out=s["leave_one_out"],
        )

    @functools.cached_property
    def bias_study(self) -> Any:
        from riskeval.analysis.bias_study import bias_study

        return bias_study(self.matrix, self.settings["bias_alpha"])

    def new_axes(self, width: float = 8.0, height: float = 4.5) -> Any:
        """Axes on a new figure that belongs to no pyplot state (nothing to close, no GUI)."""
        from matplotlib.figure import Figure

        return Figure(figsize=(width, height), layout="constrained").add_subplot()

    def figure(self, display: Any, caption: str | None = None) -> Markup:
        """Inline SVG of ``display``'s figure, with ids unique in the page."""
        from riskeval.reporting.html import figure

        self.n_figures += 1
        return figure(display, caption, prefix=f"f{self.n_figures}-")


@dataclass(frozen=True)
class Report:
    """Result of :func:`report`: the page (``html``), where it was written (``path``, or ``None``),
    the recorded inputs and settings (``settings``) and the titles of its sections."""

    html: str
    path: Path | None
    settings: dict[str, Any]
    sections: tuple[str, ...]

    def save(self, path: str | os.PathLike) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path.  The file is written atomically
        (:func:`riskeval.io.atomic.write_atomic`): a failed write leaves any previous file intact,
        and a path that is one of the report's input files is refused."""
        from riskeval.io.atomic import write_atomic

        return write_atomic(path, self.html, inputs=self.settings.get("inputs", ()))


def report(
    X: Any,
    *,
    baseline: Any = "mean",
    alphas: Any = (0.0, 1.0, 5.0, 10.0),
    level: float = 0.05,
    correction: str | None = None,
    se: str = "parametric",
    leave_one_out: bool = False,
    measure: str | None = None,
    inputs: Sequence[str] | str | None = None,
    title: str | None = None,
    n_risky: int = 3,
    sections: Sequence[Callable[[ReportContext], Section | None]] | None = None,
    data: Mapping[str, Any] | None = None,
    path: str | os.PathLike | None = None,
) -> Report:
    """A risk report of the systems of score matrix ``X`` as one self-contained HTML page.

    The page holds the risk table per α (URisk, TRisk, T*Risk, GeoRisk against ``baseline``), the
    significant topics of the ``n_risky`` riskiest systems, GeoRisk and TRisk as α grows, the
    baseline-bias study (PCA with virtual MEAN/MEDIAN/MAX runs, Friedman test) and the inputs and
    settings that produced it.  Plots are inline SVG: the file needs no server, no script and no
    other file.

    Parameters
    ----------
    X : systems × topics score matrix (DataFrame or 2-D array).
    baseline, alphas, level, correction, se, leave_one_out : as in :func:`riskeval.risk_table`.
    measure : the effectiveness measure of the scores (e.g. ``"nDCG@10"``), recorded and shown.
    inputs : the file(s) the scores came from, recorded and shown.
    title : page title (default: "Risk report").
    n_risky : how many of the riskiest systems get a per-topic analysis.
    sections : section builders (default :data:`riskeval.reporting.sections.DEFAULT_SECTIONS`).
    data : further inputs for custom section builders (``ctx.data``).
    path : where to write the page; ``None`` writes nothing (``Report.html`` holds it).
    """
    for module in ("matplotlib", "jinja2", "markupsafe"):
        require(module, "riskeval.report")
    from riskeval.reporting.sections import DEFAULT_SECTIONS

    M = as_matrix(X)
    A = check_alphas(alphas, "report")
    if M.shape[0] < 3 or M.shape[1] < 2:
        raise RiskevalError(
            f"report needs at least 3 systems and 2 topics (the bias study compares "
            f"systems); got {M.shape[0]} × {M.shape[1]}."
        )
    if not isinstance(n_risky, (int, np.integer)) or n_risky < 0:
        raise RiskevalError(f"The 'n_risky' parameter of report must be an integer >= 0. Got {n_risky!r}.")
    positive = A[A > 0]
    settings = {
        "title": title or "Risk report",
        "inputs": [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs or []),
        "measure": measure,
        "systems": M.shape[0],
        "topics": M.shape[1],
        "baseline": baseline if isinstance(baseline, str) else "a given per-topic vector",
        "alphas": [float(a) for a in A],
        "level": check_level(level, "report"),
        "correction": (check_correction(correction, "report")),
        "se": check_option(se, SE_METHODS, "report", "se"),
        "leave_one_out": bool(leave_one_out),
        # The per-topic analysis uses the largest α of the list, the bias study the smallest
        # positive one (URisk at α = 0 is UGain, which no baseline biases in rank).
        "topic_alpha": float(A.max()),
        "bias_alpha": float(positive.min()) if positive.size else 1.0,
        "n_risky": int(n_risky),
        "riskeval": __version__,
        "python": platform.python_version(),
        "created": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    ctx = ReportContext(M, baseline, settings, data or {})
    # The risk table validates the baseline before any section is drawn.
    settings["baseline"] = str(ctx.risk_table["baseline"].iloc[0])
    built = [s for s in (b(ctx) for b in (DEFAULT_SECTIONS if sections is None else sections)) if s]
    result = Report(_render(settings, built), None, settings, tuple(s.title for s in built))
    if path is None:
        return result
    return Report(result.html, result.save(path), settings, result.sections)


def _render(settings: dict[str, Any], sections: list[Section]) -> str:
    from jinja2 import Environment, PackageLoader, select_autoescape
    from markupsafe import Markup

    from riskeval.reporting.html import slug

    env = Environment(
        loader=PackageLoader("riskeval.reporting", "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["g"] = lambda v: f"{v:g}"
    ids: set[str] = set()
    entries = []
    for s in sections:
        sid = s.id or slug(s.title)
        while sid in ids:
            sid += "-x"
        ids.add(sid)
        entries.append({"id": sid, "title": s.title, "body": Markup(s.body)})
    return env.get_template("report.html.j2").render(settings=settings, sections=entries)

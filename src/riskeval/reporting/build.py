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
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from riskeval import __version__
from riskeval._optional import require
from riskeval.errors import RiskevalError
from riskeval.measures.declared import RISK_MEASURES, risk_measures
from riskeval.model.matrix import as_matrix
from riskeval.options import check_option
from riskeval.settings import RiskSettings, resolve_settings

if TYPE_CHECKING:
    from markupsafe import Markup


#: The start of the body of a section left out with one line saying why (the contents mark it).
LEFT_OUT = '<p class="left-out">'


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
    """What section builders read (one context per measure).

    ``matrix``: the validated systems × topics scores; ``baseline``: the baseline as given
    (``"mean"``, a system name, a per-topic vector); ``settings``: what :attr:`Report.settings`
    records (``alphas``, ``level``, ``correction``, ``se``, ``leave_one_out``, ``topic_alpha``,
    ``bias_alpha``, ``n_risky``, ``risk``, ``test``, ``n_resamples``, ``seed``, ``focus``, ...); ``data``:
    further inputs by name, for builders that need more than the matrix; ``measure``: the name of
    this matrix's measure (or ``None``); ``topic_text``: topic id → text, for display;
    ``key``: a short id unique to this measure in the page (prefix of element ids); ``columns``:
    the columns of :func:`riskeval.risk_table` that the tables show (those of the measures of
    ``risk=``), ``None`` for all.
    ``risk_table`` (with the p-values of ``settings["test"]``) and ``bias_study`` are computed on
    first use and shared: every "significant" of the page comes from ``risk_table`` (systems) or
    :func:`riskeval.topic_risk` (topics).
    """

    matrix: pd.DataFrame
    baseline: Any
    settings: dict[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)
    n_figures: int = field(default=0, repr=False)
    measure: str | None = None
    topic_text: Mapping[str, str] = field(default_factory=dict)
    key: str = "m0"
    log: Callable[[str], None] = field(default=lambda message: None, repr=False)  # progress
    columns: tuple[str, ...] | None = None
    _data_written: bool = field(default=False, repr=False)

    @functools.cached_property
    def risk_table(self) -> pd.DataFrame:
        from riskeval.analysis.table import risk_table
        from riskeval.inference.tables import with_test

        s = self.settings
        self.log("risk table")
        table = risk_table(
            self.matrix,
            baseline=self.baseline,
            alphas=s["alphas"],
            se=s["se"],
            level=s["level"],
            correction=s["correction"],
            leave_one_out=s["leave_one_out"],
        )
        if s["test"] == "t":
            return table
        self.log(f"{s['test']} test, {s['n_resamples']} resamples")
        return with_test(
            table,
            self.matrix,
            test=s["test"],
            baseline=self.baseline,
            n_resamples=s["n_resamples"],
            rng=s["seed"],
            leave_one_out=s["leave_one_out"],
        )

    def topic_risk(self, system: str, alpha: float) -> pd.DataFrame:
        """The per-topic analysis of ``system`` against the baseline at ``alpha``, with the page's
        level, correction and leave-one-out (:func:`riskeval.analysis.topics.system_topic_risk`)."""
        from riskeval.analysis.topics import system_topic_risk

        s = self.settings
        return system_topic_risk(
            self.matrix,
            system,
            self.baseline,
            alpha,
            level=s["level"],
            correction=s["correction"],
            leave_one_out=s["leave_one_out"],
        )

    @property
    def focus(self) -> list[str]:
        """The systems the user asked to see (``systems=``), in the matrix; empty when none."""
        return [name for name in self.settings["focus"] if name in self.matrix.index]

    @functools.cached_property
    def page_data(self) -> dict[str, Any]:
        """The JSON of the interactive parts (:func:`riskeval.reporting.explorer.page_data`)."""
        from riskeval.reporting.explorer import page_data

        return page_data(self)

    def data_script(self) -> Markup:
        """The ``<script type="application/json">`` of :attr:`page_data`, the first time it is
        asked for (the sections that use it call this; the page holds it once)."""
        from markupsafe import Markup

        from riskeval.reporting.html import json_script

        if self._data_written:
            return Markup("")
        self._data_written = True
        return json_script(f"rk-data-{self.key}", self.page_data)

    @functools.cached_property
    def bias_study(self) -> Any:
        from riskeval.analysis.baseline_bias import bias_study

        self.log("bias study")
        return bias_study(self.matrix, self.settings["bias_alpha"])

    def new_axes(self, width: float = 8.0, height: float = 4.5) -> Any:
        """Axes on a new figure that belongs to no pyplot state (nothing to close, no GUI)."""
        from matplotlib.figure import Figure

        return Figure(figsize=(width, height), layout="constrained").add_subplot()

    def figure(self, display: Any, caption: str | None = None) -> Markup:
        """Inline SVG of ``display``'s figure, with ids unique in the page."""
        from riskeval.reporting.html import figure

        self.n_figures += 1
        return figure(display, caption, prefix=f"{self.key}f{self.n_figures}-")


#: A section builder: the section of a measure's page, or ``None`` to stay out of the page.
Builder = Callable[[ReportContext], "Section | None"]


@dataclass(frozen=True)
class Report:
    """Result of :func:`report`: the page (``html``), where it was written (``path``, or ``None``),
    the recorded inputs and settings (``settings``), the titles of its sections and the findings
    at the top of the page (``findings``, HTML).

    In a notebook the report shows as its findings and a link to the file (``_repr_html_``), and
    its ``repr`` is one line (title, systems × topics, path), never the page itself.
    """

    html: str = field(repr=False)
    path: Path | None
    settings: dict[str, Any] = field(repr=False)
    sections: tuple[str, ...] = field(repr=False)
    findings: str = field(default="", repr=False)

    def __repr__(self) -> str:
        s = self.settings
        measure = f", {s['measure']}" if s.get("measure") else ""
        where = f", written to {str(self.path)!r}" if self.path is not None else ", not written"
        return f"<Report {s['title']!r}: {s['systems']} systems × {s['topics']} topics{measure}{where}>"

    def _repr_html_(self) -> str:
        """The findings and a link to the page, for notebooks (the page itself is far too large)."""
        from markupsafe import Markup

        s = self.settings
        measure = f", {s['measure']}" if s.get("measure") else ""
        if self.path is None:
            where = Markup("not written to a file (<code>Report.save(path)</code> writes it)")
        else:
            target = self.path.resolve().as_uri()
            where = Markup('<a href="{}" target="_blank">{}</a>').format(target, str(self.path))
        head = Markup("<strong>{}</strong>: {} systems × {} topics{}; ").format(
            s["title"], s["systems"], s["topics"], measure
        )
        return str(
            Markup('<div class="riskeval-report">') + head + where + Markup(self.findings) + Markup("</div>")
        )

    def save(self, path: str | os.PathLike) -> Path:
        """Write the page to ``path`` (UTF-8) and return the path.  The file is written atomically
        (:func:`riskeval.io.atomic.write_atomic`): a failed write leaves any previous file intact,
        and a path that is one of the report's input files is refused."""
        from riskeval.io.atomic import write_atomic

        return write_atomic(path, self.html, inputs=self.settings.get("inputs", ()))


def report(
    X: Any,
    *,
    settings: RiskSettings | None = None,
    risk: Any = None,
    baseline: Any = None,
    alphas: Any = None,
    level: float | None = None,
    correction: str | None = None,
    se: str | None = None,
    leave_one_out: bool | None = None,
    measure: str | None = None,
    systems: Sequence[str] | None = None,
    topics: Mapping[Any, str] | None = None,
    test: str = "t",
    n_resamples: int = 10_000,
    rng: Any = None,
    inputs: Sequence[str] | str | None = None,
    title: str | None = None,
    n_risky: int = 3,
    progress: bool = False,
    sections: Sequence[Builder] | None = None,
    data: Mapping[str, Any] | None = None,
    bayes: Any = None,
    judged: Any = None,
    path: str | os.PathLike | None = None,
) -> Report:
    """A risk report of the systems of score matrix ``X`` as one self-contained HTML page.

    The page holds the risk table per α (URisk, TRisk, T*Risk, GeoRisk, ZRisk against
    ``baseline``), the per-topic analysis of any system, GeoRisk and TRisk as α grows, the
    baseline-bias study (PCA with virtual MEAN/MEDIAN/MAX runs, Friedman test) and the inputs and
    settings that produced it.  Its data travel in the page as JSON, with a small inline script
    that sorts and filters the tables, switches α and the system of the per-topic analysis and
    draws the plots that follow them; with scripts off the page shows the same tables at the
    default α and system.  The file needs no server, no network and no other file.

    Parameters
    ----------
    X : DataFrame, 2-D array or mapping
        Systems × topics score matrix, or a mapping measure name → matrix (one tab per measure).
        Two systems (a run and its baseline) are enough; sections that need more say why they are
        left out.
    settings : RiskSettings, optional
        The baseline, α grid, level, correction, leave-one-out and standard error in one object
        (default :class:`riskeval.RiskSettings`); the keywords below override its values.
    risk : RiskMeasure, str or list of them, optional
        The risk measures whose columns the risk tables show (objects such as
        ``riskeval.URisk(alpha=5)`` or their text such as ``"GeoRisk@5"``); default every
        measure.  As in :func:`riskeval.risk_table`, the tables then hold the α of the measures
        (a measure without α: every α of the settings), and so does the rest of the page.
    baseline, alphas, level, correction, se, leave_one_out : optional
        As in :func:`riskeval.risk_table`; ``None`` takes the value of ``settings``.
    measure : str, optional
        The effectiveness measure of the scores (e.g. ``"nDCG@10"``), recorded and shown.
    systems : list of str, optional
        The systems to focus on: drawn in colour in the plots, always among the systems whose
        per-topic values the page holds, first in its system picker, and the per-topic view opens
        on the first; every table keeps every system, and the MEAN/MEDIAN/MAX baselines, ZRisk
        and GeoRisk still use every system of ``X``.
    topics : mapping, optional
        Topic id → text (e.g. from :func:`riskeval.io.topic_texts.read_topic_texts`), shown beside
        the topic ids.
    test : {"t", "permutation", "bootstrap"}, default "t"
        The p-values of the risk table, as in ``riskeval risk --test``: Student's t of TRisk
        (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12), the sign-flip randomisation test or the
        BCa bootstrap of URisk; recorded and stated.
    n_resamples : int, default 10000
        Resamples of a randomisation or bootstrap ``test``.
    rng : int, numpy.random.Generator or None
        Seed of the resamples: an int, a generator (a seed is drawn from it) or None (a seed is
        drawn from the operating system's entropy).  The seed used is recorded (``settings["seed"]``)
        and stated on the page: passing it back as ``rng`` gives the same p-values.
    inputs : str or list of str, optional
        The file(s) the scores came from, recorded and shown (shortened to their folders).
    title : str, optional
        Page title (default: "Risk report").
    n_risky : int, default 3
        How many of the riskiest systems are listed with their significant topics.
    progress : bool, default False
        Report each step with its elapsed time on stderr.
    sections : list of callables, optional
        Section builders (default :data:`riskeval.reporting.sections.DEFAULT_SECTIONS`).
    data : mapping, optional
        Further inputs for custom section builders (``ctx.data``).
    bayes : riskeval.bayes.ChampionComparison or mapping, optional
        Adds the section of a Bayesian champion–challenger analysis (Benham, Carterette, Culpepper
        & Moffat, SIGIR 2020): the forest plot of the systems' effects per α, the probability of
        beating the champion and the sampling checks' verdict.  With several measures, a mapping
        measure name → comparison puts each in its measure's tab.
    judged : DataFrame or mapping, optional
        The fraction of each system's ranking that the qrels judge, per topic, at the depth of the
        measure (``Judged@k``, :func:`riskeval.evaluation.judged.judged_fractions`): a systems ×
        topics matrix of values in [0, 1] covering every system and topic of ``X``, or a mapping
        measure name → matrix.  The risk table then shows each system's mean judged fraction,
        and the per-topic analysis each topic's, flagging the losses against the baseline where
        it is below :data:`riskeval.reporting.judged.JUDGED_THRESHOLD`.  ``riskeval report
        --qrels`` computes it from the runs, in the same pass as the scores; from scores alone there
        is none, and the page says so.
    path : str or path, optional
        Where to write the page; ``None`` writes nothing (``Report.html`` holds it).

    Returns
    -------
    Report
        The page, where it was written, the recorded inputs and settings, the section titles.
    """
    for module in ("matplotlib", "jinja2", "markupsafe"):
        require(module, "riskeval.report")
    from riskeval.reporting.findings import findings
    from riskeval.reporting.sections import DEFAULT_SECTIONS

    s = resolve_settings(
        settings,
        "report",
        baseline=baseline,
        alphas=alphas,
        level=level,
        correction=correction,
        se=se,
        leave_one_out=leave_one_out,
    )
    columns = None
    if risk is not None:
        from riskeval.analysis.table import restrict_to_risks

        s, columns = restrict_to_risks(s, risk, "report")
    matrices = _matrices(X, measure)
    if not isinstance(n_risky, (int, np.integer)) or n_risky < 0:
        raise RiskevalError(f"The 'n_risky' parameter of report must be an integer >= 0. Got {n_risky!r}.")
    first = next(iter(matrices.values()))
    recorded = {
        "title": title or "Risk report",
        "inputs": [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs or []),
        "measure": ", ".join(n for n in matrices if n) or None,
        "measures": [n for n in matrices if n],
        "systems": first.shape[0],
        "topics": first.shape[1],
        "focus": _focus(systems, matrices),
        "topic_texts": len(topics or {}),
        **_risk_settings(s, risk, test, n_resamples, rng),
        "n_risky": int(n_risky),
        "riskeval": __version__,
        "python": platform.python_version(),
        "created": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if bayes is not None:
        data = {**(data or {}), "bayes": _champion_comparisons(bayes)}
    if judged is not None:
        from riskeval.reporting.judged import judged_matrices

        data = {**(data or {}), "judged": judged_matrices(judged, matrices)}
    log: Callable[[str], None] = _progress_log() if progress else _quiet
    texts = {str(k): str(v) for k, v in (topics or {}).items()}
    builders = DEFAULT_SECTIONS if sections is None else sections
    groups = []
    found: list[tuple[str | None, Markup]] = []
    for k, (name, M) in enumerate(matrices.items()):
        ctx = ReportContext(
            M,
            s.baseline,
            recorded,
            data or {},
            measure=name,
            topic_text=texts,
            key=f"m{k}",
            log=functools.partial(_prefixed, log, f"{name}: ") if len(matrices) > 1 else log,
            columns=columns,
        )
        built = _sections(ctx, builders, log)
        log("findings")
        found.append((name, findings(ctx)))
        groups.append((name, ctx.key, built))
    log("page")
    summary = _findings_block(found)
    html = _render(recorded, groups, summary)
    titles = tuple(
        x.title if len(groups) == 1 else f"{name}: {x.title}" for name, _, built in groups for x in built
    )
    result = Report(html, None, recorded, titles, str(summary))
    if path is not None:
        result = Report(html, result.save(path), recorded, titles, str(summary))
        log(f"wrote {result.path} ({len(html.encode()) / 1e6:.2f} MB)")
    return result


def _risk_settings(s: RiskSettings, risk: Any, test: str, n_resamples: Any, rng: Any) -> dict[str, Any]:
    """The risk settings as the report records and states them: the risk measures by their text,
    the test with its resamples and the seed drawn from ``rng``, and the α of the per-topic analysis
    (the largest of the grid) and of the bias study (the smallest positive one: URisk at α = 0 is
    UGain, which no baseline biases in rank)."""
    from riskeval.inference._common import check_n_resamples, resolve_rng
    from riskeval.options import RISK_TESTS

    test = check_option(test, RISK_TESTS, "report", "test")
    measures = risk_measures(risk, "report") if risk is not None else [m() for m in RISK_MEASURES.values()]
    positive = [a for a in s.alphas if a > 0]
    return {
        "baseline": s.baseline if isinstance(s.baseline, str) else "a given per-topic vector",
        "alphas": list(s.alphas),
        "level": s.level,
        "correction": s.correction,
        "se": s.se,
        "leave_one_out": s.leave_one_out,
        "risk": list(dict.fromkeys(str(m) for m in measures)),
        "test": test,
        "n_resamples": check_n_resamples(n_resamples, "report") if test != "t" else None,
        "seed": resolve_rng(rng, "report")[1] if test != "t" else None,
        "topic_alpha": max(s.alphas),
        "bias_alpha": min(positive) if positive else 1.0,
    }


def _champion_comparisons(bayes: Any) -> Any:
    """``bayes=`` checked: a :class:`~riskeval.bayes.ChampionComparison` or a mapping of them."""
    from riskeval.bayes.champion import ChampionComparison

    values = list(bayes.values()) if isinstance(bayes, Mapping) else [bayes]
    wrong = [v for v in values if not isinstance(v, ChampionComparison)]
    if wrong or not values:
        raise RiskevalError(
            "The 'bayes' parameter of report must be a riskeval.bayes.ChampionComparison (from "
            "riskeval.bayes.champion_challengers) or a mapping measure name -> one; got "
            f"{type(wrong[0] if wrong else bayes).__name__}."
        )
    return bayes


def _focus(systems: Any, matrices: dict[str | None, pd.DataFrame]) -> list[str]:
    """The names of ``systems=``, each a system of one of the matrices."""
    focus = [] if systems is None else [str(x) for x in ([systems] if isinstance(systems, str) else systems)]
    unknown = [x for x in focus if not any(x in M.index for M in matrices.values())]
    if unknown:
        first = next(iter(matrices.values())).index
        raise RiskevalError(
            f"report: no system {', '.join(map(repr, unknown))} in the scores (systems=); they hold "
            f"{', '.join(map(repr, first[:8]))}{' ...' if len(first) > 8 else ''}."
        )
    return focus


def _sections(
    ctx: ReportContext,
    builders: Sequence[Callable[[ReportContext], Section | None]],
    log: Callable[[str], None],
) -> list[Section]:
    """The sections of one measure's matrix, in the order of ``builders``."""
    # The risk table validates the baseline before any section is drawn.
    ctx.settings["baseline"] = str(ctx.risk_table["baseline"].iloc[0])
    built = []
    for builder in builders:
        log(getattr(builder, "__name__", "section").replace("_", " "))
        section = builder(ctx)
        if section is not None:
            built.append(section)
    return built


def _matrices(X: Any, measure: str | None) -> dict[str | None, pd.DataFrame]:
    """Measure name → validated matrix (at least 2 × 2): ``X`` itself (named ``measure``) or each
    entry of a mapping."""
    if isinstance(X, Mapping):
        if not X:
            raise RiskevalError("report: the mapping of measures to score matrices is empty.")
        matrices: dict[str | None, pd.DataFrame] = {str(name): as_matrix(M) for name, M in X.items()}
    else:
        matrices = {measure: as_matrix(X)}
    for name, M in matrices.items():
        if M.shape[0] < 2 or M.shape[1] < 2:
            what = f" of {name}" if name else ""
            raise RiskevalError(
                f"report needs at least 2 systems (a run and its baseline) and 2 topics; the "
                f"matrix{what} is {M.shape[0]} × {M.shape[1]}."
            )
    return matrices


def _prefixed(log: Callable[[str], None], prefix: str, message: str) -> None:
    log(prefix + message)


def _quiet(message: str) -> None:
    """No progress output."""


def _progress_log() -> Callable[[str], None]:
    import sys
    import time

    start = time.perf_counter()

    def log(message: str) -> None:
        print(
            f"riskeval report [{time.perf_counter() - start:6.1f} s] {message}", file=sys.stderr, flush=True
        )

    return log


def _findings_block(found: list[tuple[str | None, Markup]]) -> Markup:
    """The findings of every measure, each under its measure's name when there are several."""
    from markupsafe import Markup

    if len(found) == 1:
        return found[0][1]
    return Markup("").join(Markup("<h3>{}</h3>").format(name) + block for name, block in found)


def _render(
    settings: dict[str, Any], groups: list[tuple[str | None, str, list[Section]]], findings: Markup
) -> str:
    from importlib.resources import files

    from jinja2 import Environment, PackageLoader, select_autoescape
    from markupsafe import Markup

    from riskeval.reporting.html import short_paths, slug

    env = Environment(
        loader=PackageLoader("riskeval.reporting", "templates"),
        autoescape=select_autoescape(default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["g"] = lambda v: f"{v:g}"
    ids: set[str] = {"settings"}
    rendered = []
    for name, key, sections in groups:
        entries = []
        for s in sections:
            sid = s.id or slug(s.title)
            if len(groups) > 1:
                sid = f"{key}-{sid}"
            while sid in ids:
                sid += "-x"
            ids.add(sid)
            entries.append(
                {"id": sid, "title": s.title, "body": Markup(s.body), "left_out": s.body.startswith(LEFT_OUT)}
            )
        rendered.append({"name": name, "key": key, "sections": entries})
    static = files("riskeval.reporting") / "templates"
    return env.get_template("report.html.j2").render(
        settings=settings,
        groups=rendered,
        findings=findings,
        inputs=short_paths(settings["inputs"]),
        script=Markup(_inline_script((static / "report.js").read_text(encoding="utf-8"))),
        style=Markup((static / "report.css").read_text(encoding="utf-8")),
    )


def _inline_script(code: str) -> str:
    """The script as the content of a ``<script>`` element: it must not close the element."""
    if "</" in code or "<!--" in code:
        raise RiskevalError("report: the page script contains '</' or '<!--'.")
    return code

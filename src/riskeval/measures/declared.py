"""Risk measures declared as objects, as ir_measures declares IR measures.

``URisk(alpha=5)`` names URisk at α = 5; ``URisk()`` names URisk at every α of the settings (the
``alphas`` grid of :class:`riskeval.RiskSettings`).  Each measure is a small frozen object with its
parameters, equal and hashable by value, printed in the form :func:`parse_risk` reads back::

    >>> parse_risk("GeoRisk(alpha=5)") == GeoRisk(alpha=5) == parse_risk("GeoRisk@5")
    True
    >>> str(TRisk(alpha=1, se="jackknife"))
    "TRisk(alpha=1, se='jackknife')"

The registry :data:`RISK_MEASURES` (name -> class) is the contract every consumer iterates: a
declared measure carries what it needs (:attr:`RiskMeasure.needs`: paired sums against the
settings' baseline or the per-topic MEAN, or the chi-square sums of the whole matrix), how it is
computed from those sufficient statistics (:meth:`RiskMeasure.value`, vectorised over systems, α
and resamples), its presentation (header, decimals, direction, significance marks) and which
procedures can test it.  :func:`register_risk` declares a measure of one's own.  Strings name
measures case-insensitively (``"urisk"``, ``"URisk"``, and the column
names of :func:`riskeval.risk_table`, e.g. ``"tstar"``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, ClassVar

from riskeval.errors import RiskevalError
from riskeval.options import SE_METHODS, SEMethod, check_alpha, check_option

if TYPE_CHECKING:
    import numpy as np

# The built-in measures' values import their kernels when first computed: declaring, parsing and
# listing measures (the command line's help among them) imports neither numpy nor scipy.

#: What a risk measure is computed from: paired sums against the settings' baseline, paired sums
#: against the per-topic MEAN of every system, or the chi-square sums of the whole matrix.
NEEDS = ("baseline", "mean", "matrix")


@dataclass(frozen=True)
class RiskMeasure:
    """Base of the declared risk measures: a name, a risk-aversion α (``None``: every α of the
    settings) and the measure's own parameters.

    A subclass declares, as class attributes, what every consumer needs (the tables, the
    bootstrap, the tests, LaTeX/Markdown, the report and the command line iterate
    :data:`RISK_MEASURES` and read these) and implements :meth:`value`.
    """

    alpha: float | None = None

    #: The measure's name, as printed and parsed.
    name: ClassVar[str] = ""
    #: The column of :func:`riskeval.risk_table` that holds it (lower case, unique).
    column: ClassVar[str] = ""
    #: The paper and equation that define it.
    citation: ClassVar[str] = ""
    #: What it is computed from, one of :data:`NEEDS`: ``"baseline"`` — the paired sums
    #: (:class:`riskeval.core.paired.PairedSums`) of each system against the settings' baseline;
    #: ``"mean"`` — the same against the per-topic MEAN of every system, whatever the settings'
    #: baseline; ``"matrix"`` — the chi-square sums (:class:`riskeval.core.chisq.ZSums`) of the
    #: whole matrix, every system a baseline of the others (scores ≥ 0).
    needs: ClassVar[str] = "baseline"
    #: Its header in tables, LaTeX, Markdown and the report.
    header: ClassVar[str] = ""
    #: Decimals shown in tables and the report.
    decimals: ClassVar[int] = 4
    #: Whether a larger value is better (a table's best value is the largest).
    higher_is_better: ClassVar[bool] = True
    #: Whether tables mark its value by the significance of the system's test against the baseline.
    marked: ClassVar[bool] = False
    #: Whether :func:`riskeval.risk_table` ranks the systems by it (a ``rank_<column>`` column).
    ranked: ClassVar[bool] = False
    #: The columns of :func:`riskeval.risk_table` that show it (its own first), beside those every
    #: table keeps; default: its own column (and its rank column when ranked).
    columns: ClassVar[tuple[str, ...]] = ()
    #: Its value when the system and its baseline do not differ: the null hypothesis of the
    #: bootstrap's p-value.  ``None``: the measure has no such value (no p-value).
    null_value: ClassVar[float | None] = 0.0
    #: Whether its value is an increasing function of the mean of the per-topic risk-reward scores
    #: x_j(α) = δ⁺_j + (1+α)δ⁻_j at a fixed Σx_j² (URisk, TRisk, T*Risk): what the sign-flip
    #: permutation test, its max-T table and the Tukey HSD on risk-reward scores need.
    of_risk_scores: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.alpha is not None:
            object.__setattr__(self, "alpha", check_alpha(self.alpha, f"{self.name}"))

    def __str__(self) -> str:
        args = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                args.append(f"{f.name}={_format(value)}")
        return f"{self.name}({', '.join(args)})" if args else self.name

    @classmethod
    def shown_columns(cls) -> tuple[str, ...]:
        """The columns of :func:`riskeval.risk_table` that show the measure, its own first."""
        if cls.columns:
            return cls.columns
        return (cls.column, f"rank_{cls.column}") if cls.ranked else (cls.column,)

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        """The measure of every system from its sufficient statistics: ``sums`` a
        :class:`riskeval.core.paired.PairedSums` (needs ``"baseline"`` or ``"mean"``) or a
        :class:`riskeval.core.chisq.ZSums` (needs ``"matrix"``), whose arrays may carry leading
        axes (resamples); ``alpha`` broadcasts against them (numpy broadcasting).  NaN where the
        measure is undefined."""
        raise NotImplementedError(f"{type(self).__name__} declares no value()")

    def at(self, alpha: float) -> RiskMeasure:
        """The same measure at risk-aversion ``alpha``."""
        return replace(self, alpha=alpha)

    def expand(self, alphas: Iterable[float]) -> list[RiskMeasure]:
        """``[self]`` if α is set, else the measure at each of ``alphas``."""
        return [self] if self.alpha is not None else [self.at(a) for a in alphas]


@dataclass(frozen=True)
class URisk(RiskMeasure):
    """URisk(α) = UGain − α·FRisk, the mean of the per-topic risk-reward scores ``x_j`` against a
    baseline (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1–4; Wang, Arguello & Zhai's risk-reward
    tradeoff).  α = 0 gives the mean gain over the baseline."""

    name: ClassVar[str] = "URisk"
    column: ClassVar[str] = "urisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 1–4"
    header: ClassVar[str] = "URisk"
    decimals: ClassVar[int] = 4
    marked: ClassVar[bool] = True
    ranked: ClassVar[bool] = True
    columns: ClassVar[tuple[str, ...]] = (
        "urisk", "ugain", "freward", "frisk", "rank_urisk",
        "wins", "losses", "ties", "loss20", "reward_risk", "win_loss",
    )  # fmt: skip
    of_risk_scores: ClassVar[bool] = True

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        from riskeval.core.paired import urisk_from

        return urisk_from(sums, alpha)


@dataclass(frozen=True)
class TRisk(RiskMeasure):
    """TRisk(α) = URisk(α)/SE, the studentised URisk, with the parametric standard error ``s_x/√c``
    (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12) or the jackknife (eq. 17–18); compared with
    Student's t on c − 1 degrees of freedom.  At α = 0 it is the paired t statistic."""

    se: SEMethod = "parametric"

    name: ClassVar[str] = "TRisk"
    column: ClassVar[str] = "trisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12 and 17–18"
    header: ClassVar[str] = "TRisk"
    decimals: ClassVar[int] = 3
    marked: ClassVar[bool] = True
    ranked: ClassVar[bool] = True
    columns: ClassVar[tuple[str, ...]] = (
        "trisk", "se", "se_method", "df", "level", "alternative", "critical", "pvalue",
        "correction", "pvalue_adj", "significant", "rank_trisk", "reason",
    )  # fmt: skip
    of_risk_scores: ClassVar[bool] = True

    def __post_init__(self) -> None:
        super().__post_init__()
        check_option(self.se, SE_METHODS, "TRisk", "se")

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        # the jackknife SE of a mean equals s_x/√c exactly (eq. 17–18): one formula serves both
        from riskeval.core.paired import trisk_from

        return trisk_from(sums, alpha)


@dataclass(frozen=True)
class TStarRisk(RiskMeasure):
    """T*Risk(α): TRisk against the per-topic MEAN of every system, the unbiased baseline of
    Dinçer, Ounis & Macdonald (ECIR 2014, eq. 2, §3), whatever baseline the settings name."""

    name: ClassVar[str] = "TStarRisk"
    column: ClassVar[str] = "tstar"
    citation: ClassVar[str] = "Dinçer, Ounis & Macdonald, ECIR 2014, §3"
    needs: ClassVar[str] = "mean"
    header: ClassVar[str] = "T*Risk"
    decimals: ClassVar[int] = 3
    of_risk_scores: ClassVar[bool] = True

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        from riskeval.core.paired import trisk_from

        return trisk_from(sums, alpha)


@dataclass(frozen=True)
class ZRisk(RiskMeasure):
    """ZRisk(α) = Σ_{z_ij>0} z_ij + (1+α) Σ_{z_ij<0} z_ij, the χ² residuals of a system against
    every system of the matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6).  Scores ≥ 0."""

    name: ClassVar[str] = "ZRisk"
    column: ClassVar[str] = "zrisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6"
    needs: ClassVar[str] = "matrix"
    header: ClassVar[str] = "ZRisk"
    decimals: ClassVar[int] = 3
    null_value: ClassVar[float | None] = None

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        from riskeval.core.chisq import zrisk_from

        return zrisk_from(sums, alpha)


@dataclass(frozen=True)
class GeoRisk(RiskMeasure):
    """GeoRisk(α) = √(S_i/c · Φ(ZRisk_i(α)/c)), the geometric mean of a system's mean effectiveness
    and its normalised ZRisk (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 7–8).  Scores ≥ 0."""

    name: ClassVar[str] = "GeoRisk"
    column: ClassVar[str] = "georisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 7–8"
    needs: ClassVar[str] = "matrix"
    header: ClassVar[str] = "GeoRisk"
    decimals: ClassVar[int] = 4
    ranked: ClassVar[bool] = True
    null_value: ClassVar[float | None] = None

    def value(self, sums: Any, alpha: Any) -> np.ndarray:
        from riskeval.core.chisq import georisk_from

        return georisk_from(sums, alpha)


#: The declared risk measures, by name, in the order tables show them.
RISK_MEASURES: dict[str, type[RiskMeasure]] = {}


def register_risk(cls: type[RiskMeasure]) -> type[RiskMeasure]:
    """Declare a risk measure: from now on every consumer shows it, or refuses it with the reason.

    ``cls`` subclasses :class:`RiskMeasure` with its own ``name`` and ``column`` (unique),
    ``needs`` (one of :data:`NEEDS`), its presentation, and :meth:`RiskMeasure.value`; usable as
    a class decorator.  Returns ``cls``.  Raises :class:`~riskeval.errors.RiskevalError` saying
    what is missing or clashes.
    """
    if not (isinstance(cls, type) and issubclass(cls, RiskMeasure)) or cls is RiskMeasure:
        raise RiskevalError(f"register_risk takes a subclass of riskeval.RiskMeasure; got {cls!r}.")
    where = f"register_risk({cls.__name__})"
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", cls.name or ""):
        raise RiskevalError(
            f"{where}: 'name' must be letters and digits, starting with a letter; got {cls.name!r}."
        )
    if not re.fullmatch(r"[a-z][a-z0-9_]*", cls.column or ""):
        raise RiskevalError(
            f"{where}: 'column' must be lower-case letters, digits and _, starting with a letter; "
            f"got {cls.column!r}."
        )
    if cls.needs not in NEEDS:
        raise RiskevalError(f"{where}: 'needs' must be one of {', '.join(NEEDS)}; got {cls.needs!r}.")
    if cls.value is RiskMeasure.value:
        raise RiskevalError(f"{where}: the measure must implement value(self, sums, alpha).")
    for other in RISK_MEASURES.values():
        if other is not cls and other.name.lower() == cls.name.lower():
            raise RiskevalError(f"{where}: a risk measure named {other.name!r} is already declared.")
        if other is not cls and other.column in cls.shown_columns():
            raise RiskevalError(f"{where}: the column {other.column!r} is already {other.name}'s.")
    if not cls.header:
        cls.header = cls.name
    RISK_MEASURES[cls.name] = cls
    return cls


for _cls in (URisk, TRisk, TStarRisk, ZRisk, GeoRisk):
    register_risk(_cls)


def _aliases() -> dict[str, type[RiskMeasure]]:
    """Every name a string may use for a measure: its name and column (any case)."""
    out = {name.lower(): cls for name, cls in RISK_MEASURES.items()}
    out.update({cls.column: cls for cls in RISK_MEASURES.values()})
    out["t*risk"] = TStarRisk
    return out


_SYNTAX = re.compile(
    r"""^\s*(?P<name>[A-Za-z*]+)\s*
        (?: @\s*(?P<at>[^\s()]+)
          | \(\s*(?P<args>[^()]*)\)
        )?\s*$""",
    re.VERBOSE,
)


def parse_risk(spec: Any) -> RiskMeasure:
    """A risk measure from its object or its text: ``"URisk"``, ``"URisk@5"``,
    ``"TRisk(alpha=5, se='jackknife')"``, ``"GeoRisk(5)"``; names are case-insensitive.

    Raises :class:`~riskeval.errors.RiskevalError` naming the measures there are, or the closest
    one, when the text names none of them, and the parameters a measure has when it gets another.
    """
    if isinstance(spec, RiskMeasure):
        return spec
    if isinstance(spec, type) and issubclass(spec, RiskMeasure) and spec is not RiskMeasure:
        return spec()
    if not isinstance(spec, str):
        raise RiskevalError(
            f"A risk measure is one of {_names()} (an object such as riskeval.URisk(alpha=5), or "
            f"its text such as 'URisk@5'). Got {spec!r}."
        )
    m = _SYNTAX.match(spec)
    aliases = _aliases()
    cls = aliases.get(m.group("name").lower()) if m else None
    if m is None or cls is None:
        word = m.group("name") if m else spec
        close = difflib.get_close_matches(word.lower(), list(aliases), n=1, cutoff=0.6)
        hint = f" Did you mean {aliases[close[0]].name!r}?" if close else ""
        raise RiskevalError(
            f"Unknown risk measure {spec!r}: use one of {_names()}, optionally with α as "
            f"'URisk@5' or 'URisk(alpha=5)'.{hint}"
        )
    kwargs: dict[str, Any] = {}
    if m.group("at") is not None:
        kwargs["alpha"] = _value(m.group("at"), spec)
    elif m.group("args"):
        names = [f.name for f in fields(cls)]
        for i, part in enumerate(p.strip() for p in m.group("args").split(",")):
            key, eq, text = part.partition("=")
            key = key.strip() if eq else ("alpha" if i == 0 else "")
            if key not in names or key in kwargs:
                raise RiskevalError(
                    f"The risk measure {spec!r}: {cls.name} takes the parameters "
                    f"{', '.join(names)} (each once). Got {part!r}."
                )
            kwargs[key] = _value(text if eq else part, spec)
    return cls(**kwargs)


def risk_measures(risk: Any, func: str) -> list[RiskMeasure]:
    """The measures of a ``risk=`` parameter: one measure (object or text) or a list of them."""
    if risk is None:
        raise RiskevalError(f"The 'risk' parameter of {func} must name at least one risk measure.")
    items = [risk] if isinstance(risk, (str, RiskMeasure, type)) else list(risk)
    if not items:
        raise RiskevalError(f"The 'risk' parameter of {func} must name at least one risk measure.")
    return [parse_risk(item) for item in items]


def expand_risks(risk: Any, alphas: Sequence[float], func: str) -> list[RiskMeasure]:
    """The measures of ``risk``, each at its own α or, if it has none, at every α of ``alphas``;
    the first occurrence of a repeated measure is kept."""
    out: list[RiskMeasure] = []
    for measure in risk_measures(risk, func):
        out.extend(m for m in measure.expand(alphas) if m not in out)
    return out


def measure_table() -> list[tuple[str, str, str, str]]:
    """(name, parameters, column, citation) of each registered measure, for help and docs."""
    rows = []
    for cls in RISK_MEASURES.values():
        params = ", ".join(f"{f.name}={_format(f.default)}" for f in fields(cls))
        rows.append((cls.name, params, cls.column, cls.citation))
    return rows


def _names() -> str:
    return ", ".join(RISK_MEASURES)


def _format(value: Any) -> str:
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return repr(value)


def _value(text: str, spec: str) -> Any:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        if re.fullmatch(r"[A-Za-z_]+", text):
            return text
        raise RiskevalError(f"The risk measure {spec!r}: cannot read the value {text!r}.") from None


def split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses: ``"URisk@5, TRisk(alpha=1, se='jackknife')"``
    -> ``["URisk@5", "TRisk(alpha=1, se='jackknife')"]``."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts

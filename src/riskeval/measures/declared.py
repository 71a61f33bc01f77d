"""Risk measures declared as objects, as ir_measures declares IR measures.

``URisk(alpha=5)`` names URisk at α = 5; ``URisk()`` names URisk at every α of the settings (the
``alphas`` grid of :class:`riskeval.RiskSettings`).  Each measure is a small frozen object with its
parameters, equal and hashable by value, printed in the form :func:`parse_risk` reads back::

    >>> parse_risk("GeoRisk(alpha=5)") == GeoRisk(alpha=5) == parse_risk("GeoRisk@5")
    True
    >>> str(TRisk(alpha=1, se="jackknife"))
    "TRisk(alpha=1, se='jackknife')"

The registry :data:`RISK_MEASURES` (name -> class) drives the validation of every ``risk=``
parameter, the command line's ``--risk`` choices and its help, and the table of measures in the
documentation.  Strings name measures case-insensitively (``"urisk"``, ``"URisk"``, and the column
names of :func:`riskeval.risk_table`, e.g. ``"tstar"``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from riskeval.errors import RiskevalError
from riskeval.options import SE_METHODS, SEMethod, check_alpha, check_option


@dataclass(frozen=True)
class RiskMeasure:
    """Base of the declared risk measures: a name, a risk-aversion α (``None``: every α of the
    settings) and the measure's own parameters."""

    alpha: float | None = None

    #: The measure's name, as printed and parsed.
    name: ClassVar[str] = ""
    #: The column of :func:`riskeval.risk_table` that holds it.
    column: ClassVar[str] = ""
    #: The paper and equation that define it.
    citation: ClassVar[str] = ""
    #: Whether it compares each system with one baseline (URisk, TRisk, T*Risk) rather than with
    #: every system of the matrix (ZRisk, GeoRisk).
    paired: ClassVar[bool] = True

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


@dataclass(frozen=True)
class TRisk(RiskMeasure):
    """TRisk(α) = URisk(α)/SE, the studentised URisk, with the parametric standard error ``s_x/√c``
    (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12) or the jackknife (eq. 17–18); compared with
    Student's t on c − 1 degrees of freedom.  At α = 0 it is the paired t statistic."""

    se: SEMethod = "parametric"

    name: ClassVar[str] = "TRisk"
    column: ClassVar[str] = "trisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 7–12 and 17–18"

    def __post_init__(self) -> None:
        super().__post_init__()
        check_option(self.se, SE_METHODS, "TRisk", "se")


@dataclass(frozen=True)
class TStarRisk(RiskMeasure):
    """T*Risk(α): TRisk against the per-topic MEAN of every system, the unbiased baseline of
    Dinçer, Ounis & Macdonald (ECIR 2014, eq. 2, §3), whatever baseline the settings name."""

    name: ClassVar[str] = "TStarRisk"
    column: ClassVar[str] = "tstar"
    citation: ClassVar[str] = "Dinçer, Ounis & Macdonald, ECIR 2014, §3"


@dataclass(frozen=True)
class ZRisk(RiskMeasure):
    """ZRisk(α) = Σ_{z_ij>0} z_ij + (1+α) Σ_{z_ij<0} z_ij, the χ² residuals of a system against
    every system of the matrix (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6).  Scores ≥ 0."""

    name: ClassVar[str] = "ZRisk"
    column: ClassVar[str] = "zrisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 4–6"
    paired: ClassVar[bool] = False


@dataclass(frozen=True)
class GeoRisk(RiskMeasure):
    """GeoRisk(α) = √(S_i/c · Φ(ZRisk_i(α)/c)), the geometric mean of a system's mean effectiveness
    and its normalised ZRisk (Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 7–8).  Scores ≥ 0."""

    name: ClassVar[str] = "GeoRisk"
    column: ClassVar[str] = "georisk"
    citation: ClassVar[str] = "Dinçer, Macdonald & Ounis, SIGIR 2016, eq. 7–8"
    paired: ClassVar[bool] = False


#: The declared risk measures, by name.
RISK_MEASURES: dict[str, type[RiskMeasure]] = {
    cls.name: cls for cls in (URisk, TRisk, TStarRisk, ZRisk, GeoRisk)
}

_ALIASES: dict[str, type[RiskMeasure]] = {
    **{name.lower(): cls for name, cls in RISK_MEASURES.items()},
    **{cls.column: cls for cls in RISK_MEASURES.values()},
    "t*risk": TStarRisk,
}

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
    cls = _ALIASES.get(m.group("name").lower()) if m else None
    if m is None or cls is None:
        word = m.group("name") if m else spec
        close = difflib.get_close_matches(word.lower(), list(_ALIASES), n=1, cutoff=0.6)
        hint = f" Did you mean {_ALIASES[close[0]].name!r}?" if close else ""
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

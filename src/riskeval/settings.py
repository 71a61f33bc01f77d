"""The settings of a risk evaluation, held in one object.

Every table, test and report of riskeval takes the same six settings: the baseline, the grid of
risk-aversion values α, the significance level, the multiple-testing correction, whether aggregate
baselines leave the evaluated system out, and the standard error of TRisk.  :class:`RiskSettings`
holds them once::

    settings = rk.RiskSettings(baseline="bm25", alphas=(1, 5), correction="holm")
    rk.risk_table(X, settings=settings)
    rk.inference.bootstrap_ci(X, settings=settings)
    rk.report(X, settings=settings)

The same keywords still work for one-off calls, and override the settings' values where both are
given (``rk.risk_table(X, settings=settings, level=0.01)``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from riskeval.errors import RiskevalError
from riskeval.options import (
    SE_METHODS,
    Correction,
    SEMethod,
    check_alphas,
    check_correction,
    check_level,
    check_option,
)


@dataclass(frozen=True)
class RiskSettings:
    """The settings of a risk evaluation (frozen; change one with :meth:`replace`).

    Attributes
    ----------
    baseline : str, Series or vector, default "mean"
        ``"mean"``, ``"median"`` or ``"max"`` (the per-topic aggregate over every system; Dinçer,
        Ounis & Macdonald, ECIR 2014, §3), the name of a system, or a per-topic vector.
    alphas : tuple of float, default (0, 1, 5, 10)
        The risk-aversion values α ≥ 0 at which a measure without its own α is computed.
    level : float, default 0.05
        Two-sided significance level of the tests (and ``1 − level`` the confidence of intervals).
    correction : {None, "holm", "bh", "bonferroni"}, default None
        Multiple-testing correction of the p-values across systems, separately for each α
        (``"none"`` is read as None).
    leave_one_out : bool, default False
        Aggregate baselines leave the evaluated system out.
    se : {"parametric", "jackknife"}, default "parametric"
        Standard error of TRisk (Dinçer, Macdonald & Ounis, SIGIR 2014, eq. 12 or 17–18); a
        :class:`riskeval.TRisk` object's own ``se`` takes precedence.
    """

    baseline: Any = "mean"
    alphas: tuple[float, ...] = (0.0, 1.0, 5.0, 10.0)
    level: float = 0.05
    correction: Correction | None = None
    leave_one_out: bool = False
    se: SEMethod = "parametric"

    def __post_init__(self) -> None:
        func = "RiskSettings"
        if self.baseline is None:
            raise RiskevalError(
                "The 'baseline' parameter of RiskSettings must be 'mean', 'median', 'max', a system "
                "name or a per-topic vector. Got None."
            )
        object.__setattr__(self, "alphas", tuple(float(a) for a in check_alphas(self.alphas, func)))
        object.__setattr__(self, "level", check_level(self.level, func))
        object.__setattr__(self, "correction", check_correction(self.correction, func))
        if not isinstance(self.leave_one_out, bool):
            raise RiskevalError(
                f"The 'leave_one_out' parameter of {func} must be True or False. Got {self.leave_one_out!r}."
            )
        check_option(self.se, SE_METHODS, func, "se")

    def replace(self, **changes: Any) -> RiskSettings:
        """A copy with ``changes``; a change whose value is None keeps the current value."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def __repr__(self) -> str:
        parts = [f"{f.name}={_short(getattr(self, f.name))}" for f in fields(self)]
        return f"RiskSettings({', '.join(parts)})"


def resolve_settings(settings: RiskSettings | None, func: str, **keywords: Any) -> RiskSettings:
    """``settings`` (default :class:`RiskSettings`) with the keywords that were given (not None)."""
    if settings is None:
        settings = RiskSettings()
    elif not isinstance(settings, RiskSettings):
        raise RiskevalError(
            f"The 'settings' parameter of {func} must be a riskeval.RiskSettings. Got {settings!r}."
        )
    try:
        return settings.replace(**keywords)
    except RiskevalError as e:
        raise RiskevalError(str(e).replace("of RiskSettings", f"of {func}")) from None


def _short(value: Any) -> str:
    """The repr of a setting, or its type for a vector baseline."""
    if value is None or isinstance(value, (str, bool, float, int, tuple)):
        return repr(value)
    return f"<{type(value).__name__}>"


def field_help(settings: type = RiskSettings) -> dict[str, str]:
    """The help of each field of ``settings`` (a dataclass documented as :class:`RiskSettings` is),
    from the ``Attributes`` section of its docstring, reST markup removed: the command line's help
    of the option of each field."""
    import inspect
    import re

    doc = inspect.cleandoc(settings.__doc__ or "").split("Attributes\n", 1)[-1]
    found = re.findall(r"^(\w+) :[^\n]*\n((?:    [^\n]*\n?)+)", doc, flags=re.M)
    clean = [(r":\w+:`~?([^`]+)`", r"\1"), (r"``([^`]+)``", r"\1")]
    out = {}
    for name, text in found:
        text = " ".join(text.split())
        for pattern, repl in clean:
            text = re.sub(pattern, repl, text)
        out[name] = text
    return out

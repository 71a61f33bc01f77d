"""The Bayesian champion–challenger comparison (Benham, Carterette, Culpepper & Moffat, SIGIR
2020) for people: the names of the champion and challengers checked against the systems, the
probabilities of beating the champion as text, and the one-line verdict of the sampling checks
(:meth:`riskeval.bayes.ChampionComparison.problems`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from riskeval.errors import RiskevalError

if TYPE_CHECKING:
    import pandas as pd


#: How a caption names each model of :func:`riskeval.bayes.champion_challengers`.
MODEL_TEXT = {
    "gainloss": "gains-and-losses model of the per-topic differences from the champion",
    "paired": "paired model of the per-topic differences from the champion",
    "crossed": "crossed model score ~ (1 | topic) + (1 | system)",
}


def check_names(systems: list[str], champion: str, challengers: str | None, command: str) -> list[str] | None:
    """The challengers of the comma list ``challengers`` (``None``: every other system) after
    checking them and ``champion`` against ``systems``: an unknown name is an error naming the
    option of ``command``, with close matches and the systems there are."""
    import difflib

    named = None if challengers is None else [s.strip() for s in challengers.split(",") if s.strip()]
    for flag, names in (("--champion", [champion]), ("--challengers", named or [])):
        unknown = [n for n in names if n not in systems]
        if unknown:
            close = difflib.get_close_matches(unknown[0], systems, n=3, cutoff=0.6)
            hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise RiskevalError(
                f"The '{flag}' option of {command} names {', '.join(map(repr, unknown))}, not a "
                f"system of the scores.{hint} The systems are: {listing(systems)}."
            )
    if named is not None and not named:
        raise RiskevalError(f"The '--challengers' option of {command} names no system; got {challengers!r}.")
    if named is not None and champion in named:
        raise RiskevalError(
            f"The '--challengers' option of {command} holds the champion {champion!r}; it cannot "
            "challenge itself."
        )
    return named


def listing(systems: list[str]) -> str:
    """The first 20 systems, and how many more."""
    return ", ".join(systems[:20]) + (f" and {len(systems) - 20} more" if len(systems) > 20 else "")


def verdict(problems: list[str], independent: bool = False) -> str:
    """One line: whether the posterior draws pass the sampling checks of Benham et al. (SIGIR 2020)
    at every α (``problems``: :meth:`riskeval.bayes.ChampionComparison.problems`); with
    ``independent``, draws that are independent (the gains-and-losses model), whose only check is
    their number."""
    failed = list(dict.fromkeys(text.split(":", 1)[0] for text in problems))
    if failed:
        return (
            f"sampling checks FAILED at {', '.join(failed)} (see the warnings): draw more before "
            "trusting p_better"
        )
    if independent:
        return "sampling checks passed at every α: independent exact draws, at least 10,000 per effect"
    return (
        "sampling checks passed at every α: R-hat < 1.01, bulk ESS > 10,000 (system effects) and > "
        "1,000 (topic effects, or the paired model's scales), no divergent transitions"
    )


def probabilities_as_text(table: pd.DataFrame) -> pd.DataFrame:
    """``p_better`` and ``p_better_margin`` with three decimals, for people: they are shares of
    posterior draws, not p-values (0 is "below one draw in all", not an underflow)."""
    shown = table.copy()
    for column in ("p_better", "p_better_margin"):
        shown[column] = [("" if v != v else f"{v:.3f}") for v in table[column]]
    return shown


def champion_caption(comparison: Any, about: str, sampler: Any, problems: list[str]) -> str:
    """What the table of a :class:`riskeval.bayes.ChampionComparison` shows: ``about`` (the scores
    and their source), the champion, the model that answered, the ``sampler``'s settings
    (``chains``, ``draws`` kept per chain, ``warmup``), the seed, the credible intervals, what
    p_better is, and the :func:`verdict` of the sampling checks."""
    chains, kept, warmup = sampler.chains, sampler.draws, sampler.warmup
    margin = comparison.margin
    drawn = (
        f"{chains * kept:,} independent exact draws"
        if comparison.model == "gainloss"
        else f"{chains} chains × {kept} draws ({warmup} warm-up)"
    )
    return (
        f"{about}; champion {comparison.champion}; {MODEL_TEXT[comparison.model]}; {drawn}, "
        f"seed {comparison.seed}; "
        f"{comparison.level * 100:g}% credible intervals; p_better: posterior probability that the "
        "challenger's effect is above the champion's (each loss counted 1 + α times)"
        + (f"; p_better_margin: above it by more than {margin:g}" if margin else "")
        + "\n"
        + verdict(problems, independent=comparison.model == "gainloss")
    )

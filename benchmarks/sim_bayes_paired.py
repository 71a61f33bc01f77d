"""Calibration and power of the champion–challenger models of ``riskeval.bayes`` by simulation.

Each collection has 50 topics, a champion and 10 background systems drawn from the crossed model
of Benham, Carterette, Culpepper & Moffat (SIGIR 2020): ``y_ij = 0.25 + b_i + c_j + ε_ij`` with
``b_i ~ N(0, 0.05²)``, ``c_j ~ N(0, 0.15²)``, ``ε_ij ~ N(0, 0.08²)``; and four challengers:

- ``variant gain``: the champion's scores +0.06 on each topic with probability 0.8 and
  −0.12/(1 + α) otherwise, so that the risk-adjusted difference is +0.06 or −0.12 whatever α
  (expected difference +0.024);
- ``variant null``: the same with +0.03 (expected risk-adjusted difference 0);
- ``crossed gain`` and ``crossed null``: systems of the crossed model, ``b = b_champion + Δ``, with
  Δ such that the expected risk-adjusted difference (closed form: the difference is
  ``N(Δ, 2·0.08²)``) is :data:`CROSSED_GAIN` at that α, and 0.

For each α every model named is fitted to the collection (``champion_challengers``) and counted:
the share of 95% intervals of the difference from the champion that hold the expected
risk-adjusted difference (coverage, gain and null challengers of the process together), the share
of gain challengers with P(better) > 0.95 (power) and of null ones (false claims, nominal 5%), and
the same by the paired t-test on the risk-adjusted differences (its 95% interval, and one-sided at
5%), the power of that t-test sized on the null challengers (``ta_power``: its critical value the
95% quantile of the null challengers' t statistics of the same process and α in the same run, so
that it claims at most 5% false gains there: a fair bar where the plain t-test over-claims, though
one that no analysis of a real collection can set, since it knows the null), and by the model
that is exact for the crossed process (``o_`` columns: the raw differences
``x − b`` Gaussian with unknown mean and variance under Jeffreys' prior, and the expected
risk-adjusted difference the closed form of :func:`adjusted_mean`; it shows what a calibrated
answer can reach when the shape of the differences is known).  Monte Carlo standard errors are
binomial, √(p(1 − p)/n).

    python benchmarks/sim_bayes_paired.py [--collections 200] [--alphas 0,5]
        [--models gainloss,paired,crossed]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import pandas as pd
from scipy import optimize, stats

from riskeval.bayes import BayesDiagnosticWarning, champion_challengers

N_TOPICS = 50
N_BACKGROUND = 10
MU, SD_SYSTEM, SD_TOPIC, SIGMA = 0.25, 0.05, 0.15, 0.08
#: The expected risk-adjusted difference of the crossed gain challenger at each α.
CROSSED_GAIN = 0.04
CHALLENGERS = ("variant gain", "variant null", "crossed gain", "crossed null")


def adjusted_mean(delta: float, alpha: float) -> float:
    """E[d + α·min(d, 0)] for d ~ N(Δ, 2σ²): the expected risk-adjusted difference of a crossed
    challenger whose effect is the champion's + Δ."""
    s = SIGMA * math.sqrt(2)
    return delta + alpha * (delta * stats.norm.cdf(-delta / s) - s * stats.norm.pdf(delta / s))


def crossed_delta(target: float, alpha: float) -> float:
    """The Δ whose expected risk-adjusted difference is ``target`` at ``alpha``."""
    return float(optimize.brentq(lambda x: adjusted_mean(x, alpha) - target, -1.0, 1.0, xtol=1e-12))


def gaussian_raw(adjusted: np.ndarray, alpha: float, rng: np.random.Generator, draws: int) -> np.ndarray:
    """Draws of the expected risk-adjusted difference when the raw differences (the risk-adjusted
    ones with each loss divided by 1 + α) are Gaussian with Jeffreys' prior: σ² scaled
    inverse-χ² with n − 1 degrees of freedom, the mean normal given σ², then :func:`adjusted_mean`'s
    closed form."""
    raw = np.where(adjusted < 0, adjusted / (1 + alpha), adjusted)
    n = raw.size
    s = np.sqrt((n - 1) * raw.var(ddof=1) / rng.chisquare(n - 1, draws))
    m = raw.mean() + s / math.sqrt(n) * rng.standard_normal(draws)
    return m + alpha * (m * stats.norm.cdf(-m / s) - s * stats.norm.pdf(m / s))


def collection(rng: np.random.Generator, alpha: float) -> tuple[pd.DataFrame, dict[str, float]]:
    """One simulated collection (scores, systems × topics) and each challenger's expected
    risk-adjusted difference from the champion at ``alpha``."""
    n = N_BACKGROUND + 1
    b = rng.normal(0, SD_SYSTEM, n)
    c = rng.normal(0, SD_TOPIC, N_TOPICS)
    scores = MU + b[:, None] + c[None, :] + rng.normal(0, SIGMA, (n, N_TOPICS))
    champion = scores[0]
    rows = {"champion": champion, **{f"background {i}": scores[i] for i in range(1, n)}}
    loss = -0.12 / (1 + alpha)
    for name, gain in (("variant gain", 0.06), ("variant null", 0.03)):
        rows[name] = champion + np.where(rng.random(N_TOPICS) < 0.8, gain, loss)
    truth = {"variant gain": 0.8 * 0.06 - 0.2 * 0.12, "variant null": 0.0}
    for name, target in (("crossed gain", CROSSED_GAIN), ("crossed null", 0.0)):
        delta = crossed_delta(target, alpha)
        rows[name] = MU + b[0] + delta + c + rng.normal(0, SIGMA, N_TOPICS)
        truth[name] = target
    return pd.DataFrame(rows).T.set_axis([f"t{j}" for j in range(N_TOPICS)], axis=1), truth


def run(
    collections: int,
    alphas: list[float],
    models: list[str],
    seed: int,
    draws: int,
    warmup: int,
    save: str | None = None,
) -> pd.DataFrame:
    """One row per collection, α, model and challenger: ``covered``, ``claimed`` (P(better) >
    0.95), ``width`` of the 95% interval, and the paired t-test's ``t_covered``, ``t_claimed``
    (one-sided at 5%) and ``t_width``, and the exact model's ``o_covered`` and ``o_claimed``; with
    ``save``, the rows so far are written to that csv after each collection; ``t_statistic`` is
    the t-test's statistic."""
    rows: list[dict[str, object]] = []
    streams = np.random.SeedSequence(seed).spawn(collections)
    for k, stream in enumerate(streams):
        if save and rows:
            pd.DataFrame(rows).to_csv(save, index=False)
        rng = np.random.default_rng(stream)
        reference = np.random.default_rng(stream.spawn(1)[0])  # the exact model's draws
        for alpha in alphas:
            scores, truth = collection(rng, alpha)
            adjusted = scores - scores.loc["champion"]
            adjusted = adjusted.where(adjusted >= 0, (1 + alpha) * adjusted)
            tests = {name: stats.ttest_1samp(adjusted.loc[name], 0.0) for name in CHALLENGERS}
            oracles = {
                name: gaussian_raw(adjusted.loc[name].to_numpy(), alpha, reference, 4_000)
                for name in CHALLENGERS
            }
            for model in models:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", BayesDiagnosticWarning)
                    table = champion_challengers(
                        scores, "champion", list(CHALLENGERS), alphas=[alpha], model=model,
                        draws=draws, warmup=warmup, rng=int(stream.generate_state(1)[0]),
                    ).table.set_index("system")  # fmt: skip
                for name in CHALLENGERS:
                    row = table.loc[name]
                    test, oracle = tests[name], oracles[name]
                    low, high = test.confidence_interval(0.95)
                    o_low, o_high = np.quantile(oracle, [0.025, 0.975])
                    rows.append(
                        {
                            "collection": k, "alpha": alpha, "model": model, "challenger": name,
                            "covered": row["diff_low"] <= truth[name] <= row["diff_high"],
                            "t_covered": low <= truth[name] <= high,
                            "claimed": row["p_better"] > 0.95,
                            "t_claimed": test.statistic > 0 and test.pvalue / 2 < 0.05,
                            "t_statistic": test.statistic,
                            "o_covered": o_low <= truth[name] <= o_high,
                            "o_claimed": np.mean(oracle > 0) > 0.95,
                            "width": row["diff_high"] - row["diff_low"], "t_width": high - low,
                        }
                    )  # fmt: skip
    return pd.DataFrame(rows)


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Coverage, power and false claims with their Monte Carlo standard errors, by process
    (variant, crossed), α and model, and the sized t-test's power (``ta_power``) and false claims
    (``ta_false``, at most 5%: below it where the t statistic takes few values)."""
    results = results.assign(process=results["challenger"].str.split().str[0])
    rows = []
    for (process, alpha, model), part in results.groupby(["process", "alpha", "model"], sort=False):
        gain = part[part["challenger"].str.endswith("gain")]
        null = part[part["challenger"].str.endswith("null")]
        row = {"process": process, "alpha": alpha, "model": model}
        for label, values in (
            ("coverage", part["covered"]),
            ("t_coverage", part["t_covered"]),
            ("power", gain["claimed"]),
            ("t_power", gain["t_claimed"]),
            ("false", null["claimed"]),
            ("t_false", null["t_claimed"]),
            ("o_coverage", part["o_covered"]),
            ("o_power", gain["o_claimed"]),
            ("o_false", null["o_claimed"]),
        ):
            p = float(values.mean())
            row[label] = p
            row[f"{label}_se"] = math.sqrt(p * (1 - p) / len(values))
        # the t-test sized on this run's null challengers: claims above their 95% quantile
        critical = np.quantile(null["t_statistic"], 0.95, method="higher")
        p = float(np.mean(gain["t_statistic"] > critical))
        row["ta_power"], row["ta_power_se"] = p, math.sqrt(p * (1 - p) / len(gain))
        row["ta_false"] = float(np.mean(null["t_statistic"] > critical))
        row["width"] = float(gain["width"].mean())
        row["t_width"] = float(gain["t_width"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collections", type=int, default=200)
    parser.add_argument("--alphas", default="0,5")
    parser.add_argument("--models", default="gainloss,paired,crossed")
    parser.add_argument("--draws", type=int, default=1_000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--save", help="write every collection's rows to this csv")
    args = parser.parse_args()
    start = time.perf_counter()
    results = run(
        args.collections,
        [float(a) for a in args.alphas.split(",")],
        args.models.split(","),
        args.seed,
        args.draws,
        args.warmup,
        args.save,
    )
    if args.save:
        results.to_csv(args.save, index=False)
    table = summary(results)
    print(f"{args.collections} collections, {time.perf_counter() - start:.0f} s")
    for _, r in table.iterrows():
        cells = " | ".join(
            f"{r[k]:.3f} ± {r[f'{k}_se']:.3f}" + (f" ({r['ta_false']:.3f})" if k == "ta_power" else "")
            for k in ("coverage", "t_coverage", "power", "t_power", "ta_power", "false", "t_false")
        )
        oracle = " | ".join(f"{r[k]:.3f}" for k in ("o_coverage", "o_power", "o_false"))
        widths = f"{r['width']:.3f} | {r['t_width']:.3f}"
        print(f"| {r['process']} | {r['alpha']:g} | {r['model']} | {cells} | {widths} | {oracle} |")


if __name__ == "__main__":
    main()

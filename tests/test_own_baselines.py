"""Each system against its own baseline run (Dinçer, Ounis & Macdonald, ECIR 2014, §5):
``risk_table(X, baseline=<systems × topics DataFrame>)``, ``baseline_runs`` and
``riskeval risk --baseline-map``; checked against a per-system loop of scipy's paired t-test."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from cli_runner import run_cli as run
from scipy import stats

import riskeval as rk


@pytest.fixture(scope="module")
def X() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        rng.uniform(0, 1, (6, 12)),
        index=[f"g{g}.{k}" for g in range(2) for k in ("base", "a", "b")],
        columns=[f"t{j}" for j in range(12)],
    )


MAPPING = {f"g{g}.{k}": f"g{g}.base" for g in range(2) for k in ("base", "a", "b")}


def _brute(x: np.ndarray, b: np.ndarray, alpha: float) -> tuple[float, float]:
    d = x - b
    r = np.where(d >= 0, d, (1 + alpha) * d)
    with np.errstate(invalid="ignore"):  # a system against itself: 0/0
        return r.mean(), r.mean() / (r.std(ddof=1) / np.sqrt(r.size))


def test_each_system_against_its_own_row(X):
    B = rk.analysis.baseline_runs(X, MAPPING)
    assert B.shape == X.shape and B.loc["g1.a"].equals(X.loc["g1.base"].rename("g1.a"))
    # rows are aligned by label, not by position
    t = rk.risk_table(X, baseline=B.iloc[::-1], alphas=[0, 5])
    for system, base in MAPPING.items():
        for alpha in (0, 5):
            row = t[(t.system == system) & (t.alpha == alpha)].iloc[0]
            u, tt = _brute(X.loc[system].to_numpy(), X.loc[base].to_numpy(), alpha)
            assert row.urisk == pytest.approx(u, abs=1e-12)
            assert row.baseline == "per-system"
            if system == base:
                assert np.isnan(row.trisk) and row.reason == "the system equals the baseline on every topic"
            else:
                assert row.trisk == pytest.approx(tt, rel=1e-10)
                if alpha == 0:
                    ref = stats.ttest_rel(X.loc[system], X.loc[base])
                    assert row.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_extra_rows_and_topics_are_ignored_missing_ones_refused(X):
    B = rk.analysis.baseline_runs(X, MAPPING)
    wider = B.assign(extra=1.0)
    wider.loc["someone else"] = 0.5
    a = rk.risk_table(X, baseline=wider, alphas=[1])
    b = rk.risk_table(X, baseline=B, alphas=[1])
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(rk.RiskevalError, match=r"no system \['g0.a'\]"):
        rk.risk_table(X, baseline=B.drop(index="g0.a"))
    with pytest.raises(rk.RiskevalError, match=r"no topic \['t3'\]"):
        rk.risk_table(X, baseline=B.drop(columns="t3"))
    with pytest.raises(rk.RiskevalError, match="non-finite"):
        rk.risk_table(X, baseline=B.replace(B.loc["g1.b", "t2"], np.nan))
    with pytest.raises(rk.RiskevalError, match="duplicate system"):
        rk.risk_table(X, baseline=pd.concat([B, B.iloc[:1]]))


def test_baseline_runs_errors(X):
    with pytest.raises(rk.RiskevalError, match=r"have no baseline: \['g1.b'\]"):
        rk.analysis.baseline_runs(X, {k: v for k, v in MAPPING.items() if k != "g1.b"})
    with pytest.raises(rk.RiskevalError, match="not systems of the matrix"):
        rk.analysis.baseline_runs(X, {**MAPPING, "g1.b": "bm25"})
    with pytest.raises(rk.RiskevalError, match="dict or a Series"):
        rk.analysis.baseline_runs(X, [("g0.a", "g0.base")])
    assert rk.analysis.baseline_runs(X, pd.Series(MAPPING)).equals(rk.analysis.baseline_runs(X, MAPPING))


def test_read_baseline_map(tmp_path):
    path = tmp_path / "map.tsv"
    path.write_text("# own baselines\nsystem\tbaseline\n\na\tbm25\nb , bm25\nbm25 bm25\n")
    m = rk.io.read_baseline_map(path)
    assert m.to_dict() == {"a": "bm25", "b": "bm25", "bm25": "bm25"} and m.index.name == "system"
    for text, match in [
        ("a,b,c\n", ":1: .*two fields"),
        ("a,x\na,y\n", ":2: system 'a' is mapped twice"),
        ("# nothing\n", "lists no system"),
    ]:
        path.write_text(text)
        with pytest.raises(rk.errors.InputFormatError, match=match):
            rk.io.read_baseline_map(path)


def test_cli_baseline_map(X, tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    X.rename_axis(index="system").to_csv(scores)
    mapping = tmp_path / "map.csv"
    mapping.write_text("system,baseline\n" + "".join(f"{k},{v}\n" for k, v in MAPPING.items()))
    code, out, err = run(["risk", str(scores), "--baseline-map", str(mapping), "--format", "csv"], capsys)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert dict(zip(got.system, got.baseline, strict=True)) == MAPPING
    want = rk.risk_table(X, baseline=rk.analysis.baseline_runs(X, MAPPING))
    np.testing.assert_allclose(got.urisk, want.urisk, atol=1e-12)
    code, out, err = run(["risk", str(scores), "--baseline-map", str(mapping)], capsys)
    assert code == 0 and "baseline of each system: " in out
    code, out, err = run(
        ["risk", str(scores), "--baseline-map", str(mapping), "--topics", "g1.a", "--format", "csv"], capsys
    )
    assert code == 0 and set(pd.read_csv(io.StringIO(out)).baseline) == {"g1.base"}
    mapping.write_text("g0.a,g0.base\n")
    code, out, err = run(["risk", str(scores), "--baseline-map", str(mapping)], capsys)
    assert (
        code == 2
        and f"{mapping}: gives no baseline for 5 system(s) of the scores: 'g0.base'," in err
        and "Traceback" not in err
    )

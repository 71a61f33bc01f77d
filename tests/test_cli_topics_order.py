"""``riskeval risk --topics SYSTEM``: the per-topic table worst first, ``--losses-only`` and
``--top K``, with the columns of the library's ``riskiest_topics``."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from cli_runner import run_cli as run

import riskeval as rk
from riskeval.datasets import example_scores
from riskeval.errors import RiskevalError


def test_topics_are_worst_first_within_each_alpha(capsys):
    code, out, _ = run("risk --example --topics p_bert --alpha 1,5 --format csv".split(), capsys)
    assert code == 0
    table = pd.read_csv(io.StringIO(out))
    for _, part in table.groupby("alpha", sort=False):
        assert part["x"].is_monotonic_increasing
        assert len(part) == 43
    assert list(table["alpha"].drop_duplicates()) == [1.0, 5.0]


def test_losses_only_and_top_choose_rows_after_the_pvalues(capsys):
    X = example_scores()
    full = rk.topic_risk(X.loc["p_bert"], X.mean(axis=0).rename("MEAN"), 5.0, correction="holm")
    code, out, _ = run(
        "risk --example --topics p_bert --alpha 5 --correction holm --losses-only --top 3 --format csv".split(),
        capsys,
    )
    assert code == 0
    shown = pd.read_csv(io.StringIO(out), dtype={"topic": str})
    losses = full[full["delta"] < 0].sort_values("x", kind="stable")
    assert list(shown["topic"]) == list(losses.index[:3])
    # Holm over all 43 topics, not over the 3 shown
    assert shown["pvalue"].to_numpy() == pytest.approx(losses["pvalue"].to_numpy()[:3])
    assert (shown["delta"] < 0).all()


def test_api_and_cli_share_the_columns(capsys):
    X = example_scores()
    api = rk.riskiest_topics(
        rk.topic_risk(X.loc["p_bert"], X.mean(axis=0).rename("MEAN"), 5.0).reset_index(), top=2
    )
    code, out, _ = run("risk --example --topics p_bert --alpha 5 --top 2 --format csv".split(), capsys)
    cli = pd.read_csv(io.StringIO(out))
    assert set(api.columns) <= set(cli.columns)
    assert list(cli["x"]) == pytest.approx(list(api["x"]))


def test_several_measures_are_ranked_apart():
    table = pd.DataFrame(
        {
            "measure": ["m1"] * 3 + ["m2"] * 3,
            "alpha": [1.0] * 6,
            "topic": list("abcabc"),
            "x": [0.3, -0.2, 0.1, -0.5, 0.4, -0.1],
            "delta": [0.3, -0.1, 0.1, -0.25, 0.4, -0.05],
        }
    )
    out = rk.riskiest_topics(table, top=2)
    assert list(zip(out["measure"], out["topic"], strict=True)) == [
        ("m1", "b"),
        ("m1", "c"),
        ("m2", "a"),
        ("m2", "c"),
    ]
    assert list(rk.riskiest_topics(table, losses_only=True)["topic"]) == ["b", "a", "c"]


@pytest.mark.parametrize("argv", ["--top 0", "--top 1_0", "--top x"])
def test_a_bad_top_is_a_one_line_error(argv, capsys):
    code, _, err = run(f"risk --example --topics p_bert {argv}".split(), capsys)
    assert code == 2
    assert "--top" in err and "Traceback" not in err


def test_the_row_options_need_topics(capsys):
    code, _, err = run("risk --example --losses-only".split(), capsys)
    assert code == 2
    assert "--topics" in err


def test_riskiest_topics_refuses_a_table_without_x():
    with pytest.raises(RiskevalError, match="'x'"):
        rk.riskiest_topics(pd.DataFrame({"delta": [0.1]}))
    with pytest.raises(RiskevalError, match="top"):
        rk.riskiest_topics(pd.DataFrame({"x": [0.1], "delta": [0.1]}), top=0)

"""Systematic corruptions of real LightGBM models: every byte class put in, over or out of every
line kind (header, tree structure, split lines, ``leaf_value``, categorical and linear fields,
importances, parameters), and 200-byte overwrites across the file.  Each is refused with the file
and line, or loads and predicts: none ends the process (LightGBM's own loader aborts on many)."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pytest

from riskeval.errors import InputFormatError
from riskeval.ltr.models import check_model_text

SRC = str(Path(__file__).resolve().parents[2] / "src")
BASE = {"num_leaves": 7, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1, "objective": "lambdarank"}
#: Byte classes: digit, letter, space, newline, '=', NUL, minus, dot, an invalid byte, a UTF-8 letter.
BYTES = [b"7", b"X", b" ", b"\n", b"=", b"\x00", b"-", b".", b"\xff", "é".encode()]

PROBE = r"""
import sys, numpy as np, lightgbm
from riskeval.errors import RiskevalError
from riskeval.ltr.models import read_model
X = np.random.default_rng(0).normal(size=(50, 4))
X[:, 3] = np.arange(50) % 12
for path in sys.argv[1:]:
    print(path, flush=True)
    try:
        read_model(path).predict(X)
    except (RiskevalError, lightgbm.basic.LightGBMError):
        pass
print("done", flush=True)
"""


def _data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 4))
    X[:, 3] = rng.integers(0, 12, 400)
    y = np.clip((np.isin(X[:, 3], [1, 4, 7, 9]) * 2 + (X[:, 0] > 0)).astype(int), 0, 3)
    return X, y, [20] * 20


def _plain() -> str:
    X, y, group = _data()
    return lgb.train(BASE, lgb.Dataset(X, y, group=group), num_boost_round=3).model_to_string()


def _categorical() -> str:
    X, y, group = _data()
    params = {**BASE, "min_data_per_group": 5, "cat_smooth": 1, "max_cat_to_onehot": 2}
    data = lgb.Dataset(X, y, group=group, categorical_feature=[3])
    return lgb.train(params, data, num_boost_round=3).model_to_string()


def _linear() -> str:
    X, y, group = _data()
    return lgb.train(
        {**BASE, "linear_tree": True}, lgb.Dataset(X, y, group=group), num_boost_round=2
    ).model_to_string()


MODELS = {"plain": _plain, "categorical": _categorical, "linear": _linear}


def line_kinds(text: str) -> dict[str, int]:
    """The first and the last line of each kind (its key, or the line itself), by line index."""
    kinds: dict[str, int] = {}
    section = "header"
    for index, line in enumerate(text.split("\n")):
        if line.startswith("Tree="):
            section = "tree"
        elif line in ("end of trees", "feature_importances:", "parameters:", "end of parameters"):
            section = line
        key = re.split(r"[=:]", line, maxsplit=1)[0] if "=" in line or ":" in line else line
        if section in ("feature_importances:", "parameters:") and line != section:
            key = "line" if line else ""  # one kind for all the importances, one for all parameters
        kind = f"{section}/{key}"
        kinds.setdefault(kind, index)
        kinds[kind + "/last"] = index
    return kinds


def corruptions(raw: bytes) -> list[tuple[str, bytes]]:
    """Every byte class replaced at, inserted at and deleted from five places (first, second,
    middle, last byte, the line's newline) of a first and a last line of each kind; then 200
    bytes overwritten every 97 bytes with random bytes, spaces and another part of the file."""
    text = raw.decode()
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line.encode()) + 1)
    out = []
    for kind, index in line_kinds(text).items():
        start, end = starts[index], starts[index + 1] - 1
        for at in sorted({start, min(start + 1, end), (start + end) // 2, max(end - 1, start), end}):
            if at >= len(raw):
                continue
            out.append((f"{kind} delete {at}", raw[:at] + raw[at + 1 :]))
            for byte in BYTES:
                out.append((f"{kind} {byte!r} over {at}", raw[:at] + byte + raw[at + 1 :]))
                out.append((f"{kind} {byte!r} before {at}", raw[:at] + byte + raw[at:]))
    rng = random.Random(7)
    for at in range(0, len(raw) - 200, 97):
        source = rng.randrange(len(raw) - 200)
        for name, patch in (
            ("random", bytes(rng.randrange(256) for _ in range(200))),
            ("spaces", b" " * 200),
            (f"bytes {source}", raw[source : source + 200]),
        ):
            out.append((f"{name} over {at}..{at + 200}", raw[:at] + patch + raw[at + 200 :]))
    return out


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_every_corruption_is_refused_with_file_and_line_or_loads(kind, tmp_path):
    raw = MODELS[kind]().encode()
    assert check_model_text(raw, "m.txt") == raw.decode()
    lines = raw.count(b"\n") + 2
    accepted = []
    refused = 0
    for what, damaged in corruptions(raw):
        try:
            check_model_text(damaged, "m.txt")
        except InputFormatError as exc:
            refused += 1
            where = re.match(r"m\.txt:(\d+): not a ", str(exc))
            assert where, (what, str(exc))
            assert 1 <= int(where.group(1)) <= lines, (what, str(exc))
        else:
            accepted.append((what, damaged))
    assert refused > 1000
    # what is accepted is the model with other numbers (say a digit for a digit in a leaf value),
    # which LightGBM loads and predicts with, in a process of its own in case it would not
    paths = []
    for i, (_, damaged) in enumerate(accepted):
        (tmp_path / f"{i}.txt").write_bytes(damaged)
        paths.append(str(tmp_path / f"{i}.txt"))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *paths],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    last = done.stdout.split()[-1] if done.stdout.split() else None
    culprit = accepted[int(Path(last).stem)][0] if last and last != "done" else None
    assert done.returncode == 0 and last == "done", (culprit, done.returncode, done.stderr[-500:])


def test_leaf_value_one_space_turned_into_a_letter_is_refused_not_an_abort(tmp_path):
    """The case that aborted LightGBM (``Check failed: (strs.size()) == ...``, exit 134)."""
    raw = _plain().encode()
    at = raw.index(b" ", raw.index(b"leaf_value="))
    damaged = raw[:at] + b"X" + raw[at + 1 :]
    with pytest.raises(InputFormatError, match=r"^m\.txt:\d+: not a valid LightGBM model: leaf_value holds"):
        check_model_text(damaged, "m.txt")
    line = raw[:at].count(b"\n") + 1
    with pytest.raises(InputFormatError, match=rf"^m\.txt:{line}: "):
        check_model_text(damaged, "m.txt")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ((rb"right_child=\d(?= )", b"right_child=0"), "node 0 is reached twice"),
        ((rb"right_child=\d(?= )", b"right_child=9"), "right_child holds 9, outside"),
        ((rb"split_feature=\d", b"split_feature=4"), "split_feature holds 4, outside 0..3"),
        ((rb"decision_type=\d", b"decision_type=3"), "names no category of the tree"),
        ((b"num_leaves=7", b"num_leaves=6"), "has 6 values where the tree needs 5"),
        ((b"num_tree_per_iteration=1", b"num_tree_per_iteration=0"), "num_tree_per_iteration=0: riskeval"),
        ((b"num_class=1", b"num_class=3"), "num_class=3: riskeval reads models of one score"),
        ((b"feature_names=Column_0 ", b"feature_names="), "feature_names has 3 entries for the model's 4"),
        ((rb"\[boosting: gbdt\]", b"[boosting gbdt]"), "is not a parameter"),
        ((b"objective=lambdarank", b"objective=multiclass num_class:3"), "not an objective of one score"),
    ],
)
def test_values_that_would_crash_prediction_are_refused(change, message):
    """Indices out of range, cycles and categorical splits without categories load in LightGBM
    and then read out of bounds or loop when predicting."""
    raw = _plain().encode()
    damaged = re.sub(change[0], change[1], raw, count=1)
    assert damaged != raw
    with pytest.raises(InputFormatError, match=r"^m\.txt:\d+: not a") as info:
        check_model_text(damaged, "m.txt")
    assert message in str(info.value)

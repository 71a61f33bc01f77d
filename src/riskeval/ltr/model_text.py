"""The check of a LightGBM text model, line by line, before LightGBM's loader sees it.

LightGBM's loader (``GBDT::LoadModelFromString`` and ``Tree::Tree`` in LightGBM's sources) trusts
its input: a value list one number short fails a ``CHECK`` inside a parallel loop and aborts the
process (no exception reaches Python), a line without ``=`` in a tree makes it read past the
line, and a child index or feature index out of range, a cycle among the nodes or a categorical
split without categories makes prediction read out of bounds or loop forever.  So every line kind
is checked here, and every count that must agree with another:

- the **header**: ``tree``, then ``key=value`` lines of known keys, each once: ``version=v4``,
  ``num_class=1`` and ``num_tree_per_iteration=1`` (riskeval reads rankers: one score per
  document), ``label_index``, ``max_feature_idx``, an ``objective`` with one output,
  ``average_output``, ``feature_names``, ``monotone_constraints`` and ``feature_infos`` with one
  entry per feature, ``tree_sizes``;
- each **tree** ``Tree=i``, at the byte offset ``tree_sizes`` gives: ``key=value`` lines of the
  known tree fields, each once, ended by a blank line; ``num_leaves`` and ``num_cat`` in range;
  every list (``split_feature``, ``threshold``, ``leaf_value``, ...) as long as ``num_leaves``
  says; split features among the model's features; the children forming one binary tree over
  every node and leaf; categorical splits pointing at categories ``cat_boundaries`` holds;
  linear leaves' features among the model's features;
- ``end of trees``, the ``feature_importances:`` lines (``name=count``), the ``parameters:`` lines
  (``[name: value]``) up to ``end of parameters``, and the Python package's
  ``pandas_categorical:`` JSON line.

Problems are :class:`~riskeval.errors.InputFormatError` located as ``file:line``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from riskeval.errors import InputFormatError

#: Header keys every LightGBM text model has.
HEADER_KEYS = ("version", "num_class", "num_tree_per_iteration", "max_feature_idx")

#: The largest ``num_leaves`` LightGBM trains.
MAX_LEAVES = 131072

_INT = r"-?[0-9]{1,10}"
_FLOAT = r"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?|inf|nan)"
_INTS = re.compile(_INT)
_FLOATS = re.compile(_FLOAT)
_LISTS = {pattern: re.compile(f"{pattern.pattern}(?: {pattern.pattern})*") for pattern in (_INTS, _FLOATS)}
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")
_FEATURE_INFO = re.compile(rf"none|\[{_FLOAT}:{_FLOAT}\]|{_INT}(?::{_INT})*")
_NAME = re.compile(r"[^\s=]+")
_OBJECTIVE = re.compile(r"([a-z_]+)((?: [a-z_]+:[-+.0-9eE]+)*)")
_PARAMETER = re.compile(r"\[[a-z0-9_]+: [^\"\\:]*\]")

#: LightGBM's objectives of one output per document (what ``objective=`` may name).
ONE_OUTPUT_OBJECTIVES = frozenset(
    "regression regression_l1 huber fair poisson quantile mape gamma tweedie binary cross_entropy "
    "cross_entropy_lambda lambdarank rank_xendcg custom".split()
)

#: The fields of a tree (``Tree::ToString`` writes them; ``Tree::Tree`` reads them).
_TREE_INTS = ("split_feature", "left_child", "right_child", "decision_type", "leaf_count", "internal_count")
_TREE_FLOATS = ("split_gain", "threshold", "internal_value", "internal_weight", "leaf_value", "leaf_weight")
_TREE_KEYS = frozenset(
    (*_TREE_INTS, *_TREE_FLOATS, "num_leaves", "num_cat", "cat_boundaries", "cat_threshold", "is_linear")
    + ("shrinkage", "leaf_const", "num_features", "leaf_features", "leaf_coeff")
)
#: Tree fields LightGBM's loader requires (the split fields only when the tree has splits).
_TREE_REQUIRED = ("num_leaves", "num_cat", "leaf_value")
_SPLIT_REQUIRED = ("left_child", "right_child", "split_feature", "threshold")


class _Fail(Exception):
    """A problem at a line of the model text (1-based), raised as an :class:`InputFormatError`."""

    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line
        self.reason = reason


def check_model_text(raw: bytes, name: str = "the model") -> str:
    """The text of a LightGBM model file, checked line by line; else an
    :class:`~riskeval.errors.InputFormatError` located at the ``file:line`` of the first bad line
    (see the module's documentation for what is checked), telling a file cut short (its tree
    blocks, ``end of trees`` or ``end of parameters`` missing) as such.
    """
    if not raw:
        raise _invalid(name, "the file is empty", cut=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise _invalid(name, f"byte {exc.start} is not UTF-8 text", cut=False, line=line) from None
    header, blank, body = text.partition("\n\n")
    lines = header.split("\n")
    if lines[0] != "tree":
        raise _invalid(name, "its first line is not 'tree'", cut=False, line=1)
    keys = dict(line.partition("=")[::2] for line in lines[1:])
    missing = [key for key in HEADER_KEYS if key not in keys]
    if missing or not blank:
        what = ", ".join(missing) if missing else "the blank line after it"
        raise _invalid(name, f"the header lacks {what}", line=len(lines))
    blocks, trees_end = _tree_blocks(body, keys.get("tree_sizes"), name, len(lines) + 2)
    rest = body[trees_end:]
    last = text.count("\n") + 1
    if "\nparameters:\n" not in rest:
        raise _invalid(name, "the file ends before its parameters", line=last)
    if not rest.partition("\nend of parameters\n")[1]:
        raise _invalid(name, "the parameters have no 'end of parameters' line", line=last)
    try:
        control = _CONTROL.search(text)
        if control:
            line = text.count("\n", 0, control.start()) + 1
            raise _Fail(line, f"it holds the control character {control.group()!r}")
        features = _check_header(lines)
        line = len(lines) + 2
        for block in blocks:
            _check_tree(block, line, features)
            line += block.count("\n")
        _check_tail(rest, line, features)
    except _Fail as fail:
        raise InputFormatError(
            [(f"{name}:{fail.line}", f"not a valid LightGBM model: {fail.reason}")]
        ) from None
    return text


def _tree_blocks(body: str, sizes_text: str | None, name: str, first: int) -> tuple[list[str], int]:
    """The tree blocks of ``body`` (whose line 1 is line ``first`` of the file), cut at the offsets
    ``tree_sizes`` gives, and the offset in ``body`` just after ``end of trees``."""
    if sizes_text is None:
        raise _invalid(name, "the header lacks tree_sizes", line=first - 2)
    offset = 0
    blocks = []
    try:
        sizes = [int(size) for size in sizes_text.split(" ")] if sizes_text else []
    except ValueError:
        reason = f"tree_sizes={sizes_text[:40]!r} is not a list of byte counts"
        raise _invalid(name, reason, line=first - 2) from None
    encoded = body.encode("utf-8")
    for i, size in enumerate(sizes):
        block = encoded[offset : offset + size]
        line = first + encoded.count(b"\n", 0, offset)
        if size < 1 or len(block) < size or not block.startswith(f"Tree={i}\n".encode()):
            raise _invalid(name, f"tree {i} of {len(sizes)} is missing or cut short", line=line)
        try:
            blocks.append(block.decode("utf-8"))
        except UnicodeDecodeError:
            raise _invalid(name, f"tree {i} of {len(sizes)} is missing or cut short", line=line) from None
        offset += size
    line = first + encoded.count(b"\n", 0, offset)
    offset = len(encoded[:offset].decode("utf-8"))
    if not body.startswith("end of trees\n", offset):
        raise _invalid(name, "there is no 'end of trees' line after the trees", line=line)
    return blocks, offset + len("end of trees\n")


def _check_header(lines: list[str]) -> int:
    """The number of features of the model, its header ``lines`` checked (line 1 is ``tree``)."""
    values: dict[str, str] = {}
    at: dict[str, int] = {}
    for number, line in enumerate(lines[1:], start=2):
        key, eq, value = line.partition("=")
        if line == "average_output":
            key, value = line, ""
        elif not eq or key not in _HEADER_CHECKS:
            raise _Fail(number, f"{line[:40]!r} is not a line of a model's header")
        if key in values:
            raise _Fail(number, f"{key} is given twice")
        values[key], at[key] = value, number
    missing = [key for key in ("label_index", "feature_names", "feature_infos") if key not in values]
    if missing:
        raise _Fail(len(lines), f"the header lacks {', '.join(missing)}")
    features = _count(values["max_feature_idx"], at["max_feature_idx"], "max_feature_idx", 0, 2**31 - 2) + 1
    for key, value in values.items():
        _HEADER_CHECKS[key](value, at[key], features)
    return features


def _one(key: str) -> Callable[[str, int, int], None]:
    def check(value: str, line: int, features: int) -> None:
        if value != "1":
            raise _Fail(
                line, f"{key}={value[:20]}: riskeval reads models of one score per document ({key}=1)"
            )

    return check


def _per_feature(key: str, pattern: re.Pattern[str]) -> Callable[[str, int, int], None]:
    def check(value: str, line: int, features: int) -> None:
        entries = value.split(" ")
        if len(entries) != features:
            raise _Fail(line, f"{key} has {len(entries)} entries for the model's {features} features")
        bad = next((entry for entry in entries if not pattern.fullmatch(entry)), None)
        if bad is not None:
            raise _Fail(line, f"{key} holds {bad[:40]!r}")

    return check


def _objective(value: str, line: int, features: int) -> None:
    match = _OBJECTIVE.fullmatch(value)
    if not match or match.group(1) not in ONE_OUTPUT_OBJECTIVES:
        raise _Fail(line, f"objective={value[:40]}: not an objective of one score per document")


def _any_count(key: str, low: int) -> Callable[[str, int, int], None]:
    def check(value: str, line: int, features: int) -> None:
        _count(value, line, key, low, 2**31 - 1)

    return check


def _version(value: str, line: int, features: int) -> None:
    if not re.fullmatch(r"v[0-9]{1,3}", value):
        raise _Fail(line, f"version={value[:20]} is not a model version")


def _tree_sizes(value: str, line: int, features: int) -> None:
    if value and not re.fullmatch(r"[0-9]{1,12}(?: [0-9]{1,12})*", value):
        raise _Fail(line, "tree_sizes is not a list of byte counts")


_HEADER_CHECKS: dict[str, Callable[[str, int, int], None]] = {
    "version": _version,
    "num_class": _one("num_class"),
    "num_tree_per_iteration": _one("num_tree_per_iteration"),
    "label_index": _any_count("label_index", 0),
    "max_feature_idx": _any_count("max_feature_idx", 0),
    "objective": _objective,
    "average_output": lambda value, line, features: None,
    "feature_names": _per_feature("feature_names", _NAME),
    "monotone_constraints": _per_feature("monotone_constraints", re.compile("-1|0|1")),
    "feature_infos": _per_feature("feature_infos", _FEATURE_INFO),
    "tree_sizes": _tree_sizes,
}


def _count(value: str, line: int, key: str, low: int, high: int) -> int:
    """``value`` as an integer in ``[low, high]``."""
    if not re.fullmatch(_INT, value) or not low <= int(value) <= high:
        raise _Fail(line, f"{key}={value[:20]} is not an integer from {low} to {high}")
    return int(value)


def _check_tree(block: str, first: int, features: int) -> None:
    """One ``Tree=i`` block starting at line ``first``: its fields, their lengths and the tree."""
    lines = block.split("\n")
    fields: dict[str, str] = {}
    at: dict[str, int] = {}
    n = 1
    while n < len(lines) and lines[n]:
        key, eq, value = lines[n].partition("=")
        if not eq or key not in _TREE_KEYS:
            raise _Fail(first + n, f"{lines[n][:40]!r} is not a field of a tree")
        if key in fields:
            raise _Fail(first + n, f"{key} is given twice in the tree")
        fields[key], at[key] = value, first + n
        n += 1
    if n >= len(lines) - 1 or any(lines[n:]):
        extra = next((i for i in range(n, len(lines)) if lines[i]), n)
        raise _Fail(first + extra, "the tree's fields do not end with a blank line")
    missing = [key for key in _TREE_REQUIRED if key not in fields]
    if missing:
        raise _Fail(first, f"the tree lacks {', '.join(missing)}")
    leaves = _count(fields["num_leaves"], at["num_leaves"], "num_leaves", 1, MAX_LEAVES)
    categories = _count(fields["num_cat"], at["num_cat"], "num_cat", 0, leaves - 1)
    linear = _count(fields.get("is_linear", "0"), at.get("is_linear", first), "is_linear", 0, 1)
    if "shrinkage" in fields:
        _numbers(fields["shrinkage"], at["shrinkage"], "shrinkage", 1, _FLOATS)
    if leaves > 1 or linear:
        absent = [key for key in _SPLIT_REQUIRED if key not in fields]
        if absent:
            raise _Fail(first, f"the tree lacks {', '.join(absent)}")
    sizes = {key: leaves - 1 for key in _TREE_INTS + _TREE_FLOATS}
    sizes.update(leaf_value=leaves, leaf_weight=leaves, leaf_count=leaves)
    lists: dict[str, list[str]] = {}
    for key, size in sizes.items():
        # a tree of one leaf has its other fields empty (LightGBM's loader reads none of them)
        if key in fields and not (leaves == 1 and not linear and not fields[key] and key != "leaf_value"):
            pattern = _INTS if key in _TREE_INTS else _FLOATS
            lists[key] = _numbers(fields[key], at[key], key, size, pattern)
    if leaves > 1:
        _check_splits(lists, at, leaves, categories, features)
        _check_children(lists, at, leaves)
    if categories:
        _check_categories(fields, at, categories)
    if linear:
        _check_linear(fields, at, leaves, features, first)


def _numbers(value: str, line: int, key: str, size: int, number: re.Pattern[str]) -> list[str]:
    """The ``size`` numbers of a field, one space apart, each matching ``number``."""
    if size == 0 and not value:
        return []
    if not _LISTS[number].fullmatch(value):
        bad = next((token for token in value.split(" ") if not number.fullmatch(token)), value)
        raise _Fail(line, f"{key} holds {bad[:40]!r}, not a number")
    count = value.count(" ") + 1
    if count != size:
        raise _Fail(line, f"{key} has {count} values where the tree needs {size}")
    return value.split(" ")


def _ints(tokens: list[str], line: int, key: str, low: int, high: int) -> list[int]:
    values = [int(token) for token in tokens]
    bad = next((value for value in values if not low <= value <= high), None)
    if bad is not None:
        raise _Fail(line, f"{key} holds {bad}, outside {low}..{high}")
    return values


def _check_splits(
    lists: dict[str, list[str]], at: dict[str, int], leaves: int, categories: int, features: int
) -> None:
    """Split features among the model's; decision types known; categorical splits in range."""
    _ints(lists["split_feature"], at["split_feature"], "split_feature", 0, features - 1)
    decisions = _ints(lists.get("decision_type", []), at.get("decision_type", 0), "decision_type", 0, 11)
    if any((decision >> 2) & 3 == 3 for decision in decisions):
        raise _Fail(at["decision_type"], "decision_type holds an unknown missing-value rule")
    for node, decision in enumerate(decisions):
        if decision & 1:
            threshold = float(lists["threshold"][node])
            if not (threshold.is_integer() and 0 <= threshold < categories):
                raise _Fail(at["threshold"], f"the categorical split {node} names no category of the tree")


def _check_children(lists: dict[str, list[str]], at: dict[str, int], leaves: int) -> None:
    """``left_child``/``right_child`` form one binary tree from node 0 over every node and leaf."""
    line = at["left_child"]
    left = _ints(lists["left_child"], line, "left_child", -leaves, leaves - 2)
    right = _ints(lists["right_child"], at["right_child"], "right_child", -leaves, leaves - 2)
    seen_nodes = [False] * (leaves - 1)
    seen_leaves = [False] * leaves
    stack = [0]
    seen_nodes[0] = True
    while stack:
        node = stack.pop()
        for child in (left[node], right[node]):
            if child >= 0:
                if seen_nodes[child]:
                    raise _Fail(line, f"node {child} is reached twice: left_child/right_child are not a tree")
                seen_nodes[child] = True
                stack.append(child)
            else:
                if seen_leaves[~child]:
                    raise _Fail(
                        line, f"leaf {~child} is reached twice: left_child/right_child are not a tree"
                    )
                seen_leaves[~child] = True
    if not all(seen_nodes) or not all(seen_leaves):
        raise _Fail(line, "left_child/right_child leave nodes or leaves out of the tree")


def _check_categories(fields: dict[str, str], at: dict[str, int], categories: int) -> None:
    """``cat_boundaries``: ``num_cat + 1`` offsets from 0 up to the length of ``cat_threshold``."""
    for key in ("cat_boundaries", "cat_threshold"):
        if key not in fields:
            raise _Fail(at["num_cat"], f"the tree has num_cat={categories} and no {key}")
    line = at["cat_boundaries"]
    tokens = _numbers(fields["cat_boundaries"], line, "cat_boundaries", categories + 1, _INTS)
    bounds = _ints(tokens, line, "cat_boundaries", 0, 2**31 - 1)
    if bounds[0] != 0 or any(b < a for a, b in zip(bounds, bounds[1:], strict=False)):
        raise _Fail(line, "cat_boundaries do not rise from 0")
    threshold = _numbers(fields["cat_threshold"], at["cat_threshold"], "cat_threshold", bounds[-1], _INTS)
    _ints(threshold, at["cat_threshold"], "cat_threshold", 0, 2**32 - 1)


def _check_linear(fields: dict[str, str], at: dict[str, int], leaves: int, features: int, first: int) -> None:
    """A linear tree's leaves: a constant each, and as many features (the model's) as coefficients."""
    if "leaf_const" in fields:
        _numbers(fields["leaf_const"], at["leaf_const"], "leaf_const", leaves, _FLOATS)
    if "num_features" not in fields:
        return
    line = at["num_features"]
    counts = _ints(
        _numbers(fields["num_features"], line, "num_features", leaves, _INTS),
        line,
        "num_features",
        0,
        features,
    )
    total = sum(counts)
    for key, pattern in (("leaf_features", _INTS), ("leaf_coeff", _FLOATS)):
        tokens = fields.get(key, "").split()
        if len(tokens) != total:
            raise _Fail(
                at.get(key, first), f"{key} has {len(tokens)} values where num_features adds up to {total}"
            )
        if tokens:
            _numbers(" ".join(tokens), at[key], key, total, pattern)
    _ints(
        fields.get("leaf_features", "").split(),
        at.get("leaf_features", first),
        "leaf_features",
        0,
        features - 1,
    )


def _check_tail(rest: str, line: int, features: int) -> None:
    """What follows ``end of trees`` (at ``line``): importances, parameters, the pandas line."""
    section = ""
    lines = rest.split("\n")
    for number, text in enumerate(lines[:-1] if not lines[-1] else lines, start=line + 1):
        if (
            text in ("feature_importances:", "parameters:", "end of parameters")
            and section != "end of parameters"
        ):
            section = text
        elif not text and section != "end of parameters":
            continue
        elif section == "feature_importances:":
            name, eq, count = text.rpartition("=")
            if not eq or not _NAME.fullmatch(name) or not count.isdigit():
                raise _Fail(number, f"{text[:40]!r} is not a feature importance (name=count)")
        elif section == "parameters:":
            if not _PARAMETER.fullmatch(text):
                raise _Fail(number, f"{text[:40]!r} is not a parameter ([name: value])")
        elif section == "end of parameters" and (not text or text.startswith("pandas_categorical:")):
            _check_pandas_line(text, number)
        else:
            raise _Fail(number, f"{text[:40]!r} is not a line of a model file here")


def _check_pandas_line(text: str, line: int) -> None:
    """The Python package's ``pandas_categorical:`` line: JSON (``null`` or lists of categories)."""
    if not text:
        return
    try:
        value = json.loads(text.partition(":")[2])
    except ValueError:
        raise _Fail(line, "the pandas_categorical line after the parameters is cut short") from None
    if value is not None and not isinstance(value, list):
        raise _Fail(line, "the pandas_categorical line is not a list of categories")


def _invalid(name: str, reason: str, *, cut: bool = True, line: int | None = None) -> InputFormatError:
    """The error for a model file (at ``line``): not a model at all, or (``cut``) a model file cut
    short."""
    where = name if line is None else f"{name}:{line}"
    if not cut:
        return InputFormatError([(where, f"not a LightGBM model file ({reason}).")])
    return InputFormatError(
        [
            (
                where,
                f"not a complete LightGBM model file ({reason}); it may have been cut short while "
                "saved or copied. Save or copy the model again.",
            )
        ]
    )

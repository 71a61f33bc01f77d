"""Run a documentation page's Python block statement by statement, keeping the value of each
expression statement, so that a test can check what the page's comments say those values are."""

from __future__ import annotations

import ast
from typing import Any


def run_statements(code: str, filename: str, namespace: dict[str, Any]) -> list[Any]:
    """Execute ``code`` in ``namespace``; the values of its expression statements (None left
    out), in order."""
    values = []
    for node in ast.parse(code).body:
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), filename, "eval"), namespace)
            if value is not None:  # calls made for their effect (savefig, matplotlib.use)
                values.append(value)
        else:
            exec(compile(ast.Module([node], []), filename, "exec"), namespace)
    return values

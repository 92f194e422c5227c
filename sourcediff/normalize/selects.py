"""Conditional element reads as reads at a conditional index.

A periodic boundary reads ``left = u[i - 1] if i > 0 else u[n - 1]``. Flattened
as a branch, ``left`` has two definitions, so the reverse sweep cannot recompute
it and records every iteration's value. Read at a selected index instead,
``j = i - 1 if i > 0 else n - 1; left = u[j]``, it is one element read whose
index is integer arithmetic on the loop variable: recomputed in the reverse
sweep like ``u[i - 1]``, and its adjoint is one ``u_bar[j] += ...``.

Both indices are evaluated before one is chosen, which is exact when they are
integer arithmetic (``+ - *``, signs) on names and integer constants: no call,
no element read, no division, nothing that can fail or have an effect.

    >>> expr = ast.parse("u[i - 1] if i > 0 else u[n - 1]", mode="eval").body
    >>> print(ast.unparse(element_read_at_selected_index(expr)))
    u[i - 1 if i > 0 else n - 1]
    >>> expr = ast.parse("u[i - 1] if i > 0 else v[n - 1]", mode="eval").body
    >>> element_read_at_selected_index(expr) is None
    True
"""

from __future__ import annotations

import ast

SAFE = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp)
SAFE += (ast.Add, ast.Sub, ast.Mult, ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or)
SAFE += (ast.Load, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)


def is_index_arithmetic(expr: ast.expr) -> bool:
    """Whether ``expr`` is integer arithmetic that cannot fail: names, integer
    constants, ``+ - *``, signs, comparisons and boolean operators of them."""
    for node in ast.walk(expr):
        if not isinstance(node, SAFE):
            return False
        if isinstance(node, ast.Constant) and type(node.value) not in (int, bool):
            return False
    return True


def is_index_select(expr: ast.expr) -> bool:
    """``a if c else b`` with ``a``, ``b`` and ``c`` index arithmetic."""
    return isinstance(expr, ast.IfExp) and all(
        is_index_arithmetic(part) for part in (expr.test, expr.body, expr.orelse)
    )


def element_read_at_selected_index(expr: ast.IfExp) -> ast.Subscript | None:
    """``x[i1, j] if c else x[i2, j]`` as ``x[i1 if c else i2, j]``, when both arms read
    the same array at index arithmetic and ``c`` is index arithmetic; else None."""
    body, orelse = expr.body, expr.orelse
    if not all(_element_of_name(e) for e in (body, orelse)) or body.value.id != orelse.value.id:
        return None
    first, second = _parts(body.slice), _parts(orelse.slice)
    if len(first) != len(second) or not is_index_arithmetic(expr.test):
        return None
    if not all(map(is_index_arithmetic, first + second)):
        return None
    parts = [
        a if ast.dump(a) == ast.dump(b) else ast.IfExp(expr.test, a, b)
        for a, b in zip(first, second)
    ]
    index = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())
    return ast.Subscript(ast.Name(body.value.id, ast.Load()), index, ast.Load())


def _element_of_name(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name)


def _parts(index: ast.expr) -> list[ast.expr]:
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]

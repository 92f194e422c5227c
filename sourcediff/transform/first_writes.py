r"""Assign a scalar adjoint at its first contribution instead of zeroing it first.

The reverse sweep zeroes each adjoint before contributions accumulate into it.
When, in one straight-line run, nothing reads or writes a zeroed scalar adjoint
before its first ``+=``, that contribution is simply its value (``0.0 + e`` is
``e``), so the zeroing goes and the ``+=`` becomes ``=``. Arrays keep their
zeroing: assigning would make the adjoint share memory with ``e``::

    t6_bar = 0.0                         t6_bar = logistic_bar
    y_bar = 0.0                   ->     y_bar = y * t6_bar
    t6_bar += logistic_bar               y_bar += y * t6_bar
    y_bar += y * t6_bar
    y_bar += y * t6_bar

    >>> from sourcediff.ir import block_source
    >>> before = ast.parse("t6_bar = 0.0\ny_bar = 0.0\nt6_bar += g\ny_bar += y * t6_bar").body
    >>> print(block_source(assign_first_contributions(before, {"t6_bar", "y_bar"})))
    t6_bar = g
    y_bar = y * t6_bar
"""

from __future__ import annotations

import ast

from ..astnodes import walk


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _zeroing(stmt: ast.stmt) -> str:
    """``name`` for ``name = 0.0``, else ''."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
        return ""
    value = stmt.value
    zero = isinstance(value, ast.Constant) and type(value.value) is float and value.value == 0.0
    return stmt.targets[0].id if zero else ""


def _first_contribution(stmt: ast.stmt, zeroed: dict) -> str:
    """``name`` when ``stmt`` is ``name += e`` (or ``-=``) right after its zeroing."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name)):
        return ""
    name = stmt.target.id
    if name not in zeroed or not isinstance(stmt.op, (ast.Add, ast.Sub)):
        return ""
    return "" if name in _names(stmt.value) else name


def assign_first_contributions(stmts: list[ast.stmt], adjoints: set[str]) -> list[ast.stmt]:
    """``stmts`` with each zeroing of a scalar adjoint merged into its first ``+=``."""
    out: list[ast.stmt | None] = []
    zeroed: dict[str, int] = {}  # adjoint -> position of its zeroing in ``out``
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner:
                setattr(stmt, field, assign_first_contributions(inner, adjoints))
        name = _first_contribution(stmt, zeroed)
        if name:
            out[zeroed.pop(name)] = None
            value = stmt.value
            if isinstance(stmt.op, ast.Sub):
                value = ast.UnaryOp(ast.USub(), value)
            stmt = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), stmt)
        for used in _names(stmt) & set(zeroed):
            del zeroed[used]  # read (or written) before its first contribution: keep its zero
        zero = _zeroing(stmt)
        if zero in adjoints:
            zeroed[zero] = len(out)
        out.append(stmt)
    return [s for s in out if s is not None]

"""Assign an adjoint's first contribution instead of adding it to a zero.

The reverse sweep zeroes a scalar adjoint (``s_bar = 0.0``) and then adds
every contribution to it; the first contribution can simply be assigned. A
forward must-analysis over the structured code finds, before each statement,
the names that certainly hold the constant ``0.0`` (analysis/dataflow.py: on every
path, loops iterated to a fixed point), and ``s_bar += g``
becomes ``s_bar = g`` where ``s_bar`` is among them:

    >>> fn = ast.parse('''
    ... def f(g, n):
    ...     s_bar = 0.0
    ...     for i in range(n):
    ...         s_bar += g
    ...         u = 2.0 * s_bar
    ...         s_bar = 0.0
    ...     return u
    ... ''').body[0]
    >>> assign_first_contributions(fn)
    True
    >>> print(ast.unparse(fn.body[1].body[0]))
    s_bar = g

``0.0 + g`` is ``g`` exactly (up to the sign of a zero ``g``). A name bound to
the literal ``0.0`` is a scalar, so the assignment never aliases an array.
Dead zeroings left behind are removed by the dead-store pass.
"""

from __future__ import annotations

import ast

from ..analysis.dataflow import Dataflow
from .effects import NodeFacts, names_written

Zeros = frozenset


def assign_first_contributions(function: ast.FunctionDef) -> bool:
    """Rewrite, in place, ``s += g`` into ``s = g`` where ``s`` is certainly ``0.0``;
    whether anything changed."""
    pass_ = _KnownZeros()
    pass_.block(function.body, Zeros())
    return pass_.changed


def _is_zero_literal(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and type(value.value) is float and value.value == 0.0


class _KnownZeros(Dataflow):
    may = False  # a fact holds where it holds on every path

    def __init__(self):
        super().__init__()
        self.written = NodeFacts()  # names_written by statement: loops revisit

    def rewrite_at(self, stmts: list[ast.stmt], index: int, zeros: Zeros) -> bool:
        stmt = stmts[index]
        if (
            isinstance(stmt, ast.AugAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.target.id in zeros
            and isinstance(stmt.op, (ast.Add, ast.Sub))
        ):
            stmts[index] = _assignment(stmt)
            return True
        return False

    def simple(self, stmt: ast.stmt, zeros: Zeros) -> Zeros:
        written = self.written.get(stmt)
        if written is None:
            written = self.written[stmt] = names_written(stmt)
        zeros = zeros - written
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and _is_zero_literal(stmt.value):
                zeros = zeros | {target.id}
        return zeros


def _assignment(stmt: ast.AugAssign) -> ast.Assign:
    """``s = g`` for ``s += g`` and ``s = -g`` for ``s -= g``, at the same place."""
    value = stmt.value if isinstance(stmt.op, ast.Add) else ast.UnaryOp(ast.USub(), stmt.value)
    target = ast.Name(stmt.target.id, ast.Store())
    assignment = ast.copy_location(ast.Assign([target], value), stmt)
    if hasattr(stmt, "origin"):
        assignment.origin = stmt.origin
    return assignment

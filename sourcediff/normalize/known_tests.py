"""Tests whose outcome is known when the derivative is built, decided then.

Splitting small arrays into numbers (``small_arrays.py``) turns ``a.ndim`` and
``a.shape[0]`` into constants, so an inlined helper's check of its arguments
(``np.cross``'s ``if a.ndim != 1 or a.shape[0] != 3: raise ValueError(...)``)
compares constants, and generated or careless code tests literals (``elif -1.31 > 0.2:``,
whose branch binds names nothing else binds: Numba cannot type them). This pass, run
first in the types stage and again after splitting, follows names bound to a constant
``True``, ``False`` or integer through straight-line code, evaluates comparisons of
those and of float literals, ``not``, ``and`` and ``or``, and keeps only the branch a
decided ``if`` takes. A name bound
in a loop or a branch is unknown after it; nothing else is changed, and no number
is computed differently.

    >>> node = ast.parse('''
    ... def f(x):
    ...     t1 = 1 != 1
    ...     t2 = t1
    ...     if not t1:
    ...         t2 = 3 != 3
    ...     if t2:
    ...         raise ValueError("x must be a 3-vector")
    ...     return x
    ... ''').body[0]
    >>> fold_known_tests(node)
    >>> print(ast.unparse(node))
    def f(x):
        t1 = False
        t2 = t1
        t2 = False
        return x
"""

from __future__ import annotations

import ast

from ..astnodes import walk
from ..transform.simplify import COMPARISONS

UNKNOWN = object()


def fold_ranks(node: ast.FunctionDef, types) -> bool:
    """Replace, in place, ``a.ndim`` of each array ``a`` by its rank (a variable keeps one
    rank throughout: ``types``), then decide the tests that compare constants: code written
    for several ranks (``if x.ndim == 1: ... else: ...``) keeps the branch its arguments
    take. Whether a branch was dropped (the types are then inferred again).

    >>> from types import SimpleNamespace
    >>> node = ast.parse(
    ...     "def f(x):\\n    t = x.ndim\\n    if t == 1:\\n        y = x[0]\\n    else:\\n"
    ...     "        y = x[0, 0]\\n    return y"
    ... ).body[0]
    >>> fold_ranks(node, {"x": SimpleNamespace(kind="array", ndim=1)})
    True
    >>> print(ast.unparse(node))
    def f(x):
        t = 1
        y = x[0]
        return y
    """
    ranks = _Ranks(types)
    ranks.visit(node)
    if not ranks.replaced:  # nothing new to decide: the function is left as it is
        return False
    branches = sum(isinstance(sub, ast.If) for sub in walk(node))
    fold_known_tests(node)
    return sum(isinstance(sub, ast.If) for sub in walk(node)) < branches


class _Ranks(ast.NodeTransformer):
    def __init__(self, types):
        self.types = types
        self.replaced = False

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if node.attr == "ndim" and isinstance(node.value, ast.Name):
            found = self.types.get(node.value.id)
            if found is not None and found.kind == "array":
                self.replaced = True
                return ast.copy_location(ast.Constant(found.ndim), node)
        return self.generic_visit(node)


def fold_known_tests(node: ast.FunctionDef) -> None:
    """Decide, in place, the tests of ``node`` that compare constants (module docstring)."""
    node.body[:] = _block(node.body, {})


def _block(stmts: list[ast.stmt], known: dict) -> list[ast.stmt]:
    """``stmts`` with decided branches in place of their ``if``; ``known`` (the names
    holding a constant) is updated to what holds after them."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            decided = _value(stmt.test, known)
            if decided is not UNKNOWN:
                out += _block(stmt.body if decided else stmt.orelse, known)
                continue
            for branch in ("body", "orelse"):
                setattr(stmt, branch, _block(getattr(stmt, branch), dict(known)))
            _forget(stmt, known)
        elif isinstance(stmt, (ast.For, ast.While)):
            _forget(stmt, known)  # bound in an iteration: unknown in every other one
            stmt.body[:] = _block(stmt.body, dict(known))
            _forget(stmt, known)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            value = _value(stmt.value, known)
            if value is UNKNOWN:
                known.pop(stmt.targets[0].id, None)
            else:
                known[stmt.targets[0].id] = value
                if not isinstance(stmt.value, ast.Name):
                    stmt.value = ast.Constant(value)
        else:
            _forget(stmt, known)
        out.append(stmt)
    return out


def _forget(stmt: ast.stmt, known: dict) -> None:
    for sub in walk(stmt):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            known.pop(sub.id, None)


def _value(expr: ast.expr, known: dict):
    """The constant ``expr`` evaluates to, or UNKNOWN."""
    if isinstance(expr, ast.Constant) and type(expr.value) in (bool, int):
        return expr.value
    if isinstance(expr, ast.Name):
        return known.get(expr.id, UNKNOWN)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        inner = _value(expr.operand, known)
        return UNKNOWN if inner is UNKNOWN else not inner
    if isinstance(expr, ast.BoolOp):
        values = [_value(v, known) for v in expr.values]
        if any(type(v) is not bool for v in values):  # ``1 or x`` is a number, not a test
            return UNKNOWN
        return all(values) if isinstance(expr.op, ast.And) else any(values)
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        compare = COMPARISONS.get(type(expr.ops[0]))
        left, right = _compared(expr.left, known), _compared(expr.comparators[0], known)
        if compare is not None and UNKNOWN not in (left, right):
            return compare(left, right)
    return UNKNOWN


def _compared(expr: ast.expr, known: dict):
    """An operand of a comparison: a constant as :func:`_value` finds one, or a float
    literal (``(-1.31) > 0.2`` decides a branch; a float is never bound as known)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _compared(expr.operand, known)
        return UNKNOWN if type(inner) is not float else -inner
    if isinstance(expr, ast.Constant) and type(expr.value) is float:
        return expr.value
    return _value(expr, known)

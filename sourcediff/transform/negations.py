"""Absorb a negation into the addition or subtraction that receives it.

The adjoint rules of subtraction and of negative coefficients hand on ``-g``, and
folding puts that value where it is added: ``u_bar_0 += t11_bar + 2.0 * -t9_bar``,
``x_bar[i] += -d_bar``. An expert writes ``u_bar_0 += t11_bar - 2.0 * t9_bar`` and
``x_bar[i] -= d_bar``. The rewrite is exact in IEEE arithmetic: ``a + -b`` is by
definition ``a - b``, and a product or quotient with one negated factor is the negated
product (rounding to nearest is symmetric in the sign), zeros and infinities included.

    >>> fn = ast.parse("def f(a, b, c, x_bar, i):\\n    x_bar[i] += -b\\n"
    ...                "    return a + c * -b - -b / c").body[0]
    >>> absorb_negations(fn)
    True
    >>> print(ast.unparse(fn))
    def f(a, b, c, x_bar, i):
        x_bar[i] -= b
        return a - c * b + b / c
"""

from __future__ import annotations

import ast

from ..astnodes import walk

_FLIPPED = {ast.Add: ast.Sub, ast.Sub: ast.Add}


def absorb_negations(function: ast.FunctionDef) -> bool:
    """Rewrite ``a + -b`` as ``a - b`` (and ``a - -b``, ``x += -b``, ``a + c * -b``
    likewise) everywhere in ``function``, in place; whether anything changed."""
    changed = False
    for node in walk(function):
        if isinstance(node, ast.BinOp) and type(node.op) in _FLIPPED:
            positive = _without_negation(node.right)
            if positive is not None:
                node.op, node.right = _FLIPPED[type(node.op)](), positive
                changed = True
        elif isinstance(node, ast.AugAssign) and type(node.op) in _FLIPPED:
            positive = _without_negation(node.value)
            if positive is not None:
                node.op, node.value = _FLIPPED[type(node.op)](), positive
                changed = True
    return changed


def _without_negation(expr: ast.expr) -> ast.expr | None:
    """``b`` for ``-b``; ``c * b`` for ``c * -b`` or ``-c * b`` (and quotients); else None.

    >>> [ast.unparse(_without_negation(ast.parse(e, mode="eval").body) or ast.Name("-"))
    ...  for e in ("-b", "2.0 * -t", "-t / c", "c * d", "-(a + b)", "-2.0 * t")]
    ['b', '2.0 * t', 't / c', '-', 'a + b', '2.0 * t']
    """
    if _negated(expr):
        return _positive(expr)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div)):
        if _negated(expr.right):
            return ast.BinOp(expr.left, expr.op, _positive(expr.right))
        if _negated(expr.left):
            return ast.BinOp(_positive(expr.left), expr.op, expr.right)
    return None


def _negated(expr: ast.expr) -> bool:
    """``-b``, or a negative float constant (``-2.0 * t`` from a rule's coefficient)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return True
    return isinstance(expr, ast.Constant) and type(expr.value) is float and expr.value < 0.0


def _positive(negated: ast.expr) -> ast.expr:
    if isinstance(negated, ast.Constant):
        return ast.Constant(-negated.value)
    return negated.operand

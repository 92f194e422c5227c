r"""Reductions Numba lacks, rewritten by the flattener into rows the table has.

Numba compiles ``np.sum(x, axis=k)`` but not ``np.mean``, ``np.var``, ``np.std``,
``np.prod`` or ``np.linalg.norm`` along an axis, nor ``keepdims=True`` or ``ddof=``
anywhere. Each becomes sums along the axis, ``np.expand_dims``, ``max_along``/
``min_along``/``prod_along`` and ``safe_sqrt`` (``np.sqrt`` whose derivative is 0 where
the root is 0, as ``np.std`` and ``np.linalg.norm`` have at a constant row).
``v = np.var(A, axis=1)`` becomes (the flattener assigns the last line to ``v``):

>>> from types import SimpleNamespace
>>> class Flat(SimpleNamespace):  # the flattener's interface, recording what it emits
...     def new_temp(self):
...         self.count += 1
...         return f"t{self.count}"
...     def assign(self, name, value):
...         self.out.append(f"{name} = {ast.unparse(value)}")
...     def atom(self, node):
...         return node
>>> flat = Flat(count=0, out=[])
>>> call = ast.parse("np.var(A, axis=1)", mode="eval").body
>>> result = rewrite_reduction(flat, "np.var", call.args, call.keywords, call)
>>> print("\n".join(flat.out + [ast.unparse(result)]))
t1 = A.shape[1]
t2 = np.sum(A, axis=1)
t3 = t2 / t1
t4 = np.expand_dims(t3, 1)
t5 = A - t4
t6 = t5 * t5
t7 = np.sum(t6, axis=1)
t7 / t1
"""

from __future__ import annotations

import ast
import copy

REWRITTEN = {"np.mean", "np.var", "np.std", "norm", "np.max", "np.min", "np.prod", "np.sum"}
ALONG = {"np.max": "max_along", "np.min": "min_along", "np.prod": "prod_along"}
# The second positional parameter of each, when it is not ``axis``.
SECOND_POSITIONAL = {"norm": "ord"}


def rewrite_reduction(flat, path: str, args: list[ast.expr], keywords, expr: ast.Call):
    """The rewritten form of ``path(args, **keywords)`` (``args`` are atoms), or None
    when the call is one Numba compiles as it is."""
    if path not in REWRITTEN:
        return None
    options = {k.arg: k.value for k in keywords}
    if len(args) > 1:
        options[SECOND_POSITIONAL.get(path, "axis")] = args[1]
    unknown = set(options) - {"axis", "keepdims", "ddof", "ord"}
    if unknown or ("ddof" in options and path not in ("np.var", "np.std")):
        return None  # the rule-table check reports the keyword with the line
    if "ord" in options and not _is_euclidean(options.pop("ord"), "axis" in options):
        raise flat.fn.error(expr, "np.linalg.norm: only the Euclidean (Frobenius) norm")
    axis, keepdims = options.get("axis"), _keepdims(flat, options, expr)
    if axis is None and not keepdims and "ddof" not in options:
        return None
    if axis is None and keepdims:
        raise flat.fn.error(expr, f"keepdims=True without axis= in '{path}' is not supported")
    axis = flat.atom(axis) if axis is not None else None
    result = _along(flat, path, args[0], axis, options.get("ddof"))
    if keepdims:
        return _call(flat, "np.expand_dims", [_named(flat, result), axis])
    return result


def _is_euclidean(order: ast.expr, along_axis: bool) -> bool:
    """``ord=None``, ``'fro'``, or ``2`` along an axis (a vector norm per row)."""
    if not isinstance(order, ast.Constant):
        return False
    return order.value in (None, "fro") or (order.value == 2 and along_axis)


def _keepdims(flat, options: dict, expr: ast.Call) -> bool:
    value = options.get("keepdims")
    if value is None:
        return False
    if not (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
        raise flat.fn.error(expr, "keepdims= must be True or False written out")
    return value.value


def _along(flat, path: str, x: ast.expr, axis, ddof) -> ast.expr:
    """``path(x, axis)`` in rows the table has; ``axis`` None means the whole array."""
    if path in ALONG:
        return _call(flat, ALONG[path], [x, axis])
    if path == "np.sum":
        return _sum(flat, x, axis)
    if path == "norm":
        square = _operation(flat, x, ast.Mult(), x)
        return _call(flat, "safe_sqrt", [_named(flat, _sum(flat, square, axis))])
    count = _count(flat, x, axis)
    if path == "np.mean":
        return _binary(_named(flat, _sum(flat, x, axis)), ast.Div(), count)
    mean = _named(flat, _binary(_named(flat, _sum(flat, x, axis)), ast.Div(), count))
    if axis is not None:
        mean = _named(flat, _call(flat, "np.expand_dims", [mean, axis]))
    deviation = _operation(flat, x, ast.Sub(), mean)
    squares = _named(flat, _sum(flat, _operation(flat, deviation, ast.Mult(), deviation), axis))
    if ddof is not None:
        count = _operation(flat, count, ast.Sub(), flat.atom(ddof))
    variance = _binary(squares, ast.Div(), count)
    if path == "np.var":
        return variance
    return _call(flat, "safe_sqrt", [_named(flat, variance)])


def _sum(flat, x: ast.expr, axis) -> ast.expr:
    keywords = [] if axis is None else [ast.keyword("axis", axis)]
    return _call(flat, "np.sum", [x], keywords)


def _count(flat, x: ast.expr, axis) -> ast.expr:
    """The number of elements reduced: ``x.shape[axis]``, or ``x.size``."""
    shape = ast.Attribute(copy.deepcopy(x), "size" if axis is None else "shape", ast.Load())
    if axis is None:
        return _named(flat, shape)
    return _named(flat, ast.Subscript(shape, copy.deepcopy(axis), ast.Load()))


def _call(flat, path: str, args, keywords=()) -> ast.expr:
    from .calls import path_ast

    args = [copy.deepcopy(a) for a in args]
    return ast.Call(path_ast(path), args, [copy.deepcopy(k) for k in keywords])


def _operation(flat, left, op, right) -> ast.Name:
    return _named(flat, _binary(left, op, right))


def _binary(left, op, right) -> ast.BinOp:
    """``left op right`` on copies: a node appears once in the tree."""
    return ast.BinOp(copy.deepcopy(left), op, copy.deepcopy(right))


def _named(flat, value: ast.expr) -> ast.expr:
    """An atom for ``value``: a new temporary assigned it, unless it is one already."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return value
    temp = flat.new_temp()
    flat.assign(temp, value)
    return ast.Name(temp, ast.Load())

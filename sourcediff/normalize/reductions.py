r"""Reductions Numba lacks, rewritten by the flattener into rows the table has.

Numba compiles ``np.sum(x, axis=k)`` but not ``np.mean``, ``np.var``, ``np.std``,
``np.prod`` or ``np.linalg.norm`` along an axis, nor ``keepdims=True`` or ``ddof=``
anywhere, nor a tuple of axes. Each becomes sums along one axis at a time, ``expand_axis``
(``np.expand_dims``, also of a number), ``max_along``/``min_along``/``prod_along`` and
``safe_sqrt`` (``np.sqrt`` whose derivative is 0 where the root is 0, as ``np.std`` and
``np.linalg.norm`` have at a constant row).
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
t4 = expand_axis(t3, 1)
t5 = A - t4
t6 = t5 * t5
t7 = np.sum(t6, axis=1)
t7 / t1
"""

from __future__ import annotations

import ast
import math

from ..astnodes import clone
from .rearrange import constant_int

REWRITTEN = {"np.mean", "np.var", "np.std", "norm", "np.max", "np.min", "np.prod", "np.sum"}
ALONG = {"np.max": "max_along", "np.min": "min_along", "np.prod": "prod_along"}
# np.linalg.norm's other orders along an axis, by the order.
ORDERS = {1.0: "norm_1", math.inf: "norm_inf", -math.inf: "norm_minus_inf"}
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
    if path == "norm" and len(expr.args) > 1:
        options["ord"] = expr.args[1]  # as written (-np.inf), not its atom
    unknown = set(options) - {"axis", "keepdims", "ddof", "ord"}
    if unknown or ("ddof" in options and path not in ("np.var", "np.std")):
        return None  # the rule-table check reports the keyword with the line
    axes = _axes(flat, options.get("axis"), expr)
    if "ord" in options and not _is_euclidean(options["ord"], axes):
        path = _order_along(options.pop("ord"), axes)
        if path is None:
            raise flat.fn.error(
                expr,
                "np.linalg.norm: only the Euclidean (Frobenius) norm, or ord=1, 2, np.inf or "
                "-np.inf of a vector or along one axis=",
            )
    options.pop("ord", None)
    keepdims = _keepdims(flat, options, expr)
    if axes is None and not keepdims and "ddof" not in options:
        # np.linalg.norm(A, "fro"): the whole-array norm, its order said positionally
        return flat.library_call(path, args[:1], [], expr) if len(args) > 1 else None
    if axes is None and keepdims:
        raise flat.fn.error(expr, f"keepdims=True without axis= in '{path}' is not supported")
    result = _along(flat, path, args[0], axes, options.get("ddof"))
    return _expanded(flat, result, axes) if keepdims else result


def _axes(flat, axis: ast.expr | None, expr: ast.Call) -> list[ast.expr] | None:
    """The reduced axes in the order they are reduced one at a time (None: all of them).
    A tuple of constants is reduced from the last axis (or, for negative axes, from the
    first), so that the axes still to come keep their numbers."""
    if axis is None:
        return None
    if not isinstance(axis, ast.Tuple):
        return [flat.atom(axis)]
    values = [constant_int(e) for e in axis.elts]
    if not values or None in values:
        raise flat.fn.error(expr, "a tuple axis= must hold integer constants, as (0, 2)")
    if min(values) < 0 <= max(values):
        raise flat.fn.error(expr, "write the axes of a tuple axis= all >= 0 or all < 0")
    ordered = sorted(set(values), reverse=values[0] >= 0)
    return [ast.Constant(v) for v in ordered]


def _is_euclidean(order: ast.expr, axes) -> bool:
    """``ord=None``, ``'fro'``, or ``2`` along one axis (a vector norm per row)."""
    if not isinstance(order, ast.Constant):
        return False
    along_one_axis = axes is not None and len(axes) == 1
    return order.value in (None, "fro") or (order.value == 2 and along_one_axis)


def _order_along(order: ast.expr, axes) -> str | None:
    """``norm_1``, ``norm_inf`` or ``norm_minus_inf`` for those orders along one axis (a
    vector norm per row); None otherwise (a whole vector's: ``library_norms``)."""
    from ..library_norms import order_of

    found = order_of(order)
    if axes is None or len(axes) != 1 or found not in ORDERS:
        return None
    return ORDERS[found]


def _keepdims(flat, options: dict, expr: ast.Call) -> bool:
    value = options.get("keepdims")
    if value is None:
        return False
    if not (isinstance(value, ast.Constant) and isinstance(value.value, bool)):
        raise flat.fn.error(expr, "keepdims= must be True or False written out")
    return value.value


def _along(flat, path: str, x: ast.expr, axes, ddof) -> ast.expr:
    """``path(x, axis)`` in rows the table has; ``axes`` None means the whole array."""
    if path in ALONG:
        return _each_axis(flat, ALONG[path], x, axes)
    if path == "np.sum":
        return _sum(flat, x, axes)
    if path == "norm":
        square = _operation(flat, x, ast.Mult(), x)
        return _call(flat, "safe_sqrt", [_named(flat, _sum(flat, square, axes))])
    if path in ORDERS.values():  # along one axis: of the absolute values
        size = _named(flat, _call(flat, "np.abs", [x]))
        if path == "norm_1":
            return _sum(flat, size, axes)
        return _each_axis(flat, ALONG["np.max" if path == "norm_inf" else "np.min"], size, axes)
    count = _count(flat, x, axes)
    if path == "np.mean":
        return _binary(_named(flat, _sum(flat, x, axes)), ast.Div(), count)
    mean = _named(flat, _binary(_named(flat, _sum(flat, x, axes)), ast.Div(), count))
    if axes is not None:
        mean = _named(flat, _expanded(flat, mean, axes))
    deviation = _operation(flat, x, ast.Sub(), mean)
    squares = _named(flat, _sum(flat, _operation(flat, deviation, ast.Mult(), deviation), axes))
    if ddof is not None:
        count = _operation(flat, count, ast.Sub(), flat.atom(ddof))
    variance = _binary(squares, ast.Div(), count)
    if path == "np.var":
        return variance
    return _call(flat, "safe_sqrt", [_named(flat, variance)])


def _each_axis(flat, path: str, x: ast.expr, axes) -> ast.expr:
    """``path(x, axis)`` for each axis in turn (``path(x, None)`` for the whole array)."""
    value = x
    for axis in axes or [None]:
        value = _call(flat, path, [_named(flat, value), axis])
    return value


def _expanded(flat, value: ast.expr, axes) -> ast.expr:
    """``value`` with the reduced ``axes`` put back with length 1 (``keepdims=True``)."""
    for axis in reversed(axes):
        value = _call(flat, "expand_axis", [_named(flat, value), axis])
    return value


def _sum(flat, x: ast.expr, axes) -> ast.expr:
    value = x
    for axis in axes or [None]:
        keywords = [] if axis is None else [ast.keyword("axis", axis)]
        value = _call(flat, "np.sum", [_named(flat, value)], keywords)
    return value


def _count(flat, x: ast.expr, axes) -> ast.expr:
    """The number of elements reduced: the product of ``x.shape[axis]``, or ``x.size``."""
    if axes is None:
        return _named(flat, ast.Attribute(clone(x), "size", ast.Load()))
    count = None
    for axis in axes:
        shape = ast.Attribute(clone(x), "shape", ast.Load())
        length = _named(flat, ast.Subscript(shape, clone(axis), ast.Load()))
        count = length if count is None else _operation(flat, count, ast.Mult(), length)
    return count


def _call(flat, path: str, args, keywords=()) -> ast.expr:
    from .calls import path_ast

    args = [clone(a) for a in args]
    return ast.Call(path_ast(path), args, [clone(k) for k in keywords])


def _operation(flat, left, op, right) -> ast.Name:
    return _named(flat, _binary(left, op, right))


def _binary(left, op, right) -> ast.BinOp:
    """``left op right`` on copies: a node appears once in the tree."""
    return ast.BinOp(clone(left), op, clone(right))


def _named(flat, value: ast.expr) -> ast.expr:
    """An atom for ``value``: a new temporary assigned it, unless it is one already."""
    if isinstance(value, (ast.Name, ast.Constant)):
        return value
    temp = flat.new_temp()
    flat.assign(temp, value)
    return ast.Name(temp, ast.Load())

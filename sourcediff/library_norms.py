"""``np.linalg.norm`` of other orders than the Euclidean (stage "parse").

``np.linalg.norm(v, 1)``, ``ord=np.inf`` and ``ord=-np.inf`` of a vector are the sum,
the largest and the smallest of the absolute values, and ``ord=2`` of a vector is the
Euclidean norm; written in the subset like :mod:`.library`'s definitions, each a helper
that checks the vector's rank (the same orders of a matrix are other norms, which raise
with NumPy's name rather than compute something else). Along an ``axis=`` the orders are
rewritten by ``normalize.reductions``. A call is rewritten when its order is written out::

    >>> text = "def f(v):\\n    return np.linalg.norm(v, ord=np.inf) + np.linalg.norm(v, 1)"
    >>> node = ast.parse(text)
    >>> norm_orders_as_helpers(node, "np")
    >>> print(ast.unparse(node.body[0].body[0]))
    return numpy_norm_inf(v) + numpy_norm_1(v)
"""

from __future__ import annotations

import ast
import math

import numpy as np


def numpy_norm_1(x):
    """``np.linalg.norm(x, 1)`` of a vector: the sum of the absolute values."""
    if x.ndim != 1:
        raise ValueError("np.linalg.norm: ord=1 only of a vector (or along an axis=)")
    return np.sum(np.abs(x))


def numpy_norm_inf(x):
    """``np.linalg.norm(x, np.inf)`` of a vector: the largest absolute value."""
    if x.ndim != 1:
        raise ValueError("np.linalg.norm: ord=inf only of a vector (or along an axis=)")
    return np.max(np.abs(x))


def numpy_norm_minus_inf(x):
    """``np.linalg.norm(x, -np.inf)`` of a vector: the smallest absolute value."""
    if x.ndim != 1:
        raise ValueError("np.linalg.norm: ord=-inf only of a vector (or along an axis=)")
    return np.min(np.abs(x))


def numpy_norm_2(x):
    """``np.linalg.norm(x, 2)`` of a vector: the Euclidean norm (of a matrix, NumPy's is
    the largest singular value)."""
    if x.ndim != 1:
        raise ValueError("np.linalg.norm: ord=2 only of a vector (or along an axis=)")
    return np.linalg.norm(x)


#: The order, as :func:`order_of` reads it -> its definition of a vector's norm.
BY_ORDER = {1: numpy_norm_1, math.inf: numpy_norm_inf, -math.inf: numpy_norm_minus_inf}
BY_ORDER[2] = numpy_norm_2
NORM_DEFINITIONS = {f.__name__: f for f in BY_ORDER.values()}


def order_of(node: ast.expr | None) -> float | None:
    """The order ``1``, ``2``, ``inf`` or ``-inf`` written as ``node`` (``np.inf``,
    ``math.inf``, ``float("inf")`` spelled out, negated); None for anything else."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = order_of(node.operand)
        return -inner if inner == math.inf else None
    if isinstance(node, ast.Attribute) and node.attr == "inf":
        return math.inf
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value) if node.value in (1, 2, math.inf) else None
    return None


def norm_orders_as_helpers(node: ast.AST, numpy_name: str | None) -> None:
    """Rewrite, in place, each ``np.linalg.norm(x, order)`` (or ``ord=order``) of an order
    in :data:`BY_ORDER`, without ``axis=``, into a call of its definition."""
    if numpy_name is None:
        return
    for call in ast.walk(node):
        if not _is_norm_call(call, numpy_name):
            continue
        keywords = {k.arg: k.value for k in call.keywords}
        if len(call.args) > 2 or set(keywords) - {"ord"} or len(call.args) + len(keywords) != 2:
            continue  # an axis, keepdims=, or no order: normalize.reductions
        order = order_of(call.args[1] if len(call.args) == 2 else keywords["ord"])
        if order in BY_ORDER:
            name = BY_ORDER[order].__name__
            call.func = ast.copy_location(ast.Name(name, ast.Load()), call.func)
            call.args, call.keywords = call.args[:1], []


def _is_norm_call(call: ast.AST, numpy_name: str) -> bool:
    """``np.linalg.norm(...)``."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    owner = call.func.value
    return (
        call.func.attr == "norm"
        and isinstance(owner, ast.Attribute)
        and owner.attr == "linalg"
        and isinstance(owner.value, ast.Name)
        and owner.value.id == numpy_name
    )

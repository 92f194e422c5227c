r"""``exp`` and ``tanh`` that LLVM vectorizes: what generated code calls for ``np.exp``
and ``np.tanh`` in functions whose floats are all float64.

Numba compiles NumPy's ``exp`` and ``tanh`` to calls into the C library, one element
at a time: 8192 ``tanh`` take 125-200 µs here, where XLA's vectorized code takes 19.
The functions below are the same mathematics in plain arithmetic (a Cody-Waite range
reduction, a degree-13 polynomial, the power of two built from its bits), made into
NumPy ufuncs (``numba.vectorize``, compiled for the types they are called with and
cached), which Numba calls from compiled code as it calls its own: 40-45 µs for those
8192 ``tanh``.
They agree with the C library to 1 (``exp``) and 3 (``tanh``) units in the last place,
special values exactly (tests/test_vector_math.py); the derivative rules read the
value they return (``1 - out * out``), so the gradient is that of the function
computed. ``math.exp`` and ``math.tanh`` are left alone: from Python they return a
Python float and raise on overflow. So is ``np.exp`` of a number (``np.exp(x[i])`` in a
loop): called one number at a time the ufunc is slower than the C library's (a
gradient of ``sum(exp(x[i]) * x[i])`` over 10000 elements, 101 µs against 71; gmm's,
210 against 170).

    >>> fn = ast.parse("def f(x, a):\n    return np.tanh(x) + np.sum(np.exp(a))").body[0]
    >>> print(ast.unparse(with_vector_math(fn, {"x": "float64", "a": "float64"}, {"x": 0})))
    def f(x, a):
        return np.tanh(x) + np.sum(exp(a))
    >>> print(ast.unparse(with_vector_math(fn, {"x": "float64", "a": "float32"})))
    def f(x, a):
        return np.tanh(x) + np.sum(np.exp(a))
"""

from __future__ import annotations

import ast
import math

import numba
from numba import types
from numba.extending import intrinsic

from .astnodes import clone
from .jitting import helper

HELPERS = ("exp", "tanh")
# The calls rewritten, by dotted name. Not ``math``'s: from Python ``math.exp`` raises on
# overflow where the ufunc gives inf, and in a scalar loop a ufunc call gains little.
REWRITTEN = {"np.exp": "exp", "np.tanh": "tanh"}

LN2_HIGH = 6.93147180369123816490e-01  # ln 2 in two parts: k * LN2_HIGH is exact
LN2_LOW = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
ROUNDER = 6755399441055744.0  # 1.5 * 2**52: y + ROUNDER holds round(y) in its low bits
EXP_LOW, EXP_HIGH = -746.0, 710.0  # beyond these exp is 0 or inf
TANH_ONE = 20.0  # beyond this tanh rounds to +-1


def with_vector_math(
    function: ast.FunctionDef, dtypes: dict[str, str], ranks: dict[str, int] | None = None
) -> ast.FunctionDef:
    """A copy of ``function`` where ``np.exp`` and ``np.tanh`` of one argument that may
    be an array call this module's ufuncs, when ``dtypes`` (of the function's variables)
    holds no float but float64 (the ufuncs have float64 loops only) and the function has
    no name of its own spelled ``exp`` or ``tanh``. ``ranks`` gives the rank of each
    variable known to hold a number (0) or an array: an argument made of numbers and
    elements of arrays alone is a number."""
    if any(d.startswith(("float", "complex")) and d != "float64" for d in dtypes.values()):
        return function
    taken = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    ranks = ranks or {}
    if not any(_rewritten(node, taken, ranks) for node in ast.walk(function)):
        return function  # most functions: no copy
    function = clone(function)
    for node in ast.walk(function):
        if name := _rewritten(node, taken, ranks):
            node.func = ast.Name(name, ast.Load())
    return function


def _rewritten(node: ast.AST, taken: set[str], ranks: dict[str, int]) -> str:
    """The ufunc a call ``node`` becomes, or ''."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return ""
    name = REWRITTEN.get(_dotted(node.func), "")
    if name in taken or _number(node.args[0], ranks):
        return ""
    return name


def _number(expr: ast.expr, ranks: dict[str, int]) -> bool:
    """Whether ``expr`` certainly gives a number: constants, variables of rank 0,
    elements of arrays (an integer index per axis), arithmetic and ``math`` of those."""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Name):
        return ranks.get(expr.id) == 0
    if isinstance(expr, ast.UnaryOp):
        return _number(expr.operand, ranks)
    if isinstance(expr, ast.BinOp):
        return _number(expr.left, ranks) and _number(expr.right, ranks)
    if isinstance(expr, ast.Call) and _dotted(expr.func).startswith("math."):
        return all(_number(a, ranks) for a in expr.args)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name):
        parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        full = len(parts) == ranks.get(expr.value.id, -1)
        return full and all(_number(p, ranks) for p in parts)
    return False


def _dotted(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""


@intrinsic
def _float_of_bits(typingctx, bits):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen


@intrinsic
def _bits_of_float(typingctx, value):
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.int64))

    return types.int64(types.float64), codegen


@helper(inline="always", cache=False)
def _reduced(y):
    """``y = k ln2 + r`` with ``|r| <= ln2 / 2`` and ``k`` a whole number: ``(r, k)``."""
    k = (y * INV_LN2 + ROUNDER) - ROUNDER
    return (y - k * LN2_HIGH) - k * LN2_LOW, k


@helper(inline="always", cache=False)
def _expm1_small(r):
    """``expm1(r)`` for ``|r| <= ln2 / 2``: Taylor to degree 13 (error below 4e-18)."""
    p = 1.0 / 6227020800.0
    p = 1.0 / 479001600.0 + r * p
    p = 1.0 / 39916800.0 + r * p
    p = 1.0 / 3628800.0 + r * p
    p = 1.0 / 362880.0 + r * p
    p = 1.0 / 40320.0 + r * p
    p = 1.0 / 5040.0 + r * p
    p = 1.0 / 720.0 + r * p
    p = 1.0 / 120.0 + r * p
    p = 1.0 / 24.0 + r * p
    p = 1.0 / 6.0 + r * p
    p = 0.5 + r * p
    return r * (1.0 + r * p)


@helper(inline="always", cache=False)
def _power_of_two(k):
    """``2.0 ** k`` for a whole float ``k`` from -1022 to 1023, built from its bits
    (no float-to-integer conversion, which AVX2 does not vectorize)."""
    offset = _bits_of_float(k + ROUNDER) - _bits_of_float(ROUNDER)
    return _float_of_bits((offset + 1023) << 52)


def _exp_scalar(x):
    clamped = x if x < EXP_HIGH else EXP_HIGH  # NaN too: its result is chosen below
    clamped = clamped if clamped > EXP_LOW else EXP_LOW
    r, k = _reduced(clamped)
    half = math.floor(0.5 * k)  # 2**k in two normal halves: k runs from -1077 to 1024
    value = (1.0 + _expm1_small(r)) * _power_of_two(half) * _power_of_two(k - half)
    return value if x == x else x


def _tanh_scalar(x):
    magnitude = abs(x)
    y = -2.0 * (magnitude if magnitude < TANH_ONE else TANH_ONE)
    r, k = _reduced(y)  # expm1(y) = 2**k expm1(r) + 2**k - 1, exact for k = 0
    scale = _power_of_two(k)
    e = scale * _expm1_small(r) + (scale - 1.0)
    t = math.copysign(-e / (2.0 + e), x)  # tanh|x| = -expm1(-2|x|) / (2 + expm1(-2|x|))
    return t if x == x else x


KERNELS = {"exp": _exp_scalar, "tanh": _tanh_scalar}


def __getattr__(name: str):
    """``exp`` and ``tanh``, made on first use: a process that never calls them does not
    load Numba's ufunc machinery."""
    if name not in KERNELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    ufunc = numba.vectorize(cache=True)(KERNELS[name])
    globals()[name] = ufunc  # the cache: later lookups find the module attribute
    return ufunc

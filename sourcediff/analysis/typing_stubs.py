"""Reductions typed without compiling them: stand-ins for type inference alone.

Numba types a call of a NumPy function it implements with ``@overload`` by compiling
that implementation: typing gmm's ``np.max(terms)`` compiled ``np.max``, and through it
``np.take``, for a second of its first call, although the derivative computes the
maximum with a loop of its own and never calls ``np.max``. The types stage hands type
inference a copy of the primal in which such a call with one array argument calls a
stand-in instead (:func:`with_stand_ins`); the stand-in's typing template gives the
result type (the float dtype for ``max``, ``min``, ``sum``, ``mean`` and ``prod``,
``intp`` for ``argmax`` and ``argmin``) without compiling anything, and defers every
other argument to NumPy's own template. Nothing calls a stand-in: the code that runs
is the primal itself.

    >>> call = ast.parse("m = np.max(terms) + np.sum(x, axis=0)").body[0]
    >>> print(ast.unparse(with_stand_ins(call)))
    m = typing_stand_in_max(terms) + np.sum(x, axis=0)
"""

from __future__ import annotations

import ast

import numpy as np
from numba.core import types
from numba.extending import type_callable

from ..astnodes import clone

#: NumPy reductions of one array whose result type the stand-ins give: float dtype in,
#: the same float out, or an index.
_FLOAT_RESULT = ("max", "min", "sum", "mean", "prod", "amax", "amin")
_INDEX_RESULT = ("argmax", "argmin")
PREFIX = "typing_stand_in_"


def with_stand_ins(tree: ast.AST) -> ast.AST:
    """A copy of ``tree`` whose ``np.<reduction>(a)`` calls (one argument, no keyword)
    call the stand-in of that reduction (module docstring)."""
    tree = clone(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _reduction(node.func) and _one_argument(node):
            node.func = ast.Name(PREFIX + node.func.attr, ast.Load())
    return tree


def stand_ins() -> dict[str, object]:
    """The stand-ins by the name calls of them use, for type inference's globals."""
    return dict(_STAND_INS)


def _reduction(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "np"
        and func.attr in _FLOAT_RESULT + _INDEX_RESULT
    )


def _one_argument(call: ast.Call) -> bool:
    return len(call.args) == 1 and not call.keywords and not isinstance(call.args[0], ast.Starred)


def _stand_in(name: str):
    """A function that only type inference sees, typed as ``np.<name>`` of a float array
    is, and as ``np.<name>`` itself for any other argument."""

    def stand_in(a):
        raise NotImplementedError(f"{PREFIX}{name} is for type inference only")

    stand_in.__name__ = stand_in.__qualname__ = PREFIX + name
    numpy_function = getattr(np, name)

    @type_callable(stand_in)
    def typer(context):
        def result_type(a):
            if isinstance(a, types.Array) and isinstance(a.dtype, types.Float):
                return types.intp if name in _INDEX_RESULT else a.dtype
            numpy_type = context.resolve_value_type(numpy_function)
            signature = context.resolve_function_type(numpy_type, (a,), {})
            return None if signature is None else signature.return_type

        return result_type

    return stand_in


_STAND_INS = {PREFIX + name: _stand_in(name) for name in _FLOAT_RESULT + _INDEX_RESULT}

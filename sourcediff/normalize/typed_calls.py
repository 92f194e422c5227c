"""Calls whose NumPy spelling depends on their argument's type.

``np.array([a, b])`` fills a fresh array, of numbers or, when its entries are arrays,
of rows (``np.array([x, np.sin(x)])``); flattening allocates it with
``literal_buffer(count, first)``, which Numba types either way. Once types are known
it is spelled ``np.empty((count,))`` or ``np.empty((count, first.shape[0]))``.

The builtin ``abs`` of an array (``abs(x - c)``, as NumPy allows) has no Numba
implementation; ``np.abs`` has one for numbers and arrays alike, with the same values
and the same derivative rule. Type inference reads ``abs`` as ``np.abs``
(``analysis.types``); once types are known, the calls on arrays are spelled
``np.abs`` (numbers keep the builtin, as the user wrote it). The primal module of
``sd.jit``, which is built without types, spells every one ``np.abs``.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse("def f(x, s):\\n    t = abs(x)\\n    u = abs(s)\\n    return t").body[0]
    >>> vec, flt = VarType("array", "float64", 1), VarType("float", "float64")
    >>> array_abs_as_numpy(node, TypeTable({"x": vec, "t": vec, "s": flt, "u": flt}, vec))
    >>> print(ast.unparse(node.body[:2]))
    t = np.abs(x)
    u = abs(s)
"""

from __future__ import annotations

import ast

from ..analysis.types import VarType


def array_abs_as_numpy(node: ast.AST, types) -> None:
    """``abs(x)`` as ``np.abs(x)`` where ``x`` is an array, in place."""
    for call in _abs_calls(node):
        argument = call.args[0]
        if isinstance(argument, ast.Name) and types[argument.id].kind == "array":
            call.func = _np_abs()


def every_abs_as_numpy(node: ast.AST) -> None:
    """Every ``abs(x)`` as ``np.abs(x)``, in place (for code built without types)."""
    for call in _abs_calls(node):
        call.func = _np_abs()


def _abs_calls(node: ast.AST) -> list[ast.Call]:
    return [
        call
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "abs"
        and len(call.args) == 1
        and not call.keywords
    ]


def _np_abs() -> ast.expr:
    return ast.Attribute(ast.Name("np", ast.Load()), "abs", ast.Load())


def literal_buffers_as_empty(node: ast.AST, types) -> None:
    """``literal_buffer(n, first)`` as ``np.empty`` of ``n`` numbers, or of ``n`` rows of
    ``first``'s shape, in place.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> text = "def f(x, s):\\n    a = literal_buffer(2, x)\\n    b = literal_buffer(3, s)"
    >>> node = ast.parse(text).body[0]
    >>> vec, flt = VarType("array", "float64", 1), VarType("float", "float64")
    >>> literal_buffers_as_empty(node, TypeTable({"x": vec, "s": flt}, vec))
    >>> print(ast.unparse(node.body))
    a = np.empty((2, x.shape[0]))
    b = np.empty((3,))
    """
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        if call.func.id != "literal_buffer":
            continue
        count, first = call.args
        number = isinstance(first, ast.Constant)
        known = VarType("float") if number else types.variables.get(getattr(first, "id", ""))
        shape = [count]
        if known is not None and known.kind == "array":
            shape += [_axis_length(first.id, k) for k in range(known.ndim)]
        elif known is None or known.kind not in ("float", "int", "bool"):
            continue
        call.func = ast.Attribute(ast.Name("np", ast.Load()), "empty", ast.Load())
        call.args = [ast.Tuple(shape, ast.Load())]


def _axis_length(name: str, axis: int) -> ast.expr:
    shape = ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load())
    return ast.Subscript(shape, ast.Constant(axis), ast.Load())

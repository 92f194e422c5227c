"""``np.roll`` along an axis and ``np.append``, which Numba lacks or flattens, rewritten by
the flattener into slices and ``np.concatenate`` (rows the table has, for any rank)::

    np.roll(A, s, axis=1)   ->   np.concatenate((A[:, n - s % n:], A[:, :n - s % n]), axis=1)
                                 (n = A.shape[1])
    np.append(a, v)         ->   np.concatenate((np.ravel(a), as_vector(v)))
    np.append(A, B, axis=0) ->   np.concatenate((A, B), axis=0)

>>> print(roll_source("np", "A", "s", 1))
np.concatenate((A[:, A.shape[1] - s % A.shape[1]:], A[:, :A.shape[1] - s % A.shape[1]]), axis=1)
"""

from __future__ import annotations

import ast

REWRITTEN = ("np.roll", "np.append")


def roll_source(numpy: str, x: str, shift: str, axis: int) -> str:
    """``np.roll(x, shift, axis=axis)`` for a constant axis >= 0, in slices."""
    length = f"{x}.shape[{axis}]"
    cut = f"{length} - {shift} % {length}"
    before = ":, " * axis
    return f"{numpy}.concatenate(({x}[{before}{cut}:], {x}[{before}:{cut}]), axis={axis})"


def append_source(numpy: str, array: str, values: str, axis: str | None) -> str:
    """``np.append(array, values[, axis])`` as a concatenation (without an axis, ``values``
    names ``as_vector(values)``, computed before)."""
    if axis is not None:
        return f"{numpy}.concatenate(({array}, {values}), axis={axis})"
    return f"{numpy}.concatenate(({numpy}.ravel({array}), {values}))"


def rewrite_rearrangement(flat, path: str, args: list[ast.expr], keywords, expr: ast.Call):
    """The flattened form of ``np.roll(..., axis=k)`` or ``np.append``; None otherwise."""
    if path not in REWRITTEN:
        return None
    options = {k.arg: k.value for k in keywords}
    if path == "np.roll":
        axis = options.get("axis", args[2] if len(args) > 2 else None)
        if axis is None:
            return None  # np.roll(x, shift): a row of the table
        if not (isinstance(axis, ast.Constant) and isinstance(axis.value, int) and axis.value >= 0):
            raise flat.fn.error(expr, "np.roll takes axis= as a constant 0, 1, 2, ... here")
        source = roll_source(_numpy(flat), *_named(args[:2]), axis.value)
    else:
        axis = options.get("axis", args[2] if len(args) > 2 else None)
        array, values = args[:2]
        if axis is None:  # the values as a new vector, by a row of the table
            vector = flat.new_temp()
            flat.assign(vector, ast.Call(ast.Name("as_vector", ast.Load()), [values], []))
            values = ast.Name(vector, ast.Load())
        axis_text = None if axis is None else ast.unparse(flat.atom(axis))
        source = append_source(_numpy(flat), *_named([array, values]), axis_text)
    return flat.simple(ast.copy_location(ast.parse(source, mode="eval").body, expr))


def _named(atoms: list[ast.expr]) -> list[str]:
    return [ast.unparse(atom) for atom in atoms]


def _numpy(flat) -> str:
    """What the user's module calls numpy (it called ``np.roll``/``np.append`` by it)."""
    for alias, resolved in flat.fn.names.items():
        if resolved.kind == "module" and resolved.path == "np":
            return alias
    raise flat.fn.error(flat.where, "import numpy as a module (import numpy as np) for this call")

"""``np.roll`` along an axis, ``np.append`` and cumulative sums and products along an axis,
which Numba lacks or flattens, rewritten by the flattener into runtime functions (rows the
table has, for any rank) and ``np.concatenate``::

    np.roll(A, s, axis=1)   ->   roll_along(A, s, 1)
    np.append(a, v)         ->   np.concatenate((np.ravel(a), as_vector(v)))
    np.append(A, B, axis=0) ->   np.concatenate((A, B), axis=0)
    np.cumsum(A, axis=1)    ->   cumsum_along(A, 1)           (np.cumprod: cumprod_along)

A roll stays one call (not two slices and a concatenation) so that its result visibly has
its operand's shape, and a stencil ``u = u + np.roll(u, 1, 0) - ...`` keeps one adjoint
array across the steps.

>>> print(append_source("np", "A", "B", "0"))
np.concatenate((A, B), axis=0)
"""

from __future__ import annotations

import ast

REWRITTEN = ("np.roll", "np.append", "np.cumsum", "np.cumprod")
# Along an axis, spelled as runtime functions with rows (sourcediff.scans).
SCANS = {"np.cumsum": "cumsum_along", "np.cumprod": "cumprod_along"}


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
    if path in SCANS:
        return _scan(flat, path, args, options)
    if path == "np.roll":
        return _roll(flat, args, options, expr)
    axis = options.get("axis", args[2] if len(args) > 2 else None)
    array, values = args[:2]
    if axis is None:  # the values as a new vector, by a row of the table
        vector = flat.new_temp()
        flat.assign(vector, ast.Call(ast.Name("as_vector", ast.Load()), [values], []))
        values = ast.Name(vector, ast.Load())
    axis_text = None if axis is None else ast.unparse(flat.atom(axis))
    source = append_source(_numpy(flat), *_named([array, values]), axis_text)
    rewritten = ast.parse(source, mode="eval").body
    for node in ast.walk(rewritten):  # errors inside it name the user's line
        ast.copy_location(node, expr)
    return flat.simple(rewritten)


def _scan(flat, path: str, args: list[ast.expr], options: dict):
    """``np.cumsum(x, axis=k)`` as ``cumsum_along(x, k)`` (likewise cumprod); None without
    an axis (the whole array, flattened: a row of the table)."""
    axis = options.get("axis", args[1] if len(args) > 1 else None)
    if axis is None or set(options) - {"axis"}:
        return None  # the rule-table check reports any other keyword with the line
    return ast.Call(ast.Name(SCANS[path], ast.Load()), [args[0], flat.atom(axis)], [])


def _roll(flat, args: list[ast.expr], options: dict, expr: ast.Call):
    """``np.roll(x, s, axis=k)`` as ``roll_along(x, s, k)``; None without an axis (the
    flattened roll Numba has: a row of the table)."""
    options = dict(options)
    if "shift" in options:
        args = [args[0], options.pop("shift")]
    axis = options.get("axis", args[2] if len(args) > 2 else None)
    if axis is None or set(options) - {"axis"} or len(args) < 2:
        return None  # the rule-table check reports any other form with the line
    if isinstance(axis, (ast.Tuple, ast.List)):
        raise flat.fn.error(expr, "np.roll takes one integer axis here, not a tuple of axes")
    call_args = [args[0], flat.atom(args[1]), flat.atom(axis)]
    return ast.Call(ast.Name("roll_along", ast.Load()), call_args, [])


def constant_int(node: ast.expr) -> int | None:
    """The value of a constant integer such as ``1`` or ``-1``; None for anything else."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = constant_int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _named(atoms: list[ast.expr]) -> list[str]:
    return [ast.unparse(atom) for atom in atoms]


def _numpy(flat) -> str:
    """What the user's module calls numpy (it called ``np.roll``/``np.append`` by it)."""
    for alias, resolved in flat.fn.names.items():
        if resolved.kind == "module" and resolved.path == "np":
            return alias
    raise flat.fn.error(flat.where, "import numpy as a module (import numpy as np) for this call")

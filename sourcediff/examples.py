"""Example arguments for showing a derivative when the user gives none."""

from __future__ import annotations

import ast

import numpy as np

from . import ir
from .dispatch import Specializer
from .errors import ArgumentError


def example_args(transformed: Specializer) -> tuple:
    """Plausible arguments for showing a derivative when the user gives none.

    Defaults keep their value; a parameter that is indexed (``x[i, j]``) or asked
    for its shape becomes a float array of that rank; one used as a ``range``
    bound or as an index becomes the int 4; everything else is a float.
    """
    defaults = transformed.parsed.defaults
    uses = _uses_through_calls(transformed.parsed, depth=0)
    example = []
    for param in transformed.params:
        if param in defaults:
            example.append(defaults[param])
        elif uses.get(param, ("float",))[0] == "intarray":
            example.append(np.zeros((4,) * uses[param][1], np.int64))  # valid indices
        elif uses.get(param, ("float",))[0] == "array":
            example.append(
                np.linspace(0.1, 0.9, 4 ** uses[param][1]).reshape((4,) * uses[param][1])
            )
        elif uses.get(param, ("float",))[0] == "int":
            example.append(4)
        else:
            example.append(0.5)
    return tuple(example)


ARRAYS = ("array", "intarray")


def _uses_through_calls(parsed, depth: int) -> dict:
    """:func:`_parameter_uses` of ``parsed``, with what its helpers do with the names it
    passes them (``_forces(x, m, out)`` indexing ``pos[j, 0]`` makes ``x`` a matrix) and
    what a copy's use says of the original (``x = pos.copy()``)."""
    uses = _parameter_uses(parsed.node)
    if depth > 8:
        return uses
    for call in ast.walk(parsed.node):
        helper = _called_helper(parsed, call)
        if helper is None:
            continue
        inner = _uses_through_calls(helper, depth + 1)
        for param, arg in zip([a.arg for a in helper.node.args.args], call.args):
            for name, axes in _indexed_names(arg) if param in inner else ():
                use = inner[param]
                if axes:  # rows(x[i]): x has one more axis than the helper's parameter
                    use = ("array", (use[1] if use[0] in ARRAYS else 0) + axes)
                uses[name] = _joined(uses.get(name), use)
    for _ in range(4):  # copies of copies
        for target, source in _copies(parsed.node):
            if target in uses:
                uses[source] = _joined(uses.get(source), uses[target])
    return uses


def _indexed_names(arg: ast.expr) -> list[tuple[str, int]]:
    """``[("x", 0)]`` for ``x``, ``[("x", k)]`` for ``x[i, ...]`` with ``k`` plain indices,
    both sides' for ``x[i] - x[j]``."""
    if isinstance(arg, ast.Name):
        return [(arg.id, 0)]
    if isinstance(arg, ast.BinOp):
        return _indexed_names(arg.left) + _indexed_names(arg.right)
    if isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name):
        parts = arg.slice.elts if isinstance(arg.slice, ast.Tuple) else [arg.slice]
        if not any(isinstance(part, ast.Slice) for part in parts):
            return [(arg.value.id, len(parts))]
    return []


def _called_helper(parsed, call: ast.AST):
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        resolved = parsed.names.get(call.func.id)
        if resolved is not None and resolved.kind == "helper":
            return resolved.helper
    return None


def _copies(node) -> list[tuple[str, str]]:
    """``(y, x)`` for each ``y = x``, ``y = x.copy()`` or ``y = np.copy(x)``."""
    out = []
    for stmt in ast.walk(node):
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            continue
        value = stmt.value
        if isinstance(value, ast.Call) and not value.args and isinstance(value.func, ast.Attribute):
            value = value.func.value if value.func.attr == "copy" else value
        elif isinstance(value, ast.Call) and ast.unparse(value.func) in ("np.copy", "np.array"):
            value = value.args[0] if len(value.args) == 1 else value
        if isinstance(value, ast.Name):
            out.append((stmt.targets[0].id, value.id))
    return out


def _joined(first, second):
    """The use that says more: an array over a number, an index array over an array, the
    larger rank."""
    if first is None:
        return second
    kinds = [use[0] for use in (first, second) if use[0] in ARRAYS]
    if not kinds:
        return first if first[0] == "int" else second
    kind = "intarray" if "intarray" in kinds else "array"
    return (kind, max(use[1] for use in (first, second) if use[0] in ARRAYS))


def _parameter_uses(node) -> dict:
    """What the uses of each name in ``node`` say it holds: ``("array", rank)``,
    ``("intarray", rank)`` (an index array) or ``("int", 0)``."""
    uses: dict = {}
    for sub in ast.walk(node):
        for name, use in _uses_in(sub):
            if name not in ("np", "numpy", "math"):
                uses[name] = _joined(uses.get(name), use)
    return uses


def _uses_in(sub: ast.AST):
    """``(name, use)`` pairs that one node shows."""
    if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
        parts = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
        yield sub.value.id, ("array", len(parts))
        for part in parts:  # x[idx[k]]: idx holds integers
            if isinstance(part, ast.Subscript) and isinstance(part.value, ast.Name):
                yield part.value.id, ("intarray", 1)
    elif ir.shape_axis(sub) is not None:  # x.shape[1]: at least two axes
        name, axis = ir.shape_axis(sub)
        yield name, ("array", axis + 1)
    elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
        yield sub.value.id, ("array", 1)  # x.shape, x.copy(), x.T, ...
    elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult):
        for side in (sub.left, sub.right):  # x @ w: matrices, as most products are
            if isinstance(side, ast.Name):
                yield side.id, ("array", 2)
    elif isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Tuple):
        shape = sub.value  # n, d = x.shape
        if isinstance(shape, ast.Attribute) and shape.attr == "shape":
            if isinstance(shape.value, ast.Name):
                yield shape.value.id, ("array", len(sub.targets[0].elts))
    elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "range":
        for arg in sub.args:
            yield from ((n.id, ("int", 0)) for n in ast.walk(arg) if isinstance(n, ast.Name))
    if isinstance(sub, ast.Call) and sub.args and isinstance(sub.args[0], ast.Name):
        name = ast.unparse(sub.func)
        if name == "len" or name.endswith("_like"):
            yield sub.args[0].id, ("array", 1)
        axis = _axis_argument(sub)
        if axis is not None:  # np.sum(x, axis=1), np.roll(x, 1, 1): at least two axes
            yield sub.args[0].id, ("array", axis + 1)


def _axis_argument(call: ast.Call) -> int | None:
    """The constant non-negative ``axis=`` of a call (``np.roll``'s third argument)."""
    found = [k.value for k in call.keywords if k.arg == "axis"]
    if ast.unparse(call.func).endswith(".roll") and len(call.args) == 3:
        found.append(call.args[2])
    for node in found:
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
            return node.value
    return None


def signature_args(signature: str, transformed: Specializer) -> tuple:
    """Example arguments of the types a Numba signature string gives, one per parameter:
    ``"float64[:], float64, int64"`` (a return type, ``float64(...)``, is allowed); trailing
    parameters with defaults may be left out (their defaults are used)."""
    from numba.core import sigutils

    params, where = transformed.params, transformed.parsed
    try:
        arg_types, _ = sigutils.normalize_signature(_as_tuple(signature))
    except Exception as exc:
        raise ArgumentError(
            f"signature {signature!r} is not a Numba signature: {exc}",
            where.filename,
            where.node.lineno,
        ) from None
    required = len(params) - len(transformed.parsed.defaults)
    if not required <= len(arg_types) <= len(params):
        raise ArgumentError(
            f"signature {signature!r} gives {len(arg_types)} types for the "
            f"{len(params)} parameters {', '.join(params)}"
            + (f" ({len(params) - required} with defaults)" if required < len(params) else ""),
            where.filename,
            where.node.lineno,
        )
    try:
        return tuple(_example_of(t) for t in arg_types)
    except TypeError as exc:
        message = f"signature {signature!r}: {exc}"
        raise ArgumentError(message, where.filename, where.node.lineno) from None


def _as_tuple(signature):
    """``"float64[:]"`` (one parameter's type) as the tuple ``"float64[:],"``."""
    if isinstance(signature, str) and "," not in signature and "(" not in signature:
        return signature + ","
    return signature


def _example_of(numba_type):
    from numba.core import types

    if isinstance(numba_type, types.Array):
        shape = (4,) * numba_type.ndim
        values = np.linspace(0.1, 0.9, 4**numba_type.ndim).reshape(shape)
        values = values.astype(np.dtype(str(numba_type.dtype)))
        return np.asfortranarray(values) if numba_type.layout == "F" else values
    if isinstance(numba_type, types.Boolean):
        return True
    if isinstance(numba_type, (types.Integer, types.Float)):
        scalar = np.dtype(str(numba_type)).type
        return 4 if scalar is np.int64 else 0.5 if scalar is np.float64 else scalar(0.5 * 8)
    raise TypeError(f"{numba_type} is not a number or numeric array")

"""Example arguments for showing a derivative when the user gives none."""

from __future__ import annotations

import ast

import numpy as np

from .dispatch import Specializer
from .errors import ArgumentError


def example_args(transformed: Specializer) -> tuple:
    """Plausible arguments for showing a derivative when the user gives none.

    Defaults keep their value; a parameter that is indexed (``x[i, j]``) or asked
    for its shape becomes a float array of that rank; one used as a ``range``
    bound or as an index becomes the int 4; everything else is a float.
    """
    defaults = transformed.parsed.defaults
    uses = _parameter_uses(transformed.parsed.node)
    example = []
    for param in transformed.params:
        if param in defaults:
            example.append(defaults[param])
        elif uses.get(param, ("float",))[0] == "array":
            example.append(
                np.linspace(0.1, 0.9, 4 ** uses[param][1]).reshape((4,) * uses[param][1])
            )
        elif uses.get(param, ("float",))[0] == "int":
            example.append(4)
        else:
            example.append(0.5)
    return tuple(example)


def _parameter_uses(node) -> dict:
    uses: dict = {}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
            index = sub.slice
            rank = len(index.elts) if isinstance(index, ast.Tuple) else 1
            uses[sub.value.id] = ("array", max(rank, uses.get(sub.value.id, ("", 0))[1]))
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            if sub.value.id not in uses and sub.value.id not in ("np", "numpy", "math"):
                uses[sub.value.id] = ("array", 1)  # x.shape, x.copy(), x.T, ...
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
            if sub.func.id == "range":
                for arg in sub.args:
                    for name in ast.walk(arg):
                        if isinstance(name, ast.Name) and name.id not in uses:
                            uses[name.id] = ("int", 0)
            if sub.func.id == "len" and sub.args and isinstance(sub.args[0], ast.Name):
                uses.setdefault(sub.args[0].id, ("array", 1))
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
            if sub.func.attr.endswith("_like") and sub.args and isinstance(sub.args[0], ast.Name):
                uses.setdefault(sub.args[0].id, ("array", 1))
    return uses


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

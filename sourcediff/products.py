"""Matrix and vector products for generated code, and their adjoints, in Python and Numba.

``dot`` is ``np.dot`` for 1-D and 2-D operands: under Numba, float operands of one dtype go
through SciPy's BLAS (a non-contiguous operand is copied first), others through plain loops.
``dot_adjoint_left``/``dot_adjoint_right`` give the contributions of ``dot(a, b)``'s adjoint
``g`` to ``a`` and ``b`` for every combination of ranks.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .jitting import helper


def dot(a, b):
    """``np.dot(a, b)`` for vectors and matrices (1-D and 2-D operands)."""
    return np.dot(a, b)


@overload(dot)
def _dot(a, b):
    if a.ndim == 1 and b.ndim == 1:
        return lambda a, b: _dot_vv(a, b)
    if a.ndim == 2 and _blas_operands(a, b):
        return lambda a, b: _dot_blas(a, b)  # through SciPy's BLAS, as np.dot in Numba
    if a.ndim == 2 and b.ndim == 1:
        return lambda a, b: _dot_mv(a, b)
    if a.ndim == 1 and b.ndim == 2:
        return lambda a, b: _dot_mv(b.T, a)
    if a.ndim == 2 and b.ndim == 2:
        return lambda a, b: _dot_mm(a, b)
    return None


def _blas_operands(a, b) -> bool:
    """Float operands of one dtype: BLAS applies (after a copy of a non-contiguous one)."""
    return isinstance(a.dtype, types.Float) and a.dtype == b.dtype and b.ndim in (1, 2)


def _contiguous(x):
    return np.ascontiguousarray(x)


@overload(_contiguous)
def _contiguous_overload(x):
    if x.layout in ("C", "F"):
        return lambda x: x  # BLAS takes C and Fortran order as they are
    return lambda x: np.ascontiguousarray(x)


@helper
def _dot_blas(a, b):
    return np.dot(_contiguous(a), _contiguous(b))


@helper
def _dot_vv(a, b):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@helper
def _dot_mv(a, b):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        total = 0.0
        for k in range(a.shape[1]):
            total += a[i, k] * b[k]
        out[i] = total
    return out


@helper
def _dot_mm(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            aik = a[i, k]
            for j in range(b.shape[1]):
                out[i, j] += aik * b[k, j]
    return out


def dot_adjoint_left(g, a, b):
    """The contribution of ``dot(a, b)``'s adjoint ``g`` to ``a``'s adjoint."""
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return g * np.asarray(b)
    if np.ndim(a) == 2 and np.ndim(b) == 1:
        return np.outer(g, b)
    return np.dot(g, np.transpose(b)) if np.ndim(a) == 2 else np.dot(b, g)


@overload(dot_adjoint_left)
def _dot_adjoint_left(g, a, b):
    if a.ndim == 1 and b.ndim == 1:
        return lambda g, a, b: g * b
    if a.ndim == 2 and b.ndim == 1:
        return lambda g, a, b: np.outer(g, b)
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: dot(g, b.T)
    if a.ndim == 1 and b.ndim == 2:
        return lambda g, a, b: dot(b, g)
    return None


def dot_adjoint_right(g, a, b):
    """The contribution of ``dot(a, b)``'s adjoint ``g`` to ``b``'s adjoint."""
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return g * np.asarray(a)
    if np.ndim(a) == 2 and np.ndim(b) == 1:
        return np.dot(np.transpose(a), g)
    return np.dot(np.transpose(a), g) if np.ndim(b) == 2 and np.ndim(a) == 2 else np.outer(a, g)


@overload(dot_adjoint_right)
def _dot_adjoint_right(g, a, b):
    if a.ndim == 1 and b.ndim == 1:
        return lambda g, a, b: g * a
    if a.ndim == 2 and b.ndim == 1:
        return lambda g, a, b: dot(a.T, g)
    if a.ndim == 2 and b.ndim == 2:
        return lambda g, a, b: dot(a.T, g)
    if a.ndim == 1 and b.ndim == 2:
        return lambda g, a, b: np.outer(a, g)
    return None

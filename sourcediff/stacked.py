"""``a @ b`` and ``np.matmul``: ``dot`` for vectors and matrices, and batched over a leading
axis for rank-3 operands (a stack of matrices times a matrix or a stack), which Numba's
``@`` lacks. ``np.dot`` stays ``dot``: for rank 3 it means another contraction.

The adjoints of ``c = a @ b`` are ``g @ b^T`` and ``a^T @ g`` matrix by matrix, summed over
the stack where an operand is one matrix for the whole stack.

>>> import numpy as np
>>> a, b = np.arange(12.0).reshape(2, 2, 3), np.ones((3, 2))
>>> matmul(a, b)[1]
array([[21., 21.],
       [30., 30.]])
>>> matmul_adjoint_right(np.ones((2, 2, 2)), a, b)  # one b for the stack: summed
array([[18., 18.],
       [22., 22.],
       [26., 26.]])
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from .jitting import helper
from .products import dot, dot_adjoint_left, dot_adjoint_right


def matmul(a, b):
    """``a @ b`` for operands of rank 1 to 3 (rank 3: a stack of matrices)."""
    return np.matmul(a, b)


def matmul_adjoint_left(g, a, b):
    """The contribution of ``matmul(a, b)``'s adjoint ``g`` to ``a``'s adjoint."""
    if np.ndim(a) < 3 and np.ndim(b) < 3:
        return dot_adjoint_left(g, a, b)
    left = np.matmul(g, np.swapaxes(b, -1, -2))
    return left if np.ndim(a) == 3 else np.sum(left, axis=0)


def matmul_adjoint_right(g, a, b):
    """The contribution of ``matmul(a, b)``'s adjoint ``g`` to ``b``'s adjoint."""
    if np.ndim(a) < 3 and np.ndim(b) < 3:
        return dot_adjoint_right(g, a, b)
    right = np.matmul(np.swapaxes(a, -1, -2), g)
    return right if np.ndim(b) == 3 else np.sum(right, axis=0)


def _stacked(a, b):
    """Whether this is a stack case (some operand of rank 3, none of rank 1)."""
    return max(a.ndim, b.ndim) == 3 and min(a.ndim, b.ndim) >= 2


@helper
def _matrix_of_stack(x, k):
    return np.ascontiguousarray(x[k])


@helper
def _the_matrix(x, k):
    return np.ascontiguousarray(x)


@helper
def _add_into_stack(out, k, term):
    out[k] += term


@helper
def _add_into_matrix(out, k, term):
    out += term


def _pick(x):
    """Matrix ``k`` of a stack, or the one matrix, chosen when Numba compiles."""
    return _matrix_of_stack if x.ndim == 3 else _the_matrix


def _add_at(x):
    """``out[k] += term`` for a stack, ``out += term`` for one matrix (summed over k)."""
    return _add_into_stack if x.ndim == 3 else _add_into_matrix


@overload(matmul)
def _matmul(a, b):
    if max(a.ndim, b.ndim) < 3:
        return lambda a, b: dot(a, b)
    if not _stacked(a, b):
        return None
    pick_a, pick_b = _pick(a), _pick(b)

    def impl(a, b):
        stack = a.shape[0] if a.ndim == 3 else b.shape[0]
        out = np.empty((stack, a.shape[-2], b.shape[-1]))
        for k in range(stack):
            out[k] = dot(pick_a(a, k), pick_b(b, k))
        return out

    return impl


@overload(matmul_adjoint_left)
def _matmul_adjoint_left(g, a, b):
    if max(a.ndim, b.ndim) < 3:
        return lambda g, a, b: dot_adjoint_left(g, a, b)
    if not _stacked(a, b):
        return None
    pick_b, add = _pick(b), _add_at(a)

    def impl(g, a, b):
        out = np.zeros(a.shape)
        for k in range(g.shape[0]):
            add(out, k, dot(np.ascontiguousarray(g[k]), np.ascontiguousarray(pick_b(b, k).T)))
        return out

    return impl


@overload(matmul_adjoint_right)
def _matmul_adjoint_right(g, a, b):
    if max(a.ndim, b.ndim) < 3:
        return lambda g, a, b: dot_adjoint_right(g, a, b)
    if not _stacked(a, b):
        return None
    pick_a, add = _pick(a), _add_at(b)

    def impl(g, a, b):
        out = np.zeros(b.shape)
        for k in range(g.shape[0]):
            add(out, k, dot(np.ascontiguousarray(pick_a(a, k).T), np.ascontiguousarray(g[k])))
        return out

    return impl


HELPERS = ("matmul", "matmul_adjoint_left", "matmul_adjoint_right")

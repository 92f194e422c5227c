"""Symmetric eigendecompositions for generated code: ``np.linalg.eigvalsh`` and
``np.linalg.eigh``, with their adjoints and tangents (Giles 2008, "An extended
collection of matrix derivative results").

For ``A = V diag(w) V^T``: ``w_dot = diag(V^T S_dot V)`` and ``V_dot = V (F o (V^T S_dot
V))`` with ``F_ij = 1 / (w_j - w_i)`` off the diagonal and 0 on it; reversed,
``A_bar = V diag(w_bar) V^T`` and ``V (F o (V^T V_bar)) V^T``. LAPACK reads only the lower
triangle of ``A`` (NumPy's default ``UPLO="L"``), so ``S_dot`` is the symmetric matrix
that triangle stands for, and ``A_bar`` has the lower triangle's adjoint: ``G + G^T``
below the diagonal, ``G``'s diagonal on it, zero above. Repeated eigenvalues make ``F``
infinite: the eigenvectors' derivative does not exist there (JAX's is NaN too). Each
function runs as Python (``jit=False``) and, through ``register_jitable``, under Numba.

    >>> a = np.array([[2.0, 1.0], [1.0, 3.0]])
    >>> eigvalsh_adjoint(a, np.ones(2)).round(12) + 0.0  # sum(w) = trace(A): A_bar = I
    array([[1., 0.],
           [0., 1.]])
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable


@register_jitable
def linalg_eigvalsh(a):
    """``np.linalg.eigvalsh(a)``: the eigenvalues, ascending, from ``a``'s lower triangle."""
    return np.linalg.eigvalsh(np.ascontiguousarray(a))


@register_jitable
def linalg_eigh_vectors(a):
    """``np.linalg.eigh(a)[1]``: the eigenvectors, as columns, in the eigenvalues' order."""
    return np.linalg.eigh(np.ascontiguousarray(a))[1]


@register_jitable
def _lower_adjoint(g):
    """The adjoint of a lower triangle read as the symmetric matrix it stands for."""
    return np.tril(g + g.T) - np.diag(np.diag(g))


@register_jitable
def _symmetric_tangent(tangent):
    return np.tril(tangent) + np.tril(tangent, -1).T


@register_jitable
def _gaps_inverse(w):
    """``F_ij = 1 / (w_j - w_i)`` off the diagonal, 0 on it."""
    gaps = w[None, :] - w[:, None]
    n = w.shape[0]
    return np.where(np.eye(n) > 0, 0.0, 1.0 / (gaps + np.eye(n)))


@register_jitable
def eigvalsh_adjoint(a, g):
    """``A_bar`` of ``w = eigvalsh(A)`` given ``w_bar = g``."""
    _, v = np.linalg.eigh(np.ascontiguousarray(a))
    return _lower_adjoint(np.dot(v * g, v.T))


@register_jitable
def eigvalsh_tangent(a, tangent):
    """``w_dot`` of ``w = eigvalsh(A)`` along ``A_dot = tangent``."""
    _, v = np.linalg.eigh(np.ascontiguousarray(a))
    return np.sum(v * np.dot(_symmetric_tangent(tangent), v), axis=0)


@register_jitable
def eigh_vectors_adjoint(a, g):
    """``A_bar`` of ``V = eigh(A)[1]`` given ``V_bar = g``."""
    w, v = np.linalg.eigh(np.ascontiguousarray(a))
    inner = _gaps_inverse(w) * np.dot(v.T, g)
    return _lower_adjoint(np.dot(np.dot(v, inner), v.T))


@register_jitable
def eigh_vectors_tangent(a, tangent):
    """``V_dot`` of ``V = eigh(A)[1]`` along ``A_dot = tangent``."""
    w, v = np.linalg.eigh(np.ascontiguousarray(a))
    projected = np.dot(v.T, np.dot(_symmetric_tangent(tangent), v))
    return np.dot(v, _gaps_inverse(w) * projected)


HELPERS = ("linalg_eigvalsh", "linalg_eigh_vectors", "eigvalsh_adjoint", "eigvalsh_tangent")
HELPERS += ("eigh_vectors_adjoint", "eigh_vectors_tangent")

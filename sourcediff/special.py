"""Special functions and linear algebra for generated code, in Python and in Numba.

Each helper is a plain Python function (what ``jit=False`` runs) with a Numba
``@overload`` (what compiled code runs), so both modes compute the same thing:

- ``digamma``: the derivative of ``math.lgamma`` (Numba and ``math`` have none);
- ``prod_adjoint``: the products of all other elements, exact where elements are 0
  (``np.prod(x) / x`` would be NaN there);
- ``linalg_solve``, ``linalg_inv``, ``linalg_det``: NumPy's LAPACK routines
  (SciPy's LAPACK under Numba), under names no user function is likely to have
  (generated modules define the user's functions beside them).

    >>> round(digamma(1.0), 12)  # minus the Euler-Mascheroni constant
    -0.577215664902
    >>> prod_adjoint(np.array([2.0, 0.0, 3.0]), 1.0)
    array([0., 6., 0.])
"""

from __future__ import annotations

import math

import numpy as np
from numba.extending import overload

from .jitting import helper


def _digamma(x):
    """psi(x) by recurrence up to x >= 10, then the asymptotic series; reflection below 0."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan  # a pole of the gamma function
    shift = 0.0
    if x < 0.0:
        shift = -math.pi / math.tan(math.pi * x)  # psi(1 - x) - psi(x) = pi cot(pi x)
        x = 1.0 - x
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
    series -= 691.0 / 32760.0 * f**6  # the next term: the series is then exact to rounding
    return shift + result + math.log(x) - 0.5 / x - series


_digamma_jit = helper(_digamma, cache=False)


def digamma(x):
    """The digamma function, d/dx log(gamma(x)), for a float."""
    return _digamma(float(x))


@overload(digamma)
def _digamma_overload(x):
    return lambda x: _digamma_jit(float(x))


def _prod_adjoint(x, g):
    flat = x.ravel()
    n = flat.shape[0]
    out = np.empty(n)
    running = 1.0
    for k in range(n):  # products of the elements before k
        out[k] = running
        running *= flat[k]
    running = 1.0
    for k in range(n - 1, -1, -1):  # times the products of the elements after k
        out[k] *= running * g
        running *= flat[k]
    return out.reshape(x.shape)


_prod_adjoint_jit = helper(_prod_adjoint, cache=False)


def prod_adjoint(x, g):
    """``g`` times the product of every element of ``x`` but one, for each element."""
    return _prod_adjoint(np.ascontiguousarray(x, dtype=np.float64), float(g))


@overload(prod_adjoint)
def _prod_adjoint_overload(x, g):
    return lambda x, g: _prod_adjoint_jit(np.ascontiguousarray(x), g)


def linalg_solve(a, b):
    """``np.linalg.solve(a, b)``."""
    return np.linalg.solve(a, b)


@overload(linalg_solve)
def _solve(a, b):
    return lambda a, b: np.linalg.solve(np.ascontiguousarray(a), np.ascontiguousarray(b))


def linalg_inv(a):
    """``np.linalg.inv(a)``."""
    return np.linalg.inv(a)


@overload(linalg_inv)
def _inv(a):
    return lambda a: np.linalg.inv(np.ascontiguousarray(a))


def linalg_det(a):
    """``np.linalg.det(a)``, as a float."""
    return float(np.linalg.det(a))


@overload(linalg_det)
def _det(a):
    return lambda a: np.linalg.det(np.ascontiguousarray(a))


def det_cofactors(a, det):
    """The cofactor matrix of ``a`` (``d det(a) / d a``), ``det`` its determinant: ``det
    inv(a)^T`` where ``a`` is invertible, and where it is singular (no inverse, yet the
    cofactors are finite) from the SVD ``a = u diag(s) v^T``: ``det(u) det(v) u diag(p)
    v^T``, ``p_k`` the product of the singular values but the k-th."""
    a = np.ascontiguousarray(a)
    if det != 0.0:
        return det * np.linalg.inv(a).T
    u, s, vt = np.linalg.svd(a)
    others = np.ones(s.shape[0])
    for k in range(s.shape[0]):
        for j in range(s.shape[0]):
            if j != k:
                others[k] *= s[j]
    sign = 1.0 if np.linalg.det(u) * np.linalg.det(vt) > 0.0 else -1.0
    return sign * np.dot(u * others, vt)


@overload(det_cofactors)
def _det_cofactors_overload(a, det):
    return det_cofactors


def linalg_slogdet_sign(a):
    """The sign of ``np.linalg.det(a)`` (``np.linalg.slogdet(a)[0]``), as a float."""
    return float(np.linalg.slogdet(a)[0])


@overload(linalg_slogdet_sign)
def _slogdet_sign(a):
    return lambda a: np.linalg.slogdet(np.ascontiguousarray(a))[0]


def linalg_slogdet_logabs(a):
    """``log |det a|`` (``np.linalg.slogdet(a)[1]``), without overflow, as a float."""
    return float(np.linalg.slogdet(a)[1])


@overload(linalg_slogdet_logabs)
def _slogdet_logabs(a):
    return lambda a: np.linalg.slogdet(np.ascontiguousarray(a))[1]


def linalg_cholesky(a):
    """``np.linalg.cholesky(a)``: the lower factor, from ``a``'s lower triangle (LAPACK)."""
    return np.linalg.cholesky(a)


@overload(linalg_cholesky)
def _cholesky(a):
    return lambda a: np.linalg.cholesky(np.ascontiguousarray(a))


def _transposed_solve(lower, rhs):
    """``lower^-T rhs``."""
    return np.linalg.solve(np.ascontiguousarray(lower.T), np.ascontiguousarray(rhs))


def cholesky_adjoint(lower, g):
    """The adjoint of ``A`` for ``L = cholesky(A)`` given ``L``'s adjoint ``g`` (Murray 2016).

    With ``P = L^-T phi(L^T g) L^-1`` (``phi``: the lower triangle, diagonal halved), and
    since LAPACK reads only ``A``'s lower triangle, ``A_bar`` is ``P + P^T`` below the
    diagonal, ``P``'s diagonal on it, and zero above.
    """
    m = np.tril(np.dot(lower.T, g))
    m -= 0.5 * np.diag(np.diag(m))
    p = _transposed_solve(lower, _transposed_solve(lower, m.T).T)
    return np.tril(p + p.T) - np.diag(np.diag(p))


def cholesky_tangent(lower, tangent):
    """``L_dot = L phi(L^-1 S_dot L^-T)``, ``S_dot`` the symmetric tangent the lower
    triangle of ``tangent`` stands for."""
    s_dot = np.tril(tangent) + np.tril(tangent, -1).T
    # Contiguous copies (np.copy has a derivative row: second derivatives go through it).
    x = np.linalg.solve(np.copy(lower), s_dot)
    x = np.linalg.solve(np.copy(lower), np.copy(x.T)).T
    x = np.tril(x)
    x -= 0.5 * np.diag(np.diag(x))
    return np.dot(lower, x)


@overload(_transposed_solve)
def _transposed_solve_overload(lower, rhs):
    return _transposed_solve


@overload(cholesky_adjoint)
def _cholesky_adjoint_overload(lower, g):
    return cholesky_adjoint


@overload(cholesky_tangent)
def _cholesky_tangent_overload(lower, tangent):
    return cholesky_tangent


def diag_adjoint(x, g):
    """The adjoint of ``x`` for ``np.diag(x)``: ``g``'s diagonal for a vector ``x``, ``g`` on
    the diagonal of a zero array shaped like a matrix ``x``."""
    if np.ndim(x) == 1:
        return np.diag(g).copy()
    return _diag_into(np.zeros(x.shape), g)


def _diag_into(out, g):
    for i in range(g.shape[0]):
        out[i, i] = g[i]
    return out


@overload(diag_adjoint)
def _diag_adjoint(x, g):
    if x.ndim == 1:
        return lambda x, g: np.diag(np.ascontiguousarray(g)).copy()
    return lambda x, g: _diag_into_jit(np.zeros(x.shape), g)


_diag_into_jit = helper(_diag_into)


def covariance(x):
    """``np.cov(x)``, rows being variables; a float for a vector ``x`` (NumPy: a 0-d array)."""
    return _covariance_vector(x) if np.ndim(x) == 1 else _covariance_rows(x)


def covariance_adjoint(x, g):
    """The adjoint of ``x`` for ``np.cov(x)``: ``(g + g^T) (x - row means) / (n - 1)``; the
    centring drops out, since the rows of that product sum to 0."""
    if np.ndim(x) == 1:
        return _covariance_vector_adjoint(x, g)
    return _covariance_rows_adjoint(x, g)


def covariance_tangent(x, t):
    """The tangent of ``np.cov(x)`` for a tangent ``t`` of ``x``."""
    if np.ndim(x) == 1:
        return _covariance_vector_tangent(x, t)
    return _covariance_rows_tangent(x, t)


def _covariance_vector(x):
    centred = x - np.mean(x)
    return np.sum(centred * centred) / (x.shape[0] - 1)


def _covariance_vector_adjoint(x, g):
    return 2.0 * g * (x - np.mean(x)) / (x.shape[0] - 1)


def _covariance_vector_tangent(x, t):
    return 2.0 * np.sum((x - np.mean(x)) * t) / (x.shape[0] - 1)


@helper
def _centred_rows(x):
    out = np.empty(x.shape)
    for i in range(x.shape[0]):
        out[i] = x[i] - np.mean(x[i])
    return out


def _covariance_rows(x):
    centred = _centred_rows(x)
    return np.dot(centred, np.ascontiguousarray(centred.T)) / (x.shape[1] - 1)


def _covariance_rows_adjoint(x, g):
    return np.dot(np.ascontiguousarray(g + g.T), _centred_rows(x)) / (x.shape[1] - 1)


def _covariance_rows_tangent(x, t):
    half = np.dot(_centred_rows(t), np.ascontiguousarray(_centred_rows(x).T)) / (x.shape[1] - 1)
    return half + half.T


def _by_rank(x, vector, rows):
    return vector if x.ndim == 1 else rows


@overload(covariance)
def _covariance(x):
    return _by_rank(x, _covariance_vector, _covariance_rows)


@overload(covariance_adjoint)
def _covariance_adjoint(x, g):
    return _by_rank(x, _covariance_vector_adjoint, _covariance_rows_adjoint)


@overload(covariance_tangent)
def _covariance_tangent(x, t):
    return _by_rank(x, _covariance_vector_tangent, _covariance_rows_tangent)


def sort_adjoint(x, g):
    """The adjoint of ``np.sort(x)`` (along the last axis): ``g`` sent back to where each
    sorted element came from (ties in ``np.argsort``'s order)."""
    out = np.zeros(x.shape)
    np.put_along_axis(out, np.argsort(x, axis=-1), g, axis=-1)
    return out


def sort_tangent(x, t):
    """The tangent of ``np.sort(x)``: ``t`` taken in the sorted order."""
    return np.take_along_axis(t, np.argsort(x, axis=-1), axis=-1)


@helper
def _sorted_rows(x, g, out, back):
    rows = x.reshape((-1, x.shape[-1]))
    flat_g = np.ascontiguousarray(g).reshape((-1, x.shape[-1]))
    flat_out = out.reshape((-1, x.shape[-1]))
    for r in range(rows.shape[0]):
        order = np.argsort(rows[r])
        for k in range(order.shape[0]):
            if back:
                flat_out[r, order[k]] = flat_g[r, k]
            else:
                flat_out[r, k] = flat_g[r, order[k]]
    return out


@overload(sort_adjoint)
def _sort_adjoint(x, g):
    return lambda x, g: _sorted_rows(np.ascontiguousarray(x), g, np.zeros(x.shape), True)


@overload(sort_tangent)
def _sort_tangent(x, t):
    return lambda x, t: _sorted_rows(np.ascontiguousarray(x), t, np.zeros(x.shape), False)


def diff_adjoint(g, x):
    """The adjoint of ``np.diff(x)`` (along the last axis): ``g`` pushed back on both ends."""
    out = np.zeros(x.shape)
    out[..., 1:] += g
    out[..., :-1] -= g
    return out


@overload(diff_adjoint)
def _diff_adjoint(g, x):
    def impl(g, x):
        out = np.zeros(x.shape)
        flat_out = out.reshape((-1, x.shape[-1]))
        flat_g = np.ascontiguousarray(g).reshape((-1, g.shape[-1]))
        for row in range(flat_g.shape[0]):
            for k in range(flat_g.shape[1]):
                flat_out[row, k + 1] += flat_g[row, k]
                flat_out[row, k] -= flat_g[row, k]
        return out

    return impl


HELPERS = ("digamma", "prod_adjoint", "linalg_solve", "linalg_inv", "linalg_det", "diff_adjoint")
HELPERS += ("linalg_slogdet_sign", "linalg_slogdet_logabs")
HELPERS += ("covariance", "covariance_adjoint", "covariance_tangent", "sort_adjoint")
HELPERS += ("sort_tangent", "det_cofactors")
HELPERS += ("linalg_cholesky", "cholesky_adjoint", "cholesky_tangent", "diag_adjoint")

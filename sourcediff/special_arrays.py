"""Runtime functions behind array rows Numba lacks or whose adjoint needs care: products
along an axis, cumulative products (exact where elements are 0), a flattened copy, and a
square root whose derivative is 0 where the root is 0 (``np.std``, ``np.linalg.norm``
along an axis). Each is plain NumPy when called from Python (``jit=False``) and an
``@overload`` under Numba.

>>> import numpy as np
>>> x = np.array([2.0, 0.0, 3.0])
>>> cumprod_adjoint(x, np.ones(3))  # d/dx of sum(cumprod(x)), exact at the zero
array([1., 8., 0.])
>>> prod_along(np.array([[1.0, 2.0], [3.0, 4.0]]), 0)
array([3., 8.])
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload

from . import along
from .adding import add_into  # noqa: F401 - named in HELPERS
from .jitting import helper
from .special import _prod_adjoint_jit as prod_line_adjoint
from .special import digamma, prod_adjoint


def safe_sqrt(x):
    """``np.sqrt(x)``; its rule gives derivative 0 where the result is 0."""
    return np.sqrt(x)


@overload(safe_sqrt)
def _safe_sqrt(x):
    return lambda x: np.sqrt(x)


def _of_each(scalar):
    """``scalar`` of a number or, elementwise, of an array, from Python: a function of
    ``x``; :func:`_of_each_overload` is its Numba version."""

    def function(x):
        if isinstance(x, np.ndarray):
            return np.vectorize(scalar, otypes=[np.float64])(x)
        return scalar(x)

    return function


def _of_each_overload(scalar):
    """The Numba typing of ``_of_each(scalar)``: a loop over the elements of an array."""

    def typing(x):
        if isinstance(x, types.Array):

            def elementwise(x):
                out = np.empty(x.shape)
                flat, values = out.reshape(-1), x.reshape(-1)
                for k in range(flat.shape[0]):
                    flat[k] = scalar(values[k])
                return out

            return elementwise
        return lambda x: scalar(x)

    return typing


#: ``math.lgamma`` of a number or of an array (``scipy.special.gammaln``), and its
#: derivative ``special.digamma`` the same way.
log_gamma = _of_each(math.lgamma)
log_gamma.__name__ = "log_gamma"
digamma_of_each = _of_each(digamma)
digamma_of_each.__name__ = "digamma_of_each"
overload(log_gamma)(_of_each_overload(math.lgamma))
overload(digamma_of_each)(_of_each_overload(digamma))

#: ``math.erf`` and ``math.erfc`` of a number or of an array (``scipy.special.erf``).
erf_of_each = _of_each(math.erf)
erf_of_each.__name__ = "erf_of_each"
erfc_of_each = _of_each(math.erfc)
erfc_of_each.__name__ = "erfc_of_each"
overload(erf_of_each)(_of_each_overload(math.erf))
overload(erfc_of_each)(_of_each_overload(math.erfc))


def flattened_copy(x):
    """``x.flatten()``: a new 1-D array (``np.ravel`` may be a view)."""
    return np.ravel(x).copy()


@overload(flattened_copy)
def _flattened_copy(x):
    return lambda x: np.ravel(x).copy()


def prod_along(x, axis):
    """``np.prod(x, axis=axis)`` for a 2-D ``x`` (Numba has no ``axis=`` for it)."""
    return np.prod(x, axis=axis)


def prod_along_adjoint(x, g, axis):
    """The adjoint of ``prod_along``: each line's ``prod_adjoint`` times its ``g``."""
    moved = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    lines, seeds = moved.reshape(-1, moved.shape[-1]), np.reshape(g, -1)
    out = np.stack([prod_adjoint(line, seed) for line, seed in zip(lines, seeds)])
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


def _prod_along_adjoint_2d(x, g, axis):
    out = np.empty(x.shape)
    for k in range(g.shape[0]):
        if axis % 2 == 0:
            out[:, k] = prod_adjoint(x[:, k], g[k])
        else:
            out[k, :] = prod_adjoint(x[k, :], g[k])
    return out


@overload(prod_along)
def _prod_along(x, axis):
    def impl(x, axis):
        lines = x.shape[1] if axis % 2 == 0 else x.shape[0]
        out = np.empty(lines)
        for k in range(lines):
            out[k] = np.prod(x[:, k]) if axis % 2 == 0 else np.prod(x[k, :])
        return out

    if x.ndim in along.RANKS:
        return along.reduce_along(np.prod, x.ndim)
    return impl if x.ndim == 2 else None


@overload(prod_along_adjoint)
def _prod_along_adjoint(x, g, axis):
    if x.ndim in along.RANKS:
        return along.prod_adjoint_along(x.ndim, prod_line_adjoint)
    return _prod_along_adjoint_2d if x.ndim == 2 else None


def cumprod_adjoint(x, g):
    """The adjoint of ``np.cumprod(x)`` (flattened): ``x_bar[j]`` is the product of the
    elements before ``j`` times ``sum_{i >= j} g[i] * prod(x[j+1..i])``, summed backwards so
    that a zero element costs no division."""
    flat, seed = np.ravel(x), np.ravel(g)
    n = flat.shape[0]
    out = np.empty(n)
    after = 0.0
    for j in range(n - 1, -1, -1):
        after = seed[j] + (flat[j + 1] * after if j + 1 < n else 0.0)
        out[j] = after
    before = 1.0
    for j in range(n):
        out[j] *= before
        before *= flat[j]
    return out.reshape(x.shape)


def cumprod_tangent(x, t):
    """The tangent of ``np.cumprod(x)``: ``d_i = d_{i-1} x_i + P_{i-1} t_i``."""
    flat, dot = np.ravel(x), np.ravel(t)
    out = np.empty(flat.shape[0])
    before, running = 1.0, 0.0
    for i in range(flat.shape[0]):
        running = running * flat[i] + before * dot[i]
        out[i] = running
        before *= flat[i]
    return out


def compiled_as_written(*functions) -> None:
    """Let Numba compile each of ``functions`` from its own body (written in what it types)."""
    for function in functions:

        def typer(*args, _function=function):
            return _function

        overload(function, strict=False)(typer)


compiled_as_written(cumprod_adjoint, cumprod_tangent)


def grow_list(buffer, count):
    """``buffer`` if it has room for element ``count``, else a copy twice as long: the array
    behind a list built with ``append`` (``sourcediff.appends``)."""
    if count < buffer.shape[0]:
        return buffer
    bigger = np.zeros(2 * buffer.shape[0] + 1)
    for k in range(count):  # not bigger[:count] = ...: seconds more to compile
        bigger[k] = buffer[k]
    return bigger


compiled_as_written(grow_list)


def as_vector(v):
    """``v`` as a new 1-D array: ``[v]`` for a number, flattened for an array (what
    ``np.append`` does to its values)."""
    return np.atleast_1d(v).ravel().copy()


def expand_axis(x, axis):
    """``np.expand_dims(x, axis)``, also of a number (then a vector of length 1)."""
    return np.expand_dims(x, axis)


@overload(expand_axis)
def _expand_axis(x, axis):
    if isinstance(x, types.Array):
        return lambda x, axis: np.expand_dims(x, axis)
    return lambda x, axis: np.full(1, x)


def as_vector_adjoint(g, v):
    """The adjoint of ``as_vector``: ``g[0]`` for a number, ``g`` reshaped like ``v``."""
    return g[0] if np.ndim(v) == 0 else np.reshape(g, np.shape(v))


@overload(as_vector)
def _as_vector(v):
    if isinstance(v, types.Array):
        return lambda v: np.ravel(v).copy()
    return lambda v: np.array([v])


@overload(as_vector_adjoint)
def _as_vector_adjoint(g, v):
    if isinstance(v, types.Array):
        return lambda g, v: np.reshape(np.ascontiguousarray(g), v.shape)
    return lambda g, v: g[0]


def literal_buffer(count, first):
    """The array ``np.array([first, ...])`` fills: ``count`` floats for numbers, ``count``
    rows shaped like ``first`` for arrays (``np.array([x, np.sin(x)])``, a matrix)."""
    return np.empty((count,) + np.shape(first))


@overload(literal_buffer)
def _literal_buffer(count, first):
    if isinstance(first, types.Array):
        return lambda count, first: np.empty((count,) + first.shape)
    return lambda count, first: np.empty(count)


def diag_offset(x, k):
    """``np.diag(x, k)``: the ``k``-th diagonal of a matrix, or a vector put on it (a copy
    either way: NumPy's diagonal of a matrix is a read-only view)."""
    return np.diag(x, k).copy()


@overload(diag_offset)
def _diag_offset(x, k):
    return lambda x, k: np.diag(x, k).copy()


def diag_offset_adjoint(x, g, k):
    """The adjoint of ``x`` for ``np.diag(x, k)``: ``g``'s ``k``-th diagonal for a vector
    ``x``, ``g`` on the ``k``-th diagonal of zeros shaped like a matrix ``x``."""
    if np.ndim(x) == 1:
        return np.diag(g, k).copy()
    return _on_diagonal(np.zeros(x.shape), g, k)


def _on_diagonal(out, g, k):
    row, column = max(-k, 0), max(k, 0)
    for i in range(g.shape[0]):
        out[row + i, column + i] = g[i]
    return out


_on_diagonal_jit = helper(_on_diagonal)


@overload(diag_offset_adjoint)
def _diag_offset_adjoint(x, g, k):
    if x.ndim == 1:
        return lambda x, g, k: np.diag(np.ascontiguousarray(g), k).copy()
    return lambda x, g, k: _on_diagonal_jit(np.zeros(x.shape), g, k)


HELPERS = (
    "literal_buffer",
    "diag_offset",
    "diag_offset_adjoint",
    "add_into",
    "expand_axis",
    "as_vector",
    "as_vector_adjoint",
    "grow_list",
    "safe_sqrt",
    "flattened_copy",
    "prod_along",
    "prod_along_adjoint",
)
HELPERS += ("cumprod_adjoint", "cumprod_tangent", "log_gamma", "digamma_of_each")
HELPERS += ("erf_of_each", "erfc_of_each")

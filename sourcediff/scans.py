"""Cumulative sums and products along an axis (``np.cumsum(x, axis=k)``,
``np.cumprod(x, axis=k)``, also as methods), and ``np.roll(x, s, axis=k)``, which Numba
compiles only over the flattened array. The flattener spells them ``cumsum_along``,
``cumprod_along`` and ``roll_along``; their rows' adjoints and tangents are the functions
below, each plain NumPy from Python (``jit=False``) and, under Numba, the same line map
along the axis for arrays of rank 1 to 4 (``sourcediff.along.map_lines``); a roll is plain
loops over the elements (higher ranks seen as (before the axis, the axis, after it)).

>>> import numpy as np
>>> x = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> cumsum_along(x, 0)
array([[1., 2.],
       [4., 6.]])
>>> cumsum_along_adjoint(np.ones((2, 2)), 1)  # d/dx of sum(cumsum(x, axis=1))
array([[2., 1.],
       [2., 1.]])
>>> cumprod_along_adjoint(np.array([[2.0, 0.0, 3.0]]), np.ones((1, 3)), -1)  # exact at 0
array([[1., 8., 0.]])
>>> roll_along(x, 1, -1)  # its adjoint is roll_along(g, -1, -1)
array([[2., 1.],
       [4., 3.]])
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from . import along
from .jitting import helper
from .special_arrays import cumprod_adjoint, cumprod_tangent


def cumsum_along(x, axis):
    """``np.cumsum(x, axis=axis)``."""
    return np.cumsum(x, axis=axis)


def cumprod_along(x, axis):
    """``np.cumprod(x, axis=axis)``."""
    return np.cumprod(x, axis=axis)


def roll_along(x, shift, axis):
    """``np.roll(x, shift, axis=axis)`` for one integer axis."""
    if axis < -x.ndim or axis >= x.ndim:  # the compiled version's message (_check_axis)
        raise ValueError("np.roll: axis is out of bounds for the array's dimension")
    return np.roll(x, shift, axis=axis)


def cumsum_along_adjoint(g, axis):
    """The adjoint of ``cumsum_along``: sums of ``g`` from each element to the line's end."""
    return np.flip(np.cumsum(np.flip(g, axis), axis=axis), axis)


def cumprod_along_adjoint(x, g, axis):
    """The adjoint of ``cumprod_along``: ``cumprod_adjoint`` (exact over zeros) per line."""
    return _per_line(cumprod_adjoint, x, g, axis)


def cumprod_along_tangent(x, t, axis):
    """The tangent of ``cumprod_along``: ``cumprod_tangent`` per line."""
    return _per_line(cumprod_tangent, x, t, axis)


def _per_line(line_map, x, g, axis):
    moved_x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    moved_g = np.moveaxis(np.asarray(g, dtype=np.float64), axis, -1)
    lines, seeds = moved_x.reshape(-1, moved_x.shape[-1]), moved_g.reshape(-1, moved_x.shape[-1])
    out = np.stack([line_map(line, seed) for line, seed in zip(lines, seeds)])
    return np.moveaxis(out.reshape(moved_x.shape), -1, axis)


@helper
def _cumsum_line(line, _unused):
    return np.cumsum(line)


@helper
def _cumprod_line(line, _unused):
    return np.cumprod(line)


@helper
def _reverse_cumsum_line(_unused, seed):
    out = np.empty(seed.shape[0])
    running = 0.0
    for k in range(seed.shape[0] - 1, -1, -1):
        running += seed[k]
        out[k] = running
    return out


@helper
def _cumprod_adjoint_line(line, seed):
    return cumprod_adjoint(line, seed)


@helper
def _cumprod_tangent_line(line, seed):
    return cumprod_tangent(line, seed)


def _mapped(line_map, x):
    """The line map's implementation for ``x``'s rank, or None (Numba reports the types)."""
    return along.map_lines(x.ndim, line_map) if x.ndim in along.MAPPED_RANKS else None


def _compiled(line_map, x):
    """The line map compiled for ``x``'s rank, or None."""
    mapped = _mapped(line_map, x)
    return None if mapped is None else helper(mapped, cache=False)


@overload(cumsum_along)
def _cumsum_along(x, axis):
    compiled = _compiled(_cumsum_line, x)
    return compiled and (lambda x, axis: compiled(x, x, axis))


@overload(cumprod_along)
def _cumprod_along(x, axis):
    compiled = _compiled(_cumprod_line, x)
    return compiled and (lambda x, axis: compiled(x, x, axis))


@overload(cumsum_along_adjoint)
def _cumsum_along_adjoint(g, axis):
    compiled = _compiled(_reverse_cumsum_line, g)
    return compiled and (lambda g, axis: compiled(g, g, axis))


@overload(cumprod_along_adjoint)
def _cumprod_along_adjoint(x, g, axis):
    return _mapped(_cumprod_adjoint_line, x)


@overload(cumprod_along_tangent)
def _cumprod_along_tangent(x, t, axis):
    compiled = _compiled(_cumprod_tangent_line, x)
    return compiled and (lambda x, t, axis: compiled(x, t, axis))


@helper
def _roll_blocks(shape, axis):
    """The array's shape as (lengths before ``axis``, along it, after it)."""
    axis = axis % len(shape)
    before, after = 1, 1
    for k in range(len(shape)):
        if k < axis:
            before *= shape[k]
        elif k > axis:
            after *= shape[k]
    return before, shape[axis], after


@helper
def _roll_blocks_flat(flat, blocks, shift):
    """``flat`` (C order) seen as ``blocks`` = (before, along, after), rolled along the
    middle axis."""
    before, length, after = blocks
    out = np.empty_like(flat)
    for b in range(before):
        for i in range(length):
            source = (b * length + i) * after
            target = (b * length + (i + shift) % length) * after
            for a in range(after):
                out[target + a] = flat[source + a]
    return out


@overload(roll_along)
def _roll_along(x, shift, axis):
    """Plain loops for vectors and matrices (Numba compiles them in a fraction of the time
    of block copies), rows of the flattened array for higher ranks."""
    if x.ndim == 1:
        return lambda x, shift, axis: _roll_vector(x, shift, axis)
    if x.ndim == 2:
        return lambda x, shift, axis: _roll_matrix(x, shift, axis)

    def impl(x, shift, axis):
        _check_axis(axis, x.ndim)
        flat = np.ascontiguousarray(x).ravel()
        return _roll_blocks_flat(flat, _roll_blocks(x.shape, axis), shift).reshape(x.shape)

    return impl


@helper
def _check_axis(axis, ndim):
    """NumPy's error for an axis the array does not have (never a wrapped-around axis)."""
    if axis < -ndim or axis >= ndim:
        raise ValueError("np.roll: axis is out of bounds for the array's dimension")


@helper
def _roll_vector(x, shift, axis):
    """``np.roll`` of a vector (its only axis, 0 or -1)."""
    _check_axis(axis, 1)
    n = x.shape[0]
    out = np.empty(n, x.dtype)
    for i in range(n):
        out[(i + shift) % n] = x[i]
    return out


@helper
def _roll_matrix(x, shift, axis):
    """``np.roll`` of a matrix along ``axis`` (0, 1, -1 or -2)."""
    _check_axis(axis, 2)
    rows, columns = x.shape
    out = np.empty((rows, columns), x.dtype)
    along_rows = axis % 2 == 0
    for i in range(rows):
        for j in range(columns):
            if along_rows:
                out[(i + shift) % rows, j] = x[i, j]
            else:
                out[i, (j + shift) % columns] = x[i, j]
    return out


HELPERS = (
    "roll_along",
    "cumsum_along",
    "cumprod_along",
    "cumsum_along_adjoint",
    "cumprod_along_adjoint",
    "cumprod_along_tangent",
)

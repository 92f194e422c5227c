"""Reductions along an axis under Numba, which Numba's NumPy lacks: ``max_along`` and
``min_along`` (with their adjoints' first-extreme masks ``extreme_mask_along``), the line
functions behind ``prod_along``, and line maps (cumulative sums and products). Rank 2 has
direct loops; ranks 1, 3 and 4 the line-by-line forms below (a vector's only axis
reduces it to a number).

The axis is moved last by a transpose whose order is chosen at run time among the rank's
few orders (each a tuple of constants, so Numba types them alike); the array is then a
stack of lines, reduced line by line, and the result reshaped (or, for a mask, transposed
back). Rank 2 keeps its direct loops in ``sourcediff.special``.

>>> order, back = axis_orders(3)
>>> order(0), back(0), order(-1)
((1, 2, 0), (2, 0, 1), (0, 1, 2))
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from .jitting import helper

RANKS = (1, 3, 4)  # reductions: rank 2 has direct loops in sourcediff.special
MAPPED_RANKS = (1, 2, 3, 4)  # line-by-line maps (cumulative sums and products)


def _orders_source(rank: int, inverse: bool) -> str:
    lines = ["def order(axis):", f"    axis = axis % {rank}"]
    for axis in range(rank):
        forward = tuple(k for k in range(rank) if k != axis) + (axis,)
        chosen = tuple(forward.index(k) for k in range(rank)) if inverse else forward
        lines.append(f"    if axis == {axis}:\n        return {chosen}")
    lines.append(f"    return {tuple(range(rank))}")
    return "\n".join(lines)


def axis_orders(rank: int):
    """Two compiled functions of an axis: the transpose order that moves it last, and the
    order that moves it back."""
    made = []
    for inverse in (False, True):
        namespace: dict = {}
        exec(_orders_source(rank, inverse), namespace)
        made.append(helper(namespace["order"], cache=False))
    return tuple(made)


ORDERS = {rank: axis_orders(rank) for rank in MAPPED_RANKS}
# All but the last length of a shape, per rank (Numba slices tuples by literals only).
LEADING = {
    3: helper(cache=False)(lambda shape: (shape[0], shape[1])),
    4: helper(cache=False)(lambda shape: (shape[0], shape[1], shape[2])),
}


def reduce_along(pick, rank: int):
    """A compiled ``pick`` (np.max, np.min, np.prod) along ``axis`` of a rank-``rank`` array."""
    if rank == 1:
        return lambda x, axis: pick(x)
    order, _ = ORDERS[rank]
    leading = LEADING[rank]

    def impl(x, axis):
        lines = np.ascontiguousarray(np.transpose(x, order(axis)))
        flat = lines.reshape((-1, lines.shape[rank - 1]))
        out = np.empty(flat.shape[0])
        for k in range(flat.shape[0]):
            out[k] = pick(flat[k])
        return out.reshape(leading(lines.shape))

    return impl


def first_extreme_mask_along(rank: int):
    """A compiled mask: 1.0 where ``x`` first equals ``extreme`` along ``axis``."""
    if rank == 1:
        return _first_extreme_mask_of_vector
    order, back = ORDERS[rank]

    def impl(x, extreme, axis):
        lines = np.ascontiguousarray(np.transpose(x, order(axis)))
        flat = lines.reshape((-1, lines.shape[rank - 1]))
        wanted = np.ascontiguousarray(extreme).reshape(-1)
        mask = np.zeros(flat.shape)
        for k in range(flat.shape[0]):
            for j in range(flat.shape[1]):
                if flat[k, j] == wanted[k]:
                    mask[k, j] = 1.0
                    break
        return np.ascontiguousarray(np.transpose(mask.reshape(lines.shape), back(axis)))

    return impl


def _first_extreme_mask_of_vector(x, extreme, axis):
    mask = np.zeros(x.shape[0])
    for k in range(x.shape[0]):
        if x[k] == extreme:
            mask[k] = 1.0
            break
    return mask


def prod_adjoint_along(rank: int, line_adjoint):
    """A compiled adjoint of ``prod_along``: ``line_adjoint`` (exact over zeros) per line."""
    if rank == 1:
        return lambda x, g, axis: line_adjoint(x, g)
    order, back = ORDERS[rank]

    def impl(x, g, axis):
        lines = np.ascontiguousarray(np.transpose(x, order(axis)))
        flat = lines.reshape((-1, lines.shape[rank - 1]))
        seeds = np.ascontiguousarray(g).reshape(-1)
        out = np.empty(flat.shape)
        for k in range(flat.shape[0]):
            out[k] = line_adjoint(flat[k], seeds[k])
        return np.ascontiguousarray(np.transpose(out.reshape(lines.shape), back(axis)))

    return impl


def map_lines(rank: int, line_map):
    """A compiled ``(x, g, axis) -> out`` of the shape of ``x``: ``line_map(x_line, g_line)``
    applied to each line along ``axis`` (``g`` has the shape of ``x``; a map of ``x`` alone
    is given ``x`` twice)."""
    order, back = ORDERS[rank]

    def impl(x, g, axis):
        lines = np.ascontiguousarray(np.transpose(x, order(axis)))
        flat = lines.reshape((-1, lines.shape[rank - 1]))
        seeds = np.ascontiguousarray(np.transpose(g, order(axis))).reshape(flat.shape)
        out = np.empty(flat.shape)
        for k in range(flat.shape[0]):
            out[k] = line_map(flat[k], seeds[k])
        return np.ascontiguousarray(np.transpose(out.reshape(lines.shape), back(axis)))

    return impl


def max_along(x, axis):
    """``np.max(x, axis=axis)`` (Numba has no ``axis=`` for it; compiled for 2-D arrays)."""
    return np.max(x, axis=axis)


def min_along(x, axis):
    """``np.min(x, axis=axis)`` (Numba has no ``axis=`` for it; compiled for 2-D arrays)."""
    return np.min(x, axis=axis)


def _extreme_along(pick):
    """``pick`` along ``axis`` of a matrix (``axis % 2``: -2 is 0, -1 is 1)."""

    def impl(x, axis):
        if axis % 2 == 0:
            out = np.empty(x.shape[1])
            for j in range(x.shape[1]):
                out[j] = pick(x[:, j])
            return out
        out = np.empty(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = pick(x[i, :])
        return out

    return impl


@overload(max_along)
def _max_along(x, axis):
    return _extreme_along(np.max) if x.ndim == 2 else _along_higher(np.max, x.ndim)


@overload(min_along)
def _min_along(x, axis):
    return _extreme_along(np.min) if x.ndim == 2 else _along_higher(np.min, x.ndim)


def _along_higher(pick, rank: int):
    return reduce_along(pick, rank) if rank in RANKS else None


def extreme_mask_along(x, extreme, axis):
    """1.0 where ``x`` first equals ``extreme`` (its max or min along ``axis``), else 0.0."""
    hits = x == np.expand_dims(extreme, axis)
    return (hits & (np.cumsum(hits, axis=axis) == 1)).astype(np.float64)


@overload(extreme_mask_along)
def _extreme_mask_along(x, extreme, axis):
    if x.ndim in RANKS:
        return first_extreme_mask_along(x.ndim)
    if x.ndim != 2:
        return None

    def impl(x, extreme, axis):
        mask = np.zeros(x.shape)
        lines = x.shape[1] if axis % 2 == 0 else x.shape[0]
        length = x.shape[0] if axis % 2 == 0 else x.shape[1]
        for line in range(lines):
            for k in range(length):
                i, j = (k, line) if axis % 2 == 0 else (line, k)
                if x[i, j] == extreme[line]:
                    mask[i, j] = 1.0
                    break
        return mask

    return impl


HELPERS = ("max_along", "min_along", "extreme_mask_along")

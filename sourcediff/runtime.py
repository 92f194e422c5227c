"""Small compiled helpers that generated modules import.

They are Numba functions (or Python functions with a Numba overload) so that
generated code calling them compiles in nopython mode; each can also be called
from plain Python, which is what ``jit=False`` does.

- ``reserve``: make room in a record (capacity doubling);
- ``sum_to``: reduce a broadcast adjoint back to an operand's shape;
- ``dot`` and its adjoints: matrix products without BLAS (Numba's ``np.dot``
  needs SciPy, which is not a dependency);
- ``first_extreme_mask``: where ``np.max``/``np.min`` send their derivative.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import overload

from . import along, interp, scans, special, special_arrays, stacked, vector_math
from .along import extreme_mask_along, max_along, min_along  # noqa: F401 - generated code
from .interp import (  # noqa: F401 - for generated code
    interp_adjoint_fp,
    interp_adjoint_x,
    interp_adjoint_xp,
    interp_tangent_xp,
)
from .products import dot, dot_adjoint_left, dot_adjoint_right  # noqa: F401 - generated code
from .scans import (  # noqa: F401 - for generated code
    cumprod_along,
    cumprod_along_adjoint,
    cumprod_along_tangent,
    cumsum_along,
    cumsum_along_adjoint,
    roll_along,
)
from .special import (  # noqa: F401 - for generated code
    cholesky_adjoint,
    cholesky_tangent,
    covariance,
    covariance_adjoint,
    covariance_tangent,
    det_cofactors,
    diag_adjoint,
    diff_adjoint,
    digamma,
    linalg_cholesky,
    linalg_det,
    linalg_inv,
    linalg_slogdet_logabs,
    linalg_slogdet_sign,
    linalg_solve,
    prod_adjoint,
    sort_adjoint,
    sort_tangent,
)
from .special_arrays import (  # noqa: F401 - for generated code
    add_into,
    as_vector,
    as_vector_adjoint,
    cumprod_adjoint,
    cumprod_tangent,
    expand_axis,
    flattened_copy,
    grow_list,
    prod_along,
    prod_along_adjoint,
    safe_sqrt,
)
from .stacked import matmul, matmul_adjoint_left, matmul_adjoint_right  # noqa: F401


@numba.njit(cache=True)
def reserve(tape, needed):
    """``tape``, or a copy with room for at least ``needed`` values (capacity doubling)."""
    if needed <= tape.shape[0]:
        return tape
    bigger = np.empty(max(needed, 2 * tape.shape[0]), tape.dtype)
    for k in range(tape.shape[0]):  # not bigger[:n] = tape: seconds more to compile
        bigger[k] = tape[k]
    return bigger


@numba.njit(cache=True)
def _copy_rows(target, source, count):
    """``target[:count] = source[:count]`` for matrices, row by row: Numba compiles an
    array assignment in seconds, this loop in a fraction of one."""
    for i in range(count):
        for j in range(source.shape[1]):
            target[i, j] = source[i, j]


def sum_to(g, like):
    """``g`` summed over the axes along which ``like`` was broadcast to ``g``'s shape.

    Any rank: leading axes that ``like`` lacks are summed away, then the axes
    where ``like`` has size 1; an axis where ``g`` has size 1 is broadcast.
    """
    if np.ndim(like) == 0:
        return float(np.sum(g))
    g = np.asarray(g)
    while g.ndim > np.ndim(like):
        g = g.sum(axis=0)
    g = g.reshape((1,) * (np.ndim(like) - g.ndim) + g.shape)
    for axis, size in enumerate(np.shape(like)):
        if size == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    if g.shape == np.shape(like):
        return g  # as compiled: the argument itself when nothing was summed
    return np.broadcast_to(g, np.shape(like)).copy()  # writable, as compiled


@overload(sum_to)
def _sum_to(g, like):
    if isinstance(like, (types.Float, types.Integer)):
        return lambda g, like: np.sum(g)
    if not isinstance(g, types.Array):
        return lambda g, like: np.full(like.shape, g)
    # A bias added to a batch and a vector to a vector have loops of their own, so that
    # the general reduction (seconds to compile) is compiled only where needed.
    if g.ndim == 2 and like.ndim == 1:
        return lambda g, like: _sum_rows_to_vector(g, like)
    if g.ndim == 1 and like.ndim == 1:
        return lambda g, like: _sum_vector_to_vector(g, like)
    if g.ndim == like.ndim:
        return lambda g, like: _sum_to_same_rank(g, like)
    return lambda g, like: _sum_to_any_rank(g, like)


@numba.njit(cache=True)
def _sum_rows_to_vector(g, like):
    """``sum_to`` of a matrix to a vector: the rows summed (a bias), everything summed
    (a vector of one), or the one column summed and spread."""
    rows, columns = g.shape
    size = like.shape[0]
    if size != columns and size != 1 and columns != 1:
        raise ValueError("sum_to: an adjoint does not broadcast to its operand's shape")
    out = np.zeros(size, g.dtype)
    for i in range(rows):
        for j in range(columns):
            out[j if size == columns else 0] += g[i, j]
    if size != columns and size != 1:  # g had one column: the sum along like's axis
        out[1:] = out[0]
    return out


@numba.njit(cache=True)
def _sum_vector_to_vector(g, like):
    """``sum_to`` of a vector to a vector: ``g`` itself, its sum, or its one element spread."""
    if g.shape[0] == like.shape[0]:
        return g
    if like.shape[0] != 1 and g.shape[0] != 1:
        raise ValueError("sum_to: an adjoint does not broadcast to its operand's shape")
    out = np.zeros(like.shape[0], g.dtype)
    for j in range(g.shape[0]):
        out[0] += g[j]
    out[1:] = out[0]
    return out


@numba.njit(cache=True)
def _sum_to_same_rank(g, like):
    """``sum_to`` where ``g`` and ``like`` have one rank: ``g`` itself when the shapes agree."""
    if g.shape == like.shape:
        return g
    return _sum_to_any_rank(g, like)


@numba.njit(cache=True)
def _sum_to_any_rank(g, like):
    """``sum_to`` of arrays: rows summed when ``like`` is 1s then ``g``'s trailing axes
    (a bias, a keepdims mean), else the general broadcast reduction."""
    g_shape, like_shape = np.array(g.shape), np.array(like.shape)
    trailing = _trailing_size(g_shape, like_shape)
    if trailing > 0 and g.size > 0:
        rows = np.ascontiguousarray(g).reshape((g.size // trailing, trailing))
        out = np.zeros(trailing, g.dtype)
        for i in range(rows.shape[0]):
            for j in range(trailing):
                out[j] += rows[i, j]
        return out.reshape(like.shape)
    flat = _reduce_flat(np.ascontiguousarray(g).ravel(), g_shape, like_shape)
    return flat.reshape(like.shape)


@numba.njit(cache=True)
def _trailing_size(g_shape, like_shape):
    """The size of ``like``'s shape when it is 1s then the same trailing axes as ``g``'s
    (so that ``g`` sums to it over whole rows), else 0."""
    if like_shape.shape[0] > g_shape.shape[0]:
        return 0
    padded = _padded(like_shape, g_shape.shape[0])
    first = 0
    while first < padded.shape[0] and padded[first] == 1:
        first += 1
    size = 1
    for k in range(first, padded.shape[0]):
        if padded[k] != g_shape[k]:
            return 0
        size *= padded[k]
    return size


@numba.njit(cache=True)
def _padded(shape, ndim):
    """``shape`` (an int array) with leading 1s up to ``ndim`` axes."""
    out = np.ones(ndim, np.int64)
    out[ndim - shape.shape[0] :] = shape
    return out


@numba.njit(cache=True)
def _multi_index(flat_index, shape, out):
    """The C-order multi-index of ``flat_index`` in ``shape``, written into ``out``."""
    for k in range(shape.shape[0] - 1, -1, -1):
        out[k] = flat_index % shape[k]
        flat_index //= shape[k]


@numba.njit(cache=True)
def _flat_index(index, shape, keep):
    """The C-order flat index in ``shape`` of ``index``, with axes not in ``keep`` at 0."""
    flat = 0
    for k in range(shape.shape[0]):
        flat = flat * shape[k] + (index[k] if keep[k] else 0)
    return flat


@numba.njit(cache=True)
def _reduce_flat(flat, g_shape, like_shape):
    """``flat`` (of shape ``g_shape``, C order) summed to ``like_shape``, flat in C order."""
    ndim = max(g_shape.shape[0], like_shape.shape[0])
    g_full, like_full = _padded(g_shape, ndim), _padded(like_shape, ndim)
    for k in range(ndim):
        if g_full[k] != like_full[k] and g_full[k] != 1 and like_full[k] != 1:
            raise ValueError("sum_to: an adjoint does not broadcast to its operand's shape")
    summed, spread = like_full != 1, g_full != 1
    index = np.zeros(ndim, np.int64)
    reduced = np.zeros(np.prod(like_full), flat.dtype)
    for n in range(flat.shape[0]):
        _multi_index(n, g_full, index)
        reduced[_flat_index(index, like_full, summed)] += flat[n]
    if np.all(spread | ~summed):
        return reduced
    out = np.empty_like(reduced)  # broadcast along axes where g had size 1
    for n in range(out.shape[0]):
        _multi_index(n, like_full, index)
        out[n] = reduced[_flat_index(index, like_full, spread)]
    return out


def first_extreme_mask(x, extreme):
    """1.0 at the first element of ``x`` equal to ``extreme``, 0.0 elsewhere (tie rule)."""
    mask = np.zeros(np.shape(x))
    flat = np.asarray(x).ravel()
    for k in range(flat.shape[0]):
        if flat[k] == extreme:
            mask.ravel()[k] = 1.0
            break
    return mask


@overload(first_extreme_mask)
def _first_extreme_mask(x, extreme):
    def impl(x, extreme):
        mask = np.zeros(x.shape)
        flat_x = x.ravel()
        flat_mask = mask.ravel()
        for k in range(flat_x.shape[0]):
            if flat_x[k] == extreme:
                flat_mask[k] = 1.0
                break
        return mask

    return impl


def norm(x):
    """``np.linalg.norm(x)`` (2-norm of a vector, Frobenius norm of a matrix) without LAPACK."""
    return float(np.sqrt(np.sum(np.asarray(x) * np.asarray(x))))


@overload(norm)
def _norm(x):
    return lambda x: np.sqrt(np.sum(x * x))


def inplace_update(target, value):
    """``target += ...`` semantics: arrays are updated in place, numbers replaced."""
    if isinstance(target, np.ndarray):
        target[...] = value
        return target
    return value


@overload(inplace_update)
def _inplace_update(target, value):
    if isinstance(target, types.Array):

        def update(target, value):
            target[...] = value
            return target

        return update
    return lambda target, value: value


HELPERS = (
    special.HELPERS
    + along.HELPERS
    + special_arrays.HELPERS
    + interp.HELPERS
    + scans.HELPERS
    + stacked.HELPERS
    + vector_math.HELPERS
    + (
        "inplace_update",
        "revolve_actions",
        "revolve_bytes",
        "reserve",
        "sum_to",
        "dot",
        "dot_adjoint_left",
        "dot_adjoint_right",
        "first_extreme_mask",
        "norm",
    )
)


ADVANCE, TAKESHOT, RESTORE, REVERSE = 0, 1, 2, 3


@numba.njit(cache=True)
def _beta(snapshots, repetitions):
    """How many steps ``snapshots`` states reverse with ``repetitions`` re-runs: C(s+t, s)."""
    result = 1
    for k in range(1, snapshots + 1):
        result = result * (repetitions + k) // k
        if result > 2**60:
            return 2**60
    return result


@numba.njit(cache=True)
def _split(length, free):
    """Where binomial checkpointing places the next snapshot in a range of ``length`` steps."""
    repetitions = 0
    while _beta(free, repetitions) < length:
        repetitions += 1
    right = min(_beta(free - 1, repetitions), length - 1)
    return max(1, length - right)


@numba.njit(cache=True)
def revolve_actions(steps, snapshots):
    """The binomial (revolve) schedule reversing ``steps`` loop iterations, one action
    at a time, in memory bounded by ``snapshots`` (:func:`revolve_bytes`), not ``steps``.

    Yields ``(action, first, last)``: ``ADVANCE`` runs iterations ``first..last-1`` of
    the primal, ``TAKESHOT``/``RESTORE`` slot ``first``, ``REVERSE`` iteration ``first``
    (its forward part then its reverse part). Slot 0 holds the loop's entry state; at
    most ``snapshots`` slots are used at once.
    """
    if steps <= 0:
        return
    # Frames of the recursion reverse(a, b, slot of a, free slots, stage); never deeper
    # than ``snapshots`` (each split spends one free slot on its right part).
    stack = np.empty((max(snapshots, 1), 5), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3], stack[0, 4] = 0, steps, 0, snapshots - 1, 0
    depth = 1
    yield RESTORE, 0, 0
    while depth > 0:
        a, b, slot, free, stage = stack[depth - 1]
        if stage == 1:
            # The right part is reversed; restore this range's start and do the left part,
            # re-entered as the fresh range [a, middle) (b holds middle in a stage-1 frame).
            stack[depth - 1, 4] = 0
            yield RESTORE, slot, a
            continue
        depth -= 1
        if b - a == 1:
            yield REVERSE, a, 0
        elif free == 0:
            for j in range(b - 1, a - 1, -1):
                if j != b - 1:
                    yield RESTORE, slot, a
                if j > a:
                    yield ADVANCE, a, j
                yield REVERSE, j, 0
        else:
            middle = a + _split(b - a, free)
            # After the right part [middle, b) comes stage 1 of this range (the left part).
            stack[depth, 0], stack[depth, 1], stack[depth, 2] = a, middle, slot
            stack[depth, 3], stack[depth, 4] = free, 1
            stack[depth + 1, 0], stack[depth + 1, 1], stack[depth + 1, 2] = middle, b, slot + 1
            stack[depth + 1, 3], stack[depth + 1, 4] = free - 1, 0
            depth += 2
            yield ADVANCE, a, middle
            yield TAKESHOT, slot + 1, middle


@numba.njit(cache=True)
def revolve_bytes(steps, snapshots):
    """The memory :func:`revolve_actions` holds while it reverses ``steps`` iterations:
    its frames, none for a loop that never ran."""
    return 40 * max(snapshots, 1) if steps > 0 else 0


def __getattr__(name: str):
    """The vectorized ``exp`` and ``tanh`` of generated code, made on first use."""
    if name in vector_math.HELPERS:
        return getattr(vector_math, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

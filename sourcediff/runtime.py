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

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from . import along, eigen, interp, scans, special, special_arrays, stacked, vector_math
from .along import extreme_mask_along, max_along, min_along  # noqa: F401 - generated code
from .eigen import (  # noqa: F401 - for generated code
    eigh_vectors_adjoint,
    eigh_vectors_tangent,
    eigvalsh_adjoint,
    eigvalsh_tangent,
    linalg_eigh_vectors,
    linalg_eigvalsh,
)
from .interp import (  # noqa: F401 - for generated code
    interp_adjoint_fp,
    interp_adjoint_x,
    interp_adjoint_xp,
    interp_tangent_xp,
)
from .jitting import helper
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
    diag_offset,
    diag_offset_adjoint,
    digamma_of_each,
    erf_of_each,
    erfc_of_each,
    expand_axis,
    flattened_copy,
    grow_list,
    literal_buffer,
    log_gamma,
    prod_along,
    prod_along_adjoint,
    safe_sqrt,
)
from .stacked import matmul, matmul_adjoint_left, matmul_adjoint_right  # noqa: F401


@helper
def reserve(tape, needed):
    """``tape``, or a copy with room for at least ``needed`` values (capacity doubling)."""
    if needed <= tape.shape[0]:
        return tape
    bigger = np.empty(max(needed, 2 * tape.shape[0]), tape.dtype)
    for k in range(tape.shape[0]):  # not bigger[:n] = tape: seconds more to compile
        bigger[k] = tape[k]
    return bigger


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


@helper
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


@helper
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


@helper
def _sum_to_same_rank(g, like):
    """``sum_to`` where ``g`` and ``like`` have one rank: ``g`` itself when the shapes agree."""
    if g.shape == like.shape:
        return g
    return _sum_to_any_rank(g, like)


@helper
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


@helper
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


@helper
def _padded(shape, ndim):
    """``shape`` (an int array) with leading 1s up to ``ndim`` axes."""
    out = np.ones(ndim, np.int64)
    out[ndim - shape.shape[0] :] = shape
    return out


@helper
def _multi_index(flat_index, shape, out):
    """The C-order multi-index of ``flat_index`` in ``shape``, written into ``out``."""
    for k in range(shape.shape[0] - 1, -1, -1):
        out[k] = flat_index % shape[k]
        flat_index //= shape[k]


@helper
def _flat_index(index, shape, keep):
    """The C-order flat index in ``shape`` of ``index``, with axes not in ``keep`` at 0."""
    flat = 0
    for k in range(shape.shape[0]):
        flat = flat * shape[k] + (index[k] if keep[k] else 0)
    return flat


@helper
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
    + eigen.HELPERS
    + along.HELPERS
    + special_arrays.HELPERS
    + interp.HELPERS
    + scans.HELPERS
    + stacked.HELPERS
    + vector_math.HELPERS
    + (
        "inplace_update",
        "revolve_schedule",
        "revolve_next",
        "revolve_bytes",
        "reserve",
        "sum_to",
        "dot",
        "dot_adjoint_left",
        "dot_adjoint_right",
        "first_extreme_mask",
        "norm",
        "summed_lengths",
    )
)


@register_jitable
def summed_lengths(start, stop, offset, slope):
    """``sum(max(0, offset + slope * i) for i in range(start, stop))`` for a slope of 1 or
    -1, in constant time: the records of a triangular loop nest (``for i in range(n):
    for j in range(i + 1, n)``) counted without its loops. A plain function Numba
    inlines, so a counting function calls it compiled or in Python.

    >>> summed_lengths(0, 5, 4, -1) == sum(len(range(i + 1, 5)) for i in range(5))
    True
    >>> summed_lengths(2, 6, -1, 1) == sum(len(range(1, i)) for i in range(2, 6))
    True
    """
    if slope < 0:  # lengths offset - i, positive while i < offset
        low, high = start, min(stop, offset)
    else:  # lengths offset + i, positive once i > -offset
        low, high = max(start, 1 - offset), stop
    if high <= low:
        return 0
    first, last = offset + slope * low, offset + slope * (high - 1)
    return (high - low) * (first + last) // 2


ADVANCE, TAKESHOT, RESTORE, REVERSE = 0, 1, 2, 3


@helper
def _beta(snapshots, repetitions):
    """How many steps ``snapshots`` states reverse with ``repetitions`` re-runs: C(s+t, s)."""
    result = 1
    for k in range(1, snapshots + 1):
        result = result * (repetitions + k) // k
        if result > 2**60:
            return 2**60
    return result


@helper
def _split(length, free):
    """Where binomial checkpointing places the next snapshot in a range of ``length`` steps."""
    repetitions = 0
    while _beta(free, repetitions) < length:
        repetitions += 1
    right = min(_beta(free - 1, repetitions), length - 1)
    return max(1, length - right)


# Rows of a revolve schedule (:func:`revolve_schedule`): the current action, the
# control (frames in use, and an action queued behind the current one), the sweep
# of a range reversed without free slots, then the frames of the recursion.
_ACTION, _CONTROL, _SWEEP, _FRAMES = 0, 1, 2, 3


@helper
def revolve_schedule(steps, snapshots):
    """The binomial (revolve) schedule reversing ``steps`` loop iterations, made one
    action at a time by :func:`revolve_next`, in memory bounded by ``snapshots``: a
    small array, not one row per action (a million steps are differentiated in the
    memory of ten). Slot 0 holds the loop's entry state; at most ``snapshots`` slots
    are used at once.
    """
    # Frames of the recursion reverse(a, b, slot of a, free slots, stage), never more
    # than ``snapshots`` (each split spends one free slot on its right part).
    schedule = np.zeros((_FRAMES + max(snapshots, 1), 6), np.int64)
    if steps > 0:
        schedule[_FRAMES, 0], schedule[_FRAMES, 1], schedule[_FRAMES, 3] = 0, steps, snapshots - 1
        schedule[_CONTROL, 0] = 1
        _queue(schedule, RESTORE, 0, 0)
    return schedule


@helper
def revolve_next(schedule):
    """Put the schedule's next action in row 0, ``(action, first, last)``; False when
    none is left. ``ADVANCE`` runs iterations ``first..last-1`` of the primal,
    ``TAKESHOT``/``RESTORE`` slot ``first``, ``REVERSE`` iteration ``first`` (its
    forward part then its reverse part)."""
    if schedule[_CONTROL, 4] == 1:
        schedule[_CONTROL, 4] = 0
        return _emit(schedule, schedule[_CONTROL, 1], schedule[_CONTROL, 2], schedule[_CONTROL, 3])
    if schedule[_SWEEP, 0] == 1:
        return _sweep_next(schedule)
    depth = schedule[_CONTROL, 0]
    if depth == 0:
        return False
    top = _FRAMES + depth - 1
    a, b, slot, free, stage = (
        schedule[top, 0],
        schedule[top, 1],
        schedule[top, 2],
        schedule[top, 3],
        schedule[top, 4],
    )
    if stage == 1:
        # The right part is reversed; restore this range's start and do the left part,
        # re-entered as the fresh range [a, middle) (b holds middle in a stage-1 frame).
        schedule[top, 4] = 0
        return _emit(schedule, RESTORE, slot, a)
    schedule[_CONTROL, 0] = depth - 1
    if b - a == 1:
        return _emit(schedule, REVERSE, a, 0)
    if free == 0:  # no slot left: re-run from the range's start for every iteration
        schedule[_SWEEP, 0], schedule[_SWEEP, 1], schedule[_SWEEP, 2] = 1, b - 1, 0
        schedule[_SWEEP, 3], schedule[_SWEEP, 4], schedule[_SWEEP, 5] = a, b, slot
        return _sweep_next(schedule)
    middle = a + _split(b - a, free)
    # After the right part [middle, b) comes stage 1 of this range (the left part).
    _push(schedule, top, a, middle, slot, free, 1)
    _push(schedule, top + 1, middle, b, slot + 1, free - 1, 0)
    schedule[_CONTROL, 0] = depth + 1
    _queue(schedule, TAKESHOT, slot + 1, middle)
    return _emit(schedule, ADVANCE, a, middle)


@helper
def _sweep_next(schedule):
    """The next action of reversing [a, b) from slot ``slot`` without free slots: for
    each j from b - 1 down to a, restore (but the first time), advance to j, reverse j."""
    j, phase, a, b, slot = (
        schedule[_SWEEP, 1],
        schedule[_SWEEP, 2],
        schedule[_SWEEP, 3],
        schedule[_SWEEP, 4],
        schedule[_SWEEP, 5],
    )
    if phase == 0:
        schedule[_SWEEP, 2] = phase = 1
        if j != b - 1:
            return _emit(schedule, RESTORE, slot, a)
    if phase == 1:
        schedule[_SWEEP, 2] = 2
        if j > a:
            return _emit(schedule, ADVANCE, a, j)
    schedule[_SWEEP, 1], schedule[_SWEEP, 2] = j - 1, 0
    if j - 1 < a:
        schedule[_SWEEP, 0] = 0
    return _emit(schedule, REVERSE, j, 0)


@helper
def _emit(schedule, action, first, last):
    schedule[_ACTION, 0], schedule[_ACTION, 1], schedule[_ACTION, 2] = action, first, last
    return True


@helper
def _queue(schedule, action, first, last):
    schedule[_CONTROL, 1], schedule[_CONTROL, 2], schedule[_CONTROL, 3] = action, first, last
    schedule[_CONTROL, 4] = 1


@helper
def _push(schedule, row, a, b, slot, free, stage):
    schedule[row, 0], schedule[row, 1], schedule[row, 2] = a, b, slot
    schedule[row, 3], schedule[row, 4] = free, stage


@helper
def revolve_bytes(steps, snapshots):
    """The memory of :func:`revolve_schedule` reversing ``steps`` iterations (none for
    a loop that never ran: the reverse sweep skips it)."""
    return 48 * (_FRAMES + max(snapshots, 1)) if steps > 0 else 0


def __getattr__(name: str):
    """The vectorized ``exp`` and ``tanh`` of generated code, made on first use."""
    if name in vector_math.HELPERS:
        return getattr(vector_math, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

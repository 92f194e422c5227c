"""Rows of loop-invariant arrays in per-sample loops (tests/test_rows.py): where
``normalize/rows.py`` computes them ahead, where it must not; with the gradient checks of
tests/test_silent_wrong.py."""

import numpy as np
from scalarize_cases import mixture_terms

RNG = np.random.default_rng(11)


def vector_rows(w, x, s):
    """Rows of a vector are numbers: ``math``-free scalar chains, hoisted as arrays."""
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(w.shape[0]):
            e = np.tanh(w[c] * s) + 1.0
            total += (x[i] - w[c]) * e
    return total + e


def written_in_the_sample_loop(v, x):
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(v.shape[0]):
            z = (x[i] - v[c]) * np.exp(-0.3 * v[c])
            total += np.sum(z * z)
        v[i % 3, 0] = v[i % 3, 0] * 0.5
    return total


def halve_first_row(arr):
    arr[0] = arr[0] * 0.5


def written_by_a_helper(v, x):
    u = v * 1.0
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(u.shape[0]):
            z = (x[i] - u[c]) * np.exp(-0.3 * u[c])
            total += np.sum(z * z)
        halve_first_row(u)
    return total


def scalar_changes_in_the_sample_loop(v, x, s):
    total = 0.0
    for i in range(x.shape[0]):
        s = s * 0.9 + 0.1
        for c in range(v.shape[0]):
            z = (x[i] - v[c]) * np.exp(-s * v[c])
            total += np.sum(z * z)
    return total


def two_rows_combined(v, q, x):
    """``v[c] * q[c]``: rows of two reads, whose whole arrays need not broadcast alike."""
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(v.shape[0]):
            z = x[i] * (v[c] * q[c])
            total += np.sum(z)
    return total


def row_variable_in_the_chain(w, x, s):
    """``w[c] * s + c``: ``w * s`` is computed ahead, but the row loop's variable is no
    number invariant in the sample loop (a generator expression's loop, from the fuzzer)."""
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * max(w[c] * s + c for c in range(w.shape[0]))
    return total


def double_first(v):
    v[0] = v[0] * 2.0


def chain_value_written(A, x):
    """A chain value written in place: it would be a view of the whole array, the write
    building up over the sample loop (helper review)."""
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(A.shape[0]):
            t = np.exp(-A[c])
            t[0] = t[0] * 2.0
            u = np.exp(A[c] * 0.5)
            double_first(u)
            total += x[i] * (np.sum(t) + np.sum(u))
    return total


def unread_row(A, x):
    """The last row is never read: np.sqrt of its zero would make an infinite derivative,
    times a zero adjoint NaN (helper review)."""
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(A.shape[0] - 1):
            t = np.sqrt(A[c])
            total += x[i] * np.sum(t)
    return total


def rows_of_a_loop_that_may_not_run(A, x):
    """With no sample, np.log of a zero entry must not be taken (helper review)."""
    total = np.sum(A)
    for i in range(x.shape[0]):
        for c in range(A.shape[0]):
            total += x[i] * np.sum(np.log(A[c]))
    return total


def rows_after_a_break(A, x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            break
        for c in range(A.shape[0]):
            total += x[i] * np.sum(np.sqrt(A[c]))
    return total


MATRIX_ARGS = (RNG.random((3, 4)), RNG.random((3, 4)) - 0.5, RNG.random((5, 4)))
HOISTED = [
    (mixture_terms, MATRIX_ARGS, (0, 1)),
    (vector_rows, (RNG.random(3) - 0.5, RNG.random(4), 0.7), (0, 1, 2)),
    (row_variable_in_the_chain, (RNG.random(4) - 0.5, RNG.random(3), 0.7), (0, 1, 2)),
]
KEPT = [
    (written_in_the_sample_loop, (RNG.random((3, 4)), RNG.random((5, 4))), (0,)),
    (written_by_a_helper, (RNG.random((3, 4)), RNG.random((5, 4))), (0,)),
    (scalar_changes_in_the_sample_loop, (RNG.random((3, 4)), RNG.random((5, 4)), 0.8), (0, 2)),
    (two_rows_combined, (RNG.random((3, 1)), RNG.random((3, 4)), RNG.random((5, 4))), (0, 1)),
]
ZERO_ROW = np.array([[0.5, 0.2], [0.3, 0.7], [0.0, 0.4]])
KEPT += [
    (unread_row, (ZERO_ROW, np.array([0.3, 0.9])), (0, 1)),
    (rows_after_a_break, (ZERO_ROW + 0.1, np.array([0.3, 0.9, 0.2])), (0, 1)),
]
# -A is computed ahead, the chain values written in place are not.
PARTLY = [(chain_value_written, (RNG.random((3, 2)), RNG.random(4)), (0, 1))]
CASES = HOISTED + KEPT + PARTLY

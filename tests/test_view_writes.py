"""Views written in place (``view_writes.py``): a sliced view updated with ``op=``
(``inner = A[1:-1]; inner *= s``, a column ``col += ...``), a row written by element
(``row[0] = ...``), a loop over rows writing each (``for p in M: p[0] += ...``), and a
number read from a vector and rebound (``v = x[1]; v *= s``: ``x`` is unchanged). The
gradients with respect to the array and the number are checked against
Richardson-extrapolated central differences at two points, compiled and as plain Python;
the ambiguous ``row = A[i]; row *= s`` is refused, naming its line."""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def scaled_interior(A, s):
    A = A.copy()
    inner = A[1:-1]
    inner *= s
    return np.sum(A**2)


def row_element(A, s):
    A = A.copy()
    row = A[1]
    row[0] = row[2] * s
    return np.sum(A**2)


def particle_rows(M, s):
    M = M.copy()
    for p in M:
        p[0] += s * p[1]
    return np.sum(M**3)


def rebound_number(A, s):
    v = A[1, 2]
    v *= s
    return v + np.sum(A)


def column_update(M, s):
    M = M.copy()
    col = M[:, 1]
    col += s * M[:, 0]
    return np.sum(M**2)


FUNCTIONS = [scaled_interior, row_element, particle_rows, rebound_number, column_update]
POINTS = [(np.arange(12.0).reshape(4, 3) / 7, 1.5), (np.cos(np.arange(12.0)).reshape(4, 3), -0.7)]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", FUNCTIONS)
def test_views_written_in_place(func, jit):
    for args in POINTS:
        assert_gradient_matches(func, args, (0, 1), "auto", jit)


def ambiguous_row(A, s):
    row = A[1]
    row *= s
    return np.sum(A)


def test_an_integer_indexed_view_updated_with_op_writes_its_array():
    """``row = A[1]; row *= s`` (refused until the types told a row from a number)."""
    A = np.arange(6.0).reshape(3, 2)
    grad_a, grad_s = sd.grad(ambiguous_row, argnums=(0, 1))(A.copy(), 2.0)
    np.testing.assert_array_equal(grad_a, [[1.0, 1.0], [2.0, 2.0], [1.0, 1.0]])
    assert grad_s == A[1, 0] + A[1, 1]

"""Spellings of everyday code rewritten into the subset at parse time: the builtin
``pow``, ``math.fsum`` of a list comprehension, ``a.item()``, ``np.heaviside``,
``np.add.at`` with repeated indices (a number or one value per index), ``a.sort()`` in
place. Each gradient is checked against Richardson-extrapolated central differences at
two points, under store and recompute, compiled and as plain Python."""

import math

import numpy as np
import pytest
from reference import assert_gradient_matches

from sourcediff import library as sd_library


def powers(x):
    return np.sum(pow(x, 3)) + pow(x[0], 2.0) * pow(2.0, x[1])


def exact_sums(x):
    return math.fsum([v * v for v in x]) + math.fsum(np.sin(x))


def items(x):
    return (x[1:2] * 3.0).item() + np.outer(x, x).item(5) + np.sum(x)


def step_weighted(x):
    return np.sum(np.heaviside(x, 0.5) * x * x) + np.sum(np.heaviside(x - 0.4, 1.0) * x)


def scattered(x):
    out = np.zeros(3)
    np.add.at(out, np.array([0, 2, 2, 1]), x * x)  # index 2 twice: both add
    counts = np.zeros(3)
    np.add.at(counts, np.array([1, 1, 0]), 1.0)
    return np.sum(out**2 * (counts + 1.0))


def sorted_in_place(x):
    y = x * np.array([1.0, -2.0, 0.5, 3.0])
    y.sort()
    return np.sum(y * np.arange(1.0, 5.0))


FUNCTIONS = [powers, exact_sums, items, step_weighted, scattered, sorted_in_place]
POINTS = [np.array([0.3, -1.2, 0.7, 0.5]), np.array([1.1, 0.2, -0.4, 0.9])]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", FUNCTIONS)
def test_spellings_rewritten_at_parse(func, jit):
    for x in POINTS:
        for policy in ("store", "recompute"):
            assert_gradient_matches(func, (x,), 0, policy, jit)


def upper_triangle(x):
    m = np.outer(x, np.sin(x))
    iu = np.triu_indices(x.shape[0], 1)
    return np.sum(m[iu] ** 2) + np.sum(m[np.triu_indices(x.shape[0])])


def lower_triangle(x):
    m = np.outer(x, np.cos(x))
    r, c = np.tril_indices(x.shape[0], -1)
    return np.sum(m[r, c] * np.arange(r.shape[0]))


def test_triangle_indices_are_numpys():
    for n, k in [(4, 0), (4, 1), (5, -1), (3, 3), (3, -3)]:
        for ours, numpys in [(sd_library.numpy_triu_indices, np.triu_indices)]:
            np.testing.assert_array_equal(np.array(ours(n, k)), np.array(numpys(n, k)))
        ours = sd_library.numpy_tril_indices(n, k)
        np.testing.assert_array_equal(np.array(ours), np.array(np.tril_indices(n, k)))


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [upper_triangle, lower_triangle])
def test_gradients_through_triangle_indices(func, jit):
    for x in POINTS:
        assert_gradient_matches(func, (x,), 0, "auto", jit)

"""Index pairs unpacked from the rows of an integer array (``row_unpacking.py``):
``i, j = edges[e]``, ``for i, j in edges``, ``for (i, j), rest in zip(edges, lengths)``,
``for k, (i, j) in enumerate(edges)``, rows of points ``for px, py in P``, and a module
tuple of index pairs (``EDGES = ((0, 1), ...)``, read as a constant 2-D array). Each
gradient is checked against Richardson-extrapolated central differences at two points,
under store and recompute, compiled and as plain Python."""

import numpy as np
import pytest
from reference import assert_gradient_matches

EDGES = ((0, 1), (1, 2), (2, 3), (3, 0))


def spring_energy(x, edges, lengths):
    s = 0.0
    for (i, j), rest in zip(edges, lengths):
        s += (abs(x[i] - x[j]) - rest) ** 2
    return s


def indexed_pairs(x, edges, lengths):
    s = 0.0
    for e in range(edges.shape[0]):
        i, j = edges[e]
        s += lengths[e] * x[i] * x[j]
    return s


def weighted_by_position(x, edges, lengths):
    s = 0.0
    for k, (i, j) in enumerate(edges):
        s += (k + 1.0) * np.tanh(x[i] - lengths[k] * x[j])
    for i, j in edges:
        s += x[i] ** 2 * x[j]
    return s


def module_edges(x, edges, lengths):
    s = 0.0
    for i, j in EDGES:
        s += (x[i] - x[j]) ** 2
    return s * np.sum(lengths)


def point_rows(x, edges, lengths):
    points = np.outer(x, lengths[:2])
    s = 0.0
    for px, py in points:
        s += px * py**2
    a, b = points[1]
    return s + a * np.sin(b)


EDGE_ARRAY = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [1, 3]])
LENGTHS = np.array([0.5, 0.4, 0.3, 0.6, 0.2])
POINTS = [np.array([0.3, -1.2, 0.7, 0.5]), np.array([1.1, 0.2, -0.4, 0.9])]
FUNCTIONS = [spring_energy, indexed_pairs, weighted_by_position, module_edges, point_rows]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", FUNCTIONS)
def test_unpacked_rows(func, jit):
    for x in POINTS:
        for policy in ("store", "recompute"):
            assert_gradient_matches(func, (x, EDGE_ARRAY, LENGTHS), 0, policy, jit)

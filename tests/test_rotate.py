"""Sliding windows of stencil adjoints kept in numbers (transform/rotate.py, windows.py).

Exactness: each rewritten function gives bit for bit what the original gives, on random
inputs and on loops that run zero, one or two iterations. Refusals: what would change
the numbers (a negative index that wraps around, a second name for the array, rows that
may meet) is left alone. End to end: stencils written by a user, their gradients against
central differences under every policy, compiled and as Python.
"""

import ast
import math

import numpy as np
import pytest
from reference import array_central_difference, assert_close_arrays

import sourcediff as sd
from sourcediff.transform.rotate import rotate_window_elements

SCATTER_DOWN = """
def f(g, u_in, n):
    u_bar = np.copy(u_in)
    for i in range(n - 2, 0, -1):
        t = g[i] * 0.5
        u_bar[i + 1] += t
        u_bar[i] += 2.0 * t - u_bar[i + 1]
        u_bar[i - 1] += t * u_bar[i]
    return u_bar
"""

SCATTER_UP_WITH_GAP = """
def f(g, u_in, n):
    u_bar = np.copy(u_in)
    for i in range(2, n - 1):
        u_bar[i - 2] += g[i]
        u_bar[i + 1] = u_bar[i + 1] * 0.5 + u_bar[i - 2]
    return u_bar
"""

NAMED_OFFSET = """
def f(g, u_in, n):
    u_bar = np.copy(u_in)
    for i in range(n - 1, -1, -1):
        j = i + 1
        u_bar[i] += g[i]
        u_bar[j] += 3.0 * g[i] + u_bar[i]
    return u_bar
"""

ROWS = """
def f(g, B_in, m, r):
    B_bar = np.copy(B_in)
    for k in range(3):
        for j in range(m - 1, -1, -1):
            B_bar[k, j + 1] += g[j]
            B_bar[k + 1, j] += g[j] * B_bar[k + 1, j + 2]
            B_bar[k + 1, j + 2] += B_bar[k, j + 1]
    return B_bar
"""


def _compiled(source: str, rotate: bool, ranks: dict):
    function = ast.parse(source).body[0]
    if rotate:
        assert rotate_window_elements(function, ranks)
    namespace = {"np": np}
    exec(compile(ast.fix_missing_locations(ast.Module([function], [])), "<f>", "exec"), namespace)
    return namespace["f"], ast.unparse(function)


@pytest.mark.parametrize("source", [SCATTER_DOWN, SCATTER_UP_WITH_GAP, NAMED_OFFSET])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9])
def test_rotated_loops_give_the_same_bits(source, n):
    ranks = {"g": 1, "u_bar": 1}
    before, _ = _compiled(source, False, ranks)
    after, text = _compiled(source, True, ranks)
    rng = np.random.default_rng(n)
    g, u_bar = rng.normal(size=n + 1), rng.normal(size=n + 1)
    assert np.array_equal(before(g, u_bar, n), after(g, u_bar, n))
    assert "u_bar_0" in text or "u_bar_m2" in text


@pytest.mark.parametrize("m", [0, 1, 5])
def test_rows_of_a_matrix_rotated_apart(m):
    function = ast.parse(ROWS).body[0]
    original = ast.unparse(function)
    assert rotate_window_elements(function, {"g": 1, "B_bar": 2})
    assert "B_bar_k_1_p2" in ast.unparse(function)  # the row k + 1: offsets 0..2
    namespace = {"np": np}
    exec(original, namespace)
    before = namespace["f"]
    exec(ast.unparse(function), namespace)
    after = namespace["f"]
    rng = np.random.default_rng(m)
    g, B_bar = rng.normal(size=m + 2), rng.normal(size=(5, m + 3))
    assert np.array_equal(before(g, B_bar, m, 0), after(g, B_bar, m, 0))


@pytest.mark.parametrize(
    "source",
    [
        # the lowest index i - 1 reaches -1: the last element, not the one before 0
        "def f(g, n):\n    u_bar = np.zeros(n)\n    for i in range(n - 1, -1, -1):\n"
        "        u_bar[i] += g[i]\n        u_bar[i - 1] += g[i]\n    return u_bar",
        # another name for the array's memory
        "def f(g, n):\n    u_bar = np.zeros(n)\n    w = u_bar\n    for i in range(n - 1, 0, -1):\n"
        "        u_bar[i] += g[i]\n        u_bar[i - 1] += w[i]\n    return u_bar",
        # a parameter may share memory with anything
        "def f(g, u_bar, n):\n    for i in range(n - 1, 0, -1):\n"
        "        u_bar[i] += g[i]\n        u_bar[i - 1] += g[i]\n    return u_bar",
        # rows r and s may be the same row
        "def f(g, n, r, s):\n    B = np.zeros((n, n))\n    for j in range(n - 1, 0, -1):\n"
        "        B[r, j] += g[j]\n        B[s, j - 1] += B[r, j - 1]\n    return B",
        # the array goes into a call in the loop
        "def f(g, n):\n    u_bar = np.zeros(n)\n    for i in range(n - 1, 0, -1):\n"
        "        u_bar[i] += g[i]\n        u_bar[i - 1] += np.sum(u_bar)\n    return u_bar",
    ],
    ids=["wraps", "second-name", "parameter", "rows-may-meet", "whole-array"],
)
def test_left_alone(source):
    function = ast.parse(source).body[0]
    assert not rotate_window_elements(function, {"g": 1, "u_bar": 1, "w": 1, "B": 2})


def sweep(u0, c, steps):
    """Gauss-Seidel-like in-place sweeps down and up: scatters in both directions."""
    u = u0.copy()
    n = u.shape[0]
    for _ in range(steps):
        for i in range(n - 2, 0, -1):
            u[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        for i in range(1, n - 1):
            u[i] = u[i] + c * math.sin(u[i - 1] - u[i + 1])
    return np.sum(u * u)


def periodic(u0, c, steps):
    """A periodic stencil: u[i - 1] at i = 0 is the last element (no rotation there)."""
    u = u0.copy()
    v = np.empty_like(u)
    n = u.shape[0]
    for _ in range(steps):
        for i in range(n):
            v[i] = u[i] + c * (u[i - 1] - u[i])
        u, v = v, u
    return np.sum(u * u * u)


def plate(A0, c, steps):
    """A 2-D five-point stencil on a plate, interior only, two buffers."""
    A = A0.copy()
    B = A0.copy()
    for _ in range(steps):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                B[i, j] = A[i, j] + c * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        A, B = B, A
    return np.sum(A * A)


CASES = [
    (sweep, lambda rng: (rng.normal(size=9), 0.3, 3)),
    (periodic, lambda rng: (rng.normal(size=7), 0.4, 4)),
    (plate, lambda rng: (rng.normal(size=(5, 6)), 0.1, 3)),
]
POLICIES = ["store", "recompute", "auto", sd.Checkpoint(snapshots=2)]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(("func", "make"), CASES, ids=[c[0].__name__ for c in CASES])
def test_stencil_gradients(func, make, policy, jit):
    for seed in (1, 2):
        args = make(np.random.default_rng(seed))
        got = sd.grad(func, argnums=(0, 1), policy=policy, jit=jit)(*args)
        want = array_central_difference(func, args, (0, 1))
        assert_close_arrays(got, want, rtol=1e-7, atol=1e-9, context=f"{policy} seed {seed}")


def test_the_adjoints_keep_their_windows_in_numbers():
    args = CASES[0][1](np.random.default_rng(1))
    source = sd.adjoint_source(sweep, argnums=(0, 1), args=args)
    assert "u_bar_p1" in source and "u_bar_m1" in source


CONSTANT_BOUNDS = SCATTER_DOWN.replace("range(n - 2, 0, -1)", "range(7, 0, -1)")


def test_a_loop_with_constant_bounds_runs_unguarded():
    """Bounds known to run (``range(7, 0, -1)``) need no ``if 7 > 0:`` around the window;
    the values are the same bits."""
    ranks = {"g": 1, "u_bar": 1}
    before, _ = _compiled(CONSTANT_BOUNDS, False, ranks)
    after, text = _compiled(CONSTANT_BOUNDS, True, ranks)
    assert "if " not in text and "u_bar_0" in text
    rng = np.random.default_rng(8)
    g, u_bar = rng.normal(size=9), rng.normal(size=9)
    assert np.array_equal(before(g, u_bar, 9), after(g, u_bar, 9))

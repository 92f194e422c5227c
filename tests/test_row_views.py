"""Rows of an array written in place through a name: ``row = B[i]; row *= s`` and
``for row in M: row += b`` (once refused: sourcediff could not tell, before the types,
whether ``row`` is a view of a matrix or a number taken from a vector).

A view by integers and slices is written through to its array; a number taken from a
vector is rebound, the vector unchanged, as in Python; a gather by an index array stays
a copy (once refused). Gradients against closed forms, and against Richardson-extrapolated central
differences at two points, under every policy as plain Python and compiled under
"auto" (the fuzzer's ``rows_written_in_place`` form runs the rest: tests/fuzzing/extras.py).
"""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def scaled_rows(A, s):
    B = A.copy()
    for i in range(B.shape[0]):
        row = B[i]
        row *= s
    return np.sum(B * B)


def shifted_rows(M, b):
    N = M.copy()
    for row in N:
        row += b
    return np.sum(np.sin(N))


def numbers_of_a_vector(x, c):
    s = 0.0
    for v in x:
        v += c
        v *= v
        s += v
    return s + np.sum(x * x)


def rows_read_after_their_write(M, b):
    N = M.copy()
    s = 0.0
    for row in N:
        row += b
        row *= row[0]
        s += np.sum(row * row)
    return s + np.sum(np.sin(N))


def particles_advanced_in_place(P, dt):
    X = P.copy()
    V = np.cos(P)
    for _ in range(3):
        for i in range(X.shape[0]):
            x = X[i]
            x += dt * V[i]
            V[i] = V[i] - dt * np.sin(x)
    return np.sum(X * X) + np.sum(V)


def element_and_slice_writes_through_a_row(A, s):
    B = A.copy()
    t = 0.0
    for i in range(B.shape[0]):
        row = B[i]
        row *= s
        t += np.sum(row * row)
        row[1:] = row[1:] + s * row[0]
    return t + np.sum(np.sin(B))


def gathered_rows(A, s):
    B = A.copy()
    rows = B[np.array([1, 0])]  # a copy: writing it leaves B alone
    rows *= s
    return np.sum(rows * B[:2])


def _matrix(seed):
    return np.random.default_rng(seed).uniform(-1.0, 1.0, (3, 4))


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_rows_scaled_and_shifted_match_closed_forms(policy):
    A, s, b = _matrix(0), 1.3, np.array([0.1, -0.2, 0.3, 0.05])
    grad_a, grad_s = sd.grad(scaled_rows, argnums=(0, 1), policy=policy, jit=False)(A, s)
    np.testing.assert_allclose(grad_a, 2.0 * s * s * A, rtol=1e-12)
    np.testing.assert_allclose(grad_s, 2.0 * s * np.sum(A * A), rtol=1e-12)
    grad_m, grad_b = sd.grad(shifted_rows, argnums=(0, 1), policy=policy, jit=False)(A, b)
    np.testing.assert_allclose(grad_m, np.cos(A + b), rtol=1e-12)
    np.testing.assert_allclose(grad_b, np.cos(A + b).sum(axis=0), rtol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_numbers_of_a_vector_are_rebound_and_the_vector_kept(jit):
    x, c = np.array([0.5, -1.0, 2.0]), 0.25
    kept = x.copy()
    value, (grad_x, grad_c) = sd.value_and_grad(numbers_of_a_vector, argnums=(0, 1), jit=jit)(x, c)
    assert value == pytest.approx(np.sum((x + c) ** 2) + np.sum(x * x), rel=1e-14)
    np.testing.assert_allclose(grad_x, 2.0 * (x + c) + 2.0 * x, rtol=1e-14)
    assert grad_c == pytest.approx(2.0 * np.sum(x + c), rel=1e-14)
    np.testing.assert_array_equal(x, kept)


CASES = [
    rows_read_after_their_write,
    particles_advanced_in_place,
    element_and_slice_writes_through_a_row,
]


def _args(func, seed):
    second = np.array([0.1, -0.2, 0.3, 0.05]) if func is rows_read_after_their_write else 0.7
    return _matrix(seed), second


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
def test_rows_written_through_match_central_differences(func, policy):
    for seed in (1, 2):
        assert_gradient_matches(func, _args(func, seed), (0, 1), policy, jit=False)


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
def test_rows_written_through_compiled(func):
    assert_gradient_matches(func, _args(func, 3), (0, 1), "auto", jit=True)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_gathered_copy_written_in_place_leaves_its_array(jit):
    """``B[index_array]`` is a copy (once refused as a view): f = 2 s sum(B0 * B1)."""
    B, s = _matrix(4), 0.5
    grad_b, grad_s = sd.grad(gathered_rows, argnums=(0, 1), jit=jit)(B, s)
    np.testing.assert_allclose(grad_b[:2], 2.0 * s * B[[1, 0]], rtol=1e-14)
    np.testing.assert_array_equal(grad_b[2], 0.0)
    assert grad_s == pytest.approx(2.0 * np.sum(B[0] * B[1]), rel=1e-14)


def numbers_of_a_tuple(x, c):
    t = (x, 2.0 * x, 0.5)
    s = 0.0
    for v in t:
        v += c
        s += v * v
    return s


def test_a_tuple_loop_rebinding_its_variable_runs_once_per_element():
    """The loop over ``t`` is unrolled (normalize/tuple_displays): each copy of ``v``
    is its own number. f = (x + c)^2 + (2x + c)^2 + (0.5 + c)^2."""
    x, c = 1.5, 0.2
    expected = (2 * (x + c) + 4 * (2 * x + c), 2 * (x + c) + 2 * (2 * x + c) + 2 * (0.5 + c))
    for jit in (False, True):
        got = sd.grad(numbers_of_a_tuple, argnums=(0, 1), jit=jit)(x, c)
        np.testing.assert_allclose(got, expected, rtol=1e-14)

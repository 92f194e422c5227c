"""A guard clause (``if c: return a`` and more statements) is read as an if/else
(normalize/exits.py): the result is bound on every path, no flag is recorded, and the
gradient is the one central differences give, under every policy. A branch whose test
is a constant the types stage decides (normalize/known_tests.py) is dropped."""

import math

import numpy as np
import pytest

import sourcediff as sd


def _rotate(a, x):
    """Rotate ``x`` by the angle ``a``, first order about zero (BA's Rodrigues helper)."""
    if a != 0.0:
        c = math.cos(a)
        s = math.sin(a)
        return c * x - s * a, s * x + c * a
    return x - a * a, a * x + a  # the first branch to first order at zero


def _total(angles, xs):
    total = 0.0
    for i in range(angles.shape[0]):
        u, v = _rotate(angles[i], xs[i])
        total += u * u + 0.5 * v
    return total


POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_guard_clause_in_a_loop_against_central_differences(policy, jit):
    angles = np.array([0.3, 0.0, -1.1, 0.0, 2.0])  # both branches, in turn
    xs = np.array([1.0, -0.5, 0.25, 2.0, -1.5])
    sd.check_grad(_total, angles, xs, argnums=(0, 1), policy=policy, jit=jit)


def test_guard_clause_leaves_no_returned_flag():
    angles, xs = np.array([0.3, 0.0]), np.array([1.0, 2.0])
    text = sd.adjoint_source(_total, argnums=(0, 1), args=(angles, xs))
    assert "returned" not in text
    assert "else:" in text


def _dead_branch(x0, a, m):
    """The ``elif`` never runs: its temporaries are bound on no path (fuzz seed 109002,
    compiled: Numba could not type them before known_tests decided the branch)."""
    s1 = x0 * x0
    if (s1 - s1) < a[2]:
        a[:-1] = 0.5 * a[1:]
    elif (-1.31) > 0.2:
        s1 = np.sum(np.max(m, axis=0) * a) + np.sum(a[a > 0.0])
    else:
        x0 = x0 + 0.1 * np.sum(a)
    return x0 + s1 + np.sum(a * a)


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_a_branch_a_constant_test_never_takes_is_dropped(jit):
    m = np.full((4, 4), 0.5)
    for a in (np.array([0.3, -0.2, 0.5, 0.1]), np.array([0.3, -0.2, -0.5, 0.1])):
        sd.check_grad(_dead_branch, 1.2, a, m, argnums=(0, 1), jit=jit)

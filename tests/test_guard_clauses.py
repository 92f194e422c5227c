"""A guard clause (``if c: return a`` and more statements) is read as an if/else
(normalize/exits.py): the result is bound on every path, no flag is recorded, and the
gradient is the one central differences give, under every policy."""

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

"""Regressions of silently wrong gradients, under every policy, verified and compiled.

Each program is checked against central differences (``sd.check_grad``) in
plain Python with the verifier on (every primal value the reverse sweep reads
is compared with the forward sweep's), under all four policies, and compiled
under the default policy. Closed forms pin down the two simplest.
"""

import numpy as np
import pytest
from silent_wrong_cases import CASES, dot_then_overwrite, growing_slices

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
IDS = [case[0].__name__ for case in CASES]


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=IDS)
def test_verified_gradient_matches_finite_differences(func, args, argnums, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    sd.check_grad(func, *_copied(args), argnums=argnums, policy=policy, jit=False)


@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=IDS)
def test_compiled_gradient_matches_finite_differences(func, args, argnums):
    sd.check_grad(func, *_copied(args), argnums=argnums)


def test_closed_forms():
    a = np.array([1.0, 2.0, 3.0])
    # t = a.a read before a[0] is zeroed: d/da = 2a + [0, 1, 1].
    assert np.allclose(sd.grad(dot_then_overwrite, jit=False)(a.copy()), [2.0, 5.0, 7.0])
    A = np.arange(1.0, 10.0).reshape(3, 3)
    # s = sum_i |A[i, :i]|^2: d/dA = 2A strictly below the diagonal.
    expected = np.tril(2.0 * A, -1)
    assert np.allclose(sd.grad(growing_slices)(A), expected)

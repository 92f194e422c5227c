"""Constructs of public scientific code, against Richardson-extrapolated differences,
under every policy with the verifier on (plain Python) and compiled."""

import numpy as np
import pytest
from construct_cases import CASES, prod_with_zero
from fuzzing.reference import reference_gradient

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
IDS = [case[0].__name__ for case in CASES]


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def _assert_matches_reference(func, args, argnums, **options):
    expected, stable = reference_gradient(func, _copied(args), argnums)
    assert stable
    got = sd.grad(func, argnums=argnums, **options)(*_copied(args))
    for mine, theirs in zip(got, expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=IDS)
def test_verified_python(func, args, argnums, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    _assert_matches_reference(func, args, argnums, policy=policy, jit=False)


@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=IDS)
def test_compiled(func, args, argnums):
    _assert_matches_reference(func, args, argnums)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_prod_over_a_zero_element_is_exact(jit):
    """d prod(x) / dx_k is the product of the others: no 0 / 0 where x has a zero."""
    x = np.array([0.5, 0.0, 2.0])
    expected = np.array([0.0, 1.0, 0.0]) + 2.0 * x * np.prod(x * x + 1.0) / (x * x + 1.0)
    np.testing.assert_allclose(sd.grad(prod_with_zero, jit=jit)(x), expected, rtol=1e-12)

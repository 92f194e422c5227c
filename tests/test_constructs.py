"""Constructs of public scientific code, against Richardson-extrapolated differences,
under every policy with the verifier on (plain Python) and compiled (a rotating share of
the cells unless ``SOURCEDIFF_FULL_SUITE=1``: tests/scope.py)."""

import numpy as np
import pytest
from construct_cases import CASES, prod_with_zero
from fuzzing.reference import reference_gradient
from scope import case_policy_pairs, every_third

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


PAIRS = case_policy_pairs(CASES, POLICIES, share=1)  # each case under one policy, rotating


@pytest.mark.parametrize(
    ("case", "policy"), [pytest.param(c, p, id=f"{c[0].__name__}-{p}") for c, p in PAIRS]
)
def test_verified_python(case, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    func, args, argnums = case
    _assert_matches_reference(func, args, argnums, policy=policy, jit=False)


# A third of the cases compiled (all with SOURCEDIFF_FULL_SUITE=1): Numba's typing of the library
# code they call, the same in each, is most of their time (tests/scope.py).
@pytest.mark.parametrize(("func", "args", "argnums"), every_third(CASES), ids=every_third(IDS))
def test_compiled(func, args, argnums):
    _assert_matches_reference(func, args, argnums)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_prod_over_a_zero_element_is_exact(jit):
    """d prod(x) / dx_k is the product of the others: no 0 / 0 where x has a zero."""
    x = np.array([0.5, 0.0, 2.0])
    expected = np.array([0.0, 1.0, 0.0]) + 2.0 * x * np.prod(x * x + 1.0) / (x * x + 1.0)
    np.testing.assert_allclose(sd.grad(prod_with_zero, jit=jit)(x), expected, rtol=1e-12)

"""NPBench/PolyBench-style kernels (``npbench_cases.py``) against Richardson-extrapolated
differences: every policy with the verifier on (plain Python), and compiled."""

import numpy as np
import pytest
from fuzzing.reference import reference_gradient
from npbench_cases import CASES
from scope import every_third

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
IDS = [case[0].__name__ for case in CASES]
COMPILED = every_third(CASES)  # all of them with SOURCEDIFF_FULL_SUITE=1 (tests/scope.py)


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


def _check(func, args, argnums, **options):
    expected, stable = reference_gradient(func, _copied(args), argnums)
    assert stable
    got = sd.grad(func, argnums=argnums, **options)(*_copied(args))
    for mine, theirs in zip(got, expected):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=IDS)
def test_verified_python(func, args, argnums, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    _check(func, args, argnums, policy=policy, jit=False)


@pytest.mark.parametrize(
    ("func", "args", "argnums"), COMPILED, ids=[c[0].__name__ for c in COMPILED]
)
def test_compiled(func, args, argnums):
    _check(func, args, argnums)


def test_caller_arrays_end_as_with_the_plain_kernel():
    """gemm and syrk update C in place: the gradient call leaves it as the kernel does."""
    for func, args, argnums in CASES[:1] + CASES[7:8]:
        mine, plain = _copied(args), _copied(args)
        sd.grad(func, argnums=argnums, jit=False)(*mine)
        func(*plain)
        for a, b in zip(mine, plain):
            np.testing.assert_array_equal(a, b)

"""Regressions of silently wrong gradients, under every policy, verified and compiled.

Each program is checked against central differences (``sd.check_grad``) in
plain Python with the verifier on (every primal value the reverse sweep reads
is compared with the forward sweep's), under all four policies (two per case, rotating,
unless ``SOURCEDIFF_FULL_SUITE=1``: tests/scope.py), and compiled under the default
policy (a third of them, unless ``SOURCEDIFF_FULL_SUITE=1``). Closed forms pin down the two
simplest.
"""

import inspect

import numpy as np
import pytest
from rows_cases import CASES as ROWS_CASES
from scope import case_policy_pairs, every_third
from silent_wrong_cases import (
    CASES,
    REFUSED,
    dot_then_overwrite,
    growing_slices,
    sub_cycled_for,
    sub_cycled_while,
)

import sourcediff as sd
from sourcediff import compile as compile_stage

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
CASES = CASES + ROWS_CASES  # rows of invariant arrays computed ahead (tests/test_rows.py)
IDS = [case[0].__name__ for case in CASES]


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize(
    ("case", "policy"),
    [pytest.param(c, p, id=f"{c[0].__name__}-{p}") for c, p in case_policy_pairs(CASES, POLICIES)],
)
def test_verified_gradient_matches_finite_differences(case, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    func, args, argnums = case
    sd.check_grad(func, *_copied(args), argnums=argnums, policy=policy, jit=False)


@pytest.mark.parametrize(("func", "args", "argnums"), every_third(CASES), ids=every_third(IDS))
def test_compiled_gradient_matches_finite_differences(func, args, argnums):
    sd.check_grad(func, *_copied(args), argnums=argnums)


@pytest.mark.parametrize(
    ("func", "args"),
    [
        (sub_cycled_while, (np.array([-4.5, 2.5, -20.5]),)),
        (sub_cycled_for, (np.array([0.3, -0.7, 1.1]), np.array([15, 1, 17]))),
    ],
    ids=["while", "for"],
)
def test_growable_tape_compiled_under_store(func, args):
    """Compiled, Numba does not bounds-check: the tape overrun was a silent inf or garbage
    under "store" (the default-policy test above covers "auto")."""
    sd.check_grad(func, *_copied(args), argnums=(0,), policy="store")


def test_closed_forms():
    a = np.array([1.0, 2.0, 3.0])
    # t = a.a read before a[0] is zeroed: d/da = 2a + [0, 1, 1].
    assert np.allclose(sd.grad(dot_then_overwrite, jit=False)(a.copy()), [2.0, 5.0, 7.0])
    A = np.arange(1.0, 10.0).reshape(3, 3)
    # s = sum_i |A[i, :i]|^2: d/dA = 2A strictly below the diagonal.
    expected = np.tril(2.0 * A, -1)
    assert np.allclose(sd.grad(growing_slices)(A), expected)


@pytest.mark.parametrize(("func", "args", "line", "keyword"), REFUSED, ids=lambda c: str(c)[:20])
def test_refused_with_the_line_before_compiling(func, args, line, keyword, monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("compiled a refused function")

    for name in ["write_module", "import_module", "compiled"]:
        monkeypatch.setattr(compile_stage, name, forbidden)
    lines, first = inspect.getsourcelines(func)
    number = first + next(k for k, text in enumerate(lines) if line in text)
    with pytest.raises(sd.SourceDiffError) as info:
        sd.grad(func, argnums=0)(*args)
    head = str(info.value).splitlines()[0]
    assert head.startswith(f"silent_wrong_cases.py:{number}:") and keyword in head

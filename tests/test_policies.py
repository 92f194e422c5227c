"""Every policy gives the same gradient to rounding, on the whole test corpus.

Each case of the scalar and array corpora is differentiated under ``store``,
``recompute`` and binomial checkpointing with 1 and 3 snapshots (as plain
Python, which runs the very same generated source as the compiled form) with the
verifier on, and compared with the default policy to 1e-12 relative (one of the four
policies per case, rotating, unless ``SOURCEDIFF_FULL_SUITE=1``: tests/scope.py). A few
are also compiled.
"""

import corpus_arrays
import corpus_scalar
import golden_functions as g
import numpy as np
import pytest
from scope import case_policy_pairs

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=1), sd.Checkpoint(snapshots=3)]
CASES = corpus_scalar.CASES + corpus_arrays.CASES


def _copied(point):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in point)


def _as_tuple(grad):
    return grad if isinstance(grad, tuple) else (grad,)


def _assert_same(actual, expected, context):
    for a, e in zip(_as_tuple(actual), _as_tuple(expected)):
        # "To rounding": 1e-12 in double precision, a few ulps for float32 gradients.
        tolerance = 1e-5 if np.asarray(e).dtype == np.float32 else 1e-12
        a, e = np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)
        scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
        assert np.all(np.abs(a - e) <= tolerance * scale), f"{context}: {a} != {e}"


PAIRS = case_policy_pairs(CASES, POLICIES, share=1)  # each case under one policy, rotating


@pytest.mark.parametrize(
    ("case", "policy"), [pytest.param(c, p, id=f"{c.name}-{p}") for c, p in PAIRS]
)
def test_policy_gives_the_default_gradient(case, policy, monkeypatch):
    # The verifier checks every primal value each reverse sweep reads (sourcediff/verify.py).
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    default = sd.grad(case.func, argnums=case.argnums, jit=False)
    other = sd.grad(case.func, argnums=case.argnums, policy=policy, jit=False)
    for point in case.points[:2]:
        expected = default(*_copied(point))
        _assert_same(other(*_copied(point)), expected, f"{case.name}{point} {policy}")


COMPILED = [
    (g.series, (1.5, 0.3, 40), (0, 1)),
    (g.logistic, (2.0, 0.1, 300), (0, 1)),
    (g.first_crossing, (0.5, 3.0), (0, 1)),
    (g.heat, (np.linspace(0.0, 1.0, 16), 0.2, 50), (0, 1)),
]


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(
    ("func", "args", "argnums"), COMPILED, ids=[c[0].__name__ for c in COMPILED]
)
def test_compiled_policies_agree(func, args, argnums, policy):
    expected = sd.grad(func, argnums=argnums)(*_copied(args))
    actual = sd.grad(func, argnums=argnums, policy=policy)(*_copied(args))
    _assert_same(actual, expected, f"{func.__name__} {policy}")


def test_checkpointing_a_long_loop_with_one_snapshot_is_still_exact():
    expected = sd.grad(g.logistic, argnums=(0, 1))(2.0, 0.1, 2000)
    actual = sd.grad(g.logistic, argnums=(0, 1), policy=sd.Checkpoint(snapshots=1))(2.0, 0.1, 2000)
    _assert_same(actual, expected, "logistic, 1 snapshot")


def test_policy_is_validated():
    with pytest.raises(sd.ArgumentError):
        sd.grad(g.series, policy="fast")
    with pytest.raises(sd.ArgumentError):
        sd.Checkpoint(snapshots=0)

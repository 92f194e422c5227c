"""A root, logarithm, inverse cosine or array quotient at a point where its partial is
infinite, whose result is never used, contributes exactly 0, not 0 * inf = NaN: the
self-distance of a masked pairwise distance, ``np.where`` guarding ``np.sqrt`` (the
"double where" of JAX), a pair loop that skips ``i == j`` after the root, a masked
``np.log(0)`` or ``1.0 / 0.0`` (rows marked in ``rule.STRONG_ZERO``). Checked against
Richardson-extrapolated central differences, under store and recompute, compiled and as
plain Python, and in forward mode; a used root at 0 still has its infinite derivative."""

import math
import warnings

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def masked_self_distance(x):
    r = np.sqrt((x - x[0]) ** 2)  # r[0] is 0 and never read
    return np.sum(1.0 / r[1:])


def guarded_root(x):
    return np.sum(np.where(x > 0, np.sqrt(np.maximum(x, 0.0)), 0.0))


def pair_energy(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            r = math.sqrt((x[i] - x[j]) ** 2)
            if i != j:
                s += 1.0 / r
    return s


def pairwise_off_diagonal(p):
    d = p[:, None, :] - p[None, :, :]
    r = np.sqrt(np.sum(d * d, axis=-1))
    return np.sum(r[~np.eye(p.shape[0], dtype=np.bool_)] ** 3)


def masked_self_log(x):
    d = (x - x[0]) ** 2  # d[0] is exactly 0 at every x
    return np.sum(np.where(d > 0, np.log(d), 0.0))


def masked_self_reciprocal(x):
    d = x - x[0]
    return np.sum(np.where(d != 0, 1.0 / d, 0.0) ** 2)


def masked_self_angle(x):
    c = np.cos(x - x[0])  # c[0] is exactly 1, where arccos has an infinite slope
    return np.sum(np.where(c < 1.0, np.arccos(c), 0.0))


def masked_fractional_power(x):
    d = (x - x[0]) ** 2
    return np.sum(np.where(d > 0, d**0.25, 0.0))


def masked_quotient_of_root(x):
    d = (x - x[0]) ** 2  # an elementwise chain scalarized into one loop: d / sqrt(d) per element
    return np.sum(np.where(d > 0, d / np.sqrt(d), 0.0))


MASKED = [masked_self_distance, guarded_root, masked_self_log, masked_self_reciprocal]
MASKED += [masked_self_angle, masked_fractional_power, masked_quotient_of_root]

POINTS = [np.array([1.0, 2.0, 0.5, -0.3]), np.array([-0.4, 0.9, 1.7, 0.2])]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", MASKED + [pair_energy])
def test_an_unused_root_at_zero_contributes_nothing(func, jit):
    for x in POINTS:
        for policy in ("store", "recompute"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 0.5 / 0 as Python
                assert_gradient_matches(func, (x,), 0, policy, jit)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_masked_pairwise_distances(jit):
    p = np.array([[0.1, 0.5], [0.9, -0.3], [0.4, 0.8]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_gradient_matches(pairwise_off_diagonal, (p,), 0, "auto", jit)


@pytest.mark.parametrize("func", MASKED)
def test_a_zero_tangent_through_an_unbounded_partial_carries_nothing(func):
    for x in POINTS:
        v = np.linspace(-0.7, 1.1, x.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            _, tangent = sd.jvp(func, (x,), (v,))
            gradient = sd.grad(func)(x)
        assert np.isfinite(tangent)
        assert math.isclose(tangent, float(gradient @ v), rel_tol=1e-9, abs_tol=1e-12)


def used_root(x):
    return math.sqrt(x) + x


def test_a_used_root_at_zero_keeps_its_infinite_derivative():
    assert sd.grad(used_root)(0.0) == math.inf  # compiled: 0.5 / 0.0 * 1.0
    with pytest.raises(sd.SourceDiffError, match="division by zero"):
        sd.grad(used_root, jit=False)(0.0)  # Python's ZeroDivisionError, with the line

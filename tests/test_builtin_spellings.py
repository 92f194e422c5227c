"""More everyday spellings that were refused, now differentiated: the builtin ``max``/
``min`` of one array or one tuple, ``math.hypot`` of three numbers, truth values and
counts (``np.any``, ``.all()``, ``np.count_nonzero``, ``np.searchsorted``) deciding
branches and scaling results, ``np.eye`` with ``M`` and ``k``, nested ``for _ in``
loops, keyword-only and positional-only parameters (bound by name from Python and
from a calling function), ``for v in reversed(x)`` and ``float("inf")``.

Each gradient is checked against Richardson-extrapolated central differences at two
points, under store and recompute, compiled and as plain Python.
"""

import math

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def extremes_of_arrays(x, c):
    top = max(x * c)  # the builtin over an array: np.max
    low = min((x[0], c, x[1] * x[2]))  # over a tuple: min of its numbers
    return top * low + math.hypot(x[0], c, x[-1], 0.5)


def counted_and_decided(x, c):
    total = 0.0
    if np.any(x > c):
        total += np.sum(np.sin(x))
    if (x * c < 2.0).all():
        total += c * np.sum(x * x)
    bins = np.array([-0.5, 0.0, 0.5])
    slot = np.searchsorted(bins, x[0])
    return total * np.count_nonzero(x > 0.0) + x[1] * slot + c * slot


def shifted_identities(x, c):
    n = x.shape[0]
    above = np.eye(n, k=1)
    wide = np.eye(n, n + 1, -1)
    y = above @ x + c * (wide.T @ x)[:n]
    return np.sum(y * y)


def repeated_sweeps(x, c):
    for _ in range(2):
        for _ in range(3):
            x = np.tanh(c * x) + 0.1 * x
    for _ in range(2):
        x = x * c
    return np.sum(x)


def keyword_only(x, c, *, power=2.0, shift=0.5):
    return np.sum((x + shift) ** power) * c


def positional_only(x, c, /, scale=1.5):
    return keyword_only(x, c, power=3.0) + scale * np.sum(x * c)


def reversed_and_infinite(x, c):
    acc, best, worst = 0.0, float("inf"), float("-inf")
    for v in reversed(x):  # an array backwards: x[::-1]
        acc = acc * c + v
        if v * c < best:
            best = v * c
        worst = max(worst, v * v)
    return acc + best + worst


def _points(n, seed):
    return np.random.default_rng(seed).uniform(-0.9, 0.9, n)


CASES = {
    "extremes_of_arrays": (extremes_of_arrays, lambda k: (_points(4, k), 0.6 + k)),
    "counted_and_decided": (counted_and_decided, lambda k: (_points(4, k), 0.3 - 0.5 * k)),
    "shifted_identities": (shifted_identities, lambda k: (_points(4, k), 0.7 + k)),
    "repeated_sweeps": (repeated_sweeps, lambda k: (_points(3, k), 0.8 + 0.3 * k)),
    "keyword_only": (keyword_only, lambda k: (_points(3, k), 1.2 - k)),
    "positional_only": (positional_only, lambda k: (_points(3, k), 0.4 + k)),
    "reversed_and_infinite": (reversed_and_infinite, lambda k: (_points(4, k), 0.7 + k)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_of_builtin_spellings(case, jit):
    func, make_args = CASES[case]
    for seed in (0, 1):
        for policy in ("store", "recompute"):
            assert_gradient_matches(func, make_args(seed), (0, 1), policy, jit)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_keyword_only_parameters_bind_by_name(jit):
    x = _points(3, 2)
    grad_x, grad_c = sd.grad(keyword_only, argnums=(0, 1), jit=jit)(x, 0.7, shift=-0.25)
    assert grad_x == pytest.approx(0.7 * 2.0 * (x - 0.25), rel=1e-13)
    assert grad_c == pytest.approx(np.sum((x - 0.25) ** 2), rel=1e-13)
    value = sd.jit(keyword_only)(x, 0.7, power=3.0)
    assert value == pytest.approx(keyword_only(x, 0.7, power=3.0), rel=1e-14)


def test_a_keyword_only_parameter_that_plain_ones_cannot_say_is_refused():
    def needs_a_default(x, c=1.0, *, scale):
        return scale * x * c

    with pytest.raises(sd.SourceDiffError, match="keyword-only"):
        sd.grad(needs_a_default)(1.5, scale=2.0)


def keyword_scaled(x, *, scale=2.0, shift=0.5):
    return np.sum(np.sin(x * scale) + shift * x)


def test_keyword_only_parameters_in_every_transform():
    x, closed_form = np.array([0.3, 0.7]), lambda s, c: s * np.cos(s * x) + c
    np.testing.assert_allclose(sd.vjp(keyword_scaled, x)[1](1.0)[0], closed_form(2.0, 0.5))
    _, tangent = sd.jvp(keyword_scaled, (x,), (np.ones(2),))
    assert tangent == pytest.approx(np.sum(closed_form(2.0, 0.5)))
    np.testing.assert_allclose(sd.jacobian(keyword_scaled)(x), closed_form(2.0, 0.5))
    np.testing.assert_allclose(sd.grad(keyword_scaled)(x, scale=3.0), closed_form(3.0, 0.5))
    hessian = sd.hessian(keyword_scaled)(x, shift=1.0)
    np.testing.assert_allclose(hessian, np.diag(-4.0 * np.sin(2.0 * x)), atol=1e-12)

"""Helpers that share a ``def`` name but compute different things keep apart
(``helper_names.py``): an alias bound to other options, two closures of one ``def``
with different captured values, with and without options. Before, they shared one
normalized body and the gradient was silently that of the other helper."""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def summed(a, axis=None):
    if axis is None:
        return np.sum(a * a)
    return np.sum(np.sum(a, axis=axis) ** 3)


summed_too = summed


def alias_with_other_options(a):
    return summed(a, axis=1) + summed_too(a)


def scaled_square(k):
    def square(x):
        return k * x * x

    return square


def scaled_power(k):
    def power(x, p=2):
        return k * x**p

    return power


three, five = scaled_square(3.0), scaled_square(5.0)
three_p, five_p = scaled_power(3.0), scaled_power(5.0)


def two_closures(x):
    return np.sum(three(x) + five(x))


def two_closures_with_options(x):
    return np.sum(three_p(x, 3) + five_p(x, 3))


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize(
    "func", [alias_with_other_options, two_closures, two_closures_with_options]
)
def test_helpers_under_one_name_keep_their_own_bodies(func, jit):
    a = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.5]])
    assert_gradient_matches(func, (a,), 0, "store", jit)
    assert sd.value_and_grad(func, jit=jit)(a)[0] == pytest.approx(func(a), rel=1e-12)


def test_closures_differentiate_with_their_own_values():
    x = np.array([1.5])
    np.testing.assert_allclose(sd.grad(two_closures)(x), [2 * 3.0 * 1.5 + 2 * 5.0 * 1.5])

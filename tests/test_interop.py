"""sd.grad, sd.value_and_grad and sd.jit called from the user's own ``@numba.njit`` code."""

import math

import numba
import numpy as np
import pytest

import sourcediff as sd


def loss(w, b, x):
    s = 0.0
    for i in range(x.shape[0]):
        r = w[0] * x[i] + w[1] * x[i] * x[i] + b - math.sin(x[i])
        s += r * r
    return s


DF = sd.grad(loss, argnums=(0, 1))
VALUE_AND_GRAD_W = sd.value_and_grad(loss)
PRIMAL = sd.jit(loss)


@numba.njit
def descend(w, b, x, steps, lr):
    for _ in range(steps):
        gw, gb = DF(w, b, x)
        w = w - lr * gw
        b = b - lr * gb
    return w, b


def descend_in_python(w, b, x, steps, lr):
    for _ in range(steps):
        gw, gb = DF(w, b, x)
        w = w - lr * gw
        b = b - lr * gb
    return w, b


@numba.njit
def value_and_gradient(w, b, x):
    return VALUE_AND_GRAD_W(w, b, x)


@numba.njit
def twice_the_loss(w, b, x):
    return 2.0 * PRIMAL(w, b, x)


X = np.linspace(-1.0, 1.0, 20)


def test_gradient_descent_written_in_njit_matches_python():
    w, b = descend(np.zeros(2), 0.0, X, 50, 0.01)
    w_py, b_py = descend_in_python(np.zeros(2), 0.0, X, 50, 0.01)
    np.testing.assert_allclose(w, w_py, rtol=1e-12)
    assert b == pytest.approx(b_py, rel=1e-12)
    assert loss(w, b, X) < loss(np.zeros(2), 0.0, X)


def test_value_and_grad_and_jit_inside_njit():
    w = np.array([0.3, -0.2])
    value, gw = value_and_gradient(w, 0.5, X)
    expected_value, expected_gw = sd.value_and_grad(loss)(w, 0.5, X)
    assert value == pytest.approx(expected_value, rel=1e-12)
    np.testing.assert_allclose(gw, expected_gw, rtol=1e-12)
    assert twice_the_loss(w, 0.5, X) == pytest.approx(2.0 * loss(w, 0.5, X), rel=1e-12)


def test_an_int_where_a_float_is_differentiated_is_refused_at_typing():
    @numba.njit
    def bad(x):
        return DF(np.zeros(2), 1, x)

    with pytest.raises(sd.ArgumentError, match="cannot differentiate 'b'"):
        bad(X)


def _weighted_squares(x, x_c):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x_c[i] * x_c[i]
    return s


def test_from_njit_parameter_names_never_meet_the_callers_own_names():
    """A strided ``x`` is copied to a C-ordered array on the way in: under a name of its
    own, not ``x_c``, which here is the user's other parameter."""
    df = sd.grad(_weighted_squares)

    @numba.njit
    def use(x, x_c):
        return df(x, x_c)

    x, x_c = np.arange(1.0, 7.0)[::2], np.array([10.0, 20.0, 30.0])
    np.testing.assert_array_equal(use(x, x_c), x_c**2)


def _scaled_square(x, c=2.0):
    return c * x * x


def test_from_njit_a_defaulted_argument_may_be_left_out():
    """As in Python: ``df(x)`` with ``c`` at its default, for sd.grad and sd.jit alike."""
    df, f = sd.grad(_scaled_square), sd.jit(_scaled_square)

    @numba.njit
    def use(x):
        return df(x), f(x), df(x, 3.0)

    assert use(1.5) == (6.0, 4.5, 9.0)


def _distance_to_one(w):
    return np.sum((w - 1.0) ** 2)


def test_a_gradient_passed_as_an_argument_to_njit_code():
    """Like any njit function: ``descend(sd.grad(loss), w, steps)``."""

    @numba.njit
    def descend(gradient, w, steps):
        for _ in range(steps):
            w = w - 0.1 * gradient(w)
        return w

    np.testing.assert_allclose(descend(sd.grad(_distance_to_one), np.zeros(2), 3), 0.488)

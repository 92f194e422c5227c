"""Tuples of parameters: ``loss(params, x)`` that unpacks ``w, b = params``, as JAX users
write it, and helpers that unpack a state (``x, v = state``) given a tuple.

Gradients come back in the form the caller gave (a tuple, a list, or an array for an
array); they are checked against central differences per element under every policy,
in plain Python with the verifier on, and compiled.
"""

import math

import numpy as np
import pytest

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
RNG = np.random.default_rng(5)


def layer_loss(params, x, y):
    w, b = params
    r = np.tanh(x @ w + b) - y
    return np.sum(r * r) + 0.01 * np.sum(params[0] ** 2)


def _rhs(state, k):
    x, v = state
    return v, -k * x - 0.1 * v * abs(v)


def oscillator(state0, k, steps, dt):
    """Explicit Euler of a damped oscillator; the helper is given a tuple written out."""
    x, v = state0
    for _ in range(steps):
        dx, dv = _rhs((x, v), k)
        x = x + dt * dx
        v = v + dt * dv
    return x * x + v * v


def _affine(p, t):
    a, b, c = p
    return a * t * t + b * t + c


def passes_it_on(p, t):
    """The tuple parameter passed on to a helper that unpacks it, and read by position."""
    return _affine(p, t) * p[-1] + len(p) * math.sin(p[1])


def local_state(x, v, k):
    """A local tuple given to a helper's tuple parameter."""
    state = (x, v)
    for _ in range(3):
        dx, dv = _rhs(state, k)
        state = (state[0] + 0.1 * dx, state[1] + 0.1 * dv)
    return state[0] * state[1]


LAYER_ARGS = ((RNG.normal(size=3), 0.3), RNG.normal(size=(6, 3)), RNG.normal(size=6))
OSCILLATOR_ARGS = ((1.0, 0.5), 2.0, 12, 0.1)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(
    ("func", "args", "argnums"),
    [
        (layer_loss, LAYER_ARGS, (0, 1)),
        (oscillator, OSCILLATOR_ARGS, (0, 1)),
        (passes_it_on, ((0.3, -0.8, 1.2), 0.7), (0, 1)),
        (local_state, (0.4, -0.2, 1.5), (0, 1, 2)),
    ],
    ids=["layer", "oscillator", "helper", "local"],
)
def test_verified_gradient_by_element(func, args, argnums, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    sd.check_grad(func, *args, argnums=argnums, policy=policy, jit=False)


def test_compiled_gradient_is_a_tuple_like_the_argument():
    value, (grads, dx) = sd.value_and_grad(layer_loss, argnums=(0, 1))(*LAYER_ARGS)
    assert value == pytest.approx(layer_loss(*LAYER_ARGS), rel=1e-12)
    assert isinstance(grads, tuple) and len(grads) == 2
    assert grads[0].shape == (3,) and isinstance(grads[1], float)
    assert dx.shape == LAYER_ARGS[1].shape
    sd.check_grad(layer_loss, *LAYER_ARGS, argnums=(0, 1))
    sd.check_grad(oscillator, *OSCILLATOR_ARGS, argnums=(0, 1))


def test_a_list_or_an_array_gets_a_list_or_an_array_back():
    as_tuple = sd.grad(oscillator)(*OSCILLATOR_ARGS)
    as_list = sd.grad(oscillator)([1.0, 0.5], *OSCILLATOR_ARGS[1:])
    as_array = sd.grad(oscillator)(np.array([1.0, 0.5]), *OSCILLATOR_ARGS[1:])
    assert isinstance(as_list, list) and isinstance(as_array, np.ndarray)
    np.testing.assert_allclose(as_list, as_tuple, rtol=1e-14)
    np.testing.assert_allclose(as_array, as_tuple, rtol=1e-14)


def test_jit_and_generated_source_take_the_tuple():
    assert sd.jit(layer_loss)(*LAYER_ARGS) == pytest.approx(layer_loss(*LAYER_ARGS), rel=1e-12)
    source = sd.adjoint_source(layer_loss, args=LAYER_ARGS)
    assert "def layer_loss_vjp(params_0, params_1, x, y," in source


def iterates(p):
    s = 0.0
    for q in p:
        s += q
    w, b = p
    return s * w


def unpacks_twice(p):
    a, b = p
    a, b, c = p
    return a * b * c


def writes_into(p):
    a, b = p
    p[0] = 2.0 * b
    return a * p[0]


def dict_and_tuple(p):
    a, b = p
    return a * b + p["w"]


def pair_passed_on_as_three(p):
    a, b = p
    return _affine(p, 0.5) * a


def gives_a_short_tuple(x):
    return _affine((x, 2.0 * x), 0.5)


@pytest.mark.parametrize(
    ("func", "match"),
    [
        (iterates, "is a tuple of parameters: unpack it"),
        (unpacks_twice, "unpacked into 2 and 3 names"),
        (gives_a_short_tuple, "unpacks this argument into 3 values"),
        (writes_into, "writing into the tuple of parameters 'p'"),
        (dict_and_tuple, "used as tuples or dicts of different forms"),
        (pair_passed_on_as_three, "used as tuples or dicts of different forms"),
    ],
)
def test_other_uses_are_refused_with_the_line(func, match):
    with pytest.raises(sd.UnsupportedSyntaxError, match=match) as info:
        sd.grad(func)((1.0, 2.0))
    assert "test_tuple_params.py:" in str(info.value)


def reads_by_position(p, q):
    return p[0] * math.sin(p[1]) + q


def test_wrong_arguments_are_clear_errors():
    grad = sd.grad(oscillator, jit=False)
    with pytest.raises(sd.ArgumentError, match=r"pass a tuple \(or list, or array\) of 2"):
        grad((1.0, 0.5, 0.1), 2.0, 3, 0.1)
    with pytest.raises(sd.ArgumentError, match="not float"):
        grad(1.0, 2.0, 3, 0.1)
    with pytest.raises(sd.ArgumentError, match="dicts or tuples of parameters"):
        sd.jacobian(oscillator)((1.0, 0.5), 2.0, 3, 0.1)
    # Read by position only, a tuple is not told apart from an array before the call.
    with pytest.raises(sd.ArgumentError, match=r"unpack it in the function \(a, b = p\)"):
        sd.grad(reads_by_position)((0.3, 0.4), 1.0)

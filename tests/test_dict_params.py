"""Dicts of parameters: ``loss(params, x)`` reading ``params["w"]``, as JAX users write it.

Gradients come back as a dict with the caller's keys; they are checked against
central differences per key under every policy, in plain Python with the
verifier on and compiled.
"""

import math

import numpy as np
import pytest

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
RNG = np.random.default_rng(11)


def _layer(w, b, x):
    return np.tanh(x @ w + b)


def mlp_loss(params, x, y):
    h = _layer(params["w1"], params["b1"], x)
    out = h @ params["w2"]
    r = out - y
    return np.sum(r * r) / x.shape[0] + params["decay"] * np.sum(params["w1"] ** 2)


def _predict(p, x):
    return np.tanh(x @ p["w1"] + p["b1"]) @ p["w2"]


def _penalty(q):
    return q["decay"] * np.sum(q["w1"] ** 2)


def through_helpers(params, x, y):
    r = _predict(params, x) - y
    return np.sum(r * r) / x.shape[0] + _penalty(params)


def decay_in_a_loop(p, n):
    v = p["v0"]
    for _ in range(n):
        v = v - p["rate"] * math.sin(v) + p["shift"]
    return v * v


def _mlp_args():
    params = {
        "w1": RNG.normal(size=(3, 4)),
        "b1": RNG.normal(size=4),
        "w2": RNG.normal(size=(4, 2)),
        "decay": 0.05,
        "name": "two layers",  # not numeric: carried along, never differentiated
    }
    return params, RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))


MLP_ARGS = _mlp_args()
LOOP_ARGS = ({"v0": 0.4, "rate": 0.3, "shift": 0.1}, 6)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(
    ("func", "args", "argnums"),
    [
        (mlp_loss, MLP_ARGS, (0, 1)),
        (through_helpers, MLP_ARGS, (0, 2)),
        (decay_in_a_loop, LOOP_ARGS, (0,)),
    ],
    ids=["mlp", "helpers", "loop"],
)
def test_verified_gradient_by_key(func, args, argnums, policy, monkeypatch):
    monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    sd.check_grad(func, *args, argnums=argnums, policy=policy, jit=False)


def test_compiled_gradient_is_a_dict_with_the_callers_keys():
    params, x, y = MLP_ARGS
    value, (grads, dx) = sd.value_and_grad(mlp_loss, argnums=(0, 1))(params, x, y)
    assert value == pytest.approx(mlp_loss(params, x, y), rel=1e-12)
    assert list(grads) == ["w1", "b1", "w2", "decay"]
    assert grads["w1"].shape == (3, 4) and isinstance(grads["decay"], float)
    assert dx.shape == x.shape
    sd.check_grad(mlp_loss, params, x, y, argnums=0)


def test_keys_the_function_does_not_read_get_zero_gradients():
    params = {"v0": 0.4, "rate": 0.3, "shift": 0.1, "unused": np.ones(3), "steps": 4}
    grads = sd.grad(decay_in_a_loop)(params, 6)
    assert set(grads) == {"v0", "rate", "shift", "unused"}
    assert np.array_equal(grads["unused"], np.zeros(3))


def test_jit_and_generated_source_take_the_dict():
    params, x, y = MLP_ARGS
    assert sd.jit(mlp_loss)(params, x, y) == pytest.approx(mlp_loss(params, x, y), rel=1e-12)
    source = sd.adjoint_source(mlp_loss, args=MLP_ARGS)
    assert "def mlp_loss_vjp(params_w1, params_b1, params_w2, params_decay, x, y," in source


def passes_the_dict_on(params, x):
    return params["a"] * _scaled(params, x)


def _scaled(p, x):
    return x * 2.0


def gives_a_helper_a_local(params, x):
    local = params
    return _penalty(local) * x


def test_compiled_gradient_through_helpers_equals_the_inline_one():
    inline = sd.grad(mlp_loss)(*MLP_ARGS)
    helpers = sd.grad(through_helpers)(*MLP_ARGS)
    assert list(helpers) == list(inline)
    for key in inline:
        np.testing.assert_allclose(helpers[key], inline[key], rtol=1e-12)


@pytest.mark.parametrize("func", [passes_the_dict_on, gives_a_helper_a_local])
def test_other_uses_of_the_dict_are_refused_with_the_line(func):
    with pytest.raises(sd.UnsupportedSyntaxError, match="dict of parameters") as info:
        sd.grad(func)({"a": 1.0, "decay": 0.1, "w1": np.ones(2)}, 2.0)
    assert "test_dict_params.py:" in str(info.value)


def test_wrong_arguments_are_clear_errors():
    grad = sd.grad(decay_in_a_loop, jit=False)
    with pytest.raises(sd.ArgumentError, match="pass a dict"):
        grad(0.4, 3)
    with pytest.raises(sd.ArgumentError, match="no key 'shift'"):
        grad({"v0": 0.4, "rate": 0.3}, 3)
    with pytest.raises(sd.ArgumentError, match="dicts or tuples of parameters"):
        sd.jacobian(decay_in_a_loop)(LOOP_ARGS[0], 3)

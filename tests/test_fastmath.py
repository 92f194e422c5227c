"""``fastmath=True``: Numba may reassociate floating point; results agree to rounding."""

import math

import numpy as np
import pytest

import sourcediff as sd
from sourcediff import pipeline


def weighted_sines(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * w[i] * w[i]
    return s


X = np.linspace(-1.0, 2.0, 257)
W = np.cos(X) + 1.5


def test_the_gradient_is_the_closed_form_and_numba_is_told():
    grad = sd.grad(weighted_sines, argnums=(0, 1), fastmath=True)
    dx, dw = grad(X, W)
    np.testing.assert_allclose(dx, np.cos(X) * W * W, rtol=1e-13)
    np.testing.assert_allclose(dw, 2.0 * np.sin(X) * W, rtol=1e-13)
    _, compiled = grad.adjoint(grad.bind((X, W), {}))
    assert compiled.targetoptions["fastmath"] is True
    _, plain = sd.grad(weighted_sines).adjoint(grad.bind((X, W), {}))
    assert plain.targetoptions["fastmath"] is False


def test_fastmath_has_its_own_generated_module_and_cache():
    fast, plain = sd.grad(weighted_sines, fastmath=True), sd.grad(weighted_sines)
    fast_built, _ = fast.adjoint(fast.bind((X, W), {}))
    plain_built, _ = plain.adjoint(plain.bind((X, W), {}))
    assert fast_built.path != plain_built.path


@pytest.mark.parametrize(
    "call",
    [
        lambda fm: sd.value_and_grad(weighted_sines, fastmath=fm)(X, W),
        lambda fm: sd.vjp(weighted_sines, X, W, fastmath=fm)[1](1.0),
        lambda fm: sd.jvp(weighted_sines, (X, W), (np.ones_like(X), W), fastmath=fm),
        lambda fm: sd.jacobian(weighted_sines, argnums=1, fastmath=fm)(X, W),
        lambda fm: sd.hvp(weighted_sines, fastmath=fm)(X, W, np.ones_like(X)),
        lambda fm: sd.hessian(weighted_sines, argnums=1, fastmath=fm)(X[:5], W[:5]),
        lambda fm: sd.jit(fastmath=fm)(weighted_sines)(X, W),
    ],
    ids=["value_and_grad", "vjp", "jvp", "jacobian", "hvp", "hessian", "jit"],
)
def test_every_entry_point_takes_it(call):
    pipeline._COMPILED.clear()  # only a cache of loaded functions: refilled from disk
    fast = call(True)
    compiled = [f for f in pipeline._COMPILED.values() if hasattr(f, "targetoptions")]
    assert compiled and all(f.targetoptions["fastmath"] for f in compiled)
    plain = call(False)
    for mine, theirs in zip(np.atleast_1d(_flat(fast)), np.atleast_1d(_flat(plain))):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


def _flat(result):
    if isinstance(result, (tuple, list)):
        return np.concatenate([np.ravel(_flat(r)) for r in result])
    return np.ravel(np.asarray(result, dtype=float))

"""The vectorizable ``exp`` and ``tanh`` generated code calls, against the C library's.

Compiled or from Python, they must agree with NumPy to a few units in the last place over
the whole float range, special values exactly; the rewrite leaves ``math``'s, a user's own
``exp`` or ``tanh`` and functions with other floats than float64 alone.
"""

import ast
import math

import numba
import numpy as np
import pytest

import sourcediff as sd
from sourcediff.vector_math import exp, tanh, with_vector_math

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, 1e308, -1e308]
EDGES = [19.0, 19.1, 20.0, -20.0, math.log(2.0) / 2, 709.78, 709.79, -708.5, -745.13, -745.14]


@numba.njit(error_model="numpy")
def _compiled(x):
    return exp(x), tanh(x), exp(x[0]), tanh(x[-1])


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    scales = [1e-300, 1e-12, 1e-5, 1e-2, 0.2, 1.0, 4.0, 30.0, 300.0]
    normal = [rng.standard_normal(20000) * s for s in scales]
    return np.concatenate(normal + [np.array(SPECIAL + EDGES)])


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    finite = np.isfinite(want) & (want != 0.0)
    return np.abs(got[finite] - want[finite]) / np.spacing(np.abs(want[finite]))


@pytest.mark.parametrize(("index", "reference", "bound"), [(0, np.exp, 1), (1, np.tanh, 3)])
def test_compiled_agree_with_the_c_library_to_a_few_ulps(index, reference, bound):
    x = _points()
    with np.errstate(over="ignore"):
        want = reference(x)
    got = _compiled(x)[index]
    assert _ulps(got, want).max() <= bound
    exact = ~np.isfinite(want) | (want == 0.0)
    np.testing.assert_array_equal(got[exact], want[exact])  # inf, 0, NaN and -0.0 alike
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]))


def test_scalars_views_and_integers():
    x = np.linspace(-3.0, 3.0, 12).reshape(3, 4)[:, ::2]  # a strided view
    e, t, e0, t_last = _compiled(np.ascontiguousarray(x).ravel())
    np.testing.assert_allclose(e, np.exp(x).ravel(), rtol=4e-16)
    assert t_last == pytest.approx(np.tanh(x.ravel()[-1]), rel=1e-15)
    assert e0 == pytest.approx(math.exp(-3.0), rel=4e-16)

    @numba.njit(error_model="numpy")
    def others(v, s):
        return tanh(v), tanh(s), tanh(v[:, ::2])

    v = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    t, ts, tv = others(v, 3)
    np.testing.assert_allclose(t, np.tanh(v), rtol=1e-15)
    assert ts == pytest.approx(math.tanh(3.0), rel=1e-15)
    np.testing.assert_allclose(tv, np.tanh(v[:, ::2]), rtol=1e-15)


def test_from_python_they_are_the_same_ufuncs():
    x = np.array([-2.0, 0.5])
    np.testing.assert_array_equal(tanh(x), _compiled(x)[1])
    assert tanh(0.5) == pytest.approx(math.tanh(0.5), rel=1e-15)
    assert exp(700.0) == pytest.approx(math.exp(700.0), rel=3e-16)


def test_the_rewrite_leaves_a_users_own_name_alone():
    src = "def f(x, exp):\n    return np.exp(x) * exp + np.tanh(x) + np.tanh(x, out=None)"
    out = ast.unparse(with_vector_math(ast.parse(src).body[0], {"x": "float64"}))
    assert "np.exp(x) * exp + tanh(x) + np.tanh(x, out=None)" in out
    single = ast.unparse(with_vector_math(ast.parse(src).body[0], {"x": "float32"}))
    assert "np.tanh(x) +" in single


def tanh_layer(w, x):
    return np.sum(np.tanh(w * x) ** 2) + np.exp(w[0])


def tanh_of_product(w1, x, w2):
    h = np.tanh(x @ w1)
    e = np.exp(x @ w1)
    return np.sum((h * e) @ w2)


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
def test_a_gradient_through_them_matches_the_closed_form(jit):
    rng = np.random.default_rng(3)
    w1, x, w2 = rng.normal(size=(3, 2)), rng.normal(size=(4, 3)), rng.normal(size=(2, 2))
    grad = sd.grad(tanh_of_product, jit=jit)(w1, x, w2)
    text = sd.adjoint_source(tanh_of_product, args=(w1, x, w2))
    assert "h = tanh(matmul(x, w1))" in text and "e = exp(matmul(x, w1))" in text
    z = x @ w1
    h, e = np.tanh(z), np.exp(z)
    seed = np.ones((4, 2)) @ w2.T  # d sum((h * e) @ w2) / d (h * e)
    expected = x.T @ (seed * ((1.0 - h * h) * e + h * e))
    np.testing.assert_allclose(grad, expected, rtol=1e-14)


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
def test_numbers_keep_the_c_librarys_functions(jit):
    # One number at a time the ufuncs are slower than libm's exp and tanh.
    w, x = np.array([0.3, -1.2, 2.5]), np.array([1.5, 0.7, -0.4])
    grad = sd.grad(tanh_layer, jit=jit)(w, x)
    text = sd.adjoint_source(tanh_layer, args=(w, x))
    assert "np.tanh(w[j] * x[j])" in text and "np.exp(w[0])" in text
    t = np.tanh(w * x)
    expected = 2.0 * t * (1.0 - t * t) * x + np.array([math.exp(w[0]), 0.0, 0.0])
    np.testing.assert_allclose(grad, expected, rtol=1e-14)

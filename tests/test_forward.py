"""Forward mode (jvp, tangent_source) and Hessians (forward over forward).

Every corpus case is checked by the dot-product identity: the jvp along a
random tangent equals the gradient dotted with that tangent, to 1e-12.
"""

import math

import corpus_arrays
import corpus_scalar
import golden_functions as g
import numpy as np
import pytest
from scope import every_third

import sourcediff as sd

CASES = corpus_scalar.CASES + corpus_arrays.CASES


def _copied(point):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in point)


@pytest.mark.parametrize("case", every_third(CASES), ids=lambda c: c.name)
def test_jvp_agrees_with_the_gradient(case):
    point = case.points[0]
    nums = (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)
    rng = np.random.default_rng(3)
    tangents = [
        rng.normal(size=np.shape(a)).astype(np.asarray(a).dtype) if k in nums else 0.0 * a
        for k, a in enumerate(point)
    ]
    tangents = [t if isinstance(point[k], np.ndarray) else float(t) for k, t in enumerate(tangents)]
    grads = sd.grad(case.func, argnums=nums, jit=False)(*_copied(point))
    expected = sum(float(np.vdot(gk, tangents[k])) for gk, k in zip(grads, nums))
    value, actual = sd.jvp(case.func, _copied(point), tangents, jit=False)
    tolerance = 1e-4 if any(getattr(a, "dtype", None) == np.float32 for a in point) else 1e-12
    scale = max(1.0, abs(expected))
    assert abs(actual - expected) <= tolerance * scale, (actual, expected)
    assert value == pytest.approx(case.func(*_copied(point)), rel=1e-9)


def test_jvp_compiled_with_tuple_and_array_results():
    def pair(x, a):
        return np.sum(np.sin(x) * a), x * a

    x = np.array([0.1, 0.5, 0.9])
    (value, vector), (tangent, vector_tangent) = sd.jvp(pair, (x, 2.0), (np.ones(3), 0.5))
    assert tangent == pytest.approx(float(np.sum(np.cos(x) * 2.0 + np.sin(x) * 0.5)), rel=1e-12)
    np.testing.assert_allclose(vector_tangent, np.ones(3) * 2.0 + x * 0.5, rtol=1e-12)


def test_tangent_source_is_readable_python_with_user_names():
    source = sd.tangent_source(g.series, argnums=(0, 1), args=(1.5, 0.3, 10))
    assert "def series_jvp(x, y, n, x_dot, y_dot):" in source
    assert "s_dot = s_dot + (y * (math.cos(t2) * (i * x_dot)) + t3 * y_dot)" in source
    assert "# golden_functions.py:" in source


def rosenbrock(x, y):
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


def ring(v):
    s = 0.0
    for i in range(v.shape[0]):
        s += math.sin(v[i]) * v[(i + 1) % v.shape[0]] + math.exp(0.1 * v[i] * v[i])
    return s


@pytest.mark.parametrize("point", [(1.2, 0.7), (-0.5, 2.0), (0.0, 0.0)])
def test_hessian_of_rosenbrock_against_the_closed_form(point):
    x, y = point
    hxx, hxy = 2.0 - 400.0 * (y - x * x) + 800.0 * x * x, -400.0 * x
    h = sd.hessian(rosenbrock, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(np.array(h), [[hxx, hxy], [hxy, 200.0]], rtol=1e-12)


def test_hessian_of_a_loop_over_an_array_against_differences_of_the_gradient():
    v = np.array([0.3, -0.5, 1.1, 0.2])
    h = sd.hessian(ring)(v)
    grad = sd.grad(ring)
    steps = np.eye(4) * 1e-6
    reference = np.array([(grad(v + e) - grad(v - e)) / 2e-6 for e in steps])
    np.testing.assert_allclose(h, reference, atol=1e-6)
    np.testing.assert_allclose(h, h.T, rtol=1e-12)
    assert h.shape == (4, 4)


def model(x, a):
    y = np.sin(x) * a + x * x
    return y, np.sum(y * x)


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_modes_agree_with_the_closed_form(mode):
    x = np.array([0.1, 0.5, 0.9, -0.3])
    (jy_x, jy_a), (js_x, js_a) = sd.jacobian(model, argnums=(0, 1), mode=mode, jit=False)(x, 2.0)
    y = np.sin(x) * 2.0 + x * x
    dy = np.cos(x) * 2.0 + 2 * x
    np.testing.assert_allclose(jy_x, np.diag(dy), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(jy_a, np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(js_x, dy * x + y, rtol=1e-12)
    assert js_a == pytest.approx(float(np.sum(np.sin(x) * x)), rel=1e-12)


def _two_outputs(x, a, n):
    y = np.sin(x) * a
    for _ in range(n):
        y = y + 0.1 * np.cos(y)
    return y, np.sum(y * y) + a


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_vector_mode_jacobian_matches_one_call_per_direction(jit):
    """Every direction swept in one compiled call gives the per-direction result, both
    modes, blocks of every (output, argnum) pair; float32 takes the per-direction path."""
    from sourcediff import batch

    x = np.linspace(0.1, 1.0, 5)
    forward = sd.jacobian(_two_outputs, argnums=(0, 1), mode="forward", jit=jit)(x, 0.7, 3)
    reverse = sd.jacobian(_two_outputs, argnums=(0, 1), mode="reverse", jit=jit)(x, 0.7, 3)
    x32 = x.astype(np.float32)
    assert not batch.batchable((x32, 0.7, 3), (0, 1), (x32, 1.0))
    for row_f, row_r in zip(forward, reverse):
        for block_f, block_r in zip(row_f, row_r):
            assert np.allclose(block_f, block_r, rtol=1e-12, atol=1e-14)
    # Closed form of d y / d x: diagonal, the chain rule through each step.
    d = np.cos(x) * 0.7
    y = np.sin(x) * 0.7
    for _ in range(3):
        d = d * (1.0 - 0.1 * np.sin(y))
        y = y + 0.1 * np.cos(y)
    assert np.allclose(forward[0][0], np.diag(d), atol=1e-12)


def squared_plus(x, y):
    return x * x + 3.0 * y


def test_a_product_of_a_value_with_itself_has_one_tangent_term():
    """``x * x`` contributes ``x * x_dot`` twice: one term, doubled (exactly equal)."""
    text = sd.tangent_source(squared_plus, args=(0.5, 2.0))
    assert "2.0 * (x * x_dot)" in text and "x * x_dot + x * x_dot" not in text
    _, tangent = sd.jvp(squared_plus, (0.5, 2.0), (1.0, 0.25))
    assert tangent == 2.0 * 0.5 * 1.0 + 3.0 * 0.25


def _biased_sum(X, b):
    return np.sum(X * 2.0 + b)  # b (3,) added to each of X's rows


def _biased_column(X, b):
    return np.sum((X + b)[:, 0])


def _biased_row_sums(X, b):
    return np.sum(X + b, axis=1)


def _squared_biased_sum(X, b):
    return np.sum(X + b[None, :] * 1.5) ** 2


def _spread(x):
    y = np.broadcast_to(x, (3, 2)).copy()
    return np.sum(y * y * np.arange(6.0).reshape(3, 2))


BROADCAST_X = np.random.default_rng(0).standard_normal((4, 3))
BROADCAST_B = np.array([0.1, -0.2, 0.3])


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [_biased_sum, _biased_column, _biased_row_sums])
def test_forward_jacobian_of_a_broadcast_operand(func, jit):
    # Found by a hunt: with only b varied, its tangent kept b's shape (1 for 4, silently),
    # or the derivative failed to compile.
    want = sd.jacobian(func, argnums=1, mode="reverse", jit=False)(BROADCAST_X, BROADCAST_B)
    got = sd.jacobian(func, argnums=1, mode="forward", jit=jit)(BROADCAST_X, BROADCAST_B)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    rows = BROADCAST_X.shape[0]
    closed = {_biased_sum: [rows] * 3, _biased_column: [rows, 0, 0]}
    if func in closed:
        np.testing.assert_allclose(got, closed[func], rtol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_hessian_through_a_broadcast_operand(jit):
    X, b = BROADCAST_X, BROADCAST_B
    total = np.sum(X) + 1.5 * X.shape[0] * np.sum(b)
    # f = total^2: d2f/db_i db_j = 2 (1.5 * rows)^2, d/db_i = 2 total * 1.5 * rows.
    hessian = sd.hessian(_squared_biased_sum, argnums=1, jit=jit)(X, b)
    np.testing.assert_allclose(hessian, np.full((3, 3), 2 * (1.5 * 4) ** 2), rtol=1e-12)
    v = np.array([1.0, -2.0, 0.5])
    hvp = sd.hvp(_squared_biased_sum, argnums=1, jit=jit)(X, b, v)
    np.testing.assert_allclose(np.ravel(hvp), np.full(3, 2 * 36.0 * v.sum()), rtol=1e-12)
    grad = sd.grad(_squared_biased_sum, argnums=1, jit=jit)(X, b)
    np.testing.assert_allclose(grad, np.full(3, 2 * total * 6.0), rtol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_broadcast_to_in_user_code(jit):
    x = np.array([0.5, -1.0])
    want = 2 * x * np.arange(6.0).reshape(3, 2).sum(axis=0)
    np.testing.assert_allclose(sd.grad(_spread, jit=jit)(x), want, rtol=1e-12)
    _, tangent = sd.jvp(_spread, (x,), (np.array([1.0, 0.0]),), jit=jit)
    assert tangent == pytest.approx(want[0], rel=1e-12)

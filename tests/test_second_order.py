"""Hessian-vector products and Hessians, by reverse over forward.

``sd.hvp`` differentiates the generated tangent function in reverse mode (the
closure property: generated code is in the accepted subset). Every float64
corpus case is checked against Richardson-extrapolated central differences of
the gradient along the same vector; Hessians against closed forms, symmetry
and the products.
"""

import inspect
import math

import corpus_arrays
import corpus_scalar
import numpy as np
import pytest
from scope import every_third

import sourcediff as sd

CASES = [
    c
    for c in corpus_scalar.CASES + corpus_arrays.CASES
    if all(np.asarray(a).dtype != np.float32 for a in c.points[0])
]


def _copied(point):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in point]


def _nums(case):
    return (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)


def _gradient_difference(grad, point, nums, vectors):
    """d/dh grad(x + h v) at 0, central differences with one Richardson step."""

    def at(h):
        p = _copied(point)
        for v, k in zip(vectors, nums):
            p[k] = p[k] + h * v
        return grad(*p)

    def central(h):
        return [(a - b) / (2 * h) for a, b in zip(at(h), at(-h))]

    coarse, fine = central(1e-4), central(5e-5)
    return [(4 * f - c) / 3 for c, f in zip(coarse, fine)]


# A third of the corpus (all of it with SOURCEDIFF_FULL_SUITE=1: tests/scope.py).
@pytest.mark.parametrize("case", every_third(CASES), ids=lambda c: c.name)
def test_hvp_equals_differences_of_the_gradient(case):
    point, nums = case.points[0], _nums(case)
    rng = np.random.default_rng(5)
    vectors = tuple(
        rng.normal(size=np.shape(point[k])) if isinstance(point[k], np.ndarray) else rng.normal()
        for k in nums
    )
    product = sd.hvp(case.func, argnums=nums, jit=False)(*_copied(point), vectors)
    grad = sd.grad(case.func, argnums=nums, jit=False)
    reference = _gradient_difference(grad, point, nums, vectors)
    for actual, expected in zip(product, reference):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock_hessian(x):
    h = np.zeros((x.size, x.size))
    for i in range(x.size - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i + 1, i + 1] += 200.0
        h[i, i + 1] -= 400.0 * x[i]
        h[i + 1, i] -= 400.0 * x[i]
    return h


@pytest.mark.parametrize("jit", [False, True])
def test_hessian_and_hvp_of_rosenbrock_against_the_closed_form(jit):
    x = np.array([0.3, -1.2, 0.5, 2.0])
    expected = rosenbrock_hessian(x)
    np.testing.assert_allclose(sd.hessian(rosenbrock, jit=jit)(x), expected, rtol=1e-12)
    v = np.array([1.0, -2.0, 0.5, 3.0])
    np.testing.assert_allclose(sd.hvp(rosenbrock, jit=jit)(x, v), expected @ v, rtol=1e-12)


def test_float32_hessian_and_jacobian_keep_float32_as_in_jax():
    """Derivatives of float32 inputs and outputs are float32 (closed form at float32)."""
    x = np.array([0.3, -1.2, 0.5, 2.0], dtype=np.float32)
    hessian = sd.hessian(rosenbrock, jit=False)(x)
    assert hessian.dtype == np.float32
    np.testing.assert_allclose(hessian, rosenbrock_hessian(x.astype(np.float64)), rtol=1e-5)
    for mode in ("forward", "reverse"):
        jacobian = sd.jacobian(_sines, mode=mode, jit=False)(x)
        assert jacobian.dtype == np.float32, mode
        np.testing.assert_allclose(jacobian, np.diag(2.0 * np.cos(x.astype(np.float64))), 1e-6)


def _sines(x):
    return 2.0 * np.sin(x)


def mixed(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(w * x[i]) ** 2 + x[i] ** 3 * w
    return s


def test_hessian_blocks_are_symmetric_and_match_the_products():
    x, w = np.array([0.3, -0.2, 0.5]), 0.7
    (hxx, hxw), (hwx, hww) = sd.hessian(mixed, argnums=(0, 1), jit=False)(x, w)
    assert hxx.shape == (3, 3) and hxw.shape == (3,) and hwx.shape == (3,)
    assert isinstance(hww, float)
    np.testing.assert_allclose(hxx, hxx.T, rtol=1e-12)
    np.testing.assert_allclose(hxw, hwx, rtol=1e-12)
    v = np.array([1.0, 2.0, -1.0])
    px, pw = sd.hvp(mixed, argnums=(0, 1), jit=False)(x, w, (v, 0.5))
    np.testing.assert_allclose(px, hxx @ v + hxw * 0.5, rtol=1e-12)
    assert pw == pytest.approx(hwx @ v + hww * 0.5, rel=1e-12)


def test_hvp_refuses_a_vector_per_argnum_mismatch():
    with pytest.raises(sd.ArgumentError):
        sd.hvp(mixed, argnums=(0, 1), jit=False)(np.ones(3), 0.5, (np.ones(3),))


def _statistics(x):
    A = np.outer(x, x) + np.eye(3)
    spread = np.sum(np.std(A, axis=1)) + np.sum(np.var(A, axis=1, ddof=1))
    return spread + np.sum(np.linalg.norm(A, axis=0)) + np.sum(np.cumprod(x + 1.5))


def _contractions(x):
    A = np.outer(x, x)
    rolled = np.sum(np.roll(A, 1, axis=1) * A) + np.sum(np.append(x, x[0] ** 2) ** 3)
    scanned = np.sum(np.cumsum(A, axis=1) ** 2) + np.sum(np.roll(A, -1, axis=-1) * A.T)
    return np.einsum("ij,jk,k->", A, A, x) + rolled + scanned


def _lists(x):
    xs = [x[0]]
    for _ in range(5):
        xs.append(xs[-1] * x[1] + x[2])
    return sum(xs) + sum(x[i] ** 3 * x[(i + 1) % 3] for i in range(3)) + max(v * v for v in x)


def _interpolated(x):
    knots, values = np.array([-1.0, 0.0, 1.0, 2.0]), np.array([0.5, 1.0, -1.0, 0.3])
    return np.sum(np.interp(x * 0.9, knots, values) * x)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [_statistics, _contractions, _lists], ids=lambda f: f.__name__)
def test_hvp_through_reductions_contractions_and_lists(func, jit):
    """Reverse over forward through this subset's rewrites and runtime rows (std along an
    axis, cumprod, einsum loops, roll and cumsum along an axis, append, lists,
    comprehensions)."""
    point, vector = np.array([0.3, -0.5, 0.8]), np.array([0.7, 0.2, -0.4])
    product = sd.hvp(func, jit=jit)(point.copy(), vector)
    grad = sd.grad(func, argnums=(0,), jit=False)
    reference = _gradient_difference(grad, [point], (0,), (vector,))[0]
    np.testing.assert_allclose(product, reference, rtol=1e-5, atol=1e-6)


def _cholesky_energy(a, b):
    lower = np.linalg.cholesky(np.outer(a, a) + np.diag(b))
    return np.sum(lower * lower) + np.sum(lower.T * a[0])


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_hessian_through_a_cholesky_factor(jit):
    """The Cholesky factor's tangent, differentiated again, goes through rows alone (it
    called np.ascontiguousarray, which has none)."""
    a, b = np.array([0.5, -0.3, 0.8]), np.array([2.0, 1.5, 3.0])
    hessian = sd.hessian(_cholesky_energy, jit=jit)(a.copy(), b)
    grad = sd.grad(_cholesky_energy, argnums=(0,), jit=False)
    for k, direction in enumerate(np.eye(3)):
        reference = _gradient_difference(grad, [a, b], (0,), (direction,))[0]
        np.testing.assert_allclose(hessian[:, k], reference, rtol=1e-6, atol=1e-8)


def test_a_second_derivative_refusal_names_the_users_function():
    """np.interp has first derivatives only: the refusal points at the user's function."""
    with pytest.raises(sd.SourceDiffError) as refused:
        sd.hessian(_interpolated, jit=False)(np.array([0.3, -0.5, 0.8]))
    assert refused.value.filename.endswith("test_second_order.py")
    assert "second derivatives" in str(refused.value) and "_interpolated" in str(refused.value)
    assert refused.value.lineno == _line_of(_interpolated, "np.interp(")


def _sorted_weights(x):
    return np.sum(np.sort(x) * x)


def test_a_second_derivative_refusal_in_a_runtime_function_names_it():
    """The refusal says which of sourcediff's functions has no rule (np.sort's tangent),
    not only a line of sourcediff's own file."""
    with pytest.raises(sd.SourceDiffError, match="sourcediff's 'sort_tangent'") as refused:
        sd.hessian(_sorted_weights, jit=False)(np.array([0.3, -0.5, 0.8]))
    assert refused.value.lineno == _line_of(_sorted_weights, "np.sort(")


def _line_of(func, text):
    lines, first = inspect.getsourcelines(func)
    return first + next(k for k, line in enumerate(lines) if text in line)


def _through_prod(x):
    y = x * 2.0
    return np.prod(y) + np.sum(x * x)


def _through_sort(x):
    y = x + 1.0
    s = np.sort(y)
    return np.sum(s * s * s)


def _through_max(x):
    y = x * x
    return np.max(y) * np.sum(x)


def _through_min(x):
    y = x + 0.5
    return np.sum(y) * np.min(x * x)


@pytest.mark.parametrize(
    ("func", "call"),
    [(_through_prod, "np.prod("), (_through_sort, "np.sort(")],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_second_derivative_refusal_names_the_line_of_the_call(func, call):
    """Refused inside a runtime function the tangent calls: the error names the user's file
    and the line of the call, not sourcediff's own files."""
    with pytest.raises(sd.SourceDiffError) as refused:
        sd.hessian(func, jit=False)(np.array([0.3, -0.5, 0.8]))
    assert refused.value.filename == __file__
    assert refused.value.lineno == _line_of(func, call)
    assert str(refused.value).startswith(f"test_second_order.py:{_line_of(func, call)}: ")


def _max_hessian(x):
    """d2/dx2 of max(x * x) * sum(x), at a point where x[k] * x[k] is the unique max."""
    k = int(np.argmax(x * x))
    hessian = np.zeros((x.size, x.size))
    hessian[k, :] += 2.0 * x[k]
    hessian[:, k] += 2.0 * x[k]
    hessian[k, k] += 2.0 * np.sum(x)
    return hessian


def _min_hessian(x):
    """d2/dx2 of sum(x + 0.5) * min(x * x), at a unique minimum."""
    k = int(np.argmin(x * x))
    hessian = np.zeros((x.size, x.size))
    hessian[k, :] += 2.0 * x[k]
    hessian[:, k] += 2.0 * x[k]
    hessian[k, k] += 2.0 * np.sum(x + 0.5)
    return hessian


def _max_along_rows(X):
    return np.sum(X**3) + np.sum(np.max(X, axis=1))


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_a_hessian_through_max_and_min_treats_the_choice_as_constant(jit):
    """np.max and np.min are piecewise linear: their masks have no derivative (found by a
    bug hunt: sd.hessian was refused)."""
    for x in (np.array([0.3, -0.5, 0.8]), np.array([-1.1, 0.2, 0.6, 0.9])):
        np.testing.assert_allclose(sd.hessian(_through_max, jit=jit)(x), _max_hessian(x))
        np.testing.assert_allclose(sd.hessian(_through_min, jit=jit)(x), _min_hessian(x))
    X = np.array([[0.1, 0.7], [0.4, -0.2]])
    expected = np.diag(6.0 * X.ravel()).reshape(2, 2, 2, 2)
    np.testing.assert_allclose(sd.hessian(_max_along_rows, jit=jit)(X), expected)


def lgamma_sum(x):
    s = 0.0
    for v in x:
        s += math.lgamma(v)
    return s


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_hessian_of_lgamma_is_the_trigamma_function(jit):
    """The digamma loop inside lgamma's derivative records into a growable tape from an
    outer and an inner loop; its Hessian was inf (compiled) or an IndexError (Python)
    once 1 + 15 pushes filled 16 slots. Against SciPy's trigamma."""
    from scipy.special import polygamma

    x = np.array([0.5, 6.5, 1.0, 0.05])
    assert np.allclose(np.diag(sd.hessian(lgamma_sum, jit=jit)(x)), polygamma(1, x), rtol=1e-9)


def _polynomial(x, c):
    s = 0.0
    for k in range(c.shape[0]):
        s += c[k] * x**k
    return s


def _first_powers(x):
    return x**1.0 + x**1 + math.pow(x, 1.0) + x * x


def _array_powers(x):
    return np.sum(np.power(x, 1.0) + x**2 + np.power(x, np.array([0.0, 1.0])))


@pytest.mark.parametrize("jit", [False, True])
def test_powers_at_zero_have_their_derivatives_not_a_division_by_zero(jit):
    """``x ** 0`` has partial 0 and ``x ** 1`` second derivative 0 at x = 0, as in JAX
    (the rule ``y * x ** (y - 1)`` divided by zero there, or gave 0 * inf = nan)."""
    c = np.array([1.0, 2.0, 3.0, 4.0])
    assert sd.grad(_polynomial, jit=jit)(0.0, c) == 2.0
    assert sd.hessian(_polynomial, jit=jit)(0.0, c) == 6.0
    assert sd.jvp(_polynomial, (0.0, c), (1.0, np.zeros(4)), jit=jit) == (1.0, 2.0)
    assert sd.grad(_first_powers, jit=jit)(0.0) == 3.0
    assert sd.hessian(_first_powers, jit=jit)(0.0) == 2.0
    x = np.array([0.0, 1.0])
    np.testing.assert_array_equal(sd.grad(_array_powers, jit=jit)(x), [1.0, 4.0])
    np.testing.assert_array_equal(sd.hessian(_array_powers, jit=jit)(x), np.diag([2.0, 2.0]))


def _clipped_cubic(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2 * x)


def test_hessian_through_a_clip_mask():
    """The adjoint of np.clip holds the mask ``(x >= lo) & (x <= hi)``: differentiating it
    again needs ``&`` (refused before). Closed form: 6x inside, 0 outside."""
    x = np.linspace(-1.0, 1.0, 7) + 0.03
    inside = (x > -0.5) & (x < 0.5)
    np.testing.assert_allclose(sd.hessian(_clipped_cubic, jit=False)(x), np.diag(6.0 * x * inside))

"""Every whole-array row of the rule table, differentiated inside a small function and
checked against central finite differences (compiled and as plain Python)."""

import numpy as np
import numpy.linalg as la
import pytest
from numpy.linalg import norm, solve

import sourcediff as sd

RNG = np.random.default_rng(7)
V = RNG.uniform(0.2, 1.5, size=5)
W = RNG.uniform(-1.0, 1.0, size=5)
M = RNG.uniform(-1.0, 1.0, size=(3, 4))
N = RNG.uniform(-1.0, 1.0, size=(4, 2))
COL = RNG.uniform(-1.0, 1.0, size=(3, 1))
ROW = RNG.uniform(-1.0, 1.0, size=(1, 4))


def elementwise(v, w):
    return np.sum(np.sin(v) * np.exp(w) + np.tanh(v * w) - np.sqrt(v) / (1.0 + w * w))


def unary_family(v):
    a = np.cos(v) + np.log(v) + np.log1p(v) + np.expm1(v) + np.arctan(v) + np.sinh(v)
    b = np.cosh(v) + np.log2(v) + np.log10(v) + np.tan(v) + np.abs(v - 0.7) + v**1.5
    b += np.arcsinh(v) * np.arccosh(v + 1.0) + np.arctanh(0.5 * v) + np.fmax(v, 0.8)
    return np.sum(a * b)


def broadcasting(col, row, m):
    return np.sum((col * row + m) ** 2) + np.sum(col - row)


def scalar_with_array(s, v):
    return np.sum(s * v + s / v - v**s)


def reductions(m):
    return np.sum(np.sum(m, axis=0) ** 2) + np.sum(np.mean(m, axis=1) ** 2) + np.mean(m) ** 2


def extremes(v):
    return np.max(v) * np.min(v) + np.prod(v) + np.sum(np.cumsum(v) ** 2)


def products(m, n, v):
    a = m @ n
    b = np.dot(m, v[:4])
    c = np.dot(v, v)
    return np.sum(a * a) + np.sum(b * b) + c + np.sum(np.outer(v, v[:3]))


def norms(v, m):
    return np.linalg.norm(v) + np.linalg.norm(m) ** 2


def reshaping(m):
    t = m.T
    r = m.ravel()
    q = m.reshape(4, 3)
    return np.sum(t * q) + np.sum(r * r)


def selection(v, w):
    a = np.where(v > 0.8, v * v, w)
    b = np.maximum(v, w) + np.minimum(v, 0.5)
    c = np.clip(v, 0.4, 1.0)
    return np.sum(a * b + c)


def constructors(a, b, v):
    g = np.linspace(a, b, 5)
    r = np.arange(a, a + 2.5, b)
    f = np.full(5, a * b)
    c = v.copy()
    return np.sum(g * v) + np.sum(r * r) + np.sum(f * c)


def slices(m, v):
    top = m[0, :]
    left = m[:, 1]
    inner = v[1:-1]
    return np.sum(top * top) + np.sum(left * v[:3]) + np.sum(inner[::2])


CASES = [
    (elementwise, (V, W), (0, 1)),
    (unary_family, (V,), 0),
    (broadcasting, (COL, ROW, M), (0, 1, 2)),
    (scalar_with_array, (1.3, V), (0, 1)),
    (reductions, (M,), 0),
    (extremes, (V,), 0),
    (products, (M, N, V), (0, 1, 2)),
    (norms, (V, M), (0, 1)),
    (reshaping, (M,), 0),
    (selection, (V, W), (0, 1)),
    (constructors, (0.3, 0.7, V), (0, 1, 2)),
    (slices, (M, V), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize(("func", "args", "argnums"), CASES, ids=[c[0].__name__ for c in CASES])
def test_array_rule_against_finite_differences(func, args, argnums, jit):
    sd.check_grad(func, *args, argnums=argnums, rtol=1e-6, atol=1e-8, jit=jit)


def test_max_and_min_send_the_derivative_to_the_first_tie():
    def tied(v):
        return np.max(v) - np.min(v)

    grad = sd.grad(tied, jit=False)(np.array([2.0, 5.0, 1.0, 5.0, 1.0]))
    np.testing.assert_array_equal(grad, [0.0, 1.0, -1.0, 0.0, 0.0])


def region_writes(v, w):
    out = np.zeros_like(v)
    out[:] = v * w
    out[1:-1] = out[1:-1] + 2.0 * v[:-2] * w[2:]
    out[::2] *= 3.0
    return np.sum(out * out)


def whole_array_update(x, y, steps):
    for _ in range(steps):
        x += 0.1 * np.sin(y) * x
        y -= 0.05 * x
    return np.sum(x * y)


def row_writes(m, v):
    out = np.zeros((m.shape[0], v.shape[0]))
    for i in range(m.shape[0]):
        out[i, :] = m[i, 0] * v
    out[:, 0] = m[:, 1] ** 2
    return np.sum(out * out)


WRITE_CASES = [
    (region_writes, (V, W), (0, 1)),
    (whole_array_update, (V, W, 3), (0, 1)),
    (row_writes, (M, V), (0, 1)),
]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize(
    ("func", "args", "argnums"), WRITE_CASES, ids=[c[0].__name__ for c in WRITE_CASES]
)
def test_array_writes_against_finite_differences(func, args, argnums, jit):
    sd.check_grad(func, *args, argnums=argnums, rtol=1e-6, atol=1e-8, jit=jit)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_in_place_updates_leave_the_caller_arrays_as_the_primal_does(jit):
    x, y = V.copy(), W.copy()
    gx, gy = sd.grad(whole_array_update, argnums=(0, 1), jit=jit)(x, y, 3)
    x_ref, y_ref = V.copy(), W.copy()
    whole_array_update(x_ref, y_ref, 3)
    np.testing.assert_array_equal(x, x_ref)
    np.testing.assert_array_equal(y, y_ref)
    assert gx.shape == V.shape and gy.dtype == W.dtype


def linalg_imported_by_name(a, b):
    """``from numpy.linalg import ...`` and ``import numpy.linalg as la`` spell np.linalg."""
    return norm(b) * np.sum(solve(a, b)) + la.det(a)


def linalg_spelled_np(a, b):
    return np.linalg.norm(b) * np.sum(np.linalg.solve(a, b)) + np.linalg.det(a)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_numpy_linalg_under_any_import_spelling(jit):
    a = np.array([[2.0, 0.3, -0.2], [0.1, 1.5, 0.4], [0.3, -0.6, 1.8]])
    b = np.array([0.4, -0.7, 1.1])
    got = sd.grad(linalg_imported_by_name, argnums=(0, 1), jit=jit)(a, b)
    spelled_np = sd.grad(linalg_spelled_np, argnums=(0, 1), jit=False)
    for mine, reference in zip(got, spelled_np(a, b)):
        np.testing.assert_allclose(mine, reference, rtol=1e-12)
    sd.check_grad(linalg_imported_by_name, a, b, argnums=(0, 1))


def determinant_of_product(a, b):
    return np.linalg.det(a @ b)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_det_at_a_singular_matrix_has_its_cofactors_not_a_linalg_error(jit):
    """d det(A) / dA is the cofactor matrix, finite where A has no inverse (closed form:
    the cofactors of a rank-2 matrix); a Hessian still goes through the inverse."""
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    cofactors = np.array([[4.0, 4.0, -4.0], [-2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    got = sd.grad(determinant_of_product, jit=jit)(singular, np.eye(3))
    np.testing.assert_allclose(got, cofactors, atol=1e-13)
    _, tangent = sd.jvp(determinant_of_product, (singular, np.eye(3)), (np.eye(3), 0 * singular))
    assert tangent == pytest.approx(np.trace(cofactors), abs=1e-13)
    a = np.array([[2.0, 0.3, -0.2], [0.1, 1.5, 0.4], [0.3, -0.6, 1.8]])
    sd.check_grad(determinant_of_product, a, a.T, argnums=(0, 1), jit=jit)
    hessian = sd.hessian(determinant_of_product, jit=jit)(a, np.eye(3))
    gradient = sd.grad(determinant_of_product, jit=False)
    step = np.zeros((3, 3))
    step[1, 2] = 1e-6
    column = (gradient(a + step, np.eye(3)) - gradient(a - step, np.eye(3))) / 2e-6
    np.testing.assert_allclose(hessian[:, :, 1, 2], column, atol=1e-8)


def _masked_copy_from(x, y):
    z = x.copy()
    z[z > 0.0] = y[z > 0.0]
    return np.sum(z * z)


def _masked_read(x):
    y = x[x > 0.1]
    return np.sum(y**3 * np.arange(y.shape[0]))  # each element weighted by its place


def test_a_matrix_mask_set_from_an_array_is_refused_at_the_users_line():
    x = np.array([[0.5, -1.0], [0.2, 0.05]])
    with pytest.raises(sd.SourceDiffError, match=r"test_array_rules.py:\d+: .*np.where"):
        sd.grad(_masked_copy_from, jit=False)(x, x + 1.0)


@pytest.mark.parametrize("jit", [False, True])
def test_a_matrix_mask_reads_in_c_order_whatever_the_layout(jit):
    x = np.asfortranarray(np.sin(np.arange(12.0) * 1.3).reshape(3, 4))
    for given in (x, x[:, ::2]):
        mask = given > 0.1
        places = np.zeros(given.shape)
        places[mask] = np.arange(np.count_nonzero(mask))  # NumPy's order: C order
        expected = 3.0 * given * given * places
        np.testing.assert_allclose(sd.grad(_masked_read, jit=jit)(given), expected, rtol=1e-14)

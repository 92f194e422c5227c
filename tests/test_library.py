"""NumPy functions written in the subset (``sourcediff/library.py``): each against NumPy's
own value and Richardson differences, compiled and as plain Python, and a rank they do
not cover raising NumPy's name rather than computing something else."""

import numpy as np
import pytest
from numpy import polyval
from reference import assert_gradient_matches

import sourcediff as sd


def integrals(y, t):
    return np.trapezoid(y * y, dx=0.5) + np.trapezoid(np.sin(y), t * t)


def polynomials(p, x):
    return np.polyval(p, 0.7) + np.sum(polyval(p[:3], x))


def medians(x):
    return np.median(x) + np.median(x[1:] * 2.0)


def crossed(a, b):
    return np.sum(np.cross(a, b) ** 2) + np.cross(b, a)[0]


def tiled(x):
    return np.sum(np.tile(x, 3) * np.arange(3 * x.shape[0])) + np.sum(np.repeat(x, 2) ** 2)


def gridded(x, y):
    gx, gy = np.meshgrid(x, y)
    ix, iy = np.meshgrid(x, y, indexing="ij")
    return np.sum(gx * gy * gy) + np.sum(np.sin(ix) * iy) + np.float64(x[0]) * np.float32(2.0)


def quantiles(x):
    return np.percentile(x * x, 30.0) + np.quantile(x, 0.9) + np.percentile(x, 100.0)


def other_names(x):
    """np.amax, np.amin and np.around: NumPy's other names of max, min and round."""
    return np.sum(np.amax(np.outer(x, x[:3]), axis=0)) + np.amin(x) * np.sum(
        np.around(2.0 * x + 0.1) * x
    )


def norms(x):
    """np.linalg.norm of orders 1, 2, inf and -inf: of a vector, and along an axis."""
    rows = np.outer(x, x[:3] + 0.15)
    whole = np.linalg.norm(x, 1) + np.linalg.norm(x, ord=np.inf) + np.linalg.norm(x, -np.inf)
    along = np.sum(np.linalg.norm(rows, 1, axis=1) * np.linalg.norm(rows, ord=np.inf, axis=1))
    return whole + np.linalg.norm(x, 2) + along + np.sum(np.linalg.norm(rows, -np.inf, axis=0))


def powered(a, n):
    return np.sum(np.linalg.matrix_power(a, n) * np.arange(9.0).reshape(3, 3))


X = np.array([0.3, -0.7, 1.1, 0.5, 0.05])
M = np.array([[0.5, 0.1, -0.2], [0.3, 0.4, -0.1], [-0.1, 0.2, 0.6]])
Y = np.array([0.2, 0.9, -0.4])
CASES = [
    (integrals, (X, np.linspace(0.0, 1.0, 5)), (0, 1)),
    (polynomials, (X, Y), (0, 1)),
    (medians, (X,), 0),
    (quantiles, (X,), 0),
    (quantiles, (X[:4],), 0),
    (other_names, (X,), 0),
    (norms, (X,), 0),
    (crossed, (X[:3], Y), (0, 1)),
    (tiled, (X,), 0),
    (gridded, (X, Y), (0, 1)),
    (powered, (M, 7), 0),
]


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
@pytest.mark.parametrize("func, args, argnums", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_value_and_gradient(func, args, argnums, jit):
    value, _ = sd.value_and_grad(func, argnums=argnums, jit=jit)(*args)
    assert value == pytest.approx(func(*args), rel=1e-13)
    assert_gradient_matches(func, args, argnums, "auto", jit)


def median_of_matrix(a):
    return np.median(a * 2.0)


def test_ranks_not_covered_raise_at_the_users_line():
    """A library definition's refusal names the user's call, and stays a ValueError."""
    line = median_of_matrix.__code__.co_firstlineno + 1
    where = rf"test_library.py:{line}: np.median: only a 1-D array"
    with pytest.raises(sd.SourceDiffError, match=where) as refused:
        sd.jit(median_of_matrix)(np.ones((2, 3)))
    assert isinstance(refused.value, ValueError)
    with pytest.raises(sd.SourceDiffError, match=where):
        sd.vjp(median_of_matrix, np.ones((2, 3)))


@pytest.mark.parametrize(
    ("policy", "jit"),
    [("store", False), ("recompute", False), (sd.Checkpoint(snapshots=2), False)]
    + [("auto", False), ("auto", True)],
)
def test_matrix_power_matches_its_closed_form(policy, jit):
    """d/dA sum(W * A^n) = sum over k < n of (A^k)^T W (A^(n-1-k))^T, for n = 0 ... 6."""
    weights = np.arange(9.0).reshape(3, 3)
    powers = [np.linalg.matrix_power(M, k) for k in range(7)]
    for n in range(7):
        terms = [powers[k].T @ weights @ powers[n - 1 - k].T for k in range(n)]
        want = sum(terms, np.zeros((3, 3)))
        got = sd.grad(powered, policy=policy, jit=jit)(M, n)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def percentile_out_of_range(x):
    return np.percentile(x, 150.0) * 2.0


def quantile_out_of_range(x):
    return np.quantile(x, -0.1) * 2.0


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize(
    ("func", "name"),
    [(percentile_out_of_range, "np.percentile"), (quantile_out_of_range, "np.quantile")],
)
def test_a_q_out_of_range_raises_at_the_users_line(func, name, jit):
    line = func.__code__.co_firstlineno + 1
    with pytest.raises(sd.SourceDiffError, match=rf"test_library.py:{line}: {name}: q must"):
        sd.grad(func, jit=jit)(X)


def test_a_matrix_norm_of_another_order_raises_at_the_users_line():
    line = norms.__code__.co_firstlineno + 3
    with pytest.raises(sd.SourceDiffError, match=rf"test_library.py:{line}: np.linalg.norm: ord=1"):
        sd.grad(norms, jit=False)(np.ones((2, 3)))


@pytest.mark.parametrize("jit", [False, True])
def test_matrix_power_of_a_negative_exponent_raises_at_the_users_line(jit):
    line = powered.__code__.co_firstlineno + 1
    where = rf"test_library.py:{line}: np.linalg.matrix_power: only n >= 0"
    with pytest.raises(sd.SourceDiffError, match=where):
        sd.grad(powered, jit=jit)(M, -1)

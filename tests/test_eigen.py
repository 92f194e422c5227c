"""Symmetric eigendecompositions (``sourcediff/eigen.py``): ``np.linalg.eigvalsh`` and
both results of ``np.linalg.eigh``, of a matrix built symmetric and of one that is not
(LAPACK reads the lower triangle, and so does the adjoint). Gradients against
Richardson-extrapolated central differences at two points, under store and recompute,
compiled and as plain Python; forward mode against the gradient."""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def spectrum(x):
    m = np.outer(x, x) + np.diag(np.arange(1.0, x.shape[0] + 1.0))
    return np.sum(np.linalg.eigvalsh(m) ** 2) + np.linalg.eigvalsh(m)[-1]


def weighted_modes(x):
    m = np.outer(x, np.sin(x))
    m = m + m.T + np.diag(np.arange(1.0, x.shape[0] + 1.0) * 3.0)
    w, v = np.linalg.eigh(m)
    # Squares and fourth powers: independent of each eigenvector's sign.
    return np.sum(w * np.sum(v**2 * np.arange(4.0)[:, None], axis=0)) + np.sum(v[:, 0] ** 4)


def lower_triangle_read(a):
    return np.sum(np.linalg.eigvalsh(a * a[0, 1] + np.eye(3) * 4.0) * np.arange(3.0))


POINTS = [np.array([0.3, -1.2, 0.7, 0.5]), np.array([1.1, 0.2, -0.4, 0.9])]
MATRIX = np.array([[2.0, 0.3, -0.5], [0.1, 1.0, 0.2], [0.4, 0.7, -1.0]])


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [spectrum, weighted_modes])
def test_gradients_of_eigendecompositions(func, jit):
    for x in POINTS:
        for policy in ("store", "recompute"):
            assert_gradient_matches(func, (x,), 0, policy, jit)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_only_the_lower_triangle_is_read(jit):
    assert_gradient_matches(lower_triangle_read, (MATRIX,), 0, "auto", jit)
    gradient = sd.grad(lower_triangle_read, jit=jit)(MATRIX)
    assert gradient[1, 2] == 0.0 and gradient[0, 2] == 0.0  # above the diagonal: unread


@pytest.mark.parametrize("func", [spectrum, weighted_modes])
def test_forward_mode_of_eigendecompositions(func):
    x, direction = POINTS[0], np.array([0.4, -0.1, 0.3, 0.8])
    _, tangent = sd.jvp(func, (x,), (direction,))
    assert tangent == pytest.approx(float(sd.grad(func)(x) @ direction), rel=1e-9)

"""Small arrays split into numbers (sourcediff/normalize/small_arrays.py): rows of a
parameter whose last axis is short, their constant slices and elementwise results,
``np.cross``/``np.dot``/``np.sum`` of them; and the cases that must stay arrays (a row
of a parameter written later, a written array another name shares), whose values the
split would change."""

import math
import re

import numpy as np
import pytest

import sourcediff as sd


def turned(points, axis, s):
    """Rows rotated about ``axis`` (Rodrigues), an early return for a short axis."""
    total = 0.0
    for i in range(points.shape[0]):
        p = points[i]
        total += np.sum(_turn(p[0:3], axis[i], s) * p[::-1][:3]) + p[-1] * len(p)
    return total


def _turn(v, k, s):
    sq = np.dot(k, k)
    if sq > 0.25:
        n = math.sqrt(sq)
        u = k / n
        c = math.cos(n * s)
        return v * c + np.cross(u, v) * math.sin(n * s) + u * (np.dot(u, v) * (1.0 - c))
    return v + np.cross(k, v) * s


def particles(pos, vel, m, steps, dt):
    """Softened gravity written with rows (``r = x[j] - x[i]``, ``f[i] += s * r``),
    explicit Euler; the final kinetic energy."""
    x = pos.copy()
    v = vel.copy()
    for _ in range(steps):
        f = np.zeros((x.shape[0], 3))
        for i in range(x.shape[0]):
            for j in range(i + 1, x.shape[0]):
                r = x[j] - x[i]
                d2 = np.dot(r, r) + 0.01
                s = m[i] * m[j] / (d2 * math.sqrt(d2))
                f[i] += s * r
                f[j] -= s * r
        v = v + dt * f / m[:, None]
        x = x + dt * v
    e = 0.0
    for i in range(x.shape[0]):
        e += 0.5 * m[i] * np.dot(v[i], v[i])
    return e


def row_before_write(P, x):
    r = P[0] * x  # a new array: the write below leaves it as it is
    P[0, 1] = x * x  # so P's rows are not split (a row of it is a view)
    return np.sum(r * P[0]) + np.sum(P[1] * P[2])


def built_then_read(P, x):
    v = np.zeros(3)
    v[0] = x * P[0, 0]
    v[2] = math.sin(x)
    w = v  # named again once built, as an inlined helper returns it
    return np.sum(w * P[1]) + w[-1] * v[0]


def _points():
    rng = np.random.default_rng(3)
    points = rng.normal(size=(5, 4))
    axis = rng.normal(size=(5, 3))
    axis[1] = 0.1  # the short branch of _turn
    return points, axis


#: Every policy as Python; compiled under store and revolve (the fuzzer's small_vectors
#: programs run every policy compiled).
RUNS = [
    ("store", False),
    ("recompute", False),
    (sd.Checkpoint(snapshots=2), False),
    ("store", True),
    (sd.Checkpoint(snapshots=2), True),
]
RUN_IDS = ["store-py", "recompute-py", "revolve-py", "store-jit", "revolve-jit"]


@pytest.mark.parametrize(("policy", "jit"), RUNS, ids=RUN_IDS)
def test_rows_rotated_by_a_helper(policy, jit):
    points, axis = _points()
    sd.check_grad(turned, points, axis, 0.7, argnums=(0, 1, 2), policy=policy, jit=jit)


@pytest.mark.parametrize(("policy", "jit"), RUNS, ids=RUN_IDS)
def test_particles_written_with_rows(policy, jit):
    rng = np.random.default_rng(5)
    args = (rng.normal(size=(4, 3)), 0.1 * rng.normal(size=(4, 3)), rng.uniform(0.5, 1.5, 4))
    sd.check_grad(particles, *args, 3, 0.01, argnums=(0, 1, 2), policy=policy, jit=jit)
    source = sd.adjoint_source(particles, argnums=(0, 1), policy=policy, args=(*args, 3, 0.01))
    assert "r_2 = x[j, 2] - x[i, 2]" in source  # the rows of x and f are read as numbers
    assert re.search(r"= f\[i, 2\] \+ s \* r_2\n", source)


def test_the_derivative_reads_numbers_not_small_arrays():
    points, axis = _points()
    source = sd.adjoint_source(turned, argnums=(0, 1, 2), args=(points, axis, 0.7))
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    vjp = "\n".join(code).split("def turned_vjp")[1]
    for array_code in ("np.cross", "numpy_cross", "np.empty((", "List", "dot("):
        assert array_code not in vjp
    assert vjp.count("zeros_like") == 2  # points_bar and axis_bar: no temporary's adjoint
    assert "raise ValueError" not in source  # np.cross's shape checks were decided
    assert "p_3 = points[i, 3]" in source


def test_each_trailing_length_has_its_own_derivative():
    points, axis = _points()
    grad = sd.grad(turned, argnums=(0, 1))
    for width in (3, 6):
        wide = np.random.default_rng(width).normal(size=(5, width))
        got = grad(wide, axis, 0.7)
        sd.check_grad(turned, wide, axis, 0.7, argnums=(0, 1), jit=False)
        want = sd.grad(turned, argnums=(0, 1), jit=False)(wide, axis, 0.7)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [row_before_write, built_then_read])
def test_written_arrays(func, jit):
    P = np.random.default_rng(4).normal(size=(3, 3))
    value, grads = sd.value_and_grad(func, argnums=1, jit=jit)(P.copy(), 0.3)
    assert value == pytest.approx(func(P.copy(), 0.3), rel=1e-14)
    sd.check_grad(func, P.copy(), 0.3, argnums=1, jit=jit)

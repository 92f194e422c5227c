"""Small arrays split into numbers (sourcediff/normalize/small_arrays.py): rows of a
parameter whose last axis is short, their constant slices and elementwise results,
``np.cross``/``np.dot``/``np.sum`` of them; and the cases that must stay arrays (a row
of a parameter written later, a written array another name shares), whose values the
split would change."""

import math
import re

import numpy as np
import pytest
from reference import array_central_difference, assert_close_arrays

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


def _function(source):
    import ast

    return ast.parse(source).body[0]


def test_a_row_used_after_a_write_into_its_array_is_not_read_as_numbers():
    """A row is a view: its elements are read where it is taken only if every use of it
    comes before anything writes into the array (or a call that may)."""
    from sourcediff.analysis.types import TypeTable, VarType
    from sourcediff.normalize.small_lengths import Rows, readable_row_reads

    vec, mat = VarType("array", "float64", 1), VarType("array", "float64", 2)
    num = VarType("float", "float64")
    kinds = {"A": mat, "i": VarType("int", "int64"), "r": vec, "u": vec, "q": vec, "s": num}
    node = _function(
        "def f(A, i, s):\n"
        "    r = A[i, :]\n"
        "    q = r * s\n"  # every use of r before the write: readable
        "    A[i, 0] = s\n"
        "    u = A[i, :]\n"
        "    A[i, 1] = s\n"
        "    q = u * s\n"  # a use after the write: not readable
        "    return s\n"
    )
    reads = readable_row_reads(node, Rows({"A": 3}), {"A"}, TypeTable(kinds, num))
    assert id(node.body[0].value) in reads
    assert id(node.body[3].value) not in reads
    assert readable_row_reads(node, Rows({"A": 3}), set(), TypeTable(kinds, num)) == {
        id(node.body[0].value),
        id(node.body[3].value),
    }  # nothing writes into A: every row is read where it is taken


def test_known_tests_forget_what_a_loop_or_a_branch_binds():
    import ast

    from sourcediff.normalize.known_tests import fold_known_tests

    node = _function(
        "def f(x, n):\n"
        "    c = 1 == 1\n"
        "    for i in range(n):\n"
        "        c = x > 0.0\n"
        "    if c:\n"  # unknown after the loop: kept
        "        x = 2.0 * x\n"
        "    d = 1 == 1\n"
        "    if x > 1.0:\n"
        "        d = 2 == 1\n"
        "    if d:\n"  # unknown after the branch: kept
        "        x = x + 1.0\n"
        "    if 1 or d:\n"  # a number, not a test: kept
        "        x = x - 1.0\n"
        "    return x\n"
    )
    fold_known_tests(node)
    assert ast.unparse(node).count("if ") == 4


def axis_moments(P, Q, s):
    """Cross products of unit rows: ``np.cross`` of split 3-vectors copies elements."""
    total = 0.0
    for i in range(P.shape[0]):
        w = P[i] / math.sqrt(np.dot(P[i], P[i]))
        c = np.cross(w, Q[i]) * s
        total += c[0] * c[0] + 2.0 * c[1] - c[2] * w[2]
    return total


def _moment_args():
    rng = np.random.default_rng(8)
    return rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), 0.8


@pytest.mark.parametrize(("policy", "jit"), RUNS, ids=RUN_IDS)
def test_cross_of_split_rows(policy, jit):
    args = _moment_args()
    got = sd.grad(axis_moments, argnums=(0, 1, 2), policy=policy, jit=jit)(*args)
    want = array_central_difference(axis_moments, args, (0, 1, 2))
    assert_close_arrays(got, want, rtol=1e-7, atol=1e-9, context=f"{policy} jit={jit}")


def test_no_number_is_recorded_twice_under_two_names():
    # Copies into temporaries and split elements are propagated before the derivative is
    # built, and the elements of a split row are read again under "store": per row,
    # t6, w_0..w_2, the three cross products and c_0, c_2 (9 floats; 18 before: the
    # element reads P[i, k], Q[i, k] and their copies were recorded as well).
    P, Q, s = _moment_args()
    for policy in ("store", "auto"):
        size = sd.tape_size(axis_moments, P, Q, s, argnums=(0, 1, 2), policy=policy, jit=False)
        assert size == 9 * 8 * P.shape[0]
    source = sd.adjoint_source(axis_moments, argnums=(0, 1, 2), args=(P, Q, s), policy="store")
    vjp = source.split("def axis_moments_vjp")[1].split("def axis_moments_record_bytes")[0]
    assert re.findall(r"^\s+(\w+) = ([A-Za-z_]\w*)$", vjp, re.MULTILINE) == []

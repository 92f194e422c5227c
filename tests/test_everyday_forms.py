"""Everyday spellings a realistic-program campaign found refused, now differentiated:
``for`` over an array expression (``coeffs[::-1]``, ``np.flip(c)``), ``reversed(range(...))``,
``math.log(x, base)``, the array methods ``clip``, ``trace`` and ``transpose``, a helper
updating its array argument in place (``v -= np.mean(v)``), a loop variable whose name is
also used outside its loops, a module-level tuple of numbers, ``C[i][j] = v``, the
builtin ``sum`` and ``abs`` of an array, and lists of numbers joined to arrays
(``np.concatenate(([a], x))``), and ``a.fill(v)``.

Each gradient is checked against Richardson-extrapolated central differences at two
points, compiled and as plain Python.
"""

import ast
import math

import numpy as np
import pytest
from reference import assert_gradient_matches
from scope import every_third

import sourcediff as sd
from sourcediff.normalize.arrays import reversed_range

COEFFS = (0.5, -0.25, 2, 0.125)  # a module-level tuple of numbers: a constant array


def horner_reversed_slice(coeffs, x):
    acc = 0.0
    for c in coeffs[::-1]:
        acc = acc * x + c
    for c in COEFFS:
        acc = acc * x + c * COEFFS[1]
    return acc


def horner_flip(coeffs, x):
    acc = 0.0
    for c in np.flip(coeffs * 1.5):
        acc = acc * x + math.sin(c)
    return acc


def discounted_returns(r, gamma):
    g = 0.0
    out = np.zeros(r.shape[0])
    for t in reversed(range(r.shape[0])):
        g = r[t] + gamma * g
        out[t] = g
    total = 0.0
    for t in reversed(range(1, r.shape[0], 2)):  # every other step, backwards
        total += out[t] * out[t - 1]
    return np.sum(out**2) + total


def logs_and_methods(w, b):
    m = np.outer(w, w) + np.eye(w.shape[0])
    clipped = w.clip(-0.5, 0.6)
    return (
        math.log(b * b + 1.0, 10)
        + math.log(3.0, b)
        + np.sum(clipped * w)
        + (m.transpose() @ w).sum() * m.trace()
    )


def center(v):
    v -= np.mean(v)


def scale_both(v, c):
    v *= c  # the caller's array, in place
    c += 1.0  # a number: the helper's own
    return c


def helpers_updating_in_place(x, c):
    y = x.copy()
    center(y)
    d = scale_both(y, c)
    center(x)  # the function's own argument
    return np.sum(y**3) * d + np.sum(x * y) + c


def loop_variable_reused(x, c):
    """``i`` bound from an index array, then a loop over ``i``; ``y[i]`` read between two
    loops over ``i`` (its last value); each loop gets its own variable."""
    u = x.copy()
    idx = np.array([2, 0, 1])
    for e in range(3):
        i = idx[e]
        u[i] += c * u[(i + 1) % 3]
    t = 0.0
    for i in range(3):
        t += u[i] * u[i]
    for i in range(1, 3):
        u[i] = c * u[i - 1] + u[i]
    last = u[i]
    for i in range(1, -1, -1):
        u[i] = c * u[i + 1] + u[i]
    return t + np.sum(u**2) + last * i


def chained_writes(x, c):
    """``C[i][j] = ...`` and ``C[i][j] += ...``: elements of a 2-D array."""
    n = x.shape[0]
    g = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            g[i][j] = x[i] * x[j] * c
            g[i][j] += math.sin(x[i] - x[j])
    return np.sum(g * g)


def builtin_sums(x, c):
    """``sum`` of a vector (a number) and of a matrix (its rows added: a vector)."""
    m = np.outer(x, x) * c
    return sum(x * x) + sum(sum(m) * x) + sum(v * c for v in x)


def joined_with_numbers(x, a):
    """Lists of numbers among the pieces NumPy joins; a list of arrays stays a list of
    pieces."""
    u = np.concatenate([x, x * a])
    v = np.concatenate(([a], x, [a * 2.0, 1.0]))
    w = np.append(x, [a, 3.0])
    z = np.hstack((x, [a]))
    return np.sum(u * u) + np.sum(np.diff(v) ** 2) + np.sum(w**3) + np.sum(z * np.sin(z))


def abs_of_arrays(x, c):
    """The builtin ``abs`` of arrays and of a number."""
    m = np.outer(x, x) - c
    return np.sum(abs(x - 0.1 * c) * x) + np.sum(abs(m)) * abs(c)


def filled_buffers(x, c):
    """``a.fill(v)``: a buffer filled with a number, once and again in a loop."""
    m = np.empty((2, x.shape[0]))
    m.fill(c * x[1])
    m[0, :] = x
    acc = np.zeros(x.shape[0])
    for k in range(2):
        acc.fill(x[k] + c)
        m[1, :] += acc * x
    return np.sum(m * m)


def _points(n, seed):
    return np.random.default_rng(seed).uniform(-0.9, 0.9, n)


CASES = {
    "horner_reversed_slice": (horner_reversed_slice, lambda k: (_points(4, k), 0.7 - k)),
    "horner_flip": (horner_flip, lambda k: (_points(3, k), 0.4 + k)),
    "discounted_returns": (discounted_returns, lambda k: (_points(6, k), 0.9 - 0.2 * k)),
    "logs_and_methods": (logs_and_methods, lambda k: (_points(3, k), 1.7 + k)),
    "helpers_updating_in_place": (helpers_updating_in_place, lambda k: (_points(4, k), 0.8 - k)),
    "loop_variable_reused": (loop_variable_reused, lambda k: (_points(3, k), 0.6 + 0.3 * k)),
    "chained_writes": (chained_writes, lambda k: (_points(3, k), 0.5 + k)),
    "builtin_sums": (builtin_sums, lambda k: (_points(4, k), 0.3 + k)),
    "joined_with_numbers": (joined_with_numbers, lambda k: (_points(4, k), 0.7 - k)),
    "abs_of_arrays": (abs_of_arrays, lambda k: (_points(4, k), 0.35 - k)),
    "filled_buffers": (filled_buffers, lambda k: (_points(4, k), 0.45 + k)),
}


# Every case in Python, a third of them compiled (all with SOURCEDIFF_FULL_SUITE=1).
PAIRS = [(case, False) for case in sorted(CASES)]
PAIRS += [(case, True) for case in every_third(sorted(CASES))]


@pytest.mark.parametrize(("case", "jit"), PAIRS, ids=[f"{c}-{j}" for c, j in PAIRS])
def test_gradients_of_everyday_forms(case, jit):
    func, make_args = CASES[case]
    for seed in (0, 1):
        assert_gradient_matches(func, make_args(seed), (0, 1), jit=jit)


@pytest.mark.parametrize("start", [-3, 0, 2])
@pytest.mark.parametrize("stop", [-4, 0, 1, 5, 9])
@pytest.mark.parametrize("step", [-3, -1, 1, 2, 4])
def test_reversed_range_visits_what_python_visits(start, stop, step):
    it = ast.parse(f"reversed(range({start}, {stop}, {step}))", mode="eval").body
    rewritten = eval(ast.unparse(reversed_range(it)))
    assert list(rewritten) == list(reversed(range(start, stop, step)))


def test_the_builtin_abs_of_an_array_compiles_with_sd_jit_too():
    x = _points(4, 3)
    assert sd.jit(abs_of_arrays)(x, 0.4) == pytest.approx(abs_of_arrays(x, 0.4), rel=1e-14)


def tridiagonal(x, c):
    """``np.diag`` with an offset both ways: a vector put on a side diagonal, and a side
    diagonal read back."""
    a = np.diag(2.0 + x * x) - np.diag(c * x[1:], 1) - np.diag(c * x[:-1], k=-1)
    return np.sum(np.linalg.solve(a, x)) + np.sum(np.diag(a @ a, -1) ** 2)


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_offset_diagonals(jit):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    for policy in ("store", "recompute") if not jit else ("auto",):
        assert_gradient_matches(tridiagonal, (x, 0.4), (0, 1), policy, jit)
    grad_x, grad_c = sd.grad(tridiagonal, argnums=(0, 1), jit=jit)(x, 0.4)
    _, tangent = sd.jvp(tridiagonal, (x, 0.4), (np.ones(4), 1.0), jit=jit)
    assert tangent == pytest.approx(np.sum(grad_x) + grad_c, rel=1e-12)


def selected_by_where(x):
    """``np.where(c)`` (the indices where c holds) selects elements; the Frobenius norm
    with its ``ord`` given positionally."""
    idx = np.where(x > 0.0)[0]
    return np.sum(x[idx] ** 2) + np.linalg.norm(np.outer(x, x), "fro")


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_indices_where_and_a_positional_norm_order(jit):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    assert_gradient_matches(selected_by_where, (x,), 0, "auto", jit)


def rows_of_arrays(x, c):
    """``np.array`` of a list of arrays: a matrix of those rows (of numbers: a vector)."""
    m = np.array([x, x**2, np.sin(c * x)])
    v = np.array([x[0], c, 2.0])
    return np.sum(m @ x) + np.sum(v * v)


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_an_array_of_arrays_is_a_matrix(jit):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    for policy in ("store", "recompute"):
        assert_gradient_matches(rows_of_arrays, (x, 0.8), (0, 1), policy, jit)

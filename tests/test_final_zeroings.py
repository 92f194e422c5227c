"""Three rewrites of the optimizer stage: the last zeroings of a private adjoint buffer go
(transform/dead_zeroings.py), a copy that is a second name of its source is read as the
source everywhere (transform/fold.py), and a loop bound read after its loop is computed
before it (transform/hoist.py). What they rewrite, what they must leave alone, and that
the gradients are bit for bit the unoptimized ones, under every policy."""

import ast

import numpy as np
import pytest
from benchmark_kernels import kernel_module

import sourcediff as sd
from sourcediff.transform.dead_zeroings import drop_final_zeroings
from sourcediff.transform.fold import fold_temporaries
from sourcediff.transform.hoist import hoist_loop_invariants

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(source).body[0]


_ZEROING_LOOP = "    for i in range(n):\n        f_bar[i, 0] = 0.0\n        f_bar[i, 1] = 0.0\n"


def test_the_last_zeroing_loop_of_a_private_buffer_goes():
    fn = _function(
        "def f_vjp(x, n):\n"
        "    f_bar = np.zeros_like(x)\n"
        "    x_bar = np.zeros_like(x)\n"
        "    for i in range(n):\n"
        "        x_bar[i, 0] += 2.0 * f_bar[i, 1]\n" + _ZEROING_LOOP + "    return x_bar\n"
    )
    assert drop_final_zeroings(fn, {"x": 2, "f_bar": 2, "x_bar": 2}, frozenset({"n"}))
    assert "f_bar[i, 0] = 0.0" not in ast.unparse(fn)


@pytest.mark.parametrize(
    "setup,after",
    [
        ("    f_bar = np.zeros_like(x)\n", "    return f_bar\n"),  # returned: read
        ("    f_bar = np.zeros_like(x)\n", "    y = np.sum(f_bar)\n    return y\n"),  # read
        ("    f_bar = np.zeros_like(x)\n    row = f_bar[0]\n", "    return row\n"),  # a view
        ("    f_bar = x\n", "    return x\n"),  # the caller's memory
        ("    f_bar = np.zeros_like(x)\n", "    return i\n"),  # the loop's last index
        # views that escape through an expression (review of 2026-12-07)
        ("    f_bar = np.zeros_like(x)\n    row = f_bar[0:1].reshape(-1)\n", "    return row\n"),
        ("    f_bar = np.zeros_like(x)\n    row = np.asarray(f_bar[0])\n", "    return row\n"),
        ("    f_bar = np.zeros_like(x)\n    s = slice(0, 2)\n    row = f_bar[0, s]\n", ""),
        ("    f_bar = np.zeros_like(x)\n    g = lambda: f_bar[0, 0]\n", "    return g()\n"),
    ],
    ids=["returned", "read-later", "view", "parameter", "loop-variable"]
    + ["reshaped-view", "asarray-view", "slice-in-a-name", "lambda"],
)
def test_zeroings_something_may_read_stay(setup, after):
    fn = _function("def f_vjp(x, n):\n" + setup + _ZEROING_LOOP + (after or "    return row\n"))
    assert not drop_final_zeroings(fn, {"x": 2, "f_bar": 2, "row": 1}, frozenset({"n"}))


def test_a_copy_right_after_its_sources_only_binding_is_a_second_name():
    fn = _function(
        "def f(A, steps):\n"
        "    t23 = A.shape[0]\n"
        "    for _ in range(steps):\n"
        "        t24 = t23 - 2\n"
        "        t26 = t24\n"
        "        for j in range(t24):\n"
        "            A[j] = A[j] * 0.5\n"
        "        for j in range(t26):\n"
        "            A[j + 1] += 1.0\n"
        "    return A[t26] + A[t24]\n"
    )
    assert fold_temporaries(fn)
    assert "t26" not in ast.unparse(fn)


@pytest.mark.parametrize(
    "between",
    ["        t24 = t24 + 1\n", "        t26 = 3\n", "        s = t26\n"],
    ids=["source-bound-again", "copy-bound-again", "read-in-between"],
)
def test_a_copy_that_may_differ_from_its_source_keeps_its_name(between):
    source = (
        "def f(A, steps):\n"
        "    for _ in range(steps):\n"
        "        t24 = A.shape[0] - 2\n"
        "        t26 = t24\n" + between + "        A[t24] += 1.0\n"
        "    return A[t26] + A[t24]\n"
    )
    fn = _function(
        source.replace(
            "        t26 = t24\n        s = t26\n", "        s = t26\n        t26 = t24\n"
        )
    )
    fold_temporaries(fn)
    assert "t26" in ast.unparse(fn)


@pytest.mark.parametrize(
    "source",
    [
        "def f(n, *, b):\n    for i in range(n):\n        a = i + 1\n        b = a\n"
        "        n = n + b\n    return b\n",
        "def f(n):\n    for i in range(n):\n        a = i + 1\n        b = a\n"
        "        g = lambda a: a + b\n    return g(b) + b\n",
    ],
    ids=["keyword-only-parameter", "lambda"],
)
def test_no_second_name_for_a_parameter_or_across_a_lambda(source):
    fn = _function(source)
    fold_temporaries(fn)
    assert "b" in {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}


def test_a_copy_read_after_its_loop_is_not_hoisted():
    fn = _function(
        "def f(m, steps):\n    for s in range(steps):\n        p = m\n        m2 = m * 2\n"
        "    return p\n"
    )
    hoist_loop_invariants(fn)
    loop = next(stmt for stmt in fn.body if isinstance(stmt, ast.For))
    assert [ast.unparse(stmt) for stmt in loop.body] == ["p = m"]  # m2 moved, the copy stays


def test_a_loop_bound_read_after_the_loop_is_computed_before_it():
    fn = _function(
        "def f(A, steps):\n"
        "    t23 = A.shape[0]\n"
        "    for _ in range(steps):\n"
        "        t24 = t23 - 2\n"
        "        for j in range(t24):\n"
        "            A[j] += 1.0\n"
        "    for j in range(t24):\n"
        "        A[j] -= 1.0\n"
    )
    assert hoist_loop_invariants(fn)
    assert ast.unparse(fn.body[1]) == "t24 = t23 - 2"


def _zero_forces(x, force):
    for i in range(x.shape[0]):
        force[i, 0] = 0.0
        force[i, 1] = 0.0
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            d = x[j, 0] - x[i, 0] + 0.5 * (x[j, 1] - x[i, 1])
            force[i, 0] += d * d
            force[j, 1] -= d * x[i, 1]


def _kicked(pos, steps, dt):
    x = pos.copy()
    force = np.zeros((pos.shape[0], 2))
    _zero_forces(x, force)
    for _ in range(steps):
        x += dt * force
        _zero_forces(x, force)
    return np.sum(x * x)


# Every policy as Python (the very source Numba compiles), and the default compiled.
RUNS = [(policy, False) for policy in POLICIES] + [("auto", True)]


@pytest.mark.parametrize(
    "policy,jit", RUNS, ids=[f"{p}-{'compiled' if j else 'python'}" for p, j in RUNS]
)
def test_gradients_are_bit_for_bit_the_unoptimized_ones(policy, jit, monkeypatch):
    rng = np.random.default_rng(11)
    cases = [
        (kernel_module("kernels_more").jacobi_2d, (rng.uniform(0.0, 1.0, (6, 6)), 3)),
        (_kicked, (rng.normal(size=(5, 2)), 4, 0.01)),
    ]
    for func, args in cases:
        results = []
        for flag in ("0", "1"):
            monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", flag)
            results.append(sd.grad(func, policy=policy, jit=jit)(*args))
        np.testing.assert_array_equal(results[1], results[0])
        sd.check_grad(func, *args, policy=policy, jit=jit)

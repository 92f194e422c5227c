"""Updates merged into one statement and zeroings moved down (transform/updates.py,
transform/sink_zeroings.py): what they rewrite, what they must leave alone, and that the
gradients they give are bit for bit the unoptimized ones."""

import ast

import numpy as np
import pytest

import sourcediff as sd
from sourcediff.transform.sink_zeroings import sink_zeroings
from sourcediff.transform.updates import merge_element_updates


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(source).body[0]


def test_updates_of_one_element_merge_in_their_order():
    fn = _function(
        "def f(A, B, i, a, b, c):\n"
        "    A[i, 0] += a\n"
        "    B[i] -= c\n"
        "    A[i, 0] -= b\n"
        "    A[i, 0] += c * a\n"
    )
    assert merge_element_updates(fn)
    assert ast.unparse(fn.body[-1]) == "A[i, 0] = A[i, 0] + a - b + c * a"
    assert len(fn.body) == 2


def test_no_merge_past_a_write_through_a_view_of_the_array():
    fn = _function(
        "def f(A, i, a, b):\n    V = A[1:]\n    A[i] += a\n    V[0] = 2.0\n    A[i] += b\n"
    )
    assert not merge_element_updates(fn)


def test_no_merge_when_the_later_update_reads_a_view_of_the_array():
    # A[i] += a; A[i] += V[0] reads A[i + 1]'s element after the first update: merged,
    # V[0] would be read before it.
    fn = _function("def f(A, i, a):\n    V = A[1:]\n    A[i] += a\n    A[i] += V[0]\n")
    assert not merge_element_updates(fn)


def test_no_merge_of_different_elements_or_past_a_changed_index():
    different = _function("def f(A, i, a, b):\n    A[i] += a\n    A[i + 1] += b\n")
    rebound = _function("def f(A, i, a, b):\n    A[i] += a\n    i = i + 1\n    A[i] += b\n")
    assert not merge_element_updates(different)
    assert not merge_element_updates(rebound)


def test_no_merge_past_a_call_that_may_write():
    fn = _function("def f(A, B, i, a, b):\n    A[i] += a\n    add_into(B, A)\n    A[i] += b\n")
    assert not merge_element_updates(fn)


def test_a_zeroing_never_moves_past_a_jump():
    fn = _function(
        "def f(r_bar, x_bar, n):\n"
        "    for i in range(n):\n"
        "        a_bar = r_bar\n"
        "        r_bar = 0.0\n"
        "        if i > 2:\n"
        "            continue\n"
        "        x_bar[i] += a_bar\n"
        "    return r_bar\n"
    )
    assert not sink_zeroings(fn)


def test_a_zeroing_that_ends_no_hand_off_stays():
    fn = _function("def f(x, n):\n    s_bar = 0.0\n    t = x * 2.0\n    return t + s_bar\n")
    assert not sink_zeroings(fn)


def _stencil_energy(u, v, feed, steps):
    n = u.shape[0]
    for _ in range(steps):
        w = np.empty_like(u)
        for i in range(n):
            left = u[i - 1] if i >= 1 else u[n - 1]
            uvv = u[i] * v[i] * v[i]
            w[i] = u[i] + 0.1 * (left - 2.0 * u[i]) - uvv + feed * (1.0 - u[i])
        u = w
    return np.sum(u * u) + np.sum(u * v)


def _logistic(k, y, n):
    for _ in range(n):
        y = y + 0.1 * k * y * (1.0 - y)
    return y


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_merged_gradients_are_bit_for_bit_the_unoptimized_ones(jit, monkeypatch):
    rng = np.random.default_rng(5)
    u, v = rng.uniform(0.2, 0.8, 7), rng.uniform(0.1, 0.5, 7)
    cases = [(_stencil_energy, (u, v, 0.04, 3), (0, 1, 2)), (_logistic, (1.3, 0.2, 9), (0, 1))]
    for func, args, argnums in cases:
        results = []
        for flag in ("0", "1"):
            monkeypatch.setenv("SOURCEDIFF_OPTIMIZE", flag)
            results.append(sd.grad(func, argnums=argnums, jit=jit)(*args))
        for plain, optimized in zip(results[0], results[1]):
            np.testing.assert_array_equal(optimized, plain)
        sd.check_grad(func, *args, argnums=argnums, jit=jit)


def test_merges_past_updates_of_other_elements_only():
    fn = _function("def f(A, c, a, b, k):\n    A[c, 3] += a\n    A[c, 2] += a\n    A[c, 3] -= b\n")
    assert merge_element_updates(fn)
    assert ast.unparse(fn.body[-1]) == "A[c, 3] = A[c, 3] + a - b"
    for other in ("A[c, k] += a", "A[c, -1] += a", "A[c] += a", "B = A[c, 2]"):
        fn = _function(f"def f(A, c, a, b, k):\n    A[c, 3] += a\n    {other}\n    A[c, 3] -= b\n")
        assert not merge_element_updates(fn), other


_REORDERINGS = [  # each must compute what it computed before the pass (review of 2026-12-07)
    "A[0, 2] = A[0, 2] + A[0, 3]\n    A[0, 3] += 1.0\n    A[0, 2] += 5.0",
    "B = A[0]\n    A[0, 2] += B[3]\n    A[0, 3] += 1.0\n    A[0, 2] -= 0.5",
    "A[..., 2] += 1.5\n    A[0, 3] += 2.0\n    A[..., 2] -= 0.25",
    "A[1, 0] += B[0][1]\n    B[0][1] = 5.0\n    A[1, 0] -= 0.5",
]


@pytest.mark.parametrize("body", _REORDERINGS)
def test_a_merge_never_changes_what_the_statements_compute(body):
    source = f"def f(A, B):\n    {body}\n    return A\n"
    fn = _function(source)
    merge_element_updates(fn)
    results = []
    for code in (source, ast.unparse(fn)):
        namespace = {"np": np}
        exec(code, namespace)
        A, B = np.arange(8.0).reshape(2, 4) * 0.1 + 0.3, np.ones((2, 3))
        results.append(namespace["f"](A, B).copy())
    np.testing.assert_array_equal(results[1], results[0])


def test_an_update_of_a_number_never_moves_past_a_jump():
    from sourcediff.transform.updates import merge_into_update

    class Facts:  # the summaries fold.py gives the pass
        def of(self, stmt):
            from sourcediff.transform.effects import (
                has_effects,
                names_changed,
                names_read,
                names_written,
            )

            return names_read(stmt), names_written(stmt), names_changed(stmt), has_effects(stmt)

    fn = _function("def f(x, a, b, broke):\n    x += a\n    if broke:\n        break\n    x -= b\n")
    assert not merge_into_update(fn.body, 0, "x", Facts(), True)

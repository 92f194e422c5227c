"""Loop invariants computed once (sourcediff/transform/hoist.py), shared by both sweeps
(cse.py across a loop) and copies propagated where their name is bound elsewhere too
(fold.py): what moves, what must stay, and gradients against central differences."""

import ast
import textwrap

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd
from sourcediff.transform.cse import share_common_subexpressions
from sourcediff.transform.fold import fold_temporaries
from sourcediff.transform.hoist import hoist_loop_invariants

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def midpoint(x, v, k, dt, steps):
    """Midpoint steps of an oscillator: ``0.5 * dt`` and ``dt * k`` in every step."""
    for _ in range(steps):
        xm = x + 0.5 * dt * v
        vm = v - 0.5 * dt * k * x
        x = x + dt * vm
        v = v - dt * k * xm
    return x * x + 0.5 * v * v


def last_half_step(x, dt, steps):
    """``h`` is read after the loop: with no step it keeps 1.0, so it must not move."""
    h = 1.0
    for _ in range(steps):
        h = 0.5 * dt
        x = x + h * x * x
    return x * h


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _run(fn: ast.FunctionDef, *args):
    namespace = {}
    exec(compile(ast.fix_missing_locations(ast.Module([fn], [])), "<hoist>", "exec"), namespace)
    return namespace[fn.name](*args)


def test_an_invariant_moves_before_its_loop_and_the_value_is_unchanged():
    fn = _function(
        """
        def f(x, dt, n):
            for i in range(n):
                h = 0.5 * dt
                g = h / 3.0
                x = x + g * x
            return x
        """
    )
    before = _run(fn, 1.0, 0.1, 3)
    assert hoist_loop_invariants(fn)
    assert [type(s).__name__ for s in fn.body] == ["Assign", "Assign", "For", "Return"]
    assert _run(fn, 1.0, 0.1, 3) == before


@pytest.mark.parametrize(
    "body",
    [
        "h = 0.5 * dt\n    x = x + h * x",  # h read after the loop
        "x = x + h * x\n    h = 0.5 * dt",  # read before it in the body: the old h first
        "h = x / dt\n    x = x + h",  # reads what the loop binds, divides by a name
        "h = 0.5 / dt\n    x = x + h",  # a division by a name may fail
        "h = n - 1\n    x = x + h",  # an index: reads better where it is used
        "h = 0.5 * dt\n    h = h * 2.0\n    x = x + h",  # bound twice in the loop
    ],
)
def test_what_must_stay_in_its_loop(body):
    fn = _function(f"def f(x, dt, n):\n  h = 1.0\n  for i in range(n):\n    {body}\n  return x * h")
    before = ast.dump(fn)
    hoist_loop_invariants(fn)
    assert ast.dump(fn) == before


def test_a_product_is_shared_across_a_loop_only_while_nothing_changes_its_inputs():
    fn = _function(
        """
        def f(x, a, dt, n):
            h = 0.5 * dt
            for i in range(n):
                x = x + h * x
            g = 0.5 * dt
            s = a * 2.0
            for i in range(n):
                a[i] = 1.0
            t = a * 2.0
            return x * g + s + t
        """
    )
    assert share_common_subexpressions(fn)
    assert ast.unparse(fn.body[2]) == "g = h"
    assert ast.unparse(fn.body[5]) == "t = a * 2.0"  # a changed in place between


def test_a_copy_is_propagated_into_a_loop_that_binds_neither_name():
    fn = _function(
        """
        def f(x, dt, n):
            t1 = 0.5 * dt
            t8 = t1
            for i in range(n):
                x = x + t8 * x
            t8 = x
            return t8 * t1
        """
    )
    assert fold_temporaries(fn)
    text = ast.unparse(fn)
    assert "t8" not in text and "x = x + t1 * x" in text
    assert _run(fn, 1.0, 0.1, 2) == 1.05**2 * 0.05


def test_the_generated_midpoint_adjoint_computes_half_a_step_once():
    text = sd.adjoint_source(midpoint, argnums=(0, 1, 2, 3), args=(1.0, 0.5, 2.0, 0.1, 4))
    adjoint = text[text.index("def midpoint_vjp") : text.index("def midpoint_record_bytes")]
    code = [line for line in adjoint.splitlines() if not line.lstrip().startswith("#")]
    assert sum(line.count("0.5 * dt") for line in code) == 1, adjoint
    assert sum(line.count("dt * k") for line in code) == 1, adjoint  # both sweeps read it


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_midpoint_gradient(policy, jit, monkeypatch):
    if not jit:
        monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    assert_gradient_matches(midpoint, (1.0, 0.5, 2.0, 0.1, 6), (0, 1, 2, 3), policy, jit)


@pytest.mark.parametrize("steps", [0, 3])
@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_value_read_after_a_loop_of_no_step_keeps_its_old_value(steps, jit):
    args = (0.7, 0.2, steps)
    assert sd.jit(last_half_step)(*args) == pytest.approx(last_half_step(*args), rel=1e-15)
    for policy in ("store", "auto"):
        assert_gradient_matches(last_half_step, args, (0, 1), policy, jit)
    if steps == 0:  # x * 1.0: exactly
        assert sd.grad(last_half_step, argnums=(0, 1), jit=jit)(*args) == (1.0, 0.0)


@pytest.mark.parametrize(
    "write", ["m[...] = t", "p = m\n                p[0] = t[0]", "m += t", "t[0] = 1.0"]
)
def test_a_product_of_an_array_written_in_the_loop_stays(write):
    """``t = m * 1.1`` changes each step when the loop writes ``m`` (directly, through a
    name sharing its memory, in place): it stays (moving it once gave
    silent_wrong_cases.views_of_written_arrays a gradient 37% off)."""
    fn = _function(
        f"""
        def f(m, n):
            for i in range(n):
                t = m * 1.1
                {write}
            return m
        """
    )
    assert not hoist_loop_invariants(fn)


def fresh_each_step(m, x, n):
    """``t`` is a new array every step, then written: hoisting it once made the writes
    pile up (sd.jit gave 9.3 for 6.3, the recompute gradient 21.3 for 15.3)."""
    s = 0.0
    for _ in range(n):
        t = m * 1.1
        t[0] = t[0] + x
        s = s + t[0] * x
    return s


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_an_array_made_every_step_and_written_stays_in_its_loop(policy, jit, monkeypatch):
    m = np.ones(3)
    assert sd.jit(fresh_each_step)(m.copy(), 2.0, 3) == fresh_each_step(m.copy(), 2.0, 3)
    if not jit:
        monkeypatch.setenv("SOURCEDIFF_VERIFY", "1")
    assert_gradient_matches(fresh_each_step, (m, 2.0, 3), (0, 1), policy, jit)


@pytest.mark.parametrize(
    "between",
    ["if x > 1.0:\n                    continue", "if x > 1.0:\n                    break"],
)
def test_a_copy_is_not_propagated_past_a_jump(between):
    """A ``continue`` or ``break`` between the copy and its read reaches another read of
    the value (the next iteration's, or after the loop)."""
    fn = _function(
        f"""
        def f(xs, acc, name):
            for x in xs:
                acc = acc + name
                name = x
                {between}
                z = name * 2.0
                name = z + 1.0
            return acc + name
        """
    )
    xs = [0.5, 2.0, 3.0, 0.25]
    before = _run(fn, xs, 0.0, 1.0)
    fold_temporaries(fn)
    assert _run(fn, xs, 0.0, 1.0) == before


def test_a_copy_is_not_propagated_into_its_own_augmented_assignment():
    fn = _function(
        """
        def f(b, s):
            a = b * 1.0
            a = s
            a += a
            return s
        """
    )
    fold_temporaries(fn)
    s = np.ones(2)
    np.testing.assert_array_equal(_run(fn, np.ones(2), s), [2.0, 2.0])


def test_a_loop_left_with_comments_alone_still_has_a_body():
    """The generated code puts a comment above each statement; a loop whose one statement
    moved keeps a ``pass`` so that its source still parses."""
    from sourcediff.codegen import Comment

    fn = _function("def f(dt, n, a):\n    for i in range(n):\n        h = 0.5 * dt\n    return a")
    fn.body[0].body.insert(0, Comment("f.py:3: h = 0.5 * dt"))
    assert hoist_loop_invariants(fn)
    loop = fn.body[1]
    assert isinstance(loop.body[-1], ast.Pass)
    compile(ast.parse(ast.unparse(fn)), "<hoist>", "exec")


def test_a_length_moves_out_and_a_value_read_after_the_loop_moves_when_bound_only_there():
    fn = _function(
        """
        def f(u0, steps):
            for _ in range(steps):
                n = u0.shape[0]
                u0[0] = 1.0
            return n
        """
    )
    assert hoist_loop_invariants(fn)
    assert ast.unparse(fn.body[0]) == "n = u0.shape[0]"


def test_a_length_of_an_array_the_loop_rebinds_stays():
    fn = _function(
        """
        def f(u, steps):
            for _ in range(steps):
                n = u.shape[0]
                u = np.zeros(n + 1)
            return u
        """
    )
    assert not hoist_loop_invariants(fn)


def _grown(u0, steps):
    """``n`` is bound before the loop too: with no step it keeps its first value."""
    n = 1
    for _ in range(steps):
        n = u0.shape[0]
    return np.sum(u0 * u0) * n


@pytest.mark.parametrize("steps", [0, 3])
def test_a_value_bound_before_the_loop_too_keeps_its_place(steps):
    u0 = np.array([0.5, -1.5, 2.0])
    expected = 2.0 * u0 * (3 if steps else 1)
    (grad,) = sd.grad(_grown, argnums=(0,), jit=False)(u0, steps)
    np.testing.assert_allclose(grad, expected)


def _parameter_rebound_in_the_loop(x, t, n):
    for _ in range(n):
        t = x * 2.0
    return t * x


def _inner_loop_sometimes_empty(x):
    s = 0.0
    for j in range(3):
        for _ in range((j + 1) % 2):
            t = x * (j + 1.0)
        s += t * x
    return s


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_no_hoist_leaves_a_value_a_loop_running_no_iteration_would_not(jit):
    # t is a parameter, and t of the inner loop keeps the last outer iteration's value
    assert sd.jit(_parameter_rebound_in_the_loop)(1.5, 0.7, 0) == pytest.approx(1.05)
    assert sd.jit(_inner_loop_sometimes_empty)(1.5) == pytest.approx(11.25)
    sd.check_grad(_parameter_rebound_in_the_loop, 1.5, 0.7, 0, argnums=(0, 1), jit=jit)
    sd.check_grad(_parameter_rebound_in_the_loop, 1.5, 0.7, 3, argnums=(0, 1), jit=jit)
    sd.check_grad(_inner_loop_sometimes_empty, 1.5, jit=jit)
    _, tangent = sd.jvp(_inner_loop_sometimes_empty, (1.5,), (1.0,), jit=jit)
    assert tangent == pytest.approx(15.0)

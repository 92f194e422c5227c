"""Custom derivatives: sd.custom_vjp and sd.custom_jvp, in every mode and policy.

Each rule is checked with sd.check_grad (central differences of the primal,
which the rule must agree with where the function is smooth), compiled and
as Python, under every policy, called directly, through helpers and in loops.
"""

import ast
import math

import custom_rules as c
import numpy as np
import pytest

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]
A = np.array([[3.0, 0.5, 0.2], [0.1, 2.0, 0.3], [0.4, 0.2, 4.0]])
B = np.array([1.0, -2.0, 0.5])


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_a_vjp_rule_through_helpers_and_loops(policy, jit):
    p = np.array([0.3, 0.4])
    sd.check_grad(c.norms_in_a_loop, p, 3, policy=policy, jit=jit)


def test_the_rule_is_used_where_the_body_would_be_wrong():
    # The norm's body has a NaN derivative at 0; the rule gives 0.
    assert np.all(sd.grad(c.norms_in_a_loop)(np.zeros(2), 2) == 0.0)
    # The straight-through floor passes the derivative through: 3 * x + floor(3 x).
    assert sd.grad(c.quantized)(0.7) == pytest.approx(3.0 * 0.7 + 2.0)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_a_rule_calling_its_own_function_compiles(policy, jit):
    """``cube_fwd`` returns ``cube(x)``: compiled, that call reaches the compiled cube."""
    x = np.array([0.5, -0.7])
    value, gx = sd.value_and_grad(c.cubes_in_a_loop, policy=policy, jit=jit)(x, 3)
    assert value == pytest.approx(c.cubes_in_a_loop(x, 3), rel=1e-14)
    sd.check_grad(c.cubes_in_a_loop, x, 3, policy=policy, jit=jit)
    assert np.all(sd.grad(c.cubes_summed, jit=jit)(x) == 3.0 * x * x)


@pytest.mark.parametrize("jit", [False, True])
def test_a_linear_solve_whose_adjoint_is_a_solve(jit):
    sd.check_grad(c.solve_loss, A, B, argnums=(0, 1), jit=jit)
    x = np.linalg.solve(A, B)
    gb = sd.grad(c.solve_loss, argnums=1, jit=jit)(A, B)
    np.testing.assert_allclose(gb, np.linalg.solve(A.T, 2.0 * x), rtol=1e-12)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_an_iterative_solver_with_its_implicit_adjoint(policy):
    sd.check_grad(c.root_sum, 2.0, 0.7, argnums=(0, 1), policy=policy)
    da, db = sd.grad(c.root_sum, argnums=(0, 1), policy=policy, jit=False)(2.0, 0.7)
    assert da == pytest.approx(0.7 / (2 * math.sqrt(2.0)) + 0.7 / (2 * math.sqrt(1.4)))
    assert db == pytest.approx(math.sqrt(2.0) + 2.0 / (2 * math.sqrt(1.4)))


@pytest.mark.parametrize("jit", [False, True])
def test_a_jvp_rule_in_forward_and_reverse_mode(jit):
    value, tangent = sd.jvp(c.uses_softplus, (0.3, 0.5), (1.0, 0.0), jit=jit)
    dx, _ = sd.grad(c.uses_softplus, argnums=(0, 1), jit=jit)(0.3, 0.5)
    assert tangent == pytest.approx(dx, rel=1e-12)
    sd.check_grad(c.uses_softplus, 0.3, 0.5, argnums=(0, 1), jit=jit)
    v = np.array([0.5, -1.0])
    _, tangent = sd.jvp(c.scaled_sum, (v,), (np.ones(2),), jit=jit)
    assert tangent == pytest.approx(4.0)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", ["store", "auto"])
def test_a_jvp_rule_with_an_array_result_in_reverse_mode_sums_over_it(jit, policy):
    """d/dt w . [1, t, t^2] + t = w1 + 2 w2 t + 1: the float's tangent dotted with the
    cotangent of every element (it was elementwise: an array for a float)."""
    w = np.array([5.0, 7.0, 11.0])
    expected = (w[1] + 2.0 * w[2] * 2.0 + 1.0, np.array([1.0, 2.0, 4.0]))
    grads = sd.grad(c.weighted_monomials, argnums=(0, 1), policy=policy, jit=jit)(2.0, w)
    assert isinstance(grads[0], float) and grads[0] == expected[0]
    np.testing.assert_array_equal(grads[1], expected[1])
    rows = sd.jacobian(c.monomials, mode="reverse", jit=jit)(2.0)
    np.testing.assert_array_equal(rows, [0.0, 1.0, 4.0])


def test_forward_mode_through_a_vjp_only_rule_is_refused():
    with pytest.raises(sd.SourceDiffError, match="only a custom_vjp rule") as info:
        sd.jvp(c.norms_in_a_loop, (np.ones(2), 3), (np.ones(2), 0), jit=False)
    assert "custom_rules.py:31" in str(info.value)


def test_reverse_mode_through_a_jvp_rule_with_an_array_argument_is_refused():
    with pytest.raises(sd.SourceDiffError, match="float arguments only"):
        sd.grad(c.scaled_sum, jit=False)(np.ones(2))


@pytest.mark.parametrize("jit", [False, True])
def test_jacobian_auto_takes_the_mode_a_rule_has(jit):
    """An array argument and a number out: reverse mode would be cheaper, but a custom_jvp
    rule gives forward mode only (and the other way round for a custom_vjp rule)."""
    x = np.array([0.5, -1.5, 2.0])
    np.testing.assert_array_equal(sd.jacobian(c.scaled_sum, jit=jit)(x), [2.0, 2.0, 2.0])
    with pytest.raises(sd.SourceDiffError, match="float arguments only"):
        sd.jacobian(c.scaled_sum, mode="reverse", jit=jit)(x)
    # One float in, three out: forward mode would be cheaper, the vjp rule gives reverse.
    np.testing.assert_allclose(sd.jacobian(c.scaled_powers, jit=jit)(0.5), [2.0, 2.0, 1.5])
    with pytest.raises(sd.SourceDiffError, match="only a custom_vjp rule"):
        sd.jacobian(c.scaled_powers, mode="forward", jit=jit)(0.5)


def test_a_rule_not_yet_defined_is_a_clear_error():
    @sd.custom_vjp
    def lonely(x):
        return x * 2.0

    def calls_lonely(x):
        return lonely(x)

    with pytest.raises(sd.ArgumentError, match="defvjp"):
        sd.grad(calls_lonely, jit=False)(1.0)


def test_the_rule_source_is_part_of_the_cache_key():
    from sourcediff import pipeline

    key = pipeline.source_key(pipeline.parse(c.quantized))
    original = c.straight_through_floor.bwd
    try:
        c.straight_through_floor.defvjp(c.straight_through_fwd, c.safe_norm_bwd)
        assert pipeline.source_key(pipeline.parse(c.quantized)) != key
    finally:
        c.straight_through_floor.defvjp(c.straight_through_fwd, original)


@pytest.mark.parametrize(
    ("caller", "args", "line"),
    [
        (c.calls_bumped, (np.ones(2), 0.5), 155),
        (c.calls_tail_norm, (np.ones(3),), 189),
        (c.calls_unit_norm, (np.ones(3),), 214),
    ],
    ids=["function", "rule through a view of a residual", "rule through an njit helper"],
)
def test_a_custom_function_or_rule_writing_into_its_argument_is_refused(caller, args, line):
    x = args[0].copy()
    with pytest.raises(sd.SourceDiffError, match="writes into its argument") as info:
        sd.grad(caller, jit=False)(*args)
    assert f"custom_rules.py:{line}" in str(info.value)
    np.testing.assert_array_equal(args[0], x)  # refused before anything ran


WRITES = {
    "unpacked residual": "def bwd(res, g):\n    x, y = res\n    x *= g / y\n    return (x,)",
    "row of a loop": "def f(m):\n    for row in m:\n        row *= 2.0\n    return m[0, 0]",
    "np.asarray alias": "def f(x):\n    y = np.asarray(x)\n    y[0] = 1.0\n    return y[0]",
    "np.reshape view": "def f(x):\n    y = np.reshape(x, (2, 2))\n    y[0, 0] = 1.0",
    "ufunc output": "def f(x):\n    np.multiply(x, 2.0, x)\n    return x[0]",
    "out=": "def f(x):\n    np.exp(x, out=x)\n    return x[0]",
    "copyto": "def f(x, y):\n    np.copyto(x, y)\n    return x[0]",
    "flat": "def f(x):\n    x.flat[0] = 1.0\n    return x[0]",
    "conditional alias": "def f(x, c):\n    y = x if c > 0 else x\n    y[0] = 1.0\n    return 0.0",
    "ellipsis view": "def f(x):\n    y = x[...]\n    y *= 2.0\n    return y[0]",
    "element of a residual": "def bwd(res, g):\n    x = res[0]\n    x[0] = g\n    return (x,)",
    "fill": "def f(x):\n    x.fill(0.0)\n    return 0.0",
}


@pytest.mark.parametrize("source", WRITES.values(), ids=WRITES.keys())
def test_the_scan_finds_writes_through_views_aliases_and_calls(source):
    from sourcediff.custom_writes import argument_write

    assert argument_write(ast.parse(source).body[0]) is not None


def test_writes_into_new_arrays_and_rebound_parameters_are_not_refused():
    from sourcediff.custom_writes import argument_write

    def fresh(x, s):
        y = x.copy()
        y[0] = s
        x = x * 2.0
        x[1] = s
        t = x[0]
        t *= 2.0
        for row in np.zeros((2, 2)):
            row[0] = s
        return y, t

    def through_alias(x, s):
        for row in x:
            row.fill(s)
        return s

    assert argument_write(_function_node(fresh)) is None
    assert argument_write(_function_node(through_alias)).lineno == 3


def _function_node(function):
    import inspect
    import textwrap

    return ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]


def test_a_rule_defined_after_the_transformation_is_taken_is_used():
    @sd.custom_vjp
    def halved(x):
        return 0.5 * x

    def calls_halved(x):
        return halved(x) * x

    def halved_fwd(x):
        return 0.5 * x, x

    def halved_bwd(res, g):
        return (0.5 * g,)

    df = sd.grad(calls_halved, jit=False)  # before the rule exists, as with a decorator
    halved.defvjp(halved_fwd, halved_bwd)
    assert df(3.0) == pytest.approx(3.0)


def test_a_lambda_as_a_rule_is_refused_clearly():
    with pytest.raises(sd.ArgumentError, match="def"):
        c.safe_norm.defvjp(lambda x: (x, x), c.safe_norm_bwd)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_function_with_a_rule_differentiated_itself_uses_the_rule(jit):
    """``sd.grad(f)`` of a custom_vjp ``f``, as ``jax.grad`` of one: the rule, not the body
    (the straight-through floor's body has derivative 0, its rule 1)."""
    assert sd.grad(c.straight_through_floor, jit=jit)(2.3) == 1.0
    out, pullback = sd.vjp(c.straight_through_floor, 2.3, jit=jit)
    assert out == 2.0 and pullback(1.0) == (1.0,)
    zero = np.zeros(2)
    np.testing.assert_array_equal(sd.grad(c.safe_norm, jit=jit)(zero), zero)  # the 0/0 rule


def test_second_derivatives_through_a_rule_are_refused_at_the_users_line():
    """The tangent code calls the rule's function, whose rule says nothing of its own
    derivative: refused, naming the function and the rule, never a wrong Hessian."""
    for make in (sd.hessian, sd.hvp):
        with pytest.raises(sd.UnsupportedCallError, match="'quantized'.*'straight_through"):
            make(c.quantized, jit=False)


@sd.custom_vjp
def _scaled_floor(x, c=2.0):
    return c * math.floor(x)


def _scaled_floor_fwd(x, c=2.0):
    return c * math.floor(x), (c,)


def _scaled_floor_bwd(res, g):
    return (res[0] * g, 0.0)


_scaled_floor.defvjp(_scaled_floor_fwd, _scaled_floor_bwd)


def test_a_rule_function_differentiated_itself_keeps_its_defaults():
    assert sd.grad(_scaled_floor, jit=False)(1.3) == 2.0
    assert sd.grad(_scaled_floor, jit=False)(1.3, 3.0) == 3.0

"""An adjoint reads a number the primal already holds instead of calling again
(sourcediff/analysis/known_calls.py): right where the value still holds, never where
the holder or an operand was bound again since."""

import math

import numpy as np
import pytest
from reference import assert_gradient_matches, central_difference

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def spin(x, y, theta, steps):
    """A rotation by an angle that changes every step: cos and sin saved per step."""
    for _ in range(steps):
        c = math.cos(theta)
        s = math.sin(theta)
        x, y = c * x - s * y, s * x + c * y
        theta = theta * 0.9 + 0.1 * x
    return x * x + 3.0 * y


def stale_in_a_branch(t, u):
    c = math.cos(t)
    if c > 0.0:
        t = t * 2.0 + u
    s = math.sin(t)  # its partial is cos of the new t: c no longer holds it
    return c * u + s


def stale_in_a_loop(t, n):
    c = math.cos(t)
    total = c
    for _ in range(n):
        total += math.sin(t) * c  # from the second iteration on, t has changed
        t = t + 0.3 * total
    return total


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_a_rotation_reads_its_cosine_again_and_is_right(policy, jit):
    assert_gradient_matches(spin, (0.7, -0.4, 0.3, 6), (0, 1, 2), policy, jit)


def _code(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))


def test_the_sines_adjoint_reads_the_cosine_the_primal_computed():
    text = sd.adjoint_source(spin, argnums=(0, 1, 2), args=(0.7, -0.4, 0.3, 6), policy="store")
    vjp = _code(text.split("def spin_vjp")[1].split("def spin_record_bytes")[0])
    forward, reverse = vjp.split("return (value")[0].split("theta_bar = 0.0")
    assert forward.count("math.cos(") == 1 and "math.cos(" not in reverse
    assert "+ c * (x * t4_bar + y * t2_bar)" in reverse  # sin's partial, s_bar folded in
    assert "- math.sin(theta) * c_bar" in reverse  # cos's partial: sin is computed after it


@pytest.mark.parametrize(
    "func, args", [(stale_in_a_branch, (0.4, 0.2)), (stale_in_a_loop, (0.4, 3))]
)
@pytest.mark.parametrize("policy", ["store", "recompute"])
def test_a_holder_bound_again_is_not_read(func, args, policy):
    wrt = (0, 1) if isinstance(args[1], float) else (0,)
    got = sd.grad(func, argnums=wrt, policy=policy, jit=False)(*args)
    want = [central_difference(func, args, k) for k in wrt]
    np.testing.assert_allclose(got, want, rtol=1e-8)
    reverse = _code(sd.adjoint_source(func, argnums=wrt, args=args).split("# reverse")[1])
    assert "math.cos(t" in reverse


def test_forward_mode_reads_the_held_cosine_too():
    text = _code(sd.tangent_source(spin, args=(0.7, -0.4, 0.3, 6)).split("def spin_jvp")[1])
    assert "s_dot = c * theta_dot" in text and text.count("math.cos(") == 1


@pytest.mark.parametrize(
    "func, args",
    [(spin, (0.7, -0.4, 0.3, 6)), (stale_in_a_branch, (0.4, 0.2)), (stale_in_a_loop, (0.4, 3))],
)
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_forward_mode_is_right_where_the_holder_is_stale_too(func, args, jit):
    tangent = sd.jacobian(func, argnums=0, mode="forward", jit=jit)(*args)
    np.testing.assert_allclose(tangent, central_difference(func, args, 0), rtol=1e-8)

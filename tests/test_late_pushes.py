"""Iteration-local values pushed at the end of their iteration (transform/late_pushes.py).

Which values qualify (a scalar the loop body assigns once, before any read, that nothing
outside the loop mentions) and which do not (read before its definition, carried from one
iteration to the next, mentioned after the loop, a loop that may break); the pushes in the
generated forward loop come after the definitions; and gradients of loops holding each
kind against Richardson-extrapolated central differences, under every policy, compiled
and as Python.
"""

import ast
import math

import numpy as np
from reference import assert_gradients_at_random_points
from scope import gradient_matrix

import sourcediff as sd
from sourcediff.transform.late_pushes import iteration_locals, name_counts


def _locals_of(source: str) -> set[str]:
    body = ast.parse(source).body
    loop = next(s for s in body if isinstance(s, (ast.For, ast.While)))
    return iteration_locals(loop, name_counts(body), lambda name: "float")


def test_a_temporary_defined_first_qualifies():
    assert _locals_of("for i in range(n):\n    t = u[i] * 2.0\n    s = s + t * t") == {"t"}


def test_a_value_carried_between_iterations_does_not():
    assert _locals_of("for i in range(n):\n    s = s + u[i]\n    t = s * 2.0\n    r = t") == {
        "t",
        "r",
    }
    assert _locals_of("for i in range(n):\n    r = t\n    t = u[i]") == {"r"}


def test_a_value_read_after_the_loop_does_not():
    assert _locals_of("for i in range(n):\n    t = u[i]\n    s = s + t\nq = t") == set()


def test_a_value_assigned_twice_does_not():
    source = "for i in range(n):\n    t = u[i]\n    if t > 0.0:\n        t = 0.5 * t\n    s = s + t"
    assert _locals_of(source) == set()


def test_a_loop_that_may_break_keeps_the_old_order():
    source = "for i in range(n):\n    t = u[i]\n    if t > 3.0:\n        break\n    s = s + t"
    assert _locals_of(source) == set()


def smoothed(u, a, steps):
    """A stencil whose iteration-local temporary is kept for the reverse sweep."""
    n = u.shape[0]
    v = u.copy()
    w = np.empty(n)
    for _ in range(steps):
        w[0] = v[0]
        w[n - 1] = v[n - 1]
        for i in range(1, n - 1):
            lap = v[i - 1] - 2.0 * v[i] + v[i + 1]
            w[i] = v[i] + a * lap * math.tanh(lap)
        v, w = w, v
    return np.sum(v * v)


def pairs(x, k):
    """Pair energy: two local values per inner iteration, one outer value carried."""
    n = x.shape[0]
    energy = 0.0
    for i in range(n):
        scale = k * x[i]
        for j in range(i + 1, n):
            d = x[j] - x[i]
            e = scale * math.exp(-d * d)
            energy += e * d
    return energy


def carried(x, steps):
    """A running value read before it is redefined, beside a local one."""
    s = 0.5
    for _ in range(steps):
        for i in range(x.shape[0]):
            old = s
            s = math.sin(s + x[i])
            g = old * s
            s = s + 0.1 * g
    return s


def early_exit(x, limit):
    """A loop that may end early: its temporaries keep Tapenade's order."""
    total = 0.0
    for i in range(x.shape[0]):
        t = math.cos(x[i]) * x[i]
        if total + t > limit:
            break
        total += t * t
    return total


def test_the_forward_loop_pushes_after_the_definition():
    source = sd.adjoint_source(smoothed, argnums=(0, 1), policy="store")
    forward = source[source.index("def smoothed_vjp") : source.index("# reverse sweep")]
    lines = [line.strip() for line in forward.splitlines() if not line.strip().startswith("#")]
    push = next(k for k, line in enumerate(lines) if line.startswith("floats_tape[floats_top]"))
    kept = lines[push].split(" = ")[1]
    definition = next(k for k, line in enumerate(lines) if line.startswith(f"{kept} = "))
    assert definition < push


CASES = [
    (smoothed, lambda rng: (rng.uniform(-1.0, 1.0, 9), 0.2, 4), (0, 1)),
    (pairs, lambda rng: (rng.uniform(-1.0, 1.0, 6), 0.7), (0, 1)),
    (carried, lambda rng: (rng.uniform(-1.0, 1.0, 5), 3), (0,)),
    (early_exit, lambda rng: (rng.uniform(-1.0, 1.0, 7), 0.5), (0,)),
]


POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


@gradient_matrix(CASES, POLICIES)
def test_gradients_against_central_differences(case, policy, jit):
    func, make_args, argnums = case
    assert_gradients_at_random_points(func, make_args, argnums, policy, jit, seed=7)

"""Conditional element reads (``u[i - 1] if i > 0 else u[n - 1]``, a periodic boundary)
are one read at a selected index (normalize/selects.py): recomputed in the reverse sweep,
never recorded. Conditional expressions that are not such reads keep their branches.

Each gradient is checked against Richardson-extrapolated central differences at two
points, under every policy, compiled and as plain Python.
"""

import math

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def periodic_step(u0, nu, steps):
    """A periodic nonlinear diffusion step, both neighbours read conditionally."""
    n = u0.shape[0]
    u = u0.copy()
    for _ in range(steps):
        v = np.empty(n)
        for i in range(n):
            left = u[i - 1] if i > 0 else u[n - 1]
            right = u[i + 1] if i < n - 1 else u[0]
            v[i] = u[i] + nu * (left - 2.0 * u[i] + right) * math.cos(u[i])
        u = v
    return np.sum(u * u)


def periodic_columns(m, c):
    """A 2-D read whose column is selected, the row kept."""
    rows, cols = m.shape
    total = 0.0
    for i in range(rows):
        for j in range(cols):
            west = m[i, j - 1] if j > 0 else m[i, cols - 1]
            total += c * west * m[i, j] + math.sin(west)
    return total


def mixed_conditionals(x, s):
    """Arms of different arrays, a constant, an index by division and a value test:
    branches, as before."""
    n = x.shape[0]
    y = np.tanh(x)
    total = 0.0
    for i in range(n):
        a = x[i - 1] if i > 0 else 0.5
        b = y[i] if i % 2 == 0 else x[i]
        c = x[i // 2] if i > 1 else x[0]
        d = s * a if a > 0.0 else 0.1 * s * a
        total += a * b + c * d + x[(i + 1) if i < n - 1 else 0] * s
    return total


def _points(n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.9, 0.9, n)


CASES = {
    "periodic_step": (periodic_step, lambda k: (_points(6, k), 0.2 + 0.1 * k, 3), (0, 1)),
    "periodic_columns": (
        periodic_columns,
        lambda k: (_points(12, k).reshape(3, 4), 0.7 - k),
        (0, 1),
    ),
    "mixed_conditionals": (mixed_conditionals, lambda k: (_points(5, k), 1.3 - k), (0, 1)),
}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_of_conditional_reads(case, policy, jit):
    func, make_args, argnums = CASES[case]
    for seed in (0, 1):
        assert_gradient_matches(func, make_args(seed), argnums, policy, jit)


def test_a_periodic_read_is_recomputed_not_recorded():
    """Under "store", nothing of the neighbours is recorded and no branch remains: the
    reverse sweep reads ``u[i - 1 if i > 0 else n - 1]`` again and adds into it once."""
    source = sd.adjoint_source(
        periodic_step, argnums=(0, 1), policy="store", args=CASES["periodic_step"][1](0)
    )
    vjp = source[source.index("def periodic_step_vjp") : source.index("def periodic_step_record")]
    assert "if i > 0:" not in vjp
    assert "u_bar[i - 1 if i > 0 else n - 1] +=" in vjp
    assert "flags" not in vjp


def test_the_rewrite_alone():
    import ast

    from sourcediff.normalize.selects import element_read_at_selected_index as merged

    def rewritten(text):
        found = merged(ast.parse(text, mode="eval").body)
        return None if found is None else ast.unparse(found)

    assert rewritten("m[i, j - 1] if j > 0 else m[i, c - 1]") == "m[i, j - 1 if j > 0 else c - 1]"
    assert rewritten("u[i // 2] if i > 1 else u[0]") is None  # a division may fail
    assert rewritten("u[k[i]] if i > 1 else u[0]") is None  # a read may be out of bounds
    assert rewritten("u[i] if f(i) else u[0]") is None  # a call in the test
    assert rewritten("u[i] if i > 0 else v[i]") is None

"""Helpers that write their result into an array argument are outlined too
(``outline_writes.py``): the helper returns a new array and the call writes it back.

Gradients are checked against Richardson-extrapolated central differences at two random
points, under a rotating share of the policies, compiled and as plain Python.
"""

import ast
import math

import numpy as np
import pytest
from reference import assert_gradients_at_random_points
from scope import gradient_matrix

import sourcediff as sd
from sourcediff.outline import outlined, outlined_names
from sourcediff.parse import parse_function

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def _pair_forces(pos, out):
    """Softened pairwise forces on points of a line, written into ``out`` (zeroed first)."""
    n = pos.shape[0]
    for i in range(n):
        out[i] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            f = d / (d * d + 0.1) ** 1.5
            out[i] += f
            out[j] -= f


def verlet(x0, v0, dt, steps):
    """Velocity Verlet on a line in two half steps: the forces helper is called from three
    places (outlined from three on: ``outline.WRITE_BACK_CALLS``)."""
    x = x0.copy()
    v = v0.copy()
    force = np.zeros(x.shape[0])
    _pair_forces(x, force)
    for _ in range(steps):
        v += 0.25 * dt * force
        x += 0.5 * dt * v
        _pair_forces(x, force)
        v += 0.5 * dt * force
        x += 0.5 * dt * v
        _pair_forces(x, force)
        v += 0.25 * dt * force
    return np.sum(v * v) + np.sum(x * x * x)


def _add_rates(u, k, out):
    """Adds into ``out`` without zeroing it: the result reads the old contents."""
    n = u.shape[0]
    for i in range(n):
        out[i] += k * math.sin(u[i]) * u[(i + 1) % n]


def accumulated(u0, k):
    """The helper adds into the buffer: its old contents reach the result."""
    rates = np.zeros(u0.shape[0])
    rates += 0.5 * u0
    _add_rates(u0, k, rates)
    total = np.sum(rates * rates)
    _add_rates(np.cos(u0), 0.5 * k, rates)
    _add_rates(u0 * u0, 0.25 * k, rates)
    return total + np.sum(rates * u0)


def aliased(u0, k):
    """``alias`` names the buffer too, and one call passes a temporary: inlined, so that
    the write through one name and the read through the other are seen (and refused)."""
    rates = u0 * 0.5
    alias = rates
    _add_rates(u0, k, rates)
    _add_rates(rates, k * k, rates.copy())
    total = np.sum(alias * alias)
    _add_rates(alias, 0.5 * k, rates)
    return total + np.sum(rates * u0)


def _rows_of(u, out):
    """A 2-D buffer, written row by row."""
    for i in range(u.shape[0]):
        for j in range(u.shape[1]):
            out[i, j] = u[i, j] * u[(i + 1) % u.shape[0], j] - math.cos(u[i, j])


def grid_steps(u0, dt):
    u = u0.copy()
    rates = np.empty_like(u)
    for _ in range(3):
        _rows_of(u, rates)
        u = u + dt * rates
    _rows_of(u * u, rates)
    total = np.sum(rates * u)
    _rows_of(np.sin(u), rates)
    return total + np.sum(rates * rates)


def _line(rng, n=5):
    return rng.uniform(-1.0, 1.0, n) * np.arange(1, n + 1)


CASES = [
    (verlet, lambda rng: (_line(rng), rng.uniform(-0.3, 0.3, 5), 0.05, 3), (0, 1, 2)),
    (accumulated, lambda rng: (rng.uniform(-1.0, 1.0, 6), rng.uniform(0.4, 0.9)), (0, 1)),
    (grid_steps, lambda rng: (rng.uniform(-1.0, 1.0, (3, 4)), 0.1), (0, 1)),
]


@gradient_matrix(CASES, POLICIES)
def test_gradients_through_helpers_that_write_into_an_argument(case, policy, jit):
    func, make_args, argnums = case
    assert_gradients_at_random_points(func, make_args, argnums, policy, jit, seed=11)


def test_the_helper_is_called_through_its_vjp_and_written_back():
    rng = np.random.default_rng(0)
    source = sd.adjoint_source(verlet, args=(_line(rng), _line(rng), 0.05, 3), argnums=(0, 1))
    vjp = source[source.index("def verlet_vjp") : source.index("def verlet_record_bytes")]
    assert vjp.count("_pair_forces_vjp(") == 3  # one per call site
    assert "force_from__pair_forces = _pair_forces(x, force)" in vjp
    assert "d * d + 0.1" not in vjp  # the helper's body is not inlined


def test_which_helpers_are_written_back():
    """Outlined: helpers written into through a buffer the caller owns alone, at every
    call. Inlined: a helper whose buffer has another name, or is a temporary at one call."""
    assert outlined_names(outlined(parse_function(verlet))) == ["_pair_forces"]
    assert outlined_names(outlined(parse_function(grid_steps))) == ["_rows_of"]
    assert outlined_names(outlined(parse_function(accumulated))) == ["_add_rates"]
    assert outlined_names(outlined(parse_function(aliased))) == []  # alias, rates.copy()


SCRATCH = np.zeros(6)  # a module-level buffer


def into_module_buffer(u0, k):
    _add_rates(u0, k, SCRATCH)
    _add_rates(u0 * u0, k, SCRATCH)
    _add_rates(u0 * k, k, SCRATCH)
    return np.sum(SCRATCH)


def result_used(u0, k):
    rates = np.zeros(u0.shape[0])
    _add_rates(u0, k, rates)
    unused = _add_rates(u0, k, rates)  # noqa: F841 - None: the call is not a statement
    _add_rates(u0 * k, k, rates)
    return np.sum(rates)


def two_calls(x0, v0, dt, steps):
    x = x0.copy()
    force = np.zeros(x.shape[0])
    _pair_forces(x, force)
    for _ in range(steps):
        x += dt * force
        _pair_forces(x, force)
    return np.sum(x * force) + np.sum(v0)


def test_buffers_the_caller_does_not_own_calls_in_expressions_or_two_calls_stay_inlined():
    """Two calls: inlining compiles faster and runs faster (N-body's forces, measured)."""
    assert outlined_names(outlined(parse_function(into_module_buffer))) == []
    assert outlined_names(outlined(parse_function(result_used))) == []
    assert outlined_names(outlined(parse_function(two_calls))) == []


def test_a_buffer_with_two_names_is_refused_as_when_inlined():
    with pytest.raises(sd.SourceDiffError, match="shares its memory") as error:
        sd.grad(aliased)(np.linspace(-1.0, 1.0, 6), 0.5)
    assert "test_outline_writes.py" in str(error.value)


def test_the_functional_helper_reads():
    """The rewritten helper writes into a copy of the buffer and returns it."""
    from sourcediff.outline_writes import functional_helper

    helper = functional_helper(parse_function(_add_rates), "out")
    text = ast.unparse(helper.node)
    assert "out_written = np.copy(out)" in text
    assert text.rstrip().endswith("return out_written")
    assert "out_written[i] += k" in text


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
def test_outlined_and_inlined_gradients_agree(jit, monkeypatch):
    rng = np.random.default_rng(3)
    args = (_line(rng), rng.uniform(-0.3, 0.3, 5), 0.05, 3)
    outlined_grads = sd.grad(verlet, argnums=(0, 1), jit=jit)(*args)
    monkeypatch.setenv("SOURCEDIFF_OUTLINE", "0")
    assert "_pair_forces_vjp" not in sd.adjoint_source(verlet, args=args, argnums=(0, 1))
    inlined_grads = sd.grad(verlet, argnums=(0, 1), jit=jit)(*args)
    for a, b in zip(outlined_grads, inlined_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)

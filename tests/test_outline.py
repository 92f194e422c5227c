"""Helpers called from several places are outlined: the derivative calls their own vjp.

Each gradient is checked against central differences (Richardson-extrapolated) at two
points, under every policy, compiled and as plain Python, and against the derivative
with every helper inlined (``SOURCEDIFF_OUTLINE=0``).
"""

import math

import numpy as np
import pytest
from benchmark_kernels import kernel_module
from reference import assert_gradient_matches

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


KERNELS = kernel_module("kernels_more")
rk4 = KERNELS.rk4_rd  # RK4 of a reaction-diffusion system, reaction_rhs called 4 times a step


def spring_energy(x, k, count):
    """A float from a loop over a view's neighbours, with a branch."""
    e = 0.0
    for i in range(min(count, x.shape[0] - 1)):
        d = x[i + 1] - x[i]
        if d > 0.0:
            e += k * d * d
        else:
            e += 0.5 * k * math.sin(d) ** 2
    return e


def two_energies(x, k):
    half = spring_energy(x[1:], k, 10)
    return spring_energy(np.tanh(x), 2.0 * k, 3) * half + spring_energy(x, k, 2)


def energy_of_both(x, y, k):
    """A helper calling another helper twice: both outlined, one inside the other's."""
    return spring_energy(x, k, 5) + spring_energy(y, k, 5) * k


def nested(x, k):
    return energy_of_both(x, x * x, k) - energy_of_both(np.cos(x), x, 0.5)


def scale_in_place(v, s):
    n = v.shape[0]
    for i in range(n):
        v[i] = v[i] * s
    return np.sum(v)


def writes_its_argument(x, s):
    y = x.copy()
    a = scale_in_place(y, s)
    b = scale_in_place(y, s * s)
    return a * b + np.sum(y)


def tail_view(v):
    w = v[1:]
    for _ in range(2):
        w = w
    return w


def returns_a_view(x):
    t = tail_view(x)
    t[0] = t[0] * 3.0  # a write into x through the view
    return np.sum(tail_view(x) * x[1:]) + np.sum(t)


def _vectors(n, seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.8, 0.8, n)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_a_helper_called_four_times_per_step_is_outlined(policy, jit):
    """RK4 of a PDE: ``reaction_rhs`` runs through its own vjp, and the gradient is right
    at two points."""
    for seed in (0, 1):
        args = (_vectors(7, seed) + 0.5, 0.3 + 0.1 * seed, 0.05, 3)
        assert_gradient_matches(rk4, args, (0, 1), policy, jit)


def test_the_outlined_derivative_calls_the_helper_vjp_once_per_call():
    source = sd.adjoint_source(rk4, argnums=(0, 1), args=(_vectors(5, 0), 0.3, 0.05, 3))
    vjp = source[source.index("def rk4_rd_vjp") : source.index("def rk4_rd_record_bytes")]
    assert vjp.count("reaction_rhs_vjp(") == 4  # one per stage, shared by u's and d's terms
    assert "out[i]" not in vjp  # the helper's body is not inlined


def test_results_of_an_outlined_helper_are_new_arrays_not_recorded():
    """``reaction_rhs`` returns a new array: k1..k4 share memory with nothing, and the
    reverse sweep, which reads only the helper's arguments, keeps no reference to them."""
    args = (_vectors(5, 0) + 0.5, 0.3, 0.05, 3)
    source = sd.adjoint_source(rk4, argnums=(0, 1), args=args, policy="store")
    for name in ("k1", "k2", "k3", "k4"):
        assert f"{name}_refs" not in source
    assert "t3_refs.append(t3)" in source  # an argument of the helper's vjp is kept
    steps, n = args[3], args[0].shape[0]
    # By reference, each step: u, and the stage arguments t3, t6, t8 of the step before
    # (the first step pushes their empty placeholders).
    expected = steps * n * 8 + (steps - 1) * 3 * n * 8
    assert sd.tape_size(rk4, *args, argnums=(0, 1), policy="store") == expected


def _stage(u, d):
    n = u.shape[0]
    out = np.empty(n)
    for i in range(n):
        out[i] = d * u[i] * u[(i + 1) % n] - u[i]
    return out


def writes_into_results(u0, d, steps):
    """The caller writes into what the outlined helper returned, then rebinds it."""
    u = u0.copy()
    for _ in range(steps):
        k1 = _stage(u, d)
        k2 = _stage(u + 0.5 * k1, d)
        k1[0] = k1[0] * k2[1]
        u = u + 0.1 * (k1 + k2)
    return np.sum(u * u)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_writes_into_an_outlined_helpers_result(policy, jit):
    assert "_stage_vjp" in sd.adjoint_source(writes_into_results, args=(_vectors(4, 5), 0.7, 3))
    for seed in (5, 6):
        args = (_vectors(4, seed), 0.7 + 0.1 * seed, 3)
        assert_gradient_matches(writes_into_results, args, (0, 1), policy, jit)


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_float_helpers_on_views_and_nested_helpers(policy, jit):
    x = _vectors(6, 2)
    assert_gradient_matches(two_energies, (x, 0.7), (0, 1), policy, jit)
    assert_gradient_matches(nested, (x, 0.7), (0, 1), policy, jit)


def test_inlining_everything_gives_the_same_gradients(monkeypatch):
    x = _vectors(6, 3)
    args = (x + 0.5, 0.3, 0.05, 2)
    outlined = sd.grad(rk4, argnums=(0, 1))(*args)
    nested_outlined = sd.grad(nested, argnums=(0, 1))(x, 0.7)
    monkeypatch.setenv("SOURCEDIFF_OUTLINE", "0")
    source = sd.adjoint_source(rk4, argnums=(0, 1), args=args)
    assert "reaction_rhs_vjp" not in source
    inlined = sd.grad(rk4, argnums=(0, 1))(*args)
    np.testing.assert_allclose(outlined[0], inlined[0], rtol=1e-12)
    np.testing.assert_allclose(outlined[1], inlined[1], rtol=1e-12)
    nested_inlined = sd.grad(nested, argnums=(0, 1))(x, 0.7)
    np.testing.assert_allclose(nested_outlined[0], nested_inlined[0], rtol=1e-12)


@pytest.mark.parametrize("jit", [False, True])
def test_a_helper_writing_into_its_argument_stays_inlined(jit):
    """An opaque call would hide the write into ``y``."""
    args = (_vectors(5, 4), 0.9)
    assert "scale_in_place_vjp" not in sd.adjoint_source(writes_its_argument, args=args)
    assert_gradient_matches(writes_its_argument, args, (0, 1), "auto", jit)


def test_a_helper_returning_a_view_stays_inlined():
    """Inlined, the write into ``x`` through the returned view is seen (and refused at its
    line); an opaque call would have hidden it."""
    with pytest.raises(sd.SourceDiffError, match="shares its memory") as error:
        sd.grad(returns_a_view)(_vectors(5, 4))
    assert "test_outline.py" in str(error.value)


def keyword_calls(x, k):
    return spring_energy(x, k, count=3) + spring_energy(x * x, k, count=2)


def _doubled(v):
    return 2.0 * v * v


def small_calls(x):
    return _doubled(x) + _doubled(x + 1.0)


def test_the_outline_stage_alone():
    """Which helpers the stage keeps as calls: those reached from two call sites (a call
    inside a helper counts once per call of that helper) with a loop or six statements,
    called with positional arguments only."""
    from sourcediff.outline import outlined, outlined_names
    from sourcediff.parse import parse_function

    assert outlined_names(outlined(parse_function(rk4))) == ["reaction_rhs"]
    assert outlined_names(outlined(parse_function(two_energies))) == ["spring_energy"]
    assert outlined_names(outlined(parse_function(nested))) == ["energy_of_both"]
    assert outlined_names(outlined(parse_function(energy_of_both))) == ["spring_energy"]
    assert outlined_names(outlined(parse_function(writes_its_argument))) == []
    # Inlined: called with a keyword (the rule's arguments are positional); too small.
    assert outlined_names(outlined(parse_function(keyword_calls))) == []
    assert outlined_names(outlined(parse_function(small_calls))) == []

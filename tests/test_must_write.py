"""Arrays every loop iteration overwrites before reading them are not recorded by
recompute and checkpoint (analysis/must_write.py): a re-run needs their buffers only.

Each gradient is checked against Richardson-extrapolated central differences under
both re-running policies, compiled and as plain Python; the analysis alone is checked
on the patterns it must accept and those it must not.
"""

import ast
import math

import numpy as np
import pytest
from benchmark_kernels import kernel_module
from reference import assert_gradient_matches

import sourcediff as sd
from sourcediff.analysis.must_write import IndexFacts, overwritten_first
from sourcediff.analysis.types import TypeTable, VarType

RERUNNING = ["recompute", sd.Checkpoint(snapshots=2)]


# Two buffers swapped every step; ``v`` is written in full (ends, then the interior)
# before the swap reads it.
heat_1d = kernel_module("kernels_arrays").heat


def heat_2d(u0, alpha, steps):
    """Edges copied by slices, the interior by a loop nest: together the whole grid."""
    n, m = u0.shape
    u = u0.copy()
    v = np.empty((n, m))
    for _ in range(steps):
        v[0, :] = u[0, :]
        v[n - 1, :] = u[n - 1, :]
        v[:, 0] = u[:, 0]
        v[:, m - 1] = u[:, m - 1]
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
                v[i, j] = u[i, j] + alpha * lap * u[i, j]
        u, v = v, u
    return np.sum(u * u)


def interior_only(u0, alpha, steps):
    """``v``'s ends keep the values of the copy: its contents at entry are live."""
    n = u0.shape[0]
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] * u[i + 1])
        u, v = v, u
    return np.sum(u * u)


def running_sum(x, steps):
    """``w[i]`` reads ``w[i - 1]`` in the loop that writes ``w``: not written first."""
    n = x.shape[0]
    w = np.zeros(n)
    s = 0.0
    for _ in range(steps):
        w[0] = x[0] * s
        for i in range(1, n):
            w[i] = w[i - 1] * 0.5 + x[i] * math.cos(s)
        s = s + np.sum(w) * 0.1
    return s


def scratch_read_before(x, steps):
    """The code before the loop reads ``w``'s values in its reverse (``sin``); the loop
    overwrites ``w`` in full every iteration."""
    n = x.shape[0]
    w = x * x
    s = np.sum(np.sin(w))
    for _ in range(steps):
        for i in range(n):
            w[i] = math.cos(x[i] * s)
        s = s + 0.3 * np.sum(w * w)
    return s


def values_read_before(x, steps):
    """``v``'s values before the loop feed ``s`` (whose reverse reads them); the loop then
    writes ``v`` in full each step and swaps it with ``u``."""
    n = x.shape[0]
    v = np.sin(x)
    s = np.sum(v * v * x)
    u = x.copy()
    for _ in range(steps):
        for i in range(n):
            v[i] = math.cos(u[i]) * s
        u, v = v, u
    return s + np.sum(u * u)


def _vectors(n, seed):
    return np.random.default_rng(seed).uniform(-0.8, 0.8, n)


CASES = {
    "heat_1d": (heat_1d, (_vectors(7, 0), 0.3, 4), (0, 1), True),
    "heat_2d": (heat_2d, (np.abs(_vectors(20, 1)).reshape(4, 5) + 0.2, 0.1, 3), (0, 1), True),
    "interior_only": (interior_only, (_vectors(6, 2), 0.4, 3), (0, 1), False),
    "running_sum": (running_sum, (_vectors(5, 3), 3), (0,), False),
    "scratch_read_before": (scratch_read_before, (_vectors(5, 4), 3), (0,), True),
    "values_read_before": (values_read_before, (_vectors(5, 5), 3), (0,), True),
}


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", RERUNNING, ids=str)
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_with_overwritten_arrays_left_out(case, policy, jit):
    func, args, argnums, _ = CASES[case]
    assert_gradient_matches(func, args, argnums, policy, jit)


@pytest.mark.parametrize("case", sorted(CASES))
def test_only_arrays_written_first_are_left_out_of_the_records(case):
    """The double buffers' second arrays are not recorded (``v_states`` or
    ``v_snapshots``); arrays whose entry values are read still are."""
    func, args, argnums, dropped = CASES[case]
    array = "w" if case in ("running_sum", "scratch_read_before") else "v"
    for policy, store in (("recompute", "states"), (sd.Checkpoint(2), "snapshots")):
        source = sd.adjoint_source(func, argnums=argnums, policy=policy, args=args)
        assert (f"{array}_{store}" not in source) == dropped, (case, policy)


VECTOR = VarType("array", "float64", 1)
N = ("class", "n")


def _overwritten(body: str, lengths=None, rank=1):
    loop = ast.parse(body).body[0]
    types = TypeTable({"u": VECTOR, "v": VECTOR}, VECTOR)
    types.shapes = {"u": (N,) * rank, "v": (N,) * rank}
    return overwritten_first(loop, ["v"], types, IndexFacts(lengths or {"n": N}, {}))


@pytest.mark.parametrize(
    "body, expected",
    [
        ("for k in range(3):\n    v[:] = u\n    u, v = v, u", True),
        ("for k in range(3):\n    v[1:] = u[1:]\n    v[0] = 1.0\n    u, v = v, u", True),
        ("for k in range(3):\n    for i in range(1, n + 1):\n        v[i - 1] = u[i]", True),
        ("for k in range(3):\n    v[-1] = 0.0\n    v[:-1] = u[1:]\n    u, v = v, u", True),
        # the last element is never written
        ("for k in range(3):\n    for i in range(n - 1):\n        v[i] = u[i]", False),
        # a branch may skip the write
        ("for k in range(3):\n    if k > 0:\n        v[:] = u\n    u, v = v, u", False),
        # read before the write
        ("for k in range(3):\n    u, v = v, u\n    v[:] = u", False),
        # a loop that may stop early
        ("for k in range(3):\n    for i in range(n):\n        v[i] = u[i]\n        break", False),
        # a length of another axis class
        ("for k in range(3):\n    for i in range(m):\n        v[i] = u[i]", False),
    ],
)
def test_the_analysis_alone(body, expected):
    lengths = {"n": N, "m": ("class", "m")}
    assert (_overwritten(body, lengths) == {"v"}) == expected


def test_a_diagonal_does_not_cover_a_matrix():
    body = "for k in range(3):\n    for i in range(n):\n        v[i, i] = u[i, i]"
    assert _overwritten(body, rank=2) == set()
    box = "for k in range(3):\n    for i in range(n):\n        for j in range(n):\n"
    assert _overwritten(box + "            v[i, j] = 0.0", rank=2) == {"v"}


def rebound_after(u0, a, steps):
    """``v`` is written in full every step, but bound to a longer array after the loop:
    the reverse sweep reaches the loop with that binding, so ``v`` is recorded."""
    n = u0.shape[0]
    u = u0.copy()
    v = np.empty(n)
    for _ in range(steps):
        for i in range(n):
            v[i] = u[i] * a + math.sin(u[i])
        u, v = v, u
    v = np.ones(n + 2)
    return np.sum(u * u) + np.sum(v * u[0])


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", ["store", *RERUNNING], ids=str)
def test_an_array_bound_again_after_the_loop_is_recorded(policy, jit):
    args = (np.linspace(-0.5, 0.7, 5), 0.8, 3)
    assert_gradient_matches(rebound_after, args, (0, 1), policy, jit)
    if policy != "store":  # (the pre-existing bug: v's adjoint had the last binding's shape)
        source = sd.adjoint_source(rebound_after, argnums=(0, 1), policy=policy, args=args)
        assert "v_states" in source or "v_snapshots" in source

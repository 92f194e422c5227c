"""Writes into an array whose name is rebound afterwards, or that another name also holds.

Two families a correctness hunt found (silently wrong under every policy before the fix):

- ``v = np.tanh(v); v[0] += c; v = np.tanh(v)``: the reverse sweep restored the element
  through the name ``v``, by then the second ``tanh``'s array, so the first ``tanh``'s
  adjoint read the changed element (analysis/recording.py keeps the name's array);
- ``p = np.exp(p)`` then a loop (a helper) adding into ``p``: "recompute" and revolve
  restored a copy of the loop's entry state under the name ``p`` only, while the adjoint
  of ``exp`` reads its result through its own name (transform/states.py refills the
  buffer).

Gradients against central differences with Richardson extrapolation, every policy,
compiled and as Python.
"""

import numpy as np
import pytest
from reference import array_central_difference, assert_close_arrays

import sourcediff as sd

POLICIES = ["store", "recompute", "auto", sd.Checkpoint(snapshots=2)]
WEIGHTS = np.array([1.0, 2.0, 3.0])


def rebound_after_write(x):
    v = x * 1.0
    v = np.tanh(v)
    v[0] += x[1]
    v = np.tanh(v)
    return np.sum(v * WEIGHTS)


def slice_scaled_then_rebound(x):
    v = x * 1.0
    v = np.exp(v)
    v[1:] *= x[0]
    v = v / np.sum(v)
    return np.sum(v * WEIGHTS)


def rebound_in_a_loop(x, c):
    h = x.copy()
    for _ in range(3):
        h = np.tanh(h)
        h[0] = h[0] + c * h[1]
    return np.sum(h**2)


def _add_floor(p, eps):
    for i in range(p.shape[0]):
        p[i] += eps


def helper_writes_into_a_result(z, eps):
    p = z * 1.0
    p = np.exp(p)
    _add_floor(p, eps)
    p = p / np.sum(p)
    return -np.log(p[1])


CASES = [
    (rebound_after_write, (np.array([0.3, -0.5, 0.8]),)),
    (slice_scaled_then_rebound, (np.array([0.3, 0.5, 0.8]),)),
    (rebound_in_a_loop, (np.array([0.3, 1.2, -0.4]), 0.2)),
    (helper_writes_into_a_result, (np.array([0.3, 1.2, -0.4]), 0.2)),
]


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize(("func", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient(func, args, policy, jit):
    argnums = tuple(range(len(args)))
    got = sd.grad(func, argnums=argnums, policy=policy, jit=jit)(
        *[a.copy() if isinstance(a, np.ndarray) else a for a in args]
    )
    want = array_central_difference(func, args, argnums)
    assert_close_arrays(got, want, rtol=1e-7, atol=1e-9, context=f"{policy} jit={jit}")

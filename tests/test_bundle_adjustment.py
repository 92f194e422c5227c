"""ADBench's bundle adjustment objective (benchmarks/kernels_ba.py): small arrays sliced out
of rows, a helper with an early return on a branch, ``np.cross`` and ``np.dot`` of
3-vectors, all inside a loop over observations.

The reference is the expert's hand adjoint (benchmarks/handwritten_ba.py, itself checked
against central differences by its self-check and by ``test_the_hand_adjoint_is_right``).
The second point has a camera without rotation, so the other branch of the Rodrigues
rotation is taken for its observations.
"""

import numpy as np
import pytest

import sourcediff as sd
from tests.benchmark_kernels import kernel_module

KERNEL = kernel_module("kernels_ba")
HAND = kernel_module("handwritten_ba")


def _points():
    unrotated = KERNEL.ba_args(3, 5, 9, seed=2)
    unrotated[0][1, :3] = 0.0
    return {"random": KERNEL.ba_args(4, 6, 12), "unrotated": unrotated}


POINTS = _points()
POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2)]


def test_the_hand_adjoint_is_right():
    assert HAND.self_check() == 0


@pytest.mark.parametrize("point", sorted(POINTS))
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_gradient_matches_the_hand_adjoint(policy, point):
    args = POINTS[point]
    value, grads = sd.value_and_grad(KERNEL.ba, argnums=(0, 1, 2), policy=policy, jit=False)(*args)
    want = HAND.ba_grad(*args)
    assert value == pytest.approx(want[0], rel=1e-12)
    for got, expected in zip(grads, want[1:]):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * np.max(np.abs(expected)))


def test_compiled_gradient_matches_the_hand_adjoint():
    args = POINTS["unrotated"]
    grads = sd.grad(KERNEL.ba, argnums=(0, 1, 2))(*args)
    for got, expected in zip(grads, HAND.ba_grad(*args)[1:]):
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * np.max(np.abs(expected)))

"""Writes through a 1-D boolean mask, ``a[a > t] = ...``: a selection of any size.

A number set into the selection receives the selected adjoints summed (it was given
back an array of them, silently, when the mask was read as one element); the tape
keeps a copy of the selection it overwrites (it stored it into one float slot, which
failed). Checked against central differences (Richardson-extrapolated) at two points,
under every policy, compiled and as plain Python; the first against its closed form.
"""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd

POLICIES = ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"]


def set_to_a_number(x, c):
    a = x.copy()
    a[a > 1.0] = c
    return np.sum(a * a) + c  # d/dc: 2 c (number selected) + 1


def scaled_in_a_loop(x, c, steps):
    a = x.copy()
    for _ in range(steps):
        a[a > 0.5] *= c
        a = a + 0.1
    return np.sum(a)


def set_then_where_in_a_loop(x, c, steps):
    a = x.copy()
    for _ in range(steps):
        a[a > 1.0] = c
        a = np.where(a < 0.0, 0.1 * a, a * 1.3)
    return np.sum(a * a)


def set_from_the_selection(x, w, steps):
    a = x.copy()
    for _ in range(steps):
        m = a > 0.3
        a[m] = a[m] * w[m] + 0.1
        a = a * 0.9 + 0.05 * x
    return np.sum(a * a)


POINTS = [np.array([2.0, 1.4, -0.3, 0.6]), np.array([0.37, -1.2, 1.7, 0.9])]


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_a_number_set_into_a_mask_gets_the_selected_adjoints_summed(jit):
    for x, count in zip(POINTS, (2, 1)):
        for policy in POLICIES:
            dx, dc = sd.grad(set_to_a_number, argnums=(0, 1), policy=policy, jit=jit)(x, 0.9)
            assert isinstance(dc, float) and dc == pytest.approx(2.0 * 0.9 * count + 1.0)
            np.testing.assert_array_equal(dx, np.where(x > 1.0, 0.0, 2.0 * x))
    nothing_selected = sd.grad(set_to_a_number, argnums=1, jit=jit)(POINTS[0] * 0.1, 0.9)
    assert isinstance(nothing_selected, float) and nothing_selected == 1.0


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_masked_writes_in_loops(policy, jit):
    for x in POINTS:
        assert_gradient_matches(scaled_in_a_loop, (x, 1.3, 3), (0, 1), policy, jit)
        assert_gradient_matches(set_then_where_in_a_loop, (x, 0.7, 3), (0, 1), policy, jit)
        args = (x, x[::-1] + 0.2, 3)
        assert_gradient_matches(set_from_the_selection, args, (0, 1), policy, jit)


def test_the_tape_keeps_a_copy_of_the_selection():
    source = sd.adjoint_source(scaled_in_a_loop, argnums=(0, 1), args=(POINTS[0], 1.3, 3))
    assert "_regions.append(a[" in source and ".copy()" in source


def mask_beside_an_index_array(A, c):
    B = A.copy()
    m = B[0] > 0.0
    B[np.array([0, 2]), m] = c  # NumPy pairs idx with the mask's true positions
    return np.sum(B * B)


def test_a_mask_beside_an_index_array_is_refused_at_its_line():
    A = np.array([[0.5, -0.2, 0.7], [0.3, 0.4, -0.6], [-0.8, 0.9, 0.1]])
    with pytest.raises(sd.SourceDiffError, match="np.nonzero") as refused:
        sd.grad(mask_beside_an_index_array, jit=False)(A, 0.9)
    assert refused.value.filename.endswith("test_masks.py")
    assert (
        "B[np.array([0, 2]), m] = c" in open(__file__).read().splitlines()[refused.value.lineno - 1]
    )

"""Reads through two or more integer arrays at once (``A[rows, cols]``, NumPy's paired
advanced indices), lowered to one flat gather (``normalize/paired_indices.py``): the
cross-entropy idiom ``logp[np.arange(n), labels]``, repeated and negative pairs, an
integer beside the arrays, three axes, a pair read inside a loop. Each gradient is
checked against Richardson-extrapolated central differences at two points, under store
and recompute, compiled and as plain Python; values against NumPy itself."""

import numpy as np
import pytest
from reference import assert_case_matches

import sourcediff as sd


def cross_entropy(logits, labels):
    n = logits.shape[0]
    z = logits - np.max(logits, axis=1)[:, None]
    logp = z - np.log(np.sum(np.exp(z), axis=1))[:, None]
    return -np.mean(logp[np.arange(n), labels])


def repeated_pairs(A, rows, cols):
    picked = A[rows, cols]  # (0, 2) twice and negative indices: NumPy wraps them
    return np.sum(picked * picked * np.arange(1.0, rows.shape[0] + 1.0))


def integer_beside(T, rows, cols):
    return np.sum(np.sin(T[rows, 1, cols])) + np.sum(T[rows, cols, 0] ** 3)


def pairs_in_a_loop(A, rows, cols):
    s = 0.0
    for step in range(3):
        s = s * 0.5 + np.sum(np.tanh(A[rows, cols] * (step + 1.0)))
    return s


RNG = np.random.default_rng(7)
LABELS = np.array([0, 2, 1, 1, 0])
ROWS, COLS = np.array([0, 1, 0, -1, 2]), np.array([2, 2, 2, 0, -3])
CASES = {
    "cross_entropy": (cross_entropy, lambda: (RNG.normal(size=(5, 3)), LABELS)),
    "repeated_pairs": (repeated_pairs, lambda: (RNG.normal(size=(3, 4)), ROWS, COLS)),
    "integer_beside": (integer_beside, lambda: (RNG.normal(size=(3, 4, 4)), ROWS, COLS)),
    "pairs_in_a_loop": (pairs_in_a_loop, lambda: (RNG.normal(size=(3, 4)), ROWS, COLS)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_through_paired_indices(case, jit):
    func, make = CASES[case]
    assert_case_matches(func, make, jit)


def test_forward_mode_through_paired_indices():
    args = CASES["repeated_pairs"][1]()
    direction = RNG.normal(size=args[0].shape)
    _, tangent = sd.jvp(repeated_pairs, args, (direction, np.zeros(5), np.zeros(5)))
    gradient = sd.grad(repeated_pairs)(*args)
    assert tangent == pytest.approx(float(np.sum(gradient * direction)), rel=1e-10)


def written_pairs(A, rows, cols):
    A[rows, cols] = 0.0
    return np.sum(A)


def test_a_write_through_paired_indices_is_refused_with_its_line():
    with pytest.raises(sd.SourceDiffError, match="test_paired_indices.py:.*one integer array"):
        sd.grad(written_pairs)(np.ones((3, 4)), ROWS, COLS)

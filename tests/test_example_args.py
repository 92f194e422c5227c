"""Example arguments guessed for ``sd.adjoint_source`` (and ``python -m sourcediff show``)
when the user gives none (examples.py), and NumPy's refusals of values reported at the
user's line (located_errors.py).

A guess must follow the arrays into the helpers they are passed to (a copy of a
parameter indexed as a matrix in a helper), through shape unpacking, ``axis=``, matrix
products, index arrays and rows passed to helpers; every benchmark kernel (code written
as scientists write it) shows its adjoint without ``args=``.
"""

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import sourcediff as sd
from sourcediff.errors import UnsupportedValueError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


def _fill_pairs(pos, out):
    for i in range(pos.shape[0]):
        out[i] = pos[i, 0] * pos[i, 1]


def through_a_copy_and_a_helper(pos, k):
    x = pos.copy()
    out = np.zeros(x.shape[0])
    _fill_pairs(x, out)
    return k * np.sum(out)


def _row_norm(row):
    return math.sqrt(row[0] * row[0] + row[1] * row[1])


def rows_and_indices(points, pairs, w):
    total = 0.0
    for p in range(pairs.shape[0]):
        total += w[p] * _row_norm(points[pairs[p, 0]] - points[pairs[p, 1]])
    return total


def second_axis_only(x):
    s = 0.0
    for j in range(x.shape[1]):
        s += np.sum(np.sin(x)) * j
    return s


def unpacked_and_along(x, w):
    n, d = x.shape
    return np.sum(np.roll(x @ w, 1, 1)) / (n * d)


@pytest.mark.parametrize(
    "func,ranks",
    [
        (through_a_copy_and_a_helper, [2, None]),
        (rows_and_indices, [2, 2, 1]),
        (unpacked_and_along, [2, 2]),
        (second_axis_only, [2]),
    ],
)
def test_guesses_follow_the_arrays(func, ranks):
    source = sd.adjoint_source(func)
    assert f"def {func.__name__}_vjp" in source
    described = source.split("Argument types: ")[1].splitlines()[0]
    for param, rank in zip(func.__code__.co_varnames, ranks):
        found = re.search(rf"\b{param}: array\(\w+, (\d)d", described)
        assert (found and int(found.group(1))) == rank or (rank is None and not found), described


def test_an_index_array_is_guessed_as_integers():
    source = sd.adjoint_source(rows_and_indices)
    described = source.split("Argument types: ")[1].splitlines()[0]
    assert "pairs: array(int64, 2d" in described


@pytest.mark.parametrize(
    "name", ["heat", "wave", "nbody", "mlp_loss", "ba", "lorenz", "jacobi_2d", "gmm", "rk4_rd"]
)
def test_every_benchmark_kernel_shows_its_adjoint_without_args(name):
    import kernels_arrays
    import kernels_ba
    import kernels_more

    module = next(m for m in (kernels_arrays, kernels_ba, kernels_more) if hasattr(m, name))
    assert f"def {name}_vjp" in sd.adjoint_source(getattr(module, name))


def rolled_along_a_missing_axis(u):
    return np.sum(np.roll(u, 1, 1) * u)


@pytest.mark.parametrize("jit", [True, False], ids=["compiled", "python"])
def test_an_axis_the_array_lacks_is_refused_at_the_users_line(jit):
    with pytest.raises(UnsupportedValueError) as caught:
        sd.grad(rolled_along_a_missing_axis, jit=jit)(np.arange(4.0))
    assert caught.value.filename.endswith("test_example_args.py")
    assert caught.value.lineno == rolled_along_a_missing_axis.__code__.co_firstlineno + 1
    assert "np.roll: axis is out of bounds" in str(caught.value)


def rolled_along_a_named_axis(u, steps):
    ax = 1  # not a constant the guess reads: u is guessed a vector
    for _ in range(steps):
        u = u + 0.1 * np.roll(u, 1, ax) * u
    return np.sum(u * u) + u[0]


def test_a_guess_that_meets_a_refusal_says_it_was_a_guess():
    with pytest.raises(sd.SourceDiffError) as caught:
        sd.adjoint_source(rolled_along_a_named_axis)
    assert "np.roll: axis is out of bounds" in str(caught.value)
    assert "were guessed" in str(caught.value) and "args=" in str(caught.value)
    args = (np.ones((3, 4)), 2)
    assert "def rolled_along_a_named_axis_vjp" in sd.adjoint_source(
        rolled_along_a_named_axis, args=args
    )

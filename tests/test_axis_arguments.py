"""An axis passed as an argument (``def f(a, axis)``, called with an int) rather than
written as a literal: the rows' ``g if axis is None else expand_axis(g, axis)`` is
decided when the template is filled (``rules._decide_none_tests``), so Numba types one
branch. Before, the compiled gradient failed inside Numba. Checked against
Richardson-extrapolated central differences, compiled and as plain Python."""

import numpy as np
import pytest
from reference import assert_gradient_matches


def rescaled_sums(a, axis):
    m = np.sum(a, axis=axis)
    return np.sum(np.expand_dims(m, axis) * a)


def squared_row_norms(a, axis):
    return np.sum(np.sum(a * a, axis=axis) ** 2) + np.sum(np.mean(a, axis=axis) ** 3)


def shifted_exponentials(a, axis):
    m = np.max(a, axis=axis, keepdims=True)
    return np.sum(np.exp(a - m) * np.cumsum(a, axis=axis))


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("func", [rescaled_sums, squared_row_norms, shifted_exponentials])
@pytest.mark.parametrize("axis", [0, 1])
def test_an_axis_argument(func, axis, jit):
    a = np.array([[0.3, -1.2, 0.7, 0.1], [1.1, 0.4, -0.5, 0.9], [0.2, 0.8, -0.3, -1.0]])
    assert_gradient_matches(func, (a, axis), 0, "auto", jit)

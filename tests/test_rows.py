"""Rows of loop-invariant arrays transformed elementwise, computed once for every row
(``normalize/rows.py``): where it applies and where it must not (the cases, in
tests/rows_cases.py, are also checked against central differences under every policy by
tests/test_silent_wrong.py)."""

import re

import numpy as np
import pytest
from rows_cases import HOISTED, KEPT, rows_of_a_loop_that_may_not_run

import sourcediff as sd


def _vjp_code(func, argnums, args) -> str:
    """The generated vjp function, without its comments (which quote the file's name)."""
    source = sd.adjoint_source(func, argnums, args=_copied(args))
    lines = source[source.index("_vjp(") :].splitlines()
    return "\n".join(line for line in lines if not line.strip().startswith("#"))


def _copied(args):
    return tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize(("func", "args", "argnums"), HOISTED, ids=[c[0].__name__ for c in HOISTED])
def test_invariant_rows_are_computed_before_the_sample_loop(func, args, argnums):
    forward = _vjp_code(func, argnums, args).split("\n    for i in range")[0]
    assert "_rows = " in forward


@pytest.mark.parametrize(("func", "args", "argnums"), KEPT, ids=[c[0].__name__ for c in KEPT])
def test_rows_that_may_change_are_read_where_they_are(func, args, argnums):
    assert not re.search(r"\w_rows\b", _vjp_code(func, argnums, args))


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_no_row_is_computed_when_the_sample_loop_does_not_run(jit):
    A = np.array([[0.5, 0.2], [0.0, 0.4]])
    value, (dA, dx) = sd.value_and_grad(rows_of_a_loop_that_may_not_run, (0, 1), jit=jit)(
        A, np.zeros(0)
    )
    assert value == pytest.approx(1.1)
    np.testing.assert_array_equal(dA, np.ones_like(A))
    assert dx.shape == (0,)
    assert "_rows" in _vjp_code(rows_of_a_loop_that_may_not_run, (0, 1), (A + 1.0, np.ones(2)))

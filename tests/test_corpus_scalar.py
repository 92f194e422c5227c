"""grad and value_and_grad on the scalar corpus, against finite differences of plain Python.

Each (case, point, jit) is one test. The transformed functions are built once per
(case, jit) and reused for every point, because compiling with Numba takes about a second.
"""

import pytest
from corpus_scalar import CASES
from corpus_support import built
from reference import assert_close, central_difference

VALUE_RTOL = 1e-12
VALUE_ATOL = 0.0
# value_and_grad and grad run derivative code for the same function; they agree to rounding.
CONSISTENCY_RTOL = 1e-9
CONSISTENCY_ATOL = 1e-12

_REFERENCE = {}


def _build(kind, case, jit):
    return built(kind, case, jit)


def _reference(case, index):
    key = (case.name, index)
    if key not in _REFERENCE:
        _REFERENCE[key] = central_difference(case.func, case.points[index], case.argnums)
    return _REFERENCE[key]


def _check_gradient_type(g, case, context):
    if isinstance(case.argnums, int):
        assert isinstance(g, float), f"{context}: gradient should be a float, got {g!r}"
    else:
        assert isinstance(g, tuple) and len(g) == len(case.argnums), (
            f"{context}: gradient should be a tuple of {len(case.argnums)} floats, got {g!r}"
        )
        for k, gk in enumerate(g):
            assert isinstance(gk, float), f"{context}: component {k} should be a float, got {gk!r}"


PARAMS = [
    pytest.param(case, index, jit, id=f"{case.name}-p{index}-{'jit' if jit else 'py'}")
    for case in CASES
    for jit in (True, False)
    for index in range(len(case.points))
]


@pytest.mark.parametrize(("case", "index", "jit"), PARAMS)
def test_grad_matches_finite_differences(case, index, jit):
    point = case.points[index]
    context = f"{case.name}{point} argnums={case.argnums!r} jit={jit}"
    g = _build("grad", case, jit)(*point)
    _check_gradient_type(g, case, context)
    assert_close(g, _reference(case, index), case.rtol, case.atol, context)


@pytest.mark.parametrize(("case", "index", "jit"), PARAMS)
def test_value_and_grad(case, index, jit):
    point = case.points[index]
    context = f"{case.name}{point} argnums={case.argnums!r} jit={jit}"
    result = _build("value_and_grad", case, jit)(*point)
    assert isinstance(result, tuple) and len(result) == 2, (
        f"{context}: value_and_grad should return (value, grad), got {result!r}"
    )
    value, g = result
    assert isinstance(value, float), f"{context}: value should be a float, got {value!r}"
    assert_close(value, case.func(*point), VALUE_RTOL, VALUE_ATOL, context + " (value)")
    _check_gradient_type(g, case, context)
    assert_close(g, _reference(case, index), case.rtol, case.atol, context + " (grad)")
    expected = _build("grad", case, jit)(*point)
    assert_close(g, expected, CONSISTENCY_RTOL, CONSISTENCY_ATOL, context + " (vs sd.grad)")

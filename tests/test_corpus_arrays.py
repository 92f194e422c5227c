"""grad and value_and_grad on the array corpus, against finite differences of plain Python.

Each (case, point, jit) is one test. The transformed functions are built once per
(case, jit) and reused for every point, because compiling with Numba takes about a second.
Every call gets fresh copies of the point's arrays, because some functions write into their
arguments; after the call the caller's arrays must hold what the plain function leaves in
them.
"""

import numpy as np
import pytest
from corpus_arrays import CASES, KNOWN_BUGS
from corpus_support import built
from reference import array_central_difference, assert_close_arrays
from scope import every_third

# The value is computed by the same operations in the same order as in plain Python, but
# np.sum adds in a different order in NumPy (pairwise) and in Numba (left to right).
VALUE_RTOL = 1e-10
VALUE_ATOL = 1e-12
# With float32 arrays, Numba and NumPy promote mixed float32/float64 operations differently.
FLOAT32_RTOL = 1e-4
FLOAT32_ATOL = 1e-5
# value_and_grad and grad run derivative code for the same function; they agree to rounding.
CONSISTENCY_RTOL = 1e-9
CONSISTENCY_ATOL = 1e-12

_REFERENCE = {}


def _build(kind, case, jit):
    return built(kind, case, jit)


def _copy(point):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in point)


def _has_float32(point):
    return any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in point)


def _reference(case, index):
    key = (case.name, index)
    if key not in _REFERENCE:
        _REFERENCE[key] = array_central_difference(case.func, case.points[index], case.argnums)
    return _REFERENCE[key]


def _plain_call(case, index):
    """The plain function's value and its arguments after the call, on copies of the point."""
    args = _copy(case.points[index])
    value = case.func(*args)
    return value, args


def _check_gradient_type(g, case, point, context):
    argnums = (case.argnums,) if isinstance(case.argnums, int) else case.argnums
    if isinstance(case.argnums, int):
        components = (g,)
    else:
        assert isinstance(g, tuple) and len(g) == len(argnums), (
            f"{context}: gradient should be a tuple of {len(argnums)} components, got {g!r}"
        )
        components = g
    for k, gk in zip(argnums, components):
        x = point[k]
        if isinstance(x, np.ndarray):
            assert isinstance(gk, np.ndarray), (
                f"{context}: gradient for argument {k} should be an ndarray, got {gk!r}"
            )
            assert gk.shape == x.shape and gk.dtype == x.dtype, (
                f"{context}: gradient for argument {k} is {gk.dtype}{gk.shape}, "
                f"expected {x.dtype}{x.shape} like the input"
            )
        else:
            assert isinstance(gk, float), (
                f"{context}: gradient for argument {k} should be a float, got {gk!r}"
            )


def _check_arguments_after(args, expected_args, context):
    """The caller's arrays after the sd call hold what the plain function left in them."""
    for k, (a, e) in enumerate(zip(args, expected_args)):
        if not isinstance(e, np.ndarray):
            continue
        where = f"{context} (argument {k} after the call)"
        if e.dtype.kind == "f":
            rtol, atol = (FLOAT32_RTOL, FLOAT32_ATOL) if e.dtype == np.float32 else (1e-12, 1e-14)
            assert a.dtype == e.dtype, f"{where}: dtype changed to {a.dtype}"
            assert_close_arrays(a, e, rtol, atol, where)
        else:
            assert np.array_equal(a, e), f"{where}: {a!r} != {e!r}"


def _marks(case):
    # A known bug's case must fail (strict), so that fixing the bug shows here.
    if case.name in KNOWN_BUGS:
        return [pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[case.name])]
    return []


# Every case in Python, a third of them compiled (all with SOURCEDIFF_FULL_SUITE=1).
COMPILED = {case.name for case in every_third(CASES)}
PARAMS = [
    pytest.param(
        case, index, jit, id=f"{case.name}-p{index}-{'jit' if jit else 'py'}", marks=_marks(case)
    )
    for case in CASES
    for jit in (True, False)
    if not jit or case.name in COMPILED
    for index in range(len(case.points))
]


@pytest.mark.parametrize(("case", "index", "jit"), PARAMS)
def test_grad_matches_finite_differences(case, index, jit):
    point = case.points[index]
    context = f"{case.name} p{index} argnums={case.argnums!r} jit={jit}"
    args = _copy(point)
    g = _build("grad", case, jit)(*args)
    _check_gradient_type(g, case, point, context)
    assert_close_arrays(g, _reference(case, index), case.rtol, case.atol, context)
    _check_arguments_after(args, _plain_call(case, index)[1], context)


@pytest.mark.parametrize(("case", "index", "jit"), PARAMS)
def test_value_and_grad(case, index, jit):
    point = case.points[index]
    context = f"{case.name} p{index} argnums={case.argnums!r} jit={jit}"
    args = _copy(point)
    result = _build("value_and_grad", case, jit)(*args)
    assert isinstance(result, tuple) and len(result) == 2, (
        f"{context}: value_and_grad should return (value, grad), got {result!r}"
    )
    value, g = result
    assert isinstance(value, float), f"{context}: value should be a float, got {value!r}"
    expected_value, expected_args = _plain_call(case, index)
    rtol, atol = (FLOAT32_RTOL, FLOAT32_ATOL) if _has_float32(point) else (VALUE_RTOL, VALUE_ATOL)
    assert_close_arrays(value, float(expected_value), rtol, atol, context + " (value)")
    _check_gradient_type(g, case, point, context)
    assert_close_arrays(g, _reference(case, index), case.rtol, case.atol, context + " (grad)")
    _check_arguments_after(args, expected_args, context)
    expected = _build("grad", case, jit)(*_copy(point))
    assert_close_arrays(g, expected, CONSISTENCY_RTOL, CONSISTENCY_ATOL, context + " (vs sd.grad)")

"""``add_into``, the reverse sweep's ``dst += src``: compiled, it is a loop nest written for
the ranks at hand (sourcediff/adding.py); it must add exactly what NumPy's ``+=`` adds."""

import numba
import numpy as np
import pytest

from sourcediff.adding import add_into


@numba.njit
def _compiled(dst, src):
    add_into(dst, src)


PAIRS = [
    ((5,), (5,)),
    ((5,), (1,)),
    ((2, 3), (3,)),
    ((2, 3), (1, 3)),
    ((2, 3), (2, 1)),
    ((2, 3), (1, 1)),
    ((2, 0), (1, 0)),
    ((2, 3, 4), (3, 1)),
    ((2, 3, 4), (1, 3, 4)),
    ((4,), ()),
    ((2, 3), ()),
]


@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize(("dst_shape", "src_shape"), PAIRS, ids=str)
def test_it_adds_what_numpy_adds(dst_shape, src_shape, compiled):
    rng = np.random.default_rng(len(dst_shape) + 3 * len(src_shape))
    src = rng.normal(size=src_shape) if src_shape else 1.5
    add = _compiled if compiled else add_into
    dst = rng.normal(size=dst_shape)
    expected = dst.copy()
    expected += src
    add(dst, src)
    np.testing.assert_array_equal(dst, expected)
    # A strided view of a bigger array, as an adjoint's region is (any layout).
    big = rng.normal(size=tuple(2 * n + 1 for n in dst_shape))
    view = big[tuple(slice(1, None, 2) for _ in dst_shape)]
    expected = view.copy()
    expected += src
    add(view, src)
    np.testing.assert_array_equal(view, expected)
    fortran = np.asfortranarray(rng.normal(size=dst_shape))
    expected = fortran.copy()
    expected += src
    add(fortran, src)
    np.testing.assert_array_equal(fortran, expected)


@pytest.mark.parametrize(("dst_shape", "src_shape"), [((3,), (2,)), ((2, 3), (3, 3))], ids=str)
def test_shapes_that_do_not_broadcast_raise_as_numpy_does(dst_shape, src_shape):
    with pytest.raises(ValueError, match="do not broadcast"):
        _compiled(np.zeros(dst_shape), np.ones(src_shape))
    with pytest.raises(ValueError):
        add_into(np.zeros(dst_shape), np.ones(src_shape))


def test_integer_and_boolean_sources():
    dst = np.zeros((2, 2))
    _compiled(dst, np.array([[1, 2], [3, 4]]))
    _compiled(dst, np.array([True, False]))
    np.testing.assert_array_equal(dst, [[2.0, 2.0], [4.0, 4.0]])

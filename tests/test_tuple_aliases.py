"""An array taken out of a tuple is the array the tuple holds: a write into it while the
original is read later is refused (analysis/aliases.py), never differentiated wrongly
(review of 2026-12-08: the gradient came back [9, 3, 4.5] for [0.5, 8, 4.5])."""

import numpy as np
import pytest

import sourcediff as sd
from sourcediff.errors import UnsupportedSyntaxError


def _pick(t, k):
    return t[k]


def _written_in_a_loop(x):
    a = x * 1.0
    b = x * 2.0
    s = 0.0
    for k in range(3):
        s += np.sum(a * a) * 0.25
        v = _pick((a,) + (b,), 0)
        v[0] = x[1] * (k + 1.0)
    return s


def _written_once(x):
    a = x * 1.0
    v = _pick((a, x * 2.0), 0)
    v[0] = x[1] * 3.0
    return np.sum(a * a)


@pytest.mark.parametrize("func", [_written_in_a_loop, _written_once])
def test_a_write_into_an_array_out_of_a_tuple_is_refused(func):
    with pytest.raises(UnsupportedSyntaxError, match="shares its memory"):
        sd.grad(func, jit=False)(np.array([1.0, 2.0, 3.0]))


def _picked_from_a_joined_tuple(x0, v0):
    x, v = x0.copy(), v0.copy()
    w = _pick((x * 1.0,) + (v * 0.5,), 0)
    return np.sum(w * w) + np.sum(v * v)


def _picked_from_a_tuple_display(x0, v0):
    x, v = x0.copy(), v0.copy()
    w = _pick((x * 1.0, v * 0.5), 0)
    return np.sum(w * w) + np.sum(v * v)


# An element of a tuple built in the call's argument, ``(a, t1)[0]`` or ``t5 + t6`` of two
# tuples once the helper is inlined, once got no adjoint (the gradient with respect to x
# came back 0); normalize/tuple_displays makes each element a variable.
@pytest.mark.parametrize("func", [_picked_from_a_joined_tuple, _picked_from_a_tuple_display])
def test_an_element_of_a_tuple_built_in_place_is_differentiated(func):
    rng = np.random.default_rng(3)
    args = (rng.normal(size=4), rng.normal(size=4))
    sd.check_grad(func, *args, argnums=(0, 1), policy="store", jit=False)

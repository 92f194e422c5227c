"""Tuples given to helpers, joined, repeated, sliced or looped over: each element is
differentiated (normalize/tuple_displays). Once an element of a tuple built in a call's
argument came back with a zero gradient (``_pick((x * 1.0, v * 0.5), 0)``); a tuple indexed
with a value known only at run time is refused with the user's line."""

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd
from sourcediff.errors import UnsupportedSyntaxError


def _pick(t, k):
    return t[k]


def _unpack(t):
    a, b = t
    return a * b


def _each(t):
    s = 0.0
    for e in t:
        s += np.sum(e * e)
    return s


def _by_index(t):
    s = 0.0
    for i in range(len(t)):
        s += np.sum(t[i] * (i + 1.0))
    return s


def _ends(t):
    return len(t) * np.sum(t[0] * t[-1])


def displayed(x, v):
    w = _pick((x * 1.0, v * 0.5), 0)
    return np.sum(w * w) + np.sum(v * v)


def joined(x, v):
    w = _pick((x * 1.0,) + (v * 0.5,), 1)
    return np.sum(w * w * x)


def repeated(x, v):
    return np.sum(_pick((x * 2.0,) * 2, 1) * v)


def unpacked(x, v):
    return np.sum(_unpack((x * 2.0, v)))


def looped_in_helper(x, v):
    return _each((x * 2.0, v * x))


def ends(x, v):
    return _ends((x * 2.0, v * x))


def numbers(x, v):
    a = x[0] * v[1]
    return _pick((a * a, x[1]), 0) + _pick((a, x[2]), 1)


def named_and_joined(x, v):
    p = (x * 3.0, v)
    q = p + (x,)
    return np.sum(_pick(q, 2) * _pick(q, 0)) + np.sum(_pick(q[::-1], 0))


def in_a_loop(x, v):
    s = 0.0
    for i in range(3):
        w = _pick((x * (i + 1.0), v), 0)
        s += np.sum(w * v)
    return s


def indexed_by_loop(x, v):
    s = 0.0
    for i in range(2):
        s += np.sum(_pick((x, v * x), i) ** 2)
    return s + _by_index((x * 2.0, v * x, x))


def looped_in_place(x, v):
    s = 0.0
    p = (x, v * 2.0, x * v)
    for e in p:
        s += np.sum(e * x)
    for i in range(1, 3):
        s += np.sum(p[i] * p[i - 1])
    for i, e in enumerate((x, v * x)):
        s += np.sum(e * e) * i
    return s


def swapped_in_a_loop(x, v):
    p = (x * 1.0, v * 1.0)
    for _ in range(3):
        p = (p[1] * 0.5, p[0] + p[1])
    return np.sum(p[0] * p[1])


def _weighted(t):
    s = 0.0
    for i in range(len(t)):
        s += (i + 1.0) * np.sum(t[i] * t[i])
    return s


def _passed_on(t):
    return _weighted(t) * 2.0


def called_twice(x, v):
    """Called from two places a helper is outlined, unless it is given a tuple (then an
    outlined call gave its elements no adjoint: fuzz seed 1176 of the extras stream)."""
    w = x.copy()
    return _weighted((x,) * 2) + _weighted((w * v, x)) + _passed_on((v, x)) + _passed_on((x,))


def nested(x, v):
    """A tuple of tuples: its elements are split once it is (review of 8aa9db6: zero
    gradients, the index of ``u = t[k]`` known only once the loop is unrolled)."""
    t = ((x * 2.0, v), (v * x, x))
    s = np.sum(_pick(_pick(t, 0), 0))
    for k in range(2):
        u = t[k]
        s += np.sum(u[0] * u[1])
    return s


def chained(x, v):
    a = b = (x * 2.0, v)
    return np.sum(a[0] * b[1])


CASES = [
    nested,
    chained,
    called_twice,
    displayed,
    joined,
    repeated,
    unpacked,
    looped_in_helper,
    ends,
    numbers,
]
CASES += [named_and_joined, in_a_loop, indexed_by_loop, looped_in_place, swapped_in_a_loop]


def _args(seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1.5, 1.5, 4), rng.uniform(-1.5, 1.5, 4))


@pytest.mark.parametrize("policy", ["store", "recompute"])
@pytest.mark.parametrize("func", CASES)
def test_every_element_of_a_tuple_is_differentiated(func, policy):
    for seed in (1, 2):
        assert_gradient_matches(func, _args(seed), (0, 1), policy=policy, jit=False)


@pytest.mark.parametrize("func", [joined, indexed_by_loop, swapped_in_a_loop])
def test_compiled(func):
    assert_gradient_matches(func, _args(3), (0, 1), policy=sd.Checkpoint(snapshots=2))


def _runtime(t, n):
    s = 0.0
    for i in range(n):
        s += np.sum(t[i % 2])  # <- refused
    return s


def indexed_at_run_time(x, v):
    return _runtime((x, v * x), x.shape[0])


def test_a_run_time_index_is_refused_at_its_line():
    line = _runtime.__code__.co_firstlineno + 3
    with pytest.raises(
        UnsupportedSyntaxError, match=rf"test_tuple_displays\.py:{line}: this tuple"
    ):
        sd.grad(indexed_at_run_time, jit=False)(*_args(1))


def _first(t, x):
    s = 0.0
    for k in range(len(t)):
        s += np.sum(t[k] * x)
        if k == 0:
            break  # <- refused: unrolled, it would leave the caller's loop
    return s


def broken_off(x, v):
    s = 0.0
    for j in range(3):
        s += _first((x * 2.0, v * x), x) * (j + 1.0)
    return s


def test_a_loop_over_a_tuple_that_breaks_is_refused():
    """Review of 8aa9db6: unrolled, the ``break`` ended the caller's loop (value 0)."""
    line = _first.__code__.co_firstlineno + 3
    with pytest.raises(UnsupportedSyntaxError, match=rf"test_tuple_displays\.py:{line}: "):
        sd.grad(broken_off, jit=False)(*_args(1))


def _set_first(t, c):
    e = t[0]
    e[1] = c  # <- refused: a write through the tuple
    return 0.0


def written_through(x, v):
    a = x * 1.0
    z = _set_first((a, v), x[0] * x[2])
    return np.sum(a * x) + z


def test_a_write_through_a_tuple_is_refused_as_such():
    """Review of 8aa9db6: refused, but as an index known only at run time."""
    line = _set_first.__code__.co_firstlineno + 2
    with pytest.raises(UnsupportedSyntaxError, match=rf"\.py:{line}: this writes into an array"):
        sd.grad(written_through, jit=False)(*_args(1))


def test_a_read_out_of_a_tuple_of_floats_left_whole_is_refused():
    """The types-stage net (refuse_tuple_reads): no construct found reaches it, so it is
    checked on a tuple name the passes left whole, as Numba would type it."""
    import ast

    from numba.core import types as nb

    from sourcediff.analysis.types import TypeTable, VarType, _merge, to_var_type
    from sourcediff.normalize.tuple_displays import refuse_tuple_reads

    floats = to_var_type(nb.Tuple((nb.float64[:], nb.int64)))
    ints = to_var_type(nb.UniTuple(nb.int64, 2))
    assert (floats, ints) == (VarType("tuple", "float"), VarType("tuple", ""))
    assert _merge(ints, floats) == floats  # a float in any binding counts
    node = ast.parse("def f(t, s):\n    u = s[0]\n    for e in t:\n        u = e\n").body[0]
    node.body[1].origin = ("model.py", 7)
    refuse_tuple_reads(node, TypeTable({"t": ints, "s": ints, "u": ints}, ints))
    with pytest.raises(UnsupportedSyntaxError, match=r"model\.py:7: a value is taken out of"):
        refuse_tuple_reads(node, TypeTable({"t": floats, "s": ints, "u": ints}, ints))

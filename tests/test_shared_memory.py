"""Arguments that share memory with an array the function writes into.

The plain function then reads its own writes through the other argument, while a
derivative works on private copies of what it writes (and reads the caller's memory for the
rest): the result would be silently wrong. Every transformation refuses such calls with a
clear error; arguments that merely share memory with arrays nobody writes are fine, and
so are disjoint views of one matrix (two of its columns).
"""

import numba
import numpy as np
import pytest

import sourcediff as sd
from sourcediff.interop import memory_overlaps


def scale_by(x, y):
    for i in range(x.shape[0]):
        x[i] = x[i] * y[i]
    return np.sum(x * x)


def dot(x, y):
    return np.sum(x * y)


WEIGHTS = np.array([1.5, 0.5, 2.0])


def scale_by_weights(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * WEIGHTS[i]
    return np.sum(x * WEIGHTS)


def _scale_by_grads(x, y):
    return 2.0 * x * y**2, 2.0 * x**2 * y


TRANSFORMS = {
    "grad": lambda a, b: sd.grad(scale_by, argnums=(0, 1), jit=False)(a, b),
    "vjp": lambda a, b: sd.vjp(scale_by, a, b, jit=False)[1](1.0),
    "jvp": lambda a, b: sd.jvp(scale_by, (a, b), (np.ones(4), np.ones(4)), jit=False),
    "jacobian": lambda a, b: sd.jacobian(scale_by, jit=False)(a, b),
    "hessian": lambda a, b: sd.hessian(scale_by, jit=False)(a, b),
    "hvp": lambda a, b: sd.hvp(scale_by, jit=False)(a, b, np.ones(4)),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_one_array_passed_twice_to_a_function_writing_it_is_refused(transform):
    a = np.arange(4.0) + 1.0
    with pytest.raises(sd.SourceDiffError, match="'x' shares memory with 'y'") as info:
        TRANSFORMS[transform](a, a)
    assert info.value.filename.endswith("test_shared_memory.py")
    np.testing.assert_array_equal(a, np.arange(4.0) + 1.0)  # refused before running


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
def test_overlapping_views_are_refused_and_disjoint_columns_are_not(jit):
    df = sd.grad(scale_by, argnums=(0, 1), jit=jit)
    m = np.arange(1.0, 13.0).reshape(3, 4)
    with pytest.raises(sd.SourceDiffError, match="writes into 'x'"):
        df(m[0, :3], m[0, 1:])
    x, y = m[:, 0].copy(), m[:, 1].copy()
    dx, dy = df(m[:, 0], m[:, 1])
    expected_dx, expected_dy = _scale_by_grads(x, y)
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-14)
    np.testing.assert_allclose(dy, expected_dy, rtol=1e-14)
    np.testing.assert_array_equal(m[:, 0], x * y)  # the caller sees the function's write


@pytest.mark.parametrize(
    "transform",
    [sd.grad(scale_by_weights, jit=False), sd.jit(scale_by_weights)],
    ids=["grad", "jit"],
)
def test_a_written_argument_sharing_memory_with_a_module_level_array_is_refused(transform):
    # The module's array is baked into the generated code: its copy would not see the writes.
    with pytest.raises(sd.SourceDiffError, match="the module-level array 'WEIGHTS'"):
        transform(WEIGHTS[::-1])
    np.testing.assert_array_equal(WEIGHTS, [1.5, 0.5, 2.0])
    x = np.array([2.0, -1.0, 0.25])
    np.testing.assert_allclose(sd.grad(scale_by_weights, jit=False)(x.copy()), WEIGHTS**2)


def test_shared_memory_is_fine_when_nothing_is_written():
    a = np.linspace(-1.0, 2.0, 5)
    dx, dy = sd.grad(dot, argnums=(0, 1), jit=False)(a, a)
    np.testing.assert_array_equal(dx, a)
    np.testing.assert_array_equal(dy, a)


def copy_then_write(x, y):
    x = x.copy()  # a defensive copy: the caller's x is never written
    for i in range(x.shape[0]):
        x[i] = x[i] * y[i]
    return np.sum(x * x)


def rebind_then_write(x, y):
    x = x * 2.0
    x[0] = x[0] * y[0]
    return np.sum(x * x)


def swap_names(x, y):
    x, y = y, x  # exchanges the names, writes nothing
    return np.sum(x * x * y)


def _rebind_grads(x, y):
    dx, dy = 8.0 * x, np.zeros_like(y)
    dx[0], dy[0] = 8.0 * x[0] * y[0] ** 2, 8.0 * x[0] ** 2 * y[0]
    return dx, dy


NEW_ARRAYS = {  # the function, and its gradient in closed form
    copy_then_write: _scale_by_grads,
    rebind_then_write: _rebind_grads,
    swap_names: lambda x, y: (y * y, 2.0 * x * y),
}


@pytest.mark.parametrize("func", list(NEW_ARRAYS), ids=lambda f: f.__name__)
def test_shared_memory_is_fine_when_the_function_writes_only_new_arrays(func):
    a = np.linspace(0.5, 2.0, 4)
    actual = sd.grad(func, argnums=(0, 1), jit=False)(a, a)
    for mine, expected in zip(actual, NEW_ARRAYS[func](a.copy(), a.copy())):
        np.testing.assert_allclose(mine, expected, rtol=1e-14)
    np.testing.assert_array_equal(a, np.linspace(0.5, 2.0, 4))


def test_a_tangent_sharing_memory_with_a_written_argument_is_refused():
    a, b = np.arange(3.0) + 1.0, np.ones(3)
    with pytest.raises(sd.SourceDiffError, match="'x' shares memory with the cotangent or"):
        sd.jvp(scale_by, (a, b), (a, b), jit=False)


def test_from_njit_code_a_written_array_passed_twice_is_refused():
    df = sd.grad(scale_by, argnums=(0, 1))

    @numba.njit
    def step(x, y):
        return df(x, y)

    a = np.arange(4.0) + 1.0
    with pytest.raises(ValueError, match="scale_by writes into x, which may share memory"):
        step(a, a)
    m = np.arange(1.0, 13.0).reshape(3, 4)
    x, y = m[:, 0].copy(), m[:, 1].copy()
    dx, dy = step(m[:, 0], m[:, 1])
    np.testing.assert_allclose(dx, _scale_by_grads(x, y)[0], rtol=1e-14)
    np.testing.assert_allclose(dy, _scale_by_grads(x, y)[1], rtol=1e-14)


def _views(base: np.ndarray) -> list:
    return [
        base,
        base[0],
        base[:, 0],
        base[:, 1],
        base[1:, ::2],
        base[::-1, 1::2],
        base[2:, :],
        base.T[1],
        base[:0],
        base.ravel()[3:9],
    ]


def test_memory_overlaps_never_misses_shared_memory():
    base = np.arange(30.0).reshape(5, 6)
    other = np.zeros(7)
    views = _views(base) + [other, other[::2], other[1::2]]
    for a in views:
        for b in views:
            if np.shares_memory(a, b):
                assert memory_overlaps(a, b), (a, b)
    assert not memory_overlaps(base[:, 0], base[:, 1])
    assert not memory_overlaps(other[::2], other[1::2])
    assert not memory_overlaps(base, other)


def _smooth_in_place(v, w):
    for i in range(1, v.shape[0]):
        v[i] = (1.0 - w) * v[i] + w * v[i - 1]


def _smooths_a_view(u0, w):
    u = u0.copy()
    _smooth_in_place(u[2:], w)
    return np.sum(u * u)


def _smooth_toward(v, target, w):
    for i in range(v.shape[0]):
        v[i] = (1.0 - w) * v[i] + w * target[i]


def _smooths_a_view_toward_its_base(u0, w):
    u = u0.copy()
    _smooth_toward(u[2:], u, w)
    return np.sum(u * u)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_view_passed_to_a_helper_that_writes_it_is_written_back(jit):
    """``smooth(u[2:], w)`` writes into ``u`` through the view: the same as a copy the
    helper writes, then written back (normalize/view_arguments.py)."""
    u0 = np.linspace(0.1, 1.0, 6)
    sd.check_grad(_smooths_a_view, u0, 0.3, argnums=(0, 1), jit=jit)
    value, _ = sd.value_and_grad(_smooths_a_view, jit=jit)(u0, 0.3)
    assert value == _smooths_a_view(u0, 0.3)


def _smooths_and_reads_the_base_in_one_statement(u0, w):
    u = u0.copy()
    s = _scale_first(u[2:], w) + u[3]
    return s + np.sum(u * u)


def test_a_statement_reading_the_base_beside_the_writing_call_is_refused_by_name():
    """``h(u[2:]) + u[3]``: a write back after the statement would come after the read."""
    with pytest.raises(sd.UnsupportedSyntaxError, match=r"'u\[2:\]' is written in place"):
        sd.grad(_smooths_and_reads_the_base_in_one_statement, jit=False)(np.ones(6), 0.3)


def _scales_a_gather(x0, a, idx):
    t = x0 + _scale_first(a[idx], x0)
    return t + np.sum(a * a)


def _scales_rows_in_turn(m, s):
    total = 0.0
    for i in range(m.shape[0] - 1):
        total += _scale_first(m[i + 1], s)
    return total + np.sum(m * m)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_only_views_by_basic_indexing_are_written_back(jit):
    """``a[idx]`` with an index array is a copy: the helper's write never reaches ``a``
    (written back, it did); rows by a loop counter are views and are written back."""
    a, idx = np.array([0.3, -0.5, 0.8, 1.1]), np.array([2, 0])
    mine, plain = a.copy(), a.copy()
    value, _ = sd.value_and_grad(_scales_a_gather, argnums=(0, 1), jit=jit)(0.4, mine, idx)
    assert value == _scales_a_gather(0.4, plain, idx)
    np.testing.assert_array_equal(mine, plain)
    sd.check_grad(_scales_a_gather, 0.4, a, idx, argnums=(0, 1), jit=jit)
    m = np.arange(12.0).reshape(4, 3) / 10.0
    mine, plain = m.copy(), m.copy()
    value, _ = sd.value_and_grad(_scales_rows_in_turn, argnums=(0, 1), jit=jit)(mine, 0.7)
    assert value == pytest.approx(_scales_rows_in_turn(plain, 0.7), rel=1e-14)  # sum order
    np.testing.assert_array_equal(mine, plain)
    sd.check_grad(_scales_rows_in_turn, m, 0.7, argnums=(0, 1), jit=jit)


def test_a_view_written_by_a_helper_that_also_reads_its_base_is_refused_by_name():
    """The helper reads ``u`` while it writes ``u[2:]``: a copy would change what it reads."""
    with pytest.raises(sd.UnsupportedSyntaxError, match=r"'u\[2:\]' is written in place"):
        sd.grad(_smooths_a_view_toward_its_base, jit=False)(np.linspace(0.1, 1.0, 6), 0.3)


def _scale_first(arr, s):
    arr[0] = arr[0] * s
    return np.sum(arr)


def _writes_a_row_of_its_argument(m, a):
    """Writes into the caller's ``m`` through a row a helper writes (inside an expression)."""
    return 0.1 * _scale_first(m[1], a[0]) + a[1] + np.sum(a * a)


def _writes_a_column_of_its_argument(m, a):
    """Writes into the caller's ``m`` through a column bound to a name."""
    column = m[:, 2]
    column[3] = column[0] * a[1]
    return np.sum(a * a) + column[3] * a[2]


@pytest.mark.parametrize("func", [_writes_a_row_of_its_argument, _writes_a_column_of_its_argument])
@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"])
def test_writes_through_views_of_an_argument_reach_the_callers_array(policy, jit, func):
    """The derivative works on a private copy of an argument it writes into, and writes it
    back; a write through a view of the argument counts (it was missed: the caller's array
    kept its old values), and a view written through is never copied (recompute did)."""
    m0 = np.arange(16.0).reshape(4, 4) / 10.0
    a0 = np.array([0.5, -1.5, 2.0])
    expected = m0.copy()
    value = func(expected, a0)
    for layout in (m0.copy(), np.asfortranarray(m0)):
        transformed = sd.value_and_grad(func, argnums=(0, 1), policy=policy, jit=jit)
        got, _ = transformed(layout, a0)
        assert got == value
        np.testing.assert_array_equal(layout, expected)
    sd.check_grad(func, m0, a0, argnums=(0, 1), policy=policy)


def _bumped_head(v, s):
    v[0] = v[0] + s
    return v[:2]


def _keeps_the_view_a_helper_returns(u0, s):
    u = u0.copy()
    head = _bumped_head(u[1:], s)
    return np.sum(head * head) + np.sum(u * u)


def _two_writing_calls_in_one_statement(u0, s):
    u = u0.copy()
    t = _scale_first(u[1:], s) + _scale_first(u[2:], s)
    return t + np.sum(u * u)


@pytest.mark.parametrize(
    "func", [_keeps_the_view_a_helper_returns, _two_writing_calls_in_one_statement]
)
def test_views_a_copy_would_change_the_meaning_of_stay_refused(func):
    """A helper returning the view it writes (the caller keeps a view of ``u``), and two
    writing calls in one statement (the second reads what the first wrote): not copied."""
    with pytest.raises(sd.UnsupportedSyntaxError, match=r"is written in place"):
        sd.grad(func, jit=False)(np.linspace(0.1, 1.0, 6), 0.3)

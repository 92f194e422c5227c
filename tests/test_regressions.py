"""Reproductions of bugs an independent stress test found, kept as regression tests."""

import math

import numpy as np
import pytest

import sourcediff as sd


def alias_then_write(a):
    b = a
    b[0] = b[0] * 3.0
    return np.sum(a * a)


def view_then_write(a):
    b = a.copy()
    mid = b[1:-1]
    mid *= 2.0
    return np.sum(b * b)


def write_while_view_alive(a):
    b = a.copy()
    row = b[1:3]
    b[1] = 7.0
    return np.sum(row)


def alias_carried_by_the_loop(a):
    b = a.copy()
    c = b.copy()
    for _ in range(3):
        c[0] = b[0] * 2.0  # from the second iteration on, c is b
        c = b
    return np.sum(b * a)


def alias_in_one_branch(a):
    b = a.copy()
    c = a.copy()
    if a[0] > 0.0:
        c = b
    c[1] = 0.5
    return np.sum(b)


@pytest.mark.parametrize(
    "func",
    [
        alias_then_write,
        write_while_view_alive,
        alias_carried_by_the_loop,
        alias_in_one_branch,
    ],
)
def test_writing_through_shared_memory_is_refused_not_miscomputed(func):
    with pytest.raises(sd.UnsupportedSyntaxError, match="shares its memory"):
        sd.grad(func, jit=False)(np.array([1.0, 2.0, 3.0, 4.0]))


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_a_sliced_view_written_in_place_is_the_array_written(jit):
    # Refused until view_writes.py spelled 'mid' as 'b[1:-1]': b = (a0, 2 a1, 2 a2, a3).
    a = np.array([1.0, 2.0, 3.0, 4.0])
    np.testing.assert_allclose(sd.grad(view_then_write, jit=jit)(a), [2.0, 16.0, 24.0, 8.0])


def write_while_zipping_slices(u, n):
    s = 0.0
    for _ in range(n):
        for a, b in zip(u[:-1], u[1:]):
            s += a * b
            u[0] = u[0] * 0.9
    return s


def test_a_shared_memory_refusal_names_what_the_user_wrote():
    """The sequences of zip(...) get fresh names ('items'): the message names 'u[:-1]'."""
    with pytest.raises(sd.UnsupportedSyntaxError, match="shares its memory") as refused:
        sd.grad(write_while_zipping_slices, jit=False)(np.array([1.0, 2.0, 3.0]), 2)
    message = str(refused.value)
    assert "items" not in message
    assert "'u' is written in place while 'u[:-1]'" in message
    assert "make 'u[:-1]' a copy" in message
    assert refused.value.lineno == write_while_zipping_slices.__code__.co_firstlineno + 5


def _fresh(n):
    f = np.zeros(n)
    for i in range(n):
        f[i] = i * 0.5
    return f


def returned_array_written(a):
    force = _fresh(a.shape[0])
    force[0] = a[0] * 2.0
    return np.sum(force * a)


def stencil_with_slices(u0, alpha):
    u = u0.copy()
    for _ in range(3):
        lap = u[:-2] - 2.0 * u[1:-1] + u[2:]
        u[1:-1] += alpha * lap
    return np.sum(u * u)


def test_arrays_that_share_memory_only_briefly_are_still_differentiated():
    sd.check_grad(returned_array_written, np.array([1.0, 2.0, 3.0]), jit=False)
    sd.check_grad(stencil_with_slices, np.linspace(0, 1, 6), 0.2, argnums=(0, 1), jit=False)


def scale_in_place(a, c):
    for i in range(a.shape[0]):
        a[i] = a[i] * c + 1.0
    return np.sum(a * a)


@pytest.mark.parametrize("mode", ["forward", "reverse"])
def test_jacobian_differentiates_at_the_values_on_entry(mode):
    a = np.array([1.0, 2.0, 3.0])
    expected = sd.grad(scale_in_place, jit=False)(a.copy(), 1.5)
    actual = sd.jacobian(scale_in_place, mode=mode, jit=False)(a, 1.5)
    np.testing.assert_allclose(actual, expected, rtol=1e-12)
    np.testing.assert_allclose(a, [2.5, 4.0, 5.5])  # the caller's array, as the function leaves it


def test_vjp_pullback_is_repeatable_and_at_the_values_on_entry():
    a = np.array([1.0, 2.0, 3.0])
    expected = sd.grad(scale_in_place, argnums=(0, 1), jit=False)(a.copy(), 1.5)
    _, pullback = sd.vjp(scale_in_place, a, 1.5, jit=False)
    for _ in range(2):
        grads = pullback(1.0)
        np.testing.assert_allclose(grads[0], expected[0], rtol=1e-12)
        assert grads[1] == pytest.approx(expected[1], rel=1e-12)


def _pair(a, b):
    if a > b:
        return a * b, a - b
    return a + b, a * a


def tuple_from_two_returns(x, y):
    p, q = _pair(x, y)
    return p * q


@pytest.mark.parametrize("point", [(0.8, 0.3), (0.2, 0.9)])
def test_helpers_returning_tuples_from_several_returns(point):
    sd.check_grad(tuple_from_two_returns, *point, argnums=(0, 1), jit=False)


def exp_sum_scaled(x, w):
    return np.sum(np.exp(x)) * w


def test_the_gradient_of_a_zero_dimensional_array_is_a_zero_dimensional_array():
    """API.md: a gradient has the type and shape of its input (found by a bug hunt: a
    0-d array's gradient came back as a float)."""
    x = np.array(0.5)
    for jit in (True, False):
        g = sd.grad(exp_sum_scaled, jit=jit)(x, 2.0)
        assert isinstance(g, np.ndarray) and g.shape == () and g.dtype == np.float64
        assert abs(float(g) - 2.0 * np.exp(0.5)) < 1e-12
        gx, gw = sd.grad(exp_sum_scaled, argnums=(0, 1), jit=jit)(x, 2.0)
        assert isinstance(gx, np.ndarray) and isinstance(gw, float)
        assert abs(gw - np.exp(0.5)) < 1e-12


WEIGHTS32 = np.array([0.5, -0.25, 1.5, 0.75], dtype=np.float32)
EDGES = np.array([0, 2, 2, 1])


def weighted_by_a_copied_constant(a):
    w = WEIGHTS32.copy()
    w[1] = 0.125
    idx = EDGES.copy()
    idx[0] = 3
    return np.sum(a * w) + np.sum(a[idx] ** 2)


def test_a_copy_of_a_module_level_array_is_a_local_array():
    """``W.copy()`` of a read-only module-level array, then written (found by the fuzzer's
    helper probes: the method was refused as a call without a rule)."""
    a = np.array([0.3, -0.7, 0.2, 0.9])
    closed_form = np.array([0.5, 0.125, 1.5, 0.75]) + np.array([0.0, 2.0, 4.0, 2.0]) * a
    for jit in (True, False):
        g = sd.grad(weighted_by_a_copied_constant, jit=jit)(a)
        assert np.allclose(g, closed_form, rtol=1e-12)
    assert WEIGHTS32[1] == -0.25 and EDGES[0] == 0  # the constants are unchanged


def rolled_along(x, axis):
    return np.sum(np.roll(x, 1, axis) * x)


def test_a_roll_along_an_axis_the_array_lacks_raises_as_numpy_does():
    """A compiled roll once wrapped the axis around (axis=2 of a matrix rolled axis 0)."""
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="out of bounds"):
        rolled_along(x, 2)
    for jit in (True, False):
        with pytest.raises(ValueError, match="out of bounds"):
            sd.grad(rolled_along, jit=jit)(x, 2)
        closed_form = np.roll(x, 1, 1) + np.roll(x, -1, 1)
        assert np.allclose(sd.grad(rolled_along, jit=jit)(x, -1), closed_form)


def shorter_after(x):
    """``v``'s adjoint was allocated from its last binding (2 elements) and indexed with
    ``i < n`` in the reverse of the loop: out of bounds (silent in compiled code)."""
    n = x.shape[0]
    v = np.zeros(n)
    for i in range(n):
        v[i] = x[i] ** 2
    s = np.sum(v * v)
    v = np.ones(2)
    return s + np.sum(v * x[0])


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(2)], ids=str)
def test_an_array_bound_again_with_another_shape(policy, jit):
    """See also test_must_write.py: a swapped buffer bound to a longer array after its loop."""
    from reference import assert_gradient_matches

    assert_gradient_matches(shorter_after, (np.linspace(-0.5, 0.7, 5),), 0, policy, jit)


def root_of_square(x):
    r = math.sqrt(x * x)  # not differentiable at x = 0
    return r + x


def test_a_division_by_zero_in_plain_python_names_the_users_line():
    """Run as Python, the derivative of sqrt at 0 divides by zero: a SourceDiffError at
    the user's line, not a bare ZeroDivisionError; compiled code gives a non-finite value."""
    with pytest.raises(sd.SourceDiffError, match="division by zero") as error:
        sd.grad(root_of_square, jit=False)(0.0)
    assert "test_regressions.py" in str(error.value)
    line = root_of_square.__code__.co_firstlineno + 1
    assert f":{line}" in str(error.value)
    assert not np.isfinite(sd.grad(root_of_square)(0.0))
    assert sd.grad(root_of_square, jit=False)(-2.0) == 0.0


def unpacks_a_matrix_shape(x):
    m, n = x.shape
    return np.sum(x) * m * n


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_a_shape_unpacked_beyond_the_rank_names_the_users_line(jit):
    """Numba's typing let ``x.shape[1]`` of a vector through and its compile failed: an
    internal error (compiled) or a bare IndexError (Python). Now refused at the line."""
    with pytest.raises(sd.SourceDiffError, match=r"'x' has 1 axis here: x.shape\[1\]") as error:
        sd.grad(unpacks_a_matrix_shape, jit=jit)(np.ones(3))
    assert f":{unpacks_a_matrix_shape.__code__.co_firstlineno + 1}" in str(error.value)
    np.testing.assert_allclose(sd.grad(unpacks_a_matrix_shape)(np.ones((2, 3))), 6.0)


def region_write_in_a_pruned_branch(x, m, c):
    t3d = np.stack((m, np.outer(x, x)), axis=0)
    if c > 1.0:
        return np.sum(t3d) * c
    elif -1.37 > 0.2:  # never taken: Numba prunes the branch, and with it the region's save
        t3d[:, 1:3, :] += 0.5 * t3d[:, :2, :]
        c = c + 0.1 * np.sum(x * x)
    for _ in range(0, 4, 2):
        c += x[1]
    return np.sum(t3d**2) * c


def test_a_region_saved_in_a_branch_numba_prunes_compiles():
    """The copy of ``t3d[:, 1:3, :]`` was saved in the branch and restored in the same
    branch of the reverse sweep; Numba, pruning the constant test, found the restore's
    copy never defined ("Type of variable 't3d_prev.1' cannot be determined"; fuzzer
    ``--gaps --jit`` seed 24123). Array slots of saves outside loops are defined first."""
    x = np.array([0.3, -0.5, 0.8, 1.1])
    m = np.outer(x, x[::-1])
    sd.check_grad(region_write_in_a_pruned_branch, x, m, 0.5, argnums=(0, 1, 2))


def gather_where_positive(a, n):
    s = 0.0
    for _ in range(n):
        a = a * 1.1
        s = s + np.sum(a[np.where(a > 0.0)[0]] ** 2)
    return s


@pytest.mark.parametrize("policy", ["store", "auto", "recompute", sd.Checkpoint(snapshots=2)])
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_a_tuple_shared_with_a_saved_array_is_not_recorded(policy, jit):
    """``np.where(c)[0]`` is ``t = np.nonzero(c); k = t[0]``. Saving ``k`` by reference in
    the loop pinned every name that may share its memory, the tuple ``t`` included, and
    the tuple was pushed onto the float tape: "setting an array element with a sequence"
    (fuzzer ``--gaps`` seed 27023, store and auto). Only arrays are pinned now."""
    a = np.array([0.3, -0.2, 0.5, 0.1])
    n = 3
    expected = 2.0 * a * (a > 0.0) * sum(1.1 ** (2 * k) for k in range(1, n + 1))
    got = sd.grad(gather_where_positive, policy=policy, jit=jit)(a, n)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def rank_generic_norm(x):
    """One function for vectors and matrices, as library code is written: the branch of
    the other rank still types, but its derivative did not compile (an internal error)."""
    if x.ndim == 1:
        return np.sum(np.abs(x))
    return np.max(np.sum(np.abs(x), axis=0))


@pytest.mark.parametrize("jit", [True, False])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"])
def test_a_branch_on_the_rank_is_decided_by_the_argument(policy, jit):
    vector = np.array([1.5, -2.0, 0.25])
    got = sd.grad(rank_generic_norm, policy=policy, jit=jit)(vector)
    np.testing.assert_array_equal(got, np.sign(vector))
    matrix = np.array([[1.0, -4.0], [-2.0, 0.5]])  # column sums of |x|: 3.0 and 4.5
    got = sd.grad(rank_generic_norm, policy=policy, jit=jit)(matrix)
    np.testing.assert_array_equal(got, [[0.0, -1.0], [0.0, 1.0]])
    source = sd.adjoint_source(rank_generic_norm, args=(vector,))
    code = [line for line in source.splitlines() if not line.strip().startswith("#")]
    assert not [line for line in code if "axis" in line]  # the matrix's branch is gone


k = 3.0  # a module constant a helper reads, under a name callers also bind
total = 2.0


def _scaled(v):
    return k * v


def _scaled_total(v):
    return total * v


def shadowed_by_a_local(x0, x1):
    k = 0.5 * x1
    return _scaled(x0) + k


def shadowed_by_a_rewrite(x0, a):
    items = [math.sin(e) for e in a]  # its expansion counts with a fresh name 'k'
    return _scaled(x0) * sum(items) + _scaled_total(sum(math.cos(e) for e in a))


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(snapshots=2), "auto"])
def test_a_helpers_constant_is_not_read_as_a_callers_local(policy, jit):
    """Inlined, a helper read the caller's own k (or a comprehension's counter k, a
    generator sum's accumulator total) instead of the module's: wrong values, silently."""
    grad = sd.value_and_grad(shadowed_by_a_local, argnums=(0, 1), policy=policy, jit=jit)
    value, (d0, d1) = grad(0.5, 0.7)
    assert (value, d0, d1) == pytest.approx((1.85, 3.0, 0.5), rel=1e-14)
    a = np.array([0.1, 0.2, 0.3, 0.4])
    grad = sd.value_and_grad(shadowed_by_a_rewrite, argnums=(0, 1), policy=policy, jit=jit)
    value, (d0, da) = grad(0.5, a)
    s = np.sum(np.sin(a))
    assert value == pytest.approx(1.5 * s + 2.0 * np.sum(np.cos(a)), rel=1e-14)
    assert d0 == pytest.approx(3.0 * s, rel=1e-14)
    np.testing.assert_allclose(da, 1.5 * np.cos(a) - 2.0 * np.sin(a), rtol=1e-14)

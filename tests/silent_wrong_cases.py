"""Programs that once gave silently wrong gradients (issue "Never a silent wrong gradient").

Each is a shape the team's corpora missed: an operand of a NumPy product or
reduction overwritten after it is read, a matrix product rebound in a loop, a
slice whose length changes with the loop index, a self-assignment, a
reduction's result changed afterwards, a ``return`` in a branch not taken,
integer-array indexing with a repeated index, a negative constant raised to a power,
two equal array expressions of which one is written.
"""

import math

import numpy as np


def dot_then_overwrite(a):
    t = np.dot(a, a)
    a[0] = 0.0
    return t + np.sum(a)


def matmul_then_slice_update(a, m):
    t = np.sum(m @ a)
    a[:-1] -= 0.5 * a[1:]
    return t + np.sum(a * a)


def outer_then_scale(a, b):
    t = np.sum(np.outer(a, b) ** 2)
    a *= 1.5
    return t + np.sum(a)


def reductions_then_overwrite(a):
    p = np.prod(a)
    m = np.max(a)
    n = np.min(a)
    r = np.linalg.norm(a)
    u = np.mean(a)
    a[1] = 2.0
    return p + m * n + r * u + np.sum(a * a)


def rnn(inputs, W):
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = np.dot(inputs[t], W) + h[t]
    return np.sum(h[1:])


def growing_slices(A):
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, :i] @ A[i, :i]
    return s


def shrinking_slice_sums(A):
    s = 0.0
    for i in range(A.shape[0]):
        row = A[i, i:] * 2.0
        s += np.sum(row * row)
    return s


def self_assignment(x0, x1, n0):
    s = 1.14 * x0
    t0 = s
    if s <= -0.7 or float(n0) <= x0:
        return (math.fabs(x1) + t0) * s
    s = s
    return s + 0.5 * t0


def max_then_changed(a, x):
    t0 = np.max(a)
    t0 += x
    return t0 * t0


def min_then_changed(a, x):
    t0 = np.min(a)
    t0 += x
    return t0 * t0


def prod_in_loop(x):
    s = 0.0
    for _ in range(3):
        s += np.prod(x)
        x = x * 1.1
    return s


def matrix_power(A, w0):
    w = w0.copy()
    for _ in range(3):
        w = A @ w
    return np.sum(w)


def unrolled_descent(A, b, x0):
    x = x0.copy()
    for _ in range(4):
        r = A @ x - b
        x = x - 0.1 * (A.T @ r)
    return np.sum(x * x)


def return_in_branch_not_taken(x):
    if x > 100.0:
        return math.exp(x)
    return math.exp(2.0 * x)


def row_written_after_a_product(a, m):
    s3 = np.sum(m @ a)
    m[1] = np.sin(a)
    return s3 + np.sum(m * m)


def overwritten_after_a_rerun_loop(x0, x1, n):
    # Under recompute/checkpoint the first loop is re-run in the reverse sweep and reads
    # x0, which the second loop overwrites: it must be given back its entry value.
    s1 = 0.0
    for _ in range(n):
        s1 = x0 / (1.0 + (x0 * x1) ** 2)
    for _ in range(n):
        x0 = x1
    return s1 + x1 + x0


def tuple_variables(x, y):
    s = 0.0
    for _ in range(3):
        p = (s + x, y * math.sin(s))
        s, t = p
        s = s * 0.5 + t + p[1]
    return s


def array_self_assignment(x0, a):
    a[1] = x0
    s = np.sum(np.outer(a, a))
    a = a  # an array rebound to itself: the in-place update below must still be recorded
    a *= -0.5
    return s + np.sum(a * a)


def gather_repeated(x, idx):
    return np.sum(x[idx] ** 2)


def scatter_repeated(u, w, idx):
    u[idx] += w  # NumPy: with idx repeating an index, the last write wins
    return np.sum(u * u)


def gather_scatter_rows(A, idx, c):
    s = 0.0
    for _ in range(2):
        rows = A[idx]
        A[idx] = rows * c + 0.1
        s += np.sum(A[:, idx] * A[:, idx])
    A[idx, 1:] = c
    return s + np.sum(np.sin(A))


def scatter_overwrites_what_is_read(u, idx, c):
    s = 0.0
    for _ in range(3):
        s += np.sum(np.sin(u))
        u[idx] = u[idx] * c
    return s


def regions_of_two_ranks(x0, a, m):
    for _ in range(2):
        m += 0.1 * np.outer(a, a) * x0
    for _ in range(2):
        m[:, 1] = np.tanh(a)
    return np.sum(m * m)


def views_of_written_arrays(a, m):
    s = 0.0
    for _ in range(2):
        t = np.flip(a)
        r = m.T
        q = a.reshape(2, 2)
        s += np.sum(np.square(t) * a) + np.sum(r * r * r) + np.sum(q**3)
        a += np.sin(a)
        m *= 1.1
    return s


def norm(x):
    # Named as a runtime helper generated code calls (np.linalg.norm is spelled norm there).
    return np.linalg.norm(x) ** 3 + np.dot(x, x)


def recomputed_chain_overwritten(x0, x1, n):
    # t10 = x0 / t9 and t11 = 1 + t10 are recomputed in the reverse sweep, where the
    # adjoint of x0 = s2 / t11 runs before x0's old value is restored (fuzz seed 106046).
    s2 = 0.7 * x1
    for _ in range(n):
        x0 = s2 / (1.0 + x0 / (1.0 + x1**2) ** 2)
    return x0


def zeroed_adjoint_read_first(x0, x1):
    # x1's adjoint is zeroed at x1 = 1.48 and read before its next contribution: assigning
    # at the first contribution must not skip that read (fuzz seed 300048).
    x1 -= x0
    p3 = (math.sqrt(1.0 + x1 * x1), x0)
    x1, x0 = p3
    p4 = (1.48, x0)
    x1, x0 = p4
    return x1 + x0


# Refused with the line rather than differentiated wrongly: an int-indexed row is a view
# (the write would be lost), a tuple has no run-time index, Numba gathers with 1-D arrays.


def swaps_rows_by_tuple(A, w):
    """NumPy's tuple swap of two rows leaves both the old second row (the right side holds
    views). Refused, naming the row the user wrote, not a temporary."""
    B = A * w
    B[0], B[1] = B[1], B[0]
    return np.sum(B * np.arange(6.0).reshape(2, 3))


def writes_through_row_view(A, w):
    """``row`` is a view of ``B``: scaling it scales ``B``'s second row (refused while
    sourcediff could not tell a row from a number before the types)."""
    B = A.copy()
    row = B[1]
    row *= w
    return np.sum(B)


def indexes_tuple_at_run_time(a, b, i):
    x = a, b
    return x[i]


def gathers_with_2d_index(x, idx):
    return np.sum(x[idx])


def writes_into_a_dict_of_parameters(x, params):
    params["a"] = x * 2.0
    return params["a"] * x


RNG = np.random.default_rng(7)


def reshaped_after_the_first_iteration(a, m, n):
    """Fuzz seed 400652: ``v = a.copy()`` (4,) then ``v = m @ a`` (3,) in the loop."""
    v = a.copy()
    s = 0.0
    for _ in range(n):
        s += np.sum(v * v)
        v = m @ a
    return s + np.sum(v)


def shrinks_from_itself(a, n):
    """``x = x[1:] * 3.0``: one element shorter every iteration."""
    x = a[1:] * 2.0
    s = 0.0
    for _ in range(n):
        s += np.sum(x * x)
        x = x[1:] * 3.0
    return s


def shaped_by_the_branch(a, n):
    """Two definitions in one loop, of different shapes."""
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            x = a[1:] * 2.0
        else:
            x = a[:2] * 3.0
        s += np.sum(x * x)
    return s


def diagonal_view_then_written(m, a):
    """Fuzz seed 720413: NumPy's np.diag(m) is a view of m; m is scaled afterwards."""
    s = np.sum(np.square(np.diag(m)) * a)
    m[1:] *= 0.9
    return s + np.sum(m * m)


def mask_in_a_loop(a, m, n):
    """Fuzz seed 603350: ``a[a > 0.0]`` selects another number of elements as ``a`` changes."""
    s = 0.0
    k = 0
    while k < n:
        k += 1
        a[1:3] -= 0.5 * a[2:]
        s = np.sum(np.max(m, axis=0) * a) + np.sum(a[a > 0.0])
    return s + np.sum(a * a)


def negative_constant_squared(x, a):
    """Fuzz seed 200024: ``(-1.35) ** 2`` was folded to a constant -1.35 that the emitter
    wrote back as ``-1.35 ** 2``, i.e. ``-(1.35 ** 2)``: the value and the gradient wrong."""
    a[0] = x / (1.0 + (-1.35) ** 2)
    return np.sum(a * a) + (-0.5) ** 3 * x


EDGES = np.array([0, 0, 2, 1])  # module-level index arrays with a repeated index


def constant_index_arrays(pos, v):
    """Red team, round 2: an index array that is a module constant was not typed as one, so
    gathers and scatters through it took NumPy's buffered indexing (one contribution per
    repeated index): wrong under every policy, compiled or not."""
    d = pos[EDGES] - pos[EDGES[::-1].copy()]
    y = np.zeros(3)
    y[EDGES] = v
    y[EDGES] += v * v
    local = np.array([1, 1, -1])  # an integer literal is an index array, as in NumPy
    return np.sum(d * d) + np.sum(y * y) + np.sum(pos[local] ** 3)


def flattened_cumsum(X):
    """Red team, round 2: np.cumsum of a matrix (over the flattened array) had an adjoint
    of the flattened shape; compiled, Numba's += spread it silently over the matrix."""
    return np.sum(np.cumsum(X) * np.arange(X.size)) + np.sum(np.cumsum(X * X))


def writes_through_atleast_1d(x):
    u = x.copy()
    v = np.atleast_1d(u)
    v[0] = 5.0 * v[1]
    return np.sum(u * u)


def negative_axes_of_a_matrix(m, v):
    """max/min/prod along axis=-2 of a matrix took the rows (axis 1) when compiled (fuzz
    seed 993255): a wrong value and gradient; also with a tuple of negative axes."""
    a = np.max(m, axis=-2) * np.min(m, axis=-2) + np.prod(m, axis=-2) + np.sum(np.max(m, axis=-1))
    b = np.std(m, axis=-2, keepdims=True) * np.var(m, axis=-1, keepdims=True)
    c = np.cumsum(m, axis=-2) * np.cumprod(m, axis=-1) + np.max(m, axis=(-2, -1))
    return np.sum(a**2) + np.sum(b) + np.sum(c * c) + np.max(v, axis=-1) * np.prod(v, axis=-1)


def sub_cycled_while(x):
    """A value recorded in the outer body and again in an inner while loop: the outer
    push after the inner loop wrote past the end of the growable tape (an IndexError as
    Python; compiled, inf or garbage) when 1 + 15 pushes filled its 16 slots."""
    s = 0.0
    for i in range(x.shape[0]):
        z = x[i]
        while z < 10.0:
            s -= 1.0 / z
            z += 1.0
        s += math.log(z)
    return s


def sub_cycled_for(x, m):
    """The same with an inner for loop whose trip count comes from an integer array."""
    s = 0.0
    for i in range(x.shape[0]):
        z = x[i]
        for _ in range(m[i]):
            z = math.sin(z) + 0.1 * z
        s += z * z
    return s


def equal_arrays_one_written(x):
    """Two equal array expressions, one then written: sharing them (common
    subexpressions) made the write change the other."""
    p, q = x * 2.0, x * 2.0
    p[0] = 0.0
    return np.sum(q * q) + np.sum(p)


def _triple_first(x):
    x[0] = 3.0 * x[0]
    return x[1]


def element_read_around_a_writing_helper(x):
    """``y[0]`` read before and after a helper that writes it: two different values."""
    y = np.copy(x)
    return y[0] * y[0] + _triple_first(y) + y[0] * y[0]


def _running_mean(out, src):
    for i in range(1, out.shape[0]):
        out[i] = 0.5 * (src[i] + src[i - 1])
    return out[out.shape[0] - 1]


def equal_array_arguments(x):
    """A helper writing one argument and reading the other, both ``x * 2.0``: two arrays."""
    return _running_mean(x * 2.0, x * 2.0)


def argument_rebound_to_a_length(u, n):
    """An int argument reassigned to ``u.shape[0]`` holds the caller's value first (it
    was taken for a length equal at every assignment: never saved, wrong gradient)."""
    s = 0.0
    for _ in range(3):
        s = s + u[n - 1] * u[n - 1]
        n = u.shape[0]
    return s


def fresh_array_of_an_argument_length(u, n):
    """``np.ones(n)`` has the caller's ``n`` first (it was taken for ``u``'s shape: a fused
    loop read past the end of the array)."""
    s = 0.0
    v = u * 1.0
    for _ in range(2):
        s = s + np.sum(v * u)
        v = np.ones(n)
        n = u.shape[0]
    return s + np.sum(v * u)


def broadcast_from_an_argument_length(u, n):
    """``np.zeros(n)`` of length 1 broadcast against ``u`` (the adjoint's sum back to
    ``v``'s shape was dropped)."""
    s = 0.0
    for _ in range(2):
        v = np.zeros(n)
        v[0] = u[0] * 3.0
        w = v * u + u
        s = s + np.sum(w * w)
        n = u.shape[0]
    return s


def interp_reads_the_old_array(u, a, xp, n):
    """A fused run that could not take ``u = t`` (the interpolation after its loop reads
    the old ``u``) once bound ``u`` after its loop all the same."""
    r = 0.0
    for _ in range(n):
        t = u * a
        s = np.sum(t)
        q = np.interp(s, xp, u)
        u = t
        r = r + q
    return r


def interp_reads_the_old_array_rebound(u, a, xp, n):
    """The same with ``u = u * 0.5 + t``: the fresh array, never filled, was read."""
    r = 0.0
    for _ in range(n):
        t = u * a
        s = np.sum(t)
        q = np.interp(s, xp, u)
        u = u * 0.5 + t
        r = r + q
    return r


def written_through_an_alias_of_a_rebound_array(u, n):
    """``z`` holds the array ``w`` held before its rebinding, kept for the reverse sweep
    by reference: the write through ``z`` changed what the sweep read back."""
    w = u * 1.0
    s = 0.0
    for _ in range(n):
        z = w
        w = w * 0.5 + np.cos(w)
        z[:] = w * 2.0
        s = s + np.sum(z * w)
    return s


def rolled_by_one_and_two(u, c, steps):
    # Rolls by one wrap around by a comparison, other shifts by %: grids of one and two
    # points wrap every index (elements.wrapped_by_one).
    for _ in range(steps):
        w = np.roll(u, 1, 0) - np.roll(u, -1, 1) + 0.5 * np.roll(u, -1, 0) * np.roll(u, 1, 1)
        u = u + c * w - 0.1 * u * np.roll(u, 2, 1)
    return np.sum(u * u)


def hidden_layer_read_per_output(w1, w2, x):
    # h[k] is written once per unit and sample, read once per unit, output and sample: its
    # reads are recomputed from h restored at its writes (recompute.restorable_reads).
    h = np.zeros(w1.shape[0])
    loss = 0.0
    for s in range(x.shape[0]):
        for k in range(w1.shape[0]):
            h[k] = 0.5 * h[k] + math.tanh(w1[k, 0] * x[s, 0] + w1[k, 1] * x[s, 1])
        for o in range(w2.shape[0]):
            out = 0.0
            for k in range(w1.shape[0]):
                out += w2[o, k] * h[k] * h[k]
                if o == 1:
                    h[0] = h[0] * 0.9  # a write as deep as the read: h is recorded
            loss += out * out
    return loss


def hidden_layer_overwritten_between(w1, x):
    h = np.ones(w1.shape[0])
    total = 0.0
    for s in range(x.shape[0]):
        for k in range(w1.shape[0]):
            h[k] = math.sin(w1[k] * x[s]) + h[k]
        for o in range(3):
            for k in range(w1.shape[0]):
                total += h[k] * h[(k + 1) % w1.shape[0]] * o * x[s]
        h[1] = h[0] * x[s]
    return total


def stage_read_after_its_operand_changes(x0, x1):
    # b1 (bound once) feeds a sum defined after x changes: recomputing the sum re-runs
    # b1 = y * x, whose x must be the one before the change (fuzzer, gaps seed 388).
    dt = 0.1 * x1
    x, y = x0, x1
    for _ in range(2):
        a1 = x * y
        b1 = y * x
        p0 = x + dt * a1
        p1 = y + dt * b1
        x = x + dt * (a1 + p0 * p1)
        y = y + dt * (b1 + p1 * p0)
    return x + y


XP = np.array([-1.0, 0.0, 0.5, 1.0])
INTERP_ARGS = (np.array([0.3, -0.2, 0.5, 0.1]), np.array([1.0, 2.0, 0.5, -1.0]), XP, 2)

CASES = [
    (equal_arrays_one_written, (RNG.random(4),), (0,)),
    (element_read_around_a_writing_helper, (RNG.random(4),), (0,)),
    (equal_array_arguments, (RNG.random(5),), (0,)),
    (dot_then_overwrite, (RNG.random(3),), (0,)),
    (matmul_then_slice_update, (RNG.random(3), RNG.random((2, 3))), (0, 1)),
    (outer_then_scale, (RNG.random(3), RNG.random(2)), (0, 1)),
    (reductions_then_overwrite, (np.array([0.7, 1.3, 0.4, 1.1]),), (0,)),
    (rnn, (RNG.random((3, 2)), RNG.random((2, 3))), (0, 1)),
    (growing_slices, (np.arange(1.0, 10.0).reshape(3, 3),), (0,)),
    (shrinking_slice_sums, (RNG.random((4, 4)),), (0,)),
    (self_assignment, (0.3, 0.4, 2), (0, 1)),
    (max_then_changed, (np.array([3.0, 1.0, 2.0]), 0.5), (0, 1)),
    (min_then_changed, (np.array([3.0, 1.0, 2.0]), 0.5), (0, 1)),
    (prod_in_loop, (RNG.random(3) + 0.5,), (0,)),
    (matrix_power, (RNG.random((3, 3)), RNG.random(3)), (0, 1)),
    (unrolled_descent, (RNG.random((3, 3)), RNG.random(3), RNG.random(3)), (0, 1, 2)),
    (return_in_branch_not_taken, (0.3,), (0,)),
    (row_written_after_a_product, (RNG.random(3), RNG.random((3, 3))), (0, 1)),
    (overwritten_after_a_rerun_loop, (0.3, -0.4, 3), (0, 1)),
    (tuple_variables, (0.3, 0.7), (0, 1)),
    (array_self_assignment, (0.3, RNG.random(4)), (0, 1)),
    (gather_repeated, (RNG.random(3), np.array([0, 1, 1])), (0,)),
    (scatter_repeated, (RNG.random(3), RNG.random(3), np.array([0, 1, 1])), (0, 1)),
    (scatter_overwrites_what_is_read, (RNG.random(4), np.array([3, 0, 3]), 0.9), (0, 2)),
    (regions_of_two_ranks, (0.3, RNG.random(3), RNG.random((3, 3))), (0, 1, 2)),
    (views_of_written_arrays, (RNG.random(4), RNG.random((2, 2))), (0, 1)),
    (norm, (RNG.random(3),), (0,)),
    (recomputed_chain_overwritten, (0.3, 0.6, 3), (0, 1)),
    (zeroed_adjoint_read_first, (0.3, 0.5), (0, 1)),
    (gather_scatter_rows, (RNG.random((3, 3)), np.array([2, 0, 2]), 0.7), (0, 2)),
    (reshaped_after_the_first_iteration, (RNG.random(4), RNG.random((3, 4)), 3), (0, 1)),
    (shrinks_from_itself, (RNG.random(4), 3), (0,)),
    (shaped_by_the_branch, (RNG.random(4), 3), (0,)),
    (mask_in_a_loop, (np.array([0.9, 0.3, 0.8, -0.2]), RNG.random((4, 4)), 3), (0, 1)),
    (interp_reads_the_old_array, INTERP_ARGS, (0, 1)),
    (interp_reads_the_old_array_rebound, INTERP_ARGS, (0, 1)),
    (written_through_an_alias_of_a_rebound_array, (RNG.random(6) - 0.5, 3), (0,)),
    (diagonal_view_then_written, (RNG.random((3, 3)), RNG.random(3)), (0, 1)),
    (negative_constant_squared, (0.7, RNG.random(3)), (0, 1)),
    (constant_index_arrays, (RNG.random(3), RNG.random(4)), (0, 1)),
    (flattened_cumsum, (RNG.random((2, 3)),), (0,)),
    (negative_axes_of_a_matrix, (RNG.random((3, 4)) + 0.5, RNG.random(5)), (0, 1)),
    (sub_cycled_while, (np.array([-4.5, 2.5, -20.5]),), (0,)),
    (sub_cycled_for, (np.array([0.3, -0.7, 1.1]), np.array([15, 1, 17])), (0,)),
    (argument_rebound_to_a_length, (np.arange(1.0, 7.0), 2), (0,)),
    (fresh_array_of_an_argument_length, (np.arange(1.0, 7.0), 1), (0,)),
    (broadcast_from_an_argument_length, (np.arange(1.0, 7.0), 1), (0,)),
    (rolled_by_one_and_two, (RNG.random((1, 3)) - 0.5, 0.3, 2), (0, 1)),
    (rolled_by_one_and_two, (RNG.random((2, 1)) - 0.5, 0.3, 2), (0, 1)),
    (rolled_by_one_and_two, (RNG.random((3, 4)) - 0.5, 0.3, 2), (0, 1)),
    (
        hidden_layer_read_per_output,
        (RNG.random((3, 2)), RNG.random((2, 3)), RNG.random((4, 2))),
        (0, 1, 2),
    ),
    (hidden_layer_overwritten_between, (RNG.random(3), RNG.random(4)), (0, 1)),
    (stage_read_after_its_operand_changes, (0.3, -0.7), (0, 1)),
    (writes_through_row_view, (RNG.random((2, 3)), 0.5), (0, 1)),  # refused until the types
]

REFUSED = [
    (indexes_tuple_at_run_time, (1.5, 2.5, 1), "return x[i]", "known only when the code runs"),
    (gathers_with_2d_index, (np.ones(3), np.zeros((2, 2), np.int64)), "x[idx]", "1-D"),
    (writes_through_atleast_1d, (np.ones(3),), "v[0] =", "shares its memory"),
    (swaps_rows_by_tuple, (np.ones((2, 3)), 0.5), "B[0], B[1] =", "while 'B[0, :]'"),
    (writes_into_a_dict_of_parameters, (2.0, {"a": 1.5}), 'params["a"] =', "dict of parameters"),
]

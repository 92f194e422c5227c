"""Constructs of public scientific code (NPBench, ADBench, Tangent's corpus) that
sourcediff once refused: ``dtype=``, ``.dtype``, ``np.eye``, chained assignment,
``math.lgamma``, ``np.std``/``np.var``, NumPy's spellings of the operators, ``np.square``,
``np.flip``, ``np.linalg.solve``/``inv``/``det``, ``np.prod`` over a zero element, new
axes (``x[:, None]``), array literals (``np.array([a, b])``), loops over rows, methods on
expressions (``A[:, j].copy()``), boolean masks, ``np.max``/``np.min`` along an axis, joins
(``np.concatenate``, ``np.stack``, ``np.hstack``, ``np.vstack``), unpacking into elements,
``out=``, indexing an expression's result, ``np.linalg.cholesky``, ``np.diag``,
``np.atleast_1d/2d/3d``, nested functions and lambdas,
``np.linalg.slogdet``, ``np.cov``, lists of floats used as small arrays, a fresh buffer
rebound each time step, ``enumerate`` and ``zip`` in for loops,
``np.roll``, ``np.argmax``/``argmin``/``argsort``, ``np.sort``, reductions along an axis
(``np.std``, ``np.var`` with ``ddof=``, ``np.linalg.norm``, ``np.prod``) and ``keepdims=True``,
``np.cumprod``, ``np.triu``/``np.tril``, ``.flatten()``, ``np.full_like``, angles, rounding
to decimals, ``np.exp2``, ``np.cbrt``, ``np.reciprocal``, ``np.logaddexp``, ``np.einsum``,
comprehensions (``sum``/``max``/``min`` of a generator, list comprehensions used as arrays),
lists of floats built with ``append``, ``np.roll`` along an axis, ``np.append``, ``np.interp``,
``@`` on stacks of matrices."""

import math

import numpy as np


def dtype_keyword(x, n):
    y = np.zeros(x.shape[0], dtype=np.float64)
    acc = np.ones_like(x, dtype=float)
    for _ in range(n):
        y[:] = np.sin(x) * 2.0 + y
        acc *= y
    return np.sum(acc)


def dtype_attribute(x):
    y = np.empty(x.shape, x.dtype)
    y[:] = np.sin(x)
    return np.sum(y * x)


def eye_and_chained(A):
    a = b = A + np.eye(A.shape[0])
    return np.sum(a * b) + np.sum(np.identity(3) @ A)


def gmm_like(x, alphas):
    s = 0.0
    for k in range(alphas.shape[0]):
        s += math.lgamma(alphas[k] + 1.0) - math.lgamma(0.5 * alphas[k] + 2.0) * x[k]
    return s + math.gamma(1.5 + x[0] * x[0])


def moments(x):
    z = (x - np.mean(x)) / np.std(x)
    d = np.diff(x * z)
    return np.var(z * x) + np.sum(np.square(np.flip(z)) * x) + np.sum(d * d)


def trace_and_diff_2d(A):
    D = np.diff(A * A)
    return np.trace(A @ A) + np.sum(D * D) + np.trace(A[:, :2])


def ufunc_spellings(x, y):
    return np.sum(np.multiply(x, y) + np.add(x, 1.0) - np.subtract(y, x) / np.divide(2.0, y))


def linear_algebra(A, b):
    x = np.linalg.solve(A, b)
    X = np.linalg.solve(A, A.T @ A)
    return np.sum(x * x) + np.sum(np.linalg.inv(A)) * np.linalg.det(A) + np.sum(X)


def solve_in_loop(A, b, n):
    x = b.copy()
    for _ in range(n):
        x = np.linalg.solve(A, x) + b
    return np.sum(x * x)


def prod_with_zero(x):
    return np.prod(x) + np.prod(x * x + 1.0)


def pairwise(x):
    d = x[:, None] - x[None, :]
    return np.sum(d * d * x[:, np.newaxis])


def rows_and_copies(A):
    s = 0.0
    for row in A:
        s += np.sum(row**2) * row[0]
    c = A[:, 1].copy()
    c *= 2.0
    return s + np.sum(c * A[:, 1]) + np.sum(np.arange(9.0).reshape(3, 3) * A.reshape(3, 3))


def _rhs(y, k):
    return np.array([y[1], -k * y[0]])


def ode_with_literals(y0, k, n):
    y = y0.copy()
    for _ in range(n):
        k1 = _rhs(y, k)
        k2 = _rhs(y + 0.05 * k1, k)
        y = y + 0.1 * k2
    M = np.array([[y[0], y[1]], [y[1] * k, 1.0]])
    return np.sum(y * y) + np.linalg.det(M)


def masks_and_axis_extremes(x, A):
    m = np.logical_and(x > 0.0, np.logical_not(x > 1.0))
    z = x.copy()
    z[x < 0.2] = 0.5 * x[x < 0.2] ** 2
    s = np.sum(np.where(m, x**2, 0.0)) + np.sum(x[m] ** 3) + np.sum(z * z)
    return s + np.sum(np.max(A, axis=0) ** 2) + np.sum(A.min(axis=1))


def joins(x, A):
    y = np.concatenate((x, x * 2.0, np.ones(2)))
    B = np.concatenate((A, A * A), axis=1)
    C = np.vstack((A, A * 3.0))
    s = np.stack((x, np.sin(x)), axis=1)
    h = np.hstack((x, x[:2]))
    v = np.vstack((x, x))
    t = np.sum(y**2) + np.sum(B**3) + np.sum(C * C) + np.sum(s[:, 1] * s[:, 0])
    return t + np.sum(h**3) + np.sum(v * v)


WEIGHTS = np.array([0.5, -1.0, 2.0])  # a module-level constant array, read-only
STENCIL = np.array([[0.25, 0.5], [0.5, 0.25]])


def module_constant_arrays(x, n):
    s = 0.0
    for k in range(n):
        s += np.sum(WEIGHTS * x**2) + WEIGHTS[k % 3] * x[0] + np.sum(STENCIL @ x[:2])
    return s


V3 = np.array([0.3, 1.1, -0.6])
T233 = np.sin(np.arange(18.0) * 0.7).reshape(2, 3, 3)
KNOTS = np.array([0.0, 0.4, 1.1, 2.0, 3.5])
T223 = np.sin(np.arange(12.0)).reshape(2, 2, 3)
A4 = np.arange(16.0).reshape(4, 4) / 9
A3 = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, 0.2], [0.1, 0.2, 1.8]])


def unpack_into_elements(x, y):
    """``a[0], s, a[2] = ...``: every value first, then each target, left to right."""
    a = np.zeros(3)
    s = 0.5
    a[0], s, a[2] = s * x[1], a[0] + x[0] * y, s
    d = np.zeros(2)
    d[0], d[1] = _pair(x[0], s)
    return np.sum(a * a) + np.sum(d * d)


def _pair(u, v):
    return u * v, u - v


def out_keyword(x, y):
    """``np.multiply(x, y, out=z)`` writes ``z`` in place."""
    z = np.empty_like(x)
    np.multiply(x, y, out=z)
    np.add(z, np.sin(x), out=z)
    return np.sum(z * z)


def index_expressions(t, a):
    """Indexing a call's or an operation's result."""
    v = np.sum(t, axis=1)[0] * 0.5
    w = (a * 2.0)[1:] + np.outer(a, a)[2, 1:]
    return np.sum(v * v) + np.sum(w * a[:2]) + (t.T)[1, 2, 0]


def cholesky_and_diag(B, v):
    """``np.linalg.cholesky`` (Murray's adjoint; LAPACK reads the lower triangle), ``np.diag``
    both ways."""
    L = np.linalg.cholesky(B @ B.T + 3.0 * np.eye(B.shape[0]))
    logdet = 2.0 * np.sum(np.log(np.diag(L)))
    return logdet + np.sum(np.sin(L)) + np.sum(np.diag(v) @ B) + np.sum(np.diag(B[:, :2]) ** 2)


def at_least(x, A):
    """``np.atleast_1d/2d/3d`` add axes of length 1."""
    y = np.atleast_2d(x)
    return np.sum(y * y) + np.sum(np.atleast_1d(x) * 2.0) + np.sum(np.atleast_3d(A) ** 3)


def nested_functions(y0, k, n):
    """Nested ``def`` and named lambdas closing over the function's variables, read at call
    time (``k`` changes between calls), calling each other and writing into an array."""
    rhs = lambda y, c=0.1: -k * y + c * np.sin(y)  # noqa: E731
    h = 0.1
    path = np.zeros(n)

    def step(y):
        a = rhs(y)
        b = rhs(y + 0.5 * h * a)
        return y + h * b

    def record(i, y):
        path[i] = np.sum(y * y)

    y = y0.copy()
    for i in range(n):
        y = step(y)
        record(i, y)
        k = k * 1.01
    return np.sum(path) + rhs(y[0], c=0.3)


def log_determinants(A):
    """``np.linalg.slogdet``, unpacked and indexed."""
    sign, logabs = np.linalg.slogdet(A)
    return sign * logabs + np.linalg.slogdet(A @ A.T + np.eye(A.shape[0]))[1]


def small_lists(y, h, n):
    """Lists of floats used as small arrays (a Butcher tableau, stage values): indexed,
    written, measured with ``len`` and iterated over."""
    b = [1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0]
    c = [0.0, 0.5, 0.5, 1.0]
    for _ in range(n):
        k = [0.0, 0.0, 0.0, 0.0]
        for s in range(4):
            k[s] = -y * (1.0 + c[s] * h) + 0.1 * math.sin(y)
        acc = 0.0
        for s in range(len(b)):
            acc += b[s] * k[s]
        y = y + h * acc
    total = 0.0
    for weight in [y, 2.0 * h]:
        total += weight * weight
    return total


def covariances(X, x):
    """``np.cov``: of the rows of a matrix, and of a vector (a float)."""
    C = np.cov(X * x[:3][:, None])
    return np.sum(C * C) + np.cov(x) * np.trace(C)


def _explicit_step(x, alpha):
    y = x.copy()
    for i in range(1, x.shape[0] - 1):
        y[i] = x[i] + alpha * (x[i - 1] - 2.0 * x[i] + x[i + 1])
    return y


def fresh_buffer_each_step(u0, alpha, steps):
    """A time loop that writes a fresh array each step and rebinds the state to it, inline
    and through a helper returning a copy (once refused as aliasing: ``u = y`` shares
    memory with ``y`` only until ``y`` is rebound)."""
    n = u0.shape[0]
    u = u0.copy()
    for _ in range(steps):
        y = np.empty(n)
        y[0] = u[0]
        y[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            y[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = y
        u = _explicit_step(u, alpha)
    return np.sum(u * u)


def enumerate_and_zip(x, A, w):
    """``enumerate`` and ``zip`` in for loops: over arrays, rows, an expression (evaluated
    once), a named list of floats, and nested as ``enumerate(zip(...))``."""
    s = 0.0
    for i, xi in enumerate(x):
        s += w * xi * (i + 1)
    for row, xi in zip(A, x):
        s += np.sum(row * row) * xi
    for k, (u, v) in enumerate(zip(x * w, A[0])):
        s += math.sin(u) * v * k
    coefficients = [0.5, w, 2.0]
    for c, xi in zip(coefficients, x):
        s += c * xi
    return s


def periodic_stencil(u, c, steps):
    """``np.roll`` (without ``axis=``, as Numba has it): a periodic 1-D diffusion."""
    for _ in range(steps):
        u = u + c * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum(u**2)


def picks_by_index(x, w):
    """``np.argmax``, ``np.argmin``, ``np.argsort``: integer results that select elements."""
    i = np.argmax(x * w)
    order = np.argsort(x)
    return x[i] * w[np.argmin(x)] + np.sum(x[order] * np.arange(x.shape[0]))


def trimmed_sum(x, w):
    """``np.sort``: a trimmed sum of squares (the adjoint goes back through the order)."""
    s = np.sort(x * w)
    return np.sum(s[1:-1] ** 2) + s[0]


def axis_statistics(A, w):
    """Statistics along an axis, with a constant row (std and norm have derivative 0
    there, as the whole-array rules do) and a softmax written with ``keepdims=True``."""
    B = A * w
    spread = np.sum(np.std(B, axis=1)) + np.sum(B.var(axis=0, ddof=1) * w)
    sizes = np.linalg.norm(B, axis=1) + np.linalg.norm(B, ord=2, axis=0)
    e = np.exp(B - B.max(axis=1, keepdims=True))
    soft = e / np.sum(e, axis=1, keepdims=True)
    return spread + np.sum(sizes * w) + np.sum(np.prod(B, axis=0)) + np.sum(soft * A)


def scans_and_triangles(x, A, s):
    """``np.cumprod`` over a zero, triangles, a flattened copy written afterwards, a fill."""
    c = np.cumprod(x * s)
    flat = A.flatten()
    flat[0] = s
    upper = np.triu(A, 1) + np.tril(A * s)
    filled = np.full_like(x, s) * x
    return np.sum(c * c) + np.sum(flat * A.ravel()) + np.sum(upper @ x) + np.sum(filled)


def angles_and_rounding(x, s):
    """Degrees and radians, rounding to decimals (derivative 0), powers of two, roots,
    reciprocals and ``logaddexp``."""
    turn = np.sum(np.sin(np.radians(x * 90.0))) + math.cos(math.radians(s * 45.0))
    scale = np.sum(np.degrees(x) * np.deg2rad(x)) + math.degrees(s) / 57.0
    rounded = np.sum(np.round(x, 1) * x) + round(s, 2) * s
    powers = np.sum(np.exp2(x) + np.cbrt(x * x + 1.0) + np.reciprocal(x + 2.0))
    defaults = np.sum(x * x, axis=None) + np.linalg.norm(x, ord=None)
    return turn + scale + rounded + powers + np.sum(np.logaddexp(x, s * x)) + defaults


def einsum_contractions(T, W, x):
    """``np.einsum`` as products (``'ij,j->i'``, implicit ``'ij,jk'``), a trace, a batched
    contraction and three operands (loops), inside a time loop."""
    s = np.einsum("ii", W)
    for _ in range(2):
        x = np.tanh(np.einsum("ij,j->i", W, x))
        batch = np.einsum("bij,bj->bi", T, T[:, 0, :] * x)
        s += np.einsum("bi,bi->", batch, batch) + np.einsum("i,ij,j", x, W, x)
    return s + np.sum(np.einsum("ij,jk", W, W, optimize=True) * W)


def _pair_energy(v, w):
    return sum(a * b for a, b in zip(v, w))


def comprehensions(A, x):
    """Generator expressions reduced by ``sum`` (nested, filtered, with a start), ``max`` and
    ``min``; a list comprehension used as an array; a helper summing over ``zip``."""
    off = sum(A[i, j] * x[j] for i in range(A.shape[0]) for j in range(A.shape[1]) if i != j)
    ys = [math.sin(v) * (i + 1.0) for i, v in enumerate(x)]
    total = 0.0
    for y in ys:
        total += y * y
    for _ in range(2):
        x = np.tanh(A @ x)
        total += max(x[k] ** 2 for k in range(len(x))) + sum((v * 0.5 for v in x), 1.5)
    spread = min(x[k] * A[k, k] for k in range(3)) + np.sum(np.array(ys) * x) + sum(ys)
    return off + total + spread + _pair_energy(x, A[0]) + ys[1] * len(ys)


def appended_trajectory(x0, k, w, n):
    """A list of floats built with ``append`` in a time loop (past its first room, so the
    array behind it grows), read while appending, then averaged, summed and indexed."""
    xs = [x0]
    energies = []
    x = x0
    for i in range(n):
        x = x + 0.1 * (-k * x + math.sin(x)) + 0.01 * w[i % 3] * xs[-1]
        xs.append(x)
        if x > 0.0:
            energies.append(x * x)
        else:
            energies.append(-x * w[0])
    squares = [v * v for v in xs]  # a comprehension over the appended list
    spread = np.mean(np.array(squares)) - sum(v for v in xs[1:]) / n
    for i, v in enumerate(xs):  # the list's values, with max, min and a slice's sum
        spread += v * (i % 2) * 0.1
    spread += max(xs) - min(energies) + sum(xs[1:]) / n
    return np.mean(xs) + xs[-1] * len(xs) + sum(energies) + np.max(np.array(energies)) + spread


def periodic_stencil_2d(u, c, n):
    """A periodic 2-D diffusion step written with ``np.roll`` along each axis, and
    ``np.append`` with and without an axis."""
    for _ in range(n):
        ns = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0)
        u = u + c * (ns + np.roll(u, 1, axis=1) + np.roll(u, -1, 1) - 4.0 * u)
    edge = np.append(u[0], u[1, 1] * c)
    grown = np.append(u, u * c, axis=0)
    return np.sum(u * u) + np.sum(edge**2) + np.sum(grown[3:] * grown[:3])


def tabulated_forcing(c, xp, fp):
    """A time loop forced by a table read with ``np.interp`` (derivatives with respect to
    the query points, the knots and the values), and a lookup of an array of points."""
    u = 0.0
    for t in range(20):
        u = u + 0.1 * (np.interp(0.15 * t + 0.07, xp, fp) - c * u)
    lookup = np.interp(np.array([-0.2, 0.25, 1.5, 4.0]) * (1.0 + c), xp, fp * c)
    return u * u + np.sum(lookup**2)


def stacked_attention(T, W, x):
    """``@`` on a stack of matrices (rank 3) times a matrix, a matrix times a stack, and
    stack times stack, with a softmax along the last axis; max, min and prod along axes
    of a rank-3 array."""
    scores = np.tanh(T @ W)
    e = np.exp(scores - np.max(scores, axis=2, keepdims=True))
    weights = e / np.sum(e, axis=2, keepdims=True)
    mixed = weights @ T + np.matmul(W, T) + np.stack([W, W.T])  # a join of a list
    spread = np.sum(np.prod(mixed, axis=0) * W) + np.sum(np.min(mixed, axis=1) ** 2)
    return np.sum(mixed * mixed) + np.sum(W @ x) + spread


def rolls_in_loops(u, w, c, k):
    """``np.roll`` stored back into the array it rolls (not fusible), by a shift that
    changes every step, along an axis that is a variable, of a rebound array, and of
    rank-3 stacks along two axes."""
    v = u.copy()
    t = u * c
    axis = k - 2
    for i in range(k):
        v[:] = np.roll(v, 1, 0) * c + v
        t = t + np.roll(t, i, 1) * 0.3 - np.roll(u, i + 1, axis) * w
    b = np.roll(np.stack((u, v)), 1, axis=2) - np.roll(np.stack((t, u)), -1, axis=-3)
    return np.sum(v**2) + np.sum(t * u) + np.sum(b * b)


def cumulative_along_axes(A, w):
    """``np.cumsum``/``np.cumprod`` along an axis (also as methods, over a zero, on a rank-3
    stack) and ``np.roll`` along negative axes."""
    sums = np.cumsum(A * w[0], axis=1) + A.cumsum(axis=0)
    products = np.cumprod(A, axis=-1)
    rolled = np.roll(A, 1, axis=-1) + np.roll(A, -2, axis=-2)
    T = np.stack((A, A * w[1]))
    S = np.cumsum(T, axis=1) * T.cumprod(axis=2) + np.roll(T, 1, axis=-2)
    return np.sum(sums * sums) + np.sum(products * w[2]) + np.sum(rolled * A) + np.sum(S * S)


def batch_statistics(X, w, v):
    """Reductions over a tuple of axes (batch normalization over axes 0 and 2, negative
    axes, keepdims) and along the only axis of a vector (a number)."""
    mu = np.mean(X, axis=(0, 2), keepdims=True)
    scale = np.std(X, axis=(0, 2), keepdims=True) + 1e-3
    Z = (X - mu) / scale * w[0]
    a = np.sum(Z**2, axis=(-1, -2)) + np.var(X, axis=(1, 2), ddof=1)
    b = np.max(X, axis=(0, 1)) + np.min(X * w[1], axis=(-3, -1), keepdims=True).sum()
    c = np.linalg.norm(X, axis=(1, 2)) * np.prod(X, axis=(2, 0)).sum()
    d = np.sum(v * v, axis=0) + np.max(v, axis=0) * np.mean(v, axis=0, keepdims=True)
    return np.sum(a * a) + np.sum(b) + np.sum(c * w[2]) + np.sum(d) * np.prod(v, axis=0)


SPRINGS = np.array([[0, 1], [1, 2], [2, 0], [0, 1]])  # module-level edges, one repeated
STIFFNESS = np.array([0.5, 1.5, -0.2, 0.7])


def spring_network(x, smooth):
    """A spring energy over module-level edge lists (their ``.shape``, gathers with a
    repeated edge), a second difference ``np.diff(x, 2)``, ``np.clip`` with an open bound
    and integer index literals."""
    energy = 0.0
    for e in range(SPRINGS.shape[0]):
        energy += (x[SPRINGS[e, 0]] - x[SPRINGS[e, 1]]) ** 2 * STIFFNESS[e]
    stretch = x[SPRINGS[:, 0]] - x[SPRINGS[:, 1]]
    ends = x[np.array([0, -1, 0])]
    penalty = smooth * np.sum(np.diff(x, 2) ** 2) + np.sum(np.clip(x, 0.1, None) ** 2)
    return energy + np.sum(stretch**2 * STIFFNESS) + np.sum(ends**3) + penalty


def _kick(v, a, dt):
    v[0] += a[0] * dt
    v[1] += a[1] * dt


def _relax(u, w):
    for i in range(1, u.shape[0] - 1):
        u[i] = u[i] + w * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return np.sum(u)


def views_written_by_helpers(x, w):
    """Views passed to helpers that write into them: rows (a particle kick), a slice, a
    column and a strided slice, the helper's value used too."""
    vel = np.outer(x, x[:2])
    acc = np.sin(vel)
    for i in range(vel.shape[0]):
        _kick(vel[i], acc[i], w)
    grid = np.outer(x, x) * w
    total = _relax(grid[1:, 0], w)
    total += 0.5 * _relax(grid[:, 1], w) * w  # inside an expression
    _relax(grid[:, 2], 0.5 * w)
    _relax(grid[0, ::2], w)
    return np.sum(vel * vel) + np.sum(grid * grid) + total


def masks_with_bit_operators(x, a):
    """NumPy masks combined with ``&``, ``|``, ``^`` and ``~`` (no derivative of their own),
    in ``np.where``, a boolean index and scalar tests; ``np.clip``'s mask too."""
    inside = (x > -0.5) & (x < 0.5)
    y = np.where(inside, x * a, 0.0)
    z = np.where(~inside | (x > 0.9), np.sin(x), 0.0)
    s = 0.0
    for i in range(x.shape[0]):
        if (x[i] > 0.0) & (a > 0.1):
            s += x[i] * a
        if (x[i] < 0.0) ^ (a < 0.0):
            s += 0.5 * x[i]
    picked = np.sum(x[(x > 0.2) | (x < -0.7)] ** 2)
    return np.sum(y * y) + np.sum(z) + s + picked + np.sum(np.clip(x, -0.5, 0.5) ** 2 * x)


def masks_of_matrices(m, s):
    """Masks of a matrix's own shape, which Numba cannot index with: the selected elements
    read (in C order), set to a number in a new array, and in a loop."""
    picked = np.sum(m[m > 0.2] ** 2) * s
    clipped = m * s
    clipped[clipped < 0.1] = 0.1 * s
    total = 0.0
    for _ in range(2):
        inner = (m > -0.3) & (m < 0.6)
        total += np.sum(m[inner] * clipped[inner])
        clipped[inner] = s
    return picked + np.sum(clipped * m) + total


def differences_by_keyword(m, x):
    """``np.diff`` with ``n=`` and ``axis=`` (Numba's np.diff has neither keyword)."""
    rows = np.sum(np.diff(m, axis=0) ** 2)
    twice = np.sum(np.diff(m, n=2) ** 2) + np.sum(np.diff(m, 2, axis=1) * m[:, :-2])
    return rows + twice + np.sum(np.diff(x, n=1) ** 3) + np.sum(np.diff(m, axis=-2) * 0.5)


def loop_else(x, k):
    """``for``/``while`` with ``else``: a Newton-like loop that breaks when converged (its
    ``else`` skipped), one that never converges (its ``else`` runs), and an ``else`` after
    a loop without ``break``, with a ``break`` of an inner loop that is not its own."""
    y = k
    for _ in range(20):
        step = (y * y - x[0]) / (2.0 * y)
        y = y - step
        if abs(step) < 1e-12:
            break
    else:
        y = -y
    z = k
    for _ in range(2):
        z = z - (z * z - x[1]) / (2.0 * z)
        if z < -1e9:
            break
    else:
        z = z + 0.5 * x[2]
    w = 0.0
    i = 0
    while i < 3:
        for j in range(3):
            if j > i:
                break
            w += x[j] * k
        i += 1
    else:
        w = w * w
    return y + z * k + w


def pass_statements(x, k):
    """``pass`` as a branch in a loop, as a whole if, as a whole loop body, in an elif."""
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 10.0:
            pass  # skip outliers
        else:
            total += k * x[i] ** 2
    if k > 10.0:
        pass
    for _ in range(3):
        pass
    if total > 100.0:
        pass
    elif total < -1.0:
        pass
    else:
        total = total * k
    return total


def extremes_of_many(x, y):
    """Builtin max and min of three and four numbers, in a loop."""
    s = 0.0
    for i in range(3):
        s += max(x * i, y, 0.5) * min(x * y, 2.0, y + i, x)
    return s


def hyperbolic_and_remainders(v, y):
    """Inverse hyperbolic functions, np.fmod (its adjoint in y is -trunc(v / y)) and
    np.fmax/fmin in a loop over a vector rebound each step."""
    s = 0.0
    for _ in range(2):
        v = np.arcsinh(v) + np.arctanh(0.5 * np.tanh(v)) * np.arccosh(v * v + 1.5)
        s += np.sum(np.fmod(v, y) ** 2 + np.fmax(v, 0.3) * np.fmin(v, y))
    return s + math.asinh(y) * math.acosh(y + 1.0) + math.atanh(0.2 * y)


CASES = [
    (hyperbolic_and_remainders, (np.array([0.4, -0.9, 1.7]), 0.75), (0, 1)),
    (extremes_of_many, (0.7, 1.3), (0, 1)),
    (pass_statements, (np.array([0.3, 11.0, -0.8]), 0.7), (0, 1)),
    (loop_else, (np.array([2.0, 3.0, -0.7]), 1.3), (0, 1)),
    (masks_with_bit_operators, (np.linspace(-1.0, 1.0, 7) + 0.03, 0.7), (0, 1)),
    (masks_of_matrices, (np.sin(np.arange(12.0) * 1.3).reshape(3, 4), 0.7), (0, 1)),
    (
        differences_by_keyword,
        (np.sin(np.arange(20.0) * 0.7).reshape(4, 5), np.cos(np.arange(6.0))),
        (0, 1),
    ),
    (views_written_by_helpers, (np.array([0.3, -0.8, 0.5, 1.1]), 0.4), (0, 1)),
    (spring_network, (np.array([0.3, -0.2, 0.9, 0.45]), 0.7), (0, 1)),
    (
        batch_statistics,
        (np.sin(np.arange(24.0) * 0.7).reshape(2, 3, 4), np.array([0.7, -1.2, 0.4]), V3.copy()),
        (0, 1, 2),
    ),
    (dtype_keyword, (np.linspace(0.2, 1.0, 4), 3), (0,)),
    (dtype_attribute, (np.linspace(0.2, 1.0, 4),), (0,)),
    (eye_and_chained, (A3.copy(),), (0,)),
    (gmm_like, (np.array([0.3, -0.4, 0.8]), np.array([1.5, 2.5, 0.7])), (0, 1)),
    (moments, (np.array([0.3, -0.4, 0.8, 1.1]),), (0,)),
    (ufunc_spellings, (np.array([0.3, -0.4, 0.8]), np.array([1.3, 0.6, 2.0])), (0, 1)),
    (linear_algebra, (A3.copy(), np.array([0.5, -0.2, 0.9])), (0, 1)),
    (solve_in_loop, (A3.copy(), np.array([0.5, -0.2, 0.9]), 3), (0, 1)),
    (prod_with_zero, (np.array([0.5, 0.0, 2.0]),), (0,)),
    (pairwise, (np.linspace(0.2, 1.3, 4),), (0,)),
    (trace_and_diff_2d, (A3.copy(),), (0,)),
    (module_constant_arrays, (np.array([0.3, -0.4, 0.8]), 4), (0,)),
    (joins, (np.linspace(0.2, 1.3, 3), A3.copy()), (0, 1)),
    (
        masks_and_axis_extremes,
        (np.linspace(-0.5, 1.3, 6), A3 + np.arange(9.0).reshape(3, 3)),
        (0, 1),
    ),
    (rows_and_copies, (A3.copy(),), (0,)),
    (ode_with_literals, (np.array([1.0, 0.2]), 1.3, 4), (0, 1)),
    (unpack_into_elements, (np.array([0.3, -0.7]), 0.9), (0, 1)),
    (out_keyword, (np.array([0.3, -0.4, 0.8]), np.array([1.3, 0.6, 2.0])), (0, 1)),
    (
        index_expressions,
        (np.arange(18.0).reshape(2, 3, 3) / 9.0, np.array([0.3, -0.4, 0.8])),
        (0, 1),
    ),
    (cholesky_and_diag, (A3.copy(), np.array([0.5, -0.2, 0.9])), (0, 1)),
    (at_least, (np.array([0.3, -0.4, 0.8]), A3.copy()), (0, 1)),
    (nested_functions, (np.array([0.3, -0.5]), 0.8, 4), (0, 1)),
    (log_determinants, (A3.copy() - np.diag([0.0, 3.0, 0.0]),), (0,)),
    (small_lists, (0.7, 0.1, 3), (0, 1)),
    (covariances, (A3.copy(), np.array([0.5, -0.2, 0.9, 1.4])), (0, 1)),
    (picks_by_index, (np.array([0.3, -0.4, 0.8, 0.1]), np.array([1.0, 2.0, 0.5, 1.5])), (0, 1)),
    (trimmed_sum, (np.array([0.3, -0.4, 0.8, 0.1]), np.array([1.0, 2.0, 0.5, 1.5])), (0, 1)),
    (axis_statistics, (np.array([[0.3, -0.4, 0.8], [0.5, 0.5, 0.5], [0.1, 0.9, -0.7]]), 1.3), (0,)),
    (axis_statistics, (A3.copy(), 0.7), (0, 1)),
    (scans_and_triangles, (np.array([0.5, 0.0, -1.5, 2.0]), A4.copy(), 0.8), (0, 1, 2)),
    (einsum_contractions, (T223.copy(), A3.copy(), np.ones(3)), (0, 1, 2)),
    (tabulated_forcing, (0.7, KNOTS.copy(), np.cos(np.arange(5.0))), (0, 1, 2)),
    (stacked_attention, (T233.copy(), A3.copy() * 0.5, np.array([0.3, -0.2, 0.6])), (0, 1, 2)),
    (periodic_stencil_2d, (A4[:3].copy(), 0.15, 3), (0, 1)),
    (rolls_in_loops, (A4[:3].copy(), 0.4, 0.7, 3), (0, 1, 2)),
    (
        cumulative_along_axes,
        (A4[:3] * np.array([1.0, 1.0, 0.0, 1.0]), np.array([0.7, -1.3, 0.4])),
        (0, 1),
    ),
    (appended_trajectory, (0.4, 0.7, np.array([0.5, -0.3, 0.8]), 40), (0, 1, 2)),
    (comprehensions, (A3.copy(), np.array([0.3, -0.5, 0.9])), (0, 1)),
    (angles_and_rounding, (np.array([0.33, -0.71, 1.27]), 0.43), (0, 1)),
    (periodic_stencil, (np.sin(np.linspace(0.0, 3.0, 6)), 0.2, 3), (0, 1)),
    (enumerate_and_zip, (np.array([0.3, -0.4, 0.8]), A3.copy(), 0.7), (0, 1, 2)),
    (fresh_buffer_each_step, (np.sin(np.linspace(0.0, 3.0, 7)), 0.2, 3), (0, 1)),
]

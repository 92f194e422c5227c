"""Array corpus: numeric Python on NumPy arrays, written with explicit element loops.

Every function takes float64 or float32 arrays of rank 1 or 2 (and sometimes floats, ints,
int index arrays and bool masks), returns a float, and is defined at module level so that
its source can be read. It uses only what sourcediff supports on arrays: element reads and
writes with integer indices, shape queries, local arrays from the NumPy constructors, buffer
swaps, writes into argument arrays, whole-array `np.sum`, helpers that index arrays, and the
control flow of the scalar corpus. No slices, whole-array arithmetic, `np.dot` or `axis=`.

`CASES` lists, for each function checked, the argument tuples to check it at and the
arguments to differentiate (`argnums`). The arrays are built at import time from fixed
seeds, away from kinks (branch boundaries, ties, changes of a loop's trip count). Some
functions write into their argument arrays: callers must pass copies of the points.
Helpers whose names start with "_" are called by the cased functions and are
differentiated through.
"""

import math

import numpy as np
from corpus_support import Case

# Module-level constants used inside functions.
SOFTENING2 = 0.05
LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _uniform(seed, shape, lo=-1.0, hi=1.0):
    """A float64 array of the given shape, uniform in [lo, hi), from a fixed seed."""
    return np.random.default_rng(seed).uniform(lo, hi, shape)


# ---------------------------------------------------------------------------
# Element reads, indices, shape queries
# ---------------------------------------------------------------------------


def weighted_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += (i + 1) * x[i] * x[i] - 0.5 * x[i]
    return s


def weighted_sin(x, w):
    s = 0.0
    for i in range(len(x)):
        s += math.sin(w * x[i]) ** 2
    return s


def matrix_moments(a):
    n, m = a.shape
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += a[i, j] * a[i, j] * (i + 1) - math.cos(a[i, j]) * j
    return s + a[-1, -1] * a[0, -1] - a[-2, 0]


def end_points(x):
    return x[-1] * x[0] + x[-2] ** 2 - 3.0 * x[1] * x[-1] + math.exp(x[-3])


def shifted_reads(x):
    n = x.shape[0]
    s = 0.0
    for i in range(1, n):
        d = x[i] - x[i - 1]
        s += d * d
    for i in range(n):
        s += x[i] * x[n - 1 - i]
    for i in range(n - 2):
        s += x[i + 2] * x[i] * 0.5
    return s


def shape_queries(a, x):
    rows = len(a)
    cols = a.shape[1]
    total = 0.0
    for i in range(rows):
        for j in range(cols):
            total += a[i, j] * x[j] * (i - j + 0.5)
    return total / a.size + a.ndim * x[0] * x[0] - x.ndim * x[cols - 1] + x.size * a[rows - 1, 0]


def whole_sums(x, a):
    return np.sum(x) * a.sum() + np.sum(a) - x.sum() ** 2


def sum_of_local(x):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = math.exp(0.5 * x[i]) - x[i] * i
    return np.sum(y) + y.sum() * x[0]


# ---------------------------------------------------------------------------
# Local arrays
# ---------------------------------------------------------------------------


def local_zeros_2d(x):
    n = x.shape[0]
    outer = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            outer[i, j] = x[i] * x[j] + 0.1 * (i - j)
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += math.sin(outer[i, j]) * (j + 1)
    return s


def ones_full_empty(x, c):
    n = len(x)
    w = np.ones(n)
    half = np.full(n, c)
    e = np.empty(n)
    g = np.full((2, n), 1.5)
    h = np.ones((n, 2))
    q = np.empty((2, n))
    for i in range(n):
        w[i] += x[i]
        e[i] = half[i] * w[i] * w[i]
        g[1, i] = g[0, i] * x[i]
        h[i, 0] = h[i, 1] + e[i]
        q[0, i] = c * h[i, 0]
        q[1, i] = q[0, i] * x[i]
    s = 0.0
    for i in range(n):
        s += e[i] + g[1, i] * h[i, 0] + g[0, i] + q[1, i]
    return s


def like_constructors(a):
    n, m = a.shape
    z = np.zeros_like(a)
    e = np.empty_like(a)
    o = np.ones_like(a)
    for i in range(n):
        for j in range(m):
            e[i, j] = a[i, j] * o[i, j] + 1.0
            z[i, j] += e[i, j] * a[i, j]
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += math.log(e[i, j] * e[i, j] + 1.0) + z[i, j] * o[i, j]
    return s


def copy_then_modify(x):
    y = x.copy()
    for i in range(1, len(y)):
        y[i] = y[i] * y[i - 1] + 0.1
    s = 0.0
    for i in range(len(y)):
        s += y[i] + x[i] * y[i]
    return s


def arange_weights(x):
    n = x.shape[0]
    k = np.arange(n)
    t = np.arange(0.0, 1.0, 0.25)
    s = 0.0
    for i in range(n):
        s += k[i] * x[i] * x[i]
    for j in range(t.shape[0]):
        s += t[j] * math.sin(x[j % n])
    return s


def linspace_quadrature(a, b, c):
    # Trapezoid rule for the integral of c * sin(t) * exp(-t) over [a, b].
    n = 9
    t = np.linspace(a, b, n)
    s = 0.0
    for i in range(1, n):
        h = t[i] - t[i - 1]
        f0 = c * math.sin(t[i - 1]) * math.exp(-t[i - 1])
        f1 = c * math.sin(t[i]) * math.exp(-t[i])
        s += 0.5 * h * (f0 + f1)
    return s


def linspace_grid(x):
    n = x.shape[0]
    t = np.linspace(0.0, 1.0, n)
    s = 0.0
    for i in range(n):
        s += (x[i] - t[i]) ** 2 * (1.0 + t[i])
    return s


def arange_span(x0, h):
    # Points x0, x0 + h, ..., eight of them (the stop is half a step past the last).
    t = np.arange(x0, x0 + 7.5 * h, h)
    s = 0.0
    for i in range(t.shape[0]):
        s += math.sin(t[i]) * h
    return s


# ---------------------------------------------------------------------------
# Buffers swapped across iterations
# ---------------------------------------------------------------------------


def jacobi_smoothing(x, n_iter):
    n = x.shape[0]
    u = x.copy()
    v = np.zeros(n)
    for _ in range(n_iter):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1] + 0.1 * math.sin(u[i])
        u, v = v, u
    s = 0.0
    for i in range(n):
        s += u[i] * u[i] * (i + 1)
    return s


# ---------------------------------------------------------------------------
# Writing into argument arrays
# ---------------------------------------------------------------------------


def square_in_place(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * x[i] + math.sin(x[i])
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * (i + 1)
    return s


def in_place_2d(a, c):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            a[i, j] += c * a[i, j] * a[i, j]
            a[i, j] -= 0.5 * math.cos(a[i, j])
    for i in range(1, n):
        for j in range(m):
            a[i, j] = a[i, j] * a[i - 1, j] + c
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += a[i, j] * (j + 1)
    return s


def prefix_sum_in_place(x):
    for i in range(1, len(x)):
        x[i] += x[i - 1]
    s = 0.0
    for i in range(len(x)):
        s += math.sin(x[i]) * (i + 1)
    return s


def reverse_in_place(x):
    n = len(x)
    for i in range(n // 2):
        t = x[i]
        x[i] = x[n - 1 - i]
        x[n - 1 - i] = t
    s = 0.0
    for i in range(n):
        s += x[i] * (i + 1) ** 2 + x[i] * x[i]
    return s


# ---------------------------------------------------------------------------
# Helpers taking arrays
# ---------------------------------------------------------------------------


def _dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


def helper_dot(x, y):
    return _dot(x, y) / math.sqrt(_dot(x, x)) + _dot(y, y)


def _axpy_into(alpha, x, y):
    for i in range(x.shape[0]):
        y[i] += alpha * x[i]


def helper_writes(x, alpha):
    n = x.shape[0]
    y = np.ones(n)
    for _ in range(3):
        _axpy_into(alpha, x, y)
        for i in range(n):
            y[i] = math.tanh(y[i])
    return _dot(y, y)


def _row_means(a):
    n, m = a.shape
    r = np.zeros(n)
    for i in range(n):
        for j in range(m):
            r[i] += a[i, j]
        r[i] = r[i] / m
    return r


def helper_returns_array(a, steps):
    s = 0.0
    for k in range(steps):
        r = _row_means(a)
        for i in range(r.shape[0]):
            s += math.sin(r[i] * (k + 1)) + r[i] * a[i, k % a.shape[1]]
    return s


def _scale_rows(a, w):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            a[i, j] = a[i, j] * w[i] + 0.1 * j


def helper_writes_argument(a, w):
    _scale_rows(a, w)
    _scale_rows(a, w)
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * a[i, j] * (i + 1)
    return s


# ---------------------------------------------------------------------------
# Control flow over elements
# ---------------------------------------------------------------------------


def while_accumulate(x, limit):
    i = 0
    total = 0.0
    while i < x.shape[0] and total < limit:
        total += math.exp(0.3 * x[i]) * (i + 1)
        i += 1
    return total * x[0] + i


def while_break(x):
    i = 0
    s = 0.0
    n = len(x)
    while i < n:
        if x[i] < -0.6:
            break
        s = 0.9 * s + x[i] * x[i] + x[i]
        i += 1
    return s * x[0]


def skip_negative(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0.0:
            s -= 0.5 * x[i]
            continue
        s += x[i] ** 3 + x[i]
        if s > 2.0:
            break
    return s


def first_crossing(x, thresh):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] * x[i]
        if acc > thresh:
            return acc * x[i] + i * thresh
    return -acc * thresh


def branchy_elements(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > y[i]:
            s += x[i] * y[i]
        elif x[i] < -0.5:
            s += math.exp(x[i]) - y[i]
        else:
            s += (x[i] - y[i]) ** 2
    return s


# ---------------------------------------------------------------------------
# Inactive int index arrays and bool masks, float32
# ---------------------------------------------------------------------------


def gather_index(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        v = x[idx[k]]
        s += v * v * (k + 1) + math.sin(v)
    return s


def scatter_add(x, idx, m):
    out = np.zeros(m)
    for k in range(x.shape[0]):
        out[idx[k]] += x[k]
    s = 0.0
    for j in range(m):
        s += out[j] * out[j] * (j + 1)
    return s


def masked_stats(x, mask):
    s = 0.0
    s2 = 0.0
    c = 0
    for i in range(x.shape[0]):
        if mask[i]:
            s += x[i]
            s2 += x[i] * x[i]
            c += 1
    mean = s / c
    return s2 / c - mean * mean + mean


def float32_energy(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(w * x[i]) * x[i] + 0.5 * x[i] * x[i]
    return s


def float32_matrix_in_place(a):
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            a[i, j] = a[i, j] * a[i, j] + 0.5 * a[i, j]
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += math.exp(0.5 * a[i, j]) * (i + 1)
    return s


# ---------------------------------------------------------------------------
# Linear algebra with loops
# ---------------------------------------------------------------------------


def matvec_residual(a, x, b):
    n, m = a.shape
    loss = 0.0
    for i in range(n):
        r = -b[i]
        for j in range(m):
            r += a[i, j] * x[j]
        loss += 0.5 * r * r
    return loss


def matmul_frobenius(a, b):
    n, k = a.shape
    p = b.shape[1]
    c = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            for q in range(k):
                c[i, j] += a[i, q] * b[q, j]
    s = 0.0
    for i in range(n):
        for j in range(p):
            s += c[i, j] * c[i, j]
    return s


def tridiagonal_solve(diag, rhs):
    # Thomas algorithm for a tridiagonal system with off-diagonals -1.
    n = diag.shape[0]
    cp = np.zeros(n)
    dp = np.zeros(n)
    x = np.zeros(n)
    cp[0] = -1.0 / diag[0]
    dp[0] = rhs[0] / diag[0]
    for i in range(1, n):
        denom = diag[i] + cp[i - 1]
        cp[i] = -1.0 / denom
        dp[i] = (rhs[i] + dp[i - 1]) / denom
    x[n - 1] = dp[n - 1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    s = 0.0
    for i in range(n):
        s += x[i] * (i + 1)
    return s


def cholesky_logdet(a):
    # log det(A A^T + I) and a quadratic form, through a Cholesky factorization.
    n, m = a.shape
    s = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for k in range(m):
                acc += a[i, k] * a[j, k]
            s[i, j] = acc
        s[i, i] += 1.0
    chol = np.zeros((n, n))
    for j in range(n):
        d = s[j, j]
        for k in range(j):
            d -= chol[j, k] * chol[j, k]
        chol[j, j] = math.sqrt(d)
        for i in range(j + 1, n):
            v = s[i, j]
            for k in range(j):
                v -= chol[i, k] * chol[j, k]
            chol[i, j] = v / chol[j, j]
    logdet = 0.0
    for i in range(n):
        logdet += 2.0 * math.log(chol[i, i])
    # Forward substitution L y = 1, then |y|^2 = 1^T S^-1 1.
    y = np.zeros(n)
    quad = 0.0
    for i in range(n):
        v = 1.0
        for k in range(i):
            v -= chol[i, k] * y[k]
        y[i] = v / chol[i, i]
        quad += y[i] * y[i]
    return logdet + quad


def insertion_sort_weighted(x):
    y = x.copy()
    n = len(y)
    for i in range(1, n):
        key = y[i]
        j = i - 1
        while j >= 0 and y[j] > key:
            y[j + 1] = y[j]
            j -= 1
        y[j + 1] = key
    s = 0.0
    for i in range(n):
        s += y[i] * (i + 1) ** 2
    return s


def horner_coeffs(c, t):
    n = c.shape[0]
    p = c[n - 1]
    for i in range(n - 2, -1, -1):
        p = p * t + c[i]
    return p * p


# ---------------------------------------------------------------------------
# Simulation kernels
# ---------------------------------------------------------------------------


def heat_equation(u0, alpha, n_steps):
    # Explicit finite differences, boundary values held fixed, two buffers swapped.
    n = u0.shape[0]
    u = u0.copy()
    v = np.empty(n)
    for _ in range(n_steps):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u, v = v, u
    s = 0.0
    for i in range(n):
        s += u[i] * u[i] * (1.0 + 0.1 * i)
    return s


def wave_leapfrog(u0, c, n_steps):
    # Leapfrog for u_tt = c^2 u_xx (grid units), zero boundaries, three rotating buffers.
    n = u0.shape[0]
    r2 = c * c
    u_prev = u0.copy()
    u = np.zeros(n)
    u_next = np.zeros(n)
    for i in range(1, n - 1):
        u[i] = u0[i] + 0.5 * r2 * (u0[i - 1] - 2.0 * u0[i] + u0[i + 1])
    for _ in range(n_steps):
        for i in range(1, n - 1):
            u_next[i] = 2.0 * u[i] - u_prev[i] + r2 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u_prev, u, u_next = u, u_next, u_prev
    s = 0.0
    for i in range(n):
        d = u[i] - u_prev[i]
        s += u[i] * u[i] * (i + 1) + d * d
    return s


def _gravity_forces(pos, mass, force):
    n = pos.shape[0]
    for i in range(n):
        force[i, 0] = 0.0
        force[i, 1] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + SOFTENING2
            f = mass[i] * mass[j] / (r2 * math.sqrt(r2))
            force[i, 0] += f * dx
            force[i, 1] += f * dy
            force[j, 0] -= f * dx
            force[j, 1] -= f * dy


def _potential(pos, mass):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            e -= mass[i] * mass[j] / math.sqrt(dx * dx + dy * dy + SOFTENING2)
    return e


def _verlet(pos, vel, mass, dt, n_steps):
    # Velocity Verlet; writes the final state into pos and vel.
    n = pos.shape[0]
    force = np.zeros((n, 2))
    _gravity_forces(pos, mass, force)
    for _ in range(n_steps):
        for i in range(n):
            for d in range(2):
                vel[i, d] += 0.5 * dt * force[i, d] / mass[i]
                pos[i, d] += dt * vel[i, d]
        _gravity_forces(pos, mass, force)
        for i in range(n):
            for d in range(2):
                vel[i, d] += 0.5 * dt * force[i, d] / mass[i]


def nbody_energy(pos0, vel0, mass, dt, n_steps):
    pos = pos0.copy()
    vel = vel0.copy()
    _verlet(pos, vel, mass, dt, n_steps)
    kinetic = 0.0
    for i in range(pos.shape[0]):
        kinetic += 0.5 * mass[i] * (vel[i, 0] * vel[i, 0] + vel[i, 1] * vel[i, 1])
    return kinetic + _potential(pos, mass)


def nbody_final_norm(pos, vel, mass, dt, n_steps):
    # Integrates in place: the caller's pos and vel hold the final state afterwards.
    _verlet(pos, vel, mass, dt, n_steps)
    s = 0.0
    for i in range(pos.shape[0]):
        s += pos[i, 0] * pos[i, 0] + pos[i, 1] * pos[i, 1]
    return math.sqrt(s)


def _lotka_volterra_rhs(y, p, out):
    out[0] = p[0] * y[0] - p[1] * y[0] * y[1]
    out[1] = p[3] * y[0] * y[1] - p[2] * y[1]


def lotka_volterra_rk4(y0, p, dt, n_steps):
    y = y0.copy()
    k1 = np.zeros(2)
    k2 = np.zeros(2)
    k3 = np.zeros(2)
    k4 = np.zeros(2)
    tmp = np.zeros(2)
    for _ in range(n_steps):
        _lotka_volterra_rhs(y, p, k1)
        for i in range(2):
            tmp[i] = y[i] + 0.5 * dt * k1[i]
        _lotka_volterra_rhs(tmp, p, k2)
        for i in range(2):
            tmp[i] = y[i] + 0.5 * dt * k2[i]
        _lotka_volterra_rhs(tmp, p, k3)
        for i in range(2):
            tmp[i] = y[i] + dt * k3[i]
        _lotka_volterra_rhs(tmp, p, k4)
        for i in range(2):
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
    return math.log(y[0]) + y[1] * y[1]


def _oscillator_rhs(state, omega, zeta, k, row):
    # Writes the right-hand side into row `row` of the 2-D array k.
    k[row, 0] = state[1]
    k[row, 1] = -2.0 * zeta * omega * state[1] - omega * omega * state[0]


def damped_oscillator_rk4(state0, omega, zeta, dt, n_steps):
    s = np.empty(2)
    s[0] = state0[0]
    s[1] = state0[1]
    k = np.zeros((4, 2))
    tmp = np.zeros(2)
    for _ in range(n_steps):
        _oscillator_rhs(s, omega, zeta, k, 0)
        for i in range(2):
            tmp[i] = s[i] + 0.5 * dt * k[0, i]
        _oscillator_rhs(tmp, omega, zeta, k, 1)
        for i in range(2):
            tmp[i] = s[i] + 0.5 * dt * k[1, i]
        _oscillator_rhs(tmp, omega, zeta, k, 2)
        for i in range(2):
            tmp[i] = s[i] + dt * k[2, i]
        _oscillator_rhs(tmp, omega, zeta, k, 3)
        for i in range(2):
            s[i] += dt / 6.0 * (k[0, i] + 2.0 * k[1, i] + 2.0 * k[2, i] + k[3, i])
    return 0.5 * s[1] * s[1] + 0.5 * omega * omega * s[0] * s[0]


# ---------------------------------------------------------------------------
# Machine learning losses
# ---------------------------------------------------------------------------


def mlp_loss(w1, b1, w2, b2, x, y):
    n_samples, n_in = x.shape
    n_hidden = w1.shape[0]
    n_out = w2.shape[0]
    h = np.zeros(n_hidden)
    loss = 0.0
    for s in range(n_samples):
        for k in range(n_hidden):
            z = b1[k]
            for j in range(n_in):
                z += w1[k, j] * x[s, j]
            h[k] = math.tanh(z)
        for o in range(n_out):
            out = b2[o]
            for k in range(n_hidden):
                out += w2[o, k] * h[k]
            r = out - y[s, o]
            loss += r * r
    return loss / n_samples


def softmax_cross_entropy(w, x, labels):
    n, d = x.shape
    c = w.shape[0]
    logits = np.zeros(c)
    total = 0.0
    for s in range(n):
        for k in range(c):
            z = 0.0
            for j in range(d):
                z += w[k, j] * x[s, j]
            logits[k] = z
        m = logits[0]
        for k in range(1, c):
            if logits[k] > m:
                m = logits[k]
        se = 0.0
        for k in range(c):
            se += math.exp(logits[k] - m)
        total += m + math.log(se) - logits[labels[s]]
    return total / n


def gmm_log_likelihood(x, means, log_sigmas, logits):
    k_count = means.shape[0]
    # log of the mixture weights: logits - logsumexp(logits)
    m = logits[0]
    for k in range(1, k_count):
        if logits[k] > m:
            m = logits[k]
    se = 0.0
    for k in range(k_count):
        se += math.exp(logits[k] - m)
    log_norm = m + math.log(se)
    comp = np.zeros(k_count)
    total = 0.0
    for i in range(x.shape[0]):
        for k in range(k_count):
            z = (x[i] - means[k]) / math.exp(log_sigmas[k])
            comp[k] = logits[k] - log_norm - 0.5 * z * z - log_sigmas[k] - LOG_SQRT_2PI
        cm = comp[0]
        for k in range(1, k_count):
            if comp[k] > cm:
                cm = comp[k]
        s = 0.0
        for k in range(k_count):
            s += math.exp(comp[k] - cm)
        total += cm + math.log(s)
    return total


def _rodrigues_rotate(cams, c, pts, p, out):
    w0 = cams[c, 0]
    w1 = cams[c, 1]
    w2 = cams[c, 2]
    x = pts[p, 0]
    y = pts[p, 1]
    z = pts[p, 2]
    theta = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    if theta > 1e-8:
        k0 = w0 / theta
        k1 = w1 / theta
        k2 = w2 / theta
        ct = math.cos(theta)
        st = math.sin(theta)
        kx = (k0 * x + k1 * y + k2 * z) * (1.0 - ct)
        out[0] = x * ct + (k1 * z - k2 * y) * st + k0 * kx
        out[1] = y * ct + (k2 * x - k0 * z) * st + k1 * kx
        out[2] = z * ct + (k0 * y - k1 * x) * st + k2 * kx
    else:
        out[0] = x + w1 * z - w2 * y
        out[1] = y + w2 * x - w0 * z
        out[2] = z + w0 * y - w1 * x


def bundle_adjustment(cams, pts, cam_idx, pt_idx, obs):
    # cams[c] = (rotation vector 3, translation 3, focal, k1, k2)
    rot = np.zeros(3)
    total = 0.0
    for k in range(obs.shape[0]):
        c = cam_idx[k]
        p = pt_idx[k]
        _rodrigues_rotate(cams, c, pts, p, rot)
        px = rot[0] + cams[c, 3]
        py = rot[1] + cams[c, 4]
        pz = rot[2] + cams[c, 5]
        u = px / pz
        v = py / pz
        r2 = u * u + v * v
        distortion = 1.0 + cams[c, 7] * r2 + cams[c, 8] * r2 * r2
        ex = cams[c, 6] * distortion * u - obs[k, 0]
        ey = cams[c, 6] * distortion * v - obs[k, 1]
        total += ex * ex + ey * ey
    return total


# ---------------------------------------------------------------------------
# Data for the check points (fixed seeds)
# ---------------------------------------------------------------------------


def _nbody_state(seed):
    rng = np.random.default_rng(seed)
    angles = np.array([0.0, 0.5, 1.0, 1.5]) * math.pi + rng.uniform(-0.2, 0.2, 4)
    radii = rng.uniform(0.8, 1.2, 4)
    pos = np.empty((4, 2))
    vel = np.empty((4, 2))
    for i in range(4):
        pos[i, 0] = radii[i] * math.cos(angles[i])
        pos[i, 1] = radii[i] * math.sin(angles[i])
        vel[i, 0] = -0.5 * math.sin(angles[i])
        vel[i, 1] = 0.5 * math.cos(angles[i])
    mass = rng.uniform(0.5, 1.5, 4)
    return pos, vel, mass


def _mlp_data(seed, n_samples=6, n_in=3, n_hidden=4, n_out=2):
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0.0, 0.6, (n_hidden, n_in))
    b1 = rng.normal(0.0, 0.3, n_hidden)
    w2 = rng.normal(0.0, 0.6, (n_out, n_hidden))
    b2 = rng.normal(0.0, 0.3, n_out)
    x = rng.normal(0.0, 1.0, (n_samples, n_in))
    y = rng.normal(0.0, 1.0, (n_samples, n_out))
    return w1, b1, w2, b2, x, y


def _softmax_data(seed, n=6, d=3, c=4):
    rng = np.random.default_rng(seed)
    w = rng.normal(0.0, 1.0, (c, d))
    x = rng.normal(0.0, 1.0, (n, d))
    labels = rng.integers(0, c, n)
    return w, x, labels


def _gmm_data(seed, n=10, k=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 2.0, n)
    means = np.sort(rng.uniform(-3.0, 3.0, k))
    log_sigmas = rng.uniform(-0.3, 0.5, k)
    logits = rng.normal(0.0, 0.7, k)
    return x, means, log_sigmas, logits


def _bundle_data(seed, n_cams=2, n_pts=5):
    rng = np.random.default_rng(seed)
    cams = np.empty((n_cams, 9))
    for c in range(n_cams):
        cams[c, 0:3] = rng.uniform(0.05, 0.2, 3) * rng.choice([-1.0, 1.0], 3)
        cams[c, 3:5] = rng.uniform(-0.3, 0.3, 2)
        cams[c, 5] = rng.uniform(0.0, 0.5)
        cams[c, 6] = rng.uniform(1.5, 2.5)
        cams[c, 7] = rng.uniform(-0.1, 0.1)
        cams[c, 8] = rng.uniform(-0.02, 0.02)
    pts = np.empty((n_pts, 3))
    pts[:, 0:2] = rng.uniform(-1.0, 1.0, (n_pts, 2))
    pts[:, 2] = rng.uniform(4.0, 6.0, n_pts)
    cam_idx = np.repeat(np.arange(n_cams), n_pts)
    pt_idx = np.tile(np.arange(n_pts), n_cams)
    obs = np.empty((n_cams * n_pts, 2))
    rot = np.zeros(3)
    for k in range(n_cams * n_pts):
        c, p = cam_idx[k], pt_idx[k]
        _rodrigues_rotate(cams, c, pts, p, rot)
        pz = rot[2] + cams[c, 5]
        obs[k, 0] = cams[c, 6] * (rot[0] + cams[c, 3]) / pz
        obs[k, 1] = cams[c, 6] * (rot[1] + cams[c, 4]) / pz
    obs += rng.normal(0.0, 0.02, obs.shape)
    # Perturb the parameters away from the data so that the residuals are not tiny.
    cams += rng.normal(0.0, 0.01, cams.shape)
    pts += rng.normal(0.0, 0.05, pts.shape)
    return cams, pts, cam_idx, pt_idx, obs


_NB1 = _nbody_state(501)
_NB2 = _nbody_state(502)
_MLP1 = _mlp_data(601)
_MLP2 = _mlp_data(602, n_samples=4, n_in=2, n_hidden=3, n_out=1)
_SM1 = _softmax_data(701)
_SM2 = _softmax_data(702, n=5, d=2, c=3)
_GMM1 = _gmm_data(801)
_GMM2 = _gmm_data(802, n=7, k=2)
_BA1 = _bundle_data(901)
_BA2 = _bundle_data(902, n_cams=3, n_pts=3)

_IDX1 = np.array([0, 3, 3, 1, 5, 2, 0])
_IDX2 = np.array([4, 2, 2, 2, 0])
_SCATTER1 = np.array([0, 2, 2, 1, 0, 3])
_SCATTER2 = np.array([1, 1, 0, 4, 3])
_MASK1 = np.array([True, False, True, True, False, True, False])
_MASK2 = np.array([False, True, True, False, True])


# Cases that fail because of a known sourcediff bug: case name -> what goes wrong.
KNOWN_BUGS: dict[str, str] = {}

CASES = [
    # element reads, indices, shape queries
    Case("weighted_squares", weighted_squares, [(_uniform(1, 5),), (_uniform(2, 9),)], 0),
    Case(
        "weighted_sin",
        weighted_sin,
        [(_uniform(3, 6), 0.7), (_uniform(4, 4, -2.0, 2.0), -1.3)],
        (0, 1),
    ),
    Case("matrix_moments", matrix_moments, [(_uniform(5, (3, 4)),), (_uniform(6, (2, 5)),)], 0),
    Case("end_points", end_points, [(_uniform(7, 5),), (_uniform(8, 3),)], 0),
    Case("shifted_reads", shifted_reads, [(_uniform(9, 6),), (_uniform(10, 3),)], 0),
    Case(
        "shape_queries",
        shape_queries,
        [(_uniform(11, (3, 4)), _uniform(12, 4)), (_uniform(13, (5, 2)), _uniform(14, 2))],
        (0, 1),
    ),
    Case(
        "whole_sums",
        whole_sums,
        [(_uniform(15, 4), _uniform(16, (2, 3))), (_uniform(17, 7), _uniform(18, (4, 1)))],
        (0, 1),
    ),
    Case("sum_of_local", sum_of_local, [(_uniform(19, 5),), (_uniform(20, 8),)], 0),
    # local arrays
    Case("local_zeros_2d", local_zeros_2d, [(_uniform(21, 4),), (_uniform(22, 6),)], 0),
    Case(
        "ones_full_empty",
        ones_full_empty,
        [(_uniform(23, 5), 0.5), (_uniform(24, 3), -1.2)],
        (0, 1),
    ),
    Case(
        "like_constructors",
        like_constructors,
        [(_uniform(25, (3, 3)),), (_uniform(26, (2, 5)),)],
        0,
    ),
    Case("copy_then_modify", copy_then_modify, [(_uniform(27, 5),), (_uniform(28, 8),)], 0),
    Case("arange_weights", arange_weights, [(_uniform(29, 6),), (_uniform(30, 3),)], 0),
    Case(
        "linspace_quadrature",
        linspace_quadrature,
        [(0.0, 2.0, 1.5), (-0.5, 1.3, 0.8), (1.0, 3.5, -2.0)],
        (0, 1, 2),
    ),
    Case("arange_span", arange_span, [(0.3, 0.2), (-1.0, 0.35)], (0, 1)),
    Case("linspace_grid", linspace_grid, [(_uniform(31, 5),), (_uniform(32, 9),)], 0),
    # swapped buffers
    Case(
        "jacobi_smoothing",
        jacobi_smoothing,
        [(_uniform(33, 6), 0), (_uniform(33, 6), 1), (_uniform(34, 8), 4), (_uniform(35, 5), 7)],
        0,
    ),
    # writes into arguments
    Case("square_in_place", square_in_place, [(_uniform(36, 5),), (_uniform(37, 8),)], 0),
    Case(
        "in_place_2d",
        in_place_2d,
        [(_uniform(38, (3, 4)), 0.3), (_uniform(39, (4, 2)), -0.6)],
        (0, 1),
    ),
    Case("prefix_sum_in_place", prefix_sum_in_place, [(_uniform(40, 6),), (_uniform(41, 9),)], 0),
    Case("reverse_in_place", reverse_in_place, [(_uniform(42, 6),), (_uniform(43, 7),)], 0),
    # helpers
    Case(
        "helper_dot",
        helper_dot,
        [(_uniform(44, 5), _uniform(45, 5)), (_uniform(46, 3), _uniform(47, 3))],
        (0, 1),
    ),
    Case("helper_writes", helper_writes, [(_uniform(48, 5), 0.4), (_uniform(49, 7), -0.9)], (0, 1)),
    Case(
        "helper_returns_array",
        helper_returns_array,
        [(_uniform(50, (3, 4)), 0), (_uniform(50, (3, 4)), 3), (_uniform(51, (5, 2)), 6)],
        0,
    ),
    Case(
        "helper_writes_argument",
        helper_writes_argument,
        [(_uniform(52, (3, 4)), _uniform(53, 3)), (_uniform(54, (2, 2)), _uniform(55, 2))],
        (0, 1),
    ),
    # control flow over elements
    Case(
        "while_accumulate",
        while_accumulate,
        [(_uniform(56, 6), 4.5), (_uniform(57, 6), 100.0), (_uniform(58, 8), 11.0)],
        0,
    ),
    Case(
        "while_break",
        while_break,
        [(np.array([0.3, -0.2, 0.5, -0.9, 0.4]),), (_uniform(59, 6, -0.5, 1.0),)],
        0,
    ),
    Case(
        "skip_negative",
        skip_negative,
        [(np.array([0.4, -0.3, 0.9, 0.7, -0.2, 1.1]),), (_uniform(60, 7, -1.0, 0.8),)],
        0,
    ),
    Case(
        "first_crossing",
        first_crossing,
        [(_uniform(61, 6), 1.2), (_uniform(62, 5), 50.0)],
        (0, 1),
    ),
    Case(
        "branchy_elements",
        branchy_elements,
        [(_uniform(63, 8), _uniform(64, 8)), (_uniform(65, 6), _uniform(66, 6))],
        (0, 1),
    ),
    # inactive int and bool arrays, float32
    Case("gather_index", gather_index, [(_uniform(67, 6), _IDX1), (_uniform(68, 5), _IDX2)], 0),
    Case(
        "scatter_add",
        scatter_add,
        [(_uniform(69, 6), _SCATTER1, 4), (_uniform(70, 5), _SCATTER2, 6)],
        0,
    ),
    Case("masked_stats", masked_stats, [(_uniform(71, 7), _MASK1), (_uniform(72, 5), _MASK2)], 0),
    Case(
        "float32_energy",
        float32_energy,
        [
            (_uniform(73, 6).astype(np.float32), 0.8),
            (_uniform(74, 4, -2.0, 2.0).astype(np.float32), -1.1),
        ],
        (0, 1),
        rtol=1e-3,
        atol=1e-5,
    ),
    Case(
        "float32_matrix_in_place",
        float32_matrix_in_place,
        [(_uniform(75, (3, 3)).astype(np.float32),), (_uniform(76, (2, 4)).astype(np.float32),)],
        0,
        rtol=1e-3,
        atol=1e-5,
    ),
    # linear algebra with loops
    Case(
        "matvec_residual",
        matvec_residual,
        [
            (_uniform(77, (4, 3)), _uniform(78, 3), _uniform(79, 4)),
            (_uniform(80, (2, 5)), _uniform(81, 5), _uniform(82, 2)),
        ],
        (0, 1),
    ),
    Case(
        "matmul_frobenius",
        matmul_frobenius,
        [
            (_uniform(83, (3, 4)), _uniform(84, (4, 2))),
            (_uniform(85, (2, 2)), _uniform(86, (2, 3))),
        ],
        (0, 1),
    ),
    Case(
        "tridiagonal_solve",
        tridiagonal_solve,
        [
            (_uniform(87, 6, 2.5, 4.0), _uniform(88, 6)),
            (_uniform(89, 4, 3.0, 5.0), _uniform(90, 4)),
        ],
        (0, 1),
    ),
    Case("cholesky_logdet", cholesky_logdet, [(_uniform(91, (4, 3)),), (_uniform(92, (3, 5)),)], 0),
    Case(
        "insertion_sort_weighted",
        insertion_sort_weighted,
        [(_uniform(93, 6),), (_uniform(94, 9),), (np.array([0.1, 0.5, 0.9, 1.3]),)],
        0,
    ),
    Case(
        "horner_coeffs",
        horner_coeffs,
        [(_uniform(95, 5), 0.7), (_uniform(96, 8), -1.2)],
        (0, 1),
    ),
    # simulation kernels
    Case(
        "heat_equation",
        heat_equation,
        [(_uniform(97, 8), 0.2, 20), (_uniform(98, 12), 0.35, 30), (_uniform(99, 5), 0.4, 1)],
        (0, 1),
    ),
    Case(
        "wave_leapfrog",
        wave_leapfrog,
        [(_uniform(100, 10), 0.5, 25), (_uniform(101, 7), 0.8, 12), (_uniform(102, 6), 0.6, 2)],
        (0, 1),
    ),
    Case(
        "nbody_energy",
        nbody_energy,
        [(*_NB1, 0.02, 20), (*_NB2, 0.01, 30)],
        (0, 1, 2),
    ),
    Case(
        "nbody_final_norm",
        nbody_final_norm,
        [(*_NB1, 0.02, 15), (*_NB2, 0.03, 10)],
        (0, 1, 3),
    ),
    Case(
        "lotka_volterra_rk4",
        lotka_volterra_rk4,
        [
            (np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.4, 0.1]), 0.1, 30),
            (np.array([2.0, 1.2]), np.array([0.7, 0.3, 0.6, 0.2]), 0.05, 20),
        ],
        (0, 1, 2),
    ),
    Case(
        "damped_oscillator_rk4",
        damped_oscillator_rk4,
        [(np.array([1.0, 0.0]), 2.0, 0.1, 0.05, 30), (np.array([-0.5, 1.5]), 1.3, 0.4, 0.1, 20)],
        (0, 1, 2),
    ),
    Case("mlp_first_layer", mlp_loss, [_MLP1, _MLP2], (0, 1)),
    Case("mlp_second_layer", mlp_loss, [_MLP1, _MLP2], (2, 3)),
    Case("mlp_all_parameters", mlp_loss, [_MLP1, _MLP2], (0, 1, 2, 3)),
    Case("softmax_cross_entropy", softmax_cross_entropy, [_SM1, _SM2], (0, 1)),
    Case("gmm_log_likelihood", gmm_log_likelihood, [_GMM1, _GMM2], (0, 1, 2, 3)),
    Case("bundle_adjustment", bundle_adjustment, [_BA1, _BA2], (0, 1)),
]

"""Expert hand-written reverse-mode gradients of :mod:`kernels_more`, compiled with Numba.

Each ``*_grad`` returns ``(value, grad_0, grad_1, ...)``, one gradient per differentiated
argument (see ``ARGNUMS``). What each one knows about its kernel:

* ``lorenz``: stores the state at the start of every step (3 floats) and recomputes the
  four RK4 stages of that step in the reverse sweep; the right-hand side's adjoint is
  written out by hand.
* ``jacobi_2d``: the stencil is linear, so the reverse sweep needs no stored state: each
  half step scatters ``0.2 * adjoint`` of the interior to the five neighbours.
* ``gray_scott``: stores ``u`` and ``v`` at the start of every step; each reverse step
  applies the (symmetric) periodic Laplacian to the adjoints in one loop over the grid.
* ``mlp3``: textbook backpropagation with ``np.dot`` (BLAS), layer by layer.
* ``rk4_rd``: stores the state at every step and recomputes that step's four stages in the
  reverse sweep; the right-hand side's adjoint is written out by hand.
* ``gmm``: one pass over the samples; the softmax of each sample's component terms gives
  the adjoint of those terms, from which means and log standard deviations follow in
  closed form. O(k d) extra memory.

Run ``python benchmarks/handwritten_more.py`` to check every gradient against central
differences of the plain-Python kernels.
"""

import math
import sys
from pathlib import Path

import numba
import numpy as np

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import kernels_more  # noqa: E402
from handwritten_arrays import central_difference, relative_error  # noqa: E402

# ---------------------------------------------------------------------------- lorenz


@numba.njit(cache=True)
def _lorenz_rhs(x, y, z, sigma, rho, beta):
    return sigma * (y - x), x * (rho - z) - y, x * y - beta * z


@numba.njit(cache=True)
def _lorenz_rhs_adjoint(x, y, z, sigma, rho, beta, ga, gb, gc):
    """Adjoints of ``(x, y, z, sigma, rho, beta)`` given those of the three rates."""
    x_bar = -sigma * ga + (rho - z) * gb + y * gc
    y_bar = sigma * ga - gb + x * gc
    z_bar = -x * gb - beta * gc
    return x_bar, y_bar, z_bar, (y - x) * ga, x * gb, -z * gc


@numba.njit(cache=True)
def _lorenz_step(x, y, z, s, r, b, dt):
    a1, b1, c1 = _lorenz_rhs(x, y, z, s, r, b)
    a2, b2, c2 = _lorenz_rhs(x + 0.5 * dt * a1, y + 0.5 * dt * b1, z + 0.5 * dt * c1, s, r, b)
    a3, b3, c3 = _lorenz_rhs(x + 0.5 * dt * a2, y + 0.5 * dt * b2, z + 0.5 * dt * c2, s, r, b)
    a4, b4, c4 = _lorenz_rhs(x + dt * a3, y + dt * b3, z + dt * c3, s, r, b)
    return (
        x + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4),
        y + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4),
        z + dt / 6.0 * (c1 + 2.0 * c2 + 2.0 * c3 + c4),
    )


@numba.njit(cache=True)
def lorenz_primal(x, y, z, sigma, rho, beta, steps, dt):
    """Numba copy of :func:`kernels_more.lorenz`."""
    for _ in range(steps):
        x, y, z = _lorenz_step(x, y, z, sigma, rho, beta, dt)
    return x * x + y * y + z * z


@numba.njit(cache=True)
def _lorenz_step_adjoint(x, y, z, s, r, b, dt, bars, params_bar):
    """Reverse of one RK4 step from ``(x, y, z)``: ``bars`` (state adjoints) in place."""
    a1, b1, c1 = _lorenz_rhs(x, y, z, s, r, b)
    p2 = (x + 0.5 * dt * a1, y + 0.5 * dt * b1, z + 0.5 * dt * c1)
    a2, b2, c2 = _lorenz_rhs(p2[0], p2[1], p2[2], s, r, b)
    p3 = (x + 0.5 * dt * a2, y + 0.5 * dt * b2, z + 0.5 * dt * c2)
    a3, b3, c3 = _lorenz_rhs(p3[0], p3[1], p3[2], s, r, b)
    p4 = (x + dt * a3, y + dt * b3, z + dt * c3)
    w = dt / 6.0
    k4 = (w * bars[0], w * bars[1], w * bars[2])
    g = _lorenz_rhs_adjoint(p4[0], p4[1], p4[2], s, r, b, k4[0], k4[1], k4[2])
    params_bar[0] += g[3]
    params_bar[1] += g[4]
    params_bar[2] += g[5]
    k3 = (2.0 * k4[0] + dt * g[0], 2.0 * k4[1] + dt * g[1], 2.0 * k4[2] + dt * g[2])
    state_bar = (bars[0] + g[0], bars[1] + g[1], bars[2] + g[2])
    g = _lorenz_rhs_adjoint(p3[0], p3[1], p3[2], s, r, b, k3[0], k3[1], k3[2])
    params_bar[0] += g[3]
    params_bar[1] += g[4]
    params_bar[2] += g[5]
    h = 0.5 * dt
    k2 = (2.0 * k4[0] + h * g[0], 2.0 * k4[1] + h * g[1], 2.0 * k4[2] + h * g[2])
    state_bar = (state_bar[0] + g[0], state_bar[1] + g[1], state_bar[2] + g[2])
    g = _lorenz_rhs_adjoint(p2[0], p2[1], p2[2], s, r, b, k2[0], k2[1], k2[2])
    params_bar[0] += g[3]
    params_bar[1] += g[4]
    params_bar[2] += g[5]
    k1 = (k4[0] + 0.5 * dt * g[0], k4[1] + 0.5 * dt * g[1], k4[2] + 0.5 * dt * g[2])
    state_bar = (state_bar[0] + g[0], state_bar[1] + g[1], state_bar[2] + g[2])
    g = _lorenz_rhs_adjoint(x, y, z, s, r, b, k1[0], k1[1], k1[2])
    params_bar[0] += g[3]
    params_bar[1] += g[4]
    params_bar[2] += g[5]
    bars[0] = state_bar[0] + g[0]
    bars[1] = state_bar[1] + g[1]
    bars[2] = state_bar[2] + g[2]


@numba.njit(cache=True)
def lorenz_grad(x, y, z, sigma, rho, beta, steps, dt):
    """Value and gradient of ``lorenz`` w.r.t. the initial state and the three parameters."""
    states = np.empty((steps, 3))
    for t in range(steps):
        states[t, 0] = x
        states[t, 1] = y
        states[t, 2] = z
        x, y, z = _lorenz_step(x, y, z, sigma, rho, beta, dt)
    bars = np.array([2.0 * x, 2.0 * y, 2.0 * z])
    params_bar = np.zeros(3)
    for t in range(steps - 1, -1, -1):
        _lorenz_step_adjoint(
            states[t, 0], states[t, 1], states[t, 2], sigma, rho, beta, dt, bars, params_bar
        )
    value = x * x + y * y + z * z
    return value, bars[0], bars[1], bars[2], params_bar[0], params_bar[1], params_bar[2]


# ------------------------------------------------------------------------- jacobi_2d


@numba.njit(cache=True)
def _jacobi_sweep(src, dst):
    n, m = src.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            dst[i, j] = 0.2 * (
                src[i, j] + src[i, j - 1] + src[i, j + 1] + src[i + 1, j] + src[i - 1, j]
            )


@numba.njit(cache=True)
def _jacobi_sweep_adjoint(dst_bar, src_bar):
    n, m = dst_bar.shape
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            g = 0.2 * dst_bar[i, j]
            dst_bar[i, j] = 0.0
            src_bar[i, j] += g
            src_bar[i, j - 1] += g
            src_bar[i, j + 1] += g
            src_bar[i + 1, j] += g
            src_bar[i - 1, j] += g


@numba.njit(cache=True)
def jacobi_2d_primal(A0, steps):
    """Numba copy of :func:`kernels_more.jacobi_2d`, with element loops."""
    A = A0.copy()
    B = A0.copy()
    for _ in range(steps):
        _jacobi_sweep(A, B)
        _jacobi_sweep(B, A)
    return np.sum(A * A)


@numba.njit(cache=True)
def jacobi_2d_grad(A0, steps):
    """Value and gradient of ``jacobi_2d`` w.r.t. ``A0``; the map is linear, nothing stored."""
    A = A0.copy()
    B = A0.copy()
    for _ in range(steps):
        _jacobi_sweep(A, B)
        _jacobi_sweep(B, A)
    A_bar = 2.0 * A
    B_bar = np.zeros_like(A0)
    for _ in range(steps):
        _jacobi_sweep_adjoint(A_bar, B_bar)
        _jacobi_sweep_adjoint(B_bar, A_bar)
    return np.sum(A * A), A_bar + B_bar


# ------------------------------------------------------------------------ gray_scott

GS_DU, GS_DV, GS_DT = 0.16, 0.08, 1.0


@numba.njit(cache=True)
def _gray_scott_step(u, v, feed, kill, u_next, v_next):
    n, m = u.shape
    for i in range(n):
        for j in range(m):
            ip, im, jp, jm = (i + 1) % n, (i - 1) % n, (j + 1) % m, (j - 1) % m
            lu = u[im, j] + u[ip, j] + u[i, jm] + u[i, jp] - 4.0 * u[i, j]
            lv = v[im, j] + v[ip, j] + v[i, jm] + v[i, jp] - 4.0 * v[i, j]
            uvv = u[i, j] * v[i, j] * v[i, j]
            u_next[i, j] = u[i, j] + GS_DT * (GS_DU * lu - uvv + feed * (1.0 - u[i, j]))
            v_next[i, j] = v[i, j] + GS_DT * (GS_DV * lv + uvv - (feed + kill) * v[i, j])


@numba.njit(cache=True)
def gray_scott_primal(u0, v0, feed, kill, steps):
    """Numba copy of :func:`kernels_more.gray_scott`, with element loops."""
    u, v = u0.copy(), v0.copy()
    u_next, v_next = np.empty_like(u), np.empty_like(v)
    for _ in range(steps):
        _gray_scott_step(u, v, feed, kill, u_next, v_next)
        u, u_next = u_next, u
        v, v_next = v_next, v
    return np.sum(v * v)


@numba.njit(cache=True)
def _gray_scott_step_adjoint(u, v, feed, kill, ub, vb, ub_prev, vb_prev):
    """Adjoints of the step's inputs from those of its outputs; returns d/dfeed, d/dkill."""
    n, m = u.shape
    feed_bar, kill_bar = 0.0, 0.0
    for i in range(n):
        for j in range(m):
            ip, im, jp, jm = (i + 1) % n, (i - 1) % n, (j + 1) % m, (j - 1) % m
            lub = ub[im, j] + ub[ip, j] + ub[i, jm] + ub[i, jp] - 4.0 * ub[i, j]
            lvb = vb[im, j] + vb[ip, j] + vb[i, jm] + vb[i, jp] - 4.0 * vb[i, j]
            react = GS_DT * (vb[i, j] - ub[i, j])  # adjoint of u v^2
            ub_prev[i, j] = (
                ub[i, j] * (1.0 - GS_DT * feed) + GS_DT * GS_DU * lub + react * v[i, j] * v[i, j]
            )
            vb_prev[i, j] = (
                vb[i, j] * (1.0 - GS_DT * (feed + kill))
                + GS_DT * GS_DV * lvb
                + 2.0 * react * u[i, j] * v[i, j]
            )
            feed_bar += GS_DT * (ub[i, j] * (1.0 - u[i, j]) - vb[i, j] * v[i, j])
            kill_bar -= GS_DT * vb[i, j] * v[i, j]
    return feed_bar, kill_bar


@numba.njit(cache=True)
def gray_scott_grad(u0, v0, feed, kill, steps):
    """Value and gradient of ``gray_scott`` w.r.t. ``u0``, ``v0``, ``feed`` and ``kill``."""
    n, m = u0.shape
    us, vs = np.empty((steps + 1, n, m)), np.empty((steps + 1, n, m))
    us[0], vs[0] = u0, v0
    for s in range(steps):
        _gray_scott_step(us[s], vs[s], feed, kill, us[s + 1], vs[s + 1])
    value = np.sum(vs[steps] * vs[steps])
    ub, vb = np.zeros((n, m)), 2.0 * vs[steps]
    ub_prev, vb_prev = np.empty((n, m)), np.empty((n, m))
    feed_bar, kill_bar = 0.0, 0.0
    for s in range(steps - 1, -1, -1):
        df, dk = _gray_scott_step_adjoint(us[s], vs[s], feed, kill, ub, vb, ub_prev, vb_prev)
        feed_bar += df
        kill_bar += dk
        ub, ub_prev = ub_prev, ub
        vb, vb_prev = vb_prev, vb
    return value, ub, vb, feed_bar, kill_bar


# ------------------------------------------------------------------------------ mlp3


@numba.njit(cache=True)
def mlp3_primal(w1, b1, w2, b2, w3, b3, x, y):
    """Numba copy of :func:`kernels_more.mlp3`."""
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    r = h2 @ w3 + b3 - y
    return np.sum(r * r) / x.shape[0]


@numba.njit(cache=True)
def mlp3_grad(w1, b1, w2, b2, w3, b3, x, y):
    """Backpropagation through the three layers of ``mlp3``; BLAS for every product."""
    h1 = np.tanh(np.dot(x, w1) + b1)
    h2 = np.tanh(np.dot(h1, w2) + b2)
    r = np.dot(h2, w3) + b3 - y
    r_bar = (2.0 / x.shape[0]) * r
    z2_bar = np.dot(r_bar, w3.T) * (1.0 - h2 * h2)
    z1_bar = np.dot(z2_bar, w2.T) * (1.0 - h1 * h1)
    return (
        np.sum(r * r) / x.shape[0],
        np.dot(x.T, z1_bar),
        z1_bar.sum(axis=0),
        np.dot(h1.T, z2_bar),
        z2_bar.sum(axis=0),
        np.dot(h2.T, r_bar),
        r_bar.sum(axis=0),
    )


# ------------------------------------------------------------------------------- gmm


@numba.njit(cache=True)
def _log_sum_exp(v):
    m = np.max(v)
    return m + math.log(np.sum(np.exp(v - m)))


@numba.njit(cache=True)
def gmm_primal(alphas, means, log_sd, x, gamma, m_dof):
    """Numba copy of :func:`kernels_more.gmm`."""
    return gmm_grad(alphas, means, log_sd, x, gamma, m_dof)[0]


@numba.njit(cache=True)
def _gmm_sample(x_i, alphas, means, inv_sd, log_sd, z, terms):
    """Component terms of one sample into ``terms`` (scaled residuals into ``z``)."""
    k, d = means.shape
    for c in range(k):
        t = alphas[c]
        q = 0.0
        for j in range(d):
            zz = (x_i[j] - means[c, j]) * inv_sd[c, j]
            z[c, j] = zz
            q += zz * zz
            t -= log_sd[c, j]
        terms[c] = t - 0.5 * q


@numba.njit(cache=True)
def gmm_grad(alphas, means, log_sd, x, gamma, m_dof):
    """Value and gradient of ``gmm`` w.r.t. ``alphas``, ``means`` and ``log_sd``."""
    n, d = x.shape
    k = alphas.shape[0]
    inv_sd = np.exp(-log_sd)
    alphas_bar = n * np.exp(alphas - _log_sum_exp(alphas))
    means_bar = np.zeros_like(means)
    log_sd_bar = m_dof - gamma * gamma * inv_sd * inv_sd
    z = np.empty((k, d))
    terms = np.empty(k)
    total = 0.0
    for i in range(n):
        _gmm_sample(x[i], alphas, means, inv_sd, log_sd, z, terms)
        lse = _log_sum_exp(terms)
        total += lse
        for c in range(k):
            g = -math.exp(terms[c] - lse)
            alphas_bar[c] += g
            for j in range(d):
                means_bar[c, j] += g * z[c, j] * inv_sd[c, j]
                log_sd_bar[c, j] += g * (z[c, j] * z[c, j] - 1.0)
    prior = 0.5 * gamma * gamma * np.sum(inv_sd * inv_sd) + m_dof * np.sum(log_sd)
    constant = n * d * -0.5 * math.log(2.0 * math.pi)
    wishart = k * math.lgamma(0.5 * (m_dof + d + 1.0))
    value = -(constant + total - n * _log_sum_exp(alphas)) + prior - wishart
    return value, alphas_bar, means_bar, log_sd_bar


# ------------------------------------------------------------------------ registry

# ------------------------------------------------------------------------------ rk4_rd


@numba.njit(cache=True)
def _reaction_rhs(u, d, out):
    n = u.shape[0]
    for i in range(n):
        left = u[i - 1] if i > 0 else u[n - 1]
        right = u[i + 1] if i < n - 1 else u[0]
        out[i] = d * (left - 2.0 * u[i] + right) + u[i] * (1.0 - u[i])


@numba.njit(cache=True)
def _reaction_rhs_adjoint(u, d, g, u_bar):
    """``u_bar += J^T g`` of :func:`_reaction_rhs`; returns the ``d`` contribution."""
    n = u.shape[0]
    d_bar = 0.0
    for i in range(n):
        il = i - 1 if i > 0 else n - 1
        ir = i + 1 if i < n - 1 else 0
        d_bar += g[i] * (u[il] - 2.0 * u[i] + u[ir])
        u_bar[i] += g[i] * (1.0 - 2.0 * u[i] - 2.0 * d)
        u_bar[il] += g[i] * d
        u_bar[ir] += g[i] * d
    return d_bar


@numba.njit(cache=True)
def _rk4_rd_stages(u, d, dt, k1, k2, k3, k4, s2, s3, s4):
    _reaction_rhs(u, d, k1)
    s2[:] = u + 0.5 * dt * k1
    _reaction_rhs(s2, d, k2)
    s3[:] = u + 0.5 * dt * k2
    _reaction_rhs(s3, d, k3)
    s4[:] = u + dt * k3
    _reaction_rhs(s4, d, k4)


@numba.njit(cache=True)
def rk4_rd_primal(u0, d, dt, steps):
    """Numba copy of :func:`kernels_more.rk4_rd`."""
    n = u0.shape[0]
    u = u0.copy()
    k1, k2, k3, k4 = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    s2, s3, s4 = np.empty(n), np.empty(n), np.empty(n)
    for _ in range(steps):
        _rk4_rd_stages(u, d, dt, k1, k2, k3, k4, s2, s3, s4)
        u = u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u * u)


@numba.njit(cache=True)
def rk4_rd_grad(u0, d, dt, steps):
    """Stores the state at every step; the reverse sweep recomputes that step's stages and
    sends the adjoint through the right-hand side's hand adjoint, stage by stage."""
    n = u0.shape[0]
    us = np.empty((steps + 1, n))
    us[0] = u0
    k1, k2, k3, k4 = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    s2, s3, s4 = np.empty(n), np.empty(n), np.empty(n)
    for s in range(steps):
        _rk4_rd_stages(us[s], d, dt, k1, k2, k3, k4, s2, s3, s4)
        us[s + 1] = us[s] + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    value = np.sum(us[steps] * us[steps])
    ub = 2.0 * us[steps]
    d_bar = 0.0
    kb, sb = np.empty(n), np.zeros(n)
    for s in range(steps - 1, -1, -1):
        u = us[s]
        _rk4_rd_stages(u, d, dt, k1, k2, k3, k4, s2, s3, s4)
        new_ub = ub.copy()
        kb[:] = dt / 6.0 * ub  # k4's adjoint
        sb[:] = 0.0
        d_bar += _reaction_rhs_adjoint(s4, d, kb, sb)
        new_ub += sb
        kb[:] = dt / 3.0 * ub + dt * sb  # k3's
        sb[:] = 0.0
        d_bar += _reaction_rhs_adjoint(s3, d, kb, sb)
        new_ub += sb
        kb[:] = dt / 3.0 * ub + 0.5 * dt * sb  # k2's
        sb[:] = 0.0
        d_bar += _reaction_rhs_adjoint(s2, d, kb, sb)
        new_ub += sb
        kb[:] = dt / 6.0 * ub + 0.5 * dt * sb  # k1's
        d_bar += _reaction_rhs_adjoint(u, d, kb, new_ub)
        ub = new_ub
    return value, ub, d_bar


PRIMALS = {"lorenz": lorenz_primal, "jacobi_2d": jacobi_2d_primal, "mlp3": mlp3_primal}
PRIMALS["gmm"] = gmm_primal
PRIMALS["gray_scott"] = gray_scott_primal
PRIMALS["rk4_rd"] = rk4_rd_primal
GRADS = {"lorenz": lorenz_grad, "jacobi_2d": jacobi_2d_grad, "mlp3": mlp3_grad, "gmm": gmm_grad}
GRADS["gray_scott"] = gray_scott_grad
GRADS["rk4_rd"] = rk4_rd_grad
ARGNUMS = {"lorenz": (0, 1, 2, 3, 4, 5), "jacobi_2d": (0,), "mlp3": (0, 1, 2, 3, 4, 5)}
ARGNUMS["gmm"] = (0, 1, 2)
ARGNUMS["gray_scott"] = (0, 1, 2, 3)
ARGNUMS["rk4_rd"] = (0, 1)


def check_points():
    """Kernel name -> small argument tuples for the finite-difference self-check."""
    k = kernels_more
    return {
        "lorenz": [k.lorenz_args(50), k.lorenz_args(3, dt=0.05)],
        "jacobi_2d": [k.jacobi_2d_args(6, 3), k.jacobi_2d_args(4, 1, seed=1)],
        "mlp3": [k.mlp3_args(5, 3, 4, 2), k.mlp3_args(2, 2, 3, 1, seed=1)],
        "gmm": [k.gmm_args(7, 3, 2), k.gmm_args(4, 2, 3, seed=1)],
        "gray_scott": [k.gray_scott_args(8, 5), k.gray_scott_args(5, 2, seed=1)],
        "rk4_rd": [k.rk4_rd_args(9, 6), k.rk4_rd_args(5, 2, seed=1)],
    }


def self_check(rtol=1e-6):
    """Compare every hand gradient with central differences; return the number of failures."""
    failures = 0
    for name, points in check_points().items():
        kernel = getattr(kernels_more, name)
        for args in points:
            got = GRADS[name](*args)
            for position, argnum in enumerate(ARGNUMS[name]):
                want = central_difference(kernel, args, argnum)
                error = relative_error(got[1 + position], want)
                ok = error <= rtol
                failures += not ok
                print(f"{name:10s} arg {argnum}: rel.err {error:.2e} {'ok' if ok else '!!'}")
    return failures


if __name__ == "__main__":
    sys.exit(1 if self_check() else 0)

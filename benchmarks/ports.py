"""The benchmark kernels ported to JAX, autograd and PyTorch, for ``benchmarks/run.py``.

Each port is written once against a small :class:`Backend` (the array namespace, a
counted loop, zero padding, stacking, log-sum-exp) the way a user of those tools writes
it: whole-array operations instead of element loops, functional updates instead of
in-place writes, ``lax.fori_loop`` under JAX so that a time loop is not unrolled. Every
port computes the same number as its kernel in :mod:`kernels_arrays` or
:mod:`kernels_more`; ``run.py`` checks every gradient against the others before timing.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from kernels_arrays import SOFTENING2


@dataclass(frozen=True)
class Backend:
    """What a port needs from an array library."""

    name: str
    xp: Any  # exp, log, tanh, sqrt, sum
    asarray: Callable  # a NumPy constant -> this library's array
    fori: Callable  # fori(n, body, state): state = body(state), n times
    pad: Callable  # zero padding by one on every axis
    logsumexp: Callable  # logsumexp(v, axis)


def jax_backend():
    """JAX in float64 on the CPU; loops are ``lax.fori_loop``."""
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp

    jax.config.update("jax_enable_x64", True)

    def fori(n, body, state):
        return jax.lax.fori_loop(0, n, lambda _, s: body(s), state)

    return Backend("jax", jnp, jnp.asarray, fori, lambda a: jnp.pad(a, 1), logsumexp)


def _python_fori(n, body, state):
    for _ in range(n):
        state = body(state)
    return state


def _autograd_pad(a):
    import autograd.numpy as anp

    return anp.pad(a, 1, mode="constant")  # autograd's pad_vjp needs the mode spelled out


def autograd_backend():
    """autograd's wrapped NumPy; loops are Python loops."""
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    return Backend("autograd", anp, anp.asarray, _python_fori, _autograd_pad, logsumexp)


def torch_backend():
    """PyTorch eager mode in float64; loops are Python loops."""
    import torch

    def pad(a):
        return torch.nn.functional.pad(a, (1, 1) * a.dim())

    def logsumexp(v, axis):
        return torch.logsumexp(v, dim=axis)

    return Backend("torch", torch, torch.as_tensor, _python_fori, pad, logsumexp)


# ------------------------------------------------------------------------ helpers


def _edges(n):
    """1.0 at both ends of a length-``n`` vector, 0.0 inside."""
    mask = np.zeros(n)
    mask[0] = mask[-1] = 1.0
    return mask


def _border(n, m):
    """1.0 on the border of an ``n`` x ``m`` grid, 0.0 inside."""
    mask = np.ones((n, m))
    mask[1:-1, 1:-1] = 0.0
    return mask


def _laplacian(u):
    return u[:-2] - 2.0 * u[1:-1] + u[2:]


# -------------------------------------------------------------------------- ports


def heat(B, u0, alpha, steps):
    """:func:`kernels_arrays.heat`: interior update padded back, ends held by a mask."""
    edges = B.asarray(_edges(u0.shape[0]))

    def step(u):
        return B.pad(u[1:-1] + alpha * _laplacian(u)) + edges * u

    u = B.fori(steps, step, u0)
    return B.xp.sum(u * u)


def wave(B, u0, c, steps):
    """:func:`kernels_arrays.wave`: leapfrog on a ``(previous, current)`` pair."""
    edges = B.asarray(_edges(u0.shape[0]))
    r2 = c * c
    first = B.pad(u0[1:-1] + 0.5 * r2 * _laplacian(u0)) + edges * u0

    def step(state):
        u_prev, u = state
        return u, B.pad(2.0 * u[1:-1] - u_prev[1:-1] + r2 * _laplacian(u)) + edges * u

    u_prev, u = B.fori(steps, step, (u0, first))
    d = u - u_prev
    g = u[1:] - u[:-1]
    return B.xp.sum(d * d) + r2 * B.xp.sum(g * g)


def _pair_geometry(B, x):
    d = x[None, :, :] - x[:, None, :]  # d[i, j] = x_j - x_i
    return d, B.xp.sum(d * d, axis=2) + SOFTENING2


def nbody(B, pos, vel, masses, steps, dt):
    """:func:`kernels_arrays.nbody`: all pairs at once, velocity Verlet."""
    m = B.asarray(masses)
    mm = m[:, None] * m[None, :]
    upper = B.asarray(np.triu(np.ones((pos.shape[0],) * 2), 1))

    def forces(x):
        d, r2 = _pair_geometry(B, x)
        return B.xp.sum((mm / (r2 * B.xp.sqrt(r2)))[:, :, None] * d, axis=1)

    def step(state):
        x, v, f = state
        v = v + 0.5 * dt * f / m[:, None]
        x = x + dt * v
        f = forces(x)
        return x, v + 0.5 * dt * f / m[:, None], f

    x, v, _ = B.fori(steps, step, (pos, vel, forces(pos)))
    _, r2 = _pair_geometry(B, x)
    kinetic = 0.5 * B.xp.sum(m[:, None] * v * v)
    return kinetic - B.xp.sum(upper * mm / B.xp.sqrt(r2))


def mlp_loss(B, w1, b1, w2, b2, x, y):
    """:func:`kernels_arrays.mlp_loss` with matrix products."""
    h = B.xp.tanh(x @ w1.T + b1)
    r = h @ w2.T + b2 - y
    return B.xp.sum(r * r) / x.shape[0]


def lorenz(B, x, y, z, sigma, rho, beta, steps, dt):
    """:func:`kernels_more.lorenz` on scalars."""

    def rhs(p):
        return sigma * (p[1] - p[0]), p[0] * (rho - p[2]) - p[1], p[0] * p[1] - beta * p[2]

    def shifted(p, k, h):
        return tuple(a + h * b for a, b in zip(p, k))

    def step(p):
        k1 = rhs(p)
        k2 = rhs(shifted(p, k1, 0.5 * dt))
        k3 = rhs(shifted(p, k2, 0.5 * dt))
        k4 = rhs(shifted(p, k3, dt))
        return tuple(
            a + dt / 6.0 * (q + 2.0 * r + 2.0 * s + t) for a, q, r, s, t in zip(p, k1, k2, k3, k4)
        )

    x, y, z = B.fori(steps, step, (x, y, z))
    return x * x + y * y + z * z


def jacobi_2d(B, A0, steps):
    """:func:`kernels_more.jacobi_2d`: interior averages padded back, border held by a mask."""
    border = B.asarray(_border(*A0.shape))

    def average(a):
        return 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])

    def step(state):
        a, b = state
        b = B.pad(average(a)) + border * b
        return B.pad(average(b)) + border * a, b

    a, _ = B.fori(steps, step, (A0, A0))
    return B.xp.sum(a * a)


def gray_scott(B, u0, v0, feed, kill, steps):
    """:func:`kernels_more.gray_scott`, unchanged but for the counted loop."""
    du, dv, dt = 0.16, 0.08, 1.0
    roll = B.xp.roll

    def laplacian(a):
        return roll(a, 1, 0) + roll(a, -1, 0) + roll(a, 1, 1) + roll(a, -1, 1) - 4.0 * a

    def step(state):
        u, v = state
        uvv = u * v * v
        u_next = u + dt * (du * laplacian(u) - uvv + feed * (1.0 - u))
        return u_next, v + dt * (dv * laplacian(v) + uvv - (feed + kill) * v)

    _, v = B.fori(steps, step, (u0, v0))
    return B.xp.sum(v * v)


def rk4_rd(B, u0, d, dt, steps):
    """:func:`kernels_more.rk4_rd`, the periodic neighbours by ``roll``."""
    roll = B.xp.roll

    def rhs(u):
        return d * (roll(u, 1) - 2.0 * u + roll(u, -1)) + u * (1.0 - u)

    def step(u):
        k1 = rhs(u)
        k2 = rhs(u + 0.5 * dt * k1)
        k3 = rhs(u + 0.5 * dt * k2)
        k4 = rhs(u + dt * k3)
        return u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

    u = B.fori(steps, step, u0)
    return B.xp.sum(u * u)


def mlp3(B, w1, b1, w2, b2, w3, b3, x, y):
    """:func:`kernels_more.mlp3`, unchanged."""
    h1 = B.xp.tanh(x @ w1 + b1)
    h2 = B.xp.tanh(h1 @ w2 + b2)
    r = h2 @ w3 + b3 - y
    return B.xp.sum(r * r) / x.shape[0]


def gmm(B, alphas, means, log_sd, x, gamma, m_dof):
    """:func:`kernels_more.gmm` with the samples and components broadcast."""
    n, d = x.shape
    k = alphas.shape[0]
    z = (x[:, None, :] - means[None, :, :]) * B.xp.exp(-log_sd)[None, :, :]
    terms = alphas[None, :] - B.xp.sum(log_sd, axis=1)[None, :] - 0.5 * B.xp.sum(z * z, axis=2)
    total = B.xp.sum(B.logsumexp(terms, 1))
    prior = 0.5 * gamma * gamma * B.xp.sum(B.xp.exp(-2.0 * log_sd)) + m_dof * B.xp.sum(log_sd)
    constant = n * d * -0.5 * math.log(2.0 * math.pi)
    wishart = k * math.lgamma(0.5 * (m_dof + d + 1.0))
    return -(constant + total - n * B.logsumexp(alphas, 0)) + prior - wishart


def _cross_rows(B, a, b):
    """Row-wise cross products of two (m, 3) arrays."""
    return B.xp.stack(
        [
            a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
            a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
            a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0],
        ],
        1,
    )


def ba(B, cams, X, w, obs, feats):
    """:func:`kernels_ba.ba` over all observations at once; the zero-rotation branch is a
    ``where`` with a safe angle, so that neither branch's gradient is NaN."""
    cam = cams[obs[:, 0]]
    rot, y = cam[:, 0:3], X[obs[:, 1]] - cam[:, 3:6]
    sq = B.xp.sum(rot * rot, 1)
    rotated = sq != 0.0
    theta = B.xp.sqrt(B.xp.where(rotated, sq, 1.0))[:, None]
    axis = rot / theta
    dot = B.xp.sum(axis * y, 1)[:, None]
    turned = y * B.xp.cos(theta) + _cross_rows(B, axis, y) * B.xp.sin(theta)
    turned = turned + axis * dot * (1.0 - B.xp.cos(theta))
    z = B.xp.where(rotated[:, None], turned, y + _cross_rows(B, rot, y))
    p = z[:, 0:2] / z[:, 2:3]
    r = B.xp.sum(p * p, 1)[:, None]
    distortion = 1.0 + cam[:, 9:10] * r + cam[:, 10:11] * r * r
    err = (p * distortion * cam[:, 6:7] + cam[:, 7:9] - feats) * w[:, None]
    w_err = 1.0 - w * w
    return B.xp.sum(err * err) + B.xp.sum(w_err * w_err)


#: Kernel name -> port; its integer arguments are static under ``jax.jit``.
PORTS = {
    "heat": heat,
    "wave": wave,
    "nbody": nbody,
    "mlp_loss": mlp_loss,
    "lorenz": lorenz,
    "jacobi_2d": jacobi_2d,
    "mlp3": mlp3,
    "gmm": gmm,
    "gray_scott": gray_scott,
    "rk4_rd": rk4_rd,
    "ba": ba,
}

BACKENDS = {"jax": jax_backend, "autograd": autograd_backend, "torch": torch_backend}

"""More plain-Python benchmark kernels, written with NumPy as scientists write them.

Unlike :mod:`kernels_arrays` (element loops only), these use whole-array NumPy:
slices, ``@``, ``np.tanh``, ``np.exp``, a helper returning a tuple, ``math.lgamma``.

* :func:`lorenz`: RK4 of the Lorenz system on scalars, a helper for the right-hand side;
* :func:`jacobi_2d`: PolyBench's 2-D Jacobi stencil written with slices;
* :func:`gray_scott`: a periodic 2-D Gray-Scott reaction-diffusion written with ``np.roll``;
* :func:`mlp3`: a 3-layer tanh MLP with matrix products;
* :func:`gmm`: ADBench's Gaussian-mixture objective with diagonal covariances
  (log-sum-exp over components, a Wishart-style prior, ``math.lgamma``).
"""

import math

import numpy as np


def _lorenz_rhs(x, y, z, sigma, rho, beta):
    return sigma * (y - x), x * (rho - z) - y, x * y - beta * z


def lorenz(x, y, z, sigma, rho, beta, steps, dt):
    """RK4 of the Lorenz system from ``(x, y, z)``; returns ``x^2 + y^2 + z^2`` at the end."""
    for _ in range(steps):
        a1, b1, c1 = _lorenz_rhs(x, y, z, sigma, rho, beta)
        a2, b2, c2 = _lorenz_rhs(
            x + 0.5 * dt * a1, y + 0.5 * dt * b1, z + 0.5 * dt * c1, sigma, rho, beta
        )
        a3, b3, c3 = _lorenz_rhs(
            x + 0.5 * dt * a2, y + 0.5 * dt * b2, z + 0.5 * dt * c2, sigma, rho, beta
        )
        a4, b4, c4 = _lorenz_rhs(x + dt * a3, y + dt * b3, z + dt * c3, sigma, rho, beta)
        x = x + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        y = y + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
        z = z + dt / 6.0 * (c1 + 2.0 * c2 + 2.0 * c3 + c4)
    return x * x + y * y + z * z


def jacobi_2d(A0, steps):
    """PolyBench's jacobi-2d: two five-point averages per step; returns ``sum(A * A)``."""
    A = A0.copy()
    B = A0.copy()
    for _ in range(steps):
        B[1:-1, 1:-1] = 0.2 * (
            A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]
        )
        A[1:-1, 1:-1] = 0.2 * (
            B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]
        )
    return np.sum(A * A)


def gray_scott(u0, v0, feed, kill, steps):
    """Gray-Scott reaction-diffusion on a periodic grid, explicit Euler, five-point
    Laplacians by ``np.roll``; returns ``sum(v * v)`` at the end."""
    du, dv, dt = 0.16, 0.08, 1.0
    u = u0.copy()
    v = v0.copy()
    for _ in range(steps):
        lu = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4.0 * u
        lv = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4.0 * v
        uvv = u * v * v
        u = u + dt * (du * lu - uvv + feed * (1.0 - u))
        v = v + dt * (dv * lv + uvv - (feed + kill) * v)
    return np.sum(v * v)


def mlp3(w1, b1, w2, b2, w3, b3, x, y):
    """Mean squared error of a 3-layer tanh MLP on a batch ``x`` (samples, inputs)."""
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    r = h2 @ w3 + b3 - y
    return np.sum(r * r) / x.shape[0]


def _log_sum_exp(v):
    m = np.max(v)
    return m + math.log(np.sum(np.exp(v - m)))


def gmm(alphas, means, log_sd, x, gamma, m_dof):
    """Negative log-likelihood of ``x`` (n, d) under a diagonal Gaussian mixture, plus
    ADBench's Wishart-style prior on the precisions (constant terms included)."""
    n, d = x.shape
    k = alphas.shape[0]
    total = 0.0
    for i in range(n):
        terms = np.zeros(k)
        for c in range(k):
            z = (x[i] - means[c]) * np.exp(-log_sd[c])
            terms[c] = alphas[c] - np.sum(log_sd[c]) - 0.5 * np.sum(z * z)
        total += _log_sum_exp(terms)
    prior = 0.0
    for c in range(k):
        prior += 0.5 * gamma * gamma * np.sum(np.exp(-2.0 * log_sd[c])) + m_dof * np.sum(log_sd[c])
    constant = n * d * -0.5 * math.log(2.0 * math.pi)
    wishart = k * math.lgamma(0.5 * (m_dof + d + 1.0))
    return -(constant + total - n * _log_sum_exp(alphas)) + prior - wishart


# ------------------------------------------------------------------------ inputs


def reaction_rhs(u, d):
    """A periodic 1-D reaction-diffusion right-hand side, a new array of ``u``'s shape."""
    n = u.shape[0]
    out = np.empty(n)
    for i in range(n):
        left = u[i - 1] if i > 0 else u[n - 1]
        right = u[i + 1] if i < n - 1 else u[0]
        out[i] = d * (left - 2.0 * u[i] + right) + u[i] * (1.0 - u[i])
    return out


def rk4_rd(u0, d, dt, steps):
    """RK4 of the reaction-diffusion system, the right-hand side called four times per
    step (sourcediff outlines it); returns ``sum(u * u)`` at the end."""
    u = u0.copy()
    for _ in range(steps):
        k1 = reaction_rhs(u, d)
        k2 = reaction_rhs(u + 0.5 * dt * k1, d)
        k3 = reaction_rhs(u + 0.5 * dt * k2, d)
        k4 = reaction_rhs(u + dt * k3, d)
        u = u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(u * u)


def rk4_rd_args(n, steps, seed=8):
    """A smooth random profile, a stable step for the diffusion."""
    rng = np.random.default_rng(seed)
    return (0.5 + 0.2 * rng.uniform(-1.0, 1.0, n), 0.2, 0.1, steps)


def lorenz_args(steps, dt=0.01):
    """The classic chaotic parameters from a point near the attractor."""
    return (1.0, 1.0, 20.0, 10.0, 28.0, 8.0 / 3.0, steps, dt)


def jacobi_2d_args(n, steps, seed=4):
    """A random ``n`` x ``n`` grid."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(0.0, 1.0, (n, n)), steps)


def gray_scott_args(n, steps, seed=7):
    """A uniform state with a perturbed square in the middle, the classic start."""
    rng = np.random.default_rng(seed)
    u = np.ones((n, n))
    v = np.zeros((n, n))
    c, r = n // 2, max(1, n // 8)
    u[c - r : c + r, c - r : c + r] = 0.5
    v[c - r : c + r, c - r : c + r] = 0.25
    u += 0.02 * rng.uniform(-1.0, 1.0, (n, n))
    v += 0.02 * rng.uniform(-1.0, 1.0, (n, n))
    return (u, v, 0.035, 0.065, steps)


def mlp3_args(n_samples, n_in, n_hidden, n_out, seed=5):
    """Weights scaled by fan-in, standard normal inputs and targets."""
    rng = np.random.default_rng(seed)
    sizes = (n_in, n_hidden, n_hidden, n_out)
    weights = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        weights.append(rng.normal(0.0, 1.0 / math.sqrt(fan_in), (fan_in, fan_out)))
        weights.append(rng.normal(0.0, 0.1, fan_out))
    x = rng.normal(0.0, 1.0, (n_samples, n_in))
    y = rng.normal(0.0, 1.0, (n_samples, n_out))
    return (*weights, x, y)


def gmm_args(n, k, d, seed=6):
    """``n`` points from ``k`` well-separated clusters in ``d`` dimensions, random parameters."""
    rng = np.random.default_rng(seed)
    centers = 3.0 * rng.normal(size=(k, d))
    x = centers[rng.integers(0, k, n)] + 0.5 * rng.normal(size=(n, d))
    alphas = rng.normal(size=k)
    means = rng.normal(size=(k, d))
    log_sd = 0.2 * rng.normal(size=(k, d))
    return (alphas, means, log_sd, x, 1.0, 0.5)

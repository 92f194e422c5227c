"""Plain-Python array kernels used by the sourcediff array benchmarks.

Each kernel takes NumPy float64 arrays (plus floats and integer step counts) and
returns a float. They are written the way a scientist writes a first simulation:
explicit element loops, ``a[i]`` and ``a[i, j]`` reads and writes, local arrays from
``np.zeros``/``np.empty``/``.copy()``, buffers swapped with tuple assignment, a
helper that writes into an array, and :mod:`math` functions. No slices, no
whole-array arithmetic, no ``np.dot``. None of them modifies its arguments.
"""

import math

import numpy as np

#: Names of the benchmark kernels, in the order the benchmark reports them.
KERNELS = ("heat", "wave", "nbody", "mlp_loss")

#: Squared softening length of the gravity in :func:`nbody`.
SOFTENING2 = 0.01


def heat(u0, alpha, steps):
    """Explicit 1-D heat equation with fixed end values; returns the sum of squares.

    ``u[i] += alpha * (u[i-1] - 2 u[i] + u[i+1])`` on the interior, two buffers
    swapped every step. Stable for ``alpha <= 0.5``.
    """
    n = u0.shape[0]
    u = u0.copy()
    v = np.empty(n)
    for _ in range(steps):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u, v = v, u
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def wave(u0, c, steps):
    """Leapfrog for the 1-D wave equation ``u_tt = c^2 u_xx`` (grid units).

    The string starts at rest in shape ``u0``, its ends are held at their initial
    values, and three buffers are rotated every step. Returns an energy-like sum of
    the final state: ``sum (u - u_prev)^2 + c^2 sum (u[i+1] - u[i])^2``.
    Stable for ``|c| <= 1``.
    """
    n = u0.shape[0]
    r2 = c * c
    u_prev = u0.copy()
    u = u0.copy()
    u_next = np.empty(n)
    for i in range(1, n - 1):  # first step from rest
        u[i] = u0[i] + 0.5 * r2 * (u0[i - 1] - 2.0 * u0[i] + u0[i + 1])
    for _ in range(steps):
        u_next[0] = u[0]
        u_next[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            u_next[i] = 2.0 * u[i] - u_prev[i] + r2 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u_prev, u, u_next = u, u_next, u_prev
    s = 0.0
    for i in range(n):
        d = u[i] - u_prev[i]
        s += d * d
    for i in range(n - 1):
        g = u[i + 1] - u[i]
        s += r2 * g * g
    return s


def _forces(pos, masses, force):
    """Softened pairwise gravity on every body of ``pos`` (shape (N, 2)), written into ``force``."""
    n = pos.shape[0]
    for i in range(n):
        force[i, 0] = 0.0
        force[i, 1] = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + SOFTENING2
            f = masses[i] * masses[j] / (r2 * math.sqrt(r2))
            force[i, 0] += f * dx
            force[i, 1] += f * dy
            force[j, 0] -= f * dx
            force[j, 1] -= f * dy


def nbody(pos, vel, masses, steps, dt):
    """2-D softened N-body, velocity Verlet; returns the final kinetic + potential energy."""
    n = pos.shape[0]
    x = pos.copy()
    v = vel.copy()
    force = np.zeros((n, 2))
    _forces(x, masses, force)
    for _ in range(steps):
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
                x[i, d] += dt * v[i, d]
        _forces(x, masses, force)
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
    energy = 0.0
    for i in range(n):
        energy += 0.5 * masses[i] * (v[i, 0] * v[i, 0] + v[i, 1] * v[i, 1])
        for j in range(i + 1, n):
            dx = x[j, 0] - x[i, 0]
            dy = x[j, 1] - x[i, 1]
            energy -= masses[i] * masses[j] / math.sqrt(dx * dx + dy * dy + SOFTENING2)
    return energy


def mlp_loss(w1, b1, w2, b2, x, y):
    """Mean over samples of the squared error of a tanh MLP with one hidden layer.

    ``w1`` is (hidden, in), ``b1`` (hidden,), ``w2`` (out, hidden), ``b2`` (out,),
    ``x`` (samples, in) and ``y`` (samples, out).
    """
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


# ------------------------------------------------------------------------ inputs


def heat_args(n, steps, seed=0):
    """A smooth random initial temperature on ``n`` points, ``alpha = 0.4``."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, n)
    u0 = np.sin(math.pi * t) + 0.3 * rng.uniform(-1.0, 1.0, n)
    return (u0, 0.4, steps)


def wave_args(n, steps, seed=1):
    """A pluck plus noise on ``n`` points, ``c = 0.7``."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, n)
    u0 = np.exp(-80.0 * (t - 0.3) ** 2) + 0.05 * rng.uniform(-1.0, 1.0, n)
    return (u0, 0.7, steps)


def nbody_args(n_bodies, steps, seed=2, dt=1e-3):
    """Bodies on a jittered ring, roughly in orbit about their centre."""
    rng = np.random.default_rng(seed)
    angles = 2.0 * math.pi * np.arange(n_bodies) / n_bodies + rng.uniform(-0.1, 0.1, n_bodies)
    radii = rng.uniform(0.8, 1.2, n_bodies)
    pos = np.empty((n_bodies, 2))
    vel = np.empty((n_bodies, 2))
    pos[:, 0] = radii * np.cos(angles)
    pos[:, 1] = radii * np.sin(angles)
    speed = 0.5 * math.sqrt(n_bodies)
    vel[:, 0] = -speed * np.sin(angles) + 0.1 * rng.normal(size=n_bodies)
    vel[:, 1] = speed * np.cos(angles) + 0.1 * rng.normal(size=n_bodies)
    masses = rng.uniform(0.5, 1.5, n_bodies)
    return (pos, vel, masses, steps, dt)


def mlp_args(n_samples, n_in, n_hidden, n_out, seed=3):
    """Random weights scaled by fan-in, standard normal inputs and targets."""
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0.0, 1.0 / math.sqrt(n_in), (n_hidden, n_in))
    b1 = rng.normal(0.0, 0.1, n_hidden)
    w2 = rng.normal(0.0, 1.0 / math.sqrt(n_hidden), (n_out, n_hidden))
    b2 = rng.normal(0.0, 0.1, n_out)
    x = rng.normal(0.0, 1.0, (n_samples, n_in))
    y = rng.normal(0.0, 1.0, (n_samples, n_out))
    return (w1, b1, w2, b2, x, y)

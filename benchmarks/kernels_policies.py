"""Plain-Python kernel of the store-or-recompute benchmark (``bench_policies.py``).

``heat`` runs many cheap time steps over two swapped buffers, so what a reverse
sweep has to keep grows with ``n * steps``: the case where the ``policy=`` of a
reverse transformation matters.
"""

import numpy as np

#: Diffusion number of the benchmark inputs (the scheme is stable for ``alpha <= 0.5``).
ALPHA = 0.25


def heat(u0, alpha, steps):
    """Explicit 1-D heat equation with fixed ends, two swapped buffers; sum of squares."""
    n = u0.shape[0]
    u = u0.copy()
    v = np.zeros(n)
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return np.sum(u * u)


def heat_args(n, steps, seed=0):
    """``(u0, alpha, steps)``: a smooth profile plus noise, fixed seed."""
    x = np.linspace(0.0, 1.0, n)
    noise = np.random.default_rng(seed).standard_normal(n)
    u0 = np.sin(np.pi * x) + 0.1 * noise
    return u0, ALPHA, int(steps)

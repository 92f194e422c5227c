"""Explicit heat equation with swapped buffers: the gradient of the final energy with
respect to the initial temperature and the diffusivity.

Run ``python examples/heat.py``, or see the generated adjoint with
``python -m sourcediff show examples/heat.py:simulate --wrt u0,alpha``.
"""

import numpy as np

import sourcediff as sd


def step(u, v, alpha):
    n = u.shape[0]
    for i in range(1, n - 1):
        v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    v[0] = u[0]
    v[n - 1] = u[n - 1]


def simulate(u0, alpha, steps):
    u = u0.copy()
    v = np.zeros_like(u0)
    for _ in range(steps):
        step(u, v, alpha)
        u, v = v, u
    return np.sum(u * u)


if __name__ == "__main__":
    u0 = np.sin(np.linspace(0.0, np.pi, 200))
    du0, dalpha = sd.grad(simulate, argnums=(0, 1))(u0, 0.2, 500)
    print(f"energy = {sd.jit(simulate)(u0, 0.2, 500):.6f}")
    print(f"d energy / d alpha = {dalpha:.6f}; |d energy / d u0| = {np.linalg.norm(du0):.6f}")
    sd.check_grad(simulate, u0[:20], 0.2, 50, argnums=(0, 1))
    print("check_grad against central finite differences: ok")

"""Explicit heat equation: the gradient of the final energy with respect to the
initial temperature and the diffusivity.

Run ``python examples/heat.py``, or see the generated adjoints with
``python -m sourcediff show examples/heat.py:simulate --wrt u0,alpha`` and
``python -m sourcediff show examples/heat.py:step --mode reverse --wrt x``.
"""

import numpy as np

import sourcediff as sd


def step(x, alpha):
    """One explicit step: each interior point moves toward its neighbours; the ends stay."""
    n = x.shape[0]
    y = x.copy()
    for i in range(1, n - 1):
        y[i] = x[i] + alpha * (x[i - 1] - 2.0 * x[i] + x[i + 1])
    return y


def simulate(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u = step(u, alpha)
    return np.sum(u * u)


if __name__ == "__main__":
    u0 = np.sin(np.linspace(0.0, np.pi, 200))
    du0, dalpha = sd.grad(simulate, argnums=(0, 1))(u0, 0.2, 500)
    print(f"energy = {sd.jit(simulate)(u0, 0.2, 500):.6f}")
    print(f"d energy / d alpha = {dalpha:.6f}; |d energy / d u0| = {np.linalg.norm(du0):.6f}")
    sd.check_grad(simulate, u0[:20], 0.2, 50, argnums=(0, 1))
    print("check_grad against central finite differences: ok")

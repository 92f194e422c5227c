"""Inverse heat problem: recover an initial temperature profile from the final one.

The forward model is an explicit heat equation; the misfit between its final state
and a measured one (plus a small smoothness penalty) is minimized over the initial
profile with SciPy's L-BFGS-B, its gradient from ``sd.value_and_grad``.

    python examples/inverse_heat.py     # prints the fit; a PNG too if matplotlib is installed
"""

import numpy as np
from scipy.optimize import minimize

import sourcediff as sd


def final_state(u0, alpha, steps):
    u = u0.copy()
    v = np.zeros_like(u0)
    n = u0.shape[0]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return u


def misfit(u0, measured, alpha, steps, smoothing):
    u = final_state(u0, alpha, steps)
    r = u - measured
    d = u0[1:] - u0[:-1]
    return 0.5 * np.sum(r * r) + 0.5 * smoothing * np.sum(d * d)


def solve(n=60, alpha=0.25, steps=40, smoothing=1e-4):
    """The true profile, the recovered one, and SciPy's result."""
    x = np.linspace(0.0, 1.0, n)
    truth = np.exp(-80.0 * (x - 0.35) ** 2) + 0.5 * np.exp(-120.0 * (x - 0.7) ** 2)
    measured = sd.jit(final_state)(truth, alpha, steps)
    objective = sd.value_and_grad(misfit)  # (value, d misfit / d u0): what jac=True expects
    result = minimize(
        objective,
        np.zeros(n),
        args=(measured, alpha, steps, smoothing),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 500},
    )
    return x, truth, result


def main():
    x, truth, result = solve()
    error = np.max(np.abs(result.x - truth))
    print(f"L-BFGS-B: {result.nit} iterations, misfit {result.fun:.3e}, max error {error:.3f}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    plt.plot(x, truth, label="true initial profile")
    plt.plot(x, result.x, "--", label="recovered")
    plt.legend()
    plt.savefig("inverse_heat.png", dpi=100)
    print("wrote inverse_heat.png")


if __name__ == "__main__":
    main()

"""Parameter estimation of an ODE: Lotka-Volterra, integrated with RK4, fitted to noisy
observations with SciPy's least_squares and the Jacobian from ``sd.jacobian``.

    python examples/lotka_volterra_fit.py
"""

import numpy as np
from scipy.optimize import least_squares

import sourcediff as sd


def rhs(y, theta):
    a, b, c, d = theta[0], theta[1], theta[2], theta[3]
    return np.array([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])


def trajectory(theta, y0, dt, steps):
    """The populations after each of ``steps`` RK4 steps, flattened."""
    out = np.zeros(2 * steps)
    y = y0.copy()
    for k in range(steps):
        k1 = rhs(y, theta)
        k2 = rhs(y + 0.5 * dt * k1, theta)
        k3 = rhs(y + 0.5 * dt * k2, theta)
        k4 = rhs(y + dt * k3, theta)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        out[2 * k] = y[0]
        out[2 * k + 1] = y[1]
    return out


def fit(steps=60, dt=0.1, seed=0):
    """True parameters, the estimate, and SciPy's result."""
    truth = np.array([1.0, 0.4, 0.8, 0.2])
    y0 = np.array([2.0, 1.5])
    observed = sd.jit(trajectory)(truth, y0, dt, steps)
    observed = observed + 0.01 * np.random.default_rng(seed).standard_normal(observed.shape)
    model = sd.jit(trajectory)
    jac = sd.jacobian(trajectory)  # 120 outputs, 4 inputs: forward mode, one compiled call

    result = least_squares(
        lambda th: model(th, y0, dt, steps) - observed,
        np.array([0.9, 0.45, 0.7, 0.25]),
        jac=lambda th: jac(th, y0, dt, steps),
        method="lm",
    )
    return truth, result


def main():
    truth, result = fit()
    print("true parameters:     ", np.round(truth, 4))
    print("estimated parameters:", np.round(result.x, 4), f"({result.nfev} evaluations)")


if __name__ == "__main__":
    main()

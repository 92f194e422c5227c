"""Plain-Python scalar loop kernels used by the sourcediff benchmarks.

Each kernel takes two float arguments (the ones that are differentiated) and an
integer step count ``n``. They use only floats, ints and the :mod:`math` module,
the way a scientist would write a small simulation before thinking about speed.
"""

import math

#: Names of the benchmark kernels, in the order the benchmark reports them.
KERNELS = ("series", "logistic_ode", "pendulum")


def helper(x, y):
    """Smooth helper called from the ``else`` branch of :func:`series`."""
    return x * y + math.cos(y)


def series(x, y, n):
    """Accumulate a trigonometric series that is damped whenever it exceeds 3.

    The branch taken at each step depends on the running sum, so the reverse
    sweep has to know which branch was taken at every iteration.
    """
    s = 0.0
    for i in range(n):
        if s < 3.0:
            s += math.sin(x * i) * y
        else:
            s = s * 0.5 + helper(x, y)
    return s


def logistic_ode(k, y0, n):
    """Explicit Euler for ``dy/dt = k*y*(1-y)`` with ``dt = 1e-3``; returns ``y(n*dt)**2``."""
    dt = 1e-3
    y = y0
    for _ in range(n):
        y = y + dt * k * y * (1.0 - y)
    return y * y


def pendulum(theta0, omega0, n):
    """Symplectic Euler for a damped pendulum; returns the final energy per unit mass.

    ``omega' = -g*sin(theta) - c*omega`` and ``theta' = omega`` with ``dt = 1e-3``,
    ``g = 9.81`` and ``c = 0.1``.
    """
    dt = 1e-3
    g = 9.81
    c = 0.1
    theta = theta0
    omega = omega0
    for _ in range(n):
        omega -= dt * (g * math.sin(theta) + c * omega)
        theta += dt * omega
    return 0.5 * omega * omega + g * (1.0 - math.cos(theta))

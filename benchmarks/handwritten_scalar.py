"""Expert hand-written reverse-mode gradients of the scalar kernels, compiled with Numba.

These are the baseline that ``sourcediff`` is measured against. Each ``*_grad``
function returns ``(value, d_arg0, d_arg1)`` and follows the classic recipe: a
forward sweep that stores exactly what the reverse sweep needs in arrays
allocated once before the loop, then a reverse loop over those arrays. The
storage choices were picked by timing the alternatives:

* ``series``: the branch decision (int8) and ``sin(x*i)`` of the taken branch,
  which the forward sweep computes anyway; the reverse sweep computes only
  ``cos(x*i)``. The running sum itself is never needed (every step is linear in
  it), and the ``else`` branch only contributes a scaled sum of adjoints.
* ``logistic_ode``: the state before each step (the step is nonlinear in it).
* ``pendulum``: the angle before each step; ``cos(theta)`` is recomputed in the
  reverse loop, which is slightly faster than storing it from the forward sweep.

The ``*_primal`` functions are plain ``numba.njit`` versions of the kernels in
:mod:`kernels_scalar`, for the primal-time column when ``sd.jit`` is unavailable.

Run ``python benchmarks/handwritten_scalar.py`` to check every gradient against
central finite differences of the plain-Python kernels.
"""

import math

import numba
import numpy as np

_DT = 1e-3  # time step of logistic_ode and pendulum
_G = 9.81  # gravity of pendulum
_C = 0.1  # damping of pendulum


# --------------------------------------------------------------------------- series


@numba.njit(cache=True)
def _helper(x, y):
    """Numba copy of :func:`kernels_scalar.helper`."""
    return x * y + math.cos(y)


@numba.njit(cache=True)
def series_primal(x, y, n):
    """Numba copy of :func:`kernels_scalar.series`."""
    s = 0.0
    for i in range(n):
        if s < 3.0:
            s += math.sin(x * i) * y
        else:
            s = s * 0.5 + _helper(x, y)
    return s


@numba.njit(cache=True)
def series_grad(x, y, n):
    """Value and gradient of ``series`` with respect to ``x`` and ``y``."""
    taken = np.empty(n, np.int8)  # 1 where the ``if`` branch was taken
    sines = np.empty(n)  # sin(x*i) on ``if`` steps, unused otherwise
    h = _helper(x, y)  # loop invariant
    s = 0.0
    for i in range(n):
        if s < 3.0:
            taken[i] = 1
            sin_xi = math.sin(x * i)
            sines[i] = sin_xi
            s += sin_xi * y
        else:
            taken[i] = 0
            s = s * 0.5 + h

    s_bar = 1.0
    x_bar = 0.0  # without the final factor y
    y_bar = 0.0
    h_bar = 0.0  # adjoint of helper(x, y), summed over the ``else`` steps
    for i in range(n - 1, -1, -1):
        if taken[i]:
            x_bar += s_bar * i * math.cos(x * i)
            y_bar += s_bar * sines[i]
        else:
            h_bar += s_bar
            s_bar *= 0.5
    # d helper / dx = y,  d helper / dy = x - sin(y)
    return s, (x_bar + h_bar) * y, y_bar + h_bar * (x - math.sin(y))


# --------------------------------------------------------------------- logistic_ode


@numba.njit(cache=True)
def logistic_ode_primal(k, y0, n):
    """Numba copy of :func:`kernels_scalar.logistic_ode`."""
    dt = _DT
    y = y0
    for _ in range(n):
        y = y + dt * k * y * (1.0 - y)
    return y * y


@numba.njit(cache=True)
def logistic_ode_grad(k, y0, n):
    """Value and gradient of ``logistic_ode`` with respect to ``k`` and ``y0``."""
    dt = _DT
    states = np.empty(n)  # y before each step
    y = y0
    for i in range(n):
        states[i] = y
        y = y + dt * k * y * (1.0 - y)

    y_bar = 2.0 * y
    k_bar = 0.0  # without the final factor dt
    dtk = dt * k
    for i in range(n - 1, -1, -1):
        yi = states[i]
        k_bar += y_bar * yi * (1.0 - yi)
        y_bar *= 1.0 + dtk * (1.0 - 2.0 * yi)
    return y * y, dt * k_bar, y_bar


# ------------------------------------------------------------------------- pendulum


@numba.njit(cache=True)
def pendulum_primal(theta0, omega0, n):
    """Numba copy of :func:`kernels_scalar.pendulum`."""
    dt = _DT
    g = _G
    c = _C
    theta = theta0
    omega = omega0
    for _ in range(n):
        omega -= dt * (g * math.sin(theta) + c * omega)
        theta += dt * omega
    return 0.5 * omega * omega + g * (1.0 - math.cos(theta))


@numba.njit(cache=True)
def pendulum_grad(theta0, omega0, n):
    """Value and gradient of ``pendulum`` with respect to ``theta0`` and ``omega0``."""
    dt = _DT
    g = _G
    c = _C
    angles = np.empty(n)  # theta before each step
    theta = theta0
    omega = omega0
    for i in range(n):
        angles[i] = theta
        omega -= dt * (g * math.sin(theta) + c * omega)
        theta += dt * omega
    energy = 0.5 * omega * omega + g * (1.0 - math.cos(theta))

    theta_bar = g * math.sin(theta)
    omega_bar = omega
    damping = 1.0 - dt * c
    dtg = dt * g
    for i in range(n - 1, -1, -1):
        omega_bar += dt * theta_bar  # theta += dt * omega
        theta_bar -= dtg * omega_bar * math.cos(angles[i])  # omega -= dt * (g sin(theta) ...
        omega_bar *= damping  # ... + c * omega)
    return energy, theta_bar, omega_bar


#: Kernel name -> njit'd primal.
PRIMALS = {
    "series": series_primal,
    "logistic_ode": logistic_ode_primal,
    "pendulum": pendulum_primal,
}

#: Kernel name -> hand-written gradient returning ``(value, d_arg0, d_arg1)``.
GRADS = {
    "series": series_grad,
    "logistic_ode": logistic_ode_grad,
    "pendulum": pendulum_grad,
}

#: Kernel name -> points ``(arg0, arg1, n)`` for the finite-difference self-check.
#: The ``series`` points take both branches, and none sits close to a branch switch.
CHECK_POINTS = {
    "series": [(0.3, 1.2, 1000), (0.05, 2.0, 1000), (0.7, 2.5, 1000)],
    "logistic_ode": [(0.3, 0.1, 10000), (-0.5, 0.7, 10000), (2.0, 0.01, 2000)],
    "pendulum": [(1.0, 0.5, 10000), (-2.5, 1.0, 10000), (0.2, -3.0, 5000)],
}

#: Kernel name -> relative finite-difference step. ``series`` oscillates fast in ``x``
#: (its derivatives grow like powers of n), so it needs a smaller step than the
#: smooth ODEs, whose accumulated rounding noise needs a larger one.
CHECK_STEPS = {"series": 1e-7, "logistic_ode": 1e-5, "pendulum": 1e-5}


def central_difference(f, args, argnum, rel_step):
    """Central finite difference of ``f(*args)`` with respect to ``args[argnum]``."""
    h = rel_step * max(1.0, abs(args[argnum]))
    plus = list(args)
    minus = list(args)
    plus[argnum] += h
    minus[argnum] -= h
    return (f(*plus) - f(*minus)) / (2.0 * h)


def self_check(rtol=1e-6):
    """Check primal values and gradients against the plain-Python kernels.

    Raises ``AssertionError`` on the first mismatch beyond ``rtol``.
    """
    import kernels_scalar

    for name, points in CHECK_POINTS.items():
        kernel = getattr(kernels_scalar, name)
        for args in points:
            value = kernel(*args)
            hand_value, *hand_grad = GRADS[name](*args)
            assert PRIMALS[name](*args) == value, (name, args, "primal")
            assert abs(hand_value - value) <= 1e-12 * abs(value), (name, args, "value")
            for argnum in (0, 1):
                fd = central_difference(kernel, args, argnum, CHECK_STEPS[name])
                err = abs(hand_grad[argnum] - fd) / abs(fd)
                print(
                    f"{name:13s} {str(args):24s} d/darg{argnum} "
                    f"hand={hand_grad[argnum]: .12e} fd={fd: .12e} rel.err={err:.1e}"
                )
                assert err <= rtol, (name, args, argnum, err)
    print("all hand-written gradients agree with central differences")


if __name__ == "__main__":
    self_check()

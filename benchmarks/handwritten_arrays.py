"""Expert hand-written reverse-mode gradients of the array kernels, compiled with Numba.

These are the baseline that ``sourcediff`` is measured against on arrays. Each
``*_grad`` function returns ``(value, grad_0, grad_1, ...)`` with one gradient per
differentiated argument, shaped like that argument. Each one uses what an expert
would know about its kernel, and stores only what its reverse sweep needs:

* ``heat``: every step is the same linear map ``A = I + alpha*L`` (``L`` the
  discrete Laplacian on the interior, zero rows at the fixed ends), so the adjoint
  of ``u0`` is ``(A^T)^steps`` applied to ``2*u_final`` and needs no stored state.
  ``A`` is a polynomial in ``L``, so the two commute and
  ``d A^m / d alpha = m L A^(m-1)``: the derivative in ``alpha`` needs only the
  state before the last step, which the primal's second buffer holds anyway.
  Cost: one primal sweep plus one adjoint sweep, O(n) memory. ``heat_grad_store``
  is what a tape-based tool stores, by hand: every state in one (steps+1, n) array,
  read back by the reverse sweep (the fair bar for a general AD tool).
* ``wave``: the adjoint of leapfrog is again a leapfrog on the adjoint fields,
  needing no state; the derivative in ``c`` needs ``L u_k`` at every step.
  ``wave_grad`` has the forward sweep write every state straight into one
  (steps+2, n) array (no buffer rotation) and reads it back in the reverse
  sweep. Leapfrog is exactly time-reversible, so ``wave_grad_rebuild`` instead
  rebuilds ``u_k`` backwards from the last two states
  (``u_(k-1) = 2 u_k - u_(k+1) + c^2 L u_k``, neutrally stable for ``|c| <= 1``),
  as adjoint-state seismic codes do: O(n) memory, but about 30% slower here
  (n=200, 500 steps), so storing is the baseline.
* ``nbody``: the forward sweep stores the positions at every force evaluation
  ((steps+1) x N x 2); the reverse sweep recomputes the pair geometry (one
  ``sqrt`` per pair, the same work as the forward forces) and applies the
  transposed force Jacobian. The two half kicks that meet between steps are
  merged into one force adjoint, and the final potential's gradient is minus the
  final forces, which the primal has already computed. ``nbody_grad_pairs``
  also stores ``f`` and ``3 f / r^2`` of every pair in the forward sweep, so that
  the reverse needs no ``sqrt``; it is about 35% slower (N=16, 200 steps).
* ``mlp_loss``: samples are independent, so the forward and reverse sweeps of
  each sample are fused; only that sample's hidden layer is kept.

The ``*_primal`` functions are ``numba.njit`` copies of the kernels in
:mod:`kernels_arrays`, for the primal-time column when ``sd.jit`` is unavailable.

Run ``python benchmarks/handwritten_arrays.py`` to check every gradient against
central finite differences of the plain-Python kernels (add ``--time`` to also
time the alternative storage strategies).
"""

import math
import sys
from pathlib import Path

import numba
import numpy as np

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from kernels_arrays import SOFTENING2  # noqa: E402

# ----------------------------------------------------------------------------- heat


@numba.njit(cache=True)
def heat_primal(u0, alpha, steps):
    """Numba copy of :func:`kernels_arrays.heat`."""
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


@numba.njit(cache=True)
def heat_grad(u0, alpha, steps):
    """Value and gradient of ``heat`` with respect to ``u0`` and ``alpha``."""
    n = u0.shape[0]
    u = u0.copy()
    v = np.empty(n)
    for _ in range(steps):
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u, v = v, u
    # u is the final state; v the state before the last step (if steps > 0).
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]

    # d s / d alpha = steps * <2 u_final, L u_(steps-1)>
    alpha_bar = 0.0
    if steps > 0:
        for i in range(1, n - 1):
            alpha_bar += u[i] * (v[i - 1] - 2.0 * v[i] + v[i + 1])
        alpha_bar *= 2.0 * steps

    # Adjoint sweep: y <- A^T y, steps times. The interior adjoint lives in y with
    # zero end entries; what the ends receive is summed into two scalars.
    y = np.empty(n)
    w = np.empty(n)
    y[0] = 0.0
    y[n - 1] = 0.0
    w[0] = 0.0
    w[n - 1] = 0.0
    for i in range(1, n - 1):
        y[i] = 2.0 * u[i]
    left = 2.0 * u[0]
    right = 2.0 * u[n - 1]
    centre = 1.0 - 2.0 * alpha
    for _ in range(steps):
        left += alpha * y[1]
        right += alpha * y[n - 2]
        for i in range(1, n - 1):
            w[i] = centre * y[i] + alpha * (y[i - 1] + y[i + 1])
        y, w = w, y
    y[0] = left
    y[n - 1] = right
    return s, y, alpha_bar


@numba.njit(cache=True)
def heat_grad_store(u0, alpha, steps):
    """:func:`heat_grad` as a tape-based tool would do it, written by an expert: the
    forward sweep writes every state into one (steps+1, n) array and the reverse sweep
    reads it back, applying ``A^T`` and summing ``y . L u_k`` for ``alpha``. It uses
    nothing specific to this kernel (no commuting of ``A`` and ``L``)."""
    n = u0.shape[0]
    states = np.empty((steps + 1, n))
    states[0] = u0
    for k in range(steps):
        u = states[k]
        v = states[k + 1]
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    final = states[steps]
    s = 0.0
    for i in range(n):
        s += final[i] * final[i]
    y = 2.0 * final
    if n < 3:  # no interior: every step copies the state
        return s, y, 0.0
    w = np.empty(n)
    centre = 1.0 - 2.0 * alpha
    alpha_bar = 0.0
    for k in range(steps - 1, -1, -1):
        u = states[k]
        left = y[0] + alpha * y[1]  # the fixed ends copy, and feed the first interior points
        right = y[n - 1] + alpha * y[n - 2]
        y[0] = 0.0
        y[n - 1] = 0.0
        for i in range(1, n - 1):
            alpha_bar += y[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
            w[i] = centre * y[i] + alpha * (y[i - 1] + y[i + 1])
        w[0] = left
        w[n - 1] = right
        y, w = w, y
    return s, y, alpha_bar


# ----------------------------------------------------------------------------- wave


@numba.njit(cache=True)
def wave_primal(u0, c, steps):
    """Numba copy of :func:`kernels_arrays.wave`."""
    n = u0.shape[0]
    r2 = c * c
    u_prev = u0.copy()
    u = u0.copy()
    u_next = np.empty(n)
    for i in range(1, n - 1):
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


@numba.njit(cache=True)
def _wave_energy_adjoint(u, u_prev, r2, a, b):
    """Energy of the last two states; seeds ``a`` (adjoint of ``u``) and ``b`` (of ``-u_prev``).

    Both adjoints keep zero end entries. Returns ``(energy, d energy / d r2,
    adjoint of u0[0], adjoint of u0[n-1])``: the ends of every state are ``u0``'s.
    """
    n = u.shape[0]
    s = 0.0
    r2_bar = 0.0
    for i in range(n):
        d = u[i] - u_prev[i]
        s += d * d
        a[i] = 2.0 * d
        b[i] = 2.0 * d  # holds minus the adjoint of u_prev
    left = 0.0
    right = 0.0
    for i in range(n - 1):
        g = u[i + 1] - u[i]
        s += r2 * g * g
        r2_bar += g * g
        a[i + 1] += 2.0 * r2 * g
        a[i] -= 2.0 * r2 * g
    left += a[0] - b[0]
    right += a[n - 1] - b[n - 1]
    a[0] = 0.0
    a[n - 1] = 0.0
    b[0] = 0.0
    b[n - 1] = 0.0
    return s, r2_bar, left, right


@numba.njit(cache=True)
def _wave_first_step_adjoint(u0, r2, a, b, r2_bar, left, right, c):
    """Adjoint of ``u_1 = u0 + r2/2 L u0`` and ``u_0 = u0``; returns ``(u0_bar, c_bar)``."""
    n = u0.shape[0]
    u0_bar = np.empty(n)
    half = 0.5 * r2
    for i in range(1, n - 1):
        r2_bar += 0.5 * a[i] * (u0[i - 1] - 2.0 * u0[i] + u0[i + 1])
        u0_bar[i] = a[i] - b[i] + half * (a[i - 1] - 2.0 * a[i] + a[i + 1])
    u0_bar[0] = left + half * a[1]
    u0_bar[n - 1] = right + half * a[n - 2]
    return u0_bar, 2.0 * c * r2_bar


@numba.njit(cache=True)
def wave_grad_rebuild(u0, c, steps):
    """Same as :func:`wave_grad`, rebuilding the states backwards instead of storing them."""
    n = u0.shape[0]
    r2 = c * c
    u_prev = u0.copy()
    u = u0.copy()
    u_next = np.empty(n)
    for i in range(1, n - 1):
        u[i] = u0[i] + 0.5 * r2 * (u0[i - 1] - 2.0 * u0[i] + u0[i + 1])
    for _ in range(steps):
        u_next[0] = u[0]
        u_next[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            u_next[i] = 2.0 * u[i] - u_prev[i] + r2 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u_prev, u, u_next = u, u_next, u_prev

    a = np.empty(n)  # adjoint of u_(k+1)
    b = np.empty(n)  # minus the partial adjoint of u_k
    w = np.empty(n)
    s, r2_bar, left, right = _wave_energy_adjoint(u, u_prev, r2, a, b)
    w[0] = 0.0
    w[n - 1] = 0.0
    # Reverse step k = steps .. 1 undoes u_(k+1) = 2 u_k - u_(k-1) + r2 L u_k.
    # Going in: u = u_(k+1), u_prev = u_k, a = adjoint of u_(k+1), b = -adjoint of u_k.
    for _ in range(steps):
        left += r2 * a[1]
        right += r2 * a[n - 2]
        for i in range(1, n - 1):
            lap = u_prev[i - 1] - 2.0 * u_prev[i] + u_prev[i + 1]
            r2_bar += a[i] * lap
            u[i] = 2.0 * u_prev[i] - u[i] + r2 * lap  # u_(k-1), in u_(k+1)'s buffer
            w[i] = 2.0 * a[i] - b[i] + r2 * (a[i - 1] - 2.0 * a[i] + a[i + 1])
        u, u_prev = u_prev, u
        b, a, w = a, w, b
    u0_bar, c_bar = _wave_first_step_adjoint(u0, r2, a, b, r2_bar, left, right, c)
    return s, u0_bar, c_bar


@numba.njit(cache=True)
def wave_grad(u0, c, steps):
    """Value and gradient of ``wave`` with respect to ``u0`` and ``c``.

    Every state is written once, straight into a (steps+2, n) array.
    """
    n = u0.shape[0]
    r2 = c * c
    states = np.empty((steps + 2, n))  # states[k] = u_k
    for i in range(n):
        states[0, i] = u0[i]
        states[1, i] = u0[i]
    for i in range(1, n - 1):
        states[1, i] = u0[i] + 0.5 * r2 * (u0[i - 1] - 2.0 * u0[i] + u0[i + 1])
    for k in range(1, steps + 1):
        states[k + 1, 0] = u0[0]
        states[k + 1, n - 1] = u0[n - 1]
        for i in range(1, n - 1):
            states[k + 1, i] = (
                2.0 * states[k, i]
                - states[k - 1, i]
                + r2 * (states[k, i - 1] - 2.0 * states[k, i] + states[k, i + 1])
            )

    a = np.empty(n)
    b = np.empty(n)
    w = np.empty(n)
    s, r2_bar, left, right = _wave_energy_adjoint(states[steps + 1], states[steps], r2, a, b)
    w[0] = 0.0
    w[n - 1] = 0.0
    for k in range(steps, 0, -1):
        left += r2 * a[1]
        right += r2 * a[n - 2]
        for i in range(1, n - 1):
            r2_bar += a[i] * (states[k, i - 1] - 2.0 * states[k, i] + states[k, i + 1])
            w[i] = 2.0 * a[i] - b[i] + r2 * (a[i - 1] - 2.0 * a[i] + a[i + 1])
        b, a, w = a, w, b
    u0_bar, c_bar = _wave_first_step_adjoint(u0, r2, a, b, r2_bar, left, right, c)
    return s, u0_bar, c_bar


# ---------------------------------------------------------------------------- nbody


@numba.njit(cache=True)
def _forces(pos, masses, force):
    """Numba copy of :func:`kernels_arrays._forces`."""
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


@numba.njit(cache=True)
def nbody_primal(pos, vel, masses, steps, dt):
    """Numba copy of :func:`kernels_arrays.nbody`."""
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


@numba.njit(cache=True)
def _forces_adjoint(pos, masses, force_bar, pos_bar):
    """``pos_bar += J^T force_bar``, ``J`` the Jacobian of :func:`_forces` at ``pos``."""
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + SOFTENING2
            f = masses[i] * masses[j] / (r2 * math.sqrt(r2))
            gx = force_bar[i, 0] - force_bar[j, 0]
            gy = force_bar[i, 1] - force_bar[j, 1]
            t = 3.0 * f / r2 * (dx * gx + dy * gy)
            ex = f * gx - t * dx
            ey = f * gy - t * dy
            pos_bar[j, 0] += ex
            pos_bar[j, 1] += ey
            pos_bar[i, 0] -= ex
            pos_bar[i, 1] -= ey


@numba.njit(cache=True)
def _nbody_kinetic_and_potential(x, v, masses):
    n = x.shape[0]
    energy = 0.0
    for i in range(n):
        energy += 0.5 * masses[i] * (v[i, 0] * v[i, 0] + v[i, 1] * v[i, 1])
        for j in range(i + 1, n):
            dx = x[j, 0] - x[i, 0]
            dy = x[j, 1] - x[i, 1]
            energy -= masses[i] * masses[j] / math.sqrt(dx * dx + dy * dy + SOFTENING2)
    return energy


@numba.njit(cache=True)
def nbody_grad(pos, vel, masses, steps, dt):
    """Value and gradient of ``nbody`` with respect to ``pos`` and ``vel``."""
    n = pos.shape[0]
    xs = np.empty((steps + 1, n, 2))  # positions at every force evaluation
    v = vel.copy()
    force = np.empty((n, 2))
    for i in range(n):
        xs[0, i, 0] = pos[i, 0]
        xs[0, i, 1] = pos[i, 1]
    _forces(xs[0], masses, force)
    for k in range(steps):
        x = xs[k]
        x_new = xs[k + 1]
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
                x_new[i, d] = x[i, d] + dt * v[i, d]
        _forces(x_new, masses, force)
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
    energy = _nbody_kinetic_and_potential(xs[steps], v, masses)

    # d potential / d x = -force(x_final); d kinetic / d v = m v.
    x_bar = np.empty((n, 2))
    v_bar = np.empty((n, 2))
    force_bar = np.empty((n, 2))
    kick = 0.5 * dt if steps > 0 else 0.0  # last step's second half kick
    for i in range(n):
        for d in range(2):
            x_bar[i, d] = -force[i, d]
            v_bar[i, d] = masses[i] * v[i, d]
            force_bar[i, d] = kick * v[i, d]  # kick * v_bar / m
    for k in range(steps - 1, -1, -1):
        _forces_adjoint(xs[k + 1], masses, force_bar, x_bar)
        # The first half kick of step k and the second of step k-1 use the same
        # forces and see the same velocity adjoint.
        kick = dt if k > 0 else 0.5 * dt
        for i in range(n):
            for d in range(2):
                v_bar[i, d] += dt * x_bar[i, d]
                force_bar[i, d] = kick * v_bar[i, d] / masses[i]
    _forces_adjoint(xs[0], masses, force_bar, x_bar)
    return energy, x_bar, v_bar


@numba.njit(cache=True)
def _forces_store(pos, masses, force, pair_f, pair_t):
    """:func:`_forces` that also stores ``f`` and ``3 f / r^2`` of every pair."""
    n = pos.shape[0]
    for i in range(n):
        force[i, 0] = 0.0
        force[i, 1] = 0.0
    p = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + SOFTENING2
            f = masses[i] * masses[j] / (r2 * math.sqrt(r2))
            pair_f[p] = f
            pair_t[p] = 3.0 * f / r2
            p += 1
            force[i, 0] += f * dx
            force[i, 1] += f * dy
            force[j, 0] -= f * dx
            force[j, 1] -= f * dy


@numba.njit(cache=True)
def _forces_adjoint_stored(pos, pair_f, pair_t, force_bar, pos_bar):
    n = pos.shape[0]
    p = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            f = pair_f[p]
            gx = force_bar[i, 0] - force_bar[j, 0]
            gy = force_bar[i, 1] - force_bar[j, 1]
            t = pair_t[p] * (dx * gx + dy * gy)
            p += 1
            ex = f * gx - t * dx
            ey = f * gy - t * dy
            pos_bar[j, 0] += ex
            pos_bar[j, 1] += ey
            pos_bar[i, 0] -= ex
            pos_bar[i, 1] -= ey


@numba.njit(cache=True)
def nbody_grad_pairs(pos, vel, masses, steps, dt):
    """Same as :func:`nbody_grad`, also storing the pair factors so the reverse has no sqrt."""
    n = pos.shape[0]
    n_pairs = n * (n - 1) // 2
    xs = np.empty((steps + 1, n, 2))
    fs = np.empty((steps + 1, n_pairs))
    ts = np.empty((steps + 1, n_pairs))
    v = vel.copy()
    force = np.empty((n, 2))
    for i in range(n):
        xs[0, i, 0] = pos[i, 0]
        xs[0, i, 1] = pos[i, 1]
    _forces_store(xs[0], masses, force, fs[0], ts[0])
    for k in range(steps):
        x = xs[k]
        x_new = xs[k + 1]
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
                x_new[i, d] = x[i, d] + dt * v[i, d]
        _forces_store(x_new, masses, force, fs[k + 1], ts[k + 1])
        for i in range(n):
            for d in range(2):
                v[i, d] += 0.5 * dt * force[i, d] / masses[i]
    energy = _nbody_kinetic_and_potential(xs[steps], v, masses)

    x_bar = np.empty((n, 2))
    v_bar = np.empty((n, 2))
    force_bar = np.empty((n, 2))
    kick = 0.5 * dt if steps > 0 else 0.0
    for i in range(n):
        for d in range(2):
            x_bar[i, d] = -force[i, d]
            v_bar[i, d] = masses[i] * v[i, d]
            force_bar[i, d] = kick * v[i, d]
    for k in range(steps - 1, -1, -1):
        _forces_adjoint_stored(xs[k + 1], fs[k + 1], ts[k + 1], force_bar, x_bar)
        kick = dt if k > 0 else 0.5 * dt
        for i in range(n):
            for d in range(2):
                v_bar[i, d] += dt * x_bar[i, d]
                force_bar[i, d] = kick * v_bar[i, d] / masses[i]
    _forces_adjoint_stored(xs[0], fs[0], ts[0], force_bar, x_bar)
    return energy, x_bar, v_bar


# ------------------------------------------------------------------------- mlp_loss


@numba.njit(cache=True)
def mlp_loss_primal(w1, b1, w2, b2, x, y):
    """Numba copy of :func:`kernels_arrays.mlp_loss`."""
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


@numba.njit(cache=True)
def mlp_loss_grad(w1, b1, w2, b2, x, y):
    """Value and gradient of ``mlp_loss`` with respect to ``w1``, ``b1``, ``w2`` and ``b2``."""
    n_samples, n_in = x.shape
    n_hidden = w1.shape[0]
    n_out = w2.shape[0]
    w1_bar = np.zeros_like(w1)
    b1_bar = np.zeros_like(b1)
    w2_bar = np.zeros_like(w2)
    b2_bar = np.zeros_like(b2)
    h = np.empty(n_hidden)
    h_bar = np.empty(n_hidden)
    r_bar = np.empty(n_out)
    scale = 2.0 / n_samples
    loss = 0.0
    for s in range(n_samples):
        for k in range(n_hidden):
            z = b1[k]
            for j in range(n_in):
                z += w1[k, j] * x[s, j]
            h[k] = math.tanh(z)
            h_bar[k] = 0.0
        for o in range(n_out):
            out = b2[o]
            for k in range(n_hidden):
                out += w2[o, k] * h[k]
            r = out - y[s, o]
            loss += r * r
            r_bar[o] = scale * r
        for o in range(n_out):
            g = r_bar[o]
            b2_bar[o] += g
            for k in range(n_hidden):
                w2_bar[o, k] += g * h[k]
                h_bar[k] += g * w2[o, k]
        for k in range(n_hidden):
            z_bar = h_bar[k] * (1.0 - h[k] * h[k])
            b1_bar[k] += z_bar
            for j in range(n_in):
                w1_bar[k, j] += z_bar * x[s, j]
    return loss / n_samples, w1_bar, b1_bar, w2_bar, b2_bar


# ------------------------------------------------------------------------ registry

#: Kernel name -> njit'd primal.
PRIMALS = {
    "heat": heat_primal,
    "wave": wave_primal,
    "nbody": nbody_primal,
    "mlp_loss": mlp_loss_primal,
}

#: Kernel name -> hand-written gradient returning ``(value, *grads)``.
GRADS = {
    "heat": heat_grad,
    "wave": wave_grad,
    "nbody": nbody_grad,
    "mlp_loss": mlp_loss_grad,
}

#: Kernel name -> the arguments differentiated (``argnums`` for sourcediff).
ARGNUMS = {
    "heat": (0, 1),
    "wave": (0, 1),
    "nbody": (0, 1),
    "mlp_loss": (0, 1, 2, 3),
}

#: Alternative storage strategies, checked too and timed by ``--time``.
ALTERNATIVES = {
    "heat": {"linear-operator identity": heat_grad, "store states": heat_grad_store},
    "wave": {"store states": wave_grad, "rebuild states backwards": wave_grad_rebuild},
    "nbody": {"recompute pair geometry": nbody_grad, "store pair factors": nbody_grad_pairs},
}


def check_points():
    """Kernel name -> small argument tuples for the finite-difference self-check."""
    import kernels_arrays as k

    return {
        "heat": [k.heat_args(12, 30), k.heat_args(7, 1, seed=5), k.heat_args(3, 4, seed=6)],
        "wave": [k.wave_args(14, 25), k.wave_args(6, 3, seed=7), k.wave_args(5, 0, seed=8)],
        "nbody": [k.nbody_args(4, 20, dt=2e-2), k.nbody_args(5, 10, seed=9, dt=1e-2)],
        "mlp_loss": [k.mlp_args(6, 3, 5, 2), k.mlp_args(3, 4, 2, 3, seed=10)],
    }


def central_difference(f, args, argnum, rel_step=1e-4):
    """Fourth-order central differences of ``f(*args)`` with respect to ``args[argnum]``.

    The five-point stencil ``(8 (f(x+h) - f(x-h)) - (f(x+2h) - f(x-2h))) / 12h``
    keeps the truncation error far below the 1e-6 tolerance even for the
    many-step kernels, whose high derivatives are large. Returns a float for a
    float argument, an array of its shape for an array.
    """

    def at(x):
        a = list(args)
        a[argnum] = x
        return f(*a)

    def stencil(shifted, h):
        return (8.0 * (shifted(h) - shifted(-h)) - (shifted(2.0 * h) - shifted(-2.0 * h))) / (
            12.0 * h
        )

    x = args[argnum]
    if isinstance(x, np.ndarray):
        out = np.empty(x.shape)
        for idx in np.ndindex(x.shape):

            def shifted(dh, idx=idx):
                y = x.copy()
                y[idx] += dh
                return at(y)

            out[idx] = stencil(shifted, rel_step * max(1.0, abs(x[idx])))
        return out
    return stencil(lambda dh: at(x + dh), rel_step * max(1.0, abs(x)))


def relative_error(got, want):
    """Largest absolute difference over the largest magnitude of ``want`` (norm-wise)."""
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    scale = max(float(np.max(np.abs(want))), 1e-300)
    return float(np.max(np.abs(got - want))) / scale


def self_check(rtol=1e-6):
    """Check primal values and gradients against the plain-Python kernels.

    Every component of every gradient is compared with central differences; the
    error is norm-wise (largest difference over the largest component). Raises
    ``AssertionError`` on the first mismatch beyond ``rtol``.
    """
    import kernels_arrays

    for name, points in check_points().items():
        kernel = getattr(kernels_arrays, name)
        grads = ALTERNATIVES.get(name, {"": GRADS[name]})
        for args in points:
            value = kernel(*args)
            primal = PRIMALS[name](*args)
            assert abs(primal - value) <= 1e-12 * abs(value), (name, "primal", primal, value)
            fds = [central_difference(kernel, args, k) for k in ARGNUMS[name]]
            for label, grad in grads.items():
                hand_value, *hand_grads = grad(*args)
                assert abs(hand_value - value) <= 1e-12 * abs(value), (name, label, "value")
                for argnum, hand, fd in zip(ARGNUMS[name], hand_grads, fds, strict=True):
                    assert np.shape(hand) == np.shape(args[argnum]), (name, label, argnum)
                    err = relative_error(hand, fd)
                    shape = "x".join(map(str, np.shape(args[argnum]))) or "scalar"
                    print(
                        f"{name:9s} {label:25s} d/darg{argnum} ({shape:6s}) "
                        f"max|fd|={np.max(np.abs(fd)):.3e} rel.err={err:.1e}"
                    )
                    assert err <= rtol, (name, label, argnum, err)
    print("all hand-written gradients agree with central differences")


def time_alternatives():
    """Time the alternative storage strategies at the benchmark sizes."""
    import timeit

    import kernels_arrays as k

    sizes = {"heat": k.heat_args(200, 500), "wave": k.wave_args(200, 500)}
    sizes["nbody"] = k.nbody_args(16, 200)
    for name, variants in ALTERNATIVES.items():
        args = sizes[name]
        for label, grad in variants.items():
            grad(*args)
            t = min(timeit.repeat(lambda: grad(*args), number=20, repeat=20)) / 20  # noqa: B023
            print(f"{name:6s} {label:25s} {t * 1e6:9.1f} µs")


if __name__ == "__main__":
    self_check()
    if "--time" in sys.argv[1:]:
        time_alternatives()

"""Functions whose elementwise statements scalarization fuses, or must not fuse
(tests/test_scalarize.py)."""

import math

import numpy as np


def mixture_terms(means, log_sd, x):
    """ADBench-style: a row difference scaled elementwise, summed twice (fused with the
    caller's dimensions: x.shape[1] == means.shape[1])."""
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(means.shape[0]):
            z = (x[i] - means[c]) * np.exp(-log_sd[c])
            total += np.sum(log_sd[c]) + 0.5 * np.sum(z * z)
    return total


def stencil_steps(u0, steps):
    """A 1-D stencil stored into a second buffer, both copies of the argument."""
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps):
        v[1:-1] = 0.25 * (u[:-2] + u[2:]) + 0.5 * np.sin(u[1:-1])
        u[1:-1] = 0.25 * (v[:-2] + v[2:]) + 0.5 * v[1:-1]
    return np.sum(u * u)


def overlapping_update(u0, w):
    """``u[1:] = u[:-1] ...``: NumPy reads every old value first; a fused loop would not."""
    u = u0.copy()
    for _ in range(3):
        u[1:] = u[:-1] * 0.5 + np.sin(w[1:])
    return np.sum(u * u)


def aliased_update(u0):
    """``v`` is ``u``: storing into ``u`` while reading ``v`` must not fuse."""
    u = u0.copy()
    v = u
    u[1:-1] = v[:-2] * v[2:] + 1.0
    return np.sum(u * u0)


def same_elements_update(u0, w):
    """Reading and storing exactly the same elements fuses safely."""
    u = u0.copy()
    u[1:] = u[1:] * np.tanh(w[1:]) + w[:-1]
    return np.sum(u**3)


def kept_value(x, s):
    """A fused array still read afterwards is written into a fresh array."""
    z = x[1:] * s - x[:-1]
    t = np.sum(z * z)
    return t + z[0] * z[-1] + math.sin(t)


def broadcast_rows(x, mu):
    """``x - mu`` with ``mu`` of one row broadcasts: equal shapes are not provable."""
    d = (x - mu) * 2.0
    return np.sum(np.tanh(d) * d)


def matrix_views(m, a):
    """Rows, columns and 2-D slices of one matrix, with a vector of the same length."""
    s = 0.0
    for i in range(m.shape[0]):
        r = (m[i, :] - a) * np.tanh(m[:, i])
        s += np.sum(r * r) + r[0]
    q = m[1:, 1:] * m[:-1, :-1]
    return s + np.sum(np.exp(-q))


def neighbour_products(x):
    """Only elements of an argument nothing writes: the reverse sweep reads ``x`` itself."""
    return np.sum(x * x) + np.sum(x[1:] * x[:-1])


def empty_slice_kept(x):
    """``w[2:-1]`` of a 2-element array is empty; kept afterwards, it is allocated with
    length 0 (not -1)."""
    w = np.zeros(2)
    w[0] = x[0]
    z = w[2:-1] * x[1]
    return np.sum(z * z) + z.shape[0] * x[0] + x[1] * w[0]


def reversed_view_rebound(u0, n):
    """``u = t[::-1]``: a view of an array the run computed, rebound to a name the run
    read; the run may not bind it after its loop as a fresh array (regions._rebinds)."""
    u = u0 * 1.0
    s = 0.0
    for _ in range(n):
        t = u * 0.5 + np.sin(u)
        u = t[::-1]
        s = s + np.sum(u * u)
    return s


def shrinking_view_rebound(u0, n):
    """``u = t[1:]``: the view has a shape of its own, one shorter every step."""
    u = u0 * 1.0
    s = 0.0
    for _ in range(n):
        t = np.tanh(u) * 1.5 - u
        u = t[1:]
        s = s + np.sum(u * t[:-1])
    return s

"""Reference gradients independent of sourcediff: central differences with Richardson
extrapolation, at two step sizes whose agreement says whether the reference is stable."""

from __future__ import annotations

import numpy as np


def _copied(args):
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]


def _shifted(f, args, k, index, h):
    shifted = _copied(args)
    if isinstance(shifted[k], np.ndarray):
        shifted[k][index] += h
    else:
        shifted[k] += h
    return f(*shifted)


def _richardson(f, args, k, index, h):
    """Central difference at h and h/2, combined to O(h^4)."""
    coarse = (_shifted(f, args, k, index, h) - _shifted(f, args, k, index, -h)) / (2 * h)
    half = h / 2
    fine = (_shifted(f, args, k, index, half) - _shifted(f, args, k, index, -half)) / (2 * half)
    return (4.0 * fine - coarse) / 3.0


def reference_gradient(f, args, argnums, h=1e-3):
    """``(gradients, stable)``: Richardson estimates at ``h``, and whether they agree with
    those at ``h / 8`` (a kink or a branch flip near the point makes them disagree)."""
    grads, stable = [], True
    for k in argnums:
        shape = np.shape(args[k])
        g = np.zeros(shape)
        for index in np.ndindex(*shape):
            first = _richardson(f, args, k, index, h)
            second = _richardson(f, args, k, index, h / 8)
            if not np.isfinite(first) or abs(first - second) > 1e-6 * (1.0 + abs(first)):
                stable = False
            g[index] = second
        grads.append(g if shape else float(g))
    return grads, stable

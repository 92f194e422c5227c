"""Reference gradients independent of sourcediff: central differences with Richardson
extrapolation, at two step sizes whose agreement says whether the reference is stable,
and, given the program's source, the complex step (``complex_step.py``), exact to
rounding, cross-checked by those differences."""

from __future__ import annotations

import numpy as np

from .complex_step import complex_step_gradient

AGREEMENT = 1e-5


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


def richardson_gradient(f, args, argnums, h=1e-3):
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


def agree(complex_step, richardson) -> bool:
    """Whether complex-step and Richardson gradients agree: ``|cs - rich| <= 1e-5 (1 + |cs|)``."""
    return all(
        bool(np.all(np.abs(np.subtract(c, r)) <= AGREEMENT * (1.0 + np.abs(c))))
        for c, r in zip(complex_step, richardson)
    )


def reference_gradient(f, args, argnums, h=1e-3, *, source=None):
    """``(gradients, stable)``. Without ``source``: the Richardson gradients and their
    stability. With the source of ``f``'s module: the complex-step gradients, stable when
    Richardson is and the two agree; when the program is not complex-safe (a function
    with no complex stand-in, ``scipy.special``'s), Richardson's gradients and their own
    stability (h against h / 8), as without ``source``."""
    richardson, stable = richardson_gradient(f, args, argnums, h)
    if source is None:
        return richardson, stable
    try:
        complex_step = complex_step_gradient(source, args, argnums)
    except NotImplementedError:
        return richardson, stable
    return complex_step, stable and agree(complex_step, richardson)

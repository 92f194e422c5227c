"""``np.interp(x, xp, fp)``: piecewise-linear interpolation and its derivatives with
respect to all three arguments (the query points, the knots and the values).

On the segment ``xp[j] <= x < xp[j+1]`` (NumPy's choice at a knot: the segment to its
right), with ``h = xp[j+1] - xp[j]``, ``t = (x - xp[j]) / h`` and ``s = (fp[j+1] - fp[j]) / h``,
the value is ``fp[j] + s (x - xp[j])``: d/dx is ``s``, d/dfp is ``1 - t`` and ``t`` at
``j`` and ``j+1``, d/dxp is ``s (t - 1)`` and ``-s t``. Left of ``xp[0]`` the value is
``fp[0]``, from ``xp[-1]`` on it is ``fp[-1]``: derivative 1 with respect to that value only.

>>> import numpy as np
>>> xp, fp = np.array([0.0, 1.0, 3.0]), np.array([1.0, 3.0, 2.0])
>>> interp_adjoint_x(np.array([0.5, 2.0, 5.0]), xp, fp, np.ones(3))
array([ 2. , -0.5,  0. ])
>>> interp_adjoint_fp(2.0, xp, fp, 1.0)
array([0. , 0.5, 0.5])
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from .jitting import helper

X, XP, FP = 0, 1, 2  # which argument a scatter differentiates


@helper
def _scatter(xs, gs, xp, fp, which):
    """Sum over the query points of ``g`` times the derivative of the interpolated value
    with respect to argument ``which``: per point for ``X``, per knot for ``XP``/``FP``."""
    out = np.zeros(xs.shape[0] if which == X else xp.shape[0])
    last = xp.shape[0] - 1
    for k in range(xs.shape[0]):
        x, g = xs[k], gs[k]
        if x < xp[0] or x >= xp[last]:
            if which == FP:
                out[0 if x < xp[0] else last] += g
            continue
        j = np.searchsorted(xp, x, side="right") - 1
        h = xp[j + 1] - xp[j]
        t = (x - xp[j]) / h
        slope = (fp[j + 1] - fp[j]) / h
        if which == X:
            out[k] = slope * g
        elif which == FP:
            out[j] += (1.0 - t) * g
            out[j + 1] += t * g
        else:
            out[j] += slope * (t - 1.0) * g
            out[j + 1] -= slope * t * g
    return out


@helper
def _knot_tangent(xs, xp, fp, tangent):
    """Per query point, the derivative of the value along the knots' tangent ``tangent``."""
    out = np.zeros(xs.shape[0])
    last = xp.shape[0] - 1
    for k in range(xs.shape[0]):
        x = xs[k]
        if x < xp[0] or x >= xp[last]:
            continue
        j = np.searchsorted(xp, x, side="right") - 1
        h = xp[j + 1] - xp[j]
        t = (x - xp[j]) / h
        slope = (fp[j + 1] - fp[j]) / h
        out[k] = slope * ((t - 1.0) * tangent[j] - t * tangent[j + 1])
    return out


def interp_tangent_xp(x, xp, fp, tangent):
    """The tangent of ``np.interp(x, xp, fp)`` along ``xp``'s tangent, shaped like ``x``."""
    out = _knot_tangent(_flat(x), _flat(xp), _flat(fp), _flat(tangent))
    return out[0] if np.ndim(x) == 0 else out.reshape(np.shape(x))


@overload(interp_tangent_xp)
def _interp_tangent_xp(x, xp, fp, tangent):
    if isinstance(x, types.Array):
        return lambda x, xp, fp, tangent: _knot_tangent(
            np.ascontiguousarray(x).reshape(-1), xp, fp, tangent
        ).reshape(x.shape)
    return lambda x, xp, fp, tangent: _knot_tangent(np.array([x]), xp, fp, tangent)[0]


def _flat(v):
    return np.ascontiguousarray(v, dtype=np.float64).reshape(-1)


def _adjoint(which):
    def adjoint(x, xp, fp, g):
        xs, gs = _flat(x), np.broadcast_to(np.asarray(g, dtype=np.float64), np.shape(x))
        out = _scatter(xs, _flat(gs), _flat(xp), _flat(fp), which)
        if which != X:
            return out
        return out[0] if np.ndim(x) == 0 else out.reshape(np.shape(x))

    return adjoint


interp_adjoint_x = _adjoint(X)
interp_adjoint_xp = _adjoint(XP)
interp_adjoint_fp = _adjoint(FP)
interp_adjoint_x.__doc__ = "d/dx of ``np.interp(x, xp, fp)`` times ``g``, shaped like ``x``."
interp_adjoint_xp.__doc__ = "d/dxp of ``np.interp(x, xp, fp)`` summed against ``g``."
interp_adjoint_fp.__doc__ = "d/dfp of ``np.interp(x, xp, fp)`` summed against ``g``."


def _overload_adjoint(function, which):
    @overload(function)
    def _typed(x, xp, fp, g):
        if isinstance(x, types.Array):

            def on_array(x, xp, fp, g):
                xs = np.ascontiguousarray(x).reshape(-1)
                gs = np.ascontiguousarray(g).reshape(-1)
                out = _scatter(xs, gs, xp, fp, which)
                return out.reshape(x.shape) if which == X else out

            return on_array

        def on_number(x, xp, fp, g):
            out = _scatter(np.array([x]), np.array([g]), xp, fp, which)
            return out[0] if which == X else out

        return on_number


for _function, _which in [(interp_adjoint_x, X), (interp_adjoint_xp, XP), (interp_adjoint_fp, FP)]:
    _overload_adjoint(_function, _which)

HELPERS = ("interp_adjoint_x", "interp_adjoint_xp", "interp_adjoint_fp", "interp_tangent_xp")

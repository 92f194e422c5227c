"""An expert's hand-written reverse-mode gradient of :func:`kernels_ba.ba`, in Numba.

One pass over the observations: each projection is computed on scalars (no small
arrays), and its adjoint follows at once, while the projection's intermediate values are
still in registers; nothing is stored. The cross product's adjoint is two cross
products (``(a x b) . g = a . (b x g) = b . (g x a)``); the Rodrigues branch is taken per
observation as in the forward computation.

Run ``python benchmarks/handwritten_ba.py`` to check it against central differences.
"""

import math
import sys
from pathlib import Path

import numba
import numpy as np

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import kernels_ba  # noqa: E402
from handwritten_arrays import central_difference, relative_error  # noqa: E402


@numba.njit(cache=True, inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@numba.njit(cache=True)
def _observation(cam, X, wo, feat, cam_bar, X_bar, reverse):
    """One observation's two terms and, when ``reverse``, their gradient: added into
    ``cam_bar`` and ``X_bar``, and returned for the weight as ``(value, w_bar)``."""
    r0, r1, r2 = cam[0], cam[1], cam[2]
    y0, y1, y2 = X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]
    s = r0 * r0 + r1 * r1 + r2 * r2
    if s != 0.0:
        th = math.sqrt(s)
        c, sn = math.cos(th), math.sin(th)
        w0, w1, w2 = r0 / th, r1 / th, r2 / th
        q0, q1, q2 = _cross(w0, w1, w2, y0, y1, y2)
        d = w0 * y0 + w1 * y1 + w2 * y2
        tmp = d * (1.0 - c)
        z0 = y0 * c + q0 * sn + w0 * tmp
        z1 = y1 * c + q1 * sn + w1 * tmp
        z2 = y2 * c + q2 * sn + w2 * tmp
    else:
        q0, q1, q2 = _cross(r0, r1, r2, y0, y1, y2)
        z0, z1, z2 = y0 + q0, y1 + q1, y2 + q2
    p0, p1 = z0 / z2, z1 / z2
    r = p0 * p0 + p1 * p1
    L = 1.0 + cam[9] * r + cam[10] * r * r
    f = cam[6]
    d0 = p0 * L * f + cam[7] - feat[0]
    d1 = p1 * L * f + cam[8] - feat[1]
    e0, e1 = d0 * wo, d1 * wo
    w_err = 1.0 - wo * wo
    value = e0 * e0 + e1 * e1 + w_err * w_err
    if not reverse:
        return value, 0.0
    e0_bar, e1_bar = 2.0 * e0, 2.0 * e1
    wo_bar = e0_bar * d0 + e1_bar * d1 - 4.0 * w_err * wo
    g0, g1 = e0_bar * wo, e1_bar * wo
    cam_bar[7] += g0
    cam_bar[8] += g1
    cam_bar[6] += (g0 * p0 + g1 * p1) * L
    L_bar = (g0 * p0 + g1 * p1) * f
    cam_bar[9] += L_bar * r
    cam_bar[10] += L_bar * r * r
    r_bar = L_bar * (cam[9] + 2.0 * cam[10] * r)
    p0_bar = g0 * f * L + 2.0 * p0 * r_bar
    p1_bar = g1 * f * L + 2.0 * p1 * r_bar
    z0_bar, z1_bar = p0_bar / z2, p1_bar / z2
    z2_bar = -(p0_bar * p0 + p1_bar * p1) / z2
    if s != 0.0:
        yb0, yb1, yb2 = z0_bar * c, z1_bar * c, z2_bar * c
        c_bar = z0_bar * y0 + z1_bar * y1 + z2_bar * y2
        sn_bar = z0_bar * q0 + z1_bar * q1 + z2_bar * q2
        tmp_bar = z0_bar * w0 + z1_bar * w1 + z2_bar * w2
        d_bar = tmp_bar * (1.0 - c)
        c_bar -= tmp_bar * d
        wb0 = z0_bar * tmp + d_bar * y0
        wb1 = z1_bar * tmp + d_bar * y1
        wb2 = z2_bar * tmp + d_bar * y2
        yb0, yb1, yb2 = yb0 + d_bar * w0, yb1 + d_bar * w1, yb2 + d_bar * w2
        qb0, qb1, qb2 = z0_bar * sn, z1_bar * sn, z2_bar * sn
        a0, a1, a2 = _cross(y0, y1, y2, qb0, qb1, qb2)
        b0, b1, b2 = _cross(qb0, qb1, qb2, w0, w1, w2)
        wb0, wb1, wb2 = wb0 + a0, wb1 + a1, wb2 + a2
        yb0, yb1, yb2 = yb0 + b0, yb1 + b1, yb2 + b2
        th_bar = -(wb0 * w0 + wb1 * w1 + wb2 * w2) / th + c * sn_bar - sn * c_bar
        s_bar = 0.5 * th_bar / th
        cam_bar[0] += wb0 / th + 2.0 * r0 * s_bar
        cam_bar[1] += wb1 / th + 2.0 * r1 * s_bar
        cam_bar[2] += wb2 / th + 2.0 * r2 * s_bar
    else:
        a0, a1, a2 = _cross(y0, y1, y2, z0_bar, z1_bar, z2_bar)
        b0, b1, b2 = _cross(z0_bar, z1_bar, z2_bar, r0, r1, r2)
        yb0, yb1, yb2 = z0_bar + b0, z1_bar + b1, z2_bar + b2
        cam_bar[0] += a0
        cam_bar[1] += a1
        cam_bar[2] += a2
    X_bar[0] += yb0
    X_bar[1] += yb1
    X_bar[2] += yb2
    cam_bar[3] -= yb0
    cam_bar[4] -= yb1
    cam_bar[5] -= yb2
    return value, wo_bar


@numba.njit(cache=True)
def ba_grad(cams, X, w, obs, feats):
    """Value and gradient of ``ba`` with respect to ``cams``, ``X`` and ``w``."""
    cams_bar = np.zeros_like(cams)
    X_bar = np.zeros_like(X)
    w_bar = np.empty_like(w)
    total = 0.0
    for o in range(obs.shape[0]):
        c, p = obs[o, 0], obs[o, 1]
        value, w_bar[o] = _observation(cams[c], X[p], w[o], feats[o], cams_bar[c], X_bar[p], True)
        total += value
    return total, cams_bar, X_bar, w_bar


@numba.njit(cache=True)
def ba_primal(cams, X, w, obs, feats):
    """The value alone: the gradient's forward half, on scalars."""
    total = 0.0
    for o in range(obs.shape[0]):
        c, p = obs[o, 0], obs[o, 1]
        total += _observation(cams[c], X[p], w[o], feats[o], cams[c], X[p], False)[0]
    return total


PRIMALS = {"ba": ba_primal}
GRADS = {"ba": ba_grad}
ARGNUMS = {"ba": (0, 1, 2)}


def self_check(rtol=1e-6):
    """Compare the hand gradient with central differences at two small problems."""
    failures = 0
    unrotated = kernels_ba.ba_args(2, 4, 6, seed=1)
    unrotated[0][0, :3] = 0.0  # the first-order branch of the rotation
    for args in (kernels_ba.ba_args(3, 5, 8), unrotated):
        got = ba_grad(*args)
        assert abs(got[0] - kernels_ba.ba(*args)) <= 1e-9 * abs(got[0])
        for position, argnum in enumerate(ARGNUMS["ba"]):
            want = central_difference(kernels_ba.ba, args, argnum)
            error = relative_error(got[1 + position], want)
            failures += error > rtol
            print(f"ba arg {argnum}: rel.err {error:.2e} {'ok' if error <= rtol else '!!'}")
    return failures


if __name__ == "__main__":
    sys.exit(1 if self_check() else 0)

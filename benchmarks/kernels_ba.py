"""ADBench's bundle adjustment objective, written with NumPy as its Python reference is.

Each camera is 11 numbers: a Rodrigues rotation (3), the centre (3), the focal length,
the principal point (2) and two radial distortion coefficients. An observation ``o``
sees point ``X[obs[o, 1]]`` from camera ``cams[obs[o, 0]]`` at ``feats[o]`` with weight
``w[o]``. ADBench computes the Jacobian of the residuals (reprojection errors times the
weight, and ``1 - w^2`` per observation); the scalar benchmarked here is their sum of
squares, differentiated with respect to the cameras, the points and the weights.
"""

import math

import numpy as np


def rodrigues_rotate_point(rot, X):
    """Rotate ``X`` by the axis-angle vector ``rot`` (first order about zero)."""
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        w = rot / theta
        w_cross_X = np.cross(w, X)
        tmp = np.dot(w, X) * (1.0 - costheta)
        return X * costheta + w_cross_X * sintheta + w * tmp
    return X + np.cross(rot, X)


def radial_distort(rad_params, proj):
    """Scale the projected point by ``1 + k1 r^2 + k2 r^4``."""
    rsq = np.sum(proj * proj)
    L = 1.0 + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


def project(cam, X):
    """Pixel coordinates of the world point ``X`` seen by the camera ``cam``."""
    Xcam = rodrigues_rotate_point(cam[0:3], X - cam[3:6])
    distorted = radial_distort(cam[9:11], Xcam[0:2] / Xcam[2])
    return distorted * cam[6] + cam[7:9]


def ba(cams, X, w, obs, feats):
    """Sum of squared weighted reprojection errors plus ADBench's ``1 - w^2`` terms."""
    total = 0.0
    for o in range(obs.shape[0]):
        err = (project(cams[obs[o, 0]], X[obs[o, 1]]) - feats[o]) * w[o]
        total += np.sum(err * err)
        w_err = 1.0 - w[o] * w[o]
        total += w_err * w_err
    return total


def ba_args(n_cams, n_points, n_obs, seed=9):
    """ADBench's generator: one random camera and point, jittered copies, random pairs."""
    rng = np.random.default_rng(seed)
    cam = np.array([0.1, -0.05, 0.2, 0.3, -0.2, -5.0, 400.0, 3.0, -2.0, 1e-3, -1e-5])
    cams = cam + 0.01 * rng.normal(size=(n_cams, 11)) * np.maximum(np.abs(cam), 1e-3)
    X = np.array([0.4, -0.3, 1.2]) + 0.5 * rng.normal(size=(n_points, 3))
    w = 1.0 + 0.1 * rng.normal(size=n_obs)
    obs = np.empty((n_obs, 2), dtype=np.int64)
    obs[:, 0] = np.arange(n_obs) % n_cams
    obs[:, 1] = rng.integers(0, n_points, n_obs)
    feats = np.array([project(cams[c], X[p]) for c, p in obs]) + rng.normal(size=(n_obs, 2))
    return (cams, X, w, obs, feats)

"""User-style functions whose generated adjoints are kept as golden files under golden/."""

import math

import numpy as np


def helper(x, y):
    return x * y + math.cos(y)


def series(x, y, n):
    s = 0.0
    for i in range(n):
        if s < 3.0:
            s += math.sin(x * i) * y
        else:
            s = s * 0.5 + helper(x, y)
    return s


def newton_sqrt(a):
    x = a if a > 1.0 else 1.0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def first_crossing(x, limit):
    for i in range(1, 100):
        x = x * 1.1 + 0.01 * i
        if x > limit:
            return x * i
    return -x


def logistic(k, y0, n):
    y = y0
    dt = 1e-3
    for _ in range(n):
        y = y + dt * k * y * (1.0 - y)
    return y * y


def heat(u0, alpha, steps):
    n = u0.shape[0]
    u = u0.copy()
    v = np.zeros(n)
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        u, v = v, u
    return np.sum(u * u)


def mlp_loss(w1, b1, w2, x, y):
    h = np.tanh(w1 @ x + b1)
    d = w2 @ h - y
    return np.sum(d * d)


def pair_energy(x, k):
    """Harmonic springs between every pair of points (a triangular loop nest)."""
    n = x.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = x[j] - x[i]
            energy += k * d * d
    return energy


def gray_scott(u, v, feed, kill, steps):
    """Reaction-diffusion on a periodic grid, Laplacians by np.roll: each step becomes
    one loop over the grid, and its reverse reads the two states it keeps by reference."""
    for _ in range(steps):
        lu = np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4.0 * u
        lv = np.roll(v, 1, 0) + np.roll(v, -1, 0) + np.roll(v, 1, 1) + np.roll(v, -1, 1) - 4.0 * v
        uvv = u * v * v
        u = u + 0.16 * lu - uvv + feed * (1.0 - u)
        v = v + 0.08 * lv + uvv - (feed + kill) * v
    return np.sum(v * v)

"""User-style functions whose generated adjoints are kept as golden files under golden/."""

import math


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

"""Scalar corpus: small numeric Python functions as users write them, with check points.

Every function takes floats (and sometimes ints), returns a float, and is defined at
module level so that its source can be read. `CASES` lists, for each function checked,
the argument tuples to check it at (chosen away from kinks: branch boundaries, changes of
a loop's trip count, abs/min/max ties) and the arguments to differentiate (`argnums`).
Helpers whose names start with "_" are called by the cased functions and are
differentiated through.
"""

import math

from corpus_support import Case

# Module-level constants used inside functions.
G = 9.81
DT = 0.05
N_STEPS = 40
PENDULUM_LENGTH = 2.0


# ---------------------------------------------------------------------------
# Arithmetic operators, comparisons, boolean logic
# ---------------------------------------------------------------------------


def poly_mix(x, y):
    return 3.0 * x * x - 2.0 * x * y + y / (1.0 + x * x) - 4.0


def ratio(x, y):
    return (x - y) / (x + y) + 1.0 / x


def floordiv_mod(x, y):
    q = x // y
    r = x % y
    return q * y + r * r + x * q


def wrap_angle(theta):
    two_pi = 2.0 * math.pi
    t = (theta + math.pi) % two_pi - math.pi
    return t * t + math.sin(theta)


def int_powers(x):
    return x**2 + 2.0 * x**3 - x**-2 + 0.5 * x**5


def real_powers(x, y):
    return x**y + 2.0**x + y**2.5 - x**0.5


def negation(x, y):
    z = -x
    w = -(z * y) + -math.sin(-x)
    return -w * z


def abs_terms(x, y):
    return abs(x) * y + abs(x - y) - abs(-2.0 * y)


def min_max_pair(x, y):
    hi = max(x, y)
    lo = min(x, 2.0 * y)
    return hi * hi - lo + max(lo, 0.25) * x


def comparisons(x, y):
    s = 0.0
    if x < y:
        s += x
    if x <= y:
        s += y * y
    if x > 0.5:
        s *= x
    if x >= 2.0:
        s -= y
    if x != y:
        s += x * y
    return s


def logic_ops(x, y):
    if x > 0.0 and y > 0.0:
        return x * y
    if x < -1.0 or y < -1.0:
        return x + y * y
    if not x > 0.0:
        return math.exp(x) * y
    return x - y


def conditional_expr(x):
    a = x * x if x > 0.0 else -x
    b = math.exp(x) if a < 1.0 else math.log(a)
    return a + b


def chained_compare(x, y):
    if 0.0 < x < 1.0:
        return x * y
    elif 1.0 <= x < y:
        return x + y
    elif -1.0 < y <= x < 4.0:
        return x * x - y
    return math.sin(x) * y


def swap_sorted(x, y):
    a, b = x, y
    if a > b:
        a, b = b, a
    return a * 3.0 - b * b


# ---------------------------------------------------------------------------
# The math module
# ---------------------------------------------------------------------------


def trig(x):
    return math.sin(x) * math.cos(2.0 * x) + math.tan(x / 3.0)


def inverse_trig(x):
    return math.asin(x) + 2.0 * math.acos(x / 2.0) - math.atan(3.0 * x)


def polar_angle(x, y):
    r = math.hypot(x, y)
    theta = math.atan2(y, x)
    return r * theta + theta * theta


def hyperbolic(x):
    return math.sinh(x) - 0.5 * math.cosh(x) + math.tanh(2.0 * x)


def exp_and_logs(x):
    return math.exp(-x) + math.expm1(x) + math.log(x) - math.log1p(x * x)


def log_bases(x):
    return math.log2(x) * math.log10(x + 1.0) + math.sqrt(x)


def math_pow(x, y):
    return math.pow(x, y) - math.pow(y, 2.0) + math.pow(2.0, x)


def error_functions(x):
    return math.erf(x) * x + math.erfc(2.0 * x)


def floor_ceil(x):
    frac = x - math.floor(x)
    up = math.ceil(x) - x
    return frac * frac + up * math.sin(x)


def fabs_copysign(x, y):
    return math.fabs(x) * math.copysign(y, x) + math.copysign(1.5, y) * x


def math_constants(x):
    return math.sin(math.pi * x) + math.e**x


def gaussian_pdf(x, mu, sigma):
    z = (x - mu) / sigma
    return math.exp(-0.5 * z * z) / (sigma * math.sqrt(2.0 * math.pi))


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


def logaddexp(x, y):
    m = max(x, y)
    return m + math.log(math.exp(x - m) + math.exp(y - m))


def softplus(x):
    # Stable: never exponentiates a large positive number.
    if x > 0.0:
        return x + math.log1p(math.exp(-x))
    return math.log1p(math.exp(x))


def smooth_abs(x, eps=1e-2):
    return math.sqrt(x * x + eps * eps)


def piecewise(x):
    if x < -1.0:
        y = -2.0 * x - 1.0
    elif x < 1.0:
        y = x * x
    else:
        y = 2.0 * math.sqrt(x) - 1.0
    return y * math.cos(x)


def relu_square(x):
    if x > 0.0:
        return x * x
    return 0.0


def rosenbrock(x, y):
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


def triangle_area(a, b, c):
    # Heron's formula.
    s = (a + b + c) / 2.0
    return math.sqrt(s * (s - a) * (s - b) * (s - c))


def three_args(x, y, z):
    return x * y * z + math.sin(x - z) * y**2


# ---------------------------------------------------------------------------
# Statements: early returns, overwriting, augmented and tuple assignment
# ---------------------------------------------------------------------------


def early_exit(x, y):
    if x < 0.0:
        return -x * y
    z = x * y + 1.0
    if z > 10.0:
        return math.log(z)
    w = z * z
    return w - x


def overwritten(x):
    y = x
    y = y * y
    y = math.sin(y) + x
    y = y * y - x
    y = math.exp(-y) * y
    y = y + x * y
    return y


def augmented(x, y):
    s = x
    s += y * y
    s -= 0.5 * x
    s *= y
    s /= 1.0 + x * x
    t = 2.0
    t *= s
    t -= x
    t /= y
    return s + t


def horner_poly(x):
    p = 2.0
    p = p * x - 3.0
    p = p * x + 0.5
    p = p * x - 1.0
    p = p * x + 4.0
    return p


def projectile_range(v, angle):
    return v * v * math.sin(2.0 * angle) / G


def scaled_wave(x, scale=2.0):
    return scale * math.sin(x) + x / scale


def damped_sum(x, y, decay=0.5, n=4):
    s = 0.0
    w = 1.0
    for i in range(n):
        s += w * math.cos(x + i * y)
        w *= decay
    return s


# ---------------------------------------------------------------------------
# for loops over range(...)
# ---------------------------------------------------------------------------


def power_series(x, n):
    s = 0.0
    for i in range(n):
        s += x**i / (i + 1)
    return s


def sin_sum_from(x, n):
    s = 0.0
    for k in range(2, n):
        s += math.sin(k * x) / k
    return s


def stepped_range(x):
    s = 0.0
    for k in range(1, 20, 3):
        s = s * x + k
    return s


def countdown(x, n):
    s = 0.0
    for k in range(n, 0, -1):
        s = s * x + 1.0 / k
    return s


def even_countdown(x):
    acc = 0.0
    for k in range(10, -1, -2):
        acc += k * math.cos(x * k)
    return acc


def reversed_or_empty(x, n):
    s = x
    for i in range(3, n, -1):
        s = s * x + i
    for j in range(n, 3):
        s -= j * x * x
    return s


def nested_grid(x, y, n):
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += math.sin(i * x + j * y) / (1 + i + j)
    return s


def triangular_sum(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s += x ** (i - j) / (i + j)
    return s


def upper_triangle(x, n):
    s = 1.0
    for i in range(1, n):
        for j in range(i, n, 2):
            s += math.cos(x * i - 0.1 * j) * x
        s *= 0.9
    return s


def inner_countdown(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i, -1, -1):
            s = s * 0.5 + x**j
    return s


def skip_multiples(x, n):
    s = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        s += math.cos(i * x)
    return s


def piecewise_accumulate(x, n):
    s = 0.0
    for i in range(n):
        t = x + 0.3 * i
        if t < 0.0:
            s -= t
        elif t < 1.0:
            s += t * t
        else:
            s += math.sqrt(t)
    return s


def iterated_map(x, n):
    for _ in range(n):
        x = x + 0.2 * math.cos(x)
    return x


def mixed_ints(n, x, m, y):
    s = 0.0
    for i in range(n):
        s += x * i - y / (m + i)
    return s * (n // 2) + m % 3 * y


def int_ratios(x, n):
    s = 0.0
    for i in range(n):
        frac = i / n
        s += math.sin(x * frac) * (i % 2) - (i // 2) * x
    return s


def chebyshev(x, n):
    t0, t1 = 1.0, x
    for _ in range(n):
        t0, t1 = t1, 2.0 * x * t1 - t0
    return t0


def fibonacci_like(x, y, n):
    a, b = x, y
    for _ in range(n):
        a, b = b, a + 0.5 * b
    return a * b


def rotate(x, y, theta, n):
    c = math.cos(theta)
    s = math.sin(theta)
    for _ in range(n):
        x, y = c * x - s * y, s * x + c * y
    return x * 2.0 + y


def damped_motion(x0, k):
    x = x0
    v = 0.0
    for _ in range(N_STEPS):
        a = -k * x - 0.3 * v
        v += DT * a
        x += DT * v
    return x


# ---------------------------------------------------------------------------
# while loops, break, continue, return inside loops
# ---------------------------------------------------------------------------


def decay_until_small(x):
    y = x
    steps = 0
    while y > 0.01:
        y = 0.7 * y + 0.01 * y * y
        steps += 1
    return y + 0.1 * steps


def while_counter(x):
    i = 0
    s = 0.0
    while i < 10:
        s += x / (i + 1) + math.sin(x * i)
        i += 1
    return s


def halve_inside_for(x, n):
    s = 0.0
    for i in range(n):
        y = x + i
        while y > 1.0:
            y *= 0.5
        s += y * y
    return s


def geometric_until(x):
    s = 0.0
    term = 1.0
    for _ in range(200):
        s += term
        if term < 1e-4:
            break
        term *= x
    return s


def first_below(x):
    for i in range(50):
        x = 0.9 * x + 0.05 * math.sin(x)
        if x < 0.5:
            return x * (i + 1)
    return -x


def nested_break(x, y):
    s = 0.0
    for i in range(6):
        for j in range(6):
            t = x * i - y * j
            if t < -1.0:
                break
            s += t * t
    return s


def nested_search(x, y):
    acc = 0.0
    for i in range(1, 8):
        for j in range(1, 8):
            acc += x / (i + j * y)
            if acc > 3.0:
                return acc * i - j
    return acc


def break_and_continue(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 1:
            continue
        s += math.exp(-x * i)
        if s > 2.5:
            break
    return s * x


def golden_flag(x):
    done = False
    y = x
    k = 0
    while not done:
        y = math.sqrt(y + 1.0)
        k += 1
        done = k >= 8 or abs(y * y - y - 1.0) < 1e-3
    return y


def atan_series(x):
    s = 0.0
    p = x
    k = 0
    sign = 1.0
    while abs(p) / (2 * k + 1) > 1e-12:
        s += sign * p / (2 * k + 1)
        p *= x * x
        sign = -sign
        k += 1
    return s


# ---------------------------------------------------------------------------
# Helpers defined in this file (differentiated too)
# ---------------------------------------------------------------------------


def _square(x):
    return x * x


def use_square(x, y):
    return _square(x) + 3.0 * _square(y - x)


def _bump(x, c):
    return math.exp(-_square(x - c))


def _bump_pair(x, y):
    return _bump(x, 0.5) * _bump(y, -0.5) + _square(x * y)


def helper_chain(x, y):
    return _bump_pair(x, y) - 0.5 * _bump_pair(y, x)


def _term(x, i):
    return math.sin(x * i) / (i * i)


def helper_in_loop(x, n):
    s = 0.0
    for i in range(1, n + 1):
        s += _term(x, i)
    return s


def _to_cartesian(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def helper_tuple(r, theta):
    x, y = _to_cartesian(r, theta)
    return x * x * y + y


def _euler_step(x, v, dt):
    a = -x - 0.2 * v * abs(v)
    return x + dt * v, v + dt * a


def oscillator(x0, v0, n):
    x, v = x0, v0
    for _ in range(n):
        x, v = _euler_step(x, v, 0.1)
    return x + 0.5 * v * v


def _huber(r, delta):
    if abs(r) <= delta:
        return 0.5 * r * r
    return delta * (abs(r) - 0.5 * delta)


def huber_loss(x, y):
    return _huber(x - y, 1.0) + _huber(2.0 * x, 0.5)


def _horner(x, n):
    p = 0.0
    for k in range(n, -1, -1):
        p = p * x + 1.0 / (k + 1)
    return p


def horner_ratio(x, y):
    return _horner(x, 4) / (1.0 + _horner(y, 2) ** 2)


def _norm_cdf(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def black_scholes_call(s, k, t, r, sigma):
    vol = sigma * math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / vol
    d2 = d1 - vol
    return s * _norm_cdf(d1) - k * math.exp(-r * t) * _norm_cdf(d2)


# ---------------------------------------------------------------------------
# Small realistic numerics
# ---------------------------------------------------------------------------


def euler_decay(y0, k, n):
    y = y0
    t = 0.0
    dt = 0.1
    for _ in range(n):
        y += dt * (-k * y + math.sin(t))
        t += dt
    return y


def rk2_logistic(y0, r, n):
    y = y0
    h = 0.1
    for _ in range(n):
        k1 = r * y * (1.0 - y)
        ymid = y + 0.5 * h * k1
        k2 = r * ymid * (1.0 - ymid)
        y = y + h * k2
    return y


def pendulum_rk2(theta, omega, n):
    h = 0.05
    for _ in range(n):
        a1 = -G / PENDULUM_LENGTH * math.sin(theta)
        theta_mid = theta + 0.5 * h * omega
        omega_mid = omega + 0.5 * h * a1
        a2 = -G / PENDULUM_LENGTH * math.sin(theta_mid)
        theta += h * omega_mid
        omega += h * a2
    return theta


def newton_sqrt(a):
    x = a if a > 1.0 else 1.0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def cubic_root_newton(c):
    x = 1.0
    for _ in range(50):
        fx = x * x * x + x - c
        if abs(fx) < 1e-13:
            break
        x = x - fx / (3.0 * x * x + 1.0)
    return x


def newton_kepler(m, e):
    x = m
    it = 0
    delta = 1.0
    while abs(delta) > 1e-14 and it < 50:
        delta = (x - e * math.sin(x) - m) / (1.0 - e * math.cos(x))
        x -= delta
        it += 1
    return x


def kepler_fixed_point(m, e):
    ecc_anomaly = m
    for _ in range(60):
        ecc_anomaly = m + e * math.sin(ecc_anomaly)
    return ecc_anomaly


def fixed_point_cos(a):
    x = 0.5
    while True:
        x_new = math.cos(a * x)
        if abs(x_new - x) < 1e-13:
            return x_new
        x = x_new


def running_max(x, n):
    m = -math.inf
    for i in range(n):
        v = math.sin(x * (i + 1)) * (1.0 + 0.1 * i)
        m = max(m, v)
    return m


def running_max_if(x, y, n):
    best = x
    cur = x
    for _ in range(n):
        cur = cur * y + math.cos(cur)
        if cur > best:
            best = cur
    return best


def exp_series(x, n):
    term = 1.0
    s = 1.0
    for k in range(1, n):
        term *= x / k
        s += term
    return s


def logistic_map(r, x0, n):
    x = x0
    for _ in range(n):
        x = r * x * (1.0 - x)
    return x


def tan_continued_fraction(x, n):
    x2 = x * x
    d = 2.0 * n + 1.0
    for k in range(n, 0, -1):
        d = (2 * k - 1) - x2 / d
    return x / d


def trapezoid_gauss(a, n):
    h = 1.0 / n
    s = 0.5 * (1.0 + math.exp(-a))
    for i in range(1, n):
        t = i * h
        s += math.exp(-a * t * t)
    return s * h


def simpson_sin(a, n):
    h = math.pi / n
    s = math.sin(0.0) + math.sin(a * math.pi)
    for i in range(1, n, 2):
        s += 4.0 * math.sin(a * i * h)
    for i in range(2, n - 1, 2):
        s += 2.0 * math.sin(a * i * h)
    return s * h / 3.0


def present_value(rate, n):
    pv = 0.0
    for k in range(1, n + 1):
        pv += 100.0 / (1.0 + rate) ** k
    return pv


def flight_distance(v, angle):
    x = 0.0
    y = 0.0
    vx = v * math.cos(angle)
    vy = v * math.sin(angle)
    dt = 0.01
    while y >= 0.0:
        x += vx * dt
        y += vy * dt
        vy -= G * dt
    return x


def running_variance(x, n):
    # Welford's online algorithm over generated samples.
    mean = 0.0
    m2 = 0.0
    for k in range(1, n + 1):
        sample = math.sin(k * x) + 0.1 * k
        delta = sample - mean
        mean += delta / k
        m2 += delta * (sample - mean)
    return m2 / (n - 1)


def least_squares_loss(a, b, n):
    loss = 0.0
    for i in range(n):
        t = i / 10.0
        r = a * t + b - math.sin(t)
        loss += r * r
    return loss / n


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------

CASES = [
    # arithmetic, comparisons, logic
    Case("poly_mix", poly_mix, [(0.3, -1.2), (1.7, 0.4), (-2.5, 3.0)], (0, 1)),
    Case("ratio", ratio, [(1.5, 0.5), (-2.0, 0.7), (0.8, 3.1)], (0, 1)),
    Case("floordiv_mod", floordiv_mod, [(5.3, 1.7), (-2.3, 0.9), (7.1, -2.2)], (0, 1)),
    Case("wrap_angle", wrap_angle, [(0.5,), (4.0,), (-7.0,), (10.0,)], 0),
    Case("int_powers", int_powers, [(0.7,), (-1.3,), (2.2,)], 0),
    Case("real_powers", real_powers, [(1.3, 0.7), (0.4, 2.2), (2.5, 1.1)], (0, 1)),
    Case("negation", negation, [(0.4, 1.5), (-1.2, 0.3), (2.0, -0.8)], (0, 1)),
    Case("abs_terms", abs_terms, [(0.7, -1.1), (-1.5, 0.4), (2.0, 3.5)], (0, 1)),
    Case(
        "min_max_pair",
        min_max_pair,
        [(0.5, 1.2), (2.0, -0.3), (-1.0, 0.1), (3.0, 0.8)],
        (0, 1),
    ),
    Case("comparisons", comparisons, [(0.3, 1.0), (0.8, 1.5), (2.5, 1.0), (1.0, -2.0)], (0, 1)),
    Case("logic_ops", logic_ops, [(1.0, 2.0), (-2.0, 0.5), (-0.5, -0.3), (0.5, -0.5)], (0, 1)),
    Case("conditional_expr", conditional_expr, [(0.5,), (2.0,), (-0.4,), (-3.0,)], 0),
    Case(
        "chained_compare",
        chained_compare,
        [(0.5, 2.0), (1.5, 3.0), (2.0, 0.5), (5.0, 1.0)],
        (0, 1),
    ),
    Case("swap_sorted", swap_sorted, [(0.5, 1.5), (2.0, -1.0), (-0.7, -0.2)], (0, 1)),
    # math module
    Case("trig", trig, [(0.3,), (-1.2,), (2.5,)], 0),
    Case("inverse_trig", inverse_trig, [(-0.6,), (0.2,), (0.9,)], 0),
    Case(
        "polar_angle",
        polar_angle,
        [(1.0, 0.5), (-0.7, 1.2), (-1.5, -0.4), (0.3, -2.0)],
        (0, 1),
    ),
    Case("hyperbolic", hyperbolic, [(-1.5,), (0.2,), (2.0,)], 0),
    Case("exp_and_logs", exp_and_logs, [(0.05,), (1.3,), (4.0,)], 0),
    Case("log_bases", log_bases, [(0.2,), (1.5,), (9.0,)], 0),
    Case("math_pow", math_pow, [(1.3, 0.7), (0.4, 2.2), (2.5, -1.1)], (0, 1)),
    Case("error_functions", error_functions, [(-1.2,), (0.1,), (0.9,)], 0),
    Case("floor_ceil", floor_ceil, [(0.3,), (2.6,), (-1.45,)], 0),
    Case("fabs_copysign", fabs_copysign, [(0.7, -1.2), (-1.5, 0.4), (2.0, 3.0)], (0, 1)),
    Case("math_constants", math_constants, [(0.25,), (-0.6,), (1.3,)], 0),
    Case(
        "gaussian_pdf",
        gaussian_pdf,
        [(0.3, 0.0, 1.0), (1.5, 0.5, 0.7), (-2.0, 0.3, 2.5)],
        (0, 1, 2),
    ),
    Case("sigmoid", sigmoid, [(-3.0,), (0.2,), (4.5,)], 0),
    Case("logaddexp", logaddexp, [(0.3, 1.2), (-2.0, -4.5), (5.0, 4.0)], (0, 1)),
    Case("softplus", softplus, [(-30.0,), (-0.5,), (0.7,), (40.0,)], 0),
    Case("smooth_abs", smooth_abs, [(-0.3,), (0.004,), (2.0,)], 0),
    Case("piecewise", piecewise, [(-2.0,), (-0.5,), (0.4,), (2.5,)], 0),
    Case("relu_square", relu_square, [(-1.0,), (0.5,), (2.0,)], 0),
    Case("rosenbrock", rosenbrock, [(-1.2, 1.0), (0.5, 0.3), (1.1, 1.3)], (0, 1)),
    Case(
        "triangle_area",
        triangle_area,
        [(3.0, 4.0, 5.0), (1.0, 1.2, 1.5), (2.0, 2.0, 3.5)],
        (0, 1, 2),
    ),
    Case(
        "three_args", three_args, [(0.5, 1.5, -0.3), (1.2, -0.4, 0.8), (-0.7, 2.0, 1.1)], (0, 1, 2)
    ),
    Case(
        "three_args_reordered",
        three_args,
        [(0.5, 1.5, -0.3), (1.2, -0.4, 0.8), (-0.7, 2.0, 1.1)],
        (2, 0),
    ),
    Case(
        "three_args_middle", three_args, [(0.5, 1.5, -0.3), (1.2, -0.4, 0.8), (-0.7, 2.0, 1.1)], 1
    ),
    # statements
    Case("early_exit", early_exit, [(-1.0, 2.0), (3.0, 4.0), (0.5, 1.5)], (0, 1)),
    Case("overwritten", overwritten, [(0.3,), (1.1,), (-0.8,)], 0),
    Case("augmented", augmented, [(0.5, 1.5), (-1.2, 0.7), (2.0, -0.9)], (0, 1)),
    Case("horner_poly", horner_poly, [(-1.3,), (0.4,), (2.1,)], 0),
    Case("projectile_range", projectile_range, [(10.0, 0.3), (25.0, 0.7), (3.0, 1.2)], (0, 1)),
    Case("scaled_wave", scaled_wave, [(0.3,), (-1.7,), (2.9,)], 0),
    Case(
        "damped_sum",
        damped_sum,
        [(0.4, 0.3), (-1.0, 0.8), (2.0, -0.5), (0.4, 0.3, 0.9), (0.4, 0.3, 0.9, 2)],
        (0, 1),
    ),
    # for loops
    Case("power_series", power_series, [(0.5, 0), (0.5, 1), (0.7, 6), (-1.3, 10)], 0),
    Case("sin_sum_from", sin_sum_from, [(0.4, 2), (0.4, 3), (1.1, 8), (-0.9, 12)], 0),
    Case("stepped_range", stepped_range, [(0.3,), (-0.8,), (1.1,)], 0),
    Case("countdown", countdown, [(0.7, 0), (0.7, 1), (1.3, 5), (-0.6, 9)], 0),
    Case("even_countdown", even_countdown, [(0.2,), (-0.9,), (1.7,)], 0),
    Case("reversed_or_empty", reversed_or_empty, [(0.6, 5), (0.6, 0), (1.2, 3), (-0.4, 2)], 0),
    Case(
        "nested_grid",
        nested_grid,
        [(0.3, 0.7, 0), (0.3, 0.7, 1), (0.3, 0.7, 3), (1.1, -0.4, 5)],
        (0, 1),
    ),
    Case("triangular_sum", triangular_sum, [(0.8, 0), (0.8, 1), (0.8, 4), (1.2, 7)], 0),
    Case("upper_triangle", upper_triangle, [(0.5, 1), (0.5, 4), (-1.3, 7)], 0),
    Case("inner_countdown", inner_countdown, [(0.6, 0), (0.6, 3), (1.1, 6)], 0),
    Case("skip_multiples", skip_multiples, [(0.5, 0), (0.5, 4), (1.3, 11)], 0),
    Case("piecewise_accumulate", piecewise_accumulate, [(0.15, 5), (-0.7, 7), (2.0, 3)], 0),
    Case("iterated_map", iterated_map, [(0.3, 0), (0.3, 5), (-2.0, 20), (4.0, 30)], 0),
    Case("mixed_ints", mixed_ints, [(0, 0.5, 1, 1.5), (3, 0.5, 1, 1.5), (6, -1.2, 4, 0.3)], (1, 3)),
    Case("int_ratios", int_ratios, [(0.5, 0), (0.5, 3), (-1.7, 8)], 0),
    Case("chebyshev", chebyshev, [(0.3, 0), (0.3, 1), (0.3, 5), (-0.8, 9)], 0),
    Case("fibonacci_like", fibonacci_like, [(1.0, 0.5, 0), (1.0, 0.5, 4), (-0.3, 0.9, 10)], (0, 1)),
    Case(
        "rotate",
        rotate,
        [(1.0, 0.0, 0.3, 0), (1.0, 0.5, 0.3, 4), (-0.5, 2.0, 1.9, 7)],
        (0, 1, 2),
    ),
    Case("damped_motion", damped_motion, [(1.0, 2.0), (-0.5, 4.0), (2.0, 0.5)], (0, 1)),
    # while loops, break, continue, return in loops
    Case("decay_until_small", decay_until_small, [(0.005,), (0.05,), (1.0,), (3.0,)], 0),
    Case("while_counter", while_counter, [(0.3,), (-1.1,), (2.4,)], 0),
    Case("halve_inside_for", halve_inside_for, [(0.3, 0), (0.3, 4), (1.7, 6)], 0),
    Case("geometric_until", geometric_until, [(0.3,), (0.5,), (0.8,)], 0),
    Case("first_below", first_below, [(0.45,), (1.0,), (3.0,), (200.0,)], 0),
    Case("nested_break", nested_break, [(0.3, 0.45), (1.1, 0.75), (-0.23, 0.13)], (0, 1)),
    Case("nested_search", nested_search, [(0.3, 0.7), (1.5, 0.2), (0.05, 1.0)], (0, 1)),
    Case("break_and_continue", break_and_continue, [(0.5, 0), (0.5, 10), (0.1, 20), (2.0, 9)], 0),
    Case("golden_flag", golden_flag, [(0.5,), (3.0,), (40.0,)], 0),
    Case("atan_series", atan_series, [(0.2,), (-0.5,), (0.7,)], 0),
    # helpers
    Case("use_square", use_square, [(0.5, 1.5), (-1.0, 0.2), (2.0, -0.7)], (0, 1)),
    Case("helper_chain", helper_chain, [(0.3, -0.2), (1.0, 0.5), (-0.8, 1.4)], (0, 1)),
    Case("helper_in_loop", helper_in_loop, [(0.7, 0), (0.7, 1), (1.9, 12)], 0),
    Case("helper_tuple", helper_tuple, [(1.5, 0.3), (0.7, 2.0), (2.0, -1.0)], (0, 1)),
    Case("oscillator", oscillator, [(1.0, 0.0, 0), (1.0, 0.3, 5), (-0.5, 1.2, 30)], (0, 1)),
    Case("huber_loss", huber_loss, [(0.1, 0.3), (2.0, -0.5), (-0.2, 1.5)], (0, 1)),
    Case("horner_ratio", horner_ratio, [(0.5, 0.3), (-1.2, 1.1), (2.0, -0.6)], (0, 1)),
    Case(
        "black_scholes_call",
        black_scholes_call,
        [(100.0, 95.0, 0.5, 0.02, 0.25), (50.0, 60.0, 1.5, 0.05, 0.4), (10.0, 10.5, 0.2, 0.0, 0.3)],
        (0, 2, 3, 4),
    ),
    # realistic numerics
    Case("euler_decay", euler_decay, [(1.0, 0.5, 0), (1.0, 0.5, 10), (-2.0, 1.5, 40)], (0, 1)),
    Case("rk2_logistic", rk2_logistic, [(0.1, 1.0, 5), (0.5, 2.0, 30), (0.9, 0.3, 100)], (0, 1)),
    Case("pendulum_rk2", pendulum_rk2, [(0.3, 0.0, 1), (1.0, 0.5, 20), (-0.5, 1.0, 60)], (0, 1)),
    Case("newton_sqrt", newton_sqrt, [(0.3,), (2.0,), (50.0,)], 0),
    Case("cubic_root_newton", cubic_root_newton, [(0.5,), (3.0,), (10.0,)], 0),
    Case("newton_kepler", newton_kepler, [(0.5, 0.1), (1.5, 0.6), (3.0, 0.9)], (0, 1)),
    Case("kepler_fixed_point", kepler_fixed_point, [(0.5, 0.1), (1.5, 0.3), (2.5, 0.4)], (0, 1)),
    Case("fixed_point_cos", fixed_point_cos, [(0.5,), (0.8,), (1.0,)], 0),
    Case("running_max", running_max, [(0.3, 1), (0.3, 5), (1.3, 10), (-0.7, 8)], 0),
    Case("running_max_if", running_max_if, [(0.5, 0.9, 0), (0.5, 0.9, 6), (-1.0, 0.5, 10)], (0, 1)),
    Case("exp_series", exp_series, [(0.5, 0), (0.5, 1), (1.2, 10), (-2.0, 25)], 0),
    Case("logistic_map", logistic_map, [(2.8, 0.2, 20), (3.2, 0.6, 20), (1.5, 0.9, 8)], (0, 1)),
    Case("tan_continued_fraction", tan_continued_fraction, [(0.5, 0), (0.5, 5), (1.2, 8)], 0),
    Case("trapezoid_gauss", trapezoid_gauss, [(0.5, 1), (1.0, 10), (3.0, 50)], 0),
    Case("simpson_sin", simpson_sin, [(0.5, 2), (1.3, 10), (2.2, 40)], 0),
    Case("present_value", present_value, [(0.05, 0), (0.05, 10), (0.12, 30)], 0),
    Case("flight_distance", flight_distance, [(10.0, 0.8), (5.0, 0.3), (7.0, 1.3)], (0, 1)),
    Case("running_variance", running_variance, [(0.3, 2), (0.9, 10), (-1.7, 25)], 0),
    Case(
        "least_squares_loss",
        least_squares_loss,
        [(0.5, 0.1, 1), (1.0, -0.2, 10), (0.0, 0.3, 30)],
        (0, 1),
    ),
]

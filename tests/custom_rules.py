"""Functions with user derivative rules (sd.custom_vjp / sd.custom_jvp), and their callers."""

import math

import numba
import numpy as np

import sourcediff as sd


@sd.custom_vjp
def safe_norm(x):
    return math.sqrt(x[0] * x[0] + x[1] * x[1])


def safe_norm_fwd(x):
    y = math.sqrt(x[0] * x[0] + x[1] * x[1])
    return y, (x, y)


def safe_norm_bwd(res, g):
    x, y = res
    scale = g / y if y > 0.0 else 0.0
    return (x * scale,)


safe_norm.defvjp(safe_norm_fwd, safe_norm_bwd)


def doubled_norm(p):
    return safe_norm(p) * 2.0


def norms_in_a_loop(p, n):
    s = 0.0
    for _ in range(n):
        s += doubled_norm(p) + safe_norm(p * 0.5)
        p = p * 1.1
    return s


@sd.custom_vjp
def straight_through_floor(x):
    return float(math.floor(x))


def straight_through_fwd(x):
    return float(math.floor(x)), 0.0


def straight_through_bwd(res, g):
    return (g,)


straight_through_floor.defvjp(straight_through_fwd, straight_through_bwd)


def quantized(x):
    return straight_through_floor(3.0 * x) * x


@sd.custom_vjp
def solve(A, b):
    return np.linalg.solve(A, b)


def solve_fwd(A, b):
    x = np.linalg.solve(A, b)
    return x, (A, x)


def solve_bwd(res, g):
    A, x = res
    lam = np.linalg.solve(A.T.copy(), g)  # the adjoint of a solve is a solve with A^T
    return -np.outer(lam, x), lam


solve.defvjp(solve_fwd, solve_bwd)


def solve_loss(A, b):
    x = solve(A, b)
    return np.sum(x * x)


@numba.njit
def newton_iterations(a):
    x = a
    while abs(x * x - a) > 1e-14 * a:
        x = 0.5 * (x + a / x)
    return x


@sd.custom_vjp
def newton_sqrt(a):
    return newton_iterations(a)


def newton_sqrt_fwd(a):
    y = newton_iterations(a)
    return y, y


def newton_sqrt_bwd(y, g):
    return (g / (2.0 * y),)  # implicit function theorem on y*y - a = 0


newton_sqrt.defvjp(newton_sqrt_fwd, newton_sqrt_bwd)


def root_sum(a, b):
    return newton_sqrt(a) * b + newton_sqrt(a * b)


@sd.custom_jvp
def softplus(x):
    return math.log1p(math.exp(x))


def softplus_jvp(primals, tangents):
    (x,) = primals
    (t,) = tangents
    return math.log1p(math.exp(x)), t / (1.0 + math.exp(-x))


softplus.defjvp(softplus_jvp)


def uses_softplus(x, y):
    s = 0.0
    for i in range(3):
        s += softplus(x * y + i)
    return s + x


@sd.custom_jvp
def scaled(v):
    return 2.0 * v


def scaled_jvp(primals, tangents):
    return 2.0 * primals[0], 2.0 * tangents[0]


scaled.defjvp(scaled_jvp)


def scaled_sum(v):
    return np.sum(scaled(v))


# Custom functions that write into their arguments: refused at the writing line.
@sd.custom_vjp
def bumped(a, s):
    a[0] = a[0] + s  # a write the generated code could not see
    return a[0] * s


def bumped_fwd(a, s):
    return (a[0] + s) * s, (a[0], s)


def bumped_bwd(res, g):
    a0, s = res
    grad_a = np.zeros(2)
    grad_a[0] = g * s
    return grad_a, g * (a0 + 2.0 * s)


bumped.defvjp(bumped_fwd, bumped_bwd)


def calls_bumped(x, s):
    return bumped(x, s) + s


@sd.custom_vjp
def tail_norm(x):
    return np.sum(x[1:] * x[1:])


def tail_norm_fwd(x):
    return np.sum(x[1:] * x[1:]), (x, 2.0)


def tail_norm_bwd(res, g):
    x, two = res
    tail = x[1:]
    tail *= two * g  # scales the residual x: the caller's array
    return (x,)


tail_norm.defvjp(tail_norm_fwd, tail_norm_bwd)


def calls_tail_norm(x):
    return tail_norm(x)


@numba.njit
def _normalized_in_place(v):
    n = math.sqrt(np.sum(v * v))
    for i in range(v.shape[0]):
        v[i] = v[i] / n  # writes into the array it is given
    return n


@sd.custom_vjp
def unit_norm(x):
    return math.sqrt(np.sum(x * x))


def unit_norm_fwd(x):
    n = _normalized_in_place(x)  # the rule's helper writes into the argument
    return n, (x,)


def unit_norm_bwd(res, g):
    (u,) = res
    return (g * u,)


unit_norm.defvjp(unit_norm_fwd, unit_norm_bwd)


def calls_unit_norm(x):
    return unit_norm(x) + np.sum(x * x * x)


@sd.custom_jvp
def monomials(t):
    """``[1, t, t^2]``: a float in, an array out."""
    return np.array([1.0, t, t * t])


def monomials_jvp(primals, tangents):
    (t,) = primals
    (dt,) = tangents
    return np.array([1.0, t, t * t]), np.array([0.0, dt, 2.0 * t * dt])


monomials.defjvp(monomials_jvp)


def weighted_monomials(t, w):
    return np.dot(w, monomials(t)) + t


@sd.custom_vjp
def cube(x):
    return x**3


def cube_fwd(x):
    return cube(x), (x,)  # JAX's idiom: the rule calls the function it is the rule of


def cube_bwd(res, g):
    (x,) = res
    return (3.0 * x * x * g,)


cube.defvjp(cube_fwd, cube_bwd)


def cubes_summed(x):
    return np.sum(cube(x))


def cubes_in_a_loop(x, n):
    s = 0.0
    for _ in range(n):
        s += np.sum(cube(x)) * s + 1.0
    return s


@sd.custom_vjp
def powers(t):
    """``[t, t^2, t^3]``: a float in, an array out, with a vjp rule only."""
    return np.array([t, t * t, t * t * t])


def powers_fwd(t):
    return powers(t), (t,)


def powers_bwd(res, g):
    (t,) = res
    return (g[0] + 2.0 * t * g[1] + 3.0 * t * t * g[2],)


powers.defvjp(powers_fwd, powers_bwd)


def scaled_powers(t):
    return 2.0 * powers(t)

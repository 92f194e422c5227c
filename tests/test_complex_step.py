"""The fuzzer's complex-step reference (tests/fuzzing/complex_step.py): closed forms on
hand-written programs, refusals, and agreement with Richardson on generated programs."""

import math

import numpy as np
import pytest
from fuzzing.campaign import ARGNUMS, arguments
from fuzzing.complex_step import complex_step_gradient
from fuzzing.generator import generate
from fuzzing.reference import agree, reference_gradient, richardson_gradient


def _module(text: str) -> str:
    """A program's module: the imports the generator's programs have, then ``text``."""
    return "import math\n\nimport numpy as np\n\n\n" + text


BRANCH = _module("""def f(x0, x1):
    if x0 * x1 < 0.2:
        return x0 * x0 * x1
    return math.sin(x0) + x1
""")

ABS = _module("""def f(x0, x1, a):
    return abs(x0 - 0.5) * x1 + math.fabs(x1) + np.sum(np.abs(a))
""")

MAX = _module("""def f(x0, x1, a):
    return np.max(a) * x0 + max(x0, x1) + np.sum(np.maximum(a, x1))
""")

ZEROS = _module("""def fill(z, a):
    z[1:] = a[:2] ** 2
    a[0] = 0.0


def f(x0, x1, a):
    z = np.zeros(3)
    z[0] = float(x0) * x1
    fill(z, a)
    return np.sum(z * z) + np.linalg.norm(a)
""")


def _close(grads, expected):
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("x0, x1", [(0.3, 0.4), (0.9, 0.7)])
def test_branch_follows_the_real_part(x0, x1):
    grads = complex_step_gradient(BRANCH, (x0, x1), (0, 1))
    expected = [2 * x0 * x1, x0 * x0] if x0 * x1 < 0.2 else [math.cos(x0), 1.0]
    _close(grads, expected)


def test_abs_is_sign_times_value():
    a = np.array([0.3, -0.2, 0.5, -0.7])
    grads = complex_step_gradient(ABS, (0.2, -0.6, a), (0, 1, 2))
    _close(grads, [0.6, abs(0.2 - 0.5) - 1.0, np.sign(a)])


def test_max_picks_by_real_part():
    a = np.array([0.3, -0.2, 0.5, -0.7])
    x0, x1 = 0.1, 0.2
    grads = complex_step_gradient(MAX, (x0, x1, a), (0, 1, 2))
    da = np.array([0.0, 0.0, x0, 0.0]) + (a > x1)
    _close(grads, [np.max(a), 1.0 + np.sum(a <= x1), da])


def test_writes_into_new_and_argument_arrays_keep_the_derivative():
    a = np.array([0.3, -0.2, 0.5, -0.7])
    x0, x1 = 0.4, -0.3
    grads = complex_step_gradient(ZEROS, (x0, x1, a), (0, 1, 2))
    after = np.array([0.0, -0.2, 0.5, -0.7])  # fill writes a[0] = 0 before the norm
    da = 4 * np.array([a[0] ** 3, a[1] ** 3, 0.0, 0.0]) + after / np.linalg.norm(after)
    _close(grads, [2 * x0 * x1 * x1, 2 * x0 * x0 * x1, da])
    np.testing.assert_array_equal(a, [0.3, -0.2, 0.5, -0.7])  # the caller's array


def test_not_complex_safe_is_refused_and_richardson_stands_in():
    """No complex stand-in: the reference is Richardson's, stable where it is (here a
    smooth point), unstable at a kink (x0 % 1.0 at x0 = 1)."""
    source = _module("def f(x0, x1):\n    return x0 % 1.0 + np.interp(x1, [0.0], [1.0])\n")
    with pytest.raises(NotImplementedError):
        complex_step_gradient(source, (0.3, 0.4), (0, 1))
    namespace = {}
    exec(source, namespace)
    grads, stable = reference_gradient(namespace["f"], (0.3, 0.4), (0, 1), source=source)
    assert stable
    np.testing.assert_allclose(grads, [1.0, 0.0], atol=1e-9)
    _, stable = reference_gradient(namespace["f"], (1.0, 0.4), (0, 1), source=source)
    assert not stable


@pytest.mark.parametrize("seed", range(1000, 1020))
def test_generated_programs_agree_with_richardson(seed):
    program = generate(seed)
    namespace = {}
    exec(program.source, namespace)
    args = arguments(seed)
    richardson, stable = richardson_gradient(namespace["f"], args, ARGNUMS)
    complex_step = complex_step_gradient(program.source, args, ARGNUMS)
    if stable:
        assert agree(complex_step, richardson), program.source
    _, both = reference_gradient(namespace["f"], args, ARGNUMS, source=program.source)
    assert both == (stable and agree(complex_step, richardson))


STAND_INS = [
    "max(x0, x1, 0.1) + min(a) + max(a, key=lambda v: -v) + float(x0) * int(x1 * 10)",
    "np.sum(np.minimum(a, x0)) + np.max(m, axis=0)[1] + np.min(m, axis=1)[2] + np.ptp(a)",
    "a[np.argmax(a)] * a[np.argmin(np.abs(a))] + np.sum(np.sort(a) * np.arange(4))",
    "np.sum(np.clip(a, -0.3, x0)) + np.median(a) + np.var(a) + np.std(m) + np.vdot(a, a)",
    "np.linalg.norm(a, 1) + np.linalg.norm(a, np.inf) + np.sum(np.linalg.norm(m, axis=0))",
    "np.sum(np.sign(a) * a) + math.floor(x0 * 3) + np.sum(np.floor(a * 3) * a) + round(x1, 1)",
    "math.atan2(x0, x1) + math.atan2(x1, -0.5) + np.sum(np.arctan2(a, a[::-1]))",
    "math.hypot(x0, x1) + math.copysign(x0, x1) + math.fmod(x1 * 5, 0.7) + math.cbrt(x1)",
    "math.asin(x0 / 2) + math.acos(x1 / 2) + math.acosh(2 + x0) + math.atanh(x1 / 2)",
    "math.log(2 + x0, 3) + math.log1p(x0 * x0) + math.expm1(x1) + math.pow(1.5 + x0, x1)",
    "np.sum(np.linalg.solve(m + 2 * np.eye(4), a)) + np.linalg.det(m) + np.sum(np.cbrt(a))",
    "np.sum(np.where(a > x0, a * x1, np.tanh(a))) + np.sum(np.full(4, x1) * np.ones_like(a))",
    "np.sum(a.astype(np.float64) * np.array([x0, 1.0, x1, 2.0])) + np.sum(np.real(a) * a)",
]


@pytest.mark.parametrize("expression", STAND_INS)
def test_stand_ins_agree_with_richardson(expression):
    source = _module(f"def f(x0, x1, a, m, n):\n    return {expression}\n")
    namespace = {}
    exec(source, namespace)
    m = np.random.default_rng(3).uniform(-0.6, 0.6, (4, 4))
    args = (0.4, -0.675, np.array([-0.52, -0.29, 0.48, -0.42]), m, 3)
    richardson, stable = richardson_gradient(namespace["f"], args, ARGNUMS)
    assert stable
    assert agree(complex_step_gradient(source, args, ARGNUMS), richardson)

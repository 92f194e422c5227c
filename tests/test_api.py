"""The public API on scalar functions, against closed forms and central finite differences.

Transformed functions are built once at module level (building only parses; the first call
generates and compiles) and reused. Most use ``jit=False``, which runs the same generated
source as plain Python; compilation is exercised where it is the point (bare decorator,
``sd.jit``, jit vs no jit, Numba helpers), because each compile costs about half a second.
"""

import functools
import math

import numba
import numpy as np
import pytest
from reference import assert_close, central_difference

import sourcediff as sd

RTOL = 1e-7
ATOL = 1e-9
EXACT = 1e-12  # for closed forms: agreement to rounding

# ---------------------------------------------------------------------------
# User functions
# ---------------------------------------------------------------------------

SCALE = 1.75
OFFSET = 3


def poly(x, y):
    return x * x * y + 3.0 * y - x / y


def poly_grad(x, y):
    """Closed form (d/dx, d/dy) of poly."""
    return 2.0 * x * y - 1.0 / y, x * x + 3.0 + x / (y * y)


def three(x, y, z):
    return x * math.sin(y) + z * z * x


def with_defaults(x, y=2.0, n=3):
    s = 0.0
    for i in range(n):
        s += x * y + i * x * x
    return s


def with_defaults_grad(x, y=2.0, n=3):
    """Closed form (d/dx, d/dy) of with_defaults."""
    tri = n * (n - 1) / 2
    return n * y + 2.0 * x * tri, n * x


def _bump(x, y):
    return x * y + math.cos(y)


def loop_branch_helper(x, y, n):
    s = 0.0
    for i in range(n):
        if s < 3.0:
            s += math.sin(x * i) * y
        else:
            s = s * 0.5 + _bump(x, y)
    return s


def polar(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


def mixed_pair(x, n):
    return x**n, n * x


def uses_constant(x):
    return SCALE * x * x + OFFSET * x


def make_scaled_square(k):
    def scaled_square(x):
        return k * x * x + math.sin(k * x)

    return scaled_square


scaled_by_two = make_scaled_square(2.0)
scaled_by_five = make_scaled_square(5.0)


@numba.njit
def _nb_term(x, y):
    return x * math.sin(y)


def calls_njit_helper(x, y):
    return _nb_term(x, y) + x * x


@numba.njit
def njit_itself(x, y):
    return x * x * math.exp(y)


@sd.grad
def decorated(x):
    return x * x * x + math.sin(x)


@sd.grad(argnums=1, jit=False)
def decorated_with_options(x, y):
    return x * y * y


def absolute(x):
    return abs(x)


def maximum(x, y):
    return max(x, y)


def minimum(x, y):
    return min(x, y)


def floored(x):
    return 2.0 * math.floor(x)


def floored_plus(x):
    return x + math.floor(x)


def fabs_of(x):
    return math.fabs(x)


def hypot_of(x, y):
    return math.hypot(x, y)


def power_of(x, y):
    return x**y


def kinks(x, y):
    return abs(x) + 2.0 * max(x, y) + 4.0 * min(x, y) + math.floor(x)


def smooth_a(x, y):
    return math.exp(-x * y) * math.log(1.0 + y * y) + math.atan2(y, x)


def smooth_b(x):
    s = x
    for _ in range(5):
        s = s - (s * s - 2.0) / (2.0 * s) + 0.01 * x
    return s


# Built once, reused below.
G_POLY_X = sd.grad(poly, jit=False)
G_POLY_XY = sd.grad(poly, argnums=(0, 1), jit=False)
G_POLY_YX = sd.grad(poly, argnums=(1, 0), jit=False)
G_POLY_NEG = sd.grad(poly, argnums=-1, jit=False)
G_THREE_NEG = sd.grad(three, argnums=(-1, 0), jit=False)
G_DEFAULTS = sd.grad(with_defaults, argnums=(0, 1), jit=False)
VG_POLY = sd.value_and_grad(poly, argnums=(0, 1), jit=False)
VG_POLY_X = sd.value_and_grad(poly, jit=False)


def assert_python_float(value, what=""):
    assert type(value) is float, f"{what} should be a Python float, got {type(value)!r} {value!r}"


# ---------------------------------------------------------------------------
# grad: decorator, argnums
# ---------------------------------------------------------------------------


def test_bare_decorator():
    x = 0.7
    g = decorated(x)
    assert_python_float(g)
    assert_close(g, 3.0 * x * x + math.cos(x), EXACT, 0.0)


def test_decorator_with_options():
    g = decorated_with_options(1.5, 0.5)
    assert_python_float(g)
    assert_close(g, 2.0 * 1.5 * 0.5, EXACT, 0.0)


@pytest.mark.parametrize("point", [(1.5, 0.5), (-0.3, 2.0), (2.0, -1.25)])
def test_grad_int_argnums_is_a_float(point):
    g = G_POLY_X(*point)
    assert_python_float(g)
    assert_close(g, poly_grad(*point)[0], EXACT, 1e-15)
    assert_close(g, central_difference(poly, point, 0), RTOL, ATOL)


@pytest.mark.parametrize("point", [(1.5, 0.5), (-0.3, 2.0)])
def test_grad_tuple_argnums_is_a_tuple_in_the_given_order(point):
    gx, gy = poly_grad(*point)
    both = G_POLY_XY(*point)
    swapped = G_POLY_YX(*point)
    assert isinstance(both, tuple) and len(both) == 2
    assert isinstance(swapped, tuple) and len(swapped) == 2
    for value in both + swapped:
        assert_python_float(value)
    assert_close(both, (gx, gy), EXACT, 1e-15)
    assert_close(swapped, (gy, gx), EXACT, 1e-15)
    assert_close(both, central_difference(poly, point, (0, 1)), RTOL, ATOL)


def test_single_argnum_in_a_tuple_gives_a_tuple():
    g = sd.grad(poly, argnums=(1,), jit=False)(1.5, 0.5)
    assert isinstance(g, tuple) and len(g) == 1
    assert_close(g[0], poly_grad(1.5, 0.5)[1], EXACT, 0.0)


def test_negative_argnums():
    point = (1.5, 0.5)
    assert_close(G_POLY_NEG(*point), poly_grad(*point)[1], EXACT, 0.0)
    x, y, z = 0.8, 1.1, -0.6
    dz, dx = G_THREE_NEG(x, y, z)
    assert_close((dz, dx), (2.0 * z * x, math.sin(y) + z * z), EXACT, 1e-15)


# ---------------------------------------------------------------------------
# Keyword and default arguments at call time
# ---------------------------------------------------------------------------


def test_defaults_are_applied():
    g = G_DEFAULTS(0.9)
    assert_close(g, with_defaults_grad(0.9), EXACT, 1e-15)


def test_keyword_arguments():
    expected = with_defaults_grad(0.9, 1.5, 4)
    assert_close(G_DEFAULTS(0.9, y=1.5, n=4), expected, EXACT, 1e-15)
    assert_close(G_DEFAULTS(n=4, y=1.5, x=0.9), expected, EXACT, 1e-15)
    assert_close(G_DEFAULTS(0.9, 1.5, n=4), expected, EXACT, 1e-15)


def test_keyword_only_some_defaults():
    expected = with_defaults_grad(-0.4, 2.0, 6)
    assert_close(G_DEFAULTS(-0.4, n=6), expected, EXACT, 1e-15)
    reference = central_difference(lambda x, y: with_defaults(x, y, n=6), (-0.4, 2.0), (0, 1))
    assert_close(G_DEFAULTS(-0.4, n=6), reference, RTOL, ATOL)


def test_argnums_on_a_defaulted_argument():
    g = sd.grad(with_defaults, argnums=1, jit=False)(0.9)
    assert_close(g, with_defaults_grad(0.9)[1], EXACT, 0.0)


# ---------------------------------------------------------------------------
# value_and_grad
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("point", [(1.5, 0.5), (-0.3, 2.0)])
def test_value_and_grad(point):
    value, grads = VG_POLY(*point)
    assert_python_float(value, "value")
    assert_close(value, poly(*point), EXACT, 0.0)
    assert_close(grads, poly_grad(*point), EXACT, 1e-15)
    value_x, grad_x = VG_POLY_X(*point)
    assert_python_float(grad_x, "grad")
    assert value_x == value
    assert_close(grad_x, G_POLY_X(*point), EXACT, 0.0)


# ---------------------------------------------------------------------------
# vjp
# ---------------------------------------------------------------------------


def test_vjp_scalar_function():
    point = (1.5, 0.5)
    out, pullback = sd.vjp(poly, *point, jit=False)
    assert_python_float(out, "out")
    assert_close(out, poly(*point), EXACT, 0.0)
    cotangents = pullback(1.0)
    assert isinstance(cotangents, tuple) and len(cotangents) == 2
    for c in cotangents:
        assert_python_float(c)
    assert_close(cotangents, poly_grad(*point), EXACT, 1e-15)
    scaled = pullback(-2.5)
    assert_close(scaled, tuple(-2.5 * g for g in poly_grad(*point)), EXACT, 1e-15)


def test_vjp_tuple_function():
    r, theta = 2.0, 0.6
    out, pullback = sd.vjp(polar, r, theta, jit=False)
    assert isinstance(out, tuple) and len(out) == 2
    for o in out:
        assert_python_float(o, "out")
    assert_close(out, polar(r, theta), EXACT, 0.0)
    c, s = math.cos(theta), math.sin(theta)
    assert_close(pullback((1.0, 0.0)), (c, -r * s), EXACT, 1e-15)
    assert_close(pullback((0.0, 1.0)), (s, r * c), EXACT, 1e-15)
    u, v = 0.3, -1.7
    assert_close(pullback((u, v)), (u * c + v * s, -u * r * s + v * r * c), EXACT, 1e-15)


def test_vjp_int_primal_gets_none():
    x, n = 1.3, 3
    out, pullback = sd.vjp(mixed_pair, x, n, jit=False)
    assert_close(out, (x**n, n * x), EXACT, 0.0)
    dx, dn = pullback((1.0, 0.0))
    assert dn is None
    assert_python_float(dx)
    assert_close(dx, n * x ** (n - 1), EXACT, 0.0)
    dx, dn = pullback((0.5, 2.0))
    assert dn is None
    assert_close(dx, 0.5 * n * x ** (n - 1) + 2.0 * n, EXACT, 0.0)


def test_vjp_scalar_function_with_int_primal():
    out, pullback = sd.vjp(with_defaults, 0.9, 1.5, 4, jit=False)
    assert_close(out, with_defaults(0.9, 1.5, 4), EXACT, 0.0)
    dx, dy, dn = pullback(1.0)
    assert dn is None
    assert_close((dx, dy), with_defaults_grad(0.9, 1.5, 4), EXACT, 1e-15)


# ---------------------------------------------------------------------------
# jacobian and jvp
# ---------------------------------------------------------------------------


def test_jacobian_of_a_tuple_function_has_one_row_per_output():
    r, theta = 2.0, 0.6
    c, s = math.cos(theta), math.sin(theta)
    rows = sd.jacobian(polar, jit=False)(r, theta)
    assert isinstance(rows, tuple) and len(rows) == 2
    for row in rows:
        assert_python_float(row)
    assert_close(rows, (c, s), EXACT, 1e-15)
    rows = sd.jacobian(polar, argnums=1, jit=False)(r, theta)
    assert_close(rows, (-r * s, r * c), EXACT, 1e-15)


def test_jacobian_with_argnums_tuple():
    r, theta = 2.0, 0.6
    c, s = math.cos(theta), math.sin(theta)
    rows = sd.jacobian(polar, argnums=(0, 1), jit=False)(r, theta)
    assert isinstance(rows, tuple) and len(rows) == 2
    assert isinstance(rows[0], tuple) and isinstance(rows[1], tuple)
    assert_close(rows[0], (c, -r * s), EXACT, 1e-15)
    assert_close(rows[1], (s, r * c), EXACT, 1e-15)
    swapped = sd.jacobian(polar, argnums=(1, 0), jit=False)(r, theta)
    assert_close(swapped[0], (-r * s, c), EXACT, 1e-15)
    assert_close(swapped[1], (r * c, s), EXACT, 1e-15)


@pytest.mark.parametrize("mode", ["auto", "forward", "reverse"])
def test_jacobian_modes_agree(mode):
    rows = sd.jacobian(polar, argnums=(0, 1), mode=mode, jit=False)(2.0, 0.6)
    reference = tuple(
        central_difference(lambda r, t, k=k: polar(r, t)[k], (2.0, 0.6), (0, 1)) for k in (0, 1)
    )
    for row, ref in zip(rows, reference, strict=True):
        assert_close(row, ref, RTOL, ATOL)


def test_jacobian_of_a_scalar_function_is_the_gradient():
    point = (1.5, 0.5)
    assert_close(sd.jacobian(poly, jit=False)(*point), poly_grad(*point)[0], EXACT, 0.0)
    both = sd.jacobian(poly, argnums=(0, 1), jit=False)(*point)
    assert_close(both, poly_grad(*point), EXACT, 1e-15)


def test_jvp_scalar_function():
    x, y = 1.5, 0.5
    dx, dy = 0.2, -0.7
    out, tangent = sd.jvp(poly, (x, y), (dx, dy), jit=False)
    assert_python_float(out, "out")
    assert_python_float(tangent, "tangent")
    gx, gy = poly_grad(x, y)
    assert_close(out, poly(x, y), EXACT, 0.0)
    assert_close(tangent, gx * dx + gy * dy, EXACT, 1e-15)


def test_jvp_tuple_function():
    r, theta = 2.0, 0.6
    dr, dtheta = 0.25, -1.5
    c, s = math.cos(theta), math.sin(theta)
    out, tangent = sd.jvp(polar, (r, theta), (dr, dtheta), jit=False)
    assert_close(out, polar(r, theta), EXACT, 0.0)
    assert isinstance(tangent, tuple) and len(tangent) == 2
    expected = (c * dr - r * s * dtheta, s * dr + r * c * dtheta)
    assert_close(tangent, expected, EXACT, 1e-15)


def test_jvp_ignores_int_primals():
    x, n = 1.3, 3
    out, tangent = sd.jvp(mixed_pair, (x, n), (2.0, 0), jit=False)
    assert_close(out, (x**n, n * x), EXACT, 0.0)
    assert_close(tangent, (2.0 * n * x ** (n - 1), 2.0 * n), EXACT, 0.0)


# ---------------------------------------------------------------------------
# sd.jit and jit=False
# ---------------------------------------------------------------------------

JIT_LOOP = sd.jit(loop_branch_helper)
JIT_DEFAULTS = sd.jit(with_defaults)


@pytest.mark.parametrize("point", [(1.5, 0.3, 10), (0.2, 2.0, 7), (-1.1, 0.8, 0)])
def test_jit_matches_plain_python_with_a_helper(point):
    assert_close(JIT_LOOP(*point), loop_branch_helper(*point), 1e-14, 0.0)


def test_jit_with_default_and_keyword_arguments():
    assert_close(JIT_DEFAULTS(0.9), with_defaults(0.9), 1e-14, 0.0)
    assert_close(JIT_DEFAULTS(0.9, n=5), with_defaults(0.9, n=5), 1e-14, 0.0)
    assert_close(JIT_DEFAULTS(0.9, y=-1.5), with_defaults(0.9, y=-1.5), 1e-14, 0.0)
    assert_close(JIT_DEFAULTS(n=2, x=0.4, y=3.0), with_defaults(0.4, 3.0, 2), 1e-14, 0.0)


@pytest.fixture(scope="module")
def loop_grads():
    return (
        sd.grad(loop_branch_helper, argnums=(0, 1)),
        sd.grad(loop_branch_helper, argnums=(0, 1), jit=False),
    )


@pytest.mark.parametrize("point", [(1.5, 0.3, 10), (0.2, 2.0, 7), (0.9, 1.3, 25)])
def test_jit_false_gives_the_same_gradient(loop_grads, point):
    compiled, plain = loop_grads
    g_jit = compiled(*point)
    g_py = plain(*point)
    assert_close(g_py, g_jit, 1e-12, 1e-14)
    for value in g_jit + g_py:
        assert_python_float(value)
    assert_close(g_jit, central_difference(loop_branch_helper, point, (0, 1)), 1e-6, 1e-8)


# ---------------------------------------------------------------------------
# check_grad
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("func", "args", "argnums"),
    [
        (poly, (1.5, 0.5), (0, 1)),
        (smooth_a, (0.7, 1.3), (0, 1)),
        (smooth_b, (1.2,), 0),
        (loop_branch_helper, (1.5, 0.3, 10), (0, 1)),
        (with_defaults, (0.9, 1.5, 4), 0),
    ],
    ids=["poly", "smooth_a", "smooth_b", "loop_branch_helper", "with_defaults"],
)
def test_check_grad_passes(func, args, argnums):
    sd.check_grad(func, *args, argnums=argnums, jit=False)


def test_check_grad_passes_compiled():
    sd.check_grad(loop_branch_helper, 1.5, 0.3, 10, argnums=(0, 1))


def test_check_grad_fails_at_a_kink():
    # Finite differences of abs at 0 give 0; sourcediff gives the documented +1.
    with pytest.raises(AssertionError) as info:
        sd.check_grad(absolute, 0.0, jit=False)
    assert "absolute" in str(info.value)
    sd.check_grad(absolute, 0.5, jit=False)


# ---------------------------------------------------------------------------
# Documented one-sided derivatives at non-differentiable points
# ---------------------------------------------------------------------------


def _finite(*values):
    return all(math.isfinite(v) for v in values)


def test_abs_at_zero_is_plus_one():
    assert sd.grad(absolute, jit=False)(0.0) == 1.0
    assert sd.grad(absolute, jit=False)(-0.0) == 1.0
    assert sd.grad(absolute, jit=False)(-2.0) == -1.0


def test_fabs_at_zero_is_plus_one():
    assert sd.grad(fabs_of, jit=False)(0.0) == 1.0


def test_max_tie_goes_to_the_first_argument():
    assert sd.grad(maximum, argnums=(0, 1), jit=False)(1.25, 1.25) == (1.0, 0.0)
    assert sd.grad(maximum, argnums=(0, 1), jit=False)(1.0, 2.0) == (0.0, 1.0)


def test_min_tie_goes_to_the_first_argument():
    assert sd.grad(minimum, argnums=(0, 1), jit=False)(1.25, 1.25) == (1.0, 0.0)
    assert sd.grad(minimum, argnums=(0, 1), jit=False)(3.0, 2.0) == (0.0, 1.0)


@pytest.mark.parametrize("x", [1.0, 0.0, -2.0, 1.5, -0.5])
def test_floor_has_derivative_zero(x):
    g = sd.grad(floored, jit=False)(x)
    assert_python_float(g)
    assert g == 0.0
    assert sd.grad(floored_plus, jit=False)(x) == 1.0


def test_hypot_at_the_origin_is_zero():
    g = sd.grad(hypot_of, argnums=(0, 1), jit=False)(0.0, 0.0)
    assert g == (0.0, 0.0)


def test_power_with_respect_to_exponent_at_nonpositive_base_is_zero():
    g = sd.grad(power_of, argnums=(0, 1), jit=False)(-2.0, 2.0)
    assert _finite(*g)
    assert g == (-4.0, 0.0)
    g = sd.grad(power_of, argnums=(0, 1), jit=False)(0.0, 2.0)
    assert g == (0.0, 0.0)


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_kinks_never_nan(jit):
    dx, dy = sd.grad(kinks, argnums=(0, 1), jit=jit)(0.0, 0.0)
    assert _finite(dx, dy)
    # abs -> +1, max and min ties -> first argument, floor -> 0.
    assert (dx, dy) == (1.0 + 2.0 + 4.0 + 0.0, 0.0)


# ---------------------------------------------------------------------------
# Module constants, closures, Numba helpers
# ---------------------------------------------------------------------------


def test_module_level_constant():
    g = sd.grad(uses_constant, jit=False)(0.8)
    assert_close(g, 2.0 * SCALE * 0.8 + OFFSET, EXACT, 0.0)


def test_closure_variable():
    x = 0.45
    for func, k in ((scaled_by_two, 2.0), (scaled_by_five, 5.0)):
        g = sd.grad(func, jit=False)(x)
        assert_close(g, 2.0 * k * x + k * math.cos(k * x), EXACT, 0.0)
        assert_close(g, central_difference(func, (x,), 0), RTOL, ATOL)


def test_closures_with_different_values_do_not_share_a_cache_entry():
    x = 0.45
    two = sd.grad(scaled_by_two, jit=False)(x)
    five = sd.grad(scaled_by_five, jit=False)(x)
    assert two != five
    assert sd.jit(scaled_by_five)(x) == pytest.approx(scaled_by_five(x), rel=1e-14)


def test_numba_njit_helper():
    x, y = 0.8, 1.3
    value, grads = sd.value_and_grad(calls_njit_helper, argnums=(0, 1))(x, y)
    assert_python_float(value, "value")
    assert_close(value, x * math.sin(y) + x * x, EXACT, 0.0)
    assert_close(grads, (math.sin(y) + 2.0 * x, x * math.cos(y)), EXACT, 1e-15)
    for g in grads:
        assert_python_float(g)


def test_numba_njit_function_itself():
    x, y = 0.8, 1.3
    g = sd.grad(njit_itself, argnums=(0, 1), jit=False)(x, y)
    assert_close(g, (2.0 * x * math.exp(y), x * x * math.exp(y)), EXACT, 0.0)


# ---------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------


def test_results_are_python_floats_with_numpy_scalars_in():
    import numpy as np

    value, g = VG_POLY_X(np.float64(1.5), np.float64(0.5))
    assert_python_float(value, "value")
    assert_python_float(g, "grad")
    assert_close(g, poly_grad(1.5, 0.5)[0], EXACT, 0.0)


def test_gradient_of_an_int_valued_intermediate_is_a_float_zero():
    g = sd.grad(floored, jit=False)(2.5)
    assert_python_float(g)


def _squares(x):
    return x * x


def _sum_of_cubes(x):
    return np.sum(x * x * x)


def test_progress_line_on_long_check_grad_and_jacobian(monkeypatch, capsys):
    """Past QUIET_SECONDS (zero here) and with SOURCEDIFF_PROGRESS=1, loops over inputs
    report on standard error; the line is cleared at the end."""
    import sourcediff.progress

    monkeypatch.setattr(sourcediff.progress, "QUIET_SECONDS", 0.0)
    monkeypatch.setenv("SOURCEDIFF_PROGRESS", "1")
    sd.check_grad(_sum_of_cubes, np.linspace(0.5, 1.5, 5), jit=False)
    assert (
        "finite differences of _sum_of_cubes in argument 0: 5/5 (100%)" in capsys.readouterr().err
    )
    x = np.linspace(0.5, 1.5, 4, dtype=np.float32)  # float32: one pass per direction
    rows = sd.jacobian(_squares, mode="reverse", jit=False)(x)
    np.testing.assert_allclose(rows, np.diag(2.0 * x), rtol=1e-6)
    err = capsys.readouterr().err
    assert "Jacobian of _squares, reverse passes of output 0: 4/4" in err
    assert err.endswith("\r")


def test_no_progress_line_when_quiet(capsys):
    sd.check_grad(_sum_of_cubes, np.linspace(0.5, 1.5, 5), jit=False)
    assert capsys.readouterr().err == ""


def _sine_times(x):
    return math.sin(x) * x


_SINE_GRAD = sd.grad(_sine_times, jit=False)


def _calls_a_gradient(x):
    return _SINE_GRAD(x) * 2.0


def _doubled(fn):
    @functools.wraps(fn)
    def twice(x):
        return 2.0 * fn(x)

    return twice


@_doubled
def _square_doubled(x):
    return x * x


@pytest.mark.parametrize(
    "make",
    [
        lambda: sd.grad(_SINE_GRAD, jit=False),
        lambda: sd.jacobian(_SINE_GRAD, jit=False),
        lambda: sd.jit(_SINE_GRAD),
        lambda: sd.grad(sd.hessian(_sine_times, jit=False), jit=False),
        lambda: sd.grad(_calls_a_gradient, jit=False),
    ],
    ids=["grad-of-grad", "jacobian-of-grad", "jit-of-grad", "grad-of-hessian", "helper"],
)
def test_a_derivative_is_refused_never_mistaken_for_its_primal(make):
    """``sd.grad(f)`` wraps ``f`` (``__wrapped__``) but computes f': differentiating it as
    ``f`` would return f' for f''. Refused, naming the user's file."""
    with pytest.raises(sd.SourceDiffError, match="derivative made by sd") as caught:
        make()(0.7)
    assert "test_api.py" in str(caught.value)


def test_a_decorator_made_with_functools_wraps_is_differentiated_as_it_runs():
    """The wrapper's own code runs (twice the square), not the function it wraps."""
    assert sd.grad(_square_doubled, jit=False)(1.5) == 6.0
    assert sd.grad(sd.jit(_sine_times), jit=False)(0.7) == _SINE_GRAD(0.7)  # sd.jit: f itself


def _with_a_default(x, a, c=1.5):
    return math.exp(c * x) + a * a


def test_check_grad_fills_defaults_for_argnums_that_name_them():
    sd.check_grad(_with_a_default, 0.4, 0.7, argnums=(0, 1, 2), jit=False)
    sd.check_grad(_with_a_default, 0.4, 0.7, argnums=-1, jit=False)


def test_a_cotangent_or_tangent_that_is_no_number_is_an_argument_error():
    _, pullback = sd.vjp(_sine_times, 0.7, jit=False)
    with pytest.raises(sd.ArgumentError, match="cotangent for a float output"):
        pullback(None)
    with pytest.raises(sd.ArgumentError, match="tangent for a float input"):
        sd.jvp(_sine_times, (0.7,), (np.ones(2),), jit=False)


def _cubed_sum(a):
    return np.sum(a * a * a)


def test_vjp_gives_a_0d_array_argument_its_cotangent_as_grad_does():
    a = np.array(2.0, dtype=np.float32)
    _, pullback = sd.vjp(_cubed_sum, a, jit=False)
    (cotangent,) = pullback(1.0)
    assert (
        isinstance(cotangent, np.ndarray) and cotangent.shape == () and cotangent.dtype == a.dtype
    )
    assert cotangent == sd.grad(_cubed_sum, jit=False)(a) == 12.0


def test_generated_source_takes_args_or_a_signature_not_both():
    with pytest.raises(sd.ArgumentError, match="not both"):
        sd.adjoint_source(_sine_times, args=(0.5,), signature="float64")


def test_a_float32_scalar_gets_a_float32_gradient():
    """A gradient has the type of its input: np.float32 for np.float32 (np.float64 is a
    Python float, and gets one)."""
    import numpy as np

    gx, gy = sd.grad(poly, argnums=(0, 1), jit=False)(np.float32(1.5), 0.5)
    assert type(gx) is np.float32 and type(gy) is float
    assert_close(float(gx), poly_grad(1.5, 0.5)[0], 1e-6, 0.0)

"""User-style functions that each use exactly one construct outside the differentiable subset.

Used by test_refusals.py. The offending line of each function carries the marker comment
``# <- refused``; the tests find it by scanning the function's source, so the expected line
numbers survive edits to this file. Apart from the one refused construct every function is
ordinary numeric Python of the supported kind (floats, ints, math, range loops).
"""

import math
from operator import mul as c_mul

import numpy as np

SCALE = 2.5
COUNTER = 0.0


# ---------------------------------------------------------------------------
# Generators, exceptions, context managers
# ---------------------------------------------------------------------------


def uses_yield(x):
    s = x * x
    yield s  # <- refused
    return s


def uses_yield_from(x, n):
    s = x * 2.0
    yield from range(n)  # <- refused
    return s


def uses_try_except(x):
    try:  # <- refused
        y = math.log(x)
    except ValueError:
        y = 0.0
    return y * x


def uses_bare_try(x):
    try:  # <- refused
        y = math.log(x)
    finally:
        y = x
    return y * x


def uses_with(x):
    with np.errstate(all="ignore"):  # <- refused
        y = np.log(x)
    return y * x


# ---------------------------------------------------------------------------
# Functions and classes defined inside the function
# ---------------------------------------------------------------------------


def zips_outside_a_loop(x, y):
    pairs = zip(x, y)  # <- refused
    return x[0] + len(pairs)


def einsum_with_ellipsis(A, x):
    y = np.einsum("...j,j->...", A, x)  # <- refused
    return np.sum(y)


def norm_of_order_three(x):
    return np.linalg.norm(x, ord=3) * x[0]  # <- refused


def rolls_along_a_tuple_of_axes(A):
    return np.sum(np.roll(A, 1, axis=(0, 1)) * A)  # <- refused


def reduces_over_a_variable_tuple_axis(A, k):
    return np.sum(np.mean(A, axis=(0, k)))  # <- refused


def reduces_over_axes_of_mixed_signs(A):
    return np.sum(np.max(A, axis=(0, -1)))  # <- refused


def differences_a_variable_number_of_times(x, n):
    return np.sum(np.diff(x, n) ** 2)  # <- refused


def differences_along_a_variable_axis(A, k):
    return np.sum(np.diff(A, axis=k) ** 2)  # <- refused


def differences_with_a_keyword_numpy_lacks(A):
    return np.sum(np.diff(A, prepend=0.0) ** 2)  # <- refused


def sorts_an_array_with_the_builtin(x):
    return sorted(x)[0] * 2.0  # <- refused (the builtin sum of an array is np.sum's now)


def writes_into_appended_list(x):
    xs = [x[0]]
    xs.append(x[1] * 2.0)
    xs[0] = 0.5  # <- refused
    return np.sum(xs)


def generator_in_while_test(x):
    s = x[0]
    while sum(x[i] for i in range(2)) > s:  # <- refused
        s += 1.0
    return s


def enumerates_into_one_name(x):
    s = 0.0
    for pair in enumerate(x):  # <- refused
        s += x[0] * len(pair)
    return s


def uses_lambda_as_argument(x):
    return _apply(lambda t: t * t, x)  # <- refused


def _apply(func, x):
    return func(x)


def uses_nested_function_as_value(x):
    def square(t):
        return t * t

    alias = square  # <- refused
    return alias(x) + x


def uses_def_inside_loop(x):
    s = 0.0
    for _ in range(3):

        def term(t):  # <- refused
            return t * 2.0

        s += term(x)
    return s


def uses_recursive_nested_def(x):
    def power(t, k):
        return 1.0 if k == 0 else t * power(t, k - 1)  # <- refused

    return power(x, 3)


def uses_class(x):
    class Point:  # <- refused
        scale = 2.0

    return Point.scale * x


# ---------------------------------------------------------------------------
# Scopes
# ---------------------------------------------------------------------------


def uses_global_write(x):
    global COUNTER  # <- refused
    COUNTER = COUNTER + x
    return x * x


def _make_nonlocal_counter():
    total = 0.0

    def accumulate(x):
        nonlocal total  # <- refused
        total = total + x
        return total * x

    return accumulate


uses_nonlocal = _make_nonlocal_counter()


# ---------------------------------------------------------------------------
# Recursion
# ---------------------------------------------------------------------------


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)  # <- refused


def mutual_entry(x, n):
    return _ping(x, n) + x


def _ping(x, n):
    if n <= 0:
        return x
    return _pong(x * 0.5, n - 1)


def _pong(x, n):
    if n <= 0:
        return x
    return _ping(x + 1.0, n - 1)  # <- refused


# ---------------------------------------------------------------------------
# Signatures
# ---------------------------------------------------------------------------


def uses_star_args(x, *rest):  # <- refused
    return x * x


def uses_star_kwargs(x, **options):  # <- refused
    return x * x


def uses_keyword_only(x, c=1.0, *, scale):  # <- refused: no plain-parameter equivalent
    return scale * x * x * c


# ---------------------------------------------------------------------------
# Calls to functions with neither a derivative rule nor Python source
# ---------------------------------------------------------------------------


def calls_math_nextafter(x):
    y = x * x
    return math.nextafter(y, 2.0)  # <- refused


def convolves_with_a_mode(x, k):
    return np.sum(np.convolve(x, k, mode="same") ** 2)  # <- refused


def calls_sorted(x, y):
    ordered = sorted((x, y))  # <- refused
    return ordered * x


def calls_np_sinc(x):
    return np.sinc(x) * x  # <- refused


def calls_c_function(x):
    return c_mul(x, x) + x  # <- refused


# ---------------------------------------------------------------------------
# Containers and comprehensions
# ---------------------------------------------------------------------------


def uses_list_literal(x, y):
    values = [x, y]  # <- refused
    return values * x


def uses_dict_literal(x, y):
    values = {1: x, 2: y}  # <- refused
    return values * x


def uses_list_comprehension(x):
    powers = [x**k for k in range(3)]  # an array, but used as a list:
    return powers * x  # <- refused


def uses_generator_expression(x):
    powers = (x**k for k in range(3))  # <- refused
    return powers * x


# ---------------------------------------------------------------------------
# Loops
# ---------------------------------------------------------------------------


def assigns_loop_variable(x, n):
    s = 0.0
    for i in range(n):
        s += x * i
        i = i + 1  # <- refused
    return s


# ---------------------------------------------------------------------------
# Expressions and statements
# ---------------------------------------------------------------------------


def uses_walrus(x):
    if (y := x * 2.0) > 1.0:  # <- refused
        return y * x
    return x


def uses_fstring(x):
    label = f"x={x}"  # <- refused
    return x * x if label else x


def uses_string_constant(x):
    mode = "fast"  # <- refused
    return x * x if mode else x


def assigns_attribute(x, state):
    state.value = x * x  # <- refused
    return x * x


def imports_inside(x):
    import math  # <- refused

    return math.sin(x) * x


def imports_alias_inside(x):
    from math import erf as local_erf  # <- refused

    return local_erf(x) * x


class ModelError(Exception):
    """An exception class of the user's own (generated modules cannot see it)."""


def raises_own_exception(x):
    if x < 0.0:
        raise ModelError("x must be non-negative")  # <- refused
    return math.sqrt(x)


def raises_from(x):
    if x < 0.0:
        raise ValueError("x must be non-negative") from None  # <- refused
    return math.sqrt(x)


def uses_del(x):
    t = x * x
    y = t + x
    del t  # <- refused
    return y


def uses_match(x, n):
    match n:  # <- refused
        case 0:
            return x
        case _:
            return x * x


def can_finish_without_return(x):  # <- refused
    y = x * x
    if y > 1.0:
        return y


def returns_only_inside_loop(x, n):  # <- refused
    for i in range(n):
        if x * i > 1.0:
            return x * i


def reads_variable_of_empty_loop(x, n):
    i = 0
    for i in range(n):  # noqa: B007  # <- refused
        pass
    return x * i


def uses_unknown_global(x):
    return x * UNDEFINED_SCALE  # noqa: F821  # <- refused


def uses_supported_constant(x):
    """Not a refusal: a control showing the module constant SCALE is fine."""
    return SCALE * x * x

"""Reference derivatives by finite differences, independent of sourcediff.

`central_difference` differentiates the plain Python function by central differences
with a relative step, refined by one Richardson extrapolation (steps s and s/2), which
removes the O(s**2) truncation error and leaves an error of about
eps * |f| / s + s**4 * |f'''''|, i.e. roughly 1e-10 relative for smooth functions.
"""

import math

import numpy as np

__all__ = ["central_difference", "assert_close"]

DEFAULT_REL_STEP = 1e-5


def _central(f, args, i, step):
    """One central difference of `f` in argument `i` with absolute step `step`."""
    x = args[i]
    xp = x + step
    xm = x - step
    plus = list(args)
    minus = list(args)
    plus[i] = xp
    minus[i] = xm
    # Divide by the step actually taken (xp - xm is exact in floating point here).
    return (float(f(*plus)) - float(f(*minus))) / (xp - xm)


def _partial(f, args, i, h):
    x = args[i]
    if isinstance(x, (bool, int)) or not isinstance(x, float):
        raise TypeError(
            f"central_difference: argument {i} is {x!r} of type {type(x).__name__}; "
            "only float arguments can be differentiated"
        )
    rel = DEFAULT_REL_STEP if h is None else h
    step = rel * max(1.0, abs(x))
    coarse = _central(f, args, i, step)
    fine = _central(f, args, i, 0.5 * step)
    return (4.0 * fine - coarse) / 3.0


def central_difference(f, args, argnums, h=None):
    """Derivative of the plain Python function `f` at `args` by central differences.

    `argnums` is an int (returns a float) or a tuple of ints (returns a tuple of floats,
    in the order of `argnums`). `h` is the relative step: argument x is perturbed by
    h * max(1, |x|) (default 1e-5), and the result is Richardson-extrapolated from the
    steps s and s/2. Only float arguments can be differentiated.
    """
    args = tuple(args)
    if isinstance(argnums, int):
        return _partial(f, args, argnums, h)
    return tuple(_partial(f, args, i, h) for i in argnums)


def _fmt(v):
    return repr(float(v)) if isinstance(v, (int, float)) else repr(v)


def assert_close(actual, expected, rtol, atol, context=""):
    """Check |actual - expected| <= atol + rtol * |expected| componentwise.

    `actual` and `expected` are both floats or both tuples of floats of the same length.
    Raises AssertionError naming `context`, the worst component, both values, the error
    and the allowed tolerance. NaN or inf in `actual` never passes.
    """
    prefix = f"{context}: " if context else ""
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            raise AssertionError(
                f"{prefix}expected a tuple of {len(expected)} floats, got {actual!r}"
            )
        pairs = list(zip(actual, expected, strict=True))
    else:
        if isinstance(actual, tuple):
            raise AssertionError(f"{prefix}expected a single float, got the tuple {actual!r}")
        pairs = [(actual, expected)]

    worst = None
    for k, (a, e) in enumerate(pairs):
        try:
            a = float(a)
        except (TypeError, ValueError):
            raise AssertionError(
                f"{prefix}component {k} is {a!r}, not a float (expected {_fmt(e)})"
            ) from None
        e = float(e)
        allowed = atol + rtol * abs(e)
        err = abs(a - e) if math.isfinite(a) else math.inf
        ratio = err / allowed if allowed > 0 else (0.0 if err == 0 else math.inf)
        if err > allowed and (worst is None or ratio > worst[0]):
            worst = (ratio, k, a, e, err, allowed)

    if worst is not None:
        _, k, a, e, err, allowed = worst
        where = f"component {k} of {len(pairs)}" if isinstance(expected, tuple) else "value"
        raise AssertionError(
            f"{prefix}mismatch in {where}: actual={a!r} expected={e!r} "
            f"abs_err={err:.3e} > allowed={allowed:.3e} (rtol={rtol:g}, atol={atol:g})"
            + (f"\n  actual  ={actual!r}\n  expected={expected!r}" if len(pairs) > 1 else "")
        )


# ---------------------------------------------------------------------------
# Array arguments
# ---------------------------------------------------------------------------

__all__ += ["array_central_difference", "assert_close_arrays", "assert_gradient_matches"]


def _as_float64(value):
    """float32 arrays become float64 copies; the reference is computed in float64."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    return value


def _call_on_copies(f, args):
    """f(*args) with every array argument copied, so that f may write into them."""
    return float(f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))


def _richardson(f, args, i, set_value, x, rel):
    """Richardson-extrapolated central difference in one scalar component with value x."""
    step = rel * max(1.0, abs(x))

    def central(s):
        xp = x + s
        xm = x - s
        plus = list(args)
        minus = list(args)
        plus[i] = set_value(xp)
        minus[i] = set_value(xm)
        return (_call_on_copies(f, plus) - _call_on_copies(f, minus)) / (xp - xm)

    coarse = central(step)
    fine = central(0.5 * step)
    return (4.0 * fine - coarse) / 3.0


def _array_partial(f, args, i, h):
    x = args[i]
    rel = DEFAULT_REL_STEP if h is None else h
    if isinstance(x, np.ndarray):
        if x.dtype.kind != "f":
            raise TypeError(
                f"array_central_difference: argument {i} is an array of dtype {x.dtype}; "
                "only float arrays can be differentiated"
            )
        base = np.array(x, dtype=np.float64)
        out = np.empty(base.shape, dtype=np.float64)
        for idx in np.ndindex(base.shape):

            def set_value(v, idx=idx):
                perturbed = base.copy()
                perturbed[idx] = v
                return perturbed

            out[idx] = _richardson(f, args, i, set_value, float(base[idx]), rel)
        return out
    if isinstance(x, (bool, int)) or not isinstance(x, float):
        raise TypeError(
            f"array_central_difference: argument {i} is {x!r} of type {type(x).__name__}; "
            "only float arguments and float arrays can be differentiated"
        )
    return _richardson(f, args, i, lambda v: v, x, rel)


def array_central_difference(f, args, argnums, h=None):
    """Derivative of the plain Python function `f` at `args` by central differences.

    Like `central_difference`, but array arguments are differentiated element by element:
    for an array argument the result is a float64 ndarray of its shape, for a float
    argument a float, and for a tuple `argnums` a tuple of these in the order of
    `argnums`. Every array argument is copied before each evaluation (f may write into
    its arguments), and float32 arrays are converted to float64 first, so the reference
    is the derivative of the float64 computation.
    """
    args = tuple(_as_float64(a) for a in args)
    if isinstance(argnums, int):
        return _array_partial(f, args, argnums, h)
    return tuple(_array_partial(f, args, i, h) for i in argnums)


def assert_close_arrays(actual, expected, rtol, atol, context=""):
    """Check |actual - expected| <= atol + rtol * |expected| elementwise.

    `expected` is a float, an ndarray, or a tuple of these; `actual` must have the same
    structure (an ndarray of the same shape where an ndarray is expected). Raises
    AssertionError naming `context`, the worst element (component and index), both values,
    the error and the allowed tolerance. NaN or inf in `actual` never passes.
    """
    prefix = f"{context}: " if context else ""
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            raise AssertionError(
                f"{prefix}expected a tuple of {len(expected)} components, got {actual!r}"
            )
        pairs = list(zip(actual, expected, strict=True))
        single = False
    else:
        if isinstance(actual, tuple):
            raise AssertionError(f"{prefix}expected a single result, got the tuple {actual!r}")
        pairs = [(actual, expected)]
        single = True

    worst = None
    for k, (a, e) in enumerate(pairs):
        name = "value" if single else f"component {k} of {len(pairs)}"
        if isinstance(e, np.ndarray):
            if not isinstance(a, np.ndarray):
                raise AssertionError(
                    f"{prefix}{name} should be an ndarray of shape {e.shape}, got {a!r}"
                )
            if a.shape != e.shape:
                raise AssertionError(f"{prefix}{name} has shape {a.shape}, expected {e.shape}")
            a64 = np.asarray(a, dtype=np.float64)
            e64 = np.asarray(e, dtype=np.float64)
        else:
            try:
                a64 = np.array([float(a)])
            except (TypeError, ValueError):
                raise AssertionError(
                    f"{prefix}{name} is {a!r}, not a float (expected {_fmt(e)})"
                ) from None
            e64 = np.array([float(e)])
        allowed = atol + rtol * np.abs(e64)
        err = np.where(np.isfinite(a64), np.abs(a64 - e64), np.inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(allowed > 0, err / allowed, np.where(err == 0, 0.0, np.inf))
        bad = err > allowed
        if bad.any():
            flat = int(np.argmax(np.where(bad, ratio, -1.0)))
            where = np.unravel_index(flat, e64.shape)
            r = float(ratio.flat[flat])
            if worst is None or r > worst[0]:
                index = (
                    f" at index {tuple(int(w) for w in where)}"
                    if e64.ndim and isinstance(e, np.ndarray)
                    else ""
                )
                worst = (
                    r,
                    name + index,
                    float(a64.flat[flat]),
                    float(e64.flat[flat]),
                    float(err.flat[flat]),
                    float(allowed.flat[flat]),
                    int(bad.sum()),
                    bad.size,
                )

    if worst is not None:
        _, where, a, e, err, allowed, n_bad, size = worst
        raise AssertionError(
            f"{prefix}mismatch in {where} ({n_bad} of {size} elements off): actual={a!r} "
            f"expected={e!r} abs_err={err:.3e} > allowed={allowed:.3e} "
            f"(rtol={rtol:g}, atol={atol:g})" + f"\n  actual  ={actual!r}\n  expected={expected!r}"
        )


def assert_gradient_matches(func, args, argnums, policy="auto", jit=True, rtol=1e-7, atol=1e-9):
    """``sd.grad(func, argnums, policy, jit)`` at ``args`` against Richardson-extrapolated
    central differences, argument by argument (arrays element by element). The reference
    is taken first, on copies: ``func`` may write into its arguments."""
    import sourcediff as sd

    argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    expected = [
        array_central_difference(func, args, k)
        if isinstance(args[k], np.ndarray)
        else central_difference(func, args, k)
        for k in argnums
    ]
    copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    grads = sd.grad(func, argnums=argnums, policy=policy, jit=jit)(*copies)
    for grad, want in zip(grads, expected):
        np.testing.assert_allclose(grad, want, rtol=rtol, atol=atol)


def assert_gradients_at_random_points(func, make_args, argnums, policy, jit, seed, points=2):
    """``assert_gradient_matches`` at ``points`` argument tuples ``make_args(rng)`` drawn
    from a generator seeded with ``seed``."""
    rng = np.random.default_rng(seed)
    for _ in range(points):
        assert_gradient_matches(func, make_args(rng), argnums, policy, jit)


def assert_case_matches(func, make_args, jit, points=2, policies=("store", "recompute")):
    """At ``points`` argument tuples from ``make_args()``: the gradient with respect to the
    first argument under each policy against the reference (``assert_gradient_matches``),
    and the value ``sd.value_and_grad`` returns against ``func`` itself."""
    import sourcediff as sd

    for _ in range(points):
        args = make_args()
        for policy in policies:
            assert_gradient_matches(func, args, 0, policy, jit)
        value, _ = sd.value_and_grad(func, jit=jit)(*_call_copies(args))
        np.testing.assert_allclose(value, func(*_call_copies(args)), rtol=1e-12)


def _call_copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]

"""Reference derivatives by finite differences, independent of sourcediff.

`central_difference` differentiates the plain Python function by central differences
with a relative step, refined by one Richardson extrapolation (steps s and s/2), which
removes the O(s**2) truncation error and leaves an error of about
eps * |f| / s + s**4 * |f'''''|, i.e. roughly 1e-10 relative for smooth functions.
"""

import math

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

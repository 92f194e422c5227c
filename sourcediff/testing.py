"""Checking derivatives against central finite differences (public: ``sd.check_grad``)."""

from __future__ import annotations

import numpy as np

from .api import grad


def central_difference(func, args: tuple, k: int, step: float = 1e-6) -> float:
    """d func / d args[k] by a central difference with a step relative to the value."""
    x = float(args[k])
    h = step * max(1.0, abs(x))
    plus = list(args)
    minus = list(args)
    plus[k], minus[k] = x + h, x - h
    return (func(*plus) - func(*minus)) / (2 * h)


def check_grad(func, *args, argnums=0, rtol=1e-5, atol=1e-7, policy="auto", jit=True) -> None:
    """Compare ``sd.grad(func)`` with central finite differences at ``args``.

    Raises AssertionError naming the worst component on mismatch.
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    computed = grad(func, nums, policy=policy, jit=jit)(*args)
    worst = None
    for k, value in zip(nums, computed):
        expected = central_difference(func, args, k)
        error = abs(value - expected)
        allowed = atol + rtol * abs(expected)
        if not np.isfinite(value) or error > allowed:
            excess = error / allowed if np.isfinite(value) else np.inf
            if worst is None or excess > worst[0]:
                worst = (excess, k, value, expected)
    if worst is not None:
        _, k, value, expected = worst
        raise AssertionError(
            f"gradient of {func.__name__} with respect to argument {k}: sourcediff gives "
            f"{value!r}, finite differences give {expected!r}"
        )

"""Checking derivatives against central finite differences (public: ``sd.check_grad``)."""

from __future__ import annotations

import inspect

import numpy as np

from .api import grad
from .progress import Progress


def central_difference(func, args: tuple, k: int, step: float = 1e-6):
    """d func / d args[k] by central differences, element by element for an array.

    Array arguments are copied for every evaluation, since ``func`` may write
    into them.
    """

    def evaluate(position, index, delta):
        values = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        if isinstance(values[position], np.ndarray):
            values[position] = values[position].astype(np.float64)
            values[position][index] += delta
        else:
            values[position] = float(values[position]) + delta
        return float(func(*values))

    if not isinstance(args[k], np.ndarray):
        h = step * max(1.0, abs(float(args[k])))
        return (evaluate(k, None, h) - evaluate(k, None, -h)) / (2 * h)
    result = np.zeros(args[k].shape)
    label = f"finite differences of {getattr(func, '__name__', 'f')} in argument {k}"
    with Progress(label, result.size) as progress:
        for done, index in enumerate(np.ndindex(*args[k].shape), 1):
            h = step * max(1.0, abs(float(args[k][index])))
            result[index] = (evaluate(k, index, h) - evaluate(k, index, -h)) / (2 * h)
            progress.update(done)
    return result


def check_grad(func, *args, argnums=0, rtol=1e-5, atol=1e-7, policy="auto", jit=True) -> None:
    """Compare ``sd.grad(func)`` with central finite differences at ``args``.

    Works for float and float-array arguments and dicts or tuples of them (each entry
    checked).
    Raises AssertionError naming the worst component on mismatch.
    """
    args = _with_defaults(func, args)  # argnums may name a parameter left at its default
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    nums = tuple(k % len(args) if -len(args) <= k < 0 else k for k in nums)
    copies = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    computed = grad(func, nums, policy=policy, jit=jit)(*copies)
    worst = None
    for k, value, expected in _compared(func, args, nums, computed):
        value = np.asarray(value, dtype=np.float64)
        error = np.abs(value - expected)
        allowed = atol + rtol * np.abs(expected)
        excess = np.where(np.isfinite(value), error / allowed, np.inf)
        index = np.unravel_index(int(np.argmax(excess)), excess.shape) if excess.ndim else ()
        if excess[index] > 1.0 and (worst is None or excess[index] > worst[0]):
            worst = (excess[index], k, index, value[index], expected[index])
    if worst is not None:
        _, k, index, value, expected = worst
        where = f" at index {tuple(int(i) for i in index)}" if index else ""
        raise AssertionError(
            f"gradient of {func.__name__} with respect to argument {k}{where}: sourcediff gives "
            f"{float(value)!r}, finite differences give {float(expected)!r}"
        )


def _with_defaults(func, args: tuple) -> tuple:
    """``args`` completed with the defaults of the parameters they leave out."""
    try:
        bound = inspect.signature(func).bind(*args)
    except (TypeError, ValueError):
        return tuple(args)  # sd.grad reports a call that does not fit, in its own words
    bound.apply_defaults()
    return tuple(bound.arguments.values())  # keyword-only parameters included


def _compared(func, args: tuple, nums: tuple, computed):
    """``(label, computed, finite differences)`` per argument, per key of a dict of
    parameters (``argument 0['w']``)."""
    for k, value in zip(nums, computed):
        if isinstance(value, dict):
            entries = value.items()
        elif isinstance(value, (tuple, list)):  # a tuple of parameters
            entries = enumerate(value)
        else:
            yield k, value, np.asarray(central_difference(func, args, k))
            continue
        for key, entry in entries:

            def with_entry(*values, k=k, key=key):
                return func(*values[:k], _replaced(args[k], key, values[k]), *values[k + 1 :])

            entry_args = args[:k] + (args[k][key],) + args[k + 1 :]
            yield f"{k}[{key!r}]", entry, np.asarray(central_difference(with_entry, entry_args, k))


def _replaced(container, key, value):
    """``container`` (a dict, tuple or list) with ``container[key]`` replaced by ``value``."""
    if isinstance(container, dict):
        return {**container, key: value}
    items = list(container)
    items[key] = value
    return type(container)(items) if isinstance(container, list) else tuple(items)

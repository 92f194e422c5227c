"""What the corpora share: the Case record and a cache of transformed functions.

Compiling with Numba takes about a second, so each ``sd.grad``/``sd.value_and_grad`` of a
case is built once per (kind, case, jit) and reused by every test of that case.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest

import sourcediff as sd


@dataclass
class Case:
    """A corpus function, the points to check it at, and what to differentiate."""

    name: str
    func: Callable
    points: list[tuple]
    argnums: int | tuple[int, ...]
    rtol: float = 1e-6
    atol: float = 1e-8


_BUILT: dict = {}


def built(kind: str, case: Case, jit: bool):
    """sd.grad / sd.value_and_grad of case.func, built once per (kind, case, jit)."""
    key = (kind, case.name, jit)
    if key in _BUILT:
        found = _BUILT[key]
        if isinstance(found, BaseException):
            pytest.fail(
                f"sd.{kind}({case.name}, argnums={case.argnums!r}, jit={jit}) failed to build "
                f"(traceback in this case's first test): {type(found).__name__}: {found}"
            )
        return found
    make = sd.grad if kind == "grad" else sd.value_and_grad
    try:
        found = make(case.func, argnums=case.argnums, jit=jit)
    except Exception as exc:
        _BUILT[key] = exc
        raise
    _BUILT[key] = found
    return found

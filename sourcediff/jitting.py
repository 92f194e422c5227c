"""How sourcediff's own compiled helpers are made: one decorator for all of them.

A helper that generated code (or another helper) calls is a Numba dispatcher with an
on-disk cache, so that its machine code is shared by every function that calls it. At
``NUMBA_OPT=0`` (debugging, and the test suite), that choice would cost the cache of
every *caller*: Numba lowers the reference to a called dispatcher as a load from a
process-specific address, which only LLVM's optimizer deletes, and refuses to cache a
function whose code still holds one ("uses dynamic globals"). So at ``NUMBA_OPT=0`` a
helper is ``register_jitable`` instead: compiled into each caller, which is then cached.
Both are the same Python source compiled by Numba; only the linkage differs. The level
is read when sourcediff is imported: set ``NUMBA_OPT`` before that.
"""

from __future__ import annotations

import numba
from numba.extending import register_jitable


def _callers_need_overloads() -> bool:
    """Whether dispatchers would make their callers uncacheable (``NUMBA_OPT=0``)."""
    # Numba reads its environment again before each compile: a NUMBA_OPT set after Numba
    # was imported (a test harness, a notebook cell) is the level the code compiles at.
    numba.core.config.reload_config()
    return int(numba.config.OPT) == 0


def helper(func=None, *, cache: bool = True, **options):
    """Compile ``func`` as a helper for compiled code: ``numba.njit(cache=cache)`` unless
    ``NUMBA_OPT=0``, where it is ``register_jitable`` (see the module docstring). Usable
    as ``@helper``, ``@helper(inline="always")`` or ``helper(func)``.

    >>> @helper
    ... def twice(x):
    ...     return 2 * x
    >>> twice(3.0)
    6.0
    """

    def wrap(function):
        if _callers_need_overloads():
            # register_jitable() without keywords would take no function: call it plainly.
            return register_jitable(**options)(function) if options else register_jitable(function)
        return numba.njit(cache=cache, **options)(function)

    return wrap if func is None else wrap(func)

"""Small compiled helpers that generated modules import.

They are Numba functions so that generated code calling them compiles in
nopython mode; they can also be called from plain Python (``jit=False``).
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def grow(tape):
    """A copy of the 1-D record ``tape`` with twice its capacity (at least 16)."""
    bigger = np.empty(max(16, 2 * tape.shape[0]), tape.dtype)
    bigger[: tape.shape[0]] = tape
    return bigger

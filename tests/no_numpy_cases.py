"""Functions of a module that imports no NumPy: rewrites that call NumPy still work."""

import math


def cumulative(v):
    """A list grown with append, summed: 1 + 2 + ... + 4 times ``v``, plus ``sin``."""
    x = 0.0
    xs = [x]
    for _ in range(4):
        x = x + v
        xs.append(math.sin(x))
    return sum(xs)

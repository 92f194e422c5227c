"""Between the caller's arguments and the flattened parameters of a function with dicts
or tuples of parameters (``sourcediff.dict_params`` flattens them at parse time).

>>> layout = ArgumentLayout(["p", "x"], {"p": ((0, "p_0"), (1, "p_1"))})
>>> layout.expand(([1.0, 2.0], 3.0))
(1.0, 2.0, 3.0)
>>> layout.flat_argnums((0,))
(0, 1)
>>> layout.regroup((0,), (0.5, 0.25), ([1.0, 2.0], 3.0))
([0.5, 0.25],)
"""

from __future__ import annotations

import numpy as np

from .dict_params import Layout
from .errors import ArgumentError


class ArgumentLayout:
    """Between the caller's arguments (dicts and tuples of parameters included) and the
    flattened parameters."""

    def __init__(self, names: list[str], layout: Layout):
        self.names = names
        self.layout = layout
        self.trivial = not layout
        self.groups: list[tuple[int, ...]] = []
        position = 0
        for name in names:
            width = len(layout.get(name, ())) or 1
            self.groups.append(tuple(range(position, position + width)))
            position += width

    def flat_argnums(self, argnums: tuple[int, ...]) -> tuple[int, ...]:
        """The flattened positions of the caller's ``argnums``."""
        return tuple(flat for k in argnums for flat in self.groups[k])

    def expand(self, args: tuple) -> tuple:
        """The flattened arguments: each dict of parameters becomes its values by key, each
        tuple (list, array) of parameters its elements."""
        if self.trivial:
            return args
        flat = []
        for name, value in zip(self.names, args):
            entries = self.layout.get(name)
            if not entries:
                flat.append(value)
            elif isinstance(entries[0][0], int):
                flat.extend(_elements(name, value, len(entries)))
            else:
                flat.extend(_values_by_key(name, value, entries))
        return tuple(flat)

    def regroup(self, argnums: tuple[int, ...], values: tuple, given: tuple) -> tuple:
        """Per caller argnum: its gradient; for a dict of parameters a dict with the
        caller's keys in the caller's order (zero for a float or float array not read;
        other entries, a string or a config int, are left out); for a tuple of parameters
        the same kind of sequence (a tuple, a list, or an array shaped like the given)."""
        if self.trivial:
            return tuple(values)
        values = iter(values)
        grouped = []
        for k in argnums:
            entries = self.layout.get(self.names[k])
            if not entries:
                grouped.append(next(values))
                continue
            read = {key: next(values) for key, _ in entries}
            grouped.append(_regrouped(read, given[k]))
        return tuple(grouped)


def _elements(name: str, value, length: int) -> list:
    """The elements of a tuple of parameters, which the function unpacks into ``length``."""
    if not isinstance(value, (tuple, list, np.ndarray)) or len(value) != length:
        got = f"length {len(value)}" if hasattr(value, "__len__") else type(value).__name__
        raise ArgumentError(
            f"argument '{name}' is unpacked into {length} values: pass a tuple (or list, or "
            f"array) of {length}, not {got}"
        )
    return list(value)


def _values_by_key(name: str, value, entries) -> list:
    """The values of a dict of parameters at the keys the function reads."""
    if not isinstance(value, dict):
        raise ArgumentError(
            f"argument '{name}' is read as {name}['key']: pass a dict, not {type(value).__name__}"
        )
    missing = [key for key, _ in entries if key not in value]
    if missing:
        raise ArgumentError(f"the dict '{name}' has no key {missing[0]!r}")
    return [value[key] for key, _ in entries]


def _regrouped(read: dict, given):
    """The gradients ``read`` by key, in the form of the argument ``given``."""
    if isinstance(given, dict):
        return {key: read[key] if key in read else _zero(value)
                for key, value in given.items()
                if key in read or _zero(value) is not None}  # fmt: skip
    ordered = [read[k] for k in range(len(read))]
    if isinstance(given, np.ndarray):
        return np.array(ordered, dtype=np.result_type(given.dtype, np.float64))
    return type(given)(ordered) if isinstance(given, list) else tuple(ordered)


def _zero(value):
    """The zero gradient of an unread float or float array; None for anything else."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return np.zeros_like(value)
    if isinstance(value, (float, np.floating)):
        return 0.0
    return None

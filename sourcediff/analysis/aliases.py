"""Refuse writes through a second name for the same array.

``b = a``, a slice ``b = a[1:-1]``, ``a.T``, ``a.reshape(...)`` or a helper
returning its argument make ``b`` share memory with ``a``. The derivative
treats the two names as separate values, which is exact only while neither
is written in place during the other's use. So writing into an alias, or
writing into an array while an alias of it is still to be read, is refused
with the user's line and the fix (write into the array itself, or take a
copy), never differentiated wrongly. Swaps ``u, v = v, u`` exchange names
and are not aliases.
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..errors import UnsupportedSyntaxError
from .liveness import live_after_writes
from .types import TypeTable

VIEWS = {"np.reshape", "np.ravel", "np.transpose", "np.flip", "np.expand_dims", "np.diag"}


def _base(value: ast.expr, types: TypeTable) -> str:
    """The array ``value`` may share memory with, or ''."""
    if isinstance(value, ast.Name) and types[value.id].kind == "array":
        return value.id
    if ir.is_element_read(value) and types[value.value.id].kind == "array":
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if any(isinstance(p, ast.Slice) for p in parts):
            return value.value.id
    if isinstance(value, ast.Call) and rules.call_path(value.func) in VIEWS and value.args:
        first = value.args[0]
        return first.id if isinstance(first, ast.Name) else ""
    return ""


def check_aliasing(node: ast.FunctionDef, types: TypeTable, filename: str) -> None:
    """Raise UnsupportedSyntaxError at a write that an alias would make wrong."""
    aliases: dict[str, tuple[str, ast.stmt]] = {}
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            base = _base(stmt.value, types) if types[target].kind == "array" else ""
            if base and base != target:
                aliases[target] = (base, stmt)

    def root(name: str) -> str:
        seen = set()
        while name in aliases and name not in seen:
            seen.add(name)
            name = aliases[name][0]
        return name

    live = live_after_writes(node)
    for stmt in ast.walk(node):
        if not ir.is_element_write(stmt):
            continue
        written = ir.target_name(stmt)
        group = {n for n in set(aliases) | {root(a) for a in aliases} if root(n) == root(written)}
        still_used = sorted((group - {written}) & live[id(stmt)])
        if not still_used:
            continue  # no other name for this memory is read afterwards
        where = getattr(stmt, "origin", (filename, getattr(stmt, "lineno", 0)))
        other = still_used[0]
        view = written if written in aliases else other
        raise UnsupportedSyntaxError(
            f"'{written}' is written in place while '{other}', which shares its memory (another "
            f"name, a slice or a reshape), is used later; sourcediff treats them as separate "
            f"values, so make '{view}' a copy with .copy() or write into one name only",
            *where,
        )

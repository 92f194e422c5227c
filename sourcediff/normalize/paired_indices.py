"""Reads through two or more integer arrays at once, rewritten into one flat index.

NumPy's ``A[rows, cols]`` pairs the index arrays elementwise: it reads ``A[rows[k],
cols[k]]`` for every ``k`` (the cross-entropy idiom ``logp[np.arange(n), labels]``).
Numba indexes with one advanced index only. With every axis indexed, the same
elements are ``np.ravel(A)[(rows % n0) * n1 + cols % n1]``: the remainders wrap
negative indices as NumPy does, and the read is a one-array gather, whose adjoint
accumulates repeated pairs one at a time (``fancy.py``). Integers beside the arrays
(``A[rows, 2]``) take part in the flat index the same way.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> from sourcediff.naming import Namer
    >>> node = ast.parse('''
    ... def f(A, r, c):
    ...     z = A[r, c]
    ... ''').body[0]
    >>> matrix, ints = VarType("array", "float64", 2), VarType("array", "int64", 1)
    >>> types = TypeTable({"A": matrix, "r": ints, "c": ints, "z": ints}, VarType("float"))
    >>> lower_paired_indices(node, types, Namer.for_tree(node))
    True
    >>> print(ir.block_source(node.body))
    A_flat = np.ravel(A)
    A_rows = A.shape[0]
    r_wrapped = r % A_rows
    A_cols = A.shape[1]
    A_offset = r_wrapped * A_cols
    c_wrapped = c % A_cols
    A_at = A_offset + c_wrapped
    z = A_flat[A_at]
"""

from __future__ import annotations

import ast

from .. import fancy, ir
from ..analysis.types import TypeTable
from ..naming import Namer
from ..transform.effects import statement_lists


def lower_paired_indices(node: ast.FunctionDef, types: TypeTable, namer: Namer) -> bool:
    """Rewrite, in place, every read that indexes each axis of an array with integers,
    two or more of them integer arrays; whether anything changed (types are then
    inferred again)."""
    changed = False
    for block in statement_lists(node):
        rewritten: list[ast.stmt] = []
        for stmt in block:
            lowered = _lowered(stmt, types, namer)
            changed |= lowered is not None
            rewritten.extend(lowered or [stmt])
        block[:] = rewritten
    return changed


def _lowered(stmt: ast.stmt, types: TypeTable, namer: Namer) -> list[ast.stmt] | None:
    """The statements replacing ``z = A[i0, i1, ...]``, or None for any other statement."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
        return None
    value = stmt.value
    if not _is_paired_read(value, types):
        return None
    array = value.value.id
    flat = namer.fresh(f"{array}_flat")
    lines = [f"{flat} = np.ravel({array})"]
    position = None
    for axis, part in enumerate(fancy.parts_of(value.slice)):
        extent = namer.fresh(f"{array}_{_axis_word(axis)}")
        wrapped = namer.fresh(f"{ast.unparse(part)}_wrapped" if isinstance(part, ast.Name) else "i")
        lines.append(f"{extent} = {array}.shape[{axis}]")
        if position is not None:
            offset = namer.fresh(f"{array}_offset")
            lines.append(f"{offset} = {position} * {extent}")
        lines.append(f"{wrapped} = {ast.unparse(part)} % {extent}")
        if position is None:
            position = wrapped
        else:
            position = namer.fresh(f"{array}_at")
            lines.append(f"{position} = {offset} + {wrapped}")
    lines.append(f"{stmt.targets[0].id} = {flat}[{position}]")
    return [ir.located(ast.copy_location(ir.statement(s), stmt), stmt) for s in lines]


def _axis_word(axis: int) -> str:
    return ("rows", "cols")[axis] if axis < 2 else f"axis{axis}"


def _is_paired_read(value: ast.expr, types: TypeTable) -> bool:
    """Whether ``value`` is ``A[i0, ..., i_{n-1}]`` over all of ``A``'s axes, every part a
    name or constant holding an integer, two or more of them 1-D integer arrays."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return False
    array = types[value.value.id]
    parts = fancy.parts_of(value.slice)
    if array.kind != "array" or len(parts) != array.ndim:
        return False
    arrays = [p for p in parts if fancy.is_int_array(p, types)]
    if len(arrays) < 2 or any(types[p.id].ndim != 1 for p in arrays):
        return False
    return all(p in arrays or _is_integer(p, types) for p in parts)


def _is_integer(part: ast.expr, types: TypeTable) -> bool:
    if isinstance(part, ast.Constant):
        return isinstance(part.value, int) and not isinstance(part.value, bool)
    return isinstance(part, ast.Name) and types[part.id].kind == "int"

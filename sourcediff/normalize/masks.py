"""Boolean masks of two or more axes, rewritten into forms Numba compiles.

NumPy's ``A[M]``, with ``M`` a boolean array of ``A``'s rank, reads the selected
elements in C order; Numba indexes with one-axis masks only (a 2-D mask fails an
assertion deep in its lowering). ``np.ravel(A)[np.ravel(M)]`` reads the same
elements in the same order, and its derivative is the mask's and the ravel's.
``A[M] = v`` with a number ``v`` sets the selected elements: ``A[...] =
np.where(M, v, A)`` leaves ``A`` holding exactly what NumPy leaves, in its own
memory. Masks of fewer axes than the array (rows of a matrix) are left as they are,
as Numba compiles them.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> from sourcediff.naming import Namer
    >>> node = ast.parse('''
    ... def f(X, M):
    ...     z = X[M]
    ...     X[M] = 0.0
    ... ''').body[0]
    >>> matrix, mask = VarType("array", "float64", 2), VarType("array", "bool", 2)
    >>> types = TypeTable({"X": matrix, "M": mask, "z": matrix}, VarType("float"))
    >>> lower_masks(node, types, Namer.for_tree(node), "f.py")
    True
    >>> print(ir.block_source(node.body))
    X_flat = np.ravel(X)
    M_flat = np.ravel(M)
    z = X_flat[M_flat]
    X_masked = np.where(M, 0.0, X)
    X[...] = X_masked
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.types import TypeTable
from ..errors import UnsupportedSyntaxError
from ..naming import Namer
from ..transform.effects import statement_lists


def lower_masks(node: ast.FunctionDef, types: TypeTable, namer: Namer, filename: str) -> bool:
    """Rewrite, in place, every read and write through a mask of the array's rank (two
    axes or more); whether anything changed (the types are then inferred again)."""
    changed = False
    for block in statement_lists(node):
        rewritten: list[ast.stmt] = []
        for stmt in block:
            lowered = _lowered(stmt, types, namer, filename)
            changed |= lowered is not None
            rewritten.extend(lowered or [stmt])
        block[:] = rewritten
    return changed


def _lowered(stmt: ast.stmt, types: TypeTable, namer: Namer, filename: str):
    """The statements replacing ``stmt``, or None when it uses no full-rank mask."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and _full_rank_mask(value, types):
        flat_array = namer.fresh(f"{value.value.id}_flat")
        flat_mask = namer.fresh(f"{value.slice.id}_flat")
        new = [
            f"{flat_array} = np.ravel({value.value.id})",
            f"{flat_mask} = np.ravel({value.slice.id})",
            f"{target.id} = {flat_array}[{flat_mask}]",
        ]
    elif _full_rank_mask(target, types):
        if not _is_number(value, types):
            where = getattr(stmt, "origin", (filename, getattr(stmt, "lineno", 0)))
            raise UnsupportedSyntaxError(
                f"'{target.value.id}[{target.slice.id}] = ...' with a {types[target.slice.id].ndim}"
                "-axis mask takes a number here; for values from an array of the same shape "
                "write np.where(mask, values, array)",
                *where,
            )
        selected = namer.fresh(f"{target.value.id}_masked")
        array, mask = target.value.id, target.slice.id
        new = [
            f"{selected} = np.where({mask}, {ast.unparse(value)}, {array})",
            f"{array}[...] = {selected}",
        ]
    else:
        return None
    return [ir.located(ast.copy_location(ir.statement(s), stmt), stmt) for s in new]


def _full_rank_mask(node: ast.expr, types: TypeTable) -> bool:
    """Whether ``node`` is ``A[M]`` with ``M`` a boolean array of ``A``'s rank, 2 or more."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Name)
    ):
        return False
    array, mask = types[node.value.id], types[node.slice.id]
    return (
        array.kind == "array"
        and mask.kind == "array"
        and mask.dtype == "bool"
        and mask.ndim == array.ndim >= 2
    )


def _is_number(value: ast.expr, types: TypeTable) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    return isinstance(value, ast.Name) and types[value.id].kind in ("float", "int")

"""``np.max``/``np.min`` of a vector as a read at the index of the extreme.

The derivative of ``m = np.max(v)`` flows to one element of ``v`` (the first maximum,
the tie rule of the rule table). Read as ``v[np.argmax(v)]``, the reverse sweep adds
``m_bar`` to that one element, remembering an integer, where the table's row would keep
``v`` alive until the reverse sweep (one array recorded per loop iteration, for a
log-sum-exp in a loop) and allocate a mask the size of ``v`` to scatter one number.
``np.argmax`` returns the first maximum, NaN included, so the value is exactly
``np.max``'s. Arrays of higher rank keep the row: their flat index is no element read.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(v):
    ...     m = np.max(v)
    ...     return m
    ... ''').body[0]
    >>> flt = VarType("float", "float64")
    >>> types = TypeTable({"v": VarType("array", "float64", 1), "m": flt}, flt)
    >>> read_extremes_at_index(node, types, Namer.for_tree(node))
    >>> print(ast.unparse(node.body[0]), ast.unparse(node.body[1]), sep="\\n")
    m_at = np.argmax(v)
    m = v[m_at]
"""

from __future__ import annotations

import ast

from ..analysis.types import TypeTable, VarType
from ..naming import Namer
from ..transform.effects import statement_lists

INDEX_OF = {"max": "argmax", "min": "argmin"}
INT = VarType("int", "int64")


def read_extremes_at_index(node: ast.FunctionDef, types: TypeTable, namer: Namer) -> None:
    """Rewrite, in place, each ``m = np.max(v)`` (or ``np.min``) of a float vector ``v``."""
    for block in statement_lists(node):
        rewritten: list[ast.stmt] = []
        for stmt in block:
            rewritten.extend(_at_index(stmt, types, namer) or [stmt])
        block[:] = rewritten


def _at_index(stmt: ast.stmt, types: TypeTable, namer: Namer) -> list[ast.stmt] | None:
    """``m_at = np.argmax(v); m = v[m_at]`` for ``m = np.max(v)``; None for anything else."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords):
        return None
    operand, (module, _, name) = call.args[0], ast.unparse(call.func).rpartition(".")
    if module not in ("np", "numpy") or name not in INDEX_OF or not isinstance(operand, ast.Name):
        return None
    vector = types.variables.get(operand.id)
    if vector is None or vector.kind != "array" or vector.ndim != 1 or not vector.is_float:
        return None
    target = stmt.targets[0].id
    index = namer.fresh(f"{target}_at")
    types.variables[index] = INT
    search = ast.Call(ast.parse(f"{module}.{INDEX_OF[name]}", mode="eval").body, [operand], [])
    read = ast.Subscript(ast.Name(operand.id, ast.Load()), ast.Name(index, ast.Load()), ast.Load())
    located = [
        ast.Assign([ast.Name(index, ast.Store())], search),
        ast.Assign([ast.Name(target, ast.Store())], read),
    ]
    for new in located:  # the user's line, for messages and the generated comments
        ast.fix_missing_locations(ast.copy_location(new, stmt))
        new.origin = getattr(stmt, "origin", None)
    return located

"""Give views of arrays that are written in place a base of their own.

``t = np.flip(a)`` (likewise ``np.reshape``, ``np.ravel``, ``np.transpose``, ``np.diag``,
``np.expand_dims``) shares ``a``'s memory. When ``a`` is written in place
afterwards, ``t``'s values change with it, while the reverse sweep needs ``t``
as it was when it was read (``np.square(t)`` has adjoint ``2 t g``). Writes
*through* such a view are refused (``analysis.aliases``); reads of it are made
exact here, once types are known, by viewing a copy of the base instead::

    t = np.flip(a)      ->      a_base = np.copy(a)
    a[...] = t2                 t = np.flip(a_base)
                                a[...] = t2

Only views of C-contiguous arrays are rewritten (the copy then has the very
type of the original, so the inferred types stay exact); views of arrays
that are never written in place are left alone.
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..analysis.aliases import VIEWS


def _blocks(stmts: list[ast.stmt]):
    yield stmts
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if inner and isinstance(inner, list):
                yield from _blocks(inner)


def _viewed_base(stmt: ast.stmt) -> str:
    """The name ``stmt`` takes a view of, or ''."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)):
        return ""
    call = stmt.value
    if rules.call_path(call.func) not in VIEWS or not call.args:
        return ""
    return call.args[0].id if isinstance(call.args[0], ast.Name) else ""


def copy_written_views(node: ast.FunctionDef, types, namer) -> None:
    """Rewrite, in place, each view of an array that is written in place somewhere."""
    written = {ir.target_name(s) for s in ast.walk(node) if ir.is_element_write(s)}
    for block in list(_blocks(node.body)):
        rewritten = []
        for stmt in block:
            base = _viewed_base(stmt)
            if base in written and types[base].kind == "array" and types[base].layout == "C":
                copy_name = namer.fresh(f"{base}_base")
                copy = ast.parse(f"{copy_name} = np.copy({base})").body[0]
                rewritten.append(ast.copy_location(copy, stmt))
                copy.origin = getattr(stmt, "origin", ("", 0))
                types.variables[copy_name] = types[base]
                stmt.value.args[0] = ast.Name(copy_name, ast.Load())
            rewritten.append(stmt)
        block[:] = rewritten

"""Resolve ``x += e`` once types are known: in place for arrays, a new value for numbers.

Normalization cannot know whether ``x`` in ``x += e`` is an array (updated in
place, visible through every alias and to the caller) or a number (rebound),
so it emits ``x = inplace_update(x, t)``, which the runtime implements for
both. With types known, this pass rewrites each one into the form the
analyses understand: ``x[...] = t`` (a whole-array element write) or ``x = t``.
"""

from __future__ import annotations

import ast

from ..analysis.types import TypeTable


def _is_update(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "inplace_update"
    )


def resolve_inplace_updates(node: ast.FunctionDef, types: TypeTable) -> None:
    """Rewrite, in place, every ``x = inplace_update(x, t)`` in ``node``."""
    for stmt in ast.walk(node):
        if not _is_update(stmt):
            continue
        name = stmt.targets[0].id
        value = stmt.value.args[1]
        if types[name].kind == "array":
            whole = ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(Ellipsis), ast.Store())
            stmt.targets = [whole]
        stmt.value = value

"""Resolve ``x += e`` once types are known: in place for arrays, a new value for numbers.

Normalization cannot know whether ``x`` in ``x += e`` is an array (updated in
place, visible through every alias and to the caller) or a number (rebound),
so it emits ``x = inplace_update(x, t)``, which the runtime implements for
both. With types known, this pass rewrites each one into the form the
analyses understand: ``x[...] = t`` (a whole-array element write) or ``x = t``.

A helper's array parameter updated in place (``def center(v): v -= np.mean(v)``) is
the caller's array, as in Python: inlining bound it to a name of its own
(``center_v = y``), which is then merged back into the argument's name.

    >>> from sourcediff.analysis.types import VarType
    >>> node = ast.parse('''
    ... def f(y):
    ...     center_v = y
    ...     t1 = np.mean(center_v)
    ...     t2 = center_v - t1
    ...     center_v = inplace_update(center_v, t2)
    ...     return np.sum(y)
    ... ''').body[0]
    >>> node.body[0].parameter_binding = True
    >>> vec = VarType("array", "float64", 1)
    >>> types = TypeTable({"y": vec, "center_v": vec, "t2": vec}, vec)
    >>> resolve_inplace_updates(node, types)
    >>> print(ast.unparse(node.body[2]))
    y[...] = t2
"""

from __future__ import annotations

import ast

from ..analysis.types import TypeTable
from ..transform.effects import statement_lists


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
    for block in statement_lists(node):
        for stmt in list(block):
            if getattr(stmt, "parameter_binding", False):
                _merge_parameter(block, stmt, node, types)


def _merge_parameter(block: list[ast.stmt], binding: ast.Assign, node, types) -> None:
    """Replace a helper's array parameter by the caller's array it is bound to, when the
    parameter is bound nowhere else (its in-place updates are element writes now) and the
    array's name is not bound again in the rest of the block."""
    name, value = binding.targets[0].id, binding.value
    if not isinstance(value, ast.Name) or types[name].kind != "array":
        return
    if types[value.id].kind != "array" or _bindings(node, name) != 1:
        return
    rest = block[block.index(binding) + 1 :]
    if any(_bindings(stmt, value.id) for stmt in rest):
        return
    for stmt in rest:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and sub.id == name:
                sub.id = value.id
    block.remove(binding)


def _bindings(node: ast.AST, name: str) -> int:
    return sum(
        isinstance(sub, ast.Name) and sub.id == name and not isinstance(sub.ctx, ast.Load)
        for sub in ast.walk(node)
    )

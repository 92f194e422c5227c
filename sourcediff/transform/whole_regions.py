"""Name a whole array as itself: ``a[:, :]`` read is ``a``, ``a[:, :] = 0.0`` is ``a.fill(0.0)``.

A region write whose region is the whole array (``force[:] = forces(x)``, which
normalization spells ``force[:, :]``) gets the adjoint of a region: reads of
``force_bar[:, :]`` and a zeroing ``force_bar[:, :] = 0.0``. Spelled as the array
itself, the passes that follow buffers recognise them (``first_arrays.py`` turns
``add_into(g_bar, force_bar); force_bar.fill(0.0)`` into a swap), and the code reads
as written by hand. A full slice of every axis is a view of the whole array, so a
read of it is the array's values; filling it is filling the array.

    >>> fn = ast.parse("def f(a_bar, g_bar):\\n    add_into(g_bar, a_bar[:, :])\\n"
    ...                "    a_bar[:, :] = 0.0\\n    g_bar[:] = a_bar[:]").body[0]
    >>> use_whole_arrays(fn, {"a_bar": 2, "g_bar": 2})
    True
    >>> print(ast.unparse(fn))
    def f(a_bar, g_bar):
        add_into(g_bar, a_bar)
        a_bar.fill(0.0)
        g_bar[:] = a_bar[:]
"""

from __future__ import annotations

import ast

from ..astnodes import walk
from .effects import statement_lists


def use_whole_arrays(function: ast.FunctionDef, ranks: dict[str, int]) -> bool:
    """Rewrite, in place, reads of a full slice of every axis of an array as the array,
    and zeroings of one as ``fill``; whether anything changed. ``ranks``: the arrays'
    ranks."""
    changed = _fill_zeroings(function, ranks)
    for node in walk(function):
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr) and _whole(value, ranks, ast.Load):
                setattr(node, field, ast.Name(value.value.id, ast.Load()))
                changed = True
            elif isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, ast.expr) and _whole(item, ranks, ast.Load):
                        value[k] = ast.Name(item.value.id, ast.Load())
                        changed = True
    return changed


def _fill_zeroings(function: ast.FunctionDef, ranks: dict[str, int]) -> bool:
    changed = False
    for block in statement_lists(function):
        for k, stmt in enumerate(block):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
                continue
            target, value = stmt.targets[0], stmt.value
            zero = (
                isinstance(value, ast.Constant) and type(value.value) is float and value.value == 0
            )
            if zero and _whole(target, ranks, ast.Store):
                fill = ast.Attribute(ast.Name(target.value.id, ast.Load()), "fill", ast.Load())
                call = ast.Call(fill, [ast.Constant(0.0)], [])
                block[k] = ast.copy_location(ast.Expr(call), stmt)
                changed = True
    return changed


def _whole(node: ast.expr, ranks: dict[str, int], context: type) -> bool:
    """Whether ``node`` is ``a[:, ..., :]`` over all of ``a``'s axes, in ``context``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, context)):
        return False
    if not isinstance(node.value, ast.Name) or node.value.id not in ranks:
        return False
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    full = all(isinstance(p, ast.Slice) and not (p.lower or p.upper or p.step) for p in parts)
    return full and len(parts) == ranks[node.value.id] and ranks[node.value.id] >= 1

"""An element's adjoint that passes through an increment unchanged is left in place.

The reverse of ``a[i] += e`` reads ``a_bar[i]`` into a name, zeroes the element, adds
the adjoint terms of ``e``, then adds the name back into the element (the increment's
own ``a[i]`` term). Nothing else touches the element in between, so it ends as it
began: the zeroing and the adding back are two memory operations that change nothing
(``0.0 + g`` is ``g`` exactly, up to the sign of a zero). Both go, in a statement list
where every statement in between binds a name to a pure value that reads no name that
may share the array's memory (so it cannot see the element):

    >>> fn = ast.parse('''
    ... def f(force_bar, dx, j):
    ...     t_bar = force_bar[j, 0]
    ...     force_bar[j, 0] = 0.0
    ...     f_bar = dx * t_bar
    ...     force_bar[j, 0] += t_bar
    ...     return f_bar
    ... ''').body[0]
    >>> pass_through_increments(fn, {"force_bar": 2})
    True
    >>> print(ast.unparse(fn))
    def f(force_bar, dx, j):
        t_bar = force_bar[j, 0]
        f_bar = dx * t_bar
        return f_bar
"""

from __future__ import annotations

import ast

from ..analysis.sharing import alias_classes
from ..astnodes import walk
from .effects import is_pure, names_read, statement_lists


def pass_through_increments(function: ast.FunctionDef, ranks: dict) -> bool:
    """Remove, in place, each zeroing and adding back that leave an element as it was
    (``ranks``: of the function's arrays; an index of fewer axes reads a view, which the
    zeroing would change); whether anything changed."""
    classes = alias_classes(function)
    changed = False
    for block in statement_lists(function):
        index = 0
        while index < len(block):
            end = _adding_back(block, index, classes, ranks)
            if end is not None:
                del block[end]
                del block[index + 1]
                changed = True
            index += 1
    return changed


def _adding_back(block: list[ast.stmt], index: int, classes: dict, ranks: dict) -> int | None:
    """The position of ``a[i] += g`` when ``block[index]`` is ``g = a[i]``, the next
    statement ``a[i] = 0.0``, and everything between them and it binds a name to a pure
    value that reads nothing sharing ``a``'s memory and changes neither ``g`` nor ``i``."""
    read = block[index]
    if not (
        isinstance(read, ast.Assign)
        and isinstance(read.targets[0], ast.Name)
        and _element(read.value, ranks)
        and index + 1 < len(block)
    ):
        return None
    name, element = read.targets[0].id, ast.unparse(read.value)
    if not _zeroes(block[index + 1], element):
        return None
    array = read.value.value.id
    sharing = classes.get(array, {array}) - {name}  # the name holds a number
    guarded = {name} | names_read(read.value.slice) | sharing
    for later in range(index + 2, len(block)):
        stmt = block[later]
        if _adds_back(stmt, element, name):
            return later
        target = _bound_name(stmt)
        if target is None or target in guarded or names_read(stmt) & sharing:
            return None
    return None


def _bound_name(stmt: ast.stmt) -> str | None:
    """The name ``stmt`` binds or writes into (``name = e``, ``name += e``,
    ``b[i] += e``), ``e`` pure; else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
    elif isinstance(stmt, ast.AugAssign):
        target, value = stmt.target, stmt.value
    else:
        return None
    if isinstance(target, ast.Subscript) and _element_of_name(target):
        target = target.value
    if not isinstance(target, ast.Name) or not is_pure(value):
        return None
    return target.id


def _element_of_name(target: ast.Subscript) -> bool:
    return isinstance(target.value, ast.Name) and not any(
        isinstance(n, ast.Slice) for n in walk(target.slice)
    )


def _element(value: ast.expr, ranks: dict) -> bool:
    """``a[i, j]``: one element of a named array of known rank, one index per axis."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return False
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if len(parts) != ranks.get(value.value.id, -1):
        return False
    nodes = [n for p in parts for n in walk(p)]
    arrays = any(isinstance(n, ast.Name) and n.id in ranks for n in nodes)  # index arrays
    return not arrays and not any(isinstance(n, (ast.Slice, ast.Subscript)) for n in nodes)


def _zeroes(stmt: ast.stmt, element: str) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and ast.unparse(stmt.targets[0]) == element
        and isinstance(stmt.value, ast.Constant)
        and stmt.value.value == 0.0
    )


def _adds_back(stmt: ast.stmt, element: str, name: str) -> bool:
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.op, ast.Add)
        and ast.unparse(stmt.target) == element
        and isinstance(stmt.value, ast.Name)
        and stmt.value.id == name
    )

r"""A loop's ``else`` clause, rewritten at parse time into a flag the loop's breaks set.

``else`` after ``for`` or ``while`` runs when the loop ends without ``break``. Every
``break`` of that loop (not of a loop inside it) first sets a fresh flag, and the clause
becomes an ``if`` on it after the loop; a loop without a ``break`` always runs its
clause, which then simply follows it:

>>> from .naming import Namer
>>> f = ast.parse('''
... def f(x, n):
...     for i in range(n):
...         x = x * 0.5
...         if x < 0.1:
...             break
...     else:
...         x = -x
...     return x
... ''').body[0]
>>> lower_loop_else(f, Namer.for_tree(f, set()))
>>> print(ast.unparse(f))
def f(x, n):
    broke = False
    for i in range(n):
        x = x * 0.5
        if x < 0.1:
            broke = True
            break
    if not broke:
        x = -x
    return x
"""

from __future__ import annotations

import ast

LOOPS = (ast.For, ast.While)


def lower_loop_else(node: ast.AST, namer) -> None:
    """Rewrite, in place, every loop ``else`` inside ``node`` (module docstring)."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(node, field, _lowered_block(block, namer))


def _lowered_block(block: list[ast.stmt], namer) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in block:
        lower_loop_else(stmt, namer)
        if not (isinstance(stmt, LOOPS) and stmt.orelse):
            out.append(stmt)
            continue
        clause, stmt.orelse = stmt.orelse, []
        breaks = list(_own_breaks(stmt.body))
        if not breaks:
            out += [stmt, *clause]
            continue
        flag = namer.fresh("broke")
        for holder, index in reversed(breaks):
            holder.insert(index, _located(_assign(flag, True), holder[index]))
        test = ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load()))
        clause_if = _located(ast.If(test, clause, []), stmt)
        out += [_located(_assign(flag, False), stmt), stmt, clause_if]
    return out


def _own_breaks(block: list[ast.stmt]):
    """``(statement list, index)`` of each ``break`` of the loop whose body is ``block``:
    those in its branches, not those of a loop inside it. Listed in order, so inserting
    from the last keeps the earlier indices right."""
    for index, stmt in enumerate(block):
        if isinstance(stmt, ast.Break):
            yield block, index
        elif isinstance(stmt, LOOPS):
            yield from _own_breaks(stmt.orelse)  # a nested loop's else may break this loop
        else:
            for field in ("body", "orelse", "handlers", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    yield from _own_breaks(inner)


def _assign(name: str, value: bool) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], ast.Constant(value))


def _located(new: ast.stmt, where: ast.stmt) -> ast.stmt:
    return ast.fix_missing_locations(ast.copy_location(new, where))

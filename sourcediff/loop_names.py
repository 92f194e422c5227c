r"""Nested loops that reuse an unread loop variable, renamed apart at parse time.

``for _ in range(m)`` inside ``for _ in range(n)`` is common Python for "repeat": the
name is never read. Every later stage gives each loop its own counter (the reverse sweep
replays it), so an inner loop whose variable is an enclosing loop's, and is read nowhere
in the function, gets a fresh name; a variable that is read is left to the fence, which
refuses the reassignment:

>>> from .naming import Namer
>>> f = ast.parse('''
... def f(x):
...     for _ in range(2):
...         for _ in range(3):
...             x = x * 0.5
...     return x
... ''').body[0]
>>> rename_repeated_loop_variables(f, Namer.for_tree(f))
>>> print(ast.unparse(f))
def f(x):
    for _ in range(2):
        for _2 in range(3):
            x = x * 0.5
    return x
"""

from __future__ import annotations

import ast


def rename_repeated_loop_variables(node: ast.FunctionDef, namer) -> None:
    """Rename, in place, each unread loop variable an enclosing loop already uses."""
    read = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    _rename_in(node.body, frozenset(), read, namer)


def _rename_in(block: list[ast.stmt], enclosing: frozenset[str], read: set[str], namer) -> None:
    for stmt in block:
        inner = enclosing
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if name in enclosing and name not in read:
                stmt.target.id = name = namer.fresh(name)
            inner = enclosing | {name}
        for field in ("body", "orelse", "handlers", "finalbody"):
            nested = getattr(stmt, field, None)
            if isinstance(nested, list) and nested and isinstance(nested[0], ast.stmt):
                _rename_in(nested, inner, read, namer)

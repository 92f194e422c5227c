"""Zero an adjoint where its old value is no longer needed, not where it was last moved.

The reverse of ``r = a + b`` hands ``r_bar`` on and then zeroes it. Once first
contributions are assignments (zeros.py) that reads as a copy chain the next uses
cannot see through, because the zeroing rebinds the source of both copies::

    a_bar = r_bar
    b_bar = r_bar
    r_bar = 0.0
    x_bar[i] += a_bar
    y_bar[j] -= b_bar

A zeroing that ends such a hand-off (the last statement before it that mentions the
name reads it) moves down its statement list past every statement that does not
mention its name, so that the copies become plain copies of ``r_bar`` that copy
propagation (fold.py) removes: ``x_bar[i] += r_bar; y_bar[j] -= r_bar; r_bar = 0.0``.
Nothing that reads or writes the name changes order, so every value is the same.
A zeroing never moves past a jump, nor past a compound statement holding one (a
``continue`` would skip it), nor past another zeroing. Before and after::

    >>> fn = ast.parse('''
    ... def f_vjp(r_bar, x_bar, i):
    ...     a_bar = r_bar
    ...     r_bar = 0.0
    ...     x_bar[i] += a_bar
    ...     return r_bar
    ... ''').body[0]
    >>> sink_zeroings(fn)
    True
    >>> print(ast.unparse(fn.body))
    a_bar = r_bar
    x_bar[i] += a_bar
    r_bar = 0.0
    return r_bar
"""

from __future__ import annotations

import ast

from ..astnodes import names_read, names_written, walk
from ..codegen import Comment
from .effects import statement_lists

_JUMPS = (ast.Return, ast.Break, ast.Continue, ast.Raise)


def sink_zeroings(function: ast.FunctionDef) -> bool:
    """Move each ``name = 0.0`` down past the statements that do not mention ``name``,
    in place (module docstring); whether any moved."""
    changed = False
    for body in statement_lists(function):
        index = 0
        while index < len(body):
            name = _zeroed(body[index])
            if name is not None:
                stop = _first_mention(body, index + 1, name)
                passed = body[index + 1 : stop]
                moves = any(not isinstance(stmt, Comment) for stmt in passed)
                if moves and _handed_on(body, index, name):
                    body.insert(stop - 1, body.pop(index))
                    changed = True
                    continue  # the statement now at ``index`` was not looked at yet
            index += 1
    return changed


def _handed_on(body: list[ast.stmt], index: int, name: str) -> bool:
    """Whether the last statement before ``index`` that mentions ``name`` reads it: the
    zeroing ends a hand-off, and the copies it made may see through it."""
    for stmt in reversed(body[:index]):
        if name in names_read(stmt):
            return True
        if name in names_written(stmt):
            return False
    return False


def _zeroed(stmt: ast.stmt) -> str | None:
    """The name ``stmt`` sets to the float zero, if that is all it does."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, ast.Name) or not isinstance(value, ast.Constant):
        return None
    return target.id if type(value.value) is float and value.value == 0.0 else None


def _first_mention(body: list[ast.stmt], start: int, name: str) -> int:
    """The position of the first statement from ``start`` on that mentions ``name``, may
    jump or is another zeroing (two would swap places forever), else the end of ``body``."""
    for position in range(start, len(body)):
        if _zeroed(body[position]) is not None:
            return position
        for node in walk(body[position]):
            if isinstance(node, _JUMPS) or (isinstance(node, ast.Name) and node.id == name):
                return position
        if name in getattr(body[position], "record_writes", ()):
            return position
    return len(body)

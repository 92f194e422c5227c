"""Loop invariants: a value a loop computes alike every iteration is computed once, before it.

Inlined helpers and rule partials compute ``0.5 * dt`` or ``dt / 6.0`` in every step of
a time loop, and the reverse sweep again in every reversed step. ``name = e`` directly
in a ``for`` loop's body moves before the loop when

- ``e`` is arithmetic on names and numbers that cannot fail (no call, no subscript, no
  power, a division only by a nonzero number), multiplies, divides or holds a float (an
  index ``n - 1`` reads better where it is used, and costs nothing there, unless its
  name is read after the loop anyway: the reverse sweep's bound), and reads no
  name the loop binds nor an array the function writes into (``m * 1.1`` before
  ``m[...] = t``); or ``e`` is a length ``a.shape[k]`` of an array the loop does not
  rebind (a write into ``a`` leaves its shape);
- ``name`` is never changed in place (written through, appended, passed to a call that
  writes): the loop made a new array every iteration;
- ``name`` is bound nowhere else in the loop, not read in its header nor in the body
  before this statement, and not live after the loop (a loop that runs no iteration
  would leave the old value there) unless this is its only binding in the function
  (there is no old value: ``n2 = x.shape[0]`` that the reverse sweep reads).

Moving it changes no value: the statement computes the same number on every iteration
and nothing in between reads the name. Before and after::

    >>> fn = ast.parse('''
    ... def f(x, dt, n):
    ...     for i in range(n):
    ...         h = 0.5 * dt
    ...         x = x + h * x
    ...     return x
    ... ''').body[0]
    >>> hoist_loop_invariants(fn)
    True
    >>> print(ast.unparse(fn))
    def f(x, dt, n):
        h = 0.5 * dt
        for i in range(n):
            x = x + h * x
        return x
"""

from __future__ import annotations

import ast
from collections import Counter

from ..astnodes import names_read, walk
from ..codegen import Comment
from ..ir import shape_axis
from .cleanup import live_after_statements
from .cse import changed_in_place, worth_a_name
from .effects import cannot_fail, statement_lists


def hoist_loop_invariants(function: ast.FunctionDef) -> bool:
    """Move loop-invariant assignments before their loops, in place (module docstring);
    whether anything moved."""
    changed = False
    live = None
    in_place = changed_in_place(function)  # an array written through: its value changes
    bound = _bindings(function) + Counter(a.arg for a in function.args.args)
    for stmts in list(statement_lists(function)):
        index = 0
        while index < len(stmts):
            loop = stmts[index]
            if isinstance(loop, ast.For) and not loop.orelse:
                live = live or live_after_statements(function)
                after = live.get(loop)
                # Only an outermost loop runs once: a loop inside another that runs no
                # iteration leaves the value the last run of it bound.
                outermost = stmts is function.body
                once = bound if outermost else Counter()
                moved = _take_invariants(loop, after, in_place, once) if after is not None else []
                if moved:
                    stmts[index:index] = moved
                    index += len(moved)
                    changed, live = True, None  # statements moved: liveness again
            index += 1
    return changed


def _take_invariants(loop: ast.For, live_after_loop, in_place: set[str], bound: Counter):
    """The invariant assignments of ``loop``'s body, removed from it, in their order.
    A name read after the loop moves too when this is its only binding in the function
    (``bound``, parameters counted; empty for a loop inside another): before the loop it
    held no value, so a loop that runs no iteration leaves nothing anything could read."""
    binds = _bindings(loop)
    live = {name for name in live_after_loop if bound[name] != 1}
    blocked = names_read(loop.iter) | live
    moved, read_before = [], set()
    for stmt in list(loop.body):
        name = _invariant_target(stmt, binds, blocked | read_before, in_place, live_after_loop)
        if name is None:
            read_before |= names_read(stmt)
            continue
        loop.body.remove(stmt)
        moved.append(stmt)
        del binds[name]  # bound before the loop now: what reads it may move too
    if all(isinstance(s, Comment) for s in loop.body):  # comments alone are no body
        loop.body.append(ast.Pass())
    return moved


def _invariant_target(stmt, binds: Counter, blocked, in_place: set[str], live_after_loop=()):
    """The target of ``stmt`` when it is an invariant assignment that may move; an index
    ``n - 2`` too when its name is read after the loop (``live_after_loop``): it keeps its
    name there anyway."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Name) or binds[target.id] != 1 or target.id in blocked:
        return None
    if target.id in in_place:  # ``t = m * 1.1; t[0] += x``: a new array every iteration
        return None
    index = target.id in live_after_loop and _offset(stmt.value)
    worth = worth_a_name(stmt.value) or index
    if not (cannot_fail(stmt.value) and worth) and not _length(stmt.value):
        return None
    length = _length(stmt.value)  # a write into an array leaves its shape as it was
    if any(binds[name] or (name in in_place and not length) for name in names_read(stmt.value)):
        return None
    return target.id


def _bindings(node: ast.AST) -> Counter:
    """How many times ``node`` binds each name."""
    return Counter(
        n.id for n in walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    )


def _offset(expr: ast.expr) -> bool:
    """Whether ``expr`` is a name plus or minus an integer (``t23 - 2``)."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub))):
        return False
    sides = (expr.left, expr.right)
    integer = any(isinstance(e, ast.Constant) and type(e.value) is int for e in sides)
    return integer and any(isinstance(e, ast.Name) for e in sides)


def _length(expr: ast.expr) -> bool:
    """Whether ``expr`` is ``a.shape[k]`` (a length: the same while ``a`` is not rebound,
    and typed, so it cannot fail)."""
    return shape_axis(expr) is not None

"""Pass ``take_over_last_buffers``: an input's adjoint takes over a buffer nobody reads again.

A function that starts from a copy of its input (``u = u0.copy()``) and swaps two
buffers every step ends its reverse sweep by adding the working buffer's adjoint
into the input's, which is still all zeros::

    u0_bar = np.zeros_like(u0)              u_bar = np.zeros_like(u)
    u_bar = np.zeros_like(u)                v_bar = np.zeros_like(v)
    v_bar = np.zeros_like(v)                for _ in range(steps - 1, -1, -1):
    for _ in range(steps - 1, -1, -1):          v_bar, u_bar = (u_bar, v_bar)
        v_bar, u_bar = (u_bar, v_bar)           ...
        ...                                 u0_bar = u_bar
    add_into(u0_bar, u_bar)                 return (u0_bar,)
    return (u0_bar,)

The sum is the buffer itself, so the input's adjoint becomes that buffer: one
allocation, one pass over the array and, cold, the compilation of the loops of
``add_into`` saved. ``first_arrays.py`` does the same for private buffers; these
are buffers a swap binds again, which its analyses do not follow, so this pass
runs once, on the function's outermost statements, after the swaps are made. The
buffer is taken when every name that may hold it (those the swaps exchange it
with) is a private zeroed buffer of the input's static shape, and nothing mentions
its name afterwards: the names a swap exchanges hold distinct buffers at every
point, so its partner, read later, holds another.

>>> fn = ast.parse('''
... def f_vjp(u0, g, steps):
...     u0_bar = np.zeros_like(u0)
...     u_bar = np.zeros_like(u)
...     v_bar = np.zeros_like(v)
...     u_bar += g
...     for _ in range(steps):
...         v_bar, u_bar = (u_bar, v_bar)
...         v_bar[0] += 0.5 * u_bar[0]
...     add_into(u0_bar, u_bar)
...     return (u0_bar,)
... ''').body[0]
>>> shape = (("class", "n"),)
>>> ranks = {"u0": 1, "u": 1, "v": 1, "u0_bar": 1, "u_bar": 1, "v_bar": 1}
>>> take_over_last_buffers(fn, {"u0": shape, "u": shape, "v": shape}, ranks)
True
>>> print(ast.unparse(fn.body[-2]))
u0_bar = u_bar
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import clone, walk
from .first_arrays import zeros_like_sources
from .forwarding import accumulation_of, private_buffers, zeros_binding


def take_over_last_buffers(function: ast.FunctionDef, shapes: dict, ranks: dict) -> bool:
    """Rewrite, in place, as the module docstring says; whether anything changed.
    ``shapes``: the static shapes of the names that have one; ``ranks``: of the arrays."""
    body = function.body
    private = _private_modulo_swaps(function, ranks)
    likes = zeros_like_sources(function, None)
    swapped = _swap_classes(function)
    changed = False
    for index, stmt in enumerate(body):
        found = accumulation_of(stmt)
        if found is None or not isinstance(stmt, ast.Expr):
            continue
        target, source = found
        if not (isinstance(target, ast.Name) and isinstance(source, ast.Name)):
            continue
        holders = swapped.get(source.id, {source.id})
        shape = shapes.get(likes.get(target.id, ""))
        if shape is None or target.id in holders or not holders <= private:
            continue
        if any(shapes.get(likes.get(name, "")) != shape for name in holders):
            continue
        if not _zero_until(body, index, target.id) or _mentioned(body[index + 1 :], {source.id}):
            continue
        taken = ast.copy_location(ast.Assign([ast.Name(target.id, ast.Store())], source), stmt)
        body[index] = ir.located(taken, stmt)
        changed = True
    return changed


def _private_modulo_swaps(function: ast.FunctionDef, ranks: dict) -> set[str]:
    """The private buffers (forwarding.py) of ``function`` if its swaps were not there."""
    copy = clone(function)
    for node in walk(copy):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                block[:] = [s for s in block if not _swap(s)] or [ast.Pass()]
    return private_buffers(copy, returned=True, ranks=ranks)


def _swap_classes(function: ast.FunctionDef) -> dict[str, set[str]]:
    """Each name a permutation moves, with every name it may exchange a value with."""
    classes: dict[str, set[str]] = {}
    for stmt in walk(function):
        if isinstance(stmt, ast.stmt) and _swap(stmt):
            joined = set()
            for pair in ir.permutation_pairs(stmt):
                for name in pair:
                    joined |= classes.get(name, {name})
            for name in joined:
                classes[name] = joined
    return classes


def _swap(stmt: ast.stmt) -> bool:
    """``a, b = (b, a)`` (any cycle of names): the same names on both sides, nothing else
    (``a, b = (b + 1.0, a)`` is not one)."""
    if not ir.is_permutation(stmt) or not isinstance(stmt.value, ast.Tuple):
        return False
    targets, values = stmt.targets[0].elts, stmt.value.elts
    if not all(isinstance(node, ast.Name) for node in targets + values):
        return False
    return sorted(t.id for t in targets) == sorted(v.id for v in values)


def _zero_until(body: list[ast.stmt], index: int, name: str) -> bool:
    """Whether ``name`` is bound zeroed before ``body[index]`` and not mentioned between."""
    for stmt in reversed(body[:index]):
        if zeros_binding(stmt) == name:
            return True
        if _mentioned([stmt], {name}):
            return False
    return False


def _mentioned(stmts: list[ast.stmt], names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for s in stmts for n in walk(s))

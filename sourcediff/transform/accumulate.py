"""Array adjoints accumulated by one shared compiled function, ``add_into``.

The reverse sweep adds into array adjoints: ``u_bar += t_bar`` and, for a region,
``A_bar[1:-1, :-2] += t_bar``. Numba compiles each such statement as an array expression
of its own (seconds each on arrays of rank 3: NPBench's heat_3d took minutes to compile);
``add_into(dst, src)`` is compiled once per pair of argument types and shared by every
statement of that kind: a loop nest when the shapes agree (as they do in the reverse
sweep), NumPy's broadcasting ``+=`` otherwise. An added array expression (``u_bar += 2.0 *
t``) keeps ``+=``, which Numba fuses into one loop without a temporary (on small arrays in
a loop the temporary costs more than the shared loop saves). A region is rewritten only
when its index holds a slice and otherwise integers, so that ``dst`` is a view: adding
into a copy (a gather ``x_bar[idx]``) would be lost. Elements and scalars keep ``+=``.

>>> code = ast.parse("A_bar[1:-1, :-2] += t_bar\\nu_bar[i] += w\\nu_bar += w\\ns_bar += w\\n"
...                  "u_bar += 2.0 * w")
>>> print(ast.unparse(accumulate_arrays(code.body, {"A_bar", "u_bar"}, lambda name: "int")))
add_into(A_bar[1:-1, :-2], t_bar)
u_bar[i] += w
add_into(u_bar, w)
s_bar += w
u_bar += 2.0 * w
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ..astnodes import clone


def accumulate_arrays(
    stmts: list[ast.stmt], arrays: set[str], kind_of: Callable[[str], str]
) -> list[ast.stmt]:
    """``stmts`` with each ``+=`` into an array adjoint (one of ``arrays``) or a view of
    one made an ``add_into`` call; ``kind_of(name)`` tells an index name's kind."""
    out = []
    for stmt in stmts:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner:
                setattr(stmt, field, accumulate_arrays(inner, arrays, kind_of))
        if _adds_into_array(stmt, arrays, kind_of):
            target = _loaded(stmt.target)
            call = ast.Call(ast.Name("add_into", ast.Load()), [target, stmt.value], [])
            stmt = _replacing(ast.Expr(call), stmt)
        out.append(stmt)
    return out


def _adds_into_array(stmt: ast.stmt, arrays: set[str], kind_of) -> bool:
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)):
        return False
    if not isinstance(stmt.value, (ast.Name, ast.Subscript, ast.Call)):
        return False  # an array expression: Numba fuses it into the += loop, no temporary
    target = stmt.target
    if isinstance(target, ast.Name):
        return target.id in arrays
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return False
    parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return (
        target.value.id in arrays
        and any(isinstance(p, ast.Slice) for p in parts)
        and all(_is_view_index(p, kind_of) for p in parts)
    )


def _is_view_index(part: ast.expr, kind_of) -> bool:
    """A slice, an integer constant or an integer name: basic indexing, which views."""
    if isinstance(part, ast.Slice):
        return True
    if isinstance(part, ast.Constant):
        return type(part.value) is int
    return isinstance(part, ast.Name) and kind_of(part.id) == "int"


def _replacing(new: ast.stmt, old: ast.stmt) -> ast.stmt:
    """``new`` where ``old`` was: its location and the user line it comes from."""
    ast.copy_location(new, old)
    if hasattr(old, "origin"):
        new.origin = old.origin
    return new


def _loaded(target: ast.expr) -> ast.expr:
    loaded = clone(target)
    for node in ast.walk(loaded):
        if hasattr(node, "ctx"):
            node.ctx = ast.Load()
    return loaded

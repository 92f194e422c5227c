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
from .signature import fresh_call


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


def copy_by_loops(function: ast.FunctionDef, ranks: dict[str, int], shapes: dict) -> bool:
    """Rewrite, in place, ``a[:, :] = b`` as a loop nest copying element by element, where
    ``b`` has ``a``'s static shape and every binding of ``b`` is a new array (a fresh
    call or an outlined helper's result: it shares no memory with ``a``); whether any
    changed. Numba compiles an array stored into a slice with a broadcasting check whose
    error message alone takes seconds; the loop takes a tenth of a second.

    >>> fn = ast.parse("def f(a, h):\\n    b = np.copy(h)\\n    a[:, :] = b").body[0]
    >>> copy_by_loops(fn, {"a": 2, "b": 2, "h": 2}, {"a": ("n", "m"), "b": ("n", "m")})
    True
    >>> print(ast.unparse(fn.body[1]))
    for a_i0 in range(a.shape[0]):
        for a_i1 in range(a.shape[1]):
            a[a_i0, a_i1] = b[a_i0, a_i1]
    """
    fresh = _fresh_names(function)
    taken = {n.id for n in walk(function) if isinstance(n, ast.Name)}
    changed = False
    for block, k, target, value in _single_assignments(function):
        if not (_whole(target, ranks, ast.Store) and isinstance(value, ast.Name)):
            continue
        array, source = target.value.id, value.id
        same = shapes.get(array) is not None and shapes.get(array) == shapes.get(source)
        if same and source in fresh and source != array:
            loops = _loop_copy(array, source, ranks[array], taken)
            block[k] = ast.copy_location(loops, block[k])
            changed = True
    return changed


def _single_assignments(function: ast.FunctionDef):
    """``(block, position, target, value)`` of each ``target = value`` statement."""
    for block in statement_lists(function):
        for k, stmt in enumerate(block):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                yield block, k, stmt.targets[0], stmt.value


def _loop_copy(array: str, source: str, rank: int, taken: set[str]) -> ast.stmt:
    names = []
    for axis in range(rank):
        name = f"{array}_i{axis}"
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    index = ", ".join(names)
    text = f"{array}[{index}] = {source}[{index}]"
    for axis in range(rank - 1, -1, -1):
        body = "\n".join("    " + line for line in text.splitlines())
        text = f"for {names[axis]} in range({array}.shape[{axis}]):\n{body}"
    return ast.parse(text).body[0]


def _fresh_names(function: ast.FunctionDef) -> set[str]:
    """Names every binding of which is a new array: a fresh NumPy call or an outlined
    helper's result that is new (``outlined.returns_fresh``)."""
    bindings: dict[str, list] = {}
    for node in walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets = targets + ([node.target] if isinstance(node, (ast.For, ast.AugAssign)) else [])
        for target in targets:
            value = (
                node.value
                if isinstance(node, ast.Assign) and isinstance(target, ast.Name)
                else None
            )
            for name in walk(target):
                if isinstance(name, ast.Name):
                    bindings.setdefault(name.id, []).append(value)
    return {name for name, values in bindings.items() if all(map(_new_array, values))}


def _new_array(value) -> bool:
    return getattr(value, "fresh_result", False) or fresh_call(value)


def _fill_zeroings(function: ast.FunctionDef, ranks: dict[str, int]) -> bool:
    changed = False
    for block, k, target, value in _single_assignments(function):
        zero = isinstance(value, ast.Constant) and type(value.value) is float
        if zero and value.value == 0 and _whole(target, ranks, ast.Store):
            fill = ast.Attribute(ast.Name(target.value.id, ast.Load()), "fill", ast.Load())
            call = ast.Call(fill, [ast.Constant(0.0)], [])
            block[k] = ast.copy_location(ast.Expr(call), block[k])
            changed = True
    return changed


def _whole(node: ast.expr, ranks: dict[str, int], context: type) -> bool:
    """Whether ``node`` is ``a[:, ..., :]`` over all of ``a``'s axes, in ``context``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.ctx, context)):
        return False
    if not isinstance(node.value, ast.Name) or node.value.id not in ranks:
        return False
    return covers_every_axis(node, ranks[node.value.id])


def covers_every_axis(node: ast.Subscript, rank: int) -> bool:
    """Whether the subscript ``node`` is a full slice (``:``) of each of ``rank >= 1`` axes.

    >>> covers_every_axis(ast.parse("a[:, :]", mode="eval").body, 2)
    True
    >>> covers_every_axis(ast.parse("a[:]", mode="eval").body, 2)
    False
    """
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    full = all(isinstance(p, ast.Slice) and not (p.lower or p.upper or p.step) for p in parts)
    return full and len(parts) == rank and rank >= 1

"""Which arrays may change shape from one loop iteration to the next.

An array rebound inside a loop usually keeps its shape (``u = u + dt * lap``),
and then one adjoint array, allocated once, serves every iteration. When the
shape depends on the iteration (``t = A[i, :i]``, ``w = np.zeros(k)`` with
``k`` changing), the reverse sweep must give each iteration an adjoint of that
iteration's shape: it restores the old array and allocates its adjoint from
it. This analysis finds those arrays, conservatively:

- a slice whose bound or step is an integer assigned inside the loop, or
- a boolean mask (``a[a > 0.0]``) computed inside the loop, or
- an operation reading an integer or tuple assigned inside the loop (other
  than as a plain element index, which never changes a row's shape), or
- an operation reading an array that is itself shape-variant, or
- an array defined by more than one statement of the loop (``x = a[1:]`` in one
  branch, ``x = a[:2]`` in the other): their shapes need not agree, or
- an array rebound from a slice of its own previous value (``x = x[1:] * 3.0``), or
- an array defined before a loop (or a parameter) and again in it, unless the new
  value is elementwise in the old one (``u = u + dt * lap``): ``v = a.copy()`` then
  ``v = m @ a`` in the loop changes its shape after the first iteration.

    >>> import ast
    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(A):
    ...     for i in range(3):
    ...         t = A[i, :i]
    ...         r = A[i]
    ...         u = t * 2.0
    ... ''').body[0]
    >>> array, int_ = VarType("array", "float64", 1), VarType("int")
    >>> types = TypeTable({"A": array, "t": array, "r": array, "u": array, "i": int_}, int_)
    >>> sorted(shape_variant_arrays(node, types))
    ['t', 'u']
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..astnodes import walk
from .static_shapes import PERMUTATIONS

SHAPE_KINDS = {"int", "tuple"}


def shape_variant_arrays(node: ast.FunctionDef, types) -> set[str]:
    """Array variables assigned in a loop whose shape may differ between iterations."""
    variant: set[str] = set()
    for loop in _all_loops(node):
        variant |= _redefined_with_another_shape(node, loop, types)
    for loop in ir.outermost_loops(node.body):
        changing = _assigned_in(loop)
        definitions = [s for s in walk(loop) if _array_definition(s, types)]
        defined = [stmt.targets[0].id for stmt in definitions]
        variant |= {name for name in defined if defined.count(name) > 1}
        variant |= _sliced_from_itself(definitions, changing)
        grew = True
        while grew:
            grew = False
            for stmt in definitions:
                name = stmt.targets[0].id
                if name not in variant and _reads_variant(stmt.value, changing, variant, types):
                    variant.add(name)
                    grew = True
    return variant


def _all_loops(node: ast.FunctionDef) -> list[ast.stmt]:
    return [s for s in walk(node) if isinstance(s, (ast.For, ast.While))]


def _in_order(stmts: list[ast.stmt]):
    """The assignments of ``stmts`` in source order, those in nested blocks included."""
    for stmt in stmts:
        if isinstance(stmt, ast.Assign):
            yield stmt
        for block in ("body", "orelse"):
            yield from _in_order(getattr(stmt, block, []))


def _redefined_with_another_shape(node, loop, types) -> set[str]:
    """Arrays live before ``loop`` whose definition in it may give them another shape."""
    inside = {id(s) for s in walk(loop)}
    before = {a.arg for a in node.args.args} | {
        s.targets[0].id for s in walk(node) if _array_definition(s, types) and id(s) not in inside
    }
    same: dict[str, str | None] = {}  # array defined in the loop -> whose entry shape it has
    changed = set()
    for stmt in _in_order(loop.body):
        if not _array_definition(stmt, types):
            continue
        name = stmt.targets[0].id
        same[name] = _shape_source(stmt.value, same, types)
        if name in before and same[name] != name:
            changed.add(name)
    return changed


def _shape_source(value: ast.expr, same: dict, types) -> str | None:
    """The array whose loop-entry shape ``value`` has, when that is evident: a copy of it,
    a roll or flip of it, or an elementwise operation whose array operands all have the
    same one."""
    if isinstance(value, ast.Name):
        return same.get(value.id, value.id)
    if (
        isinstance(value, ast.Call)
        and not value.args
        and rules.call_path(value.func).endswith(".copy")
    ):
        value = value.func.value
        return same.get(value.id, value.id) if isinstance(value, ast.Name) else None
    if isinstance(value, ast.Call) and rules.call_path(value.func) in PERMUTATIONS:
        first = value.args[0] if value.args else None
        return same.get(first.id, first.id) if isinstance(first, ast.Name) else None
    rule = rules.lookup(rules.rule_name(value))
    if rule is None or rule.adjoints is not None:
        return None
    operands = [n for n in _operands(value) if types[n].kind == "array"]
    sources = {same.get(n, n) for n in operands}
    return sources.pop() if len(sources) == 1 else None


def _operands(value: ast.expr) -> list[str]:
    if isinstance(value, ast.BinOp):
        parts = [value.left, value.right]
    elif isinstance(value, ast.UnaryOp):
        parts = [value.operand]
    elif isinstance(value, ast.Call):
        parts = list(value.args)
    else:
        return []
    return [p.id for p in parts if isinstance(p, ast.Name)]


def _sliced_from_itself(definitions: list[ast.Assign], changing: set[str]) -> set[str]:
    """Arrays whose new value derives from a strict slice of their own previous value.

    ``origins[t]`` holds the rebound arrays that ``t`` derives from through a slice; an
    array among its own origins may shrink or grow every iteration.
    """
    origins: dict[str, set[str]] = {}
    grew = True
    while grew:
        grew = False
        for stmt in definitions:
            name, value = stmt.targets[0].id, stmt.value
            found = {
                o for n in walk(value) if isinstance(n, ast.Name) for o in origins.get(n.id, ())
            }
            if _is_strict_slice(value) and value.value.id in changing:
                found.add(value.value.id)
            if not found <= origins.get(name, set()):
                origins[name] = origins.get(name, set()) | found
                grew = True
    return {name for name, sources in origins.items() if name in sources}


def _is_strict_slice(value: ast.expr) -> bool:
    """``a[1:]``, ``a[:, :k]``: a region read that may select less than all of ``a``."""
    if not ir.is_element_read(value):
        return False
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    slices = [p for p in parts if isinstance(p, ast.Slice)]
    return any(p.lower or p.upper or p.step for p in slices)


def _array_definition(stmt: ast.stmt, types) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.targets[0], ast.Name)
        and types[stmt.targets[0].id].kind == "array"
    )


def _reads_variant(value: ast.expr, changing: set[str], variant: set[str], types) -> bool:
    """Whether the shape of ``value`` may depend on something the loop changes."""
    if ir.is_element_read(value):
        bounds = [n for s in walk(value.slice) if isinstance(s, ast.Slice) for n in _parts(s)]
        names = {n.id for b in bounds for n in walk(b) if isinstance(n, ast.Name)}
        if _selects_by_array(value, changing, variant, types):
            return True
        return value.value.id in variant or bool(names & changing & _shape_names(types, names))
    names = {n.id for n in walk(value) if isinstance(n, ast.Name)}
    return bool(names & variant) or bool(names & changing & _shape_names(types, names))


def _selects_by_array(value: ast.Subscript, changing: set[str], variant: set[str], types) -> bool:
    """``a[mask]`` has as many elements as ``mask`` has true values, which the loop may
    change; ``a[idx]`` has ``idx``'s shape."""
    for node in walk(value.slice):
        if isinstance(node, ast.Name) and types[node.id].kind == "array":
            if types[node.id].dtype == "bool" and (
                node.id in changing or value.value.id in changing
            ):
                return True
            if node.id in variant:
                return True
    return False


def _parts(piece: ast.Slice) -> list[ast.expr]:
    return [p for p in (piece.lower, piece.upper, piece.step) if p is not None]


def _shape_names(types, names: set[str]) -> set[str]:
    return {n for n in names if types[n].kind in SHAPE_KINDS}


def _assigned_in(loop: ast.stmt) -> set[str]:
    names = {n.id for n in walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names

"""Which arrays may change shape from one loop iteration to the next.

An array rebound inside a loop usually keeps its shape (``u = u + dt * lap``),
and then one adjoint array, allocated once, serves every iteration. When the
shape depends on the iteration (``t = A[i, :i]``, ``w = np.zeros(k)`` with
``k`` changing), the reverse sweep must give each iteration an adjoint of that
iteration's shape: it restores the old array and allocates its adjoint from
it. This analysis finds those arrays, conservatively:

- a slice whose bound or step is an integer assigned inside the loop, or
- an operation reading an integer or tuple assigned inside the loop (other
  than as a plain element index, which never changes a row's shape), or
- an operation reading an array that is itself shape-variant.

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

from .. import ir

SHAPE_KINDS = {"int", "tuple"}


def shape_variant_arrays(node: ast.FunctionDef, types) -> set[str]:
    """Array variables assigned in a loop whose shape may differ between iterations."""
    variant: set[str] = set()
    for loop in ir.outermost_loops(node.body):
        changing = _assigned_in(loop)
        definitions = [s for s in ast.walk(loop) if _array_definition(s, types)]
        grew = True
        while grew:
            grew = False
            for stmt in definitions:
                name = stmt.targets[0].id
                if name not in variant and _reads_variant(stmt.value, changing, variant, types):
                    variant.add(name)
                    grew = True
    return variant


def _array_definition(stmt: ast.stmt, types) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.targets[0], ast.Name)
        and types[stmt.targets[0].id].kind == "array"
    )


def _reads_variant(value: ast.expr, changing: set[str], variant: set[str], types) -> bool:
    """Whether the shape of ``value`` may depend on something the loop changes."""
    if ir.is_element_read(value):
        bounds = [n for s in ast.walk(value.slice) if isinstance(s, ast.Slice) for n in _parts(s)]
        names = {n.id for b in bounds for n in ast.walk(b) if isinstance(n, ast.Name)}
        return value.value.id in variant or bool(names & changing & _shape_names(types, names))
    names = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    return bool(names & variant) or bool(names & changing & _shape_names(types, names))


def _parts(piece: ast.Slice) -> list[ast.expr]:
    return [p for p in (piece.lower, piece.upper, piece.step) if p is not None]


def _shape_names(types, names: set[str]) -> set[str]:
    return {n for n in names if types[n].kind in SHAPE_KINDS}


def _assigned_in(loop: ast.stmt) -> set[str]:
    names = {
        n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return names

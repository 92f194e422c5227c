"""Derivatives of joining arrays: ``np.concatenate``, ``np.stack``, ``np.hstack``, ``np.vstack``.

Their operand is a tuple of arrays, so no rule-table template fits: the adjoint
of each part is its own slab of the result's adjoint, and the tangent is the
same join of the parts' tangents. ``hstack`` and ``vstack`` are first spelled
as a concatenation or a stack along an axis, from the parts' rank::

    t = np.concatenate((a, b))   ->   a_bar += t_bar[0:a.shape[0]]
                                      b_bar += t_bar[a.shape[0]:a.shape[0] + b.shape[0]]
    t = np.stack((a, b), axis=1) ->   a_bar += t_bar[:, 0];  b_bar += t_bar[:, 1]
"""

from __future__ import annotations

import ast

from . import rules
from .errors import SourceDiffError

JOINS = ("np.concatenate", "np.stack", "np.hstack", "np.vstack")


def rows() -> list[rules.Rule]:
    """Table rows, so the calls are accepted; their derivatives are computed here."""
    return [
        rules.Rule("np.concatenate", ("arrays", "axis"), ("1", None), min_args=1),
        rules.Rule("np.stack", ("arrays", "axis"), ("1", None), min_args=1),
        rules.Rule("np.hstack", ("arrays",), ("1",)),
        rules.Rule("np.vstack", ("arrays",), ("1",)),
    ]


def is_join(value: ast.expr) -> bool:
    """Whether ``value`` joins a tuple of arrays."""
    return isinstance(value, ast.Call) and rules.call_path(value.func) in JOINS


def _kind_and_axis(stmt: ast.Assign, types) -> tuple[str, int]:
    value = stmt.value
    path = rules.call_path(value.func)
    parts = value.args[0].elts
    rank = types[parts[0].id].ndim if isinstance(parts[0], ast.Name) else 0
    if path == "np.hstack":
        return "concatenate", 0 if rank == 1 else 1
    if path == "np.vstack":
        return ("stack", 0) if rank == 1 else ("concatenate", 0)
    axis = [k.value for k in value.keywords if k.arg == "axis"] + value.args[1:2]
    if axis and not (isinstance(axis[0], ast.Constant) and isinstance(axis[0].value, int)):
        raise SourceDiffError(
            f"'{path}' needs a constant axis here", *getattr(stmt, "origin", ("", 0))
        )
    out_rank = types[stmt.targets[0].id].ndim
    return path[3:], (axis[0].value if axis else 0) % out_rank


def join_terms(stmt: ast.Assign, types, out_bar: ast.expr) -> list[tuple[str, ast.expr]]:
    """``(part, slab of out_bar)`` for each named part of the join ``stmt``."""
    kind, axis = _kind_and_axis(stmt, types)
    parts = stmt.value.args[0].elts
    terms, start = [], ast.Constant(0)
    for k, part in enumerate(parts):
        if not isinstance(part, ast.Name):
            raise SourceDiffError(
                "join named arrays only", *getattr(stmt, "origin", ("", 0))
            )  # flatten makes every part an atom; a number is not an array
        if kind == "stack":
            picked: ast.expr = ast.Constant(k)
        else:
            length = ast.parse(f"{part.id}.shape[{axis}]", mode="eval").body
            stop = length if k == 0 else ast.BinOp(start, ast.Add(), length)
            picked, start = ast.Slice(None if k == 0 else start, stop), stop
        index = [ast.Slice() for _ in range(axis)] + [picked]
        slab = ast.Subscript(out_bar, index[0] if len(index) == 1 else ast.Tuple(index), ast.Load())
        terms.append((part.id, slab))
    return terms


def join_tangent(value: ast.Call, dot_of) -> ast.expr | None:
    """The same join of the parts' tangents (``dot_of(name)``, None for a constant part)."""
    dots = [dot_of(p.id) if isinstance(p, ast.Name) else None for p in value.args[0].elts]
    if all(d is None for d in dots):
        return None
    parts = [
        d if d is not None else ast.parse(f"np.zeros_like({p.id})", mode="eval").body
        for d, p in zip(dots, value.args[0].elts)
    ]
    return ast.Call(value.func, [ast.Tuple(parts, ast.Load())] + value.args[1:], value.keywords)

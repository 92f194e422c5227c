"""Give every loop a trip counter the reverse sweep can replay.

A ``for`` loop over ``range`` that cannot stop early gets its trip count
computed before it (``n_i = len(range(a, b, s))``); a ``while`` loop, or a
``for`` loop ending in the canonical ``if broke: break``, counts its iterations
(``n_iter = n_iter + 1`` first thing in the body). The counters are ordinary
integer variables, so the recording analysis saves them like any other value
when an outer loop overwrites them.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..naming import Namer


@dataclass(frozen=True)
class TripCounter:
    """The variable holding a loop's trip count; ``running`` if counted per iteration."""

    name: str
    running: bool


def add_trip_counters(stmts: list[ast.stmt], namer: Namer, counters: dict) -> list[ast.stmt]:
    """``stmts`` with counters added; ``counters`` maps each loop node to its counter name."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, ast.If):
            stmt.body = add_trip_counters(stmt.body, namer, counters)
            stmt.orelse = add_trip_counters(stmt.orelse, namer, counters)
        elif isinstance(stmt, (ast.For, ast.While)):
            stmt.body = add_trip_counters(stmt.body, namer, counters)
            out.extend(_count(stmt, namer, counters))
        out.append(stmt)
    return out


def _count(loop: ast.For | ast.While, namer: Namer, counters: dict) -> list[ast.stmt]:
    """Statements to put before ``loop``; may prepend the increment to its body."""
    if isinstance(loop, ast.For) and loop.target.id.strip("_"):
        name = namer.fresh(f"n_{loop.target.id}")
    else:
        name = namer.fresh("n_iter")
    ends_early = isinstance(loop, ast.While) or (
        loop.body
        and isinstance(loop.body[-1], ast.If)
        and isinstance(loop.body[-1].body[0], ast.Break)
    )
    counters[loop] = TripCounter(name, bool(ends_early))
    if ends_early:
        increment = ast.BinOp(ast.Name(name, ast.Load()), ast.Add(), ast.Constant(1))
        loop.body.insert(0, _at(ast.Assign([ast.Name(name, ast.Store())], increment), loop))
        return [_at(ast.Assign([ast.Name(name, ast.Store())], ast.Constant(0)), loop)]
    trips = ast.Call(ast.Name("len", ast.Load()), [loop.iter], [])
    return [_at(ast.Assign([ast.Name(name, ast.Store())], trips), loop)]


def _at(node: ast.stmt, loop: ast.stmt) -> ast.stmt:
    ast.copy_location(node, loop)
    if hasattr(loop, "origin"):
        node.origin = loop.origin
    return node

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
from ..transform.effects import statement_lists


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


def separate_loop_variables(node: ast.FunctionDef, namer: Namer, counters: dict) -> None:
    """Give ``for`` loops their own variable where its name is also used outside every
    loop over it (``i = idx[e]`` before ``for i in range(3)``, ``last = y[i]`` between
    two loops over ``i``), in place: the reverse sweep may need the outer ``i`` while a
    loop rebinds it. After each such loop, ``i`` takes its last value if it ran, as in
    Python.

    >>> f = ast.parse("def f(y, n):\\n    for i in range(n):\\n        y[i] = 1.0\\n"
    ...               "    return y[i]").body[0]
    >>> counters = {}
    >>> f.body = add_trip_counters(f.body, Namer.for_tree(f, set()), counters)
    >>> separate_loop_variables(f, Namer.for_tree(f, set()), counters)
    >>> print(ast.unparse(f))
    def f(y, n):
        n_i = len(range(n))
        for i2 in range(n):
            y[i2] = 1.0
        ran = n_i > 0
        if ran:
            i = i2
        return y[i]
    """
    fors = [loop for loop in counters if isinstance(loop, ast.For)]
    for name in sorted({loop.target.id for loop in fors}):
        loops = [loop for loop in fors if loop.target.id == name]
        inside = {id(sub) for loop in loops for sub in ast.walk(loop) if sub is not loop.iter}
        inside -= {id(sub) for loop in loops for sub in ast.walk(loop.iter)}
        outside = (
            sub
            for sub in ast.walk(node)
            if isinstance(sub, ast.Name) and sub.id == name and id(sub) not in inside
        )
        if next(outside, None) is None:
            continue
        for loop in loops:
            _rename_loop_variable(node, loop, namer.fresh(name), counters[loop], namer)


def _rename_loop_variable(node, loop: ast.For, new: str, counter: TripCounter, namer) -> None:
    old = loop.target.id
    for part in [loop.target, *loop.body]:
        for sub in ast.walk(part):
            if isinstance(sub, ast.Name) and sub.id == old:
                sub.id = new
    ran = namer.fresh("ran")
    after = ast.parse(f"{ran} = {counter.name} > 0\nif {ran}:\n    {old} = {new}").body
    for stmt in after:
        for sub in ast.walk(stmt):
            _at(sub, loop) if isinstance(sub, ast.stmt) else ast.copy_location(sub, loop)
    for block in statement_lists(node):
        if any(stmt is loop for stmt in block):
            position = next(k for k, stmt in enumerate(block) if stmt is loop)
            block[position + 1 : position + 1] = after
            return

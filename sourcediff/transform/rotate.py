"""Pass ``rotate_window_elements``: a loop's sliding window of elements kept in numbers.

The reverse of a stencil scatters: iteration ``i`` adds to ``u_bar[i + 1]``,
``u_bar[i]`` and ``u_bar[i - 1]``, and the next iteration adds to two of those again.
Each ``+=`` goes through memory, so every iteration waits for the previous one's
store to come back as a load: a chain of store-to-load latencies that no compiler
breaks (it would have to prove that no other name writes the array). An expert keeps
the window in registers (Carr and Kennedy's scalar replacement): per iteration the
element entering the window is loaded once, the one leaving it stored once, and the
others move along::

    >>> fn = ast.parse('''
    ... def f_vjp(g, n):
    ...     u_bar = np.zeros(n)
    ...     for i in range(n - 2, 0, -1):
    ...         u_bar[i + 1] += g[i]
    ...         u_bar[i - 1] += g[i]
    ...     return u_bar
    ... ''').body[0]
    >>> rotate_window_elements(fn, {"g": 1, "u_bar": 1})
    True
    >>> print(ast.unparse(fn.body[1]))
    if n - 2 > 0:
        u_bar_p1 = u_bar[n - 1]
        u_bar_0 = u_bar[n - 2]
        for i in range(n - 2, 0, -1):
            u_bar_m1 = u_bar[i - 1]
            u_bar_p1 += g[i]
            u_bar_m1 += g[i]
            u_bar[i + 1] = u_bar_p1
            u_bar_p1 = u_bar_0
            u_bar_0 = u_bar_m1
        u_bar[i] = u_bar_p1
        u_bar[i - 1] = u_bar_0

Which loops and arrays qualify is ``windows.py``'s to say. Every arithmetic operation is
the one the loop did, on the same numbers, in the same order: only where the numbers
live changes. The loads before the loop and the stores after it touch elements its first
and last iterations touched, behind the test that it runs at all.
"""

from __future__ import annotations

import ast
import re

from ..analysis.own_buffers import unshared_buffers
from ..astnodes import clone, walk
from ..naming import Namer
from .simplify import cancel_offsets, simplify
from .windows import Window, loop_lower_bound, loop_windows, range_bounds


def rotate_window_elements(function: ast.FunctionDef, ranks: dict) -> bool:
    """Keep, in place, the sliding windows of each qualifying loop in numbers (module
    docstring); whether any loop changed."""
    own = unshared_buffers(function, ranks)
    taken = Namer.for_tree(function).taken  # its names and its parameters
    found = list(_loops_with_windows(function, own, ranks, {}))
    # A rotated loop is not looked at again; loops one after the other may use the same
    # names for their windows. Backwards, so that a splice leaves earlier indices valid.
    for stmts, index, windows in reversed(found):
        stmts[index : index + 1] = _rotated(stmts[index], windows, Namer(set(taken)))
    return bool(found)


def _loops_with_windows(node: ast.AST, own: set, ranks: dict, lower: dict):
    """``(statement list, position, windows)`` of each loop in ``node`` with windows;
    ``lower``: the least value of each enclosing loop's index, where known."""
    for field in ("body", "orelse"):
        for index, stmt in enumerate(getattr(node, field, None) or []):
            windows = loop_windows(stmt, own, ranks, lower)
            if windows:
                yield getattr(node, field), index, windows
                continue
            inner = lower
            if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
                least = loop_lower_bound(stmt)
                inner = {k: v for k, v in lower.items() if k != stmt.target.id}
                if least is not None and stmt.target.id not in _bound_in(stmt.body):
                    inner[stmt.target.id] = least
            yield from _loops_with_windows(stmt, own, ranks, inner)


def _bound_in(body: list[ast.stmt]) -> set[str]:
    return {
        n.id
        for s in body
        for n in walk(s)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }


def _rotated(loop: ast.For, windows: list[Window], namer: Namer) -> list[ast.stmt]:
    """``loop`` with ``windows`` in numbers, behind the test that it runs at all."""
    start, stop, step = range_bounds(loop)
    index = loop.target.id
    before, top, bottom, after = [], [], [], []
    registers = {}
    for window in windows:
        names = {k: namer.fresh(_register_name(window, k)) for k in window.offsets()}
        registers[window.key()] = names
        ordered = list(window.offsets())[::step]  # the order the elements leave the window
        entering, leaving = ordered[-1], ordered[0]
        before += [_move(names[k], _element(window, start, k)) for k in ordered[:-1]]
        top.append(_move(names[entering], _element(window, ast.Name(index, ast.Load()), entering)))
        bottom.append(_store(window, index, leaving, names[leaving]))
        bottom += [_move(names[k], ast.Name(names[k + step], ast.Load())) for k in ordered[:-1]]
        after += [_store(window, index, k + step, names[k]) for k in ordered[:-1]]
    _Renamed(windows, index, registers).visit(ast.Module(loop.body, []))
    loop.body = top + loop.body + bottom
    test = simplify(ast.Compare(clone(start), [ast.Lt() if step == 1 else ast.Gt()], [clone(stop)]))
    if isinstance(test, ast.Constant) and test.value is True:  # constant bounds: it runs
        return before + [loop] + after
    return [ast.If(test, before + [loop] + after, [])]


def _element(window: Window, position: ast.expr, k: int, ctx=None) -> ast.Subscript:
    return window.subscript(_plus(position, k), ctx or ast.Load())


def _move(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(target, ast.Store())], value, lineno=0)


def _store(window: Window, index: str, k: int, register: str) -> ast.Assign:
    element = _element(window, ast.Name(index, ast.Load()), k, ast.Store())
    return ast.Assign([element], ast.Name(register, ast.Load()), lineno=0)


class _Renamed(ast.NodeTransformer):
    """Each element of a window as its number."""

    def __init__(self, windows: list[Window], index: str, registers: dict):
        self.windows, self.index, self.registers = windows, index, registers

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        for window in self.windows:
            k = window.holds(node, self.index)
            if k is not None:
                return ast.Name(self.registers[window.key()][k], node.ctx)
        return node


def _plus(position: ast.expr, k: int) -> ast.expr:
    """``position + k``, written without a zero and with its constants combined."""
    if k == 0:
        return clone(position)
    op = ast.Add() if k > 0 else ast.Sub()
    return cancel_offsets(ast.BinOp(clone(position), op, ast.Constant(abs(k))))


def _register_name(window: Window, k: int) -> str:
    tag = f"p{k}" if k > 0 else f"m{-k}" if k < 0 else "0"
    row = re.sub(r"\W+", "_", window.key()[1]).strip("_")  # B_bar[j + 1, ...]: B_bar_j_1_p1
    return f"{window.array}_{row}_{tag}" if row else f"{window.array}_{tag}"

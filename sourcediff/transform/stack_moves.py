"""Pass ``merge_stack_moves``: one stack-pointer move per run of pushes or pops.

The records lower each push to ``tape[top] = v`` followed by ``top += 1``, and
each pop to ``top -= 1`` followed by ``v = tape[top]``. A loop body that keeps
several values moves the pointer once per value, a chain of dependent integer
updates and two statements per value. Where the moves of one pointer follow
one another in a block, with nothing else between them changing the pointer
or leaving the block, they merge into one move and the accesses between them
index at a fixed offset, as a hand-written stack frame does::

    >>> fn = ast.parse('''
    ... def f(t, top, a, b):
    ...     t[top] = a
    ...     top += 1
    ...     b = a * 2.0
    ...     t[top] = b
    ...     top += 1
    ...     top -= 1
    ...     b = t[top]
    ...     top -= 1
    ...     a = t[top]
    ... ''').body[0]
    >>> for s in fn.body:
    ...     s.record_writes = frozenset({"top"}) if isinstance(s, ast.AugAssign) else None
    >>> merge_stack_moves(fn)
    True
    >>> print(ast.unparse(fn))
    def f(t, top, a, b):
        t[top] = a
        b = a * 2.0
        t[top + 1] = b
        top += 2
        top -= 2
        b = t[top + 1]
        a = t[top]

Pushes merge at their last move (values are stored before the pointer passes
them); pops at their first (the pointer drops to the frame, then values are
read). Integer arithmetic only: no floating-point result changes.
"""

from __future__ import annotations

import ast

from ..astnodes import walk
from .effects import statement_lists


def merge_stack_moves(function: ast.FunctionDef) -> bool:
    """Merge the runs of stack-pointer moves in every block of ``function``."""
    changed = False
    for block in statement_lists(function):
        changed |= _merge_block(block)
    return changed


def _move(stmt: ast.stmt) -> tuple[str, int] | None:
    """``(pointer, step)`` when ``stmt`` is a record's ``top += k`` or ``top -= k``."""
    if not (isinstance(stmt, ast.AugAssign) and getattr(stmt, "record_writes", None)):
        return None
    if not (isinstance(stmt.target, ast.Name) and isinstance(stmt.value, ast.Constant)):
        return None
    if type(stmt.value.value) is not int or not isinstance(stmt.op, (ast.Add, ast.Sub)):
        return None
    step = stmt.value.value if isinstance(stmt.op, ast.Add) else -stmt.value.value
    return stmt.target.id, step


def _merge_block(block: list[ast.stmt]) -> bool:
    changed = False
    start = 0
    while start < len(block):
        move = _move(block[start])
        run = _run(block, start, *move) if move else [start]
        if len(run) > 1:
            _merge_run(block, run, *move)
            changed = True
        start += 1  # a merged run is maximal: the moves after it start runs of their own
    return changed


def _run(block: list[ast.stmt], start: int, top: str, step: int) -> list[int]:
    """Positions of the moves of ``top`` in the same direction as ``step`` that follow
    ``block[start]`` with only plain statements between them."""
    run = [start]
    for position in range(start + 1, len(block)):
        stmt = block[position]
        move = _move(stmt)
        if move and move[0] == top:
            if (move[1] > 0) != (step > 0):
                break
            run.append(position)
        elif not _plain(stmt, top):
            break
    return run


def _plain(stmt: ast.stmt, top: str) -> bool:
    """Whether ``stmt`` only reads ``top`` (if at all) and cannot leave the block."""
    if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
        return not any(isinstance(n, ast.Name) and n.id == top for n in walk(stmt))
    if isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.Raise)):
        return False
    return not any(
        isinstance(n, ast.Name) and n.id == top and not isinstance(n.ctx, ast.Load)
        for n in walk(stmt)
    )


def _merge_run(block: list[ast.stmt], run: list[int], top: str, step: int) -> None:
    """Keep one move of the run's total (the last for pushes, the first for pops) and
    read ``top`` between the moves at its offset from where that move leaves it."""
    total = sum(_move(block[p])[1] for p in run)
    kept = run[-1] if step > 0 else run[0]
    offset = 0 if step > 0 else -total  # where the original pointer is, from the kept move's
    for position in range(run[0], run[-1] + 1):
        stmt = block[position]
        if position in run:
            offset += _move(stmt)[1]
        elif offset:
            _shift_reads(stmt, top, offset)
    block[kept].op = ast.Add() if total > 0 else ast.Sub()
    block[kept].value = ast.Constant(abs(total))
    block[:] = [s for p, s in enumerate(block) if p == kept or p not in run]


def _shift_reads(stmt: ast.stmt, top: str, offset: int) -> None:
    """Replace each read of ``top`` in ``stmt`` by ``top + offset``."""
    for node in walk(stmt):
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.Name) and value.id == top:
                setattr(node, field, _shifted(top, offset))
            elif isinstance(value, list):
                value[:] = [
                    _shifted(top, offset) if isinstance(v, ast.Name) and v.id == top else v
                    for v in value
                ]


def _shifted(top: str, offset: int) -> ast.expr:
    op = ast.Add() if offset > 0 else ast.Sub()
    return ast.BinOp(ast.Name(top, ast.Load()), op, ast.Constant(abs(offset)))

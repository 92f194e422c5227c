"""Count a loop's records by multiplication when every iteration adds the same bytes.

The counting function (``f_record_bytes``, sliced by slicing.py) adds a constant
number of bytes per recorded value inside the loops that record them. When a
``for`` loop over a ``range`` does nothing but add amounts that do not change from
one iteration to the next, its count is its trip count times their sum, and the
loop goes. Nested loops fold from the inside out, so a counting function whose
loops are all of that kind has none left: it is then cheap to run in Python, and
policy "auto" and ``sd.tape_size`` need not compile it (:func:`has_loops`).

    >>> fn = ast.parse('''
    ... def f_record_bytes(u0, steps):
    ...     recorded_bytes = 0
    ...     n = u0.shape[0]
    ...     for _ in range(steps):
    ...         recorded_bytes += 8
    ...         for i in range(1, n - 1):
    ...             recorded_bytes += 8
    ...             recorded_bytes += 16
    ...     return recorded_bytes
    ... ''').body[0]
    >>> count_by_multiplying(fn)
    True
    >>> print(ast.unparse(fn))
    def f_record_bytes(u0, steps):
        recorded_bytes = 0
        n = u0.shape[0]
        recorded_bytes += len(range(steps)) * (len(range(1, n - 1)) * 24 + 8)
        return recorded_bytes

A loop that binds anything, branches, or adds an amount that reads what the loop
changes (its own index included) stays as it is, and so does a loop whose variable
is read after it.
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import names_read, walk
from .cleanup import live_after_statements
from .effects import names_written, statement_lists


def count_by_multiplying(function: ast.FunctionDef) -> bool:
    """Fold, in place, each loop of ``function`` that adds the same amounts every
    iteration; whether any was folded."""
    folded = False
    live_after = live_after_statements(function)  # folding inner loops only shrinks it
    for block in reversed(list(statement_lists(function))):  # inner blocks first
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.For) and not _target_read_after(stmt, live_after):
                block[index] = _folded(stmt)
                folded |= block[index] is not stmt
    return folded


def _target_read_after(loop: ast.For, live_after) -> bool:
    """Whether the loop variable's last value may be read after the loop (``m = i + 1``):
    without the loop, it would be unbound."""
    live = live_after.get(loop)
    return live is None or bool(names_written(loop.target) & live)


def has_loops(function: ast.FunctionDef) -> bool:
    """Whether ``function`` holds a ``for`` or ``while`` loop."""
    return any(isinstance(node, (ast.For, ast.While)) for node in walk(function))


def _folded(stmt: ast.For) -> ast.stmt:
    """``counter += trips * (amounts)`` for a loop of increments of one counter, or
    ``stmt`` itself."""
    if not (ir.is_call(stmt.iter, "range") and stmt.body and not stmt.orelse):
        return stmt
    increments = [s for s in stmt.body if _increment(s)]
    if len(increments) != len(stmt.body) or len({s.target.id for s in increments}) != 1:
        return stmt
    changed = names_written(stmt.target) | {s.target.id for s in increments}
    if any(names_read(s.value) & changed for s in increments):
        return stmt
    trips = ast.Call(ast.Name("len", ast.Load()), [stmt.iter], [])
    total = ast.BinOp(trips, ast.Mult(), _sum([s.value for s in increments]))
    folded = ast.AugAssign(increments[0].target, ast.Add(), total)
    return ast.copy_location(folded, stmt)


def _sum(amounts: list[ast.expr]) -> ast.expr:
    """``a + b + ...``, the constants among them added up first."""
    constants = [a.value for a in amounts if isinstance(a, ast.Constant)]
    terms = [a for a in amounts if not isinstance(a, ast.Constant)]
    if constants or not terms:
        terms.append(ast.Constant(sum(constants)))
    total = terms[0]
    for term in terms[1:]:
        total = ast.BinOp(total, ast.Add(), term)
    return total


def _increment(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.op, ast.Add)
        and isinstance(stmt.target, ast.Name)
    )

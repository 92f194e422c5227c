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

A triangular nest adds amounts that move with the outer index by one per step; its
sum is :func:`sourcediff.runtime.summed_lengths`, in constant time. A binding the same
in every iteration (a helper's ``n = x.shape[0]`` inlined into a loop) runs once,
before the loop:

    >>> fn = ast.parse('''
    ... def f_record_bytes(x):
    ...     recorded_bytes = 0
    ...     for i in range(x.shape[0]):
    ...         n = x.shape[0]
    ...         for j in range(i + 1, n):
    ...             recorded_bytes += 16
    ...     return recorded_bytes
    ... ''').body[0]
    >>> count_by_multiplying(fn)
    True
    >>> print(ast.unparse(fn.body[1:3]))
    n = x.shape[0]
    recorded_bytes += summed_lengths(0, x.shape[0], n - 1, -1) * 16

A loop that binds what changes, branches, or adds an amount that reads what the loop
changes other than by such a length stays as it is, and so does a loop whose variable
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
        for index in range(len(block) - 1, -1, -1):
            stmt = block[index]
            if isinstance(stmt, ast.For) and not _target_read_after(stmt, live_after):
                block[index : index + 1] = replaced = _folded(stmt, live_after.get(stmt))
                folded |= replaced != [stmt]
        if not block:  # an empty loop removed from a block of its own
            block.append(ast.Pass())
    return folded


def merge_constant_counts(function: ast.FunctionDef) -> bool:
    """Join, in place, the additions of whole numbers to one counter within a block when
    nothing between them reads the counter or jumps (a branch that records eighteen
    numbers adds 144 bytes once); whether any were joined. Counts are integers, so the
    sum is exact.

    >>> fn = ast.parse("def f(x):\\n    b = 0\\n    b += 8\\n    y = x * 2\\n    b += 8").body[0]
    >>> merge_constant_counts(fn)
    True
    >>> print(ast.unparse(fn.body[1:]))
    b += 16
    y = x * 2
    """
    merged = False
    for block in statement_lists(function):
        pending: dict[str, ast.AugAssign] = {}  # counter -> its first addition here
        for stmt in list(block):
            if _whole_count(stmt) and stmt.target.id in pending:
                first = pending[stmt.target.id]
                first.value = ast.Constant(first.value.value + stmt.value.value)
                block.remove(stmt)
                merged = True
            elif _whole_count(stmt):
                pending[stmt.target.id] = stmt
            elif any(isinstance(n, _JUMPS) for n in walk(stmt)):
                pending.clear()
            else:
                for name in names_read(stmt) | names_written(stmt):
                    pending.pop(name, None)
    return merged


_JUMPS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def _whole_count(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is ``name += k`` with ``k`` a whole number."""
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.op, ast.Add)
        and isinstance(stmt.target, ast.Name)
        and isinstance(stmt.value, ast.Constant)
        and type(stmt.value.value) is int
    )


def _target_read_after(loop: ast.For, live_after) -> bool:
    """Whether the loop variable's last value may be read after the loop (``m = i + 1``):
    without the loop, it would be unbound."""
    live = live_after.get(loop)
    return live is None or bool(names_written(loop.target) & live)


def has_loops(function: ast.FunctionDef) -> bool:
    """Whether ``function`` holds a ``for`` or ``while`` loop."""
    return any(isinstance(node, (ast.For, ast.While)) for node in walk(function))


def _folded(stmt: ast.For, live_after: frozenset) -> list[ast.stmt]:
    """The loop's invariant bindings, then ``counter += trips * (amounts)`` for a loop
    of increments of one counter; or ``[stmt]`` itself."""
    if not (ir.is_call(stmt.iter, "range") and stmt.body and not stmt.orelse):
        return [stmt]
    if all(isinstance(s, ast.Pass) for s in stmt.body):
        return []  # what the loop computed was sliced away
    hoisted = _invariant_bindings(stmt, live_after)
    increments = [s for s in stmt.body if s not in hoisted]
    if not all(map(_increment, increments)) or len({s.target.id for s in increments}) != 1:
        return [stmt]
    changed = names_written(stmt) - {s.targets[0].id for s in hoisted}
    constant, varying = [], []
    for increment in increments:
        reads = names_read(increment.value) & changed
        (varying if reads else constant).append(increment.value)
    terms = [_triangular(amount, stmt, changed) for amount in varying]
    if None in terms:
        return [stmt]
    if constant:
        trips = ast.Call(ast.Name("len", ast.Load()), [stmt.iter], [])
        terms.insert(0, ast.BinOp(trips, ast.Mult(), _sum(constant)))
    total = terms[0]
    for term in terms[1:]:
        total = ast.BinOp(total, ast.Add(), term)
    folded = ast.AugAssign(increments[0].target, ast.Add(), total)
    return [*hoisted, ast.copy_location(folded, stmt)]


def _invariant_bindings(loop: ast.For, live_after: frozenset) -> list[ast.Assign]:
    """The loop's ``name = expression`` statements that bind the same value in every
    iteration, cannot raise, are read by nothing before them, and are dead after the
    loop (``n2 = x.shape[0]`` of a helper inlined into a time loop): they can run once,
    before it."""
    written = names_written(loop)
    bound = [s.targets[0].id for s in loop.body if _binding(s)]
    hoisted, read_before = [], set()
    for stmt in loop.body:
        if (
            _binding(stmt)
            and bound.count(stmt.targets[0].id) == 1
            and stmt.targets[0].id not in read_before | set(live_after or ())
            and not names_read(stmt.value) & written
            and _cannot_raise(stmt.value)
        ):
            hoisted.append(stmt)
        read_before |= names_read(stmt)
    return hoisted


def _binding(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
    )


def _cannot_raise(expr: ast.expr) -> bool:
    """Names, integers, ``a.shape[k]``, ``len(range(...))`` and their sums and products."""
    if isinstance(expr, (ast.Name, ast.Constant)):
        return True
    if isinstance(expr, ast.Subscript):
        shape = expr.value
        return isinstance(shape, ast.Attribute) and shape.attr == "shape"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult)):
        return _cannot_raise(expr.left) and _cannot_raise(expr.right)
    return _range_length(expr) is not None and all(map(_cannot_raise, expr.args[0].args))


def _triangular(amount: ast.expr, loop: ast.For, changed: set[str]) -> ast.expr | None:
    """``amount`` summed over the loop's iterations, for ``len(range(a, b)) * k`` whose
    ``a`` or ``b`` moves with the loop's index by one per step (a triangular nest):
    ``summed_lengths(start, stop, offset, slope) * k``; else None."""
    factor, length = ast.Constant(1), amount
    if isinstance(amount, ast.BinOp) and isinstance(amount.op, ast.Mult):
        length, factor = amount.left, amount.right
        if _range_length(length) is None:
            length, factor = factor, length
    bounds, outer = _range_length(length), _unit_range(loop)
    if bounds is None or outer is None or names_read(factor) & changed:
        return None
    index = loop.target.id if isinstance(loop.target, ast.Name) else None
    (start_slope, start), (stop_slope, stop) = (_linear(b, index, changed) for b in bounds)
    if None in (start_slope, stop_slope) or stop_slope - start_slope not in (1, -1):
        return None
    offset = stop if _is_zero(start) else ast.BinOp(stop, ast.Sub(), start)
    slope = ast.Constant(stop_slope - start_slope)
    summed = ast.Call(ast.Name("summed_lengths", ast.Load()), [*outer, offset, slope], [])
    return ast.BinOp(summed, ast.Mult(), factor)


def _is_zero(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 0


def _range_length(expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    """``(start, stop)`` of ``len(range(start, stop))`` or ``len(range(stop))``."""
    if not (ir.is_call(expr, "len") and len(expr.args) == 1):
        return None
    return _unit_range_bounds(expr.args[0])


def _unit_range(loop: ast.For) -> tuple[ast.expr, ast.expr] | None:
    return _unit_range_bounds(loop.iter)


def _unit_range_bounds(expr: ast.expr) -> tuple[ast.expr, ast.expr] | None:
    if not (ir.is_call(expr, "range") and len(expr.args) in (1, 2) and not expr.keywords):
        return None
    args = expr.args
    return (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])


def _linear(bound: ast.expr, index: str | None, changed: set[str]):
    """``(slope, offset)`` with ``bound == slope * index + offset``, slope 0 or 1, the
    offset reading nothing the loop changes; ``(None, None)`` otherwise."""
    if not names_read(bound) & changed:
        return 0, bound
    if isinstance(bound, ast.Name) and bound.id == index:
        return 1, ast.Constant(0)
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, (ast.Add, ast.Sub)):
        left, right = bound.left, bound.right
        if isinstance(left, ast.Name) and left.id == index and not names_read(right) & changed:
            return 1, right if isinstance(bound.op, ast.Add) else ast.UnaryOp(ast.USub(), right)
        is_index = isinstance(right, ast.Name) and right.id == index
        if isinstance(bound.op, ast.Add) and is_index and not names_read(left) & changed:
            return 1, left
    return None, None


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

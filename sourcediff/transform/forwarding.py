"""Forward an array adjoint's one contribution straight to where it is accumulated.

The adjoint of an array temporary (a slice read ``t = A[1:-1, :-2]``, a sum's
operand) is a zeroed buffer: the reverse sweep adds the temporary's one
contribution into it, adds the buffer into the adjoint it flows to, and zeroes
it again for the next iteration. Three passes over the array where one does:

    >>> fn = ast.parse('''
    ... def f_vjp(g, t, A_bar):
    ...     t_bar = np.zeros_like(t)
    ...     for k in range(3):
    ...         add_into(t_bar, sum_to(g, t_bar))
    ...         add_into(A_bar[1:, :], t_bar)
    ...         t_bar.fill(0.0)
    ...     return A_bar
    ... ''').body[0]
    >>> forward_array_adjoints(fn)
    True
    >>> print(ast.unparse(fn.body[1]))
    for k in range(3):
        add_into(A_bar[1:, :], sum_to(g, t_bar))

A buffer qualifies when it is *private*: bound once, to ``np.zeros_like`` or
``np.zeros``, and otherwise only zeroed (``.fill(0.0)``), accumulated into
(``add_into(t_bar, e)``, ``t_bar += e``, element stores) or read inside an
accumulation or a pure expression, so that no other name ever holds its
memory. A forward must-analysis (analysis/dataflow.py) finds where a private buffer
is certainly all zeros; there
``add_into(t_bar, e); ...; add_into(W, t_bar); ...; t_bar.fill(0.0)`` becomes
``add_into(W, e)`` when nothing between reads or writes what ``W`` names (the
additions into ``W`` keep their order), and a ``fill(0.0)`` of a buffer that is
already zero is dropped. ``0 + e`` is ``e`` and broadcasting composes, so the
result is bit for bit the same, up to the sign of zeros.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from ..analysis.dataflow import Dataflow
from ..astnodes import walk
from .effects import names_read

#: Generated calls that return a new array (or, ``sum_to``, their first argument) and keep
#: no reference to what they read.
NO_REFERENCE_KEPT = {
    "sum_to",
    "matmul",
    "matmul_adjoint_left",
    "matmul_adjoint_right",
    "dot",
    "dot_adjoint_left",
    "dot_adjoint_right",
}


def forward_array_adjoints(function: ast.FunctionDef) -> bool:
    """Rewrite, in place, as the module docstring says; whether anything changed."""
    private = private_buffers(function)
    if not private:
        return False
    analysis = ZeroBuffers(private)
    analysis.block(function.body, frozenset())
    return analysis.changed


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id
    return ""


def fill_target(stmt: ast.stmt) -> str:
    """``t`` for ``t.fill(0.0)``, else ''."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "fill"
            and isinstance(func.value, ast.Name)
            and len(call.args) == 1
            and isinstance(call.args[0], ast.Constant)
            and call.args[0].value == 0
        ):
            return func.value.id
    return ""


def zeros_binding(stmt: ast.stmt) -> str:
    """``t`` for ``t = np.zeros_like(...)`` or ``t = np.zeros(...)``, else ''."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            func = value.func
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "np"
                and func.attr in ("zeros_like", "zeros")
                and not value.keywords
            ):
                return target.id
    return ""


def accumulation_of(stmt: ast.stmt) -> tuple[ast.expr, ast.expr] | None:
    """(target, value) of ``add_into(target, value)``, or of ``target += value``."""
    if isinstance(stmt, ast.Expr) and _call_name(stmt.value) == "add_into":
        args = stmt.value.args
        if len(args) == 2 and not stmt.value.keywords:
            return args[0], args[1]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        return stmt.target, stmt.value
    return None


def private_buffers(function: ast.FunctionDef, returned: bool = False, ranks=None) -> set[str]:
    """Names whose every occurrence is one the module docstring allows (with
    ``returned``, also the function's result: a buffer may be returned; with ``ranks``,
    buffer -> its rank, also reads of one element into a name, ``g = t_bar[i, j]``)."""
    allowed: dict[str, int] = defaultdict(int)
    bound: dict[str, int] = defaultdict(int)
    for stmt in walk(function):
        if not isinstance(stmt, ast.stmt):
            continue
        if returned and isinstance(stmt, ast.Return) and stmt.value is not None:
            for node in walk(stmt.value):
                if isinstance(node, ast.Name):
                    allowed[node.id] += 1
            continue
        name = zeros_binding(stmt) or fill_target(stmt)
        if name:
            allowed[name] += 1
            bound[name] += bool(zeros_binding(stmt))
            continue
        accumulation = accumulation_of(stmt)
        if accumulation is not None:
            target, value = accumulation
            if isinstance(target, ast.Name):
                allowed[target.id] += 1
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                allowed[target.value.id] += 1
            _allow_reads(value, allowed)
            _allow_reads(getattr(target, "slice", None), allowed)
        elif isinstance(stmt, (ast.Assign, ast.AugAssign)):
            _allow_element_stores(stmt, allowed)
            _allow_element_reads(stmt, allowed, ranks or {})
    occurrences = defaultdict(int)
    for node in walk(function):
        if isinstance(node, ast.Name):
            occurrences[node.id] += 1
    return {
        name
        for name, count in allowed.items()
        if bound[name] == 1 and count == occurrences[name] and name.endswith("_bar")
    }


def _allow_reads(value: ast.expr | None, allowed) -> None:
    """Reads inside an accumulated value: arithmetic, subscripts, ``sum_to`` (which may
    return its first argument, but only into the accumulation) and NumPy functions."""
    if value is None:
        return
    for node in walk(value):
        if isinstance(node, ast.Call) and _call_name(node) not in NO_REFERENCE_KEPT:
            func = node.func
            numpy = isinstance(func, ast.Attribute) and getattr(func.value, "id", "") == "np"
            if not numpy:
                return  # a call that could keep a reference: none of these reads count
    for node in walk(value):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            allowed[node.id] += 1


def _allow_element_reads(stmt: ast.stmt, allowed, ranks: dict) -> None:
    """``g = t_bar[i, j]`` with an integer index per axis: a number, no memory shared."""
    value = stmt.value
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
        return
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if len(parts) != ranks.get(value.value.id) or any(isinstance(p, ast.Slice) for p in parts):
        return
    if value.value.id not in names_read(value.slice):
        allowed[value.value.id] += 1


def _allow_element_stores(stmt: ast.stmt, allowed) -> None:
    """``t_bar[i] = 0.0`` or ``t_bar[i] += g``: writes into the buffer, nothing escapes."""
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return
    if len(getattr(stmt, "targets", [target])) != 1:
        return
    value_names = names_read(stmt.value) | names_read(target.slice)
    if target.value.id in value_names:
        return
    allowed[target.value.id] += 1


class ZeroBuffers(Dataflow):
    """Private buffers certainly all zeros before each statement, and the rewrites."""

    may = False  # a fact holds where it holds on every path

    def __init__(self, private: set[str]):
        super().__init__()
        self.private = private

    def simple(self, stmt: ast.stmt, zero: frozenset) -> frozenset:
        made_zero = zeros_binding(stmt) or fill_target(stmt)
        if made_zero in self.private:
            return zero | {made_zero}
        return zero - buffers_written(stmt)

    def rewrite_at(self, stmts: list[ast.stmt], index: int, zero: frozenset) -> bool:
        stmt = stmts[index]
        if fill_target(stmt) in zero:
            del stmts[index]  # already all zeros
            return True
        accumulation = accumulation_of(stmt)
        if accumulation is None or not isinstance(accumulation[0], ast.Name):
            return False
        buffer = accumulation[0].id
        if buffer not in zero or not _materialized(stmt, accumulation[1]):
            return False
        return _forward(stmts, index, buffer)


def buffers_written(stmt: ast.stmt) -> set[str]:
    accumulation = accumulation_of(stmt)
    targets = [accumulation[0]] if accumulation is not None else []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AugAssign):  # x_bar[i] -= e too: any operator writes
        targets = [stmt.target]
    written = set()
    for target in targets:
        while isinstance(target, ast.Subscript):
            target = target.value
        if isinstance(target, ast.Name):
            written.add(target.id)
    return written


def _materialized(stmt: ast.stmt, value: ast.expr) -> bool:
    """Whether moving ``value`` into another accumulation allocates nothing new: it is
    already a call's argument, or a name or a slice of one."""
    if isinstance(stmt, ast.Expr):
        return True
    return isinstance(value, (ast.Name, ast.Subscript))


def _forward(stmts: list[ast.stmt], index: int, buffer: str) -> bool:
    """``add_into(buffer, e); ...; add_into(W, buffer); ...; buffer.fill(0.0)`` with
    ``buffer`` all zeros before: ``add_into(W, e)`` in place of the first, and the
    second dropped (the fill is dropped by the caller: the buffer stays zero)."""
    mentions = [j for j in range(index + 1, len(stmts)) if buffer in _names(stmts[j])]
    if len(mentions) < 2 or fill_target(stmts[mentions[1]]) != buffer:
        return False
    consumer = accumulation_of(stmts[mentions[0]])
    if consumer is None or not (isinstance(consumer[1], ast.Name) and consumer[1].id == buffer):
        return False
    destination = consumer[0]
    if buffer in _names(destination):
        return False
    for between in stmts[index + 1 : mentions[0]]:
        if _names(destination) & _names(between):
            return False  # additions into the destination would change order
    value = accumulation_of(stmts[index])[1]
    moved = _with_value(stmts[mentions[0]], value)
    ast.copy_location(moved, stmts[index])
    if hasattr(stmts[index], "origin"):
        moved.origin = stmts[index].origin
    del stmts[mentions[0]]
    stmts[index] = moved
    return True


def _with_value(consumer: ast.stmt, value: ast.expr) -> ast.stmt:
    """The consumer's accumulation into its destination, of ``value`` instead."""
    if isinstance(consumer, ast.AugAssign):
        return ast.AugAssign(consumer.target, ast.Add(), value)
    call = consumer.value
    return ast.Expr(ast.Call(call.func, [call.args[0], value], []))


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}

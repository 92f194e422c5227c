"""Common subexpressions: a value computed twice in one block is computed once.

Inlined helpers and rule templates repeat expressions (``0.5 * dt`` once per
Runge-Kutta stage, ``dt / 6.0`` once per component). Within one statement
list, ``b = e`` after ``a = e`` becomes ``b = a`` when nothing ``e`` reads has
changed in between; copy propagation (fold.py) then removes ``b``:

    >>> fn = ast.parse('''
    ... def f(x, dt):
    ...     t1 = 0.5 * dt
    ...     y = x + t1
    ...     t4 = 0.5 * dt
    ...     return y * t4
    ... ''').body[0]
    >>> share_common_subexpressions(fn)
    True
    >>> print(ast.unparse(fn.body[2]))
    t4 = t1

A write into memory or a call ends the sharing, except of an array's length: no write
changes an array's shape, so ``m = a.shape[0]`` after a loop that writes ``b`` is ``n``:

    >>> fn = ast.parse('''
    ... def f(a, b):
    ...     n = a.shape[0]
    ...     b[0] = 1.0
    ...     m = a.shape[0]
    ...     return n + m
    ... ''').body[0]
    >>> share_common_subexpressions(fn)
    True
    >>> print(ast.unparse(fn.body[2]))
    m = n

Names that are changed in place anywhere in the function (stored through, an
augmented target, a method's receiver, an argument of a call that may change
it), and every name that may share memory with one, are never shared, so
sharing never makes two arrays one.
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.sharing import alias_classes, passed_memory
from ..astnodes import walk
from .effects import (
    has_effects,
    impure_calls,
    is_pure,
    names_changed,
    names_read,
    statement_lists,
)
from .signature import fresh_call


def share_common_subexpressions(function: ast.FunctionDef) -> bool:
    """Replace, in place, recomputations by the name that already holds them; whether
    anything changed."""
    binds = {a.arg for a in function.args.args}
    for node in walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            binds.add(node.id)
    in_place = changed_in_place(function)
    frozen = binds - in_place
    changed = False
    for stmts in statement_lists(function):
        changed |= _share_in_block(stmts, frozen, in_place)
    return changed


def _share_in_block(stmts: list[ast.stmt], frozen: set[str], in_place: set[str]) -> bool:
    # expression dump -> (name, reads, whether memory writes leave it: a shape query or
    # a value of names never changed in place)
    available: dict[str, tuple[str, set[str], bool]] = {}
    changed = False
    for stmt in stmts:
        candidate = _candidate(stmt, frozen)
        if candidate is not None:
            key = ast.dump(stmt.value)
            if key in available:
                holder = available[key][0]
                stmt.value = ast.Name(holder, ast.Load())
                changed = True
                if holder == candidate:  # ``t = t``: nothing changes
                    continue
                candidate = None  # a copy now; what its target held before goes below
        rebound = names_changed(stmt)
        # Memory writes and calls change no array's shape (``n = a.shape[0]`` stays
        # available across a fused loop, a helper's call), nor a product or quotient of
        # names never changed in place (``h = 0.5 * dt`` across a time loop; not ``n - 1``,
        # which reads better where it is used), unless a name it reads is bound again, or
        # the name holding it.
        effects = has_effects(stmt)
        available = {
            k: v
            for k, v in available.items()
            if not (v[1] & rebound or v[0] in rebound or effects and not v[2])
        }
        if candidate is not None:
            reads = names_read(stmt.value)
            if candidate not in reads:  # ``t = t * 0.5`` holds a value of the old t
                lasting = ir.shape_axis(stmt.value) is not None or (
                    worth_a_name(stmt.value) and not reads & in_place
                )
                available.setdefault(ast.dump(stmt.value), (candidate, reads, lasting))
    return changed


def _candidate(stmt: ast.stmt, frozen: set[str]) -> str | None:
    """The target of ``name = e``, a pure computation bound once and never changed."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Name) or target.id not in frozen:
        return None
    value = stmt.value
    if isinstance(value, (ast.Name, ast.Constant)) or not is_pure(value):
        return None
    if fresh_call(value):  # np.empty((0,)) twice: two buffers, as the reader expects
        return None
    return target.id


def changed_in_place(function: ast.FunctionDef) -> set[str]:
    """The names whose memory ``function`` changes anywhere (stored through, an augmented
    target, a method's receiver, an impure call's argument), and the names that may share
    memory with one."""
    changed: set[str] = set()
    for node in walk(function):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            changed |= names_read(node.value)
        elif isinstance(node, ast.AugAssign):
            changed |= names_read(node.target) | {getattr(node.target, "id", "")}
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            changed |= names_read(node.func.value)
    for call in impure_calls(function):
        changed |= passed_memory(call)
    # A name that may share memory with a changed one is changed too (p = t1; p[0] = 0.0):
    # sharing its value with an equal computation would make two arrays one.
    aliases = alias_classes(function)
    return changed | {other for name in changed for other in aliases.get(name, ())}


_NAMED_OPERATORS = (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)


def worth_a_name(expr: ast.expr) -> bool:
    """Whether ``expr`` multiplies, divides or holds a float (``0.5 * dt``, ``feed / 6.0``),
    not only adds integers and names (``n - 1``): what is worth a name of its own outside
    the loop or statement that computes it (hoist.py moves it out of loops).

    >>> [worth_a_name(ast.parse(e, mode="eval").body) for e in ("0.5 * dt", "n - 1", "5")]
    [True, False, False]
    """
    for node in walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, _NAMED_OPERATORS):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            return True
    return False

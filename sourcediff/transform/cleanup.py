"""Liveness, and dropping assignments whose value is never read (dead stores).

The reverse sweep zeroes an adjoint after consuming it (``s_bar = 0.0``) so a
later loop iteration starts clean; when nothing reads that adjoint again, the
zeroing is dead. A backward liveness analysis over the structured code finds
those stores. Only assignments to adjoint variables are ever removed, so the
primal computation and the records are untouched.
"""

from __future__ import annotations

import ast

from ..analysis.dataflow import Dataflow
from ..astnodes import names_read as _names_read
from ..astnodes import walk
from ..codegen import Comment
from .effects import NodeFacts, is_pure


class _DeadStores(Dataflow):
    """Backward liveness; with ``rewriting``, dead stores dropped. A dead store reads
    nothing, so the stores that only feed it are dead too."""

    backward = True

    def __init__(self, adjoints: set[str], pure_assignments=False, everything=(), rewriting=True):
        super().__init__()
        self.adjoints = adjoints
        self.everything = frozenset(everything)  # every name of the function
        self.pure_assignments = pure_assignments  # also drop any unread ``name = pure``
        self.rewriting = rewriting
        self.removed = 0
        self.live_after = NodeFacts()  # by statement, once at the fixed point
        self.reads = NodeFacts()  # by simple statement: loops revisit them until settled

    def transfer(self, stmt: ast.stmt, live: frozenset) -> frozenset:
        self.live_after[stmt] = live
        return super().transfer(stmt, live)

    def header(self, node, live: frozenset) -> frozenset:
        return live | _names_read(node.iter if isinstance(node, ast.For) else node.test)

    def rewrite_at(self, stmts: list[ast.stmt], index: int, live: frozenset) -> bool:
        if not self.dead(stmts[index], live):
            return False
        del stmts[index]
        self.removed += 1
        return True

    def dead(self, stmt: ast.stmt, live: frozenset) -> bool:
        """Whether ``stmt`` is a removable store of a value nothing reads."""
        if isinstance(stmt, (ast.Assign, ast.AugAssign)):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            if len(getattr(stmt, "targets", ())) > 1 or not self.removable(stmt, target):
                return False
            return target.id not in live
        if self.pure_assignments and _empty_range_loop(stmt):
            return stmt.target.id not in live  # a loop whose statements all went
        filled = _filled_array(stmt)
        return filled in self.adjoints and filled not in live  # zeroing an unread adjoint

    def removable(self, stmt, target: ast.expr) -> bool:
        if not isinstance(target, ast.Name):
            return False
        if target.id in self.adjoints:
            return True
        return self.pure_assignments and isinstance(stmt, ast.Assign) and is_pure(stmt.value)

    def simple(self, stmt: ast.stmt, live: frozenset) -> frozenset:
        if self.dead(stmt, live):
            return live
        if isinstance(stmt, ast.Return):
            return _names_read(stmt)
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return self.everything  # what is live after the loop, at most
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            live = live | {stmt.target.id}  # ``n += 1`` reads ``n``
        elif isinstance(stmt, ast.Assign):
            live = live - _names_bound(stmt.targets)  # a binding ends the old value's life
        reads = self.reads.get(stmt)
        if reads is None:
            reads = frozenset(_names_read(stmt))
            self.reads[stmt] = reads
        return live | reads


def _names_bound(targets: list[ast.expr]) -> set[str]:
    """Names that assignment ``targets`` bind (not those stored through)."""
    bound: set[str] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            bound.add(target.id)
        elif isinstance(target, ast.Tuple):
            bound |= _names_bound(target.elts)
    return bound


def _empty_range_loop(stmt: ast.stmt) -> bool:
    """``for i in range(...): pass``: nothing but its variable's last value."""
    return (
        isinstance(stmt, ast.For)
        and isinstance(stmt.target, ast.Name)
        and not stmt.orelse
        and isinstance(stmt.iter, ast.Call)
        and isinstance(stmt.iter.func, ast.Name)
        and stmt.iter.func.id == "range"
        and is_pure(stmt.iter)
        and all(isinstance(s, (ast.Pass, Comment)) for s in stmt.body)
    )


def _filled_array(stmt: ast.stmt) -> str:
    """``a`` for the statement ``a.fill(...)``, else ''."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr == "fill":
            if isinstance(func.value, ast.Name):
                return func.value.id
    return ""


def drop_dead_adjoint_stores(function: ast.FunctionDef, adjoints: set[str]) -> None:
    """Remove, in place, assignments to names in ``adjoints`` that are never read."""
    everything = {n.id for n in walk(function) if isinstance(n, ast.Name)}
    _DeadStores(adjoints, everything=everything).block(function.body, frozenset())


def drop_dead_stores(function: ast.FunctionDef) -> bool:
    """Remove, in place, every ``name = value`` with a pure value that nothing reads;
    whether anything was removed.

    >>> source = "def f(x):\\n    n = len(x)\\n    y = x * 2.0\\n    for i in range(n):\\n"
    >>> fn = ast.parse(source + "        pass\\n    return x").body[0]
    >>> drop_dead_stores(fn)
    True
    >>> print(ast.unparse(fn))
    def f(x):
        return x
    """
    everything = {n.id for n in walk(function) if isinstance(n, ast.Name)}
    dead_stores = _DeadStores(set(), pure_assignments=True, everything=everything)
    dead_stores.block(function.body, frozenset())
    return dead_stores.removed > 0


def live_after_statements(function: ast.FunctionDef) -> NodeFacts:
    """The names live after each statement of ``function``: read later,
    on some path, before being bound again. Nothing is changed.

    >>> fn = ast.parse("def f(x):\\n    t = x + 1.0\\n    u = t * t\\n    return u").body[0]
    >>> sorted(live_after_statements(fn).get(fn.body[0]))
    ['t']
    """
    everything = {n.id for n in walk(function) if isinstance(n, ast.Name)}
    liveness = _DeadStores(set(), everything=everything, rewriting=False)
    liveness.block(function.body, frozenset())
    return liveness.live_after

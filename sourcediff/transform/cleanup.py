"""Liveness, and dropping assignments whose value is never read (dead stores).

The reverse sweep zeroes an adjoint after consuming it (``s_bar = 0.0``) so a
later loop iteration starts clean; when nothing reads that adjoint again, the
zeroing is dead. A backward liveness analysis over the structured code finds
those stores. Only assignments to adjoint variables are ever removed, so the
primal computation and the records are untouched.
"""

from __future__ import annotations

import ast

from .effects import NodeFacts, is_pure


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


class _DeadStores:
    def __init__(self, adjoints: set[str], pure_assignments: bool = False, everything=()):
        self.adjoints = adjoints
        self.everything = everything  # every name of the function
        self.pure_assignments = pure_assignments  # also drop any unread ``name = pure``
        self.rewrite = True  # False while a loop's live set is iterated to its fixed point
        self.removed = 0
        self.live_after = NodeFacts()  # by statement, once at the fixed point

    def removable(self, stmt, target: ast.expr) -> bool:
        if not isinstance(target, ast.Name):
            return False
        if target.id in self.adjoints:
            return True
        return self.pure_assignments and isinstance(stmt, ast.Assign) and is_pure(stmt.value)

    def block(self, stmts: list[ast.stmt], live: set[str]) -> tuple[list[ast.stmt], set[str]]:
        out: list[ast.stmt] = []
        for stmt in reversed(stmts):
            self.live_after[stmt] = frozenset(live)
            kept, live = self.stmt(stmt, live)
            if kept is not None:
                out.append(kept)
            elif self.rewrite:
                self.removed += 1
        out.reverse()
        return out, live

    def stmt(self, stmt: ast.stmt, live: set[str]):
        if isinstance(stmt, (ast.Assign, ast.AugAssign)):
            return self.assign(stmt, live)
        if isinstance(stmt, ast.If):
            body, live_body = self.block(stmt.body, set(live))
            orelse, live_else = self.block(stmt.orelse, set(live))
            if self.rewrite:
                stmt.body, stmt.orelse = body or [ast.Pass()], orelse
            return stmt, live_body | live_else | _names_read(stmt.test)
        if isinstance(stmt, (ast.For, ast.While)):
            return self.loop(stmt, live)
        if isinstance(stmt, ast.Return):
            return stmt, _names_read(stmt)
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return stmt, set(self.everything)  # what is live after the loop, at most
        filled = _filled_array(stmt)
        if filled in self.adjoints and filled not in live:
            return None, live  # zeroing an adjoint array nothing reads again
        return stmt, live | _names_read(stmt)

    def assign(self, stmt, live: set[str]):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
        if len(getattr(stmt, "targets", ())) <= 1 and self.removable(stmt, target):
            if target.id not in live:
                return None, live
            if isinstance(stmt, ast.Assign):
                live = live - {target.id}
            return stmt, live | _names_read(stmt.value)
        if isinstance(stmt, ast.AugAssign) and isinstance(target, ast.Name):
            live = live | {target.id}  # ``n += 1`` reads ``n``
        elif isinstance(stmt, ast.Assign):
            live = live - _names_bound(stmt.targets)  # a binding ends the old value's life
        return stmt, live | _names_read(stmt)

    def loop(self, loop, live_after: set[str]):
        header = _names_read(loop.iter if isinstance(loop, ast.For) else loop.test)
        live_in = set(live_after)
        if isinstance(loop, ast.While):
            live_in |= header  # the test runs again after every iteration
        rewrite, self.rewrite = self.rewrite, False
        while True:
            _, body_in = self.block(loop.body, set(live_in | live_after))
            if body_in <= live_in:
                break
            live_in |= body_in
        self.rewrite = rewrite
        if rewrite:
            body, _ = self.block(loop.body, set(live_in | live_after))
            loop.body = body or [ast.Pass()]
        return loop, live_in | live_after | header


def _names_bound(targets: list[ast.expr]) -> set[str]:
    """Names that assignment ``targets`` bind (not those stored through)."""
    bound: set[str] = set()
    for target in targets:
        if isinstance(target, ast.Name):
            bound.add(target.id)
        elif isinstance(target, ast.Tuple):
            bound |= _names_bound(target.elts)
    return bound


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
    everything = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    function.body, _ = _DeadStores(adjoints, everything=everything).block(function.body, set())


def drop_dead_stores(function: ast.FunctionDef) -> bool:
    """Remove, in place, every ``name = value`` with a pure value that nothing reads;
    whether anything was removed.

    >>> fn = ast.parse("def f(x):\\n    n = len(x)\\n    y = x * 2.0\\n    return x").body[0]
    >>> drop_dead_stores(fn)
    True
    >>> print(ast.unparse(fn))
    def f(x):
        return x
    """
    everything = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    dead_stores = _DeadStores(set(), pure_assignments=True, everything=everything)
    function.body, _ = dead_stores.block(function.body, set())
    return dead_stores.removed > 0


def live_after_statements(function: ast.FunctionDef) -> NodeFacts:
    """The names live after each statement of ``function``: read later,
    on some path, before being bound again. Nothing is changed.

    >>> fn = ast.parse("def f(x):\\n    t = x + 1.0\\n    u = t * t\\n    return u").body[0]
    >>> sorted(live_after_statements(fn).get(fn.body[0]))
    ['t']
    """
    everything = {n.id for n in ast.walk(function) if isinstance(n, ast.Name)}
    liveness = _DeadStores(set(), everything=everything)
    liveness.rewrite = False
    liveness.block(function.body, set())
    return liveness.live_after

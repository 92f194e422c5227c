"""Forward must-analyses over structured generated code, and the rewrites they license.

A fact (a name: "holds 0.0", "is all zeros") holds before a statement when it
holds on every path there. Branches meet by intersection; a loop's head is
iterated to a fixed point (what holds on entry and after every iteration), and
a loop with ``break``, ``continue``, ``return`` or ``else`` gives up (nothing
holds in or after it). A subclass says what one simple statement does
(:meth:`ForwardMust.simple`) and may rewrite a statement where its facts allow
(:meth:`ForwardMust.rewrite_at`); rewrites happen in a last pass over each
loop, once its head is known. ``zeros.py`` and ``forwarding.py`` instantiate
it; the backward liveness solver is ``cleanup.py``'s.

    >>> class Zeroed(ForwardMust):
    ...     def simple(self, stmt, facts):
    ...         facts = facts - names_written(stmt)
    ...         if isinstance(stmt, ast.Assign) and ast.unparse(stmt.value) == "0.0":
    ...             facts = facts | {stmt.targets[0].id}
    ...         return facts
    >>> fn = ast.parse("s = 0.0\\nfor i in r:\\n    s = s + 1.0\\n    s = 0.0\\nt = 1.0")
    >>> sorted(Zeroed().block(fn.body, frozenset(), rewrite=False))
    ['s']
"""

from __future__ import annotations

import ast

from .effects import names_written


class ForwardMust:
    """The solver; subclasses define :meth:`simple` and, to rewrite, :meth:`rewrite_at`."""

    def __init__(self):
        self.changed = False

    def simple(self, stmt: ast.stmt, facts: frozenset) -> frozenset:
        """The facts after the simple statement ``stmt``, given those before it."""
        raise NotImplementedError

    def rewrite_at(self, stmts: list[ast.stmt], index: int, facts: frozenset) -> bool:
        """Rewrite ``stmts[index]`` (in the list) where ``facts`` hold before it; whether
        anything changed (the statement now at ``index`` is then looked at again)."""
        return False

    def block(self, stmts: list[ast.stmt], facts: frozenset, rewrite: bool) -> frozenset:
        """The facts after ``stmts``; with ``rewrite``, its statements rewritten."""
        index = 0
        while index < len(stmts):
            if rewrite and self.rewrite_at(stmts, index, facts):
                self.changed = True
                continue
            facts = self.transfer(stmts[index], facts, rewrite)
            index += 1
        return facts

    def transfer(self, stmt: ast.stmt, facts: frozenset, rewrite: bool) -> frozenset:
        if isinstance(stmt, ast.If):
            after_body = self.block(stmt.body, facts, rewrite)
            return after_body & self.block(stmt.orelse, facts, rewrite)
        if isinstance(stmt, (ast.For, ast.While)):
            return self.loop(stmt, facts, rewrite)
        return self.simple(stmt, facts)

    def loop(self, loop: ast.For | ast.While, facts: frozenset, rewrite: bool) -> frozenset:
        bound = names_written(loop.target) if isinstance(loop, ast.For) else set()
        if loop.orelse or _jumps(loop.body):
            self.block(loop.body, frozenset(), rewrite)  # where a jump lands, nothing holds
            return frozenset()
        head = facts
        while True:
            end = self.block(loop.body, head - bound, rewrite=False)
            if head <= end:
                break
            head = head & end
        self.block(loop.body, head - bound, rewrite)
        return head - bound


def _jumps(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(node, (ast.Break, ast.Continue, ast.Return))
        for stmt in body
        for node in ast.walk(stmt)
    )

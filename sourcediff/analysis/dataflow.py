"""One dataflow solver over structured code, forward or backward, may or must.

Every fact analysis of sourcediff instantiates :class:`Dataflow`: primal
liveness (``liveness.py``), what the reverse sweep needs recorded
(``recording.py``), dead adjoint stores (``transform/cleanup.py``), known-zero
adjoints (``transform/zeros.py``) and all-zero buffers
(``transform/forwarding.py``). A fact set is a frozenset of names. A subclass
says what one simple statement does (:meth:`Dataflow.simple`), what the test
of an ``if``/``while`` or the iterable of a ``for`` does (:meth:`Dataflow.header`),
and, to rewrite, what it changes where its facts hold
(:meth:`Dataflow.rewrite_at`).

Branches meet by union (``may``) or intersection (must). A loop is iterated
until its head's facts stop changing; a ``for`` loop's target is bound anew
at the head, so no fact about it crosses the head. Rewrites happen in one
last pass over a loop once its head is known, never while it settles. A must
analysis gives up on a loop with ``break``, ``continue``, ``return`` or
``else`` (nothing holds in or after it); may analyses see normalized code,
whose only exit is the canonical final ``if broke: break`` (normalize/exits.py).

    >>> class Zeroed(Dataflow):
    ...     may = False
    ...     def simple(self, stmt, facts):
    ...         facts = facts - names_written(stmt)
    ...         if isinstance(stmt, ast.Assign) and ast.unparse(stmt.value) == "0.0":
    ...             facts = facts | {stmt.targets[0].id}
    ...         return facts
    >>> fn = ast.parse("s = 0.0\\nfor i in r:\\n    s = s + 1.0\\n    s = 0.0\\nt = 1.0")
    >>> sorted(Zeroed().block(fn.body, frozenset()))
    ['s']
    >>> from sourcediff.transform.effects import names_read
    >>> class Live(Dataflow):
    ...     backward = True
    ...     def simple(self, stmt, facts):
    ...         return facts - names_written(stmt) | names_read(stmt)
    ...     def header(self, node, facts):
    ...         return facts | names_read(node.iter if isinstance(node, ast.For) else node.test)
    >>> sorted(Live().block(fn.body, frozenset({"s"})))
    ['r']
"""

from __future__ import annotations

import ast

from ..astnodes import walk
from ..transform.effects import names_written

NOTHING = frozenset()


class Dataflow:
    """The solver; a subclass sets ``backward`` and ``may`` and defines :meth:`simple`."""

    backward = False  # facts flow from a statement's successors to it
    may = True  # facts of branches meet by union (else by intersection)
    rewriting = True  # rewrite_at is called (outside loops that are still settling)
    warm_start = True  # inner loops start from their last head while an outer one settles

    def __init__(self):
        self.changed = False  # some rewrite happened
        self.settling = False  # inside a loop whose head is not known yet
        self.warm: dict | None = None  # heads of inner loops while an outer one settles

    def simple(self, stmt: ast.stmt, facts: frozenset) -> frozenset:
        """The facts on the far side of the simple statement ``stmt``."""
        raise NotImplementedError

    def header(self, node: ast.If | ast.For | ast.While, facts: frozenset) -> frozenset:
        """The facts across the test of ``node`` (a ``for`` loop: its iterable)."""
        return facts

    def rewrite_at(self, stmts: list[ast.stmt], index: int, facts: frozenset) -> bool:
        """Replace ``stmts[index]`` (by zero or more statements) where ``facts`` hold
        on its near side; whether it did. The solver goes on from the replacement."""
        return False

    def join(self, first: frozenset, second: frozenset) -> frozenset:
        return first | second if self.may else first & second

    def block(self, stmts: list[ast.stmt], facts: frozenset) -> frozenset:
        """The facts on the far side of ``stmts``, rewriting them in place."""
        index = len(stmts) - 1 if self.backward else 0
        while 0 <= index < len(stmts):
            if self.rewriting and not self.settling:
                before = len(stmts)
                if self.rewrite_at(stmts, index, facts):
                    self.changed = True
                    index += len(stmts) - before if self.backward else 0
                    continue
            facts = self.transfer(stmts[index], facts)
            index += -1 if self.backward else 1
        return facts

    def transfer(self, stmt: ast.stmt, facts: frozenset) -> frozenset:
        """The facts on the far side of one statement, compound or simple."""
        if isinstance(stmt, ast.If):
            return self.branch(stmt, facts)
        if isinstance(stmt, (ast.For, ast.While)):
            return self.loop(stmt, facts)
        return self.simple(stmt, facts)

    def branch(self, stmt: ast.If, facts: frozenset) -> frozenset:
        if not self.backward:
            facts = self.header(stmt, facts)
        out = self.join(self.block(stmt.body, facts), self.block(stmt.orelse, facts))
        stmt.body = stmt.body or [ast.Pass()]
        return self.header(stmt, out) if self.backward else out

    def loop(self, loop: ast.For | ast.While, facts: frozenset) -> frozenset:
        if not self.may and (loop.orelse or _jumps(loop.body)):
            self.block(loop.body, NOTHING)  # where a jump lands, nothing holds
            return NOTHING
        once = isinstance(loop, ast.For)  # a for loop evaluates its iterable once, first
        if once and not self.backward:
            facts = self.header(loop, facts)
        head = self._settled_head(loop, facts)
        if self.rewriting and not self.settling:
            self.block(loop.body, self._body_facts(loop, head))  # the last pass, rewriting
        loop.body = loop.body or [ast.Pass()]
        if self.backward:
            return self.header(loop, head) if once else head
        return self._body_facts(loop, head)

    def _settled_head(self, loop: ast.For | ast.While, outside: frozenset) -> frozenset:
        """The facts at the loop's head (where a ``while`` tests and a ``for`` binds its
        target), iterated until they stop changing."""
        bound = names_written(loop.target) if isinstance(loop, ast.For) else NOTHING
        tests = isinstance(loop, ast.While) and self.backward
        if tests:
            head = self.header(loop, outside)
        else:  # forward, the target's old value is gone; backward, a use after the loop
            head = outside if self.backward else outside - bound  # may still read it
        if self.warm_start and self.settling and loop in self.warm:
            # An enclosing loop settles: its rounds reach this loop with facts that only
            # grow (may) or shrink (must), so the head found last time lies between the
            # first facts and the new fixed point: fewer rounds reach the same head.
            head = self.join(head, self.warm[loop])
        warm, settling = self.warm, self.settling
        self.warm, self.settling = {}, True
        while True:
            end = self.block(loop.body, self._body_facts(loop, head))
            new = self.join(head, end - bound)
            new = self.header(loop, new) if tests else new
            if new == head:
                break
            head = new
        self.warm, self.settling = warm, settling
        if settling:
            self.warm[loop] = head
        return head

    def _body_facts(self, loop: ast.For | ast.While, head: frozenset) -> frozenset:
        """The facts the body is walked from (its start forward, its end backward);
        forward, also the facts after the loop."""
        if self.backward:
            return head
        if isinstance(loop, ast.For):
            return head - names_written(loop.target)
        return self.header(loop, head)


def _jumps(body: list[ast.stmt]) -> bool:
    return any(
        isinstance(node, (ast.Break, ast.Continue, ast.Return))
        for stmt in body
        for node in walk(stmt)
    )

"""Values that live for one iteration are pushed after their definition, not before.

A stored loop keeps what its iterations overwrite: Tapenade's rule pushes a
variable's old value right before the assignment and pops it right after that
assignment's adjoint. For a scalar that lives for one iteration (a temporary the
loop body defines once, before any read, and nothing outside the loop mentions)
the old value is the previous iteration's: iteration ``i`` stores what iteration
``i - 1`` computed, a dependence from one iteration to the next that keeps LLVM
from vectorizing or overlapping the forward loop (18% of the 1-D heat equation's
gradient). Such a value is instead pushed at the end of its iteration and popped
at the start of the iteration's reverse, where every read of it follows::

    for i in range(1, n - 1):               for i in range(1, n - 1):
        tape[top] = t                           t = u[i - 1] - 2.0 * u[i] + u[i + 1]
        top += 1                                v[i] = u[i] + alpha * t
        t = u[i - 1] - 2.0 * u[i] + u[i + 1]    tape[top] = t
        v[i] = u[i] + alpha * t                 top += 1

The stack keeps its order: the deferred values are the iteration's last pushes
and the reverse pops them first. The number of values kept does not change.

>>> loop = ast.parse('''
... for i in range(n):
...     t = u[i] * 2.0
...     s = s + t * t
...     w = s * t
... ''').body[0]
>>> counts = name_counts(ast.parse("s = 0.0\\nr = s").body + [loop])
>>> sorted(iteration_locals(loop, counts, lambda name: "float"))
['t', 'w']
"""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

from ..astnodes import walk

SCALARS = ("float", "int", "bool")


def name_counts(nodes) -> Counter:
    """How many times each name occurs in ``nodes`` (reads and writes)."""
    counts: Counter = Counter()
    for node in nodes:
        counts.update(n.id for n in walk(node) if isinstance(n, ast.Name))
    return counts


def iteration_locals(loop: ast.For | ast.While, counts: Counter, kind) -> set[str]:
    """The scalars ``loop``'s body assigns once, at its top level, before any read of
    them, and that occur nowhere outside the body (``counts``: the function's names;
    ``kind(name)``: its type's kind)."""
    if any(isinstance(n, (ast.Break, ast.Continue, ast.Return)) for n in walk(loop)):
        return set()  # an iteration that ends early would skip its deferred pushes
    inside = name_counts(loop.body)
    seen: set[str] = set()  # names some earlier statement of the body mentions
    found: set[str] = set()
    for stmt in loop.body:
        target = _plain_target(stmt)
        if target is not None and target not in seen and kind(target) in SCALARS:
            reads = {n.id for n in walk(stmt.value) if isinstance(n, ast.Name)}
            if target not in reads and inside[target] == counts[target]:
                found.add(target)
        seen |= {n.id for n in walk(stmt) if isinstance(n, ast.Name)}
    return {name for name in found if _assignments(loop.body, name) == 1}


def _plain_target(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        if isinstance(target, ast.Name):
            return target.id
    return None


def _assignments(body: list[ast.stmt], name: str) -> int:
    stores = [n for s in body for n in walk(s) if isinstance(n, ast.Name)]
    return sum(1 for n in stores if n.id == name and isinstance(n.ctx, ast.Store))


@dataclass
class DeferredPushes:
    """The pushes and pops of one loop body's iteration-local values, in definition order."""

    names: set[str]
    pushes: list[list[ast.stmt]] = field(default_factory=list)
    pops: list[list[ast.stmt]] = field(default_factory=list)

    def take(self, name: str, push: list[ast.stmt], pop: list[ast.stmt]) -> bool:
        """Keep ``name``'s push and pop for the body's ends (False: not iteration-local)."""
        if name not in self.names or not push:
            return False
        self.pushes.append(push)
        self.pops.append(pop)
        return True

    def placed(self, body_f: list[ast.stmt], body_r: list[ast.stmt]):
        """The body's two parts with the pushes last and the pops, reversed, first."""
        pushes = [s for push in self.pushes for s in push]
        pops = [s for pop in reversed(self.pops) for s in pop]
        return body_f + pushes, pops + body_r

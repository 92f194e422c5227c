"""Loop bounds the reverse sweep recomputes from the enclosing loops' variables.

An inner loop's start and trip count are often index arithmetic on an enclosing loop's
variable: ``for j in range(i + 1, n)`` normalizes to ``t = i + 1``, ``n_j =
len(range(t, n))``. The reverse sweep needs both to replay the inner loop backwards.
Saving them costs a record per outer iteration; but the reverse loop over ``i`` sets
``i`` to the same values, so an expert recomputes them there, under every policy.

A branch's test inside a loop (``t = i > 0`` before ``if t:``, a boundary in a stencil)
is replayed the same way instead of recording the decision of every iteration.

A definition is replayed when it is the only binding of its name, sits in the block
that holds the inner loop or branch (before it), computes integer arithmetic (or ``len(range())``
of it) from enclosing ``for`` variables, names no enclosing loop changes and other
replayed definitions, and every read of its name follows it in that block. The reverse
of that block then starts by recomputing it (:func:`replayed_prefix`).

>>> f = ast.parse('''
... def f(x, n):
...     for i in range(n):
...         t = i + 1
...         n_j = len(range(t, n))
...         for j in range(t, n):
...             x[j] = x[i]
... ''').body[0]
>>> from types import SimpleNamespace
>>> inner = f.body[0].body[2]
>>> found = replayed_bounds(f, {inner: SimpleNamespace(name="n_j", running=False)})
>>> [ast.unparse(s) for s in ast.walk(f) if id(s) in found]
['t = i + 1', 'n_j = len(range(t, n))']
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import clone, walk
from . import liveness
from .recompute import names_read

ARITHMETIC = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)
ARITHMETIC += (ast.expr_context, ast.Compare, ast.cmpop)


def replayed_bounds(node: ast.FunctionDef, counters: dict) -> dict[int, ast.Assign]:
    """The replayed definitions of ``node`` (see the module docstring), by identity."""
    found: dict[int, ast.Assign] = {}
    bindings = _Bindings(node)
    reads = _read_positions(node)

    def visit(block: list[ast.stmt], changed: set[str] | None, targets: set[str]) -> None:
        for index, stmt in enumerate(block):
            counter = counters.get(stmt) if isinstance(stmt, ast.For) else None
            if changed is not None and counter is not None and not counter.running:
                scope = _Scope(block, index, changed, targets, bindings, reads)
                found.update(scope.definitions(bound_names(stmt, counter.name)))
            if changed is not None and isinstance(stmt, ast.If) and _named_test(stmt):
                scope = _Scope(block, index, changed, targets, bindings, reads)
                found.update(scope.definitions([stmt.test.id]))
            if isinstance(stmt, (ast.For, ast.While)):
                inner = targets | ({stmt.target.id} if isinstance(stmt, ast.For) else set())
                visit(stmt.body, (changed or set()) | liveness.modified([stmt]), inner)
            elif isinstance(stmt, ast.If):
                visit(stmt.body, changed, targets)
                visit(stmt.orelse, changed, targets)

    visit(node.body, None, set())
    return found


def _named_test(stmt: ast.If) -> bool:
    return isinstance(stmt.test, ast.Name)


def replayed_prefix(stmts: list[ast.stmt], replayed: dict[int, ast.Assign]) -> list[ast.stmt]:
    """Copies of the replayed definitions in ``stmts``, in order: the start of its reverse."""
    return [clone(s) for s in stmts if id(s) in replayed]


def replay_operands(stmt: ast.Assign) -> set[str]:
    """What recomputing ``stmt`` reads (the reverse sweep needs those values kept)."""
    return names_read(stmt.value)


def bound_names(loop: ast.For, counter: str) -> list[str]:
    """The names the reverse of ``loop`` reads to replay it: its counter, start and step."""
    args = loop.iter.args
    bounds = [args[0]] if len(args) > 1 else []
    bounds += [args[2]] if len(args) == 3 else []
    return [counter] + [a.id for a in bounds if isinstance(a, ast.Name)]


class _Scope:
    """The block holding an inner loop, and what is fixed during one enclosing iteration."""

    def __init__(self, block, index, changed, targets, bindings, reads):
        self.block, self.index = block, index
        self.changed, self.targets = changed, targets
        self.bindings, self.reads = bindings, reads

    def definitions(self, names: list[str]) -> dict[int, ast.Assign]:
        """The definitions of ``names`` to replay, or nothing if one cannot be."""
        chosen: dict[int, ast.Assign] = {}
        if not any(name in self.changed for name in names):
            return chosen  # invariant bounds: nothing is saved for them anyway
        for name in names:
            if name in self.changed and not self.replayable(name, chosen, 0):
                return {}
        return chosen

    def replayable(self, name: str, chosen: dict, depth: int) -> bool:
        """Whether ``name``'s definition in this block can be recomputed at the start of
        the block's reverse (and so is, into ``chosen``)."""
        position = self.definition(name)
        if position is None or self.bindings.counts.get(name, 0) != 1 or depth > 8:
            return False
        stmt = self.block[position]
        if not (_arithmetic(stmt.value) and self.read_only_after(name, position)):
            return False
        for operand in names_read(stmt.value):
            if not self.operand(operand, position, chosen, depth):
                return False
        chosen[id(stmt)] = stmt
        return True

    def operand(self, name: str, reader: int, chosen: dict, depth: int) -> bool:
        """Whether ``name`` holds, at the start of the block's reverse, the value the
        definition at ``reader`` read: an enclosing ``for`` variable (the reverse loop sets
        it again), another replayed definition, or a value nothing in the block changes
        after ``reader`` (the reverse sweep keeps it: it becomes a read)."""
        if name in self.bindings.loop_targets:
            return name in self.targets and name not in self.bindings.assigned
        if self.definition(name) is not None:
            return self.replayable(name, chosen, depth + 1)
        return name not in liveness.modified(self.block[reader + 1 :])

    def definition(self, name: str) -> int | None:
        for position, stmt in enumerate(self.block[: self.index]):
            if isinstance(stmt, ast.Assign) and ir.target_name(stmt) == name:
                single = len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                return position if single else None
        return None

    def read_only_after(self, name: str, position: int) -> bool:
        """Whether every read of ``name`` is in this block after its definition."""
        later = {id(n) for s in self.block[position + 1 :] for n in walk(s)}
        return all(read in later for read in self.reads.get(name, ()))


def _arithmetic(value: ast.expr) -> bool:
    """Integer-style arithmetic of names and constants, or ``len(range(...))`` of it."""
    bounds = ir.len_range_args(value)
    if bounds is not None:
        return all(_arithmetic(a) for a in bounds)
    return all(isinstance(n, ARITHMETIC) for n in walk(value))


class _Bindings:
    """How many times each name is bound, and the names some assignment binds."""

    def __init__(self, node: ast.FunctionDef):
        self.counts = liveness.binding_counts(node)
        self.assigned = set()
        self.loop_targets = {s.target.id for s in walk(node) if isinstance(s, ast.For)}
        for sub in walk(node):
            if isinstance(sub, (ast.Assign, ast.AugAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                self.assigned |= {n.id for t in targets for n in walk(t) if _stored(n)}


def _stored(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)


def _read_positions(node: ast.FunctionDef) -> dict[str, list[int]]:
    """For each name, the identities of the nodes reading it (``x`` in ``x += 1`` too)."""
    reads: dict[str, list[int]] = {}
    for sub in walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            reads.setdefault(sub.id, []).append(id(sub))
        elif isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
            reads.setdefault(sub.target.id, []).append(id(sub.target))
    return reads

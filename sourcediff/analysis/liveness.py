"""Primal liveness: which variables a loop iteration reads before writing.

Recomputing and checkpointing policies restore a loop iteration's *entry
state* and re-run it; that state is every variable the iteration may read
before it writes it (live on entry) and may change (so the value at entry of
a later iteration differs). A standard backward data-flow over the structured
normalized code; an element or region write ``a[i] = v`` reads ``a`` and does
not kill it.
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import names_read as _reads
from ..astnodes import walk
from .dataflow import Dataflow


class _Liveness(Dataflow):
    """Names live before each statement; the live set after each element write kept."""

    backward = True
    rewriting = False

    def __init__(self):
        super().__init__()
        self.after_writes: dict[int, frozenset] = {}

    def header(self, node, live: frozenset) -> frozenset:
        return live | _reads(node.iter if isinstance(node, ast.For) else node.test)

    def simple(self, stmt: ast.stmt, live: frozenset) -> frozenset:
        if not isinstance(stmt, ast.Assign):
            return live | _reads(stmt)
        if ir.is_permutation(stmt):
            pairs = ir.permutation_pairs(stmt)
            return (live - {t for t, _ in pairs}) | {s for _, s in pairs}
        if ir.is_element_write(stmt):
            self.after_writes[id(stmt)] = self.after_writes.get(id(stmt), frozenset()) | live
            return live | _reads(stmt.targets[0]) | _reads(stmt.value)
        return (live - {stmt.targets[0].id}) | _reads(stmt.value)


def block(stmts: list[ast.stmt], live_out: set[str]) -> frozenset:
    """Variables live before ``stmts`` given those live after them.

    >>> body = ast.parse("t = x + 1.0\\nfor i in range(n):\\n    a[i] = t * b[i]").body
    >>> sorted(block(body, {"a"}))
    ['a', 'b', 'n', 'range', 'x']
    """
    return _Liveness().block(stmts, frozenset(live_out))


def modified(stmts: list[ast.stmt]) -> set[str]:
    """Variables some statement of ``stmts`` assigns, writes into or permutes."""
    names = set()
    for stmt in stmts:
        for sub in walk(stmt):
            if isinstance(sub, ast.Assign) and ir.is_permutation(sub):
                names |= {t for t, _ in ir.permutation_pairs(sub)}
            elif isinstance(sub, ast.Assign):
                names.add(ir.target_name(sub))
            elif isinstance(sub, ast.For):
                names.add(sub.target.id)
    return names


def iteration_state(loop: ast.For | ast.While, live_after: set[str]) -> list[str]:
    """Variables to restore before re-running an iteration of ``loop``, sorted."""
    live_in = block(loop.body, live_after)
    # A value carried to the next iteration is live at the end of the body too.
    carried = block(loop.body, live_in | live_after)
    target = {loop.target.id} if isinstance(loop, ast.For) else set()
    return sorted((carried & modified(loop.body)) - target)


def entry_state(nf, loop: ast.For | ast.While, live_at_entry: set[str]) -> list[str]:
    """The variables an iteration of outermost ``loop`` of normalized function ``nf``
    starts from, restored before it re-runs (recompute and revolve); ``live_at_entry``:
    what the reverse of earlier code reads, restored after the loop re-runs too."""
    # What code after the loop reads is not part of an iteration's state: a re-run
    # iteration is followed by its own reverse part, which reads only what the
    # iteration's forward part read (its operands), so the values the iteration reads
    # before writing them are the whole state (a name set in one branch and read only
    # in that branch is not).
    # Temporaries, inner loop variables and trip counters are set before they are read in
    # every iteration; only the user's variables can carry values between iterations.
    inner = {n.target.id for n in walk(loop) if isinstance(n, ast.For) and n is not loop}
    counters = {c.name for c in nf.counters.values()}
    local = nf.temps | inner | counters
    names = [n for n in iteration_state(loop, set()) if n not in local]
    # What the loop overwrites and earlier code's reverse reads is restored after it too.
    overwritten = {ir.target_name(s) for s in walk(loop) if isinstance(s, ast.Assign)}
    stores = [n for n in walk(loop) if isinstance(n, ast.Name)]
    overwritten |= {n.id for n in stores if isinstance(n.ctx, ast.Store)}
    return names + sorted((live_at_entry & overwritten) - set(names))


def live_after_writes(node: ast.FunctionDef) -> dict[int, frozenset]:
    """For each element or region write, the variables live right after it."""
    liveness = _Liveness()
    liveness.block(node.body, frozenset())
    return liveness.after_writes


def binding_counts(node: ast.FunctionDef) -> dict[str, int]:
    """How many times each name is bound (a parameter once, by the call)."""
    counts: dict[str, int] = {a.arg: 1 for a in node.args.args}
    for sub in walk(node):
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
            counts[sub.id] = counts.get(sub.id, 0) + 1
    return counts

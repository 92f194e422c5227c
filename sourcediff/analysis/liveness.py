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


def _reads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stmt(stmt: ast.stmt, live: set[str]) -> set[str]:
    if isinstance(stmt, ast.Assign):
        if ir.is_permutation(stmt):
            pairs = ir.permutation_pairs(stmt)
            return (live - {t for t, _ in pairs}) | {s for _, s in pairs}
        if ir.is_element_write(stmt):
            return live | _reads(stmt.targets[0]) | _reads(stmt.value)
        return (live - {stmt.targets[0].id}) | _reads(stmt.value)
    if isinstance(stmt, ast.If):
        return block(stmt.body, live) | block(stmt.orelse, live) | _reads(stmt.test)
    if isinstance(stmt, (ast.For, ast.While)):
        header = _reads(stmt.iter) if isinstance(stmt, ast.For) else _reads(stmt.test)
        target = {stmt.target.id} if isinstance(stmt, ast.For) else set()
        entry = set(live)
        while True:
            inner = block(stmt.body, entry | live) - target
            if inner <= entry:
                break
            entry |= inner
        return entry | live | header
    return live | _reads(stmt)


def block(stmts: list[ast.stmt], live_out: set[str]) -> set[str]:
    """Variables live before ``stmts`` given those live after them."""
    live = set(live_out)
    for stmt in reversed(stmts):
        live = _stmt(stmt, live)
    return live


def modified(stmts: list[ast.stmt]) -> set[str]:
    """Variables some statement of ``stmts`` assigns, writes into or permutes."""
    names = set()
    for stmt in stmts:
        for sub in ast.walk(stmt):
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


def live_after_writes(node: ast.FunctionDef) -> dict[int, set[str]]:
    """For each element or region write, the variables live right after it."""
    found: dict[int, set[str]] = {}

    def walk(stmts: list[ast.stmt], live: set[str]) -> set[str]:
        for stmt in reversed(stmts):
            if ir.is_element_write(stmt):
                found[id(stmt)] = found.get(id(stmt), set()) | live
            if isinstance(stmt, ast.If):
                live = walk(stmt.body, set(live)) | walk(stmt.orelse, set(live)) | _reads(stmt.test)
            elif isinstance(stmt, (ast.For, ast.While)):
                entry = _stmt(stmt, live)  # the fixpoint: what is live at each iteration's end
                walk(stmt.body, entry | live)
                live = entry
            else:
                live = _stmt(stmt, live)
        return live

    walk(node.body, set())
    return found

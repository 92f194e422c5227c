"""Which temporaries the reverse sweep recomputes instead of storing (policy "auto").

A temporary ``t = a op b`` that the reverse sweep needs is recomputed right
before the adjoint statement that reads it, instead of being recorded, when:

- the operation is cheap (``+ - * /``, negation, a copy);
- ``t`` has one definition, and every statement that needs it is later in
  the same block, with no assignment to ``a`` or ``b`` in between;
- each operand is free to read there: a number, a name assigned nowhere
  inside a loop, a name the reverse sweep restores anyway, a length that is
  the same at every assignment (``n = u.shape[0]`` in a loop), or another
  recomputed temporary.

Recomputing then costs a few arithmetic instructions and saves a store and a
load per iteration, which is what an expert writing the reverse sweep by hand
does. Expensive values (``sin``, ``exp``, ...) are stored.
"""

from __future__ import annotations

import ast

from .. import ir, rules
from .sharing import alias_classes

CHEAP = {"+", "-", "*", "/", "%", "neg", ""}


def _reads_by_statement(node, active, reads_of) -> dict[int, set[str]]:
    return {id(s): reads_of(s, active) for s in ast.walk(node) if isinstance(s, ast.Assign)}


def choose_recomputed(
    node, temps: set[str], active: set[str], reads_of, arrays=frozenset(), fixed=frozenset()
):
    """Map each recomputed temporary to its defining statement (see module docstring);
    ``fixed``: integers of one value wherever they are read."""
    reads = _reads_by_statement(node, active, reads_of)
    needed = (set().union(*reads.values()) if reads else set()) | set(fixed)
    candidates: dict[str, ast.Assign] = {}
    positions: dict[str, tuple[list, int]] = {}
    in_loops = _assigned_in_loops(node.body, False) - _loop_targets(node)
    read_only = _read_only_arrays(node, arrays)
    for block in _blocks(node.body):
        for index, stmt in enumerate(block):
            target = _target(stmt)
            if target in temps and _cheap(stmt, read_only):
                # A temporary the reverse sweep never reads may still be an operand of one
                # it does (t3 = t1 - t2, t1 = x[i, j]): the check of t3 covers its operands.
                if target not in needed or _stable_until_last_use(block, index, target, reads):
                    candidates[target] = stmt
                    positions[target] = (block, index)
    while True:
        chosen = _closure(candidates, in_loops, needed, read_only)
        # Recomputing t re-runs the temporaries it reads too: their operands must also be
        # unchanged up to t's last use (t11 = 1 + t10; t10 = x0 / t9; x0 = s2 / t11).
        unstable = [
            name
            for name in chosen
            if name in needed
            and not _stable_until_last_use(*positions[name], name, reads, _leaves(name, chosen))
        ]
        if not unstable:
            return chosen
        for name in unstable:
            del candidates[name]


def _closure(candidates: dict, in_loops: set[str], needed: set[str], read_only) -> dict:
    """The candidates whose operands are all free to read (a fixpoint): unchanged from
    the candidate on, or see :func:`_free`."""
    chosen: dict[str, ast.Assign] = {}
    changed = True
    while changed:
        changed = False
        for name, stmt in candidates.items():
            if name in chosen:
                continue
            unchanged = read_only.get(id(stmt), ())
            operands = [o for o in _operand_names(stmt) if o not in unchanged]
            if all(_free(o, in_loops, needed, chosen, candidates) for o in operands):
                chosen[name] = stmt
                changed = True
    return chosen


def _leaves(name: str, chosen: dict[str, ast.Assign]) -> set[str]:
    """The variables recomputing ``name`` reads, through the recomputed temporaries."""
    leaves, stack, seen = set(), [name], set()
    while stack:
        for operand in _operand_names(chosen[stack.pop()]):
            if operand in chosen and operand not in seen:
                seen.add(operand)
                stack.append(operand)
            elif operand not in chosen:
                leaves.add(operand)
    return leaves


def _free(name: str, in_loops: set[str], needed: set[str], chosen, candidates) -> bool:
    if name in chosen:
        return True
    if name in candidates:
        return False
    return name not in in_loops or name in needed


def _loop_targets(node: ast.FunctionDef) -> set[str]:
    """``for`` variables: the reverse loop recomputes them, so reading them is free."""
    return {s.target.id for s in ast.walk(node) if isinstance(s, ast.For)}


def _target(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return ""


def names_read(value: ast.expr) -> set[str]:
    """Every variable an expression reads (module names excluded)."""
    return {n.id for n in ast.walk(value) if isinstance(n, ast.Name)} - {"math", "np"}


def _cheap(stmt: ast.Assign, read_only: dict[int, set[str]]) -> bool:
    value = stmt.value
    if isinstance(value, ast.Constant) or ir.is_shape_query(value):
        return False
    if ir.is_element_read(value):
        return value.value.id in read_only.get(id(stmt), ())  # nothing writes it afterwards
    return rules.rule_name(value) in CHEAP and not isinstance(value, (ast.Call, ast.Tuple))


def _read_only_arrays(node: ast.FunctionDef, arrays) -> dict[int, set[str]]:
    """For each statement, the arrays nothing changes from it on: parameters that no
    statement assigns, writes into or permutes, and names that nothing changes from the
    top-level statement holding it to the end (nor anything that may share their memory)."""
    aliases = alias_classes(node)
    unchanged: dict[int, set[str]] = {}
    changed: set[str] = set()  # from the current top-level statement to the end
    for top in reversed(node.body):
        changed |= _changed([top], arrays)
        changed |= {other for name in changed & arrays for other in aliases.get(name, ())}
        names = frozenset({n.id for n in ast.walk(top) if isinstance(n, ast.Name)} - changed)
        for stmt in ast.walk(top):
            unchanged[id(stmt)] = names
    params = frozenset({a.arg for a in node.args.args} - changed)
    return {key: names | params for key, names in unchanged.items()}


def _changed(stmts: list[ast.stmt], arrays=frozenset()) -> set[str]:
    """Names assigned, written into, permuted or iterated over in ``stmts``, but for two
    kinds of statement that leave every array read before them as it was: an array name
    bound to another array (the reverse sweep restores the name where it reads it), and
    scalarize's filling of an array it has just allocated (``fills_fresh``)."""
    changed = set()
    for stmt in (sub for s in stmts for sub in ast.walk(s)):
        if isinstance(stmt, ast.Assign):
            rebinds = len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            if getattr(stmt, "fills_fresh", False) or (rebinds and stmt.targets[0].id in arrays):
                continue
            changed |= {n.id for n in ast.walk(stmt.targets[0]) if isinstance(n, ast.Name)}
        elif isinstance(stmt, ast.For):
            changed.add(stmt.target.id)
    return changed


def element_reads(node: ast.FunctionDef, temps: set[str]) -> set[str]:
    """The temporaries that are an element of an array (``t = u[i]``): the reverse sweep
    reads the array itself instead of a record when nothing changes the array afterwards,
    under every policy."""
    return {
        stmt.targets[0].id
        for stmt in ast.walk(node)
        if isinstance(stmt, ast.Assign)
        and _target(stmt) in temps
        and ir.is_element_read(stmt.value)
    }


def _operand_names(stmt: ast.Assign) -> list[str]:
    return sorted(names_read(stmt.value))


def _stable_until_last_use(block, index: int, target: str, reads, operands=None) -> bool:
    """Every reader of ``target`` is later in ``block``; ``operands`` (by default those of
    its definition) unchanged up to it, that reader included."""
    operands = set(_operand_names(block[index])) if operands is None else operands
    last_use = None
    for later in range(index, len(block)):
        stmt = block[later]
        for sub in ast.walk(stmt):
            if id(sub) in reads and target in reads[id(sub)]:
                last_use = later
    if last_use is None:
        return False
    total_uses = sum(1 for r in reads.values() if target in r)
    uses_here = sum(
        1
        for stmt in block[index : last_use + 1]
        for sub in ast.walk(stmt)
        if id(sub) in reads and target in reads[id(sub)]
    )
    if uses_here != total_uses:
        return False
    for stmt in block[index + 1 : last_use + 1]:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id in operands:
                return False
    return True


def _blocks(stmts: list[ast.stmt]):
    yield stmts
    for stmt in stmts:
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list) and inner:
                yield from _blocks(inner)


def _assigned_in_loops(stmts: list[ast.stmt], inside: bool) -> set[str]:
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.Assign) and inside:
            names |= {n.id for n in ast.walk(stmt.targets[0]) if isinstance(n, ast.Name)}
        if isinstance(stmt, ast.For):
            names.add(stmt.target.id)
        loop = isinstance(stmt, (ast.For, ast.While))
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list):
                names |= _assigned_in_loops(inner, inside or loop)
    return names

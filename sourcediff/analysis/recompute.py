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
from ..astnodes import walk
from .liveness import binding_counts
from .sharing import alias_classes

CHEAP = {"+", "-", "*", "/", "%", "neg", ""}


def _reads_by_statement(node, active, reads_of) -> dict[int, set[str]]:
    return {id(s): reads_of(s, active) for s in walk(node) if isinstance(s, ast.Assign)}


def choose_recomputed(
    node,
    temps: set[str],
    active: set[str],
    reads_of,
    arrays=frozenset(),
    fixed=frozenset(),
    restorable=None,
    user_floats=frozenset(),
):
    """Map each recomputed temporary to its defining statement (see module docstring);
    ``fixed``: integers of one value wherever they are read; ``restorable``: element reads
    of arrays restored at their writes, which may be recomputed (:func:`restorable_reads`);
    ``user_floats``: the user's variables that are candidates too (:func:`once_bound_floats`)."""
    reads = _reads_by_statement(node, active, reads_of)
    needed = (set().union(*reads.values()) if reads else set()) | set(fixed)
    candidates: dict[str, ast.Assign] = {}
    positions: dict[str, tuple[list, int]] = {}
    in_loops = _assigned_in_loops(node.body, False) - ir.loop_variables(node)
    read_only = _read_only_arrays(node, arrays)
    for key, names in (restorable or {}).items():
        read_only[key] = read_only.get(key, frozenset()) | names
    bound = binding_counts(node)  # a name bound twice (t1 = x * x or t1 = -x) has no one value
    # A number bound once outside every loop and branch keeps its value to the end: the
    # reverse sweep reads it as the forward sweep left it, with nothing to recompute.
    kept = {_target(s) for s in node.body if bound.get(_target(s)) == 1} - set(arrays)
    for block in _blocks(node.body):
        for index, stmt in enumerate(block):
            target = _target(stmt)
            candidate = (target in temps or target in user_floats) and target not in kept
            if candidate and bound.get(target) == 1 and _cheap(stmt, read_only, arrays):
                # A temporary the reverse sweep never reads may still be an operand of one
                # it does (t3 = t1 - t2, t1 = x[i, j]): the check of t3 covers its operands.
                if target not in needed or _stable_until_last_use(block, index, target, reads):
                    candidates[target] = stmt
                    positions[target] = (block, index)
    while True:
        chosen = _closure(candidates, in_loops, needed, read_only)
        # Recomputing t re-runs the temporaries it reads too: their operands must also be
        # unchanged up to t's last use (t11 = 1 + t10; t10 = x0 / t9; x0 = s2 / t11).
        # A chain through the user's variables may start statements earlier (b1 = y * x;
        # x = ...; t8 = b1 + c): its operands must be unchanged from its first definition.
        unstable = [
            name
            for name in chosen
            if name in needed and not _worth_recomputing(name, chosen, positions, reads, temps)
        ]
        if not unstable:
            return chosen
        for name in unstable:
            del candidates[name]


# Recomputing a value that re-runs more definitions than this costs more than reading
# it back stored: an RK4 step's stages (chains of up to 50 definitions through x, y, z)
# measured 62-76 us recomputed against 58 stored.
LONGEST_CHAIN = 8


def _worth_recomputing(name: str, chosen: dict, positions: dict, reads, temps) -> bool:
    """Whether recomputing ``name`` gives its value, re-running at most ``LONGEST_CHAIN``
    definitions (copies ``left = t2`` are free: the optimizer folds them away)."""
    chain = _chain(name, chosen)
    if sum(not isinstance(chosen[m].value, ast.Name) for m in chain) > LONGEST_CHAIN:
        return False
    return _chain_stable(name, chain, chosen, positions, (reads, temps))


def _chain_stable(name: str, chain: set[str], chosen: dict, positions: dict, facts) -> bool:
    """Whether recomputing ``name`` where the reverse sweep reads it gives its value: the
    operands of every definition it re-runs (``chain``) are unchanged from the first of
    them (in its block) to ``name``'s last use. A re-run variable of the user's defined in
    another block is not followed: unstable. ``facts``: (reads, temporaries)."""
    reads, temps = facts
    block, start = positions[name]
    for member in chain:
        member_block, index = positions[member]
        if member_block is block and index < start:
            start = index
        elif member_block is not block and member not in temps:
            return False
    return _stable_until_last_use(block, start, name, reads, _leaves(name, chosen))


def _chain(name: str, chosen: dict) -> set[str]:
    """The recomputed names that recomputing ``name`` re-runs (``name`` excluded)."""
    members, stack = set(), [name]
    while stack:
        for operand in _operand_names(chosen[stack.pop()]):
            if operand in chosen and operand not in members and operand != name:
                members.add(operand)
                stack.append(operand)
    return members


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


def _target(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    return ""


def names_read(value: ast.expr) -> set[str]:
    """Every variable an expression reads (module names excluded)."""
    return {n.id for n in walk(value) if isinstance(n, ast.Name)} - {"math", "np"}


def _cheap(stmt: ast.Assign, read_only: dict[int, set[str]], arrays=frozenset()) -> bool:
    value = stmt.value
    if isinstance(value, ast.Constant) or ir.is_shape_query(value):
        return False
    if ir.is_element_read(value):
        if _gathers(value, arrays):
            return False  # x[mask], x[idx]: a new array, a pass over x at every use
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
        names = frozenset({n.id for n in walk(top) if isinstance(n, ast.Name)} - changed)
        for stmt in walk(top):
            unchanged[id(stmt)] = names
    params = frozenset({a.arg for a in node.args.args} - changed)
    return {key: names | params for key, names in unchanged.items()}


def _changed(stmts: list[ast.stmt], arrays=frozenset()) -> set[str]:
    """Names assigned, written into, permuted or iterated over in ``stmts``, but for two
    kinds of statement that leave every array read before them as it was: an array name
    bound to another array (the reverse sweep restores the name where it reads it), and
    scalarize's filling of an array it has just allocated (``fills_fresh``)."""
    changed = set()
    for stmt in (sub for s in stmts for sub in walk(s)):
        if isinstance(stmt, ast.Assign):
            rebinds = len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            if getattr(stmt, "fills_fresh", False) or (rebinds and stmt.targets[0].id in arrays):
                continue
            changed |= {n.id for n in walk(stmt.targets[0]) if isinstance(n, ast.Name)}
        elif isinstance(stmt, ast.For):
            changed.add(stmt.target.id)
    return changed


def once_bound_floats(node: ast.FunctionDef, types) -> set[str]:
    """The user's float variables bound by one statement (``dx = x[j] - x[i]`` in a pair
    loop): candidates for recomputation as the temporaries are, under the same checks."""
    params = {a.arg for a in node.args.args}
    return {
        name
        for name, count in binding_counts(node).items()
        if count == 1 and name not in params and types[name].kind == "float"
    }


def element_reads(node: ast.FunctionDef, temps: set[str], arrays=frozenset()) -> set[str]:
    """The temporaries that are an element of an array (``t = u[i]``): the reverse sweep
    reads the array itself instead of a record when nothing changes the array afterwards,
    under every policy. Not a gather by an index array or a mask (``arrays``)."""
    return {
        stmt.targets[0].id
        for stmt in walk(node)
        if isinstance(stmt, ast.Assign)
        and _target(stmt) in temps
        and ir.is_element_read(stmt.value)
        and not _gathers(stmt.value, arrays)
    }


def steady_values(node: ast.FunctionDef, temps: set[str], given=frozenset(), arrays=()) -> set[str]:
    """The temporaries that cheap arithmetic (:func:`_cheap`) computes from numbers, loop counters,
    parameters never bound again, numbers bound once outside every loop and branch,
    the temporaries in ``given`` (elements of arrays nothing changes) and other such
    temporaries: ``t2 = 0.5 * dt`` or ``t3 = 0.5 * t1`` (``t1 = m[i]``) in a time loop.
    Candidates for recomputation under every policy (:func:`choose_recomputed` checks
    each): storing one per iteration only costs memory.

    >>> src = "def f(x, dt, n):\\n    for k in range(n):\\n        t1 = 0.5 * dt\\n"
    >>> src += "        t2 = t1 * x\\n        t3 = k * t1\\n        x = t2 + t3\\n"
    >>> sorted(steady_values(ast.parse(src).body[0], {"t1", "t2", "t3"}))
    ['t1', 't3']
    """
    bound = binding_counts(node)
    params = {a.arg for a in node.args.args if bound.get(a.arg) == 1}
    kept = {_target(s) for s in node.body if bound.get(_target(s)) == 1}
    steady = ((params | kept) - set(arrays) - {""}) | ir.loop_variables(node) | set(given)
    found: set[str] = set()
    definitions = [
        s for s in walk(node) if isinstance(s, ast.Assign) and _target(s) in temps - kept
    ]
    growing = True
    while growing:
        growing = False
        for stmt in definitions:
            target, value = _target(stmt), stmt.value
            if target in found or bound.get(target) != 1 or not _cheap(stmt, {}, arrays):
                continue
            if names_read(value) <= steady | found:
                found.add(target)
                growing = True
    return found


def _gathers(subscript: ast.Subscript, arrays) -> bool:
    """Whether ``subscript`` indexes with an array (a gather or a mask: a new array)."""
    return any(isinstance(n, ast.Name) and n.id in arrays for n in walk(subscript.slice))


def _operand_names(stmt: ast.Assign) -> list[str]:
    return sorted(names_read(stmt.value))


def _stable_until_last_use(block, index: int, target: str, reads, operands=None) -> bool:
    """Every reader of ``target`` is later in ``block``; ``operands`` (by default those of
    its definition) unchanged up to it, that reader included."""
    operands = set(_operand_names(block[index])) if operands is None else operands
    last_use = None
    for later in range(index, len(block)):
        stmt = block[later]
        for sub in walk(stmt):
            if id(sub) in reads and target in reads[id(sub)]:
                last_use = later
    if last_use is None:
        return False
    total_uses = sum(1 for r in reads.values() if target in r)
    uses_here = sum(
        1
        for stmt in block[index : last_use + 1]
        for sub in walk(stmt)
        if id(sub) in reads and target in reads[id(sub)]
    )
    if uses_here != total_uses:
        return False
    for stmt in block[index + 1 : last_use + 1]:
        for sub in walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id in operands:
                return False
            if _element_write(sub) in operands:  # an array read restored only at its writes
                return False
    return True


def _element_write(node: ast.AST) -> str:
    """The array ``a`` of a write ``a[...] = ...`` (``node`` the subscript), else ""."""
    stored = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
    return node.value.id if stored and isinstance(node.value, ast.Name) else ""


def restorable_reads(node: ast.FunctionDef, temps: set[str], types) -> dict[int, set[str]]:
    """Element reads ``t = a[i]`` worth recomputing from ``a`` restored at its writes: ``a``
    is bound once, shares memory with no other name, is written element by element only,
    and each write runs less often than the read (in fewer loops of unknown trip count, or
    as many and fewer constant trips). Restoring ``a`` then records
    fewer values than recording every read would: an MLP's hidden layer ``h[k]`` is written
    once per unit and sample but read once per unit, output and sample.

    >>> src = "def f(h, w):\\n    for s in range(3):\\n        for k in range(2):\\n"
    >>> src += "            h[k] = w[s]\\n        for o in range(4):\\n"
    >>> src += "            for k in range(2):\\n                t = h[k]\\n"
    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> flt, vec = VarType("float", "float64"), VarType("array", "float64", 1)
    >>> types = TypeTable({"h": vec, "w": vec, "t": flt}, flt)
    >>> fn = ast.parse(src).body[0]
    >>> [sorted(names) for names in restorable_reads(fn, {"t"}, types).values()]
    [['h']]
    """
    depths: dict[int, tuple] = {}
    _loop_depths(node.body, (0, 1), depths)
    deepest_write: dict[str, tuple] = {}
    for stmt in walk(node):
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                name = _element_write(target)
                if name and not _one_element(target):
                    deepest_write[name] = NEVER  # a region: restoring it copies it
                elif name:
                    deepest_write[name] = max(deepest_write.get(name, (0, 0)), depths[id(stmt)])
    bound = binding_counts(node)
    arrays = {n for n, k in types.variables.items() if k.kind == "array"}
    aliases = alias_classes(node, types)
    restorable: dict[int, set[str]] = {}
    for stmt in walk(node):
        if (
            isinstance(stmt, ast.Assign)
            and _target(stmt) in temps
            and ir.is_element_read(stmt.value)
            and not _gathers(stmt.value, arrays)
        ):
            array = stmt.value.value.id
            alone = aliases.get(array, {array}) <= {array, "np", "math"}
            once = bound.get(array, 0) <= 1 and types[array].kind == "array"
            if alone and once and depths[id(stmt)] > deepest_write.get(array, NEVER):
                restorable[id(stmt)] = {array}
    return restorable


NEVER = (1 << 30, 0)  # deeper than any statement


def _loop_depths(stmts: list[ast.stmt], depth: tuple, depths: dict[int, tuple]) -> None:
    """How often each statement runs, roughly: ``(loops of unknown trip count around it,
    product of the constant trip counts)``, compared as a pair."""
    for stmt in stmts:
        depths[id(stmt)] = depth
        inner = depth
        if isinstance(stmt, (ast.For, ast.While)):
            trips = _constant_trips(stmt)
            inner = (depth[0] + 1, depth[1]) if trips is None else (depth[0], depth[1] * trips)
        for field_name in ("body", "orelse"):
            _loop_depths(getattr(stmt, field_name, None) or [], inner, depths)


def _constant_trips(loop: ast.stmt):
    """The trip count of ``for _ in range(<constants>)``, else None."""
    if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Call):
        return None
    args = loop.iter.args
    if not args or not all(isinstance(a, ast.Constant) for a in args):
        return None
    return len(range(*(a.value for a in args)))


def _one_element(target: ast.Subscript) -> bool:
    parts = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    return all(isinstance(p, (ast.Name, ast.Constant)) for p in parts)


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
            names |= {n.id for n in walk(stmt.targets[0]) if isinstance(n, ast.Name)}
        if isinstance(stmt, ast.For):
            names.add(stmt.target.id)
        loop = isinstance(stmt, (ast.For, ast.While))
        for field_name in ("body", "orelse"):
            inner = getattr(stmt, field_name, None)
            if isinstance(inner, list):
                names |= _assigned_in_loops(inner, inside or loop)
    return names

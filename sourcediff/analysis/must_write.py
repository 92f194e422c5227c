"""Arrays a loop iteration overwrites in full before it reads them: their contents
at the iteration's entry are dead.

Recompute and checkpoint re-run a loop iteration from its restored entry state
(``transform/states.py``). The second buffer of a double-buffered time step,
``v[0] = u[0]; v[n-1] = u[n-1]; for i in range(1, n-1): v[i] = ...; u, v = v, u``,
is in that state (the swap reads it), but every element of ``v`` is written before
anything reads it: a re-run needs a buffer of ``v``'s shape, not ``v``'s values.
Leaving such arrays out of the records halves the memory of a double buffer.

An iteration overwrites array ``a`` first when its top-level statements, in order,
write every element of ``a`` before any of them reads ``a`` (its shape aside). A
write counts when it runs unconditionally: an element or slice write at the top,
or inside ``for`` loops over ``range`` with no exit, whose indices are a loop
variable or a fixed position, plus or minus a constant, with bounds measured in
``a``'s own (static) axis lengths. The union of the boxes written is checked
exactly: endpoints are constants or a length minus a constant, so the pattern of
the union is the same for every length beyond twice the largest constant, and
each length up to there is tried.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> loop = ast.parse('''
    ... for _ in range(steps):
    ...     v[0] = u[0]
    ...     t2 = n - 1
    ...     v[t2] = u[t2]
    ...     for i in range(1, t2):
    ...         v[i] = u[i - 1] + u[i + 1]
    ...     u, v = v, u
    ... ''').body[0]
    >>> vec = VarType("array", "float64", 1)
    >>> types = TypeTable({"u": vec, "v": vec}, vec)
    >>> types.shapes = {"u": (("class", "a"),), "v": (("class", "a"),)}
    >>> facts = IndexFacts(lengths={"n": ("class", "a")}, values={"t2": loop.body[1].value})
    >>> sorted(overwritten_first(loop, ["u", "v"], types, facts))
    ['v']
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field

from .. import ir
from ..astnodes import walk
from .liveness import binding_counts
from .static_shapes import axis_lengths

#: Lengths beyond twice the largest constant all give the union one pattern; past this
#: bound on the constants (or the rank) the check gives up and the array is kept.
MAX_OFFSET = 6
MAX_RANK = 3
EXITS = (ast.Break, ast.Continue, ast.Return, ast.While)


@dataclass
class IndexFacts:
    """What integer names hold: ``lengths`` an axis length symbol (``n = u.shape[0]``),
    ``values`` the one expression a name is bound to (read where it is in scope)."""

    lengths: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)
    shapes: dict = field(default_factory=dict)  # static shapes (``a.shape[k]``, ``len(a)``)


def index_facts(nf, types) -> IndexFacts:
    """The :class:`IndexFacts` of normalized function ``nf``: its axis-length integers,
    its temporaries (each bound once, before it is read) and the integers its top level
    binds once."""
    counts = binding_counts(nf.node)
    top = {id(stmt) for stmt in nf.node.body}
    values = {}
    for stmt in walk(nf.node):
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            continue
        name = stmt.targets[0].id
        if counts.get(name) == 1 and (name in nf.temps or id(stmt) in top):
            values[name] = stmt.value
    return IndexFacts(axis_lengths(nf.node, types), values, types.shapes or {})


def overwritten_first(loop: ast.For, names, types, facts: IndexFacts, function=None) -> set[str]:
    """The arrays among ``names`` that every iteration of ``loop`` writes in full before
    reading them, and that nothing after ``loop`` (in ``function``) binds again: the
    reverse sweep re-runs an iteration in the buffer the name holds when it gets there."""
    shapes = getattr(types, "shapes", {}) or {}
    rebound = bound_after(loop, function) if function is not None else set()
    found = set()
    for name in names:
        shape = shapes.get(name)
        if types[name].kind != "array" or not shape or len(shape) > MAX_RANK:
            continue
        if name in rebound:
            continue
        if _written_before_read(loop.body, name, shape, facts):
            found.add(name)
    return found


def bound_after(loop: ast.For, function: ast.FunctionDef) -> set[str]:
    """Names bound outside ``loop`` in the top-level statement holding it or after it."""
    inside = {id(node) for node in walk(loop)}
    names: set[str] = set()
    reached = False
    for stmt in function.body:
        reached = reached or id(loop) in {id(node) for node in walk(stmt)}
        if not reached:
            continue
        for node in walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(getattr(node, "ctx", None), ast.Load):
                if id(node) not in inside:
                    names.add(node.id)
    return names


def _written_before_read(body: list[ast.stmt], name: str, shape: tuple, facts) -> bool:
    boxes: list = []
    for stmt in body:
        if _covers(boxes, len(shape)):
            return True
        if _reads_contents(stmt, name) or any(isinstance(n, EXITS) for n in walk(stmt)):
            return False
        boxes += _written_boxes(stmt, name, shape, facts, {})
    return _covers(boxes, len(shape))


def _reads_contents(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` may read the elements of ``name`` (its shape and writes into it
    aside)."""
    skipped = set()
    for node in walk(stmt):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            skipped.add(id(node.value))
        elif isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim"):
            skipped.add(id(node.value))
        elif ir.is_call(node, "len") and node.args:
            skipped.add(id(node.args[0]))
    return any(
        isinstance(node, ast.Name) and node.id == name and id(node) not in skipped
        for node in walk(stmt)
    )


def _written_boxes(stmt, name: str, shape: tuple, facts, ranges: dict) -> list:
    """The boxes of ``name`` that ``stmt`` writes whenever it runs: per axis a pair of
    endpoints, each ``(coefficient of the axis length, constant)``."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript):
        target = stmt.targets[0]
        if isinstance(target.value, ast.Name) and target.value.id == name:
            box = _box(target.slice, shape, facts, ranges)
            return [box] if box is not None else []
        return []
    bounds = _range_bounds(stmt, facts, ranges)
    if bounds is None or any(isinstance(node, EXITS) for node in walk(stmt)):
        return []
    inner = {**ranges, stmt.target.id: bounds}
    return [box for sub in stmt.body for box in _written_boxes(sub, name, shape, facts, inner)]


def _range_bounds(stmt, facts, ranges: dict):
    """``(start, stop)`` of ``for i in range(start, stop)`` as affine forms, else None."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and not stmt.orelse):
        return None
    if not ir.is_call(stmt.iter, "range") or not 1 <= len(stmt.iter.args) <= 2:
        return None
    args = stmt.iter.args
    start = _affine(args[0], facts, ranges) if len(args) == 2 else {1: 0}
    stop = _affine(args[-1], facts, ranges)
    return None if start is None or stop is None else (start, stop)


def _box(index: ast.expr, shape: tuple, facts, ranges: dict):
    """Per axis ``(lo, hi)`` written by ``name[index]``: endpoints as ``(a, c)`` meaning
    ``a * length + c``; None where an index is not understood."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) != len(shape):
        return None
    box, used = [], set()
    for part, symbol in zip(parts, shape):
        if isinstance(part, ast.Slice):
            span = _slice_span(part, symbol, facts, ranges)
        else:
            span = _index_span(part, symbol, facts, ranges, used)
        if span is None:
            return None
        box.append(span)
    return tuple(box)


def _slice_span(part: ast.Slice, symbol, facts, ranges: dict):
    if part.step is not None:
        return None
    lo = _endpoint(part.lower, symbol, facts, ranges, (0, 0))
    hi = _endpoint(part.upper, symbol, facts, ranges, (1, 0))
    return None if lo is None or hi is None else (lo, hi)


def _endpoint(node, symbol, facts, ranges: dict, default):
    """``node`` (an integer expression in ``symbol`` only) as ``(a, c)``; a negative
    constant counts from the end, as NumPy reads it."""
    if node is None:
        return default
    form = _affine(node, facts, ranges)
    point = None if form is None else _in_symbol(form, symbol)
    if point is not None and point[0] == 0 and point[1] < 0:
        return (1, point[1])
    return point


def _index_span(part, symbol, facts, ranges: dict, used: set):
    """The span an element index covers: a fixed position, or a loop variable's range
    shifted by a constant."""
    form = _affine(part, facts, ranges)
    if form is None:
        return None
    variables = [k for k in form if isinstance(k, tuple) and k[0] == "loop"]
    if not variables:
        point = _endpoint(part, symbol, facts, ranges, None)
        return None if point is None else (point, (point[0], point[1] + 1))
    if len(variables) != 1 or form[variables[0]] != 1 or variables[0] in used:
        return None
    used.add(variables[0])
    shift = {k: v for k, v in form.items() if k != variables[0]}
    start, stop = ranges[variables[0][1]]
    lo = _in_symbol(_sum(start, shift), symbol)
    hi = _in_symbol(_sum(stop, shift), symbol)
    return None if lo is None or hi is None else (lo, hi)


def _in_symbol(form: dict, symbol):
    if set(form) - {1, ("length", symbol)}:
        return None
    point = (form.get(("length", symbol), 0), form.get(1, 0))
    return point if point[0] in (0, 1) else None


def _sum(a: dict, b: dict) -> dict:
    out = dict(a)
    for key, value in b.items():
        out[key] = out.get(key, 0) + value
    return {k: v for k, v in out.items() if v or k == 1}


def _affine(node, facts, ranges: dict, depth: int = 0):
    """An integer expression as ``{term: coefficient}`` (terms: ``1``, an axis length
    ``("length", symbol)``, a loop variable ``("loop", name)``), else None."""
    if depth > 20:
        return None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return {1: node.value}
    if isinstance(node, ast.Name):
        if node.id in ranges:
            return {("loop", node.id): 1, 1: 0}
        if node.id in facts.lengths:
            return {("length", facts.lengths[node.id]): 1, 1: 0}
        if node.id in facts.values:
            return _affine(facts.values[node.id], facts, ranges, depth + 1)
        return None
    symbol = _length_read(node, facts.shapes)
    if symbol is not None:
        return {("length", symbol): 1, 1: 0}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _affine(node.operand, facts, ranges, depth + 1)
        return None if inner is None else {k: -v for k, v in inner.items()}
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        left = _affine(node.left, facts, ranges, depth + 1)
        right = _affine(node.right, facts, ranges, depth + 1)
        if left is None or right is None:
            return None
        sign = 1 if isinstance(node.op, ast.Add) else -1
        return _sum(left, {k: sign * v for k, v in right.items()})
    return None


def _length_read(node, shapes: dict):
    """The symbol of ``a.shape[k]`` or ``len(a)`` for an array of static shape, else None."""
    if ir.is_call(node, "len") and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
        array, axis = node.args[0].id, 0
    elif ir.shape_axis(node) is not None:
        array, axis = ir.shape_axis(node)
    else:
        return None
    shape = shapes.get(array)
    return shape[axis] if shape and axis < len(shape) else None


def _covers(boxes: list, rank: int) -> bool:
    """Whether the union of ``boxes`` is the whole array for every axis length >= 1."""
    if not boxes:
        return False
    largest = max(abs(c) for box in boxes for span in box for _, c in span)
    if largest > MAX_OFFSET:
        return False
    lengths = range(1, 2 * largest + 4)
    return all(_covers_at(boxes, sizes) for sizes in itertools.product(lengths, repeat=rank))


def _covers_at(boxes: list, sizes: tuple) -> bool:
    """Whether ``boxes`` cover every element of an array of shape ``sizes``."""
    covered = set()
    for box in boxes:
        spans = []
        for (lo, hi), size in zip(box, sizes):
            start = max(lo[0] * size + lo[1], 0)
            stop = min(hi[0] * size + hi[1], size)
            spans.append(range(start, stop))
        covered.update(itertools.product(*spans))
    return len(covered) == _count(sizes)


def _count(sizes: tuple) -> int:
    total = 1
    for size in sizes:
        total *= size
    return total

"""Arrays of a few elements as that many numbers ("scalar replacement of aggregates").

Code written for one point, one camera or one particle at a time handles 2- and
3-vectors: a row of a ``(n, 3)`` array, a constant slice ``cam[0:3]`` of it, their
sums and products, ``np.dot`` and ``np.sum`` of them. As arrays, each operation
allocates, and so does the adjoint of each in the reverse sweep: per element, such
code costs tens of times what the arithmetic does. An expert writes it on numbers.

This rewrite, in the types stage, does the same where every length is known: the
derivative is specialized on the length of each trailing axis of at most
:data:`MAX_LENGTH` of the caller's arrays of two or more axes
(``dispatch.dimension_classes`` labels it ``("len", n)``), so a row ``P[i]`` of such
a parameter, or of an array computed from them or made with a constant last length
(``small_lengths.py``), has a known length, and so do constant slices of it,
elementwise results of known-length operands, fresh arrays of a constant length
(``literal_buffer(3, x)``, ``np.zeros(3)``) and copies. A 1-D float64 array of known
length becomes one name per element when every use of it is one of:

- an elementwise operation (``+ - * / **``, a sign, a unary NumPy function) giving
  another such array, a constant slice, a copy;
- ``np.sum(v)``, ``dot(u, v)``, ``v[c]`` with a constant ``c``, ``v.shape[0]``,
  ``len(v)``, ``v.ndim``, ``v.size``;
- an element write ``v[c] = s`` (only into a fresh array no other name may share);
- a row write ``A[i, :] = v`` into an array whose rows have ``v``'s length.

A row is a view, and its numbers are read when it is taken: of an array nothing
writes into, or of one written later in the same block after every use of the row
(``small_lengths.readable_row_reads``). Any other use keeps the array (and what it is
computed from). Elementwise values are exact per element, so the numbers are those of the
array code; sums add in index order, as Numba's ``np.sum`` does.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> from sourcediff.naming import Namer
    >>> node = ast.parse('''
    ... def f(P, i, s):
    ...     t1 = P[i, :]
    ...     t2 = t1[0:2]
    ...     t3 = t2 * s
    ...     t4 = np.sum(t3)
    ...     return t4
    ... ''').body[0]
    >>> vec, flt, mat = VarType("array", "float64", 1), VarType("float", "float64"), \
VarType("array", "float64", 2)
    >>> types = TypeTable({"P": mat, "i": VarType("int", "int64"), "s": flt, "t1": vec,
    ...                    "t2": vec, "t3": vec, "t4": flt}, flt)
    >>> split_small_arrays(node, types, Namer.for_tree(node), ((0, ("len", 3)), None, None))
    {'t1': ['t1_0', 't1_1', 't1_2'], 't2': ['t2_0', 't2_1'], 't3': ['t3_0', 't3_1']}
    >>> print(ir.block_source(node.body))
    t1_0 = P[i, 0]
    t1_1 = P[i, 1]
    t1_2 = P[i, 2]
    t2_0 = t1_0
    t2_1 = t1_1
    t3_0 = t2_0 * s
    t3_1 = t2_1 * s
    t4 = t3_0 + t3_1
    return t4
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..analysis.types import TypeTable, VarType
from ..astnodes import clone, walk
from ..naming import Namer
from ..transform.signature import written_arrays
from .elements import elementwise_operands
from .known_tests import fold_known_tests
from .rearrange import constant_int
from .small_lengths import (
    Rows,
    blocks,
    constant_slice,
    copied,
    known_lengths,
    names_in,
    readable_row_reads,
    row_lengths,
    row_read,
    value_length,
)

FLOAT = VarType("float", "float64")
REDUCTIONS = {"np.sum": "sum", "dot": "dot", "np.dot": "dot"}


def split_small_arrays(node: ast.FunctionDef, types: TypeTable, namer: Namer, dims) -> dict:
    """Rewrite, in place, every array of ``node`` that can be split (module docstring);
    ``dims``: the caller's axis labels (``dispatch.dimension_classes``). Then the tests
    that compare constants are decided (``known_tests.py``). Returns the names of the
    elements made, by array split."""
    trailing = row_lengths(node, types, dims)
    if not trailing:
        return {}
    written = written_arrays(node)
    rows = trailing.readable_only(readable_row_reads(node, trailing, written, types))
    lengths = known_lengths(node, types, rows)
    split = _splittable(node, types, lengths, rows, trailing)
    if not split:
        return {}
    # Names earlier rewrites bound without this namer (np.where's indices) are taken too.
    namer.taken |= {n.id for n in walk(node) if isinstance(n, ast.Name)} | set(types.variables)
    parts = {v: [namer.fresh(f"{v}_{k}") for k in range(lengths[v])] for v in sorted(split)}
    for names in parts.values():
        types.variables.update(dict.fromkeys(names, FLOAT))
    _Rewriter(parts, rows, types, namer).block(node.body)
    fold_known_tests(node)  # an inlined helper's checks of shapes now compare constants
    return parts


def _splittable(node, types: TypeTable, lengths: dict, rows: Rows, trailing: Rows) -> set:
    """The arrays of known length whose every use has a form on numbers (module
    docstring); dropping one can rule out those computed from it, to a fixed point."""
    split = set(lengths)
    statements = [s for s in walk(node) if isinstance(s, ast.stmt) and s is not node]
    while True:
        known = {n: lengths[n] for n in split}
        bad = set()
        for stmt in statements:
            used = _uses(stmt) & split
            if used and not _allowed(stmt, known, rows, trailing, types):
                bad |= used
        bad |= _shared_writes(node, split)
        if not bad:
            return split
        split -= bad


def _uses(stmt: ast.stmt) -> set[str]:
    """Names a statement itself reads or binds (a compound statement's header only)."""
    if isinstance(stmt, (ast.If, ast.While)):
        parts = [stmt.test]
    elif isinstance(stmt, ast.For):
        parts = [stmt.target, stmt.iter]
    else:
        parts = [stmt]
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}


def _allowed(stmt: ast.stmt, known: dict, rows: dict, trailing: dict, types) -> bool:
    """Whether every use of a split array in ``stmt`` has a form on numbers."""
    if not isinstance(stmt, ast.Assign) or ir.is_permutation(stmt):
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Subscript):
        return _element_write_allowed(target, stmt.value, known, trailing, types)
    if target.id in known:
        return value_length(stmt.value, known, rows, types) == known[target.id]
    kind = types.variables.get(target.id)
    return kind is not None and kind.kind != "array" and _read(stmt.value, known) is not None


def _element_write_allowed(target, value, known: dict, trailing: dict, types) -> bool:
    base = target.value.id if isinstance(target.value, ast.Name) else None
    if base in known:  # v[c] = s
        position = _position(target.slice, known[base])
        return position is not None and not (names_in(value) & set(known))
    if isinstance(value, ast.Name) and value.id in known and not (names_in(target) & set(known)):
        row = ast.Subscript(target.value, target.slice, ast.Load())  # A[i, :] = v
        return trailing.get(row_read(row, trailing, types)) == known[value.id]
    return False


def _position(index: ast.expr, length: int) -> int | None:
    """The element a constant index names in ``length`` elements (negative from the end)."""
    k = constant_int(index)
    if k is None or not -length <= k < length:
        return None
    return k % length


def _read(value: ast.expr, known: dict):
    """What a number-valued ``value`` reads of split arrays: a ``(kind, names, extra)``
    description for the rewriter, ``("none", ...)`` when it reads none; None when it
    reads one in another way."""
    if not (names_in(value) & set(known)):
        return ("none", (), None)
    if isinstance(value, ast.Call) and not value.keywords:
        kind = REDUCTIONS.get(rules.call_path(value.func))
        names = [a.id if isinstance(a, ast.Name) else None for a in value.args]
        if kind == "sum" and len(names) == 1 and names[0] in known:
            return ("sum", tuple(names), None)
        if kind == "dot" and len(names) == 2 and all(n in known for n in names):
            return ("dot", tuple(names), None) if known[names[0]] == known[names[1]] else None
        if ir.is_call(value, "len") and len(names) == 1 and names[0] in known:
            return ("length", tuple(names), None)
        return None
    if ir.shape_axis(value) is not None:
        name, axis = ir.shape_axis(value)
        return ("length", (name,), None) if axis == 0 else None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        name = value.value.id
        if name in known:
            position = _position(value.slice, known[name])
            return None if position is None else ("element", (name,), position)
        return None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        if value.attr in ("size", "ndim"):
            return ("length" if value.attr == "size" else "ndim", (value.value.id,), None)
    return None


def _shared_writes(node: ast.FunctionDef, split: set) -> set[str]:
    """Split arrays written into that another name may share memory with when a write
    happens (it would not reach the other's numbers). A written array must be bound once,
    to a new array, and used in that binding's block only, every element write before
    the first copy or slice of it (as an inlined helper builds its result)."""
    simple = [s for s in walk(node) if isinstance(s, ast.Assign)]
    lists = [b for sub in walk(node) for b in blocks(sub)]
    bad = set()
    for name in {ir.target_name(s) for s in simple if ir.is_element_write(s)} & split:
        uses = [s for s in simple if name in names_in(s)]
        if not any(_written_in_order(block, name, uses) for block in lists):
            bad.add(name)
            bad |= {ir.target_name(s) for s in uses if name in _aliased(s)} & split
    return bad


def _aliased(stmt: ast.stmt) -> set[str]:
    """The arrays ``stmt`` binds another name to (a copy of the reference, a slice)."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
        return set()
    value = stmt.value
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return {value.value.id}
    return {value.id} if isinstance(value, ast.Name) else set()


def _written_in_order(block: list[ast.stmt], name: str, uses: list[ast.Assign]) -> bool:
    """Whether ``uses`` (every statement naming ``name``) are statements of ``block``: a
    binding to a new array first, then element writes before any copy or slice."""
    if any(not any(s is u for s in block) for u in uses):
        return False
    first = uses[0]
    if not (isinstance(first.targets[0], ast.Name) and first.targets[0].id == name):
        return False
    if isinstance(first.value, (ast.Name, ast.Subscript)):  # a view, not a new array
        return False
    aliasing = False
    for stmt in uses[1:]:
        if ir.is_element_write(stmt) and ir.target_name(stmt) == name and aliasing:
            return False
        if isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name:
            return False  # bound again
        aliasing = aliasing or name in _aliased(stmt)
    return True


class _Rewriter:
    """Replaces each split array by its numbers, statement by statement."""

    def __init__(self, parts: dict, rows: dict, types: TypeTable, namer: Namer):
        self.parts, self.rows, self.types, self.namer = parts, rows, types, namer

    def block(self, stmts: list[ast.stmt]) -> None:
        out = []
        for stmt in stmts:
            for inner in blocks(stmt):
                self.block(inner)
            if isinstance(stmt, ast.Assign) and _uses(stmt) & set(self.parts):
                out += [ast.copy_location(ir.located(s, stmt), stmt) for s in self.statement(stmt)]
            else:
                out.append(stmt)
        stmts[:] = out

    def statement(self, stmt: ast.Assign) -> list[ast.stmt]:
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Subscript):
            return self.element_write(target, value)
        if target.id in self.parts:
            names = self.parts[target.id]
            return [_assign(name, self.component(value, k)) for k, name in enumerate(names)]
        return self.reduction(target.id, value)

    def element_write(self, target: ast.Subscript, value: ast.expr) -> list[ast.stmt]:
        base = target.value.id
        if base in self.parts:
            position = _position(target.slice, len(self.parts[base]))
            return [_assign(self.parts[base][position], value)]
        index = target.slice.elts[0] if isinstance(target.slice, ast.Tuple) else target.slice
        return [
            ast.Assign(
                [
                    ast.Subscript(
                        ir.load(base),
                        ast.Tuple([clone(index), ast.Constant(k)], ast.Load()),
                        ast.Store(),
                    )
                ],
                ir.load(name),
            )
            for k, name in enumerate(self.parts[value.id])
        ]

    def component(self, value: ast.expr, k: int) -> ast.expr:
        """Element ``k`` of the split array ``value`` computes."""
        base = row_read(value, self.rows, self.types)
        if base is not None:
            index = value.slice.elts[0] if isinstance(value.slice, ast.Tuple) else value.slice
            return ast.Subscript(
                ir.load(base), ast.Tuple([clone(index), ast.Constant(k)], ast.Load()), ast.Load()
            )
        source = copied(value)
        if source is not None:
            return ir.load(self.parts[source][k])
        if isinstance(value, ast.Subscript):
            names = self.parts[value.value.id]
            return ir.load(names[constant_slice(value.slice, len(names))[k]])
        if elementwise_operands(value) is not None:
            return _with_elements(clone(value), self.parts, k)
        filled = rules.call_path(value.func) == "np.ones"
        return ast.Constant(1.0 if filled else 0.0)

    def reduction(self, target: str, value: ast.expr) -> list[ast.stmt]:
        kind, names, position = _read(value, {n: len(p) for n, p in self.parts.items()})
        if kind == "element":
            return [_assign(target, ir.load(self.parts[names[0]][position]))]
        if kind in ("length", "ndim"):
            size = len(self.parts[names[0]]) if kind == "length" else 1
            return [_assign(target, ast.Constant(size))]
        out, terms = [], []
        for k, name in enumerate(self.parts[names[0]]):
            if kind == "sum":
                terms.append(name)
                continue
            product = self.temporary()
            other = ir.load(self.parts[names[1]][k])
            out.append(_assign(product, ast.BinOp(ir.load(name), ast.Mult(), other)))
            terms.append(product)
        total = terms[0]
        for k, term in enumerate(terms[1:]):
            total_next = target if k == len(terms) - 2 else self.temporary()
            out.append(_assign(total_next, ast.BinOp(ir.load(total), ast.Add(), ir.load(term))))
            total = total_next
        if len(terms) == 1:
            out.append(_assign(target, ir.load(total)))
        return out

    def temporary(self) -> str:
        name = self.namer.temp()
        self.types.variables[name] = FLOAT
        return name


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _with_elements(value: ast.expr, parts: dict, k: int) -> ast.expr:
    """``value`` with each split array it names replaced by that array's element ``k``."""
    for sub in ast.walk(value):
        for field, child in ast.iter_fields(sub):
            if isinstance(child, ast.Name) and child.id in parts:
                setattr(sub, field, ir.load(parts[child.id][k]))
            elif isinstance(child, list):
                child[:] = [
                    ir.load(parts[c.id][k]) if isinstance(c, ast.Name) and c.id in parts else c
                    for c in child
                ]
    return value

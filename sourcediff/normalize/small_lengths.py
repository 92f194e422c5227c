"""Lengths of 1-D arrays known when the derivative is built (``small_arrays.py``).

The derivative is specialized on the length of each trailing axis of at most
:data:`MAX_LENGTH` of the caller's arrays of two axes or more
(``dispatch.dimension_classes`` labels it ``("len", n)``). A row ``P[i]`` of such a
parameter then has a known length, and so have constant slices of an array of known
length, elementwise results of operands of one known length (and numbers), fresh
arrays of a constant length (``literal_buffer(3, x)``, ``np.zeros(3)``) and copies.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(P, i, s):
    ...     t1 = P[i, :]
    ...     t2 = t1[1:]
    ...     t3 = t2 * s
    ...     return t3
    ... ''').body[0]
    >>> vec, mat = VarType("array", "float64", 1), VarType("array", "float64", 2)
    >>> types = TypeTable({"P": mat, "i": VarType("int", "int64"), "s": VarType("float"),
    ...                    "t1": vec, "t2": vec, "t3": vec}, vec)
    >>> sorted(known_lengths(node, types, Rows({"P": 3})).items())
    [('t1', 3), ('t2', 2), ('t3', 2)]
"""

from __future__ import annotations

import ast
from collections import Counter

from .. import ir, rules
from ..analysis.sharing import alias_classes
from ..analysis.types import TypeTable
from ..astnodes import walk
from .elements import FRESH, elementwise_operands, is_number
from .rearrange import constant_int

#: The longest trailing axis the derivative is specialized on, and split into numbers.
MAX_LENGTH = 16


def row_lengths(node: ast.FunctionDef, types: TypeTable, dims) -> Rows:
    """2-D float64 arrays whose last axis has a known length at every binding, by name:
    parameters the caller's labels give one (``("len", n)``), and the arrays computed from
    them or made with a constant last length (``np.zeros((n, 3))``), their copies and
    elementwise results (a length-1 axis, ``m[:, None]``, broadcasting)."""
    params = [a.arg for a in node.args.args]
    known = {}
    for name, axes in zip(params, dims or ()):
        last = axes[-1] if axes and len(axes) >= 2 else None
        if isinstance(last, tuple) and last[0] == "len":
            known[f"{name}@caller"] = last[1]
    bindings = _bindings(node)
    for name in params:  # the caller's array, of the length its label gives (or unknown)
        bindings.setdefault(name, []).append(ast.Name(f"{name}@caller", ast.Load()))
    matrices = {n: v for n, v in bindings.items() if _matrix(types.variables.get(n))}
    found = _agreed(matrices, known, lambda value, lengths: _last_length(value, lengths, types))
    return Rows({n: k for n, k in found.items() if "@" not in n and k <= MAX_LENGTH})


def _bindings(node: ast.FunctionDef) -> dict[str, list[ast.expr]]:
    """The values each name is bound to; a loop variable, an augmented assignment or a
    permutation binds an unknown value (``None``)."""
    bindings: dict[str, list] = {}
    for sub in walk(node):
        if isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Name):
            bindings.setdefault(sub.targets[0].id, []).append(sub.value)
        elif isinstance(sub, (ast.For, ast.AugAssign)) or ir.is_permutation(sub):
            target = sub.targets[0] if isinstance(sub, ast.Assign) else sub.target
            for name in {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}:
                bindings.setdefault(name, []).append(ast.Constant(None))
    return bindings


def _matrix(kind) -> bool:
    return kind is not None and kind.kind == "array" and kind.ndim == 2 and kind.dtype == "float64"


def _agreed(bindings: dict, known: dict, length_of) -> dict[str, int]:
    """Lengths every binding agrees on (``length_of(value, lengths)``), assumed where a
    binding reads the name itself (``x = x + dt * v`` in a loop), then checked."""
    lengths = dict(known)
    changed = True
    while changed:
        changed = False
        for name in sorted(set(bindings) - set(lengths)):
            found = {length_of(v, lengths) for v in bindings[name]} - {None}
            if len(found) == 1:
                lengths[name] = found.pop()
                changed = True
    changed = True
    while changed:
        changed = False
        for name in sorted(set(bindings) & set(lengths)):
            if {length_of(v, lengths) for v in bindings[name]} != {lengths[name]}:
                del lengths[name]
                changed = True
    return lengths


def _last_length(value: ast.expr, lengths: dict, types: TypeTable) -> int | None:
    """The last-axis length of the 2-D array ``value`` computes, when known."""
    source = copied(value)
    if source is not None:
        return lengths.get(source)
    call = rules.call_path(value.func) if isinstance(value, ast.Call) else ""
    if call in FRESH and len(value.args) == 1 and not value.keywords:
        shape = value.args[0]
        last = shape.elts[-1] if isinstance(shape, ast.Tuple) and len(shape.elts) == 2 else None
        return constant_int(last)
    if call in ("np.expand_dims", "expand_axis") and len(value.args) == 2:
        vector = _kind(value.args[0], types)
        return (
            1
            if vector is not None and vector.ndim == 1 and constant_int(value.args[1]) in (1, -1)
            else None
        )
    operands = elementwise_operands(value)
    if operands is None:
        return None
    found = set()
    for operand in operands:
        kind = _kind(operand, types)
        if is_number(operand, types):
            continue
        if kind is None or kind.ndim != 2 or lengths.get(operand.id) is None:
            return None
        found.add(lengths[operand.id])
    wider = found - {1}
    if not found or len(wider) > 1:
        return None
    return wider.pop() if wider else 1


def _kind(operand: ast.expr, types: TypeTable):
    return types.variables.get(operand.id) if isinstance(operand, ast.Name) else None


class Rows(dict):
    """Last-axis lengths of 2-D arrays, by name, and which row reads of them may be read
    as numbers where they are taken (``readable``: ids of the reads; None: every one)."""

    def __init__(self, lengths: dict, readable: set | None = None):
        super().__init__(lengths)
        self.readable = readable

    def readable_only(self, readable: set) -> Rows:
        """These lengths, for the row reads ``readable`` names only."""
        return Rows(self, readable)


def readable_row_reads(node: ast.FunctionDef, rows: Rows, written: set, types) -> set[int]:
    """The row reads ``t = A[i, :]`` whose elements can be read where the row is taken: of
    an array nothing writes into, or whose every use comes, in the same block, before
    anything writes into ``A`` or may (a call given it, a statement that is no assignment)."""
    classes = alias_classes(node, types)
    counts = Counter(n.id for n in walk(node) if isinstance(n, ast.Name))
    readable = set()
    for block in (b for sub in walk(node) for b in blocks(sub)):
        for position, stmt in enumerate(block):
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
                continue
            base = row_read(stmt.value, rows, types)
            if base is None:
                continue
            sharing = classes.get(base, {base})
            safe = not (sharing & written) or _used_before_writes(
                block[position + 1 :], stmt.targets[0].id, sharing, counts
            )
            if safe:
                readable.add(id(stmt.value))
    return readable


def blocks(node: ast.AST) -> list[list[ast.stmt]]:
    """The statement lists ``node`` holds (a body, an ``else``)."""
    fields = [getattr(node, f, None) for f in ("body", "orelse")]
    return [f for f in fields if isinstance(f, list)]


def _used_before_writes(after: list[ast.stmt], row: str, sharing: set, counts) -> bool:
    """Whether every other mention of ``row`` is in ``after``, before anything may write
    into the arrays of ``sharing``, and none binds another name to the row's memory."""
    seen = 1  # the row read itself
    for stmt in after:
        if seen == counts[row]:
            return True
        if not isinstance(stmt, ast.Assign) or ir.is_permutation(stmt):
            return False
        if ir.is_element_write(stmt) and ir.target_name(stmt) in sharing:
            return False
        if any(sharing & names_in(*call.args) for call in _calls(stmt.value)):
            return False  # a call given the array may write into it
        value = stmt.value
        if isinstance(value, (ast.Name, ast.Subscript)) and _view_of(value) == row:
            return False  # another name for the row's memory
        seen += sum(1 for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == row)
    return seen == counts[row]


def _calls(value: ast.expr) -> list[ast.Call]:
    return [c for c in ast.walk(value) if isinstance(c, ast.Call)]


def names_in(*trees: ast.AST) -> set[str]:
    """Every name ``trees`` mention, read or bound."""
    return {n.id for tree in trees for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _view_of(value: ast.expr) -> str | None:
    """``a`` of ``a`` or of a slice ``a[1:]`` (another name for its memory)."""
    if isinstance(value, ast.Name):
        return value.id
    sliced = isinstance(value.slice, ast.Slice) and isinstance(value.value, ast.Name)
    return value.value.id if sliced else None


def row_read(value: ast.expr, rows: Rows, types: TypeTable) -> str | None:
    """The array of a row read ``P[i]`` / ``P[i, :]`` of a 2-D array in ``rows`` (one of
    the reads it may read as numbers), else None."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return None
    if rows.readable is not None and id(value) not in rows.readable:
        return None
    base = value.value.id
    kind = types.variables.get(base)
    if base not in rows or kind is None or kind.ndim != 2:
        return None
    index = value.slice
    if isinstance(index, ast.Tuple):
        if len(index.elts) != 2 or not _whole(index.elts[1]):
            return None
        index = index.elts[0]
    return base if _integer(index, types) else None


def _whole(part: ast.expr) -> bool:
    return isinstance(part, ast.Slice) and part.lower is part.upper is part.step is None


def _integer(index: ast.expr, types: TypeTable) -> bool:
    if isinstance(index, ast.Constant):
        return type(index.value) is int
    kind = isinstance(index, ast.Name) and types.variables.get(index.id)
    return bool(kind) and kind.kind == "int"


def constant_slice(index: ast.expr, length: int) -> range | None:
    """The element positions a constant slice takes from ``length`` elements."""
    if not isinstance(index, ast.Slice):
        return None
    bounds = []
    for part in (index.lower, index.upper, index.step):
        value = constant_int(part)
        if part is not None and value is None:
            return None
        bounds.append(value)
    if bounds[2] == 0:
        return None
    return range(length)[slice(*bounds)]


def _fresh_length(value: ast.expr) -> int | None:
    """The length of ``literal_buffer(n, x)``, ``np.zeros(n)``, ``np.empty((n,))``..."""
    if not isinstance(value, ast.Call) or value.keywords or not value.args:
        return None
    name = rules.call_path(value.func)
    if name == "literal_buffer" or (name in FRESH and len(value.args) == 1):
        size = value.args[0]
        if isinstance(size, ast.Tuple) and len(size.elts) == 1:
            size = size.elts[0]
        return constant_int(size)
    return None


def copied(value: ast.expr) -> str | None:
    """``u`` of ``u``, ``u.copy()`` or ``np.copy(u)``."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Call) and not value.keywords:
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "copy" and not value.args:
            return func.value.id if isinstance(func.value, ast.Name) else None
        if rules.call_path(func) == "np.copy" and len(value.args) == 1:
            return value.args[0].id if isinstance(value.args[0], ast.Name) else None
    return None


def value_length(value: ast.expr, lengths: dict, rows: Rows, types: TypeTable):
    """The length of the 1-D array ``value`` computes, when known, else None."""
    base = row_read(value, rows, types)
    if base is not None:
        return rows[base]
    source = copied(value)
    if source is not None:
        return lengths.get(source)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        length = lengths.get(value.value.id)
        taken = None if length is None else constant_slice(value.slice, length)
        return None if taken is None else len(taken)
    operands = elementwise_operands(value)
    if operands is not None:
        found = set()
        for operand in operands:
            if isinstance(operand, ast.Name) and operand.id in lengths:
                found.add(lengths[operand.id])
            elif not is_number(operand, types):
                return None
        return found.pop() if len(found) == 1 else None
    return _fresh_length(value)


def known_lengths(node: ast.FunctionDef, types: TypeTable, rows: Rows) -> dict[str, int]:
    """Known lengths of the 1-D float64 arrays (not parameters) that every binding gives
    one length."""
    params = {a.arg for a in node.args.args}
    vectors = {
        n: values
        for n, values in _bindings(node).items()
        if n not in params and _vector(types.variables.get(n))
    }
    found = _agreed(vectors, {}, lambda value, lengths: value_length(value, lengths, rows, types))
    return {n: k for n, k in found.items() if 0 < k <= MAX_LENGTH}


def _vector(kind) -> bool:
    return kind is not None and kind.kind == "array" and kind.ndim == 1 and kind.dtype == "float64"

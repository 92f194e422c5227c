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
    >>> sorted(known_lengths(node, types, {"P": 3}).items())
    [('t1', 3), ('t2', 2), ('t3', 2)]
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..analysis.types import TypeTable
from ..astnodes import walk
from .elements import FRESH, elementwise_operands, is_number

#: The longest trailing axis the derivative is specialized on, and split into numbers.
MAX_LENGTH = 16


def row_lengths(node: ast.FunctionDef, types: TypeTable, dims) -> dict[str, int]:
    """Parameters of two axes or more whose last axis has a known length, by name."""
    params = [a.arg for a in node.args.args]
    rows = {}
    for name, axes in zip(params, dims or ()):
        last = axes[-1] if axes and len(axes) >= 2 else None
        if isinstance(last, tuple) and last[0] == "len" and last[1] <= MAX_LENGTH:
            rows[name] = last[1]
    return rows


def row_read(value: ast.expr, rows: dict, types: TypeTable) -> str | None:
    """The parameter of a row read ``P[i]`` / ``P[i, :]`` of a 2-D parameter, else None."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
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
        value = int_constant(part)
        if part is not None and value is None:
            return None
        bounds.append(value)
    if bounds[2] == 0:
        return None
    return range(length)[slice(*bounds)]


def int_constant(node) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_constant(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _fresh_length(value: ast.expr) -> int | None:
    """The length of ``literal_buffer(n, x)``, ``np.zeros(n)``, ``np.empty((n,))``..."""
    if not isinstance(value, ast.Call) or value.keywords or not value.args:
        return None
    name = rules.call_path(value.func)
    if name == "literal_buffer" or (name in FRESH and len(value.args) == 1):
        size = value.args[0]
        if isinstance(size, ast.Tuple) and len(size.elts) == 1:
            size = size.elts[0]
        return int_constant(size)
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


def value_length(value: ast.expr, lengths: dict, rows: dict, types: TypeTable):
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


def known_lengths(node: ast.FunctionDef, types: TypeTable, rows: dict) -> dict[str, int]:
    """Known lengths of the 1-D float64 arrays that every binding gives one length."""
    bindings: dict[str, list] = {}
    other = set()
    for sub in walk(node):
        if isinstance(sub, ast.Assign) and isinstance(sub.targets[0], ast.Name):
            bindings.setdefault(sub.targets[0].id, []).append(sub.value)
        elif isinstance(sub, (ast.For, ast.AugAssign)) or ir.is_permutation(sub):
            target = sub.target if not isinstance(sub, ast.Assign) else sub.targets[0]
            other |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    params = {a.arg for a in node.args.args}
    names = {n for n in bindings if n not in other | params and _vector(types.variables.get(n))}
    lengths: dict[str, int] = {}
    changed = True
    while changed:  # optimistic: a loop-carried binding (v = v * 2.0) agrees once assumed
        changed = False
        for name in sorted(names - set(lengths)):
            found = {value_length(v, lengths, rows, types) for v in bindings[name]} - {None}
            if len(found) == 1:
                lengths[name] = found.pop()
                changed = True
    changed = True
    while changed:  # then checked: every binding gives the assumed length
        changed = False
        for name in sorted(lengths):
            found = {value_length(v, lengths, rows, types) for v in bindings[name]}
            if found != {lengths[name]}:
                del lengths[name]
                changed = True
    return {n: k for n, k in lengths.items() if 0 < k <= MAX_LENGTH}


def _vector(kind) -> bool:
    return kind is not None and kind.kind == "array" and kind.ndim == 1 and kind.dtype == "float64"

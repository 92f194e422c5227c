"""Bind a number once where it is updated: ``x = e1; ...; x -= e2`` is ``x = e1 - e2``.

The reverse sweep builds an adjoint from several contributions, the first assigned and
the others added (``t16_bar = t18 * t42_bar``, later ``t16_bar += t76 * t34_bar``).
Written as one expression at the last update, the value reads as a hand adjoint does and
folds into its one reader. The operations and their order are the same, so the value is
bit for bit the same. A pass of ``fold.py``, which gives it the statements' summaries.
"""

from __future__ import annotations

import ast

from ..analysis.sharing import alias_classes
from ..astnodes import walk
from .effects import (
    has_effects,
    is_pure,
    is_pure_call,
    names_changed,
    names_read,
    names_written,
    statement_lists,
)


class _Facts:
    """Statement summaries as ``fold._Summaries`` gives them (for the doctest)."""

    def of(self, stmt: ast.stmt) -> tuple:
        return names_read(stmt), names_written(stmt), names_changed(stmt), has_effects(stmt)


def merge_into_update(stmts, index: int, name: str, summaries, movable: bool) -> bool:
    """``x = e1`` whose next mention is ``x += e2`` (any operator, ``x`` a number)
    becomes ``x = e1 + e2`` there: the same operations in the same order, one statement.
    A constant ``e1`` is left to ``zeros.py`` (``0.0 + e2`` is not ``e2`` for ``-0.0``).
    An update ``x -= e1`` is ``x = x - e1``: two updates ``x -= e1; ...; x += e2`` become
    ``x = x - e1 + e2``, which is ``(x - e1) + e2`` as before.

    >>> fn = ast.parse("def f(a, b, c):\\n    x = a * b\\n    y = c\\n    x -= c * a\\n"
    ...                "    return x + y").body[0]
    >>> merge_into_update(fn.body, 0, "x", _Facts(), True)
    True
    >>> print(ast.unparse(fn.body[1]))
    x = a * b - c * a
    >>> fn = ast.parse("def f(x, a, c):\\n    x += a\\n    y = c\\n    x -= c * a\\n"
    ...                "    return x + y").body[0]
    >>> merge_into_update(fn.body, 0, "x", _Facts(), True), ast.unparse(fn.body[1])
    (True, 'x = x + a - c * a')
    """
    value = _as_value(stmts[index], name)
    reads = names_read(value)
    for position in range(index + 1, len(stmts)):
        later = stmts[position]
        read, written, changed, effects = summaries.of(later)
        if name in read or name in written:
            if not _updates_name(later, name):
                return False
            merged = ast.Assign(
                [ast.Name(name, ast.Store())], ast.BinOp(value, later.op, later.value)
            )
            stmts[position] = ast.copy_location(merged, later)
            del stmts[index]
            return True
        if (effects and not movable) or reads & changed or _jumps(later):
            return False
    return False


def _as_value(stmt: ast.stmt, name: str) -> ast.expr:
    """The value ``stmt`` binds to ``name``: its right-hand side, or ``name op e`` for the
    update ``name op= e``."""
    if isinstance(stmt, ast.AugAssign):
        return ast.BinOp(ast.Name(name, ast.Load()), stmt.op, stmt.value)
    return stmt.value


def _updates_name(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` is ``name op= e`` with ``e`` not reading ``name``."""
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.target.id == name
        and name not in names_read(stmt.value)
    )


def merge_element_updates(function: ast.FunctionDef, numbers: frozenset = frozenset()) -> bool:
    """``A[i] += e1`` whose next mention of ``A`` (or of an array that may share its
    memory) is ``A[i] -= e2`` becomes ``A[i] = A[i] + e1 - e2`` there, in place; whether
    any did. The same element is read and written once, and the sums are formed in the
    same order, so every value is bit for bit the same. ``numbers``: names known to hold
    a number, which share memory with no array (``t = A_bar[i]`` does not alias them).

    >>> fn = ast.parse("def f(A_bar, B_bar, i, a, b):\\n    A_bar[i] += a\\n"
    ...                "    B_bar[i] += b\\n    A_bar[i] -= 2.0 * b").body[0]
    >>> merge_element_updates(fn)
    True
    >>> print(ast.unparse(fn.body[1]))
    A_bar[i] = A_bar[i] + a - 2.0 * b
    """
    aliases = {
        name: names - numbers
        for name, names in alias_classes(function).items()
        if name not in numbers
    }
    changed = False
    for stmts in statement_lists(function):
        index = 0
        while index < len(stmts):
            if _merge_element_at(stmts, index, aliases):
                changed = True
                continue  # the statement now at ``index`` was not looked at yet
            index += 1
    return changed


def _merge_element_at(stmts, index: int, aliases) -> bool:
    """Merge ``stmts[index]``, an update of an element, into the next update of that
    element (:func:`merge_element_updates`); whether it did."""
    stmt = stmts[index]
    value = _element_value(stmt)
    if value is None:
        return False
    target = stmt.target if isinstance(stmt, ast.AugAssign) else stmt.targets[0]
    array = target.value.id
    shared = aliases.get(array, set()) | {array}
    if any(shared & names_read(part) for part in _added_parts(value)):
        return False  # it reads memory of the array beside its own element
    key = ast.dump(target.slice)
    reads = names_read(value)
    memory = {m.id for n in walk(value) if isinstance(n, ast.Subscript) for m in _bases(n)}
    memory |= {other for name in memory for other in aliases.get(name, ())}
    for position in range(index + 1, len(stmts)):
        later = stmts[position]
        nodes = walk(later)
        mentions = any(isinstance(n, ast.Name) and n.id in shared for n in nodes)
        if mentions and not _other_elements_only(nodes, shared, array, target.slice):
            merged = _merged_update(later, shared, array, key, value)
            if merged is None:
                return False
            stmts[position] = ast.copy_location(merged, later)
            del stmts[index]
            return True
        if any(_may_jump_or_write(n) for n in nodes):
            return False
        if reads & names_written(later) or (memory - shared) & _stored_through(later):
            return False
        if not mentions and memory & _stored_through(later):
            return False
    return False


def _other_elements_only(nodes: list, shared: set, array: str, index: ast.expr) -> bool:
    """Whether the statement of ``nodes`` mentions the arrays ``shared`` only as elements
    ``array[k]`` that are provably not ``array[index]`` (``A[c, 2]`` beside ``A[c, 3]``),
    so that an update of ``array[index]`` may move past it."""
    elements = [
        n
        for n in nodes
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == array
    ]
    names = [n for n in nodes if isinstance(n, ast.Name) and n.id in shared]
    if len(names) != len(elements):  # the whole array, or an array sharing its memory
        return False
    return all(_distinct(n.slice, index) for n in elements)


def _distinct(first: ast.expr, second: ast.expr) -> bool:
    """Whether two indices provably select different elements: at some position both
    are different non-negative integers."""
    firsts = first.elts if isinstance(first, ast.Tuple) else [first]
    seconds = second.elts if isinstance(second, ast.Tuple) else [second]
    if len(firsts) != len(seconds) or not all(map(_one_axis, firsts + seconds)):
        return False  # a slice or ``...`` shifts the axes the positions stand for
    return any(
        _index(a) is not None and _index(b) is not None and _index(a) != _index(b)
        for a, b in zip(firsts, seconds)
    )


def _one_axis(node: ast.expr) -> bool:
    """Whether an index element selects along exactly one axis (no slice, ``...``,
    ``None`` or starred tuple)."""
    if isinstance(node, (ast.Slice, ast.Starred)):
        return False
    return not (isinstance(node, ast.Constant) and (node.value is Ellipsis or node.value is None))


def _index(node: ast.expr) -> int | None:
    ok = isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0
    return node.value if ok else None


_STOPS = (ast.Return, ast.Break, ast.Continue, ast.Raise)
_SUMS = (ast.Add, ast.Sub)


def _element_value(stmt: ast.stmt) -> ast.expr | None:
    """The value ``stmt`` gives an element ``A[i]`` it updates: ``A[i] + e`` for
    ``A[i] += e``, the right-hand side of ``A[i] = A[i] + e1 - e2`` (a merge's result);
    else None."""
    if isinstance(stmt, ast.AugAssign):
        target, value = stmt.target, stmt.value
        if not (_element(target) and isinstance(stmt.op, _SUMS) and is_pure(value)):
            return None
        if target.value.id in names_read(value):
            return None
        read = ast.Subscript(target.value, target.slice, ast.Load())
        return ast.BinOp(read, stmt.op, value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _element(stmt.targets[0]):
        target, leftmost = stmt.targets[0], stmt.value
        while isinstance(leftmost, ast.BinOp) and isinstance(leftmost.op, _SUMS):
            leftmost = leftmost.left
        read = isinstance(leftmost, ast.Subscript) and ast.dump(leftmost.value) == ast.dump(
            target.value
        )
        if read and ast.dump(leftmost.slice) == ast.dump(target.slice) and is_pure(stmt.value):
            return stmt.value
    return None


def _added_parts(value: ast.expr) -> list[ast.expr]:
    """The terms a chain ``A[i] + e1 - e2`` adds to its leftmost element read."""
    parts = []
    while isinstance(value, ast.BinOp) and isinstance(value.op, _SUMS):
        parts.append(value.right)
        value = value.left
    return parts


def _bases(subscript: ast.Subscript) -> list[ast.Name]:
    """The names the memory ``subscript`` reads may belong to (``a`` of ``a[i]``, of
    ``a.T[i]``, of ``a[i][j]``)."""
    return [n for n in walk(subscript.value) if isinstance(n, ast.Name)]


def _jumps(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` may leave its block (a ``break`` would skip a moved update)."""
    return any(isinstance(node, _STOPS) for node in walk(stmt))


def _may_jump_or_write(node: ast.AST) -> bool:
    """Whether ``node`` jumps or calls what may write into memory."""
    return isinstance(node, _STOPS) or (isinstance(node, ast.Call) and not is_pure_call(node))


def _element(target: ast.expr) -> bool:
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)


def _merged_update(later: ast.stmt, shared: set, array: str, key: str, value: ast.expr):
    """``later`` with ``value`` (the element's earlier update) in place of its read of
    the element ``array[key]``: ``A[i] = value + e`` for ``A[i] += e``, and for a merge's
    ``A[i] = A[i] + e1 - e2`` the leftmost ``A[i]`` replaced; else None (``later`` does
    something else with the array, or its ``e`` reads the array or an array ``shared``
    with it, and would read the element before its update)."""
    if isinstance(later, ast.AugAssign) and isinstance(later.op, _SUMS):
        target, rest, chain = later.target, [later.value], None
    elif isinstance(later, ast.Assign) and _element_value(later) is not None:
        target, rest, chain = later.targets[0], [], later.value
        while isinstance(chain.left, ast.BinOp):
            rest.append(chain.right)
            chain = chain.left
        rest.append(chain.right)
    else:
        return None
    if not _element(target) or target.value.id != array or ast.dump(target.slice) != key:
        return None
    if any(shared & names_read(part) or not is_pure(part) for part in rest):
        return None
    if chain is None:
        return ast.Assign([target], ast.BinOp(value, later.op, later.value))
    chain.left = value
    return ast.Assign([target], later.value)


def _stored_through(stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` rebinds or writes an element of."""
    stores = {
        base.id
        for n in walk(stmt)
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
        for base in _bases(n)  # B[0][1] = x and B.T[1] = x write into B
    }
    return stores | names_written(stmt)

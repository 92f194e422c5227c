"""Pass ``run_independent_loops_forward``: a reverse loop whose iterations share nothing runs
forwards.

The reverse of ``for j in range(n)`` runs ``range(n - 1, -1, -1)``, as it must when one
iteration reads what another wrote. Many reverse loops are elementwise, though: each
iteration writes its own elements (``w_bar[k, j] += x[s, j] * z_bar``) and keeps no number
from the iteration before. Such a loop (Tapenade calls it an II-loop) computes the same
bits in any order, and forwards is the order the hardware prefetches and vectorizes::

    >>> fn = ast.parse('''
    ... def f_vjp(x, w_bar, z_bar, k, n):
    ...     for j in range(n - 1, -1, -1):
    ...         t = x[j] * z_bar
    ...         w_bar[k, j] += t
    ... ''').body[0]
    >>> run_independent_loops_forward(fn, {"x": 1, "w_bar": 2})
    True
    >>> print(ast.unparse(fn.body[0].iter))
    range(n)

A loop qualifies when everything in it binds names or writes single elements with pure
values (no record, no call that changes memory, no jump); every name it binds is bound
before it is read in each iteration and is dead after the loop; and every array it writes
is indexed, wherever the loop touches it, by one same expression ``j + c`` on some axis,
with no other name for its memory read in the loop. Then two iterations touch disjoint
elements, each runs exactly the operations it ran before, and no rounding changes.
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.sharing import alias_classes
from ..astnodes import clone, walk
from ..codegen import Comment
from .cleanup import live_after_statements
from .effects import is_pure, names_read, names_written


def run_independent_loops_forward(function: ast.FunctionDef, ranks: dict) -> bool:
    """Turn, in place, each reverse ``range(p, q, -1)`` loop whose iterations are
    independent into ``range(q + 1, p + 1)`` (``ranks``: of the function's arrays);
    whether any loop turned."""
    live_after = live_after_statements(function)
    classes = alias_classes(function)
    changed = False
    for loop in walk(function):
        if _reverse_range(loop) and _independent(loop, live_after, classes, ranks):
            start, stop, _ = loop.iter.args
            forward = [_plus_one(stop), _plus_one(start)]
            if isinstance(forward[0], ast.Constant) and forward[0].value == 0:
                forward = forward[1:]
            loop.iter = ast.Call(ir.load("range"), forward, [])
            changed = True
    return changed


def _reverse_range(loop: ast.AST) -> bool:
    """Whether ``loop`` is ``for name in range(p, q, -1)``."""
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)):
        return False
    if not ir.is_call(loop.iter, "range") or len(loop.iter.args) != 3 or loop.orelse:
        return False
    step = loop.iter.args[2]
    return ast.unparse(step) in ("-1", "-(1)")


def _independent(loop: ast.For, live_after, classes: dict, ranks: dict) -> bool:
    """Whether the iterations of ``loop`` share no number and no element (module docs)."""
    index = loop.target.id
    bound = names_written(loop)
    if not _simple(loop.body) or live_after.get(loop, frozenset(bound)) & bound:
        return False
    if not _bound_before_read(loop.body, {index}, bound):
        return False
    return _disjoint_elements(loop, index, bound, classes, ranks)


def _simple(body: list[ast.stmt]) -> bool:
    """Only name bindings, element writes of pure values and loops over ``range``."""
    for stmt in body:
        if hasattr(stmt, "record_writes"):
            return False
        if isinstance(stmt, (Comment, ast.Pass)):
            continue
        if isinstance(stmt, ast.For):
            if stmt.orelse or not ir.is_call(stmt.iter, "range") or not is_pure(stmt.iter):
                return False
            if not _simple(stmt.body):
                return False
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            if not (_plain_target(stmt.targets[0]) and is_pure(stmt.value)):
                return False
        elif isinstance(stmt, ast.AugAssign):
            if not (_plain_target(stmt.target) and is_pure(stmt.value)):
                return False
        else:
            return False
    return True


def _plain_target(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)


def _bound_before_read(body: list[ast.stmt], defined: set[str], bound: set[str]) -> bool:
    """Whether each name of ``bound`` that ``body`` reads was bound earlier in the same
    iteration (``defined``: the names bound so far); a loop inside may run zero times,
    so what it binds counts only within it."""
    defined = set(defined)
    for stmt in body:
        if isinstance(stmt, ast.For):
            if (names_read(stmt.iter) & bound) - defined:
                return False
            if not _bound_before_read(stmt.body, defined | {stmt.target.id}, bound):
                return False
            continue
        reads = names_read(stmt)
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            reads.add(stmt.target.id)
        if (reads & bound) - defined:
            return False
        defined |= names_written(stmt)
    return True


def _disjoint_elements(loop: ast.For, index: str, bound: set, classes: dict, ranks: dict):
    """Whether every array the loop writes is touched only at elements whose index on
    one axis is ``index + c`` (the same expression everywhere), through its own name."""
    accesses: dict[str, list[ast.Subscript]] = {}
    for node in walk(ast.Module(loop.body, [])):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            accesses.setdefault(node.value.id, []).append(node)
    bare = _bare_names(loop.body)
    written = {_written_array(s) for s in walk(ast.Module(loop.body, []))} - {None}
    for array in written:
        sharing = (classes.get(array, {array}) - {array}) & set(ranks)  # arrays only
        if array in bound or array in bare or sharing & (set(accesses) | bare):
            return False
        elements = accesses[array]
        if not all(_full_element(e, ranks.get(array, -1)) for e in elements):
            return False
        if not _common_axis(elements, index, bound):
            return False
    return True


def _written_array(node: ast.AST) -> str | None:
    """The array an assignment writes an element of, else None."""
    targets = node.targets if isinstance(node, ast.Assign) else []
    targets = [node.target] if isinstance(node, ast.AugAssign) else targets
    for target in targets:
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return target.value.id
    return None


def _bare_names(body: list[ast.stmt]) -> set[str]:
    """Names the loop reads other than as the array of a subscript."""
    subscripted = set()
    for node in walk(ast.Module(body, [])):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            subscripted.add(id(node.value))
    return {
        n.id
        for n in walk(ast.Module(body, []))
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in subscripted
    }


def _full_element(element: ast.Subscript, rank: int) -> bool:
    """One number: an integer index per axis, no slice, no index array."""
    parts = _parts(element)
    if len(parts) != rank:
        return False
    return not any(isinstance(n, (ast.Slice, ast.Subscript)) for p in parts for n in walk(p))


def _common_axis(elements: list[ast.Subscript], index: str, bound: set[str]) -> bool:
    """Whether one axis holds the same ``index + c`` (``c`` unchanged by the loop) in all."""
    rank = len(_parts(elements[0]))
    for axis in range(rank):
        first = ast.dump(_parts(elements[0])[axis])
        if all(ast.dump(_parts(e)[axis]) == first for e in elements):
            if _shifted_index(_parts(elements[0])[axis], index, bound):
                return True
    return False


def _shifted_index(expr: ast.expr, index: str, bound: set[str]) -> bool:
    """``index``, ``index + c``, ``c + index`` or ``index - c``, ``c`` not bound in the loop."""
    if isinstance(expr, ast.Name):
        return expr.id == index
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub))):
        return False
    for own, other in ((expr.left, expr.right), (expr.right, expr.left)):
        if isinstance(own, ast.Name) and own.id == index and not names_read(other) & bound:
            return own is expr.left or isinstance(expr.op, ast.Add)
    return False


def _parts(element: ast.Subscript) -> list[ast.expr]:
    index = element.slice
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def _plus_one(expr: ast.expr) -> ast.expr:
    """``expr + 1``, written ``n`` for ``n - 1`` and folded for a constant."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        if isinstance(expr.operand, ast.Constant) and type(expr.operand.value) is int:
            return ast.Constant(1 - expr.operand.value)
    if isinstance(expr, ast.Constant) and type(expr.value) is int:
        return ast.Constant(expr.value + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub):
        if isinstance(expr.right, ast.Constant) and expr.right.value == 1:
            return clone(expr.left)
    return ast.BinOp(clone(expr), ast.Add(), ast.Constant(1))

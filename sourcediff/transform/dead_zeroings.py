"""Adjoint buffers nothing reads or writes again: dead zeroings, and a seed read in place.

The reverse of ``out[i] = e`` reads ``out_bar[i]`` and zeroes it, so that a later
contribution to ``out[i]`` (an earlier write in the forward sweep, a previous time
step) starts from zero. In a loop that runs once (not inside another loop) whose
iterations each read a different element (the index is the loop variables), and
with no read of the array from that loop on other than these, the zeroed element
is never read again: the zeroing is dead. Contributions added to an element after
its read (``out_bar[i + 1] += g``) are never read either, so they may stay. Once no
zeroing writes it, a buffer that only copies the seed may read the seed itself
(:func:`read_seed_in_place`).

    >>> fn = ast.parse('''
    ... def f_vjp(x, out_bar):
    ...     for i in range(x.shape[0] - 1, -1, -1):
    ...         g = out_bar[i]
    ...         out_bar[i] = 0.0
    ...         out_bar[i - 1] += g * x[i]
    ...     return out_bar
    ... ''').body[0]
    >>> drop_dead_zeroings(fn)
    False
    >>> fn.body.pop()  # the array is returned: its zeroings are read
    <ast.Return object at ...>
    >>> drop_dead_zeroings(fn)
    True
    >>> print(ast.unparse(fn.body[0]))
    for i in range(x.shape[0] - 1, -1, -1):
        g = out_bar[i]
        out_bar[i - 1] += g * x[i]
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import walk
from ..codegen import Comment
from .effects import INNER_SCOPES

SHAPE_READS = frozenset({"shape", "size", "ndim", "nbytes", "dtype"})


def drop_dead_zeroings(function: ast.FunctionDef) -> bool:
    """Remove, in place, the dead zeroings described in the module docstring; whether
    any was removed."""
    removed, parents = False, _parents(function)
    for position, loop in enumerate(function.body):
        if not isinstance(loop, ast.For):
            continue
        later = function.body[position + 1 :]
        for array, pairs in _read_then_zeroed(loop).items():
            if _only_these_reads(array, loop, pairs, later, parents):
                for block, zeroing in pairs:
                    block.remove(zeroing)
                removed = True
    return removed


def _read_then_zeroed(loop: ast.For) -> dict[str, list]:
    """Per array, the ``(block, zeroing)`` of ``t = a[idx]; a[idx] = 0.0`` pairs inside
    ``loop`` and its nested ``for`` loops, ``idx`` exactly the enclosing loops'
    variables."""
    found: dict[str, list] = {}

    def visit(block: list[ast.stmt], targets: list[str]) -> None:
        for index, stmt in enumerate(block):
            if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
                if not stmt.orelse:
                    visit(stmt.body, targets + [stmt.target.id])
                continue
            following = block[index + 1] if index + 1 < len(block) else None
            array = _pair(stmt, following, targets)
            if array:
                found.setdefault(array, []).append((block, following))

    visit(loop.body, [loop.target.id] if isinstance(loop.target, ast.Name) else [])
    return found


def _pair(read: ast.stmt, zeroing, targets: list[str]) -> str:
    """The array of ``t = a[idx]`` followed by ``a[idx] = 0.0``, or ''."""
    if not (_assigns(read) and _assigns(zeroing)):
        return ""
    value, target = read.value, zeroing.targets[0]
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return ""
    zero = isinstance(zeroing.value, ast.Constant) and zeroing.value.value == 0.0
    if not (zero and isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
        return ""
    same = target.value.id == value.value.id and ast.dump(target.slice) == ast.dump(value.slice)
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    names = [p.id for p in parts if isinstance(p, ast.Name)]
    distinct = len(names) == len(parts) and sorted(names) == sorted(targets)
    return value.value.id if same and distinct else ""


def _assigns(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1


def _only_these_reads(array: str, loop: ast.For, pairs: list, later: list, parents) -> bool:
    """Whether ``array`` is read from ``loop`` on only by the pairs' reads, at most one
    pair per iteration, and never goes by another name."""
    if len({id(block) for block, _ in pairs}) != len(pairs):
        return False
    if not all(_direct(node, parents) for node in parents if _is_load_of(node, array)):
        return False
    allowed = {id(block[block.index(zeroing) - 1].value) for block, zeroing in pairs}
    return not any(
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and _is_load_of(node.value, array)
        and id(node) not in allowed
        for stmt in [loop] + later
        for node in walk(stmt)
    )


def _is_load_of(node: ast.AST, array: str) -> bool:
    return isinstance(node, ast.Name) and node.id == array and isinstance(node.ctx, ast.Load)


def _direct(name: ast.Name, parents: dict) -> bool:
    """Whether a use of an array name reads or writes its elements or its shape, or adds
    into it (``add_into(a, e)``): no alias, no call that may keep it."""
    parent = parents[name]
    if isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is name:
        return isinstance(parent, ast.Subscript) or parent.attr in SHAPE_READS
    call = isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
    return call and parent.func.id == "add_into" and parent.args[0] is name


def _parents(function: ast.FunctionDef) -> dict:
    return {child: node for node in walk(function) for child in ast.iter_child_nodes(node)}


def read_seed_in_place(function: ast.FunctionDef) -> bool:
    """``a_bar = np.zeros_like(y); add_into(a_bar, seed)`` becomes ``a_bar = seed`` when
    nothing writes into ``a_bar`` afterwards nor into the parameter ``seed`` at all: the
    buffer would only hold a copy. Only for a vjp whose callers pass a seed of the
    result's shape (an outlined helper's, ``Request.gradient_only``).

    >>> fn = ast.parse('''
    ... def f_vjp(x, g):
    ...     out_bar = np.zeros_like(x)
    ...     add_into(out_bar, g)
    ...     for i in range(x.shape[0]):
    ...         x_bar[i] = out_bar[i] * 2.0
    ... ''').body[0]
    >>> read_seed_in_place(fn)
    True
    >>> print(ast.unparse(fn.body[0]))
    out_bar = g
    """
    params = {a.arg for a in function.args.args}
    body = function.body
    for index, stmt in enumerate(body):
        seed = _added_parameter(stmt, params)
        if not seed or index == 0:
            continue
        array = stmt.value.args[0].id
        made = body[index - 1]
        fresh = _assigns(made) and isinstance(made.targets[0], ast.Name)
        if not (fresh and made.targets[0].id == array and _zeros(made.value)):
            continue
        parents, added = _parents(function), stmt.value.args[1]
        if _written(array, body[index + 1 :], parents) or _bound(seed, body):
            continue
        if _written(seed, body, parents, allowed=(added,)):
            continue
        body[index - 1 : index + 1] = [ir.statement(f"{array} = {seed}")]
        return True
    return False


def _added_parameter(stmt: ast.stmt, params: set[str]) -> str:
    """``seed`` of ``add_into(a, seed)`` with ``seed`` a parameter, else ''."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return ""
    args = call.args
    plain = len(args) == 2 and all(isinstance(a, ast.Name) for a in args)
    if call.func.id != "add_into" or not plain or args[1].id not in params:
        return ""
    return args[1].id


def _zeros(value: ast.expr) -> bool:
    func = value.func if isinstance(value, ast.Call) else None
    named = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    return named and func.value.id == "np" and func.attr in ("zeros", "zeros_like")


def _written(name: str, stmts: list[ast.stmt], parents: dict, allowed=()) -> bool:
    """Whether ``stmts`` may write into ``name``'s elements: any use of it but an
    element or shape read (or the nodes in ``allowed``)."""
    for stmt in stmts:
        for node in walk(stmt):
            if not (isinstance(node, ast.Name) and node.id == name) or node in allowed:
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.Subscript) and isinstance(parent.ctx, ast.Load):
                continue
            if isinstance(parent, ast.Attribute) and parent.attr in SHAPE_READS:
                continue
            return True
    return False


def _bound(name: str, stmts: list[ast.stmt]) -> bool:
    return any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        for stmt in stmts
        for node in walk(stmt)
    )


def drop_final_zeroings(function: ast.FunctionDef, ranks: dict, numbers=frozenset()) -> bool:
    """Remove, in place, the top-level statements that only zero elements of private
    adjoint buffers (``force_bar[i, 0] = 0.0`` in a loop nest, ``t_bar.fill(0.0)``) which
    no later statement mentions: the reverse of a forward zeroing, last in the reverse
    sweep, leaves values nothing reads. Whether any went. ``ranks``: of the arrays;
    ``numbers``: names that hold a number (the variables of ``range`` loops are numbers too),
    the only names an index may read (a name could hold a slice, which makes a view). An
    index out of bounds raised nothing in compiled code; it no longer does as Python.

    >>> fn = ast.parse('''
    ... def f_vjp(x, n):
    ...     f_bar = np.zeros_like(x)
    ...     x_bar = np.zeros_like(x)
    ...     for i in range(n):
    ...         x_bar[i, 0] += f_bar[i, 0]
    ...     for i in range(n):
    ...         f_bar[i, 0] = 0.0
    ...     return x_bar
    ... ''').body[0]
    >>> drop_final_zeroings(fn, {"x": 2, "f_bar": 2, "x_bar": 2}, frozenset({"n"}))
    True
    >>> print(ast.unparse(fn.body[-1]))
    return x_bar
    """
    if any(isinstance(node, INNER_SCOPES) for node in walk(function)[1:]):
        return False  # a lambda may read the buffer when it is called, later
    integers = frozenset(numbers) | ir.loop_variables(function, over_range=True)
    body, private, removed = function.body, _private_buffers(function, ranks, integers), False
    for index in range(len(body) - 1, -1, -1):
        zeroed = _zeroed_arrays(body[index], integers)
        if not zeroed or not zeroed <= private:
            continue
        later = set().union(*(_mentioned(stmt) for stmt in body[index + 1 :]))
        if zeroed & later or ir.loop_variables(body[index]) & later:
            continue
        del body[index]
        removed = True
    return removed


def _zeroed_arrays(stmt: ast.stmt, integers: frozenset) -> set[str] | None:
    """The arrays ``stmt`` only stores zeros into (a ``for`` nest over ranges of plain
    integer bounds around such stores, ``a.fill(0.0)``), or None when it may do anything
    else (call, bind a name, raise but for an index out of bounds)."""
    if isinstance(stmt, (ast.Pass, Comment)):
        return set()
    if isinstance(stmt, ast.For):
        bounds = stmt.iter.args if ir.is_call(stmt.iter, "range") else None
        plain = bounds is not None and all(_integer_arithmetic(b, integers) for b in bounds)
        if not plain or not isinstance(stmt.target, ast.Name) or stmt.orelse:
            return None
        found: set[str] = set()
        for inner in stmt.body:
            arrays = _zeroed_arrays(inner, integers)
            if arrays is None:
                return None
            found |= arrays
        return found
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func, args = stmt.value.func, stmt.value.args
        filled = isinstance(func, ast.Attribute) and func.attr == "fill"
        if filled and isinstance(func.value, ast.Name) and len(args) == 1 and _zero(args[0]):
            return {func.value.id}
        return None
    if _assigns(stmt) and _zero(stmt.value):
        target = stmt.targets[0]
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            if all(_integer_arithmetic(p, integers) for p in _index_parts(target.slice)):
                return {target.value.id}
    return None


def _zero(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Constant) and type(value.value) in (int, float) and value.value == 0
    )


def _integer_arithmetic(expr: ast.expr, integers: frozenset) -> bool:
    """Whether ``expr`` is ``integers`` (names) and integer constants joined by ``+``,
    ``-`` and ``*`` (nothing to call, bind or raise, no slice)."""
    if isinstance(expr, ast.BinOp):
        joined = isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult))
        sides = (expr.left, expr.right)
        return joined and all(_integer_arithmetic(e, integers) for e in sides)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _integer_arithmetic(expr.operand, integers)
    return (isinstance(expr, ast.Name) and expr.id in integers) or (
        isinstance(expr, ast.Constant) and type(expr.value) is int
    )


def _index_parts(index: ast.expr) -> list[ast.expr]:
    return index.elts if isinstance(index, ast.Tuple) else [index]


def _private_buffers(function: ast.FunctionDef, ranks: dict, integers: frozenset) -> set[str]:
    """Arrays bound once, by ``np.zeros_like(...)`` or ``np.zeros(...)``, not parameters,
    whose every use stores into them, reads one element (a number: no view), fills them,
    reads the shape, or adds into or from them (``add_into``)."""
    bound: dict[str, int] = {}
    made = set()
    for node in walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
        if _assigns(node) and isinstance(node.targets[0], ast.Name) and _zeros(node.value):
            made.add(node.targets[0].id)
    args = function.args
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    candidates = {n for n in made if bound.get(n) == 1 and n not in params}
    parents = _parents(function)
    for node in parents:
        if isinstance(node, ast.Name) and node.id in candidates and isinstance(node.ctx, ast.Load):
            if not _element_use(node, parents, ranks.get(node.id), integers):
                candidates.discard(node.id)
    return candidates


def _element_use(name: ast.Name, parents: dict, rank, integers: frozenset) -> bool:
    """Whether this use of an array's name touches elements or its shape only, so that no
    other name can reach its memory: a store into it, a read of one element of an array of
    ``rank`` axes, ``fill``, a shape query, ``add_into``."""
    parent = parents[name]
    if isinstance(parent, ast.Attribute):
        return parent.attr in SHAPE_READS or parent.attr == "fill"
    if isinstance(parent, ast.Call):
        named = isinstance(parent.func, ast.Name) and parent.func.id == "add_into"
        return named and name in parent.args
    if not (isinstance(parent, ast.Subscript) and parent.value is name):
        return False
    if not isinstance(parent.ctx, ast.Load):
        return True
    parts = _index_parts(parent.slice)
    one = rank is not None and len(parts) == rank
    return one and all(_integer_arithmetic(part, integers) for part in parts)


def _mentioned(stmt: ast.stmt) -> set[str]:
    """Every name ``stmt`` reads or binds."""
    return {n.id for n in walk(stmt) if isinstance(n, ast.Name)}

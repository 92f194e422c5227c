"""Tuples written out in place, as inlining leaves them, become their elements.

A helper's tuple parameter is, once the helper is spliced in, the caller's tuple
written out (``(t3, t4)[k]``) or a name bound to a join of such tuples. This pass
splits those names (``tuples.split_tuple_variables``, run again on the whole call
tree), folds constant indices, slices and lengths of tuples written out, and unrolls
a loop of constant length that indexes one with its variable, so that each element
is a plain variable the adjoint follows:

>>> from ..naming import Namer
>>> node = ast.parse('''
... def f(a, b):
...     t1 = a * 2.0
...     t2 = (t1,) + (b,)
...     s = 0.0
...     for k in range(len((t1, b))):
...         s = s + t2[k] * k
...     return (t1, b)[-1] + s
... ''').body[0]
>>> resolve_tuple_displays(node, Namer.for_tree(node), {"t1", "t2"})
>>> print(ast.unparse(node))
def f(a, b):
    t1 = a * 2.0
    t3 = t1
    t4 = b
    s = 0.0
    k = 0
    s = s + t3 * 0
    k = 1
    s = s + t4 * 1
    return b + s

An index known only at run time (``(t3, t4)[i]`` in a loop of unknown length) is
refused with the user's line: the alternative is a silent zero derivative.
"""

from __future__ import annotations

import ast

from ..astnodes import clone
from ..errors import UnsupportedSyntaxError
from ..ir import located
from .tuples import SplitTuple, as_display, tuple_variables

#: The longest loop over a tuple's elements unrolled; a longer one is refused.
MAX_UNROLLED = 64


def resolve_tuple_displays(node: ast.FunctionDef, namer, temps: set[str]) -> None:
    """Rewrite ``node`` (in place) as in the module docstring; new temporaries of split
    temporaries join ``temps``."""
    while True:  # a tuple of tuples: its elements are tuples once it is split and folded
        elements = {
            name: [_element_name(name, k, namer, temps) for k in range(size)]
            for name, size in tuple_variables(node).items()
        }
        SplitTuple(elements).visit(node)
        node.body = _Resolver(namer, temps).block(node.body, {})
        if not elements:  # each round splits names away: this ends
            break
    _refuse_runtime_indices(node.body)


def refuse_tuple_reads(node: ast.FunctionDef, types) -> None:
    """Once types are known: refuse a read out of a name holding a tuple of floats or
    float arrays (``u = t[0]``, ``for e in t``), which no pass turned into its elements;
    the adjoint would not reach them."""
    for stmt in _simple_statements(node.body):
        for sub in _own_nodes(stmt):
            held = sub.value if isinstance(sub, ast.Subscript) else getattr(sub, "iter", None)
            if isinstance(held, ast.Name) and held.id in types.variables:
                known = types.variables[held.id]
                if known.kind == "tuple" and known.dtype == "float":
                    _refuse(stmt, f"a value is taken out of the tuple '{held.id}' here in a way "
                            "sourcediff cannot follow: unpack the tuple, or index it with a "
                            "constant")  # fmt: skip


def _simple_statements(stmts: list[ast.stmt]):
    for stmt in stmts:
        yield stmt
        for field in ("body", "orelse"):
            yield from _simple_statements(getattr(stmt, field, []))


def _own_nodes(stmt: ast.stmt) -> list[ast.AST]:
    """The nodes of ``stmt`` itself, not of the statements it holds (a ``for`` itself)."""
    own = [stmt]
    for field, value in ast.iter_fields(stmt):
        if field not in ("body", "orelse"):
            own += _walk_field(value)
    return own


def _element_name(name: str, k: int, namer, temps: set[str]) -> str:
    if name not in temps:
        return namer.fresh(f"{name}_{k}")
    temp = namer.temp()
    temps.add(temp)
    return temp


class _Resolver:
    """Folds statement by statement, knowing which names hold an integer constant there
    (``env``: bound to one in the straight line before, not changed since)."""

    def __init__(self, namer, temps: set[str]):
        self.namer, self.temps = namer, temps

    def block(self, stmts: list[ast.stmt], env: dict[str, int]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            changed = _stored(stmt)
            looped = isinstance(stmt, (ast.For, ast.While))  # a test sees later iterations
            _fold_own_expressions(stmt, _without(env, changed) if looped else env)
            values = self._unrolled_values(stmt, env)
            if values is not None:
                out.extend(self.block(_unrolled(stmt, values), env))
                continue
            if looped:  # the body sees the writes of later iterations
                stmt.body = self.block(stmt.body, _without(env, changed))
                stmt.orelse = self.block(stmt.orelse, _without(env, changed))
            elif isinstance(stmt, ast.If):
                stmt.body = self.block(stmt.body, dict(env))
                stmt.orelse = self.block(stmt.orelse, dict(env))
            for name in changed:
                env.pop(name, None)
            value = _bound_constant(stmt, env)
            if value is not None:
                env[stmt.targets[0].id] = value
            out.extend(self._sequential(stmt))
        return out

    def _unrolled_values(self, stmt: ast.stmt, env: dict[str, int]) -> range | None:
        """The values ``k`` takes in a ``for k in range(...)`` of constant bounds that
        indexes a tuple written out with ``k``, when this pass can unroll it."""
        if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name)):
            return None
        k = stmt.target.id
        if not any(_indexes_display(sub) for s in stmt.body for sub in ast.walk(s)):
            return None
        if any(_leaves(s) for s in stmt.body):  # copies would break out of another loop
            return None
        it = stmt.iter
        if not (_is_call(it, "range") and 1 <= len(it.args) <= 3 and not it.keywords):
            return None
        bounds = [int_value(a, env) for a in it.args]
        if None in bounds or 0 in bounds[2:] or k in set().union(*map(_stored, stmt.body)):
            return None
        values = range(*bounds)
        return values if len(values) <= MAX_UNROLLED else None

    def _sequential(self, stmt: ast.stmt) -> list[ast.stmt]:
        """``a, b = (x, y)`` of a split tuple as one assignment per name (through
        temporaries when a name assigned is also read); other tuple assignments, a swap of
        buffers (``u, v = v, u``), are left as later stages know them."""
        if not (
            getattr(stmt, "split_tuple", False)
            and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Tuple)
            and len(stmt.targets[0].elts) == len(stmt.value.elts)
            and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts)
        ):
            return [stmt]
        names = [t.id for t in stmt.targets[0].elts]
        values = stmt.value.elts
        out = []
        if {n.id for v in values for n in ast.walk(v) if isinstance(n, ast.Name)} & set(names):
            held = [self.namer.temp() for _ in values]
            self.temps.update(held)
            out = [_assign(h, v, stmt) for h, v in zip(held, values)]
            values = [ast.Name(h, ast.Load()) for h in held]
        return out + [_assign(n, v, stmt) for n, v in zip(names, values)]


def _fold_own_expressions(stmt: ast.stmt, env: dict[str, int]) -> None:
    """Fold the expressions of ``stmt`` itself, not those of the statements it holds."""
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse"):
            continue
        if isinstance(value, list):
            setattr(stmt, field, [_Fold(env).visit(v) if isinstance(v, ast.AST) else v
                                  for v in value])  # fmt: skip
        elif isinstance(value, ast.AST):
            setattr(stmt, field, _Fold(env).visit(value))


def _stored(stmt: ast.stmt) -> set[str]:
    return {
        n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _without(env: dict[str, int], names: set[str]) -> dict[str, int]:
    return {name: value for name, value in env.items() if name not in names}


def _bound_constant(stmt: ast.stmt, env: dict[str, int]) -> int | None:
    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
        return int_value(stmt.value, env)
    return None


def _assign(name: str, value: ast.expr, where: ast.stmt) -> ast.Assign:
    new = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), where)
    return located(new, where)


def _unrolled(loop: ast.For, values: range) -> list[ast.stmt]:
    """The body of ``loop`` once per value of its variable, that variable a constant in
    each copy, then the loop's ``else``."""
    k = loop.target.id
    out: list[ast.stmt] = []
    for value in values:
        out.append(_assign(k, ast.Constant(value), loop))
        out.extend(_Constant(k, value).visit(clone(s)) for s in loop.body)
    return out + loop.orelse


class _Constant(ast.NodeTransformer):
    def __init__(self, name: str, value: int):
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(self.value), node)
        return node


class _Fold(ast.NodeTransformer):
    """Constant indices, slices and lengths of tuples written out, and their joins; an
    index may be an integer expression of the names ``env`` knows."""

    def __init__(self, env: dict[str, int]):
        self.env = env

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        self.generic_visit(node)
        display = as_display(node.value)
        if display is not None and isinstance(node.ctx, ast.Load):
            index = int_value(node.slice, self.env)
            if index is not None and -len(display.elts) <= index < len(display.elts):
                return display.elts[index]
            whole = as_display(ast.Subscript(display, node.slice, ast.Load()))
            if whole is not None:
                return ast.copy_location(whole, node)
        shape = node.value
        if isinstance(shape, ast.Attribute) and shape.attr == "shape" and _int(node.slice):
            display = as_display(shape.value)
            if display is not None and node.slice.value == 0:  # rows of a tuple: its length
                return ast.copy_location(ast.Constant(len(display.elts)), node)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        display = as_display(node)
        return node if display is None else ast.copy_location(display, node)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if _is_call(node, "len") and len(node.args) == 1:
            display = as_display(node.args[0])
            if display is not None:
                return ast.copy_location(ast.Constant(len(display.elts)), node)
        return node


_ARITHMETIC = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b if b else None,
    ast.Mod: lambda a, b: a % b if b else None,
}


def int_value(node: ast.expr, env: dict[str, int]) -> int | None:
    """The integer ``node`` evaluates to, given the names ``env`` knows; None when it is
    not known here.

    >>> int_value(ast.parse("min(n - 1, 4) % 3").body[0].value, {"n": 3})
    2
    """
    if _int(node):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = int_value(node.operand, env)
        return None if value is None else -value
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = int_value(node.left, env), int_value(node.right, env)
        return None if None in (left, right) else _ARITHMETIC[type(node.op)](left, right)
    if _is_call(node, "min", "max") and node.args and not node.keywords:
        values = [int_value(a, env) for a in node.args]
        return None if None in values else (min if node.func.id == "min" else max)(values)
    if _is_call(node, "len") and len(node.args) == 1 and as_display(node.args[0]) is not None:
        return len(as_display(node.args[0]).elts)
    return None


def _indexes_display(node: ast.AST) -> bool:
    """A tuple written out indexed with a value this pass does not know yet (the loop's
    variable, or a temporary computed from it: ``t9 = k - 1``)."""
    return (
        isinstance(node, ast.Subscript)
        and as_display(node.value) is not None
        and any(isinstance(n, ast.Name) for n in ast.walk(node.slice))
    )


def _leaves(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` breaks out of (or returns from) the loop holding it."""
    if isinstance(stmt, (ast.Break, ast.Return)):
        return True
    if isinstance(stmt, (ast.For, ast.While)):  # its breaks are its own
        return any(isinstance(n, ast.Return) for s in stmt.body for n in ast.walk(s))
    return any(_leaves(s) for field in ("body", "orelse") for s in getattr(stmt, field, []))


def _refuse_runtime_indices(stmts: list[ast.stmt]) -> None:
    for stmt in stmts:
        for field, value in ast.iter_fields(stmt):
            if field in ("body", "orelse"):
                _refuse_runtime_indices(value)
                continue
            index = next((sub for sub in _walk_field(value) if _is_tuple_index(sub)), None)
            if index is not None and not isinstance(index.ctx, ast.Load):
                _refuse(stmt, "this writes into an array through the tuple holding it (a "
                        "helper's parameter): write into the array by its own name")  # fmt: skip
            if index is not None and int_value(index.slice, {}) is not None:
                _refuse(stmt, "this tuple has no element at that index")
            if index is not None:
                _refuse(stmt, "this tuple is indexed with a value known only when the code "
                        "runs: index it with a constant, or loop over range(len(t)) with "
                        "len(t) known and no break or return in the loop")  # fmt: skip


def _refuse(stmt: ast.stmt, reason: str) -> None:
    filename, line = getattr(stmt, "origin", ("", getattr(stmt, "lineno", 0)))
    raise UnsupportedSyntaxError(reason, filename, line)


def _walk_field(value) -> list[ast.AST]:
    nodes = value if isinstance(value, list) else [value]
    return [sub for node in nodes if isinstance(node, ast.AST) for sub in ast.walk(node)]


def _is_tuple_index(node: ast.AST) -> bool:
    return isinstance(node, ast.Subscript) and as_display(node.value) is not None


def _is_call(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int

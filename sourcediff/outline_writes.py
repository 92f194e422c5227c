"""Outline helpers that write their result into an array argument (``outline.py``).

Simulation code computes forces, rates and residuals into a buffer the caller owns::

    def forces(pos, masses, out):
        for i in range(n):
            out[i, 0] = ...

    forces(x, masses, force)            # in each stage of a step

Inlined, each call site gets its own copy of the helper's loops, forward and
reverse. Outlined, the helper must be a function of its arguments, so it is
rewritten to return a new array and its calls to write that array back::

    def forces(pos, masses, out):       # called as an outlined helper
        out_written = np.copy(out)
        for i in range(n):
            out_written[i, 0] = ...
        return out_written

    force_from_forces = forces(x, masses, force)
    force[:] = force_from_forces

The copy keeps what the helper reads of the old contents (an accumulation into
``out`` stays right) and the caller's buffer keeps its identity (a view or an alias
of ``force`` sees the write, as it did). The rewrite applies when the helper writes
into exactly one parameter, a plain name it never rebinds, returns nothing, and its
own helpers write into nothing; and when every call is a statement whose argument
for that parameter is a buffer the caller owns alone (:func:`owned_buffer`). It is
called from three places or more (``outline.WRITE_BACK_CALLS``).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from .astnodes import clone, walk
from .custom_writes import argument_write
from .transform.signature import fresh_call

if TYPE_CHECKING:
    from .parse import ParsedFunction

#: What the copy of a written parameter is called inside the rewritten helper.
WRITTEN_SUFFIX = "_written"


def written_parameter(helper: ParsedFunction, calls: list[ast.Call], callers: list) -> str | None:
    """The one parameter ``helper`` writes into, when the rewrite applies to it and to
    every call in ``calls`` (made by the functions ``callers``; see the module
    docstring); else None.

    >>> from types import SimpleNamespace as Fn
    >>> node = ast.parse("def f(x, out):\\n    out[0] = x[0] * 2.0").body[0]
    >>> caller = ast.parse("def g(a):\\n    b = np.zeros(2)\\n    f(a, b)").body[0]
    >>> helper = Fn(node=node, call_tree=lambda: [Fn(node=node)])
    >>> written_parameter(helper, [caller.body[1].value], [caller])
    'out'
    """
    node = helper.node
    params = [a.arg for a in node.args.args]
    written = [p for p in params if argument_write(node, [p]) is not None]
    if len(written) != 1 or any(isinstance(n, ast.Return) for n in walk(node)):
        return None
    if any(argument_write(fn.node) is not None for fn in helper.call_tree()[1:]):
        return None
    param = written[0]
    if param in _rebound_names(node) or param + WRITTEN_SUFFIX in _all_names(node):
        return None
    position = params.index(param)
    sites = zip(calls, callers)
    return param if all(_written_argument(c, position, f) for c, f in sites) else None


def functional_helper(helper: ParsedFunction, param: str) -> ParsedFunction:
    """A copy of ``helper`` that writes into a copy of ``param`` and returns it."""
    from .parse import Resolved

    node = _Renamed(param, param + WRITTEN_SUFFIX).visit(clone(helper.node))
    copy = ast.parse(f"{param}{WRITTEN_SUFFIX} = np.copy({param})").body[0]
    result = ast.parse(f"return {param}{WRITTEN_SUFFIX}").body[0]
    body = node.body
    first = 1 if body and _is_docstring(body[0]) else 0
    node.body = body[:first] + [copy] + body[first:] + [result]
    for stmt in (copy, result):
        for part in ast.walk(stmt):
            ast.copy_location(part, node)
    names = dict(helper.names)
    names.setdefault("np", Resolved("module", "np"))
    return dataclasses.replace(helper, node=node, names=names)


def numpy_resolves(helper: ParsedFunction) -> bool:
    """Whether ``np`` in ``helper`` would be NumPy (the rewrite adds ``np.copy``)."""
    resolved = helper.names.get("np")
    if "np" in _rebound_names(helper.node) or "np" in _parameters(helper.node):
        return False
    return resolved is None or (resolved.kind == "module" and resolved.path == "np")


def write_back_calls(node: ast.FunctionDef, written: dict[str, tuple[str, int]]) -> None:
    """Rewrite, in place, each statement ``helper(..., buf, ...)`` of ``node`` that calls
    a rewritten helper (``written``: the local name it is called by -> its written
    parameter's name and position) into ``buf_from_helper = helper(...)`` and
    ``buf[:] = buf_from_helper``.

    >>> fn = ast.parse("def g(x, f):\\n    forces(x, f)\\n    return f[0]").body[0]
    >>> write_back_calls(fn, {"forces": ("out", 1)})
    >>> print(ast.unparse(fn))
    def g(x, f):
        f_from_forces = forces(x, f)
        f[:] = f_from_forces
        return f[0]
    """
    taken = _all_names(node)
    for block in _blocks(node):
        for index in range(len(block) - 1, -1, -1):
            stmt = block[index]
            call = stmt.value if isinstance(stmt, ast.Expr) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
                continue
            if call.func.id not in written:
                continue
            buffer = call.args[written[call.func.id][1]].id
            result = _unused(f"{buffer}_from_{call.func.id}", taken)
            bind = ast.Assign([ast.Name(result, ast.Store())], call)
            store = ast.Subscript(ast.Name(buffer, ast.Load()), ast.Slice(), ast.Store())
            back = ast.Assign([store], ast.Name(result, ast.Load()))
            block[index : index + 1] = [_located(bind, stmt), _located(back, stmt)]


def _written_argument(call: ast.Call, position: int, caller: ast.FunctionDef) -> bool:
    """Whether ``call``'s argument at ``position`` names a buffer the caller owns alone
    (:func:`owned_buffer`) and no other argument mentions."""
    if position >= len(call.args) or not isinstance(call.args[position], ast.Name):
        return False
    name = call.args[position].id
    others = [a for k, a in enumerate(call.args) if k != position]
    statement = any(isinstance(s, ast.Expr) and s.value is call for s in ast.walk(caller))
    return (
        statement and owned_buffer(caller, name) and all(name not in _all_names(a) for a in others)
    )


def owned_buffer(caller: ast.FunctionDef, name: str) -> bool:
    """Whether the local ``name`` always holds a new array no other name can reach: each
    binding is a fresh array (``np.zeros``, ``np.empty_like``, ``np.copy``, ``.copy()``),
    and each read is an element read in place (no slice, no name bound to ``buf[i]``: a
    view), its shape, a copy, an operand of arithmetic, or an argument of a call
    statement. Writing the helper's result back into it is then the write the helper
    made, and no other argument of the call shares its memory.

    >>> text = "def g(x):\\n    f = np.zeros(3)\\n    h(x, f)\\n    return f[0] * x"
    >>> owned_buffer(ast.parse(text).body[0], "f")
    True
    >>> fn = ast.parse("def g(x):\\n    f = np.zeros(3)\\n    a = f\\n    h(a, f)").body[0]
    >>> owned_buffer(fn, "f")
    False
    >>> fn = ast.parse("def g(x):\\n    f = np.zeros((3, 2))\\n    r = f[0]\\n    h(r, f)").body[0]
    >>> owned_buffer(fn, "f")
    False
    >>> owned_buffer(ast.parse("def g(x):\\n    h(x, F)").body[0], "F")  # a module's array
    False
    """
    if name in _parameters(caller) or name not in _rebound_names(caller):
        return False  # a parameter, or a module-level array
    parents = {id(c): p for p in ast.walk(caller) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(caller):
        if isinstance(node, ast.Name) and node.id == name:
            parent = parents.get(id(node))
            if not _owned_use(node, parent, parents.get(id(parent))):
                return False
    return True


def _owned_use(node: ast.Name, parent: ast.AST, grandparent: ast.AST) -> bool:
    if isinstance(node.ctx, ast.Store):
        if isinstance(parent, ast.AugAssign):
            return True  # in place
        return isinstance(parent, ast.Assign) and len(parent.targets) == 1 and _fresh(parent.value)
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        return True
    if isinstance(parent, ast.AugAssign):
        return parent.target is node
    if isinstance(parent, ast.Subscript) and parent.value is node:
        # ``row = buf[i]`` may be a view (of a matrix's row), which could reach the call
        # under another name: elements only, read where they are used.
        named = isinstance(grandparent, ast.Assign) and grandparent.value is parent
        named = named and any(isinstance(t, ast.Name) for t in grandparent.targets)
        return not named and not any(isinstance(n, ast.Slice) for n in ast.walk(parent.slice))
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return parent.attr in ("shape", "size", "ndim", "copy")
    return (
        isinstance(parent, ast.Call) and node in parent.args and isinstance(grandparent, ast.Expr)
    )


def _fresh(value: ast.expr) -> bool:
    """Whether ``value`` makes a new array (``transform.signature.fresh_call``, or ``.copy()``)."""
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args:
        return True
    return fresh_call(value)


def _rebound_names(node: ast.FunctionDef) -> set[str]:
    found = set()
    for part in walk(node):
        if isinstance(part, ast.Name) and not isinstance(part.ctx, ast.Load):
            found.add(part.id)
        elif isinstance(part, ast.AugAssign) and isinstance(part.target, ast.Name):
            found.add(part.target.id)
    return found


def _all_names(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return names | {a.arg for a in ast.walk(node) if isinstance(a, ast.arg)}


def _unused(name: str, taken: set[str]) -> str:
    candidate, count = name, 1
    while candidate in taken:
        count += 1
        candidate = f"{name}{count}"
    taken.add(candidate)
    return candidate


def _blocks(node: ast.AST):
    """Every statement list in ``node`` (bodies and else branches, nested)."""
    for part in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(part, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _located(new: ast.stmt, old: ast.stmt) -> ast.stmt:
    for part in ast.walk(new):
        ast.copy_location(part, old)
    return new


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _parameters(node: ast.FunctionDef) -> set[str]:
    return {a.arg for a in node.args.args}


class _Renamed(ast.NodeTransformer):
    """Every ``old`` name as ``new``, parameters excluded."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == self.old:
            return ast.copy_location(ast.Name(self.new, node.ctx), node)
        return node

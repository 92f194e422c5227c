r"""A view passed to a helper that writes into it: copied in, and the copy written back.

``smooth(u[2:], c)`` where ``smooth`` writes into its first parameter changes ``u``
through a second name for its memory, which the derivative cannot follow (the
aliases check refuses it). When nothing else the call is given shares ``u``'s memory
and the helper's result is not that parameter, the call means the same as::

    v = u[2:].copy()
    smooth(v, c)
    u[2:] = v

which writes into ``u`` by its own name. Rows (``kick(vel[i], acc[i], dt)``), columns and
strided slices alike.

>>> import textwrap
>>> from ..naming import Namer
>>> from ..parse import ParsedFunction, Resolved
>>> helper = ast.parse("def smooth(w, c):\n    w[0] = w[1] * c").body[0]
>>> f = ast.parse("def f(u, c):\n    smooth(u[2:], c)\n    return u[3]").body[0]
>>> caller = ParsedFunction("f", "f.py", "", f, {})
>>> caller.names = {"smooth": Resolved("helper", helper=ParsedFunction(
...     "smooth", "f.py", "", helper, {}))}
>>> copy_views_written_by_helpers(caller, f, Namer.for_tree(f, set()))
>>> print(ast.unparse(f))
def f(u, c):
    w = u[2:].copy()
    smooth(w, c)
    u[2:] = w
    return u[3]
"""

from __future__ import annotations

import ast

from ..analysis.sharing import alias_classes, possible_views
from ..astnodes import clone
from ..custom_writes import argument_write
from ..transform.effects import names_written, statement_lists


def copy_views_written_by_helpers(fn, node: ast.FunctionDef, namer) -> None:
    """Rewrite, in place, each helper call of ``node`` (a function of ``fn``'s) that is
    given a view it writes into, as in the module docstring."""
    classes = alias_classes(_without_helper_statements(fn, node))
    counters = _range_counters(node)
    for block in statement_lists(node):
        index = 0
        while index < len(block):
            rewritten = _copied_call(fn, block[index], (classes, counters), namer)
            block[index : index + 1] = rewritten
            index += len(rewritten)


def _copied_call(fn, stmt: ast.stmt, facts: tuple, namer) -> list[ast.stmt]:
    """``stmt`` with its written views copied in and out, or ``[stmt]``; ``facts``: the
    alias classes and the integer loop counters of the function."""
    classes, counters = facts
    found = _one_helper_call(fn, stmt)
    if found is None:
        return [stmt]
    call, helper = found
    params = [a.arg for a in helper.args.args]
    given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
    before, after = [], []
    for param, argument in given:
        base = _viewed_array(argument, counters - names_written(stmt))
        if not base or argument_write(helper, [param]) is None:
            continue
        others = [a for p, a in given if p != param] + _outside(stmt, call)
        returned = call is not getattr(stmt, "value", None) or isinstance(stmt, ast.Assign)
        if (returned and _returns_view_of(helper, param)) or not _unshared(base, others, classes):
            return [stmt]
        held = namer.fresh(param)
        before.append(_located(ast.parse(f"{held} = {ast.unparse(argument)}.copy()"), stmt))
        after.append(_located(ast.parse(f"{ast.unparse(argument)} = {held}"), stmt))
        _replace_argument(call, argument, held)
    return before + [stmt] + after


def _without_helper_statements(fn, node: ast.FunctionDef) -> ast.FunctionDef:
    """A copy of ``node`` whose helper calls join only what they may share: a call made as
    a statement nothing (the alias classes join every name of a call statement, in case it
    stores one argument in another, which a helper cannot do), and ``r = h(a, b)`` ``r``
    with the arguments ``h`` may return a view of."""
    copied = clone(node)
    for block in statement_lists(copied):
        block[:] = [s for s in block if _helper_of(fn, s) is None or not isinstance(s, ast.Expr)]
        block[:] = block or [ast.Pass()]
        for stmt in block:
            helper = _helper_of(fn, stmt)
            if helper is not None:
                stmt.value = ast.Tuple(_returned_arguments(helper, stmt.value), ast.Load())
    return copied


def _helper_of(fn, stmt: ast.stmt):
    """The helper's FunctionDef that ``stmt`` (``h(...)`` or ``r = h(...)``) calls, or None."""
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    return _helper_node(fn, call)


def _helper_node(fn, call) -> ast.FunctionDef | None:
    """The FunctionDef of the user's helper ``call`` calls, or None (not a helper call)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    resolved = fn.names.get(call.func.id)
    return resolved.helper.node if resolved is not None and resolved.kind == "helper" else None


def _one_helper_call(fn, stmt: ast.stmt):
    """``(call, helper)`` for the one helper call of an expression statement or an
    assignment (``x = x + 0.1 * h(u[1:], s)`` too), or None (none, or several)."""
    if not isinstance(stmt, (ast.Expr, ast.Assign, ast.AugAssign)):
        return None
    found = [(n, _helper_node(fn, n)) for n in ast.walk(stmt.value)]
    found = [pair for pair in found if pair[1] is not None]
    return found[0] if len(found) == 1 else None


def _outside(stmt: ast.stmt, call: ast.Call) -> list[ast.expr]:
    """What ``stmt`` evaluates besides ``call``: a read of the viewed array there would see
    the write back at another moment than the helper's own write."""
    inside = {id(n) for n in ast.walk(call)}
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    names = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Name) and id(n) not in inside]
    return [t for t in targets if t is not None] + names


def _returned_arguments(helper: ast.FunctionDef, call: ast.Call) -> list[ast.expr]:
    """The arguments of ``call`` whose parameters ``helper`` may return (a view of)."""
    params = [a.arg for a in helper.args.args]
    given = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords]
    return [a for p, a in given if _returns_view_of(helper, p)]


def _viewed_array(argument: ast.expr, counters: set[str]) -> str:
    """``u`` for a view ``u[...]`` by basic indexing: slices, integers and ``range`` loop
    counters (an index array would give a copy, which the helper's writes never reach
    ``u`` through), else ''."""
    if not (isinstance(argument, ast.Subscript) and isinstance(argument.value, ast.Name)):
        return ""
    parts = argument.slice.elts if isinstance(argument.slice, ast.Tuple) else [argument.slice]
    return argument.value.id if all(_basic(p, counters) for p in parts) else ""


def _basic(part: ast.expr, counters: set[str]) -> bool:
    """An integer or a slice of integers: constants, counters, ``+``/``-`` of them."""
    if isinstance(part, ast.Slice):
        bounds = [b for b in (part.lower, part.upper, part.step) if b is not None]
        return all(_basic(b, counters) for b in bounds)
    if isinstance(part, ast.Constant):
        return type(part.value) is int
    if isinstance(part, ast.Name):
        return part.id in counters
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
        return _basic(part.operand, counters)
    if isinstance(part, ast.BinOp) and isinstance(part.op, (ast.Add, ast.Sub)):
        return _basic(part.left, counters) and _basic(part.right, counters)
    return False


def _range_counters(node: ast.FunctionDef) -> set[str]:
    """Names bound only as ``for`` counters over ``range``: integers wherever read."""
    loops = [
        s
        for s in ast.walk(node)
        if isinstance(s, ast.For)
        and isinstance(s.target, ast.Name)
        and isinstance(s.iter, ast.Call)
        and getattr(s.iter.func, "id", "") == "range"
    ]
    counters = {id(s.target) for s in loops}
    stored = {
        n.id
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in counters
    }
    return {s.target.id for s in loops} - stored


def _unshared(base: str, others: list[ast.expr], classes: dict) -> bool:
    """Whether no other argument names anything that may share ``base``'s memory."""
    sharing = classes.get(base, {base})
    return not any(isinstance(n, ast.Name) and n.id in sharing for a in others for n in ast.walk(a))


def _returns_view_of(helper: ast.FunctionDef, param: str) -> bool:
    """Whether the helper's value may be (a view of) the parameter: then it is not copied."""
    returns = [n.value for n in ast.walk(helper) if isinstance(n, ast.Return) and n.value]
    return any(param in possible_views(value) for value in returns)


def _replace_argument(call: ast.Call, argument: ast.expr, name: str) -> None:
    new = ast.Name(name, ast.Load())
    call.args = [new if a is argument else a for a in call.args]
    for keyword in call.keywords:
        if keyword.value is argument:
            keyword.value = new


def _located(module: ast.Module, where: ast.stmt) -> ast.stmt:
    stmt = module.body[0]
    for node in ast.walk(stmt):
        ast.copy_location(node, where)
    if hasattr(where, "origin"):
        stmt.origin = where.origin
    return stmt

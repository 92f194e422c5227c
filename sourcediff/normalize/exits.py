"""Lower early exits: ``return`` inside control flow, ``break`` and ``continue``.

After this pass a function has one ``return`` (its last statement), loops
contain no ``continue``, and a loop that can stop early ends its body with the
single canonical exit ``if broke: break``. Statements that an exit may skip are
guarded by a flag, so the reverse sweep can replay the exact path taken::

    for i in range(n):                 broke = False
        if s > 3.0:                    for i in range(n):
            break             ->           skip = False
        s = s + x                          if s > 3.0:
    return s                                   broke = True
                                               skip = True
                                           if not skip:
                                               s = s + x
                                           if broke:
                                               break
                                       return s
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ..naming import Namer
from ..parse import ParsedFunction


@dataclass
class _Loop:
    skip: str = ""
    broke: str = ""


@dataclass
class _Function:
    namer: Namer
    fn: object = None
    results: list = None  # one result variable per returned value
    returns_tuple: bool = False
    returned: str = ""


def lower_exits(fn: ParsedFunction, node: ast.FunctionDef, namer: Namer, helper=False):
    """Return ``node`` with early exits lowered to flags (see module docstring).

    A helper may be a procedure (it writes into arrays and returns nothing).
    """
    body = [s for s in node.body if not _is_docstring(s)]
    if helper and not _returns_value(body) and not _always_returns(body):
        body.append(ast.copy_location(ast.Return(None), body[-1] if body else node))
    if not _always_returns(body):
        raise fn.error(
            node, f"'{node.name}' can finish without returning a value; end it with 'return'"
        )
    body = _guards_as_else(body)
    if not _needs_lowering(body):
        node.body = body
        return node
    returns = [n for n in ast.walk(node) if isinstance(n, ast.Return) and n.value is not None]
    state = _Function(namer, fn, [], any(isinstance(r.value, ast.Tuple) for r in returns))
    new_body, _ = _lower_block(body, [], state)
    prologue = []
    if state.returned:
        prologue.append(_assign(state.returned, False, node))
    if not state.results:
        value = None
    elif state.returns_tuple:
        value = ast.Tuple([ast.Name(r, ast.Load()) for r in state.results], ast.Load())
    else:
        value = ast.Name(state.results[0], ast.Load())
    last = ast.Return(value=value)
    ast.copy_location(last, body[-1])
    node.body = prologue + new_body + [last]
    return node


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)


def _guards_as_else(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` with each guard clause outside loops, ``if c: ...; return a`` followed by
    more statements, made an ``if``/``else`` holding those statements.

    Each path then binds the result itself, so no flag skips the rest and the analyses
    see a result bound on every path (a value of the previous call of an inlined helper
    is never live), as a helper with one ``return`` per branch is read::

        >>> body = ast.parse("if s == 0.0:\\n    return x\\ny = x + s\\nreturn y").body
        >>> print(ast.unparse(_guards_as_else(body)))
        if s == 0.0:
            return x
        else:
            y = x + s
            return y
    """
    for index, stmt in enumerate(body):
        if isinstance(stmt, ast.If) and _always_returns(stmt.body):
            stmt.body = _guards_as_else(stmt.body)
            if not stmt.orelse and index + 1 < len(body):
                stmt.orelse = _guards_as_else(body[index + 1 :])
                return body[: index + 1]
    return body


def _returns_value(body: list[ast.stmt]) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for s in body for n in ast.walk(s))


def _always_returns(body: list[ast.stmt]) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return last.value is not None or not _returns_value(body)
    if isinstance(last, ast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, ast.While) and isinstance(last.test, ast.Constant) and last.test.value:
        # 'while True' can only be left by a return (or a break, which falls off).
        return not any(isinstance(n, ast.Break) for n in _own_loop_nodes(last))
    return False


def _own_loop_nodes(loop: ast.While):
    """Nodes of ``loop``'s body that are not inside a nested loop."""
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.For, ast.While)):
            stack.extend(ast.iter_child_nodes(node))


def _needs_lowering(body: list[ast.stmt]) -> bool:
    exits = [
        n for s in body for n in ast.walk(s) if isinstance(n, (ast.Return, ast.Break, ast.Continue))
    ]
    return not (len(exits) == 1 and exits[0] is body[-1])


def _lower_block(stmts, loops: list[_Loop], state: _Function):
    """Lowered statements and the flag that, once set, skips what follows."""
    out: list[ast.stmt] = []
    for index, stmt in enumerate(stmts):
        new, flag = _lower_stmt(stmt, loops, state)
        out.extend(new)
        if flag:
            rest, _ = _lower_block(stmts[index + 1 :], loops, state)
            if rest:
                guard = ast.UnaryOp(op=ast.Not(), operand=ast.Name(flag, ast.Load()))
                out.append(ast.copy_location(ast.If(test=guard, body=rest, orelse=[]), stmt))
            return out, flag
    return out, ""


def _lower_stmt(stmt, loops: list[_Loop], state: _Function):
    if isinstance(stmt, ast.Return):
        return _lower_return(stmt, loops, state)
    if isinstance(stmt, ast.Break):
        loop = loops[-1]
        loop.broke = loop.broke or state.namer.fresh("broke")
        loop.skip = loop.skip or state.namer.fresh("skip")
        return [_assign(loop.broke, True, stmt), _assign(loop.skip, True, stmt)], loop.skip
    if isinstance(stmt, ast.Continue):
        loop = loops[-1]
        loop.skip = loop.skip or state.namer.fresh("skip")
        return [_assign(loop.skip, True, stmt)], loop.skip
    if isinstance(stmt, ast.If):
        body, flag_a = _lower_block(stmt.body, loops, state)
        orelse, flag_b = _lower_block(stmt.orelse, loops, state)
        stmt.body, stmt.orelse = body or [ast.Pass()], orelse
        return [stmt], flag_a or flag_b
    if isinstance(stmt, (ast.For, ast.While)):
        return _lower_loop(stmt, loops, state)
    return [stmt], ""


def _lower_return(stmt: ast.Return, loops: list[_Loop], state: _Function):
    out = []
    if stmt.value is not None:
        values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
        if not state.results:
            state.results = [state.namer.fresh("result") for _ in values]
        if len(values) != len(state.results) or (
            isinstance(stmt.value, ast.Tuple) != state.returns_tuple
        ):
            raise state.fn.error(
                stmt, "every 'return' must give the same number of values; return a, b everywhere"
            )
        for name, value in zip(state.results, values):
            assign = ast.Assign([ast.Name(name, ast.Store())], value)
            out.append(ast.copy_location(assign, stmt))
    state.returned = state.returned or state.namer.fresh("returned")
    out.append(_assign(state.returned, True, stmt))
    for loop in loops:
        loop.broke = loop.broke or state.namer.fresh("broke")
        loop.skip = loop.skip or state.namer.fresh("skip")
        out += [_assign(loop.broke, True, stmt), _assign(loop.skip, True, stmt)]
    return out, (loops[-1].skip if loops else state.returned)


def _lower_loop(stmt, loops: list[_Loop], state: _Function):
    loop = _Loop()
    has_return = any(isinstance(n, ast.Return) for s in stmt.body for n in ast.walk(s))
    body, _ = _lower_block(stmt.body, loops + [loop], state)
    prologue = []
    if loop.skip:
        body.insert(0, _assign(loop.skip, False, stmt))
    if loop.broke:
        prologue.append(_assign(loop.broke, False, stmt))
        exit_test = ast.Name(loop.broke, ast.Load())
        body.append(ast.copy_location(ast.If(test=exit_test, body=[ast.Break()], orelse=[]), stmt))
    stmt.body = body
    if not has_return:
        return prologue + [stmt], ""
    return prologue + [stmt], (loops[-1].skip if loops else state.returned)


def _assign(name: str, value, where: ast.AST) -> ast.Assign:
    node = ast.Assign([ast.Name(name, ast.Store())], ast.Constant(value))
    return ast.copy_location(node, where)

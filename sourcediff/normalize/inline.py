"""Inline the user's helper functions into their callers.

Each call ``r = helper(a, b)`` (or ``p, q = helper(a, b)``) is replaced by the
helper's own normalized body, its names prefixed with the helper's name
(``helper_s``) and its temporaries renumbered, so that the whole call tree
becomes one function: activity, recording and Numba's optimizer then see
across calls, and the generated adjoint needs no calling convention. A
parameter the helper never assigns is replaced by the argument itself. The
inlined statements keep the helper's file and lines for the origin comments.
"""

from __future__ import annotations

import ast

from ..astnodes import clone
from ..naming import Namer
from ..options import is_option_value
from ..parse import ParsedFunction


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, ast.expr]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.expr:
        new = self.names.get(node.id)
        if new is None:
            return node
        if isinstance(node.ctx, ast.Store):
            return ast.copy_location(ast.Name(new.id, ast.Store()), node)
        return ast.copy_location(clone(new), node)


def inline_calls(stmts: list[ast.stmt], caller: ParsedFunction, bodies, namer: Namer, temps):
    """``stmts`` with every helper call replaced by the helper's body.

    ``bodies`` maps a helper's ParsedFunction to its normalized FunctionDef and
    temporaries; ``temps`` collects the temporaries created here.
    """
    out: list[ast.stmt] = []
    for stmt in stmts:
        helper = _helper_call(stmt, caller)
        if helper is not None:
            out.extend(_expand(stmt, helper, bodies[helper.name], namer, temps))
            continue
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                setattr(stmt, field, inline_calls(inner, caller, bodies, namer, temps))
        out.append(stmt)
    return out


def _helper_call(stmt: ast.stmt, caller: ParsedFunction) -> ParsedFunction | None:
    if not (isinstance(stmt, (ast.Assign, ast.Expr)) and isinstance(stmt.value, ast.Call)):
        return None
    func = stmt.value.func
    if not isinstance(func, ast.Name):
        return None
    resolved = caller.names.get(func.id)
    return resolved.helper if resolved is not None and resolved.kind == "helper" else None


def _expand(stmt: ast.Assign, helper: ParsedFunction, normalized, namer: Namer, temps):
    node, helper_temps = normalized
    params = [a.arg for a in node.args.args]
    bound = _bind_arguments(stmt, helper, params)
    assigned = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    names: dict[str, ast.expr] = {}
    prologue: list[ast.stmt] = []
    written_in = {name for name, value in helper.options if is_option_value(value)}
    for param in params:
        if param in assigned and param in written_in:  # its value is in the code already
            names[param] = ast.Name(namer.fresh(f"{helper.name}_{param}"), ast.Load())
        elif param in assigned:
            new = namer.fresh(f"{helper.name}_{param}")
            names[param] = ast.Name(new, ast.Load())
            binding = _located(ast.Assign([ast.Name(new, ast.Store())], bound[param]), stmt)
            binding.parameter_binding = True  # normalize.inplace may merge it (``v -= m``)
            prologue.append(binding)
        else:
            names[param] = bound[param]
    for local in sorted(assigned - set(params)):
        if local in helper_temps:
            new = namer.temp()
            temps.add(new)
        else:
            new = namer.fresh(f"{helper.name}_{local}")
        names[local] = ast.Name(new, ast.Load())
    body = [_Rename(names).visit(clone(s)) for s in node.body]
    result = body.pop()
    return prologue + body + _bind_result(stmt, result, helper, namer, temps)


def _bind_arguments(stmt: ast.Assign, helper: ParsedFunction, params: list[str]):
    call = stmt.value
    if len(call.args) > len(params):
        raise helper.error(stmt, f"'{helper.name}' takes {len(params)} arguments")
    bound = dict(zip(params, call.args))
    for kw in call.keywords:
        if kw.arg not in params or kw.arg in bound:
            raise helper.error(stmt, f"bad keyword argument '{kw.arg}' for '{helper.name}'")
        bound[kw.arg] = kw.value
    for param in params:
        if param not in bound:
            if param not in helper.defaults:
                raise helper.error(stmt, f"missing argument '{param}' for '{helper.name}'")
            bound[param] = ast.Constant(helper.defaults[param])
    return bound


def _bind_result(stmt, result: ast.Return, helper, namer: Namer, temps):
    if isinstance(stmt, ast.Expr):
        return []  # called for its writes into arrays; any value is dropped
    target = stmt.targets[0]
    value = result.value
    if value is None:
        raise helper.error(stmt, f"'{helper.name}' returns no value; call it as a statement")
    if isinstance(target, ast.Name):
        if isinstance(value, ast.Tuple):
            raise helper.error(stmt, f"'{helper.name}' returns a tuple; unpack it: a, b = ...")
        return [_located(ast.Assign([target], value), stmt)]
    names = [e.id for e in target.elts]
    if not isinstance(value, ast.Tuple) or len(value.elts) != len(names):
        raise helper.error(
            stmt,
            f"cannot unpack the result of '{helper.name}' into {len(names)}: it must end with "
            f"'return a, b' giving {len(names)} values (not a tuple kept in a variable)",
        )
    out, atoms = [], []
    for atom in value.elts:
        if isinstance(atom, ast.Name) and atom.id in names:
            temp = namer.temp()
            temps.add(temp)
            out.append(_located(ast.Assign([ast.Name(temp, ast.Store())], atom), stmt))
            atom = ast.Name(temp, ast.Load())
        atoms.append(atom)
    for name, atom in zip(names, atoms):
        out.append(_located(ast.Assign([ast.Name(name, ast.Store())], atom), stmt))
    return out


def _located(node: ast.stmt, where: ast.stmt) -> ast.stmt:
    ast.copy_location(node, where)
    node.origin = where.origin
    return node

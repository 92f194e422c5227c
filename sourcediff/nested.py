"""Nested functions and named lambdas become helpers of their own (lambda lifting).

A ``def`` or a ``name = lambda ...`` in a function's top-level body, used only by
calling it, is taken out of the body and becomes a helper whose extra parameters are
the enclosing function's variables it reads. Each call passes their values at the
time of the call, which is what a Python closure reads too (closures bind late)::

    def f(x, k):                          def f(x, k):
        def rate(u):                          return rate(x, k=k) * 2.0
            return -k * u          ->
        return rate(x) * 2.0              def f_rate(u, k):   # called as 'rate' in f
                                              return -k * u

Helpers then go through the same stages as module-level ones (they are inlined).

    >>> import ast
    >>> tree = ast.parse("def f(x, k):\\n    g = lambda u: -k * u\\n    return g(x) * 2.0")
    >>> lifted = lift_nested_functions(tree.body[0], "example.py")
    >>> print(ast.unparse(tree.body[0]))
    def f(x, k):
        return g(x, k=k) * 2.0
    >>> print(ast.unparse(lifted["g"].node))
    def f_g(u, k):
        return -k * u
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .errors import UnsupportedSyntaxError


@dataclass
class LiftedFunction:
    """A nested function as a helper: ``node`` is named ``name``; the caller says ``local``."""

    name: str
    local: str
    node: ast.FunctionDef
    defaults: dict[str, object]


def lift_nested_functions(node: ast.FunctionDef, filename: str) -> dict[str, LiftedFunction]:
    """Take the nested functions out of ``node`` (in place); the lifted ones by local name."""
    nested = _nested_definitions(node, filename)
    if not nested:
        return {}
    node.body = [s for s in node.body if not _is_definition(s)]
    _check_only_called(node, nested, filename)
    outer_locals = _assigned_names(node)
    extras = _extra_parameters(nested, outer_locals, filename)
    lifted = {}
    for local, inner in nested.items():
        defaults = _constant_defaults(inner, filename)
        inner.args.args += [ast.arg(name) for name in extras[local]]
        _check_only_called(inner, nested, filename)
        _pass_extras(inner, extras)
        inner.name = f"{node.name}_{local}"
        lifted[local] = LiftedFunction(inner.name, local, inner, defaults)
    _pass_extras(node, extras)
    return lifted


def _is_definition(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.FunctionDef):
        return True
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Lambda)
    )


def _nested_definitions(node: ast.FunctionDef, filename: str) -> dict[str, ast.FunctionDef]:
    """The top-level nested definitions, as FunctionDefs (a lambda gets a ``return``)."""
    found: dict[str, ast.FunctionDef] = {}
    for stmt in node.body:
        if not _is_definition(stmt):
            continue
        if isinstance(stmt, ast.Assign):
            lam = stmt.value
            name = stmt.targets[0].id
            body = [ast.copy_location(ast.Return(lam.body), lam.body)]
            stmt = ast.copy_location(ast.FunctionDef(name, lam.args, body, [], None), stmt)
            stmt.end_lineno = lam.end_lineno
        if stmt.decorator_list:
            raise _error(filename, stmt, "a decorated nested function is not supported")
        if stmt.name in found:
            raise _error(filename, stmt, f"the nested function '{stmt.name}' is defined twice")
        found[stmt.name] = stmt
    return found


def _check_only_called(node: ast.FunctionDef, nested: dict, filename: str) -> None:
    """Refuse a nested function used as a value, rebound, or calling itself."""
    called = {
        id(sub.func)
        for sub in ast.walk(node)
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
    }
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Name) and sub.id in nested):
            continue
        if sub.id == node.name:
            raise _error(filename, sub, f"recursive call to '{sub.id}' is not supported")
        if not isinstance(sub.ctx, ast.Load) or id(sub) not in called:
            raise _error(
                filename, sub, f"the nested function '{sub.id}' can only be called by name here"
            )


def _assigned_names(node: ast.FunctionDef) -> set[str]:
    """Parameters and every name the function assigns."""
    names = {a.arg for a in node.args.args}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
    return names


def _extra_parameters(nested: dict, outer_locals: set[str], filename: str) -> dict[str, list]:
    """For each nested function, the enclosing variables it reads, directly or through
    the nested functions it calls (a fixed point over the call graph)."""
    free = {}
    calls = {}
    for local, inner in nested.items():
        own = _assigned_names(inner)
        loads = {
            sub.id for sub in ast.walk(inner) if isinstance(sub, ast.Name) and sub.id not in own
        }
        free[local] = (loads & outer_locals) - set(nested)
        calls[local] = loads & set(nested)
    changed = True
    while changed:
        changed = False
        for local in nested:
            for callee in calls[local]:
                if not free[callee] <= free[local]:
                    free[local] |= free[callee]
                    changed = True
    return {local: sorted(names) for local, names in free.items()}


def _pass_extras(node: ast.FunctionDef, extras: dict[str, list]) -> None:
    """Every call to a nested function in ``node`` also passes its extra parameters."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in extras:
            given = {k.arg for k in sub.keywords}
            sub.keywords += [
                ast.keyword(name, ast.Name(name, ast.Load()))
                for name in extras[sub.func.id]
                if name not in given
            ]


def _constant_defaults(inner: ast.FunctionDef, filename: str) -> dict[str, object]:
    """Default values of a nested function's parameters: number constants only."""
    args = inner.args
    if args.kw_defaults and any(d is not None for d in args.kw_defaults):
        raise _error(filename, inner, "keyword-only parameters are not supported; use plain ones")
    named = args.args[len(args.args) - len(args.defaults) :]
    defaults = {}
    for param, default in zip(named, args.defaults):
        if not (isinstance(default, ast.Constant) and isinstance(default.value, (int, float))):
            raise _error(filename, default, "a nested function's defaults must be number constants")
        defaults[param.arg] = default.value
    return defaults


def _error(filename: str, node: ast.AST, reason: str) -> UnsupportedSyntaxError:
    line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
    return UnsupportedSyntaxError(reason, filename, line, col)

"""One call of a rule function for all of a statement's adjoint terms.

A row whose adjoints come from a function (a ``sd.custom_vjp`` rule's ``bwd``, an
outlined helper's vjp) gives each argument's term as one entry of that
function's tuple, so the reverse of ``k = rhs(u, d)`` calls it once per
argument. These functions are pure (they write into no argument: custom.py and
outline.py refuse or inline those that would), so consecutive statements may
share one call, bound once:

    >>> fn = ast.parse('''
    ... def f_vjp(u, d, k_bar, u_bar, d_bar):
    ...     add_into(u_bar, rhs_vjp(u, d, k_bar)[0])
    ...     d_bar += rhs_vjp(u, d, k_bar)[1]
    ... ''').body[0]
    >>> share_rule_calls(fn, {"rhs_vjp"})
    >>> print(ast.unparse(fn.body))
    rhs_parts = rhs_vjp(u, d, k_bar)
    add_into(u_bar, rhs_parts[0])
    d_bar += rhs_parts[1]

A statement between two calls that changes what the call reads (a name it
binds, an array it writes into or passes to a call) ends the run.
"""

from __future__ import annotations

import ast

from ..astnodes import names_read, names_written, walk
from ..naming import Namer
from .effects import is_pure_call, statement_lists


def share_rule_calls(function: ast.FunctionDef, functions: set[str]) -> None:
    """Bind, in place, each call of ``functions`` that consecutive statements repeat."""
    if not functions:
        return
    namer = Namer.for_tree(function)
    for block in statement_lists(function):
        index = 0
        while index < len(block):
            index += _share_from(block, index, functions, namer)


def _share_from(block: list[ast.stmt], start: int, functions: set[str], namer: Namer) -> int:
    """Share the first rule call of ``block[start]`` with the statements that follow;
    how many statements were passed (the binding included)."""
    call = next((c for c in _rule_calls(block[start], functions)), None)
    if call is None:
        return 1
    key, reads = ast.dump(call), names_read(call)
    end = start + 1
    while end < len(block) and key in map(ast.dump, _rule_calls(block[end], functions)):
        if _changed(block[end - 1], functions) & reads:
            break
        end += 1
    if end - start < 2:
        return 1
    name = namer.fresh(f"{call.func.id.removesuffix('_vjp')}_parts")
    for stmt in block[start:end]:
        _replace(stmt, key, name)
    binding = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], call), block[start])
    if hasattr(block[start], "origin"):  # the user's line, for its comment
        binding.origin = block[start].origin
    block.insert(start, binding)
    return end - start + 1


def _rule_calls(stmt: ast.stmt, functions: set[str]):
    for node in walk(stmt):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in functions:
                yield node


def _changed(stmt: ast.stmt, functions: set[str]) -> set[str]:
    """Names ``stmt`` binds, writes into (``a[i] = ..``), or passes to an impure call
    (the rule ``functions`` are pure)."""
    changed = names_written(stmt)
    for node in walk(stmt):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            changed |= names_read(node.value)
        pure = isinstance(node, ast.Call) and (
            is_pure_call(node) or isinstance(node.func, ast.Name) and node.func.id in functions
        )
        if isinstance(node, ast.Call) and not pure:
            changed |= {a.id for a in node.args if isinstance(a, ast.Name)}
            if isinstance(node.func, ast.Attribute):
                changed |= names_read(node.func.value)  # a method's receiver
    return changed


def _replace(stmt: ast.stmt, key: str, name: str) -> None:
    """Every call dumped as ``key`` in ``stmt`` becomes ``name``."""
    for node in walk(stmt):
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.AST) and ast.dump(value) == key:
                setattr(node, field, ast.Name(name, ast.Load()))
            elif isinstance(value, list):
                value[:] = [
                    ast.Name(name, ast.Load())
                    if isinstance(v, ast.AST) and ast.dump(v) == key
                    else v
                    for v in value
                ]

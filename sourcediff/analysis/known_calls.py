"""Calls whose value a number already holds, so that an adjoint reads it instead.

A rule's partial may be a function the primal computes too: the adjoint of
``s = math.sin(x)`` reads ``math.cos(x)``, and a rotation (Rodrigues', a
pendulum's, a rotation matrix's) computes ``c = math.cos(x)`` just before. This
analysis marks each statement with the calls whose value a name holds *at that
statement* (``stmt.known_calls``, a call's text to the name and its operands), and
:mod:`sourcediff.adjoint_terms` reads the name in place of the call. The
reverse sweep reads an adjoint's names with the values they had at the statement
(the to-be-recorded analysis sees ``c`` among the reads: that is what makes the
substitution exact), so the only fact needed is the forward one: ``c`` was bound
to the same call of the same operands earlier in the block, or in an enclosing
one, and neither ``c`` nor an operand was bound again since.

Only numbers are followed (a float bound to a call of ``math`` or ``np`` on
names and constants): a local number is never written through another name, so
no aliasing can change it behind the analysis's back.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(t):
    ...     c = math.cos(t)
    ...     s = math.sin(t)
    ...     if s > 0.0:
    ...         t = t * 2.0
    ...         r = math.sin(t)
    ...     return c * s
    ... ''').body[0]
    >>> types = TypeTable({n: VarType("float", "float64") for n in "tcsr"}, VarType("float"))
    >>> mark_known_calls(node, types)
    >>> node.body[1].known_calls
    {'math.cos(t)': ('c', frozenset({'t'}))}
    >>> hasattr(node.body[2].body[1], "known_calls")  # t was bound again: nothing holds it
    False
"""

from __future__ import annotations

import ast

from ..astnodes import names_read, names_written
from ..rules import call_path

MODULES = ("math.", "np.")


def mark_known_calls(node: ast.FunctionDef, types) -> None:
    """Set ``known_calls`` on each call statement of ``node`` that some name's value
    already equals a call of (module docstring); other statements are left alone."""
    _block(node.body, {}, types)


def call_key(call: ast.expr) -> str | None:
    """The text that identifies ``call`` as a value: a ``math``/``np`` function of names
    and constants (``'math.cos(t)'``), or None for anything else."""
    if not isinstance(call, ast.Call) or call.keywords:
        return None
    if not call_path(call.func).startswith(MODULES):
        return None
    if not all(isinstance(a, (ast.Name, ast.Constant)) for a in call.args):
        return None
    return ast.unparse(call)


def substitute_known(expr: ast.expr, known: dict | None) -> ast.expr:
    """``expr`` with each call whose value a name holds (``known``: a call's text to the
    name and the call's operands) replaced by the name.

    >>> call = ast.parse("-math.sin(t) * g", mode="eval").body
    >>> ast.unparse(substitute_known(call, {"math.sin(t)": ("s", {"t"})}))
    '-s * g'
    """
    if not known:
        return expr
    key = call_key(expr)
    if key in known:
        return ast.Name(known[key][0], ast.Load())
    for field, value in ast.iter_fields(expr):
        if isinstance(value, ast.expr):
            setattr(expr, field, substitute_known(value, known))
        elif isinstance(value, list):
            value[:] = [substitute_known(v, known) if isinstance(v, ast.expr) else v for v in value]
    return expr


def known_after(stmt: ast.Assign) -> dict:
    """The calls ``stmt.known_calls`` names that still hold after ``stmt`` has run (its
    target is neither their holder nor an operand): what a tangent emitted after the
    primal statement may read."""
    target = names_written(stmt.targets[0])
    return {
        key: (name, operands)
        for key, (name, operands) in getattr(stmt, "known_calls", {}).items()
        if name not in target and not operands & target
    }


def _block(stmts: list[ast.stmt], known: dict, types) -> None:
    """Walk ``stmts`` forwards; ``known`` (a call's text to the name holding its value
    and the call's operands) becomes what holds after them."""
    for stmt in stmts:
        if isinstance(stmt, ast.Assign):
            _assign(stmt, known, types)
            continue
        written = names_written(stmt)
        if isinstance(stmt, (ast.For, ast.While)):
            _forget(known, written)  # an iteration's entry: what any iteration leaves
        for branch in ("body", "orelse"):
            _block(getattr(stmt, branch, []), dict(known), types)
        _forget(known, written)


def _assign(stmt: ast.Assign, known: dict, types) -> None:
    if isinstance(stmt.value, ast.Call) and known:
        stmt.known_calls = dict(known)
    _forget(known, names_written(stmt))
    target = stmt.targets[0]
    key = call_key(stmt.value)
    if key is None or not isinstance(target, ast.Name) or types[target.id].kind != "float":
        return
    operands = frozenset(names_read(stmt.value) - {"math", "np"})
    if target.id not in operands and all(types[n].kind in ("float", "int") for n in operands):
        known.setdefault(key, (target.id, operands))


def _forget(known: dict, written: set[str]) -> None:
    """Drop what a binding of ``written`` changes: the holder, or an operand."""
    for key, (name, operands) in list(known.items()):
        if name in written or operands & written:
            del known[key]

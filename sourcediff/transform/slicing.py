"""Keep only what a function's result depends on (a backward slice): for the counting
function, and for an outlined helper's vjp, which returns the adjoints alone.

The counting function (``f_record_bytes``: what ``sd.tape_size`` reports and what
policy "auto" plans from) is the primal with ``recorded_bytes += 8`` where the
derivative records. Most of the primal's work never reaches those counts: the
stores into arrays whose contents no branch, trip count or size reads. Slicing
them away makes the function that "auto" compiles and runs at its first call a
fraction of the primal.

The slice is flow-insensitive and conservative. A name is needed for its *value*
(an array's contents) or only for its *binding* (read through ``.shape``,
``.nbytes``, ``.ndim``, ``len``). A statement stays when it binds a needed name,
stores into (or calls a method of, or passes to a call) an array whose value is
needed, or jumps, returns or raises; a loop or branch stays when anything inside it
stays, and what it tests or iterates over is then needed for its value. Names that
may share memory (``w = x[1:]``, ``u, v = v, u``) are needed together.

    >>> fn = ast.parse('''
    ... def f_record_bytes(x, steps):
    ...     recorded_bytes = 0
    ...     u = np.copy(x)
    ...     for _ in range(steps):
    ...         for i in range(1, u.shape[0]):
    ...             recorded_bytes += 8
    ...             u[i] = u[i - 1] * 0.5
    ...     return recorded_bytes
    ... ''').body[0]
    >>> print(ast.unparse(slice_to_result(fn)))
    def f_record_bytes(x, steps):
        recorded_bytes = 0
        u = np.copy(x)
        for _ in range(steps):
            for i in range(1, u.shape[0]):
                recorded_bytes += 8
        return recorded_bytes
"""

from __future__ import annotations

import ast

from ..analysis.sharing import SHAPE_ATTRIBUTES, alias_classes, called_name, every_name
from ..astnodes import walk
from ..codegen import Comment
from .effects import is_pure, names_written

#: Calls that read only the shape and type of their first argument.
SHAPE_READERS = frozenset({"len", "zeros_like", "empty_like", "ones_like"})


class _Needs:
    """Names needed for their value, and for their binding only."""

    def __init__(self, aliases: dict[str, set[str]]):
        self.values: set[str] = set()
        self.bindings: set[str] = set()
        self.aliases = aliases

    def add_reads(self, node: ast.AST) -> None:
        """Everything ``node`` reads: through a shape attribute or ``len``, the binding."""
        shape_only = set()
        for sub in walk(node):
            if isinstance(sub, ast.Attribute) and sub.attr in SHAPE_ATTRIBUTES:
                shape_only.add(id(sub.value))
            elif called_name(sub) in SHAPE_READERS and sub.args:
                shape_only.add(id(sub.args[0]))
        for sub in walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                (self.bindings if id(sub) in shape_only else self.values).add(sub.id)

    def add_binding_reads(self, value: ast.expr) -> None:
        """What ``value`` reads when only the shape of its result is needed."""
        if isinstance(value, ast.Name):
            self.bindings.add(value.id)
        elif isinstance(value, (ast.Tuple, ast.List)):
            for element in value.elts:
                self.add_binding_reads(element)
        elif isinstance(value, ast.Subscript):
            self.add_binding_reads(value.value)
            self.add_reads(value.slice)
        else:
            self.add_reads(value)

    def value_needed(self, name: str) -> bool:
        return any(other in self.values for other in self.aliases.get(name, {name}))

    def binding_needed(self, name: str) -> bool:
        return name in self.bindings or self.value_needed(name)


def slice_to_result(function: ast.FunctionDef) -> ast.FunctionDef:
    """``function`` (changed in place) without the statements its result does not need."""
    aliases = alias_classes(function)
    needs = _Needs(aliases)
    while True:
        before = (len(needs.values), len(needs.bindings))
        _mark(function.body, needs)
        if (len(needs.values), len(needs.bindings)) == before:
            break
    function.body = _kept(function.body, needs) or [ast.Pass()]
    return function


def _mark(stmts: list[ast.stmt], needs: _Needs) -> bool:
    """Add the reads of every statement that stays; whether any stays."""
    any_kept = False
    for stmt in stmts:
        if _stays(stmt, needs):
            any_kept = True
    return any_kept


def _stays(stmt: ast.stmt, needs: _Needs) -> bool:
    if isinstance(stmt, (ast.For, ast.While, ast.If)):
        inner = _mark(stmt.body, needs) | _mark(stmt.orelse, needs)
        if inner:
            needs.add_reads(stmt.iter if isinstance(stmt, ast.For) else stmt.test)
        return inner
    if isinstance(stmt, (ast.Pass, Comment)):
        return False
    if not _needed_here(stmt, needs):
        return False
    if isinstance(stmt, ast.Assign) and not _value_needed(stmt.targets, needs):
        needs.add_binding_reads(stmt.value)  # u, v = v, u for u.shape: no contents
        for target in stmt.targets:
            needs.add_reads(target)
    else:
        needs.add_reads(stmt)
    return True


def _value_needed(targets: list[ast.expr], needs: _Needs) -> bool:
    bound = [names_written(t) for t in targets]
    plain = all(isinstance(t, (ast.Name, ast.Tuple, ast.List)) for t in targets)
    return not plain or any(needs.value_needed(n) for names in bound for n in names)


def _needed_here(stmt: ast.stmt, needs: _Needs) -> bool:
    if isinstance(stmt, (ast.Return, ast.Break, ast.Continue, ast.Raise, ast.Assert)):
        return True
    if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        if stmt.value is not None and not _pure_value(stmt.value):
            return True  # a call that may change its arguments (a user's helper)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        return any(_target_needed(t, needs) for t in targets)
    if isinstance(stmt, ast.Expr):  # a call: it may write into any array it is given
        return any(needs.value_needed(n) for n in every_name(stmt.value)) or _unknown_call(stmt)
    return True  # anything else (with, try, delete, nested functions): keep


def _pure_value(value: ast.expr) -> bool:
    """Whether ``value`` changes nothing: a pure expression, or a call of an outlined
    helper (``outlined.prepare_outlined`` marks it; outlined helpers write into none of
    their arguments) on pure arguments."""
    if isinstance(value, ast.Call) and getattr(value, "helper_module", None) is not None:
        return all(is_pure(a) for a in value.args) and not value.keywords
    return is_pure(value)


def _target_needed(target: ast.expr, needs: _Needs) -> bool:
    if isinstance(target, ast.Name):
        return needs.binding_needed(target.id)
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_target_needed(t, needs) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _target_needed(target.value, needs)
    base = _base_name(target)  # a store into an element, slice or attribute
    return base is None or needs.value_needed(base)


def _unknown_call(stmt: ast.Expr) -> bool:
    """A call whose arguments are not plain names may write anywhere: keep it."""
    return not isinstance(stmt.value, ast.Call)


def _kept(stmts: list[ast.stmt], needs: _Needs) -> list[ast.stmt]:
    out = []
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.While, ast.If)):
            body, orelse = _kept(stmt.body, needs), _kept(stmt.orelse, needs)
            if body or orelse:
                stmt.body, stmt.orelse = body or [ast.Pass()], orelse
                out.append(stmt)
        elif not isinstance(stmt, (ast.Pass, Comment)) and _needed_here(stmt, needs):
            out.append(stmt)
    return out


def _base_name(target: ast.expr) -> str | None:
    while isinstance(target, (ast.Subscript, ast.Attribute)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None

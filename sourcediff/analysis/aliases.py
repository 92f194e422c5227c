"""Refuse writes through a second name for the same array.

``b = a``, a slice ``b = a[1:-1]``, ``a.T``, ``a.reshape(...)`` or a helper
returning its argument make ``b`` share memory with ``a``. The derivative
treats the two names as separate values, which is exact only while neither
is written in place during the other's use. So writing into an alias, or
writing into an array while an alias of it is still to be read, is refused
with the user's line and the fix (write into the array itself, or take a
copy), never differentiated wrongly. Swaps ``u, v = v, u`` exchange names
and are not aliases.
"""

from __future__ import annotations

import ast
import re

from .. import ir, rules
from ..astnodes import walk
from ..errors import UnsupportedSyntaxError
from .liveness import live_after_writes
from .types import TypeTable

VIEWS = {"np.reshape", "np.ravel", "np.transpose", "np.flip", "np.expand_dims", "np.diag"}
VIEWS |= {"np.atleast_1d", "np.atleast_2d", "np.atleast_3d", "np.squeeze"}


def _base(value: ast.expr, types: TypeTable) -> str:
    """The array ``value`` may share memory with, or ''."""
    if isinstance(value, ast.Name) and types[value.id].kind == "array":
        return value.id
    if ir.is_element_read(value) and types[value.value.id].kind == "array":
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        gathered = any(isinstance(p, ast.Name) and types[p.id].kind == "array" for p in parts)
        if any(isinstance(p, ast.Slice) for p in parts) and not gathered:  # an index array
            return value.value.id  # or a mask makes a copy, whatever else indexes
    if isinstance(value, ast.Call) and rules.call_path(value.func) in VIEWS and value.args:
        first = value.args[0]
        return first.id if isinstance(first, ast.Name) else ""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        if types[value.value.id].kind == "tuple":  # t[0]: one of the arrays t holds
            return value.value.id
    return ""


def _held(value: ast.expr, types: TypeTable) -> set[str]:
    """The names whose arrays a tuple value may hold: ``(a, b[1:])``, ``t5 + t6`` of two
    tuples (or a tuple repeated), another tuple's name."""
    if isinstance(value, ast.Tuple):
        return {base for e in value.elts for base in [_base(e, types)] if base}
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Mult)):
        return _held(value.left, types) | _held(value.right, types)
    if isinstance(value, ast.Name) and types[value.id].kind == "tuple":
        return {value.id}
    return set()


def check_aliasing(node: ast.FunctionDef, types: TypeTable, filename: str) -> None:
    r"""Raise UnsupportedSyntaxError at a write that an alias would make wrong.

    Flow-sensitive: ``u = y`` makes the two names share memory only until one of
    them is rebound, so a time loop that writes a fresh ``y`` each step and then
    rebinds ``u = y`` is accepted.

    >>> f = ast.parse(
    ...     "def f(u):\n"
    ...     "    for _ in range(3):\n"
    ...     "        y = np.copy(u)\n"
    ...     "        y[0] = 1.0\n"
    ...     "        u = y\n"
    ...     "    return u"
    ... ).body[0]
    >>> check_aliasing(f, _ArraysOnly(), "m.py")  # y is fresh where it is written
    >>> f.body[0].body.insert(0, ast.parse("v = u").body[0])
    >>> f.body.insert(1, ast.parse("v[1] = 0.0").body[0])
    >>> f.body.insert(2, ast.parse("w = u + v").body[0])
    >>> try:
    ...     check_aliasing(f, _ArraysOnly(), "m.py")
    ... except UnsupportedSyntaxError as exc:
    ...     print(str(exc).split(",")[0])
    m.py:1: 'v' is written in place while 'u'
    """
    walker = _MayAlias(types)
    walker.walk(node.body, frozenset())
    views = _view_targets(node, types)
    live = live_after_writes(node)
    for stmt in walk(node):
        if not ir.is_element_write(stmt):
            continue
        written = ir.target_name(stmt)
        sharing = {n for pair in walker.before.get(id(stmt), ()) if written in pair for n in pair}
        still_used = sorted((sharing - {written}) & live[id(stmt)])
        if not still_used:
            continue  # no other name for this memory is read afterwards
        where = getattr(stmt, "origin", (filename, getattr(stmt, "lineno", 0)))
        other = still_used[0]
        view = written if written in views else other
        user = _written_as(node)
        written, other, view = (user.get(n, n) for n in (written, other, view))
        raise UnsupportedSyntaxError(
            f"'{written}' is written in place while '{other}', which shares its memory (another "
            f"name, a slice or a reshape), is used later; sourcediff treats them as separate "
            f"values, so make '{view}' a copy with .copy() or write into one name only",
            *where,
        )


def _written_as(node: ast.FunctionDef) -> dict[str, str]:
    """What the user wrote for the fresh names sourcediff gave to expressions: the sequence
    ``u[:-1]`` of ``zip(u[:-1], u[1:])`` is named ``items`` (normalize.iteration), a view
    ``u[2:]`` passed to a helper a temporary ``t1``."""
    found, views, copies = {}, {}, {}
    for stmt in walk(node):
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
            continue
        name, named = stmt.targets[0].id, getattr(stmt, "written_as", None)
        if named and name == named[0]:
            found[name] = named[1]
        elif re.fullmatch(r"t\d+", name) and isinstance(stmt.value, ast.Subscript):
            views.setdefault(name, []).append(ast.unparse(stmt.value))  # ``u[2:]`` passed on
        elif re.fullmatch(r"t\d+", name) and isinstance(stmt.value, ast.Name):
            copies.setdefault(name, []).append(stmt.value.id)  # a tuple assignment's parts
    written = {n: v[0] for n, v in views.items() if len(v) == 1} | found
    for name, sources in copies.items():
        if len(sources) == 1 and sources[0] in written:
            written.setdefault(name, written[sources[0]])
    return written


def _view_targets(node: ast.FunctionDef, types: TypeTable) -> set[str]:
    """Names ever bound to another array's memory (the one to suggest copying)."""
    return {
        stmt.targets[0].id
        for stmt in walk(node)
        if isinstance(stmt, ast.Assign)
        and isinstance(stmt.targets[0], ast.Name)
        and types[stmt.targets[0].id].kind == "array"
        and _base(stmt.value, types) not in ("", stmt.targets[0].id)
    }


Pairs = frozenset  # of frozenset({a, b}): names that may share memory


class _MayAlias:
    """May-alias pairs before each element write, by a forward dataflow walk; a loop is
    iterated to a fixed point over every state seen in its body (which also covers
    ``break`` and ``continue``)."""

    def __init__(self, types: TypeTable):
        self.types = types
        self.before: dict[int, Pairs] = {}

    def walk(self, stmts: list[ast.stmt], state: Pairs) -> tuple[Pairs, Pairs]:
        """``(state after, union of every state inside)``."""
        seen = state
        for stmt in stmts:
            state, inner = self.stmt(stmt, state)
            seen = seen | inner | state
        return state, seen

    def stmt(self, stmt: ast.stmt, state: Pairs) -> tuple[Pairs, Pairs]:
        if isinstance(stmt, (ast.For, ast.While)):
            head = state
            while True:
                _, seen = self.walk(stmt.body, head)
                if seen <= head:
                    break
                head = head | seen
            return self.walk(stmt.orelse, head)[0], head
        if isinstance(stmt, ast.If):
            body, seen_body = self.walk(stmt.body, state)
            orelse, seen_else = self.walk(stmt.orelse, state)
            return body | orelse, seen_body | seen_else
        if ir.is_element_write(stmt):
            self.before[id(stmt)] = self.before.get(id(stmt), frozenset()) | state
        elif ir.is_permutation(stmt):
            state = self.permute(stmt, state)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            state = self.assign(stmt.targets[0].id, stmt.value, state)
        return state, state

    def assign(self, target: str, value: ast.expr, state: Pairs) -> Pairs:
        kind = self.types[target].kind
        if kind == "tuple":  # a tuple shares the memory of the arrays it holds
            bases = _held(value, self.types)
        else:
            bases = {_base(value, self.types)} if kind == "array" else set()
        bases.discard("")
        if target in bases:
            return state  # a = a[1:]: still the memory it shared
        kept = {pair for pair in state if target not in pair}
        for base in bases:
            kept.add(frozenset((target, base)))
            kept |= {frozenset((target, n)) for p in state if base in p for n in p - {base}}
        return frozenset(p for p in kept if len(p) == 2)

    def permute(self, stmt: ast.Assign, state: Pairs) -> Pairs:
        """``a, b = b, a``: each target takes its source's memory, all at once."""
        if not all(isinstance(e, ast.Name) for e in stmt.targets[0].elts + stmt.value.elts):
            targets = {e.id for e in walk(stmt.targets[0]) if isinstance(e, ast.Name)}
            return frozenset(p for p in state if not p & targets)
        source = dict(ir.permutation_pairs(stmt))
        names = {n for pair in state for n in pair} | set(source) | set(source.values())

        def shared(a: str, b: str) -> bool:
            a, b = source.get(a, a), source.get(b, b)
            return a == b or frozenset((a, b)) in state

        return frozenset(
            frozenset((a, b))
            for a in names
            for b in names
            if a < b and (a in source or b in source) and shared(a, b)
        ) | frozenset(p for p in state if not p & set(source))


class _ArraysOnly:
    """A type table where every name is an array (for the doctest)."""

    def __getitem__(self, name):
        return type("T", (), {"kind": "array"})()

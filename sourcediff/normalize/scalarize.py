"""Fuse runs of elementwise array statements into explicit loops ("scalarization").

NumPy-style code allocates an array for every operation; on small arrays (a
3-vector per particle, a mixture component's ``d`` coordinates) the
allocations, and the adjoint arrays the reverse sweep would need for each,
cost far more than the arithmetic. Where consecutive statements are
elementwise over arrays of provably one shape (:mod:`.elements`), they become
one loop nest over scalars, as an expert writes it; the derivative of that
loop then needs no array temporaries at all. ``np.sum`` of a fused array in
the statements that follow becomes an accumulator.

A fused array that is still read after the run is written element by element
into a fresh array (``np.empty``), exactly the value it had. A run ends at its
first store into an array (``B[1:-1] = ...``); the store is fused only if the
run reads that array (or anything that may share its memory) nowhere but at
the stored elements, so the loop order cannot change a value. Elementwise
operations are exact per element, and Numba's ``np.sum`` adds in the loop's
order, so compiled results are bit for bit those of the array code.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> from sourcediff.naming import Namer
    >>> node = ast.parse('''
    ... def f(A):
    ...     t1 = A[1:-1]
    ...     t2 = A[:-2]
    ...     t3 = t1 * t2
    ...     t4 = np.sum(t3)
    ...     return t4
    ... ''').body[0]
    >>> arr, flt = VarType("array", "float64", 1), VarType("float", "float64")
    >>> types = TypeTable({"A": arr, "t1": arr, "t2": arr, "t3": arr, "t4": flt}, flt)
    >>> fn = Scalarizer(node, types, Namer.for_tree(node), {}, set(), None)
    >>> fn.run()
    >>> print(ir.block_source(node.body))
    t5 = A.shape[0]
    t6 = t5 - 2
    t3_sum = 0.0
    n_j = len(range(t6))
    for j in range(t6):
        t7 = j + 1
        t8 = A[t7]
        t9 = A[j]
        t3 = t8 * t9
        t10 = t3_sum + t3
        t3_sum = t10
    t4 = t3_sum
    return t4
"""

from __future__ import annotations

import ast
from collections import Counter

from .. import ir
from ..analysis.sharing import alias_classes
from ..analysis.types import VarType
from ..astnodes import clone
from .elements import ElementReader, Shapes, axis_index, index_key, length_index
from .flatten import repeatable
from .loops import add_trip_counters
from .regions import Region

FLOAT = VarType("float", "float64")
INT = VarType("int", "int64")


class Scalarizer:
    """Rewrites every run of fusible statements of one normalized function, in place."""

    def __init__(self, node, types, namer, counters, temps, dims, params=None, known=None):
        self.node, self.types, self.namer = node, types, namer
        self.counters, self.temps = counters, temps
        params = params if params is not None else [a.arg for a in node.args.args]
        self.shapes = Shapes(params, dims, node, types, known)
        self.aliases = alias_classes(node, types)
        self.params = set(params)
        self.uses = Counter(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
        self.repeated: dict[str, str] = {}  # within one element statement (flatten.py)

    def run(self) -> None:
        """Scalarize every block of the function."""
        self.node.body = self.block(self.node.body)

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        """``stmts`` with each fusible run replaced by its loop nest."""
        out: list[ast.stmt] = []
        k = 0
        while k < len(stmts):
            reader = ElementReader(self.types, self.shapes, {})
            region = Region(reader, self.may_share, self.namer.fresh)
            end = k
            while end < len(stmts) and region.add(stmts[end], self.types):
                end += 1
            rewritten = self.rewrite(region) if region.stmts else None
            if rewritten is None:
                out.append(self.inner(stmts[k]))
                k += 1
            else:
                out += rewritten
                k = end
        return out

    def inner(self, stmt: ast.stmt) -> ast.stmt:
        for field in ("body", "orelse"):
            if isinstance(stmt, (ast.For, ast.While, ast.If)):
                setattr(stmt, field, self.block(getattr(stmt, field)))
        return stmt

    def may_share(self, a: str, b: str) -> bool:
        """Whether arrays ``a`` and ``b`` may be the same memory (arguments: always)."""
        ca, cb = self.aliases.get(a, {a}), self.aliases.get(b, {b})
        return bool(ca & cb) or (bool(ca & self.params) and bool(cb & self.params))

    def rewrite(self, region: Region):
        """The loop nest for ``region``, or None if it would save nothing."""
        in_region = Counter(
            n.id for s in region.stmts for n in ast.walk(s) if isinstance(n, ast.Name)
        )
        live = {name for name in region.env if self.uses[name] > in_region[name]}
        live |= set(region.rebound.values())  # bound to their names after the loop
        if all(name in live for name in region.defs) and not region.sums:
            return None
        return self.emit(region, live)

    def emit(self, region: Region, live: set[str]) -> list[ast.stmt]:
        origin = region.stmts[0]
        before = list(region.before)
        before += [clone(region.views[n]) for n in region.views if n in live]
        lengths = [self.length(dim, before) for dim in region.shape]
        axes = [self.namer.fresh("j") for _ in region.shape]
        names = {axis_index(k): name for k, name in enumerate(axes)}
        if region.reader.rolls:  # a roll's index wraps around by the loop's length
            names |= {length_index(k): self.named(n, before) for k, n in enumerate(lengths)}
        for name in axes:
            self.types.variables[name] = INT
        totals = {}
        for stmt, name in region.sums:
            totals[id(stmt)] = self.namer.fresh(f"{name}_sum")
            self.types.variables[totals[id(stmt)]] = FLOAT
            before.append(_assign(totals[id(stmt)], ast.Constant(0.0)))
        for name in region.defs:
            if name in live:
                alloc = _assign(name, _empty([self.nonnegative(n, before) for n in lengths]))
                # The nest writes every element, and the reverse of each write zeroes that
                # element's adjoint: the allocation's reverse has nothing left to zero.
                alloc.filled_by_loop = True
                before.append(alloc)
        body = self.loop_body(region, live, (names, {}, [ir.load(a) for a in axes], totals))
        loop = body
        for axis, length in reversed(list(zip(axes, lengths))):
            loop = [ast.For(ast.Name(axis, ast.Store()), _range(length), loop, [])]
            loop[0].scalarized = True  # a spatial loop: plan.py never checkpoints it
        for stmt in before + loop:
            _located(stmt, origin)
        nest = add_trip_counters(loop, self.namer, self.counters)
        for counter in self.counters.values():
            self.types.variables.setdefault(counter.name, INT)
        for stmt, _ in region.sums:
            stmt.value = ir.load(totals[id(stmt)])
        rebinds = [_assign(name, ir.load(new)) for name, new in region.rebound.items()]
        for stmt, name in zip(rebinds, region.rebound):
            _located(stmt, region.rebound_at[name])
        return before + nest + rebinds + region.after

    def loop_body(self, region: Region, live: set[str], naming: tuple) -> list[ast.stmt]:
        """The innermost loop's statements: each fused statement's element, in order."""
        body: list[ast.stmt] = []
        for stmt in region.stmts:
            start = len(body)
            self.element_statement(region, stmt, live, naming, body)
            for new in body[start:]:
                _located(new, stmt)
                new.of_array = True  # an element of an array operation (rules.strong_zero_applies)
        return body

    def element_statement(self, region, stmt, live, naming, body) -> None:
        """The loop-body statements computing one element of ``stmt``."""
        names, renames, index, totals = naming
        self.repeated = {}  # what earlier statements computed may be written since
        name = region.defined_by(stmt)
        if name in region.views or id(stmt) in region.aliases:
            return
        if id(stmt) in totals:  # t = np.sum(a): add a's element
            total = totals[id(stmt)]
            summed = region.env[stmt.value.args[0].id][1]
            element = self.flatten(_renamed(summed, names, renames), body)
            added = self.flatten(ast.BinOp(ir.load(total), ast.Add(), element), body)
            body.append(_assign(total, added))  # normalized code never reads its target
            return
        if name is None:  # the store
            target, value = region.store
            value = self.flatten(_renamed(value, names, renames), body)
            target = _renamed(target, names, renames)
            target.slice = self.index_atoms(target.slice, body)
            target.ctx = ast.Store()
            body.append(ast.Assign([target], value))
            return
        value = _renamed(region.values[name], names, renames)
        if name in live:
            temp = self.temp(FLOAT)
            body.append(_assign(temp, self.operation(value, body)))
            write = ast.Subscript(ir.load(name), index_key(index), ast.Store())
            fill = ast.Assign([write], ir.load(temp))
            # The array ``emit`` allocates right before the loop: no other name has it yet.
            fill.fills_fresh = True
            body.append(fill)
            renames[name] = temp
        else:  # one element per iteration, defined once: a temporary like any other
            self.types.variables[name] = FLOAT
            self.temps.add(name)
            body.append(_assign(name, self.operation(value, body)))

    def operation(self, node: ast.expr, body: list[ast.stmt]) -> ast.expr:
        """``node`` as one operation on atoms, its operands computed into ``body``."""
        if isinstance(node, ast.BinOp):
            return ast.BinOp(self.flatten(node.left, body), node.op, self.flatten(node.right, body))
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.flatten(node.operand, body))
        if isinstance(node, ast.Call):
            return ast.Call(node.func, [self.flatten(a, body) for a in node.args], [])
        if isinstance(node, ast.Subscript):
            return ast.Subscript(node.value, self.index_atoms(node.slice, body), ast.Load())
        return node

    def flatten(self, node: ast.expr, body: list[ast.stmt]) -> ast.expr:
        """An atom holding ``node``'s value (a float), computed into ``body``."""
        if isinstance(node, (ast.Name, ast.Constant)):
            return node
        operation = self.operation(node, body)
        key = ast.dump(operation) if repeatable(operation) else None
        if key in self.repeated:  # u * u: one read of u's element, one adjoint term
            return ir.load(self.repeated[key])
        temp = self.temp(FLOAT)
        body.append(_assign(temp, operation))
        if key is not None:
            self.repeated[key] = temp
        return ir.load(temp)

    def index_atoms(self, key: ast.expr, body: list[ast.stmt]) -> ast.expr:
        """The subscript ``key`` with each computed index part made an atom in ``body``."""
        parts = key.elts if isinstance(key, ast.Tuple) else [key]
        return index_key([self.integer_atom(part, body) for part in parts])

    def integer_atom(self, part: ast.expr, body: list[ast.stmt]) -> ast.expr:
        """An atom holding the index ``part`` (``(j - 1) % n``: one temporary per operation)."""
        if not isinstance(part, ast.BinOp):
            return part
        left, right = (self.integer_atom(side, body) for side in (part.left, part.right))
        temp = self.temp(INT)
        body.append(_assign(temp, ast.BinOp(left, part.op, right)))
        return ir.load(temp)

    def named(self, length: ast.expr, before: list[ast.stmt]) -> str:
        """A name holding ``length`` (a constant length gets one, assigned before the loop)."""
        if isinstance(length, ast.Name):
            return length.id
        temp = self.temp(INT)
        before.append(_assign(temp, length))
        return temp

    def length(self, dim: tuple, before: list[ast.stmt]) -> ast.expr:
        """An atom holding the length ``dim`` (may be negative: ``range`` is then empty)."""
        source = self.shapes.source(dim[0])
        if isinstance(source, int):  # never negative: np.empty((-1,)) would raise
            return ast.Constant(max(source + dim[1], 0))
        temp = self.temp(INT)
        before.append(_assign(temp, ast.parse("{}.shape[{}]".format(*source), mode="eval").body))
        if dim[1] == 0:
            return ir.load(temp)
        shifted = self.temp(INT)
        before.append(_assign(shifted, ast.BinOp(ir.load(temp), ast.Sub(), ast.Constant(-dim[1]))))
        return ir.load(shifted)

    def nonnegative(self, length: ast.expr, before: list[ast.stmt]) -> ast.expr:
        if not isinstance(length, ast.Name) or self.types[length.id] != INT:
            return length
        temp = self.temp(INT)
        before.append(_assign(temp, ast.Call(ir.load("max"), [length, ast.Constant(0)], [])))
        return ir.load(temp)

    def temp(self, kind: VarType) -> str:
        name = self.namer.temp()
        self.types.variables[name] = kind
        self.temps.add(name)
        return name


def scalarize(nf, types, dims, known=None) -> None:
    """Stage "types" rewrite: fuse elementwise runs of ``nf`` (see the module docstring).

    ``dims`` are the equality classes of the arguments' dimensions, or None; ``known``
    the symbolic shapes of arrays bound several times (``analysis.static_shapes``)."""
    scalarizer = Scalarizer(nf.node, types, nf.namer, nf.counters, nf.temps, dims, nf.params, known)
    scalarizer.run()


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _empty(lengths: list[ast.expr]) -> ast.Call:
    shape = ast.Tuple(lengths, ast.Load())
    return ast.Call(ast.parse("np.empty", mode="eval").body, [shape], [])


def _range(length: ast.expr) -> ast.Call:
    return ast.Call(ir.load("range"), [length], [])


def _renamed(node: ast.expr, axes: dict[str, str], renames: dict | None = None) -> ast.expr:
    """A copy of ``node`` with axis placeholders and renamed names replaced."""
    table = {**axes, **(renames or {})}
    node = clone(node)
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in table:
            child.id = table[child.id]
    return node


def _located(stmt: ast.stmt, origin: ast.stmt) -> ast.stmt:
    """``stmt`` (and the statements it contains) attributed to the user's line of
    ``origin``, where not attributed already."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.stmt) and not hasattr(node, "origin"):
            ast.copy_location(node, origin)
            if hasattr(origin, "origin"):
                node.origin = origin.origin
    return stmt

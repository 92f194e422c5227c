"""Rows of loop-invariant arrays transformed elementwise: computed once, for every row.

A per-component term inside a per-sample loop, such as ADBench's Gaussian mixture

    for i in range(n):
        for c in range(k):
            z = (x[i] - means[c]) * np.exp(-log_sd[c])

computes ``np.exp(-log_sd[c])`` ``n`` times for each ``c``, although ``log_sd`` never
changes in the ``i`` loop; the reverse sweep then records every one of those values (or
computes them again). An expert computes ``np.exp(-log_sd)`` once, before the sample
loop, and reads a row of it. This rewrite does the same, in the types stage, for a chain
of statements that starts at a row ``A[c]`` (``c`` the row loop's variable) and
continues with ``+ - * / **`` and NumPy's unary elementwise functions of chain values,
numbers and invariant scalars: each chain value used outside the chain becomes a row of
its whole-array version, computed before the loop around the row loop, in which ``A``
(and everything it may share memory with) and the scalars are never written. The
whole-array version applies the same elementwise operations to every row, so the values
read are exactly those computed before. It computes no row the original never computes:
the row loop runs over all of ``A``'s rows on every iteration of the loop around it (no
``break``, ``continue`` or ``return`` on the way), and the whole arrays are computed only
if that loop runs at all (an operation on a row never read could overflow, and its
derivative times a zero adjoint be NaN). Nothing may write into a chain value: it becomes
a view of the whole array.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(x, s, n):
    ...     k = s.shape[0]
    ...     for i in range(n):
    ...         for c in range(k):
    ...             t1 = s[c]
    ...             t2 = -t1
    ...             t3 = np.exp(t2)
    ...             t4 = x[i] * t3
    ... ''').body[0]
    >>> vec, mat = VarType("array", "float64", 1), VarType("array", "float64", 2)
    >>> types = TypeTable({"x": mat, "s": mat, "t1": vec, "t2": vec, "t3": vec, "t4": vec,
    ...                    "n": VarType("int", "int64")}, vec)
    >>> hoist_invariant_rows(node, types, Namer.for_tree(node))
    >>> print(ast.unparse(node))
    def f(x, s, n):
        k = s.shape[0]
        if len(range(n)) > 0:
            t2_rows = -s
            t3_rows = np.exp(t2_rows)
        for i in range(n):
            for c in range(k):
                t3 = t3_rows[c]
                t4 = x[i] * t3
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.liveness import binding_counts
from ..analysis.sharing import alias_classes
from ..analysis.types import TypeTable, VarType
from ..naming import Namer
from ..transform.effects import names_read, names_written
from .elements import elementwise_operands, is_number


def hoist_invariant_rows(
    node: ast.FunctionDef, types: TypeTable, namer: Namer, dims: tuple | None = None
) -> None:
    """Rewrite, in place, every row chain of every loop nest of ``node`` (module docstring);
    ``dims``: which of the caller's array lengths are equal (dispatch.dimension_classes)."""
    context = _Context(node, types, namer, dims)
    for loop in [s for s in ast.walk(node) if isinstance(s, ast.For)]:
        found = context.hoisting_loop(loop)
        if found is not None:
            context.hoist(loop, *found)


class _Context:
    """What the rewrite needs about the whole function: loops around each loop, how
    often names are bound, which names share memory, every name read."""

    def __init__(self, node: ast.FunctionDef, types: TypeTable, namer: Namer, dims=None):
        self.node, self.types, self.namer = node, types, namer
        self.bindings = binding_counts(node)
        self.definitions = {  # the value of each name bound once by an assignment
            ir.target_name(s): s.value
            for s in ast.walk(node)
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
        }
        params = [a.arg for a in node.args.args]  # first-axis labels of the caller's arrays
        self.dims = {p: d[0] for p, d in zip(params, dims or ()) if d}
        self.classes = alias_classes(node, types)
        self.enclosing: dict[int, list] = {}  # loop id -> (block, loop) pairs, outermost first
        self.changes: dict[int, tuple] = {}  # loop id -> (names bound, names written)
        self._walk(node.body, [])

    def _walk(self, block: list[ast.stmt], around: list) -> None:
        for stmt in block:
            if isinstance(stmt, (ast.For, ast.While)):
                self.enclosing[id(stmt)] = list(around)
                self._walk(stmt.body, around + [(block, stmt)])
            elif isinstance(stmt, ast.If):
                self._walk(stmt.body, around)
                self._walk(stmt.orelse, around)

    def hoisting_loop(self, loop: ast.For):
        """The loop whose body runs row loop ``loop`` over every row on every iteration
        (no ``break``, ``continue`` or ``return`` on the way) and out of which a chain with
        at least one operation can be hoisted, with the block holding it and the chain;
        None when there is none. The whole arrays then hold exactly the rows the original
        computes at least once: an operation on a row it never computes could overflow,
        and its derivative times a zero adjoint give NaN."""
        if not (isinstance(loop.target, ast.Name) and ir.is_call(loop.iter, "range")):
            return None
        around = self.enclosing.get(id(loop), [])
        if not around or not isinstance(around[-1][1], ast.For):
            return None
        block, outer = around[-1]
        if loop not in outer.body or _leaves_early(outer.body[: outer.body.index(loop) + 1]):
            return None
        chain = self.chain(loop, outer)
        chain = {s: root for s, root in chain.items() if self.covers(loop, root.value.id)}
        if all(_row_read(s.value, loop.target.id, self.types) for s in chain):
            return None
        return block, outer, chain

    def covers(self, loop: ast.For, array: str) -> bool:
        """Whether ``loop`` runs over every row of ``array``: ``range(n)`` (or
        ``range(0, n)``) with ``n`` its first length, or a first length of an argument the
        caller's arrays share (the request's ``dims``)."""
        args = loop.iter.args
        if len(args) == 2 and isinstance(args[0], ast.Constant) and args[0].value == 0:
            args = args[1:]
        if len(args) != 1:
            return False
        stop = args[0]
        if isinstance(stop, ast.Name) and self.bindings.get(stop.id) == 1:
            stop = self.definitions.get(stop.id, stop)
        rows_of = _rows_of(stop)
        return rows_of is not None and self.same_rows(rows_of, array)

    def same_rows(self, a: str, b: str) -> bool:
        if a == b:
            return True
        once = self.bindings.get(a) == 1 and self.bindings.get(b) == 1
        labels = [self.dims.get(name) for name in (a, b)]
        return once and None not in labels and labels[0] == labels[1]

    def _changes(self, outer: ast.stmt) -> tuple[set[str], set[str]]:
        """The names ``outer`` binds, and those whose memory it may write."""
        bound, written = set(), set()
        for sub in ast.walk(outer):
            if isinstance(sub, ast.Assign) and ir.is_element_write(sub):
                written.add(ir.target_name(sub))
            elif isinstance(sub, ast.Assign) and ir.is_permutation(sub):
                written |= {t for t, _ in ir.permutation_pairs(sub)}
            elif isinstance(sub, ast.Assign):
                bound |= names_written(sub.targets[0])
            elif isinstance(sub, ast.For):
                bound |= names_written(sub.target)
            elif isinstance(sub, ast.AugAssign):
                written |= names_read(sub.target) | names_written(sub.target)
            elif isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Call):
                written |= names_read(sub.value)  # a call may write into what it is given
        return bound, written

    def _invariant(self, names: set[str], outer: ast.stmt) -> bool:
        """Whether no name is bound in ``outer`` and no memory one may share is written
        there (binding a view of an input, ``t = A[c]``, writes nothing)."""
        if id(outer) not in self.changes:
            self.changes[id(outer)] = self._changes(outer)
        bound, written = self.changes[id(outer)]
        return not any(name in bound or self.classes.get(name, {name}) & written for name in names)

    def chain(self, loop: ast.For, outer: ast.stmt) -> dict[ast.Assign, ast.Subscript]:
        """The row-chain statements of ``loop``'s own body whose inputs ``outer`` never
        changes, in order, each with the row read its value is a row of."""
        row, roots, chain = loop.target.id, {}, {}
        for stmt in loop.body:
            if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)):
                continue
            target = stmt.targets[0].id
            kind = self.types.variables.get(target)
            if kind is None or not kind.is_float or self.bindings.get(target) != 1:
                continue
            if _row_read(stmt.value, row, self.types):
                root, inputs = stmt.value, {stmt.value.value.id}
            else:  # the row loop's variable as an operand is no invariant number
                root = self._elementwise(stmt.value, roots)
                inputs = _operand_names(stmt.value) - set(roots)
            written = root is not stmt.value and self.written_anywhere(target)
            if root is not None and not written and self._invariant(inputs, outer):
                roots[target] = root
                chain[stmt] = root
        return chain

    def written_anywhere(self, name: str) -> bool:
        """Whether anything may write into ``name``'s array: a computed chain value
        becomes a view of the whole array, which a write would change for later rows."""
        if "function" not in self.changes:
            self.changes["function"] = self._changes(self.node)
        return bool(self.classes.get(name, {name}) & self.changes["function"][1])

    def _elementwise(self, value: ast.expr, roots: dict) -> ast.Subscript | None:
        """The row read of the chain values ``value`` operates on elementwise, with
        numbers and scalar names; None if it is no such operation, or combines rows of
        different reads (whose whole arrays need not broadcast as their rows do)."""
        operands = elementwise_operands(value) or []
        reads = {ast.unparse(roots[o.id]): roots[o.id] for o in operands if _named(o, roots)}
        others = [o for o in operands if not _named(o, roots)]
        if len(reads) != 1 or not all(is_number(o, self.types) for o in others):
            return None
        return next(iter(reads.values()))

    def hoist(self, loop: ast.For, block: list, outer: ast.stmt, chain: dict) -> None:
        """Compute ``chain``'s whole arrays before ``outer`` (in ``block``); read rows of
        them in ``loop``."""
        row = loop.target.id
        whole: dict[str, ast.expr] = {}
        hoisted: list[ast.stmt] = []
        for stmt in chain:
            target, value = stmt.targets[0].id, stmt.value
            if _row_read(value, row, self.types):
                whole[target] = ast.Name(value.value.id, ast.Load())
                continue
            name = self.namer.fresh(f"{target}_rows")
            kind = self.types.variables[target]
            self.types.variables[name] = VarType("array", kind.dtype, kind.ndim + 1)
            hoisted.append(_placed(_assign(name, _substituted(value, whole)), stmt))
            whole[target] = ast.Name(name, ast.Load())
        used_outside = self._read_outside(chain)
        ids = {id(s) for s in chain}
        loop.body[:] = [
            _row_of(s, whole, chain[s]) if id(s) in ids else s
            for s in loop.body
            if id(s) not in ids or _target(s) in used_outside
        ]
        at = next(k for k, s in enumerate(block) if s is outer)
        block[at:at] = [_when_it_runs(outer, hoisted)]

    def _read_outside(self, chain: list[ast.Assign]) -> set[str]:
        ids = {id(s) for s in chain}
        outside: set[str] = set()
        for sub in ast.walk(self.node):
            if isinstance(sub, ast.FunctionDef):
                continue
            if isinstance(sub, ast.stmt) and id(sub) not in ids and not _compound(sub):
                outside |= names_read(sub)
            elif _compound(sub):
                outside |= names_read(getattr(sub, "iter", None) or getattr(sub, "test", sub))
        return outside & _chain_names(chain)


def _rows_of(stop: ast.expr) -> str | None:
    """``A`` for ``A.shape[0]`` or ``len(A)``, else None."""
    axis = ir.shape_axis(stop)
    if axis is not None and axis[1] == 0:
        return axis[0]
    if ir.is_call(stop, "len") and len(stop.args) == 1 and isinstance(stop.args[0], ast.Name):
        return stop.args[0].id
    return None


def _when_it_runs(outer: ast.For, hoisted: list[ast.stmt]) -> ast.If:
    """``hoisted`` under ``if len(range(...)) > 0``: rows the original never computes
    (no iteration) are not computed either."""
    trips = ast.Call(ast.Name("len", ast.Load()), [outer.iter], [])
    test = ast.Compare(trips, [ast.Gt()], [ast.Constant(0)])
    return _placed(ast.If(test, hoisted, []), hoisted[0])


def _leaves_early(stmts: list[ast.stmt]) -> bool:
    """Whether a ``break``, ``continue`` or ``return`` is among ``stmts``, at any depth."""
    exits = (ast.Break, ast.Continue, ast.Return)
    return any(isinstance(n, exits) for s in stmts for n in ast.walk(s))


def _row_read(value: ast.expr, row: str, types: TypeTable) -> bool:
    """Whether ``value`` is ``A[row]`` (or ``A[row, :, ...]``) of a float array ``A``."""
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return False
    kind = types.variables.get(value.value.id)
    if kind is None or kind.kind != "array" or not kind.is_float:
        return False
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    first, rest = parts[0], parts[1:]
    full = all(isinstance(p, ast.Slice) and p.lower is p.upper is p.step is None for p in rest)
    return isinstance(first, ast.Name) and first.id == row and full


def _operand_names(value: ast.expr) -> set[str]:
    """The names ``value`` reads, without the module of a function it calls (``np``)."""
    called = names_read(value.func) if isinstance(value, ast.Call) else set()
    return names_read(value) - called


def _named(operand: ast.expr, roots: dict) -> bool:
    return isinstance(operand, ast.Name) and operand.id in roots


def _row_of(stmt: ast.Assign, whole: dict[str, ast.expr], root: ast.Subscript) -> ast.stmt:
    """``t = t_rows[c, :]``: the row of ``t``'s whole array, indexed as its root read."""
    index = ast.unparse(root.slice)
    index = index[1:-1] if isinstance(root.slice, ast.Tuple) else index  # c, : unparses (c, :)
    read = ast.parse(f"{ast.unparse(whole[_target(stmt)])}[{index}]", mode="eval").body
    return _placed(_assign(_target(stmt), read), stmt)


def _placed(new: ast.stmt, where: ast.stmt) -> ast.stmt:
    """``new`` at ``where``'s line, from the same user line (messages, comments)."""
    return ast.fix_missing_locations(ast.copy_location(ir.located(new, where), where))


def _substituted(value: ast.expr, whole: dict[str, ast.expr]) -> ast.expr:
    class Whole(ast.NodeTransformer):
        def visit_Name(self, name):
            return whole.get(name.id, name)

    return Whole().visit(ast.parse(ast.unparse(value), mode="eval").body)


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _target(stmt: ast.Assign) -> str:
    return stmt.targets[0].id


def _chain_names(chain: list[ast.Assign]) -> set[str]:
    return {_target(s) for s in chain}


def _compound(stmt: ast.AST) -> bool:
    return isinstance(stmt, (ast.For, ast.While, ast.If))

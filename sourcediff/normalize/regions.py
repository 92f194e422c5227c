"""Which consecutive statements :mod:`.scalarize` fuses into one loop: a :class:`Region`.

A region grows statement by statement while each is an elementwise array
definition (``t3 = t1 + t2``, ``t6 = np.exp(t5)``) or a basic slice of an
outside array (``t1 = A[1:-1, :-2]``), all of one provable shape; it ends
after its first store into an array (``B[1:-1, 1:-1] = t10``). A statement
that does not fit ends it before that statement, and leaves it as it was.
A time step ``u = u + dt * lu``, whose value reads the old ``u``, defines a
fresh array ``u2`` that the loop fills, bound to ``u`` after the loop; so does
``u = t`` for an array ``t`` the region computed.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> from sourcediff.normalize.elements import ElementReader, Shapes
    >>> arr, flt = VarType("array", "float64", 1), VarType("float", "float64")
    >>> types = TypeTable({"a": arr, "b": arr, "u": arr, "v": arr, "s": flt}, flt)
    >>> same_length = Shapes(["a", "b"], ((0,), (0,)), None)  # a.shape[0] == b.shape[0]
    >>> region = Region(ElementReader(types, same_length, {}), lambda x, y: x == y)
    >>> run = ("u = a * s", "v = u + a", "b[:] = v", "u = a")
    >>> [region.add(ir.statement(s), types) for s in run]
    [True, True, True, False]
    >>> region.defs, region.shape
    (['u', 'v'], ((('class', 0), 0),))
"""

from __future__ import annotations

import ast
import copy

from .. import ir, rules
from .elements import SCALAR, ElementReader

PURE_PREFIXES = ("np.", "math.")


class Region:
    """A run of fusible statements and, for each name it defines, its element."""

    def __init__(self, reader: ElementReader, may_share, fresh=None):
        self.reader = reader
        self.fresh = fresh  # a new variable name from a base name (None: never rebind)
        self.env = reader.env  # name -> (shape, element) of what the region defined
        self.may_share = may_share
        self.shape = None
        self.stmts: list[ast.stmt] = []
        self.defs: list[str] = []  # computed arrays, in order
        self.views: dict[str, ast.stmt] = {}  # slices of outside arrays, by name
        self.values: dict[str, ast.expr] = {}  # a computed array's element
        self.store = None  # (target element, value element) of the closing store
        self.closed = False
        self.sums: list[tuple[ast.Assign, str]] = []  # t = np.sum(name), accumulated
        self.before: list[ast.stmt] = []  # scalar statements moved before the loop
        self.after: list[ast.stmt] = []  # sums and what reads them, after the loop
        self.pending: set[str] = set()  # names set after the loop
        self.read_after: set[str] = set()  # names what runs after the loop reads
        self.rebound: dict[str, str] = {}  # name -> the fresh array it is bound to after
        self.rebound_at: dict[str, ast.stmt] = {}  # name -> the user's statement doing so
        self.renamed: dict[int, str] = {}  # statement -> the fresh name it defines
        self.aliases: set[int] = set()  # statements binding a name to an array defined here

    def add(self, stmt: ast.stmt, types) -> bool:
        """Take ``stmt`` into the region if it fits, else leave the region unchanged."""
        if self.closed or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return False
        saved = self._state()
        target = stmt.targets[0]
        if self.stmts and (self._sum(stmt, types) or self._scalar(stmt, types)):
            return True
        if isinstance(target, ast.Name) and self._rebinds(target.id, stmt.value):
            fits = self._rebinding(stmt, types)
        elif isinstance(target, ast.Name):
            fits = self._definition(target.id, stmt.value, types)
        elif isinstance(target, ast.Subscript):
            fits = self._store(target, stmt.value)
        else:
            fits = False
        if fits and (self.reader.outer_reads & self.pending or _written(target) in self.read_after):
            fits = False  # reads a sum not yet complete, or changes what runs after the loop
        if not fits:
            self._restore(saved)
            return False
        self.stmts.append(stmt)
        return True

    #: What taking a statement in changes, restored when it turns out not to fit.
    STATE = ("defs", "views", "values", "rebound", "rebound_at", "renamed", "aliases")

    def _state(self) -> tuple:
        copies = tuple(copy.copy(getattr(self, name)) for name in self.STATE)
        reads = (len(self.reader.reads), set(self.reader.outer_reads), dict(self.env))
        return copies, reads, (self.shape, self.store, self.closed)

    def _restore(self, state: tuple) -> None:
        copies, (reads, outer_reads, env), (self.shape, self.store, self.closed) = state
        for name, value in zip(self.STATE, copies):
            setattr(self, name, value)
        del self.reader.reads[reads:]
        self.reader.outer_reads = outer_reads
        self.env.clear()  # the reader's own dictionary: updated in place
        self.env.update(env)

    def defined_by(self, stmt: ast.stmt) -> str | None:
        """The array ``stmt`` (a statement of the region) defines; None for the store or a
        sum."""
        target = stmt.targets[0]
        if id(stmt) in self.renamed:
            return self.renamed[id(stmt)]
        return target.id if isinstance(target, ast.Name) and target.id in self.env else None

    def _rebinds(self, name: str, value: ast.expr) -> bool:
        """Whether ``name = value`` computes a new array for a name whose old elements the
        region reads (``u = u + dt * lu``): it then defines a fresh array, bound to
        ``name`` after the loop, so every element of the old one is read before."""
        if self.fresh is None or name in self.env:
            return False
        if isinstance(value, ast.Name):  # u = t24, t24 computed here: bound after the loop
            return value.id in self.defs and value.id not in self.rebound.values()
        if name not in self.reader.outer_reads:
            return False
        return not isinstance(value, ast.Subscript)  # a view

    def _rebinding(self, stmt: ast.Assign, types) -> bool:
        name = stmt.targets[0].id
        if isinstance(stmt.value, ast.Name):
            self.env[name] = self.env[stmt.value.id]
            self.rebound[name] = stmt.value.id
            self.rebound_at[name] = stmt
            self.aliases.add(id(stmt))
            return True
        fresh = self.fresh(name)
        types.variables[fresh] = types[name]
        if not self._definition(fresh, stmt.value, types):
            return False
        self.env[name] = self.env[fresh]  # later statements read the new elements
        self.rebound[name] = fresh
        self.rebound_at[name] = stmt
        self.renamed[id(stmt)] = fresh
        return True

    def _definition(self, name: str, value: ast.expr, types) -> bool:
        kind = types[name]
        if kind.kind != "array" or kind.dtype != "float64" or name in self.env:
            return False
        if name in self.reader.outer_reads or isinstance(value, ast.Name):
            return False  # its old value is read in the region; or an alias
        view = isinstance(value, ast.Subscript)
        found = self.reader.view(value) if view else self.reader.read(value)
        if found is None or found[0] == SCALAR or not self._same_shape(found[0]):
            return False
        if not view and (kind.layout != "C" or kind.ndim != len(found[0])):
            return False
        if view:
            self.views[name] = ast.Assign([ast.Name(name, ast.Store())], value)
            self.env[name] = found
        else:
            self.defs.append(name)
            self.values[name] = found[1]
            self.env[name] = (found[0], ast.Name(name, ast.Load()))
        return True

    def _store(self, target: ast.Subscript, value: ast.expr) -> bool:
        if not isinstance(target.value, ast.Name) or target.value.id in self.env:
            return False
        base = target.value.id
        reads_before = len(self.reader.reads)
        where = self.reader.view(target)
        if where is None or not self._same_shape(where[0]):
            return False
        del self.reader.reads[reads_before:]
        found = self.reader.read(value)
        if found is None or (found[0] != SCALAR and found[0] != where[0]):
            return False
        index = ast.dump(target.slice)
        if any(self.may_share(name, base) for name in self.read_after):
            return False  # what runs after the loop reads this array as it was
        for read, read_index in self.reader.reads:
            if self.may_share(read, base) and (read, read_index) != (base, index):
                return False  # the loop would read elements it already stored
        self.store = (where[1], found[1])
        self.closed = True
        return True

    def _same_shape(self, shape: tuple) -> bool:
        if self.shape is None:
            self.shape = shape
        return shape == self.shape

    def _sum(self, stmt: ast.Assign, types) -> bool:
        """``t = np.sum(name)`` of a name the region defined: an accumulator, ``t`` set
        after the loop."""
        value = stmt.value
        if not (
            _scalar_assignment(stmt, types)
            and isinstance(value, ast.Call)
            and rules.call_path(value.func) == "np.sum"
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id in self.env
        ):
            return False
        self.sums.append((stmt, value.args[0].id))
        self.stmts.append(stmt)  # accumulated here, in order, inside the loop
        self._later(stmt)
        return True

    def _scalar(self, stmt: ast.Assign, types) -> bool:
        """A scalar statement independent of the region's arrays: it runs before the loop,
        or, if it reads an accumulated sum, after it."""
        if not _scalar_assignment(stmt, types):
            return False
        target = stmt.targets[0].id
        reads = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        if reads & set(self.env) or target in self.reader.outer_reads or target in self.env:
            return False
        if target in self.pending or target in self.read_after:
            return False
        if reads & self.pending:
            self._later(stmt)
        else:
            self.before.append(stmt)
        return True

    def _later(self, stmt: ast.Assign) -> None:
        self.after.append(stmt)
        self.pending.add(stmt.targets[0].id)
        self.read_after |= {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}


def _written(target: ast.expr) -> str:
    while isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else ""


def _scalar_assignment(stmt: ast.stmt, types) -> bool:
    """``name = value`` of a number, calling nothing that could write into an array."""
    if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
        return False
    if len(stmt.targets) != 1 or types[stmt.targets[0].id].kind not in ("float", "int"):
        return False
    calls = [n for n in ast.walk(stmt.value) if isinstance(n, ast.Call)]
    return all(rules.call_path(c.func).startswith(PURE_PREFIXES) for c in calls)


__all__ = ["Region", "ir"]

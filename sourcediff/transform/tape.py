"""Where saved values live: locals outside loops, preallocated stacks inside them.

A value saved outside every loop goes to a fresh local (``s_prev``). Values
saved inside loops go to one NumPy stack per dtype and outermost loop
(``floats_tape`` with its top ``floats_top``, ``ints_tape``), shared by every
variable, pushed by the forward sweep and popped in exactly the reverse order
by the reverse sweep, as Tapenade's single stack. Before the outermost loop
the stack is allocated with the exact number of pushes when every loop on the
way is a ``range`` loop whose bounds the loop nest does not change; otherwise
it starts at a guess and doubles when full (``reserve``). No Python objects.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..analysis.types import TypeTable
from ..astnodes import walk
from ..fancy import has_array_index, is_int_array, is_mask
from ..ir import shape_axis
from ..naming import Namer
from .records import Advance, Alloc, Append, NewList, Push, Reserve, Restore, Save

NUMPY_DTYPES = {
    "float64": "np.float64",
    "float32": "np.float32",
    "int64": "np.int64",
    "bool": "np.bool_",
}
STACK_NAMES = {"np.float64": "floats", "np.float32": "floats32", "np.int64": "ints"}
STACK_NAMES["np.bool_"] = "flags"
ZEROS = {"float": "0.0", "int": "0", "bool": "False"}
ITEMSIZES = {"np.float64": 8, "np.float32": 4, "np.int64": 8, "np.bool_": 1}


def _parse(source: str) -> ast.stmt:
    return ast.parse(source).body[0]


@dataclass
class Tape:
    """One stack of saved values of ``var`` in one outermost loop."""

    var: str
    name: str
    top: str
    dtype: str
    sites: list[list[ast.stmt]] = field(default_factory=list)  # enclosing loops per push site
    exact: bool = True


class Tapes:
    """Hands out save slots and emits their allocation, push and pop statements."""

    def __init__(self, namer: Namer, types: TypeTable, counters: dict, params: list[str]):
        self.params = set(params)
        self.namer = namer
        self.types = types
        self.counters = counters
        self.tapes: dict[tuple[str, int], Tape] = {}
        self.loop_saved: set[str] = set()
        self.reference_lists: dict[str, str] = {}
        self.region_types: dict[str, object] = {}
        self.unassigned: set[str] = set()  # saved where they may not be assigned yet
        #: Array slots of saves outside loops, by name: defined first, since a save in one
        #: branch and its restore in the same branch of the reverse sweep are two ``if``s
        #: to Numba, which cannot type an array some paths leave unbound.
        self.array_slots: dict[str, object] = {}

    def save(self, var: str, loops: list[ast.stmt], element: ast.Subscript | None = None):
        """Forward statements that save ``var`` (or one element of it) and reverse ones that
        restore it."""
        value = ast.unparse(element) if element is not None else var
        if loops and element is None and self.types[var].kind == "array":
            return self._save_reference(var)
        if element is not None and selects_region(element, self.types):
            return self._save_region(var, element, loops)
        if not loops:
            slot = self.namer.fresh(f"{var}_prev")
            if element is None and self.types[var].kind == "array":
                self.array_slots[slot] = self.types[var]
            return [Save(slot, value)], [Restore(value, slot)]
        tape = self._tape(var, loops[0], self._exact(loops))
        tape.sites.append(list(loops))
        if element is None:
            self.loop_saved.add(var)
        push = [Push(tape.name, tape.top, value, str(ITEMSIZES.get(tape.dtype, 8)))]
        push.append(Advance(tape.top, 1))
        pop = [Advance(tape.top, -1), Restore(value, f"{tape.name}[{tape.top}]")]
        return push, pop

    def _save_region(self, var: str, element: ast.Subscript, loops):
        """A slice of an array about to be overwritten: keep a copy of its contents."""
        region = ast.unparse(element)
        copy = f"{ast.unparse(readable(element))}.copy()"
        if not loops:
            slot = self.namer.fresh(f"{var}_prev")
            self.array_slots[slot] = region_type(self.types[var], element, self.types)
            return [Save(slot, copy)], [Restore(region, slot)]
        # One list per region rank: m[:, 1] and m[...] are saved in different lists.
        item = region_type(self.types[var], element, self.types)
        key = f"{var}[{item.ndim}]"
        if key not in self.reference_lists:
            self.reference_lists[key] = self.namer.fresh(f"{var}_regions")
            self.region_types[key] = item
        refs = self.reference_lists[key]
        self.loop_saved.discard(var)
        size = f"{ast.unparse(readable(element))}.nbytes"
        return [Append(refs, copy, size)], [Restore(region, f"{refs}.pop()")]

    def _save_reference(self, var: str):
        """Arrays rebound in a loop: keep each old array alive in a typed list."""
        if var not in self.reference_lists:
            self.reference_lists[var] = self.namer.fresh(f"{var}_refs")
        self.loop_saved.add(var)
        refs = self.reference_lists[var]
        return [Append(refs, var, f"{var}.nbytes")], [Restore(var, f"{refs}.pop()", (refs, var))]

    def finish_pushes(self, fwd: list[ast.stmt]) -> None:
        """Make room in growable tapes: once before each innermost ``for`` loop that pushes
        (its trip count is known there), or before each push inside a ``while`` loop."""
        fwd[:] = self._reserve(fwd, None)

    def _reserve(self, block: list[ast.stmt], innermost: ast.stmt | None) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in block:
            if isinstance(stmt, (ast.For, ast.While)):
                stmt.body = self._reserve(stmt.body, stmt)
                if isinstance(stmt, ast.For):
                    out += self._reservations(stmt)
            elif isinstance(stmt, ast.If):
                stmt.body = self._reserve(stmt.body, innermost)
                stmt.orelse = self._reserve(stmt.orelse, innermost)
            else:
                tape = self._growable_push(stmt)
                if tape is not None and _makes_own_room(innermost, tape):
                    out.append(Reserve(tape.name, f"{tape.top} + 1"))
            out.append(stmt)
        return out

    def _reservations(self, loop: ast.For) -> list[ast.stmt]:
        counts: dict[str, int] = {}
        tapes: dict[str, Tape] = {}
        for stmt in _own_statements(loop.body):
            tape = self._growable_push(stmt)
            if tape is not None and not _makes_own_room(loop, tape):
                counts[tape.name] = counts.get(tape.name, 0) + 1
                tapes[tape.name] = tape
        out = []
        trips = f"len({ast.unparse(loop.iter)})"
        for name, count in counts.items():
            needed = (
                f"{tapes[name].top} + {trips}"
                if count == 1
                else f"{tapes[name].top} + {count} * {trips}"
            )
            out.append(Reserve(name, needed))
        return out

    def _growable_push(self, stmt: ast.stmt) -> Tape | None:
        if not isinstance(stmt, Push):
            return None
        return next((t for t in self.tapes.values() if t.name == stmt.store and not t.exact), None)

    def _tape(self, var: str, outer: ast.stmt, exact: bool) -> Tape:
        """The stack of ``var``'s dtype in loop nest ``outer``: one for every variable, as
        the reverse sweep pops in exactly the reverse order of the pushes (fewer stacks,
        counters and reservations for Numba to compile than one per variable)."""
        dtype = NUMPY_DTYPES.get(self.types[var].dtype, "np.float64")
        key = (dtype, id(outer), exact)
        if key not in self.tapes:
            stem = STACK_NAMES.get(dtype, "stack")
            name = self.namer.fresh(f"{stem}_tape")
            top = self.namer.fresh(f"{stem}_top")
            self.tapes[key] = Tape(var, name, top, dtype, exact=exact)
        return self.tapes[key]

    def _exact(self, loops: list[ast.stmt]) -> bool:
        for loop in loops:
            if not isinstance(loop, ast.For):
                return False
            if any(_at_entry(arg, loops[0]) is None for arg in loop.iter.args):
                return False
        return True

    def prologue(self) -> list[ast.stmt]:
        """Statements at the top of the derivative: empty tapes and defined save targets."""
        out = []
        for var in sorted((self.loop_saved | self.unassigned) - self.params):
            # The first push reads the variable before the loop defines it.
            out.append(_parse(f"{var} = {placeholder(self.types[var])}"))
        for slot, kind in sorted(self.array_slots.items()):
            out.append(_parse(f"{slot} = {placeholder(kind)}"))
        for var, refs in self.reference_lists.items():
            item = self.region_types.get(var) or self.types[var]
            out.append(NewList(refs, array_type_name(item)))
        out += [Alloc(tape.name, "0", tape.dtype, tape.top) for tape in self.tapes.values()]
        return out

    def allocations(self, outer: ast.stmt) -> list[ast.stmt]:
        """Statements that size the tapes of outermost loop ``outer``, to run just before it."""
        out = []
        for (_, outer_id, _), tape in self.tapes.items():
            if outer_id != id(outer):
                continue
            out.append(Alloc(tape.name, self._capacity(tape, outer), tape.dtype))
        return out

    def _capacity(self, tape: Tape, outer: ast.stmt) -> str:
        if not tape.exact:
            if not isinstance(outer, ast.For):
                return "16"
            return f"max(16, {self._trips(outer, outer)})"
        terms: dict[str, int] = {}  # each distinct count once, with how many sites have it
        for loops in tape.sites:
            term = " * ".join(self._trips(loop, loops[0]) for loop in loops)
            terms[term] = terms.get(term, 0) + 1
        return " + ".join(t if k == 1 else f"{k} * {t}" for t, k in terms.items())

    def _trips(self, loop: ast.For, outer: ast.stmt | None = None) -> str:
        """The trip count of ``loop`` as an expression valid before ``outer`` starts."""
        counter = self.counters[loop]
        if not counter.running and (outer is None or outer is loop):
            return counter.name  # computed just before the loop, before the allocation
        if all(isinstance(a, ast.Constant) for a in loop.iter.args):
            return str(len(range(*(a.value for a in loop.iter.args))))
        args = [_at_entry(a, outer or loop) for a in loop.iter.args]
        if all(a is not None for a in args):
            return f"len(range({', '.join(args)}))"
        return f"len({ast.unparse(loop.iter)})"


def is_region(element: ast.Subscript) -> bool:
    """Whether ``a[...]`` selects a slice (or everything) rather than one element."""
    parts = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
    return any(
        isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value is Ellipsis)
        for p in parts
    )


def selects_region(element: ast.Subscript, types) -> bool:
    """Whether ``a[...]`` may select several elements: a slice, or an index array or mask."""
    return is_region(element) or has_array_index(element, types)


def readable(element: ast.Subscript) -> ast.expr:
    """``a`` for ``a[...]`` (Numba can assign to ``a[...]`` but not read it), else ``element``."""
    index = element.slice
    if isinstance(index, ast.Constant) and index.value is Ellipsis:
        return ast.Name(element.value.id, ast.Load())
    return element


def region_type(array_type, element: ast.Subscript, types):
    """The type of a C-contiguous copy of the region ``element`` selects (an integer index
    array keeps its axis, a mask of ``r`` axes makes them one)."""
    from ..analysis.types import VarType

    parts = element.slice.elts if isinstance(element.slice, ast.Tuple) else [element.slice]
    if any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts):
        ndim = array_type.ndim
    else:
        dropped = [p for p in parts if not isinstance(p, ast.Slice)]
        ndim = array_type.ndim - sum(_axes_taken(p, types) for p in dropped)
    return VarType("array", array_type.dtype, ndim, "C")


def _axes_taken(part: ast.expr, types) -> int:
    """How many axes an index part removes: a number one, an index array none, a mask
    of ``r`` axes ``r - 1``."""
    if is_int_array(part, types):
        return 0
    if is_mask(part, types):
        return types[part.id].ndim - 1
    return 1


def placeholder(t) -> str:
    """A value of type ``t`` to define a variable before its first real assignment."""
    if t.kind == "array":
        # Same layout as the variable, or Numba cannot unify the two: the transpose of a
        # C-contiguous array is Fortran-ordered, a slice with a step has any layout (sizes
        # above 1, because NumPy calls an empty or single-element array contiguous both ways).
        if t.layout == "F" and t.ndim > 1:
            return f"np.empty(({'2, ' * t.ndim}), np.{t.dtype}).T"
        if t.layout == "A":
            return f"np.empty(({'4, ' * t.ndim}), np.{t.dtype})[::2]"
        return f"np.empty(({'0, ' * t.ndim}), np.{t.dtype})"
    if t.kind == "float" and t.dtype not in ("", "float64"):
        return f"np.{t.dtype}(0.0)"  # keeps the variable's precision
    return ZEROS.get(t.kind, "0.0")


def array_type_name(t) -> str:
    """The module-level name codegen defines for the Numba type of arrays like ``t``."""
    return f"ARRAY_{t.dtype}_{t.ndim}D_{t.layout}"


def _at_entry(atom: ast.expr, outer: ast.stmt, depth: int = 0) -> str | None:
    """``atom`` as an expression with the same value at every point of ``outer`` (a loop),
    evaluable before it starts; None if the loop may change it.

    A temporary such as ``t1 = n - 1`` computed inside the loop from names the loop
    never assigns is replaced by its definition: ``(n - 1)``, and so is ``m = x.shape[0]``
    (a helper's, inlined into the loop) where the loop does not bind ``x``.
    """
    if isinstance(atom, ast.Constant):
        return repr(atom.value)
    if not isinstance(atom, ast.Name) or depth > 8:
        return None
    definitions = [
        s
        for s in walk(outer)
        if isinstance(s, ast.Assign)
        and isinstance(s.targets[0], ast.Name)
        and s.targets[0].id == atom.id
    ]
    loop_targets = {s.target.id for s in walk(outer) if isinstance(s, ast.For)}
    if not definitions and atom.id not in loop_targets:
        return atom.id
    if len(definitions) != 1 or atom.id in loop_targets:
        return None
    value = definitions[0].value
    if isinstance(value, ast.BinOp) and type(value.op) in (
        ast.Add,
        ast.Sub,
        ast.Mult,
        ast.FloorDiv,
    ):
        left = _at_entry(value.left, outer, depth + 1)
        right = _at_entry(value.right, outer, depth + 1)
        if left is not None and right is not None:
            symbol = ast.unparse(ast.BinOp(ast.Name("a"), value.op, ast.Name("b")))[2:-2]
            return f"({left} {symbol} {right})"
    if isinstance(value, (ast.Name, ast.Constant)):
        return _at_entry(value, outer, depth + 1)
    axis = shape_axis(value)  # an array the loop does not bind again keeps its shape
    if axis is not None and _at_entry(ast.Name(axis[0]), outer, depth + 1) == axis[0]:
        return f"{axis[0]}.shape[{axis[1]}]"
    return None


def _makes_own_room(loop: ast.stmt | None, tape: Tape) -> bool:
    """Whether a push onto growable ``tape`` in ``loop``'s own body makes room for itself:
    in a ``while`` loop (no trip count to reserve for), or where a loop nested in ``loop``
    pushes onto the same tape, since its pushes use up what was reserved before ``loop``
    (an outer body's push after an inner loop would write past the end)."""
    if isinstance(loop, ast.While):
        return True
    if loop is None:
        return False
    nested = (n for n in walk(loop) if isinstance(n, (ast.For, ast.While)) and n is not loop)
    return any(isinstance(p, Push) and p.store == tape.name for n in nested for p in walk(n))


def _own_statements(block: list[ast.stmt]):
    """Statements of ``block`` and of its ``if`` branches, not inside nested loops."""
    for stmt in block:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _own_statements(stmt.body)
            yield from _own_statements(stmt.orelse)

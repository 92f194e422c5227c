"""Records: what the forward sweep keeps for the reverse sweep, as typed statements.

The reverse builder (``reverse.py``, with ``tape.py`` and ``checkpoint.py``)
emits records as the nodes below, placed among ordinary statements. They are
lowered in exactly one place, two ways:

- :func:`lower`: to the NumPy statements the derivative runs (a push becomes
  ``s_tape[s_top] = s`` and ``s_top += 1``);
- :func:`count_bytes`: to the bytes each adds to the record, for the counting
  function behind ``sd.tape_size`` and the plan of policy ``"auto"``. A
  counted push is ``recorded_bytes += 8``; allocations, stack pointers and
  write-backs into the caller's arrays count nothing and disappear.

>>> body = [Push("s_tape", "s_top", "s", "8"), Advance("s_top", 1)]
>>> print("\\n".join(ast.unparse(s) for s in lower(body)))
s_tape[s_top] = s
s_top += 1
>>> print("\\n".join(ast.unparse(s) for s in count_bytes(body, "recorded_bytes")))
recorded_bytes += 8

The counting function is the adjoint's forward sweep with its records counted
(nothing is written into the caller's arrays). For loops whose iterations are
re-run (recompute, checkpoint) the record of the single iteration being
reversed is counted once, as the largest over all iterations. Running it
costs about one evaluation of the function.

>>> loop = ast.parse("for i in range(n):\\n    s = s * x").body[0]
>>> loop.body[:0] = [Push("s_tape", "s_top", "s", "8"), Advance("s_top", 1)]
>>> print(ast.unparse(counting_function("f_record_bytes", ["x", "n"], [loop])))
def f_record_bytes(x, n):
    recorded_bytes = 0
    peak_bytes = 0
    for i in range(n):
        recorded_bytes += 8
        s = s * x
    return recorded_bytes + peak_bytes
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from ..astnodes import clone


def _parse(source: str) -> list[ast.stmt]:
    return ast.parse(source).body


class Record(ast.stmt):
    """A record statement: :meth:`statements` runs it, :meth:`bytes` counts it."""

    _fields = ()
    #: Whether the optimizer may move pure values across it: it changes only the fresh
    #: names of :meth:`changes` (tapes, their tops, lists nothing else aliases).
    marked = False

    def statements(self) -> list[ast.stmt]:
        raise NotImplementedError

    def bytes(self) -> str | None:
        """An expression of the bytes it adds to the record, or None (nothing)."""
        return None

    def changes(self) -> tuple[str, ...]:
        """The fresh names it changes (the optimizer's ``record_writes``)."""
        return ()


@dataclass(eq=False)
class Alloc(Record):
    """A new stack of ``size`` elements (``top``, if given, starts at 0)."""

    store: str
    size: str
    dtype: str
    top: str = ""

    def statements(self):
        top = [f"{self.top} = 0"] if self.top else []
        return _parse("\n".join([f"{self.store} = np.empty({self.size}, {self.dtype})"] + top))


@dataclass(eq=False)
class NewList(Record):
    """A new typed list of arrays of Numba type ``item``."""

    store: str
    item: str

    def statements(self):
        return _parse(f"{self.store} = List.empty_list({self.item})")


class _OnStore(Record):
    """A record that changes only its ``store`` (a fresh stack or list)."""

    marked = True

    def changes(self):
        return (self.store,)


class _Kept(_OnStore):
    """A record that keeps ``size`` bytes in its ``store``."""

    def bytes(self):
        return self.size


@dataclass(eq=False)
class Reserve(_OnStore):
    """Room for ``needed`` elements in a growable stack (capacity doubling)."""

    store: str
    needed: str

    def statements(self):
        return _parse(f"{self.store} = reserve({self.store}, {self.needed})")


@dataclass(eq=False)
class Push(_Kept):
    """``store[index] = value``: one element of ``size`` bytes kept."""

    store: str
    index: str
    value: str
    size: str
    marked: bool = True

    def statements(self):
        return _parse(f"{self.store}[{self.index}] = {self.value}")


@dataclass(eq=False)
class Advance(Record):
    """A stack pointer moved by ``step`` (+1 after a push, -1 before a pop)."""

    top: str
    step: int
    marked: bool = True

    def statements(self):
        op = "+=" if self.step > 0 else "-="
        return _parse(f"{self.top} {op} {abs(self.step)}")

    def changes(self):
        return (self.top,)


@dataclass(eq=False)
class Append(_Kept):
    """``store.append(value)``: an array kept in a list; ``size`` its bytes."""

    store: str
    value: str
    size: str
    marked: bool = True

    def statements(self):
        return _parse(f"{self.store}.append({self.value})")


@dataclass(eq=False)
class Snapshot(_Kept):
    """An array copied into slot ``slot`` of a list of snapshots (appended when new)."""

    store: str
    slot: str
    value: str
    size: str

    def statements(self):
        copied = f"{self.value}.copy()"
        return _parse(
            f"if {self.slot} < len({self.store}):\n    {self.store}[{self.slot}] = {copied}\n"
            f"else:\n    {self.store}.append({copied})"
        )


@dataclass(eq=False)
class Save(Record):
    """A value kept in a local (outside loops): not counted, like a stack pointer."""

    slot: str
    value: str

    def statements(self):
        return _parse(f"{self.slot} = {self.value}")


@dataclass(eq=False)
class Restore(Record):
    """``target = source``: a kept value read back in the reverse sweep."""

    target: str
    source: str
    changed: tuple = ()  # the list a ``pop()`` changes, and the target, for the optimizer

    def statements(self):
        return _parse(f"{self.target} = {self.source}")

    def changes(self):
        return self.changed

    @property
    def marked(self):
        return bool(self.changed)


@dataclass(eq=False)
class WriteBack(Record):
    """The primal's final array state written into the caller's array (not counted)."""

    caller: str
    work: str

    def statements(self):
        return _parse(f"{self.caller}[...] = {self.work}")


@dataclass(eq=False)
class Schedule(Record):
    """The revolve schedule of a checkpointed loop: run in the reverse sweep, its frames
    counted in the forward sweep right after the loop."""

    count: str
    snapshots: str

    def statements(self):
        return []

    def bytes(self):
        return f"revolve_bytes({self.count}, {self.snapshots})"


@dataclass(eq=False)
class RerunLoop(Record):
    """A forward loop whose iterations the reverse sweep runs again: ``loop`` runs,
    ``entry`` its per-iteration records; the records of ``rerun`` (one iteration's
    forward part, with its own records) live one iteration at a time, so they count at
    their peak over the iterations."""

    loop: ast.For
    entry: list = field(default_factory=list)
    rerun: list = field(default_factory=list)

    def statements(self):
        forward = copy.copy(self.loop)
        forward.body = self.entry + self.loop.body
        return [forward]


def lower(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """``stmts`` with every record replaced by the NumPy statements it stands for."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, Record):
            out += [_marked(s, stmt) for s in lower(stmt.statements())]
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            new = copy.copy(stmt)
            new.body = lower(stmt.body) or [ast.Pass()]
            new.orelse = lower(stmt.orelse)
            out.append(new)
        else:
            out.append(stmt)
    return out


def _marked(lowered: ast.stmt, record: Record) -> ast.stmt:
    if record.marked and not isinstance(lowered, (ast.If, ast.For)):
        lowered.record_writes = frozenset(record.changes())
    if hasattr(record, "origin"):
        lowered.origin = record.origin
    return lowered


def count_bytes(stmts: list[ast.stmt], total: str) -> list[ast.stmt]:
    """``stmts`` with every record replaced by ``total += <its bytes>`` (or dropped)."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, RerunLoop):
            out.append(_rerun_count(stmt, total))
        elif isinstance(stmt, Record):
            size = stmt.bytes()
            out += _parse(f"{total} += {size}") if size is not None else []
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            new = copy.copy(stmt)
            new.body = count_bytes(stmt.body, total) or [ast.Pass()]
            new.orelse = count_bytes(stmt.orelse, total)
            out.append(new)
        else:
            out.append(clone(stmt))
    return out


def _rerun_count(stmt: RerunLoop, total: str) -> ast.For:
    """The loop with its entry records counted and one iteration's records at their peak
    (``peak_bytes``): the iteration runs as the reverse sweep re-runs it."""
    new = copy.copy(stmt.loop)
    new.body = count_bytes(stmt.entry, total) + _parse("iteration_bytes = 0")
    new.body += count_bytes(stmt.rerun, "iteration_bytes")
    new.body += _parse("peak_bytes = max(peak_bytes, iteration_bytes)")
    return new


def counting_function(name: str, params: list[str], forward: list[ast.stmt]) -> ast.FunctionDef:
    """A function of the primal's parameters returning the bytes the adjoint records."""
    body = ast.parse("recorded_bytes = 0\npeak_bytes = 0").body
    body += count_bytes(forward, "recorded_bytes")
    body += ast.parse("return recorded_bytes + peak_bytes").body
    arguments = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
    return ast.fix_missing_locations(ast.FunctionDef(name, arguments, body, []))


def keeps_bytes(stmts: list[ast.stmt]) -> bool:
    """Whether some record among ``stmts``, at any depth, keeps memory (``tape_size``
    counts it).

    >>> keeps_bytes([ast.If(ast.Name("c"), [Push("x_tape", "x_top", "x", "8")], [])])
    True
    """
    for stmt in stmts:
        if isinstance(stmt, RerunLoop):
            if keeps_bytes(stmt.entry) or keeps_bytes(stmt.rerun):
                return True
        elif isinstance(stmt, Record):
            if stmt.bytes() is not None:
                return True
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            if keeps_bytes(stmt.body) or keeps_bytes(stmt.orelse):
                return True
    return False

"""The entry state of a loop's iterations: what the recompute and revolve strategies
(loops.py) save, restore and snapshot to re-run an iteration.

Under ``"recompute"`` the forward sweep records each iteration's entry state
(the variables the iteration reads and changes, see ``analysis.liveness``);
the reverse sweep restores it and runs that iteration's forward part (with
its own short-lived records) right before its reverse part::

    for i in range(n):                      for i in range(n - 1, -1, -1):
        s_states[state_top] = s                 state_top -= 1
        state_top += 1                          s = s_states[state_top]
        <the user's loop body>                  <forward part of the body>
                                                <reverse part of the body>

Under ``Checkpoint(snapshots=k)`` only the loop's entry state is recorded; the
reverse sweep follows the binomial (revolve) schedule of
``runtime.revolve_schedule``: advance the primal, take or restore one of at
most ``k`` snapshots, or reverse one iteration. Arrays in a state are copied.
"""

from __future__ import annotations

import ast

from ..naming import Namer
from .records import Advance, Alloc, Append, NewList, Push, Restore, Snapshot
from .tape import ITEMSIZES, array_type_name, placeholder


def _parse(source: str) -> list[ast.stmt]:
    return ast.parse(source).body


class IterationState:
    """How to save and restore the entry state of one loop's iterations."""

    def __init__(
        self, names: list[str], types, namer: Namer, stem: str, params=(), dead=(), shared=()
    ):
        self.params = set(params)
        self.names = names
        self.types = types
        arrays = [n for n in names if types[n].kind == "array"]
        # Arrays each iteration overwrites before reading them (analysis/must_write.py):
        # a re-run needs their buffers, which keep their shapes, not their contents.
        self.rewritten = [n for n in arrays if n in dead]
        self.arrays = [n for n in arrays if n not in dead]
        self.scalars = [n for n in names if types[n].kind != "array"]
        # Arrays another name may hold too (``p = np.exp(z)`` read as ``t1``): restoring a
        # copy rebinds only the state's name, so their entry contents go back into the
        # buffer itself once the loop is reversed.
        self.shared = [n for n in arrays if n in shared]
        self.buffer = {n: namer.fresh(f"{n}_buffer") for n in self.shared}
        self.store = {n: namer.fresh(f"{n}_{stem}") for n in names}
        self.entry = {n: namer.fresh(f"{n}_at_entry") for n in names}
        self.top = namer.fresh(f"{stem}_top")

    def prologue(self) -> list[ast.stmt]:
        """Defines every state variable and an empty store for each."""
        out = []
        for name in self.names:
            if name not in self.params:  # the first record may come before the first assignment
                out += _parse(f"{name} = {placeholder(self.types[name])}")
        out += [Alloc(self.store[n], "0", f"np.{_dtype(self.types[n])}") for n in self.scalars]
        for name in self.arrays:
            out.append(NewList(self.store[name], array_type_name(_contiguous(self.types[name]))))
        return out + _parse(f"{self.top} = 0")

    def allocate(self, capacity: str) -> list[ast.stmt]:
        return [Alloc(self.store[n], capacity, f"np.{_dtype(self.types[n])}") for n in self.scalars]

    def push(self) -> list[ast.stmt]:
        """Records of the entry state of one iteration (policy "recompute")."""
        out: list[ast.stmt] = [
            Push(self.store[n], self.top, n, str(self.size(n)), marked=False) for n in self.scalars
        ]
        out += [Append(self.store[n], f"{n}.copy()", f"{n}.nbytes", False) for n in self.arrays]
        return out + [Advance(self.top, 1, marked=False)]

    def pop(self) -> list[ast.stmt]:
        out: list[ast.stmt] = [Advance(self.top, -1, marked=False)]
        out += [Restore(n, f"{self.store[n]}[{self.top}]") for n in self.scalars]
        return out + [Restore(n, f"{self.store[n]}.pop()") for n in self.arrays]

    def take(self, slot: str, copies: str = "1") -> list[ast.stmt]:
        """Records of a snapshot in slot ``slot``; counted as ``copies`` snapshots."""
        out: list[ast.stmt] = [
            Push(self.store[n], slot, n, f"{self.size(n)} * {copies}", marked=False)
            for n in self.scalars
        ]
        sizes = {n: f"{copies} * {n}.nbytes" for n in self.arrays}
        return out + [Snapshot(self.store[n], slot, n, sizes[n]) for n in self.arrays]

    def size(self, name: str) -> int:
        """Bytes of one kept element of scalar ``name``."""
        return ITEMSIZES.get(f"np.{_dtype(self.types[name])}", 8)

    def take_entry(self, names=None) -> list[ast.stmt]:
        """Keep the loop's entry state aside (restored after its reverse loop)."""
        names = self.names if names is None else names
        return [
            _parse(
                f"{self.entry[n]} = {n}.copy()"
                if n in self.arrays or n in self.rewritten
                else f"{self.entry[n]} = {n}"
            )[0]
            for n in names
        ]

    def restore_entry(self, names=None) -> list[ast.stmt]:
        names = self.names if names is None else names
        return [_parse(f"{n} = {self.entry[n]}")[0] for n in names]

    def keep_buffers(self) -> list[ast.stmt]:
        """At the loop's entry: the buffers of the shared arrays, by reference."""
        return [_parse(f"{self.buffer[n]} = {n}")[0] for n in self.shared]

    def refill_buffers(self) -> list[ast.stmt]:
        """Once the loop is reversed (each shared name holding a copy of its entry state):
        that state back into the buffer every name of it holds."""
        out = []
        for n in self.shared:
            out += _parse(f"{self.buffer[n]}[...] = {n}\n{n} = {self.buffer[n]}")
        return out

    def restore(self, slot: str) -> list[ast.stmt]:
        out = [_parse(f"{n} = {self.store[n]}[{slot}]")[0] for n in self.scalars]
        return out + [_parse(f"{n} = {self.store[n]}[{slot}].copy()")[0] for n in self.arrays]


def _dtype(t) -> str:
    if t.kind == "float":
        return t.dtype or "float64"
    return {"int": "int64", "bool": "bool_"}.get(t.kind, t.dtype or "float64")


def _contiguous(t):
    from ..analysis.types import VarType

    return VarType(t.kind, t.dtype, t.ndim, "C")


def iteration_index(loop: ast.For, it: str) -> ast.stmt:
    """``i = start + it * step`` for iteration number ``it`` of ``loop``."""
    args = loop.iter.args
    start = ast.unparse(args[0]) if len(args) > 1 else "0"
    step = ast.unparse(args[2]) if len(args) == 3 else "1"
    return _parse(f"{loop.target.id} = {start} + {it} * {step}")[0]


def without_exit(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without its canonical final ``if broke: break`` (see normalize.exits)."""
    last = body[-1] if body else None
    if isinstance(last, ast.If) and last.body and isinstance(last.body[0], ast.Break):
        return body[:-1]
    return body

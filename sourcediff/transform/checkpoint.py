"""Reverse an outermost loop by re-running iterations: recompute and checkpoint policies.

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
``runtime.revolve_actions``: advance the primal, take or restore one of at
most ``k`` snapshots, or reverse one iteration. Arrays in a state are copied.
"""

from __future__ import annotations

import ast
import copy

from ..naming import Namer
from ..runtime import ADVANCE, RESTORE, TAKESHOT  # the revolve protocol, defined once
from .tape import array_type_name, placeholder


def _parse(source: str) -> list[ast.stmt]:
    return ast.parse(source).body


class IterationState:
    """How to save and restore the entry state of one loop's iterations."""

    def __init__(self, names: list[str], types, namer: Namer, stem: str, params=()):
        self.params = set(params)
        self.names = names
        self.types = types
        self.arrays = [n for n in names if types[n].kind == "array"]
        self.scalars = [n for n in names if n not in self.arrays]
        self.store = {n: namer.fresh(f"{n}_{stem}") for n in names}
        self.entry = {n: namer.fresh(f"{n}_at_entry") for n in names}
        self.top = namer.fresh(f"{stem}_top")

    def prologue(self) -> list[ast.stmt]:
        """Defines every state variable and an empty store for each."""
        out = []
        for name in self.names:
            if name not in self.params:  # the first record may come before the first assignment
                out += _parse(f"{name} = {placeholder(self.types[name])}")
        for name in self.scalars:
            out += _parse(f"{self.store[name]} = np.empty(0, np.{_dtype(self.types[name])})")
        for name in self.arrays:
            item = array_type_name(_contiguous(self.types[name]))
            out += _parse(f"{self.store[name]} = List.empty_list({item})")
        return out + _parse(f"{self.top} = 0")

    def allocate(self, capacity: str) -> list[ast.stmt]:
        out = []
        for name in self.scalars:
            dtype = _dtype(self.types[name])
            out += _parse(f"{self.store[name]} = np.empty({capacity}, np.{dtype})")
        return out

    def push(self) -> list[ast.stmt]:
        out = [_parse(f"{self.store[n]}[{self.top}] = {n}")[0] for n in self.scalars]
        out += [_parse(f"{self.store[n]}.append({n}.copy())")[0] for n in self.arrays]
        return out + _parse(f"{self.top} += 1")

    def pop(self) -> list[ast.stmt]:
        out = _parse(f"{self.top} -= 1")
        out += [_parse(f"{n} = {self.store[n]}[{self.top}]")[0] for n in self.scalars]
        return out + [_parse(f"{n} = {self.store[n]}.pop()")[0] for n in self.arrays]

    def take(self, slot: str) -> list[ast.stmt]:
        out = [_parse(f"{self.store[n]}[{slot}] = {n}")[0] for n in self.scalars]
        for n in self.arrays:
            store = self.store[n]
            out += _parse(
                f"if {slot} < len({store}):\n    {store}[{slot}] = {n}.copy()\n"
                f"else:\n    {store}.append({n}.copy())"
            )
        return out

    def bytes_expression(self) -> str:
        """An expression for the bytes one copy of the state takes."""
        parts = [f"{n}.nbytes" for n in self.arrays] + [str(8 * len(self.scalars))]
        return " + ".join(parts)

    def take_entry(self) -> list[ast.stmt]:
        """Keep the loop's entry state aside (restored after its reverse loop)."""
        out = [_parse(f"{self.entry[n]} = {n}")[0] for n in self.scalars]
        return out + [_parse(f"{self.entry[n]} = {n}.copy()")[0] for n in self.arrays]

    def restore_entry(self) -> list[ast.stmt]:
        return [_parse(f"{n} = {self.entry[n]}")[0] for n in self.names]

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


def recompute_loop(loop: ast.For, primal_body, state: IterationState, count: str):
    """Forward loop recording entry states; the reverse body prefix restoring one; and
    what restores the loop's entry state once the reverse loop is done."""
    forward = copy.copy(loop)
    forward.body = state.push() + primal_body
    capacity = f"len({ast.unparse(loop.iter)})"
    entry = state.allocate(capacity) + state.take_entry()
    return entry + [forward], state.pop(), state.restore_entry()


def checkpoint_loop(loop, primal_body, body_f, body_r, state, count, snapshots, namer):
    """Forward: snapshot the entry state, run the loop. Reverse: follow the revolve schedule."""
    forward = copy.copy(loop)
    forward.body = list(primal_body)
    entry = state.allocate(str(snapshots)) + state.take("0")
    actions, a, it = namer.fresh("actions"), namer.fresh("a"), namer.fresh("it")
    kind, slot = namer.fresh("action"), namer.fresh("slot")
    advance = ast.For(
        ast.Name(it, ast.Store()),
        ast.parse(f"range({actions}[{a}, 1], {actions}[{a}, 2])", mode="eval").body,
        [iteration_index(loop, it)] + copy.deepcopy(without_exit(primal_body)),
        [],
    )
    take = _parse(f"{slot} = {actions}[{a}, 1]") + state.take(slot)
    restore = _parse(f"{slot} = {actions}[{a}, 1]") + state.restore(slot)
    reverse_step = [iteration_index(loop, f"{actions}[{a}, 1]")] + body_f + body_r
    dispatch = ast.If(
        _parse(f"{kind} == {ADVANCE}")[0].value,
        [advance],
        [
            ast.If(
                _parse(f"{kind} == {TAKESHOT}")[0].value,
                take,
                [ast.If(_parse(f"{kind} == {RESTORE}")[0].value, restore, reverse_step)],
            )
        ],
    )
    schedule = _parse(f"{actions} = revolve_actions({count}, {snapshots})")
    # The last reversed iteration re-ran; the code before the loop needs its entry state.
    after = state.restore("0")
    driver = ast.For(
        ast.Name(a, ast.Store()),
        ast.parse(f"range({actions}.shape[0])", mode="eval").body,
        _parse(f"{kind} = {actions}[{a}, 0]") + [dispatch],
        [],
    )
    return entry + [forward], schedule + [driver] + after


def without_exit(body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` without its canonical final ``if broke: break`` (see normalize.exits)."""
    last = body[-1] if body else None
    if isinstance(last, ast.If) and last.body and isinstance(last.body[0], ast.Break):
        return body[:-1]
    return body

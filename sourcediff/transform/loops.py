"""Stage 4, how a loop is reversed: one interface, three strategies.

The plan (``plan.py``) names a strategy for each outermost ``for`` loop whose
reverse has work; every other loop is stored. A strategy is handed the
:class:`~sourcediff.transform.reverse.ReverseBuilder` (which differentiates the
loop's statements) and the loop, and gives the loop's forward statements,
records included, and its reverse sweep:

- :class:`Store`: the forward loop records what its iterations overwrite; the
  reverse loop runs backwards over the same range (a ``while`` loop: its
  recorded number of iterations) and restores it as it goes.
- :class:`Recompute`: the forward loop records each iteration's entry state (the
  variables it reads and changes, ``analysis.liveness``); the reverse loop
  restores one and re-runs that iteration's forward part, with its own
  short-lived records, right before its reverse part::

    for i in range(n):                      for i in range(n - 1, -1, -1):
        s_states[state_top] = s                 state_top -= 1
        state_top += 1                          s = s_states[state_top]
        <the user's loop body>                  <forward part of the body>
                                                <reverse part of the body>

- :class:`Revolve` (``Checkpoint(snapshots=k)``): only the loop's entry state is
  recorded; the reverse sweep follows the binomial schedule of
  ``runtime.revolve_schedule``, made one action at a time in memory bounded by ``k``:
  advance the primal, take or restore one of at most ``k`` snapshots (arrays are
  copied), or reverse one iteration.
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.must_write import index_facts, overwritten_first
from ..analysis.sharing import alias_classes
from ..astnodes import clone
from ..runtime import ADVANCE, RESTORE, TAKESHOT  # the revolve protocol, defined once
from .late_pushes import DeferredPushes, iteration_locals
from .records import RerunLoop, Schedule
from .simplify import simplify
from .states import IterationState, iteration_index, without_exit


class LoopReversal:
    """One way to reverse a loop."""

    def reverse(self, builder, loop: ast.For | ast.While) -> tuple[list, list]:
        """The loop's forward statements (with their records) and its reverse sweep."""
        raise NotImplementedError


def reverse_loop(builder, loop: ast.For | ast.While) -> tuple[list, list]:
    """``loop`` reversed by the strategy the plan names for it."""
    outermost_for = not builder.loops and not builder.rerun and isinstance(loop, ast.For)
    mode = builder.plan.mode(loop) if outermost_for and builder.rec.works(loop) else "store"
    return STRATEGIES[mode].reverse(builder, loop)


class Store(LoopReversal):
    """Record what the iterations overwrite; replay it backwards."""

    def reverse(self, builder, loop):
        builder.loops.append(loop)
        kind = lambda name: builder.types[name].kind  # noqa: E731
        builder.deferred.append(DeferredPushes(iteration_locals(loop, builder.name_counts, kind)))
        body_f, body_r = builder.block(loop.body)
        body_f, body_r = builder.deferred.pop().placed(body_f, body_r)
        builder.loops.pop()
        fields = {f: getattr(loop, f) for f in loop._fields if hasattr(loop, f)}
        fwd = [ir.located(type(loop)(**{**fields, "body": body_f}), loop)]
        if not builder.loops:
            fwd = builder.tapes.allocations(loop) + fwd
        if not builder.rec.works(loop) or not body_r:
            return fwd, []
        if isinstance(loop, ast.For):
            return fwd, [ir.located(reversed_for(loop, body_r, builder.nf.counters), loop)]
        index = builder.namer.fresh("_")
        count = builder.nf.counters[loop].name
        return fwd, [ir.located(_counted_loop(index, count, body_r), loop)]


class _Rerun(LoopReversal):
    """Reverse an iteration by re-running its forward part, from a restored entry state."""

    stem = "states"  # of the names of the state's stores

    def reverse(self, builder, loop: ast.For):
        saved, builder.loops = builder.loops, []  # records of one iteration live for one
        builder.rerun = True
        body_f, body_r = builder.block(without_exit(loop.body))
        builder.loops, builder.rerun = saved, False
        builder.tapes.finish_pushes(body_f)
        names = builder.state_names(loop)
        facts = index_facts(builder.nf, builder.types)
        dead = overwritten_first(loop, names, builder.types, facts, builder.nf.node)
        params = builder.nf.params
        shared = _shared_arrays(builder.nf.node, builder.types, set(names))
        state = IterationState(names, builder.types, builder.namer, self.stem, params, dead, shared)
        builder.extra_prologue += state.prologue()
        fwd, rev = self.schedule(builder, loop, body_f, body_r, state)
        return [ir.located(s, loop) for s in fwd], [ir.located(s, loop) for s in rev]

    def schedule(self, builder, loop, body_f, body_r, state: IterationState):
        """The forward and reverse statements, given one iteration's two parts."""
        raise NotImplementedError


class Recompute(_Rerun):
    """Record every iteration's entry state."""

    def schedule(self, builder, loop, body_f, body_r, state: IterationState):
        forward = RerunLoop(loop, state.push(), body_f)
        entry = state.allocate(f"len({ast.unparse(loop.iter)})") + state.take_entry()
        entry += state.keep_buffers()
        reverse = reversed_for(loop, state.pop() + body_f + body_r, builder.nf.counters)
        return entry + [forward], [reverse] + state.restore_entry() + state.refill_buffers()


class Revolve(_Rerun):
    """Record the loop's entry state; follow the binomial checkpointing schedule."""

    stem = "snapshots"

    def schedule(self, builder, loop, body_f, body_r, state: IterationState):
        snapshots, count = str(builder.plan.snapshots), builder.nf.counters[loop].name
        forward = RerunLoop(loop, [], body_f)
        entry = state.allocate(snapshots) + state.take("0", snapshots)
        entry += state.take_entry(state.rewritten)  # the snapshots leave them out
        entry += state.keep_buffers()
        names = ("schedule", "action", "first", "last", "it", "slot")
        schedule, kind, first, last, it, slot = (builder.namer.fresh(n) for n in names)
        advance = ast.For(
            ast.Name(it, ast.Store()),
            ast.parse(f"range({first}, {last})", mode="eval").body,
            [iteration_index(loop, it)] + clone(without_exit(loop.body)),
            [],
        )
        take = _parse(f"{slot} = {first}") + state.take(slot)
        restore = _parse(f"{slot} = {first}") + state.restore(slot)
        reverse_step = [iteration_index(loop, first)] + body_f + body_r
        dispatch = _if(f"{kind} == {RESTORE}", restore, reverse_step)
        dispatch = _if(f"{kind} == {TAKESHOT}", take, [dispatch])
        dispatch = _if(f"{kind} == {ADVANCE}", [advance], [dispatch])
        made = _parse(f"{schedule} = revolve_schedule({count}, {snapshots})")
        driver = _parse(f"while revolve_next({schedule}):\n    pass")
        driver[0].body = _parse(
            f"{kind} = {schedule}[0, 0]\n{first} = {schedule}[0, 1]\n{last} = {schedule}[0, 2]"
        ) + [dispatch]
        # The last reversed iteration re-ran; the code before the loop needs its entry state.
        reverse = made + driver + state.restore("0") + state.restore_entry(state.rewritten)
        reverse += state.refill_buffers()
        return entry + [forward, Schedule(count, snapshots)], reverse


STRATEGIES: dict[str, LoopReversal] = {
    "store": Store(),
    "recompute": Recompute(),
    "checkpoint": Revolve(),
}


def _shared_arrays(node: ast.FunctionDef, types, state: set[str]) -> set[str]:
    """The arrays that may share memory with an array name outside the ``state`` (whose
    own names are restored with it; analysis/sharing.py)."""
    arrays = {n for n, t in types.variables.items() if t.kind == "array"}
    classes = alias_classes(node, types)
    return {n for n in arrays if classes.get(n, set()) & arrays - state}


def reversed_for(loop: ast.For, body: list[ast.stmt], counters: dict) -> ast.For:
    """``for i in range(start + (n - 1) * step, start - step, -step)``: ``loop``'s
    iterations backwards, ``n`` its recorded trip count."""
    args = loop.iter.args
    start = ast.unparse(args[0]) if len(args) > 1 else "0"
    step = ast.unparse(args[2]) if len(args) == 3 else "1"
    count = counters[loop].name
    last = simplify(ast.parse(f"{start} + ({count} - 1) * {step}", mode="eval").body)
    stop = simplify(ast.parse(f"{start} - {step}", mode="eval").body)
    neg = simplify(ast.parse(f"-{step}", mode="eval").body)
    rng = ast.Call(ir.load("range"), [last, stop, neg], [])
    return ast.For(ast.Name(loop.target.id, ast.Store()), rng, body, [])


def _counted_loop(index: str, count: str, body: list[ast.stmt]) -> ast.For:
    rng = ast.Call(ir.load("range"), [ast.parse(count, mode="eval").body], [])
    return ast.For(ast.Name(index, ast.Store()), rng, body, [])


def _if(test: str, body: list[ast.stmt], orelse: list[ast.stmt]) -> ast.If:
    return ast.If(ast.parse(test, mode="eval").body, body, orelse)


def _parse(source: str) -> list[ast.stmt]:
    return ast.parse(source).body

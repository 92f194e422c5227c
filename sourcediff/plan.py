"""The plan stage: how each outermost loop is reversed, decided before any code is generated.

A :class:`Plan` says, for each outermost ``for`` loop, ``"store"``,
``"recompute"`` or ``"checkpoint"`` (with its number of snapshots), and
whether cheap temporaries are recomputed. Recording and the reverse
transform read the plan and never the policy, so one plan gives one
generated (and compiled) variant.

``"auto"`` is planned at call time, in Python, from the exact size of the
record for the arguments at hand (:func:`plan_auto`): the derivative is first
generated with every loop stored, its counting function (``sd.tape_size``)
runs, and only if the record exceeds the memory budget are the time loops
(loops whose variable indexes nothing) checkpointed. The pipeline receives
the outcome as an :class:`AutoPlan`.

    >>> import ast
    >>> node = ast.parse("def f(x, n):\\n    for i in range(n):\\n        x = x * 2.0\\n").body[0]
    >>> plan = make_plan(node, Checkpoint(snapshots=3), types=None)
    >>> plan.mode(node.body[0]), plan.snapshots, plan.recompute_temporaries
    ('checkpoint', 3, True)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from . import ir
from .analysis.liveness import entry_state
from .analysis.recording import indexes_by_target, time_loop
from .ir import outermost_loops
from .policy import Checkpoint


@dataclass(frozen=True)
class AutoPlan:
    """What policy "auto" chose for one call: store (``snapshots=0``), or checkpoint
    the time loops with ``snapshots`` states."""

    snapshots: int = 0


@dataclass(frozen=True)
class Plan:
    """How each outermost loop (keyed by identity) is reversed."""

    modes: dict[int, str] = field(default_factory=dict)
    snapshots: int = 0
    recompute_temporaries: bool = True

    def mode(self, loop: ast.stmt) -> str:
        """``"store"``, ``"recompute"`` or ``"checkpoint"`` for an outermost loop."""
        return self.modes.get(id(loop), "store")

    def reruns(self, loop: ast.stmt) -> bool:
        """Whether ``loop``'s iterations are re-run in the reverse sweep."""
        return self.mode(loop) != "store"

    def rerunning(self, loops: list) -> Plan:
        """This plan with ``loops`` recomputed."""
        modes = dict(self.modes) | {id(loop): "recompute" for loop in loops}
        return Plan(modes, self.snapshots, self.recompute_temporaries)


def make_plan(node: ast.FunctionDef, policy, types) -> Plan:
    """The plan for ``policy`` ("store", "recompute", a Checkpoint or an AutoPlan)."""
    # Loops that scalarization made of array statements are spatial: always stored.
    loops = [
        loop
        for loop in outermost_loops(node.body)
        if isinstance(loop, ast.For) and not getattr(loop, "scalarized", False)
    ]
    if isinstance(policy, Checkpoint):
        return Plan({id(loop): "checkpoint" for loop in loops}, policy.snapshots)
    if policy == "recompute":
        return Plan({id(loop): "recompute" for loop in loops})
    if isinstance(policy, AutoPlan) and policy.snapshots:
        timed = [loop for loop in loops if time_loop(loop, types)]
        return Plan({id(loop): "checkpoint" for loop in timed}, policy.snapshots)
    return Plan(recompute_temporaries=policy != "store")


def cheaper_to_rerun(nf, types, recording) -> list[ast.For]:
    """Under "auto", the stored loops whose iterations are cheaper to re-run than to record:
    time loops of straight-line scalar arithmetic whose entry state is smaller than what
    storing records per iteration, and whose operations are fewer than
    ``RERUN_OPERATIONS`` per value stored. A function call (``math.sin``) costs more to
    re-run than a recorded value to read back: such loops stay stored, and so does an
    RK4 step of the Lorenz system (76 operations for 18 stage values).

    >>> src = "def f(x, n):\\n    for k in range(n):\\n        a = x * x\\n        x = a * a\\n"
    >>> node = ast.parse(src).body[0]
    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> flt = VarType("float", "float64")
    >>> types = TypeTable({"x": flt, "a": flt, "n": VarType("int", "int64")}, flt)
    >>> [type(loop).__name__ for loop in _straight_scalar_loops(node, types)]
    ['For']
    """
    chosen = []
    for loop in _straight_scalar_loops(nf.node, types):
        recorded = sum(1 for stmt in ast.walk(loop) if recording.saves_at(stmt))
        state = entry_state(nf, loop, recording.live_at_entry.get(id(loop), set()))
        if len(state) < recorded and _operations(loop) <= RERUN_OPERATIONS * recorded:
            chosen.append(loop)
    return chosen


# A value stored and read back costs about as much as this many operations re-run: an
# RK4 Lorenz step (76 operations for 18 values, a ratio of 4.2) measured 62-76 us with
# its stages recomputed from x, y, z against 58 stored, so from a ratio of 3 they are.
RERUN_OPERATIONS = 3


def _operations(loop: ast.For) -> int:
    """The arithmetic operations, comparisons and calls one iteration of ``loop`` runs."""
    kinds = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.AugAssign, ast.BoolOp)
    return sum(isinstance(node, kinds) for stmt in loop.body for node in ast.walk(stmt))


def _straight_scalar_loops(node: ast.FunctionDef, types) -> list[ast.For]:
    """Outermost time loops (their variable indexes nothing) whose body binds scalars
    only, with no inner loop, no element write and no costly call."""
    return [
        loop
        for loop in outermost_loops(node.body)
        if isinstance(loop, ast.For)
        and not indexes_by_target(loop)
        and all(_binds_scalars(stmt, types) for stmt in ast.walk(ast.Module(loop.body, [])))
    ]


CHEAP_CALLS = frozenset({"abs", "min", "max", "float", "int"})


def _binds_scalars(node: ast.AST, types) -> bool:
    """Whether ``node`` is cheap scalar code: no loop, no costly call, scalar targets."""
    if isinstance(node, (ast.For, ast.While)):
        return False
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in CHEAP_CALLS
    if isinstance(node, ast.AugAssign):
        targets = [node.target]
    elif isinstance(node, ast.Assign):
        targets = node.targets[0].elts if ir.is_permutation(node) else node.targets
    else:
        return True
    return all(isinstance(t, ast.Name) and types[t.id].kind != "array" for t in targets)


def has_time_loop(node: ast.FunctionDef, types) -> bool:
    """Whether "auto" could checkpoint anything in ``node`` (else it always stores)."""
    return any(
        time_loop(loop, types) and not getattr(loop, "scalarized", False)
        for loop in outermost_loops(node.body)
    )


def snapshots_within(budget: int, one_snapshot_bytes: int) -> int:
    """Snapshots that fit half the budget, given the record with one snapshot (4 to 1000)."""
    return max(4, min(1000, budget // max(1, 2 * one_snapshot_bytes)))

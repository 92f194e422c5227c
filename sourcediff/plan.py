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

from .analysis.recording import time_loop
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


def has_time_loop(node: ast.FunctionDef, types) -> bool:
    """Whether "auto" could checkpoint anything in ``node`` (else it always stores)."""
    return any(
        time_loop(loop, types) and not getattr(loop, "scalarized", False)
        for loop in outermost_loops(node.body)
    )


def snapshots_within(budget: int, one_snapshot_bytes: int) -> int:
    """Snapshots that fit half the budget, given the record with one snapshot (4 to 1000)."""
    return max(4, min(1000, budget // max(1, 2 * one_snapshot_bytes)))

"""Store, recompute or checkpoint: the ``policy=`` of every reverse transformation.

- ``"store"``: record what the reverse sweep reads and the forward sweep overwrites.
- ``"recompute"``: for each outermost ``for`` loop, record only each iteration's
  entry state; the reverse sweep restores it and re-runs the iteration's forward
  part just before its reverse part. Cheap temporaries are recomputed too.
- ``Checkpoint(snapshots=k)``: binomial (revolve) checkpointing of each outermost
  ``for`` loop with at most ``k`` stored iteration states.
- ``"auto"``: store, recomputing cheap temporaries; when the record of the
  arguments at hand would exceed ``memory_budget`` bytes, the outermost loops
  are checkpointed instead (see ``sourcediff.api``).

``while`` loops have no trip count at entry, so recompute and checkpoint
policies store their records (documented fallback, never wrong).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ArgumentError

DEFAULT_MEMORY_BUDGET = 512 * 2**20


@dataclass(frozen=True)
class Checkpoint:
    """Binomial checkpointing of the outermost loop with at most ``snapshots`` states."""

    snapshots: int = 20

    def __post_init__(self):
        if not isinstance(self.snapshots, int) or self.snapshots < 1:
            raise ArgumentError(f"Checkpoint needs snapshots >= 1, got {self.snapshots!r}")


def check_policy(policy):
    """``policy`` if it is one of the accepted values, else an ArgumentError."""
    if isinstance(policy, Checkpoint) or policy in ("auto", "store", "recompute"):
        return policy
    raise ArgumentError(
        f"policy must be 'auto', 'store', 'recompute' or sd.Checkpoint(snapshots=k), got {policy!r}"
    )


def loop_mode(policy) -> str:
    """How outermost loops are reversed: 'store', 'recompute' or 'checkpoint'."""
    if isinstance(policy, Checkpoint):
        return "checkpoint"
    return "recompute" if policy == "recompute" else "store"


def recomputes_temporaries(policy) -> bool:
    """Whether cheap temporaries are recomputed rather than stored."""
    return policy != "store"

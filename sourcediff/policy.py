"""Store, recompute or checkpoint: the ``policy=`` of every reverse transformation.

- ``"store"``: record what the reverse sweep reads and the forward sweep overwrites.
- ``"recompute"``: for each outermost ``for`` loop, record only each iteration's
  entry state; the reverse sweep restores it and re-runs the iteration's forward
  part just before its reverse part. Cheap temporaries are recomputed too.
- ``Checkpoint(snapshots=k)``: binomial (revolve) checkpointing of each outermost
  ``for`` loop with at most ``k`` stored iteration states.
- ``"auto"``: store, recomputing cheap temporaries; when the exact record of
  the arguments at hand would exceed ``memory_budget()`` bytes, the time loops
  are checkpointed instead (planned at call time: see ``sourcediff.plan``).

``while`` loops have no trip count at entry, so recompute and checkpoint
policies store their records (documented fallback, never wrong).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import ArgumentError

DEFAULT_MEMORY_BUDGET = 512 * 2**20
UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


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


def memory_budget() -> int:
    """Bytes of record above which policy "auto" checkpoints a loop.

    ``SOURCEDIFF_MEMORY_BUDGET`` sets it (``512M``, ``2G``, or plain bytes);
    the default is 512 MiB.
    """
    text = os.environ.get("SOURCEDIFF_MEMORY_BUDGET", "").strip().upper().rstrip("B")
    if not text:
        return DEFAULT_MEMORY_BUDGET
    unit = text[-1] if text[-1] in UNITS else ""
    try:
        return int(float(text[: len(text) - len(unit)]) * UNITS[unit])
    except ValueError:
        raise ArgumentError(f"SOURCEDIFF_MEMORY_BUDGET={text!r} is not a size like 512M") from None

"""Stage 3-4 analyses of the normalized function; they read the tree and never rewrite it.

- ``types``: Numba's own type inference of the normalized primal.
- ``activity``: which variables carry a derivative from an input to the output.
- ``shapes``: which arrays may change shape between loop iterations.
- ``recompute``: which cheap temporaries the reverse sweep recomputes.
- ``recording``: to-be-recorded (TBR): which overwrites must save the old value.
- ``liveness``: the state an iteration carries (recompute and checkpoint policies).
- ``aliases`` and ``inplace``: a refusal and a typed rewrite still filed here
  (they belong beside ``fence`` and in ``normalize``).
"""

"""Stage 3-4 analyses of the normalized function; they read the tree and never rewrite it.

- ``types``: Numba's own type inference of the normalized primal.
- ``activity``: which variables carry a derivative from an input to the output.
- ``shapes``: which arrays may change shape between loop iterations.
- ``recompute``: which cheap temporaries the reverse sweep recomputes.
- ``recording``: to-be-recorded (TBR): which overwrites must save the old value.
- ``liveness``: the state an iteration carries (recompute and checkpoint policies).
- ``aliases``: the refusal of writes through a second name, which needs types.
- ``sharing``: which names may share an array's memory.
- ``known_calls``: which numbers hold a call an adjoint's partial would make again.

Rewrites that need types (``x += e`` resolved, scalarization) live in
``normalize`` (``inplace``, ``scalarize``), run by the types stage.
"""

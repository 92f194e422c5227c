"""Stage 5 transforms: the generated derivative functions, as ASTs.

- ``reverse``: the adjoint (forward sweep that records, reverse sweep that
  accumulates), statement by statement from ``adjoint_terms``.
- ``tape``, ``checkpoint``: records, and loops reversed by re-running iterations.
- ``tapesize``: the function counting what a derivative records (``sd.tape_size``).
- ``forward``: the tangent (forward-mode) function.
- ``simplify``, ``cleanup``: constant folding and dead adjoint stores.
"""

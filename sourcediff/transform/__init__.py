"""Stage 5 transforms: the generated derivative functions, as ASTs.

- ``reverse``: the adjoint (forward sweep that records, reverse sweep that
  accumulates), statement by statement from ``adjoint_terms``.
- ``records``: what the forward sweep keeps (push, pop, save, restore, snapshot,
  alloc), as typed statements lowered in one place, to NumPy statements or to bytes;
  the function counting what a derivative records (``sd.tape_size``) is the forward
  sweep with its records lowered to byte counts.
- ``tape``, ``checkpoint``: where records go (stacks, snapshots), and loops reversed by
  re-running iterations.
- ``signature``: the adjoint's calling convention (seeds, private copies, write-backs).
- ``forward``: the tangent (forward-mode) function.
- ``simplify``, ``cleanup``: constant folding and dead adjoint stores.
"""

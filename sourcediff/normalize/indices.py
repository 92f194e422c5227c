"""Spell out the slices an index leaves implicit, once ranks are known.

``m[i]`` on a 2-D array is the row ``m[i, :]``: a view, not one element. The
analyses and the reverse transform recognize a region by its slices, so a
row read or written through a bare index would otherwise be taken for an
element (and its old value saved as a view the write then changes)::

    t = m[i]          ->     t = m[i, :]
    m[1] = r          ->     m[1, :] = r
"""

from __future__ import annotations

import ast


def _parts(index: ast.expr) -> list[ast.expr]:
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def complete_indices(node: ast.FunctionDef, types) -> None:
    """Rewrite, in place, every subscript of an array with fewer indices than its rank."""
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name)):
            continue
        array = types[sub.value.id]
        parts = _parts(sub.slice)
        if array.kind != "array" or any(_is_ellipsis(p) or _is_fancy(p, types) for p in parts):
            continue
        missing = array.ndim - len(parts)
        if missing > 0:
            sub.slice = ast.Tuple(parts + [ast.Slice() for _ in range(missing)], ast.Load())


def _is_ellipsis(part: ast.expr) -> bool:
    return isinstance(part, ast.Constant) and part.value is Ellipsis


def _is_fancy(part: ast.expr, types) -> bool:
    """A new axis, or an index array that is not 1-D integers, consumes other than one
    axis: such subscripts keep their own meaning. (``A[idx]`` is ``A[idx, :]``.)"""
    if isinstance(part, ast.Constant) and part.value is None:
        return True
    if not isinstance(part, ast.Name) or types[part.id].kind != "array":
        return False
    index = types[part.id]
    return index.ndim != 1 or not index.dtype.startswith(("int", "uint"))

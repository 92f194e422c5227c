"""Adjoints of integer-array indexing (gather and scatter), repeated indices included.

``t = x[idx]`` reads ``x[idx[k]]`` once per ``k``; when ``idx`` repeats an
index, each read contributes, so the adjoint accumulates one ``k`` at a time
(``np.add.at`` semantics) instead of ``x_bar[idx] += t_bar``, which keeps only
one contribution per repeated index. ``u[idx] = v`` follows NumPy: the last
write of a repeated index wins, so the adjoint visits ``k`` backwards, passes
``u_bar[idx[k]]`` to ``v`` and zeroes it, and earlier writes of the same index
receive nothing.

The counter is the placeholder ``@k`` (not an identifier); the emitter names it.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> types = TypeTable({"A": VarType("array", "float64", 2),
    ...                    "idx": VarType("array", "int64", 1)}, VarType("float"))
    >>> read = ast.parse("A[1:, idx]", mode="eval").body
    >>> split = split_fancy(read, types)
    >>> ast.unparse(split.bar_index), ast.unparse(split.result_index)
    ('(1:, idx[@k])', '(:, @k)')
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

COUNTER = "@k"


@dataclass(frozen=True)
class FancySplit:
    """An integer-array subscript split into one index per ``k``.

    ``array_index`` is the index array's name; ``bar_index`` selects what
    ``x[idx]`` reads at ``k``; ``result_index`` selects the matching part of
    the gathered result (``None`` when the result is 1-D and ``k`` alone
    selects it, as ``[@k]``); ``result_ndim`` is the result's rank.
    """

    array_index: str
    bar_index: ast.expr
    result_index: ast.expr
    result_ndim: int


def parts_of(index: ast.expr) -> list[ast.expr]:
    """The comma-separated parts of a subscript's index."""
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def _counter() -> ast.Name:
    return ast.Name(COUNTER, ast.Load())


def is_int_array(part: ast.expr, types) -> bool:
    """Whether the index part ``part`` is an integer array."""
    if not isinstance(part, ast.Name):
        return False
    kind = types[part.id]
    return kind.kind == "array" and kind.dtype.startswith(("int", "uint"))


def unsupported(element: ast.Subscript, types) -> str | None:
    """Why an integer-array or mask subscript cannot be differentiated, or ``None``."""
    arrays = [p for p in parts_of(element.slice) if is_int_array(p, types)]
    if len(arrays) > 1:
        return "index with one integer array at a time (Numba allows one advanced index)"
    masks = [p for p in parts_of(element.slice) if is_mask(p, types)]
    if masks and (arrays or len(masks) > 1):
        # NumPy pairs the mask's true positions with the other array elementwise.
        return "a mask beside another index array; index with np.nonzero(mask)[0] instead"
    if arrays and types[arrays[0].id].ndim != 1:
        return f"index arrays must be 1-D; '{arrays[0].id}' has {types[arrays[0].id].ndim} axes"
    return None


def split_fancy(element: ast.Subscript, types) -> FancySplit | None:
    """The per-``k`` form of ``x[..., idx, ...]`` with one 1-D integer index array.

    ``None`` when ``element`` has no integer-array part. Integers beside the
    array are advanced indices too: NumPy keeps the gathered axis in place when
    they are adjacent and puts it first otherwise.
    """
    parts = parts_of(element.slice)
    arrays = [p for p, part in enumerate(parts) if is_int_array(part, types)]
    if not arrays:
        return None
    position = arrays[0]
    name = parts[position].id
    advanced = [p for p, part in enumerate(parts) if not isinstance(part, ast.Slice)]
    adjacent = advanced == list(range(advanced[0], advanced[-1] + 1))
    slices_before = sum(isinstance(p, ast.Slice) for p in parts[:position])
    axis = slices_before if adjacent else 0
    bar_parts = list(parts)
    bar_parts[position] = ast.Subscript(ast.Name(name, ast.Load()), _counter(), ast.Load())
    kept = [ast.Slice() for p in parts if isinstance(p, ast.Slice)]
    result_parts = kept[:axis] + [_counter()] + kept[axis:]
    return FancySplit(
        name,
        _tuple(bar_parts),
        _tuple(result_parts),
        len(result_parts),
    )


def _tuple(parts: list[ast.expr]) -> ast.expr:
    return parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())


def has_int_array_index(element: ast.Subscript, types) -> bool:
    """Whether ``element`` indexes with an integer array (a gather or a scatter)."""
    return any(is_int_array(part, types) for part in parts_of(element.slice))


def is_mask(part: ast.expr, types) -> bool:
    """Whether the index part ``part`` is a boolean array (a mask)."""
    if not isinstance(part, ast.Name):
        return False
    kind = types[part.id]
    return kind.kind == "array" and kind.dtype == "bool"


def has_array_index(element: ast.Subscript, types) -> bool:
    """Whether ``element`` indexes with an integer array or a mask: it selects a region
    (of any number of elements), not one element."""
    return any(is_int_array(p, types) or is_mask(p, types) for p in parts_of(element.slice))


def counted_loop(counter: str, index_array: str, backwards: bool, body: list[ast.stmt]):
    """``for counter in range(len(idx))`` (backwards: from the last index down)."""
    if backwards:
        bounds = f"{index_array}.shape[0] - 1, -1, -1"
    else:
        bounds = f"{index_array}.shape[0]"
    loop = ast.parse(f"for {counter} in range({bounds}):\n    pass").body[0]
    loop.body = body
    return loop


def rename_counter(node: ast.AST, counter: str) -> ast.AST:
    """``node`` with the placeholder counter named ``counter`` (in place)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id == COUNTER:
            sub.id = counter
    return node

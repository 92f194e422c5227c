"""The sliding windows of a loop: elements ``a[..., i + k, ...]`` that ``rotate.py`` keeps in
numbers.

A *window* is one array's elements at ``index + k`` on one axis, for ``k`` in
``low..high``, the indices on its other axes fixed in the loop (a *row* of the window).
:func:`loop_windows` finds them where the rewrite is exact:

- the loop runs over ``range`` with step 1 or -1, its body is assignments only, and
  neither its index, nor its bounds, nor the array are bound in the body;
- the array is an unshared buffer (``analysis/own_buffers.py``): no other name reaches
  its memory, and the body reads or writes it only as elements, each at ``index + k``
  (or a name bound to that in the body, ``t35 = i + 1``) on the same axis;
- a row is a window when the body touches it at two or more offsets and writes it; two
  rows of one array differ by a constant on some axis, both indices at least 0, so they
  never meet (a negative index wraps around to another element);
- the lowest index the window reaches is at least 0, from a constant bound of the loop.

    >>> loop = ast.parse('''
    ... for j in range(m - 1, -1, -1):
    ...     B_bar[r, j + 1] += g
    ...     B_bar[r + 1, j] += g
    ...     B_bar[r + 1, j + 2] += g
    ... ''').body[0]
    >>> [(w.key(), w.low, w.high) for w in loop_windows(loop, {"B_bar"}, {"B_bar": 2}, {"r": 0})]
    [(('B_bar', 'r + 1'), 0, 2)]
"""

from __future__ import annotations

import ast
from collections import defaultdict

from ..astnodes import clone, walk
from ..codegen import Comment
from ..normalize.rearrange import constant_int
from .effects import is_pure, names_read, names_written
from .simplify import cancel_offsets

integer = constant_int  # the value of an integer constant (``-1`` included), else None


class Window:
    """One row's elements ``a[..., i + k, ...]`` for ``k`` in ``low..high``."""

    def __init__(self, array: str, axis: int, others: list, offsets: set, named: dict):
        self.array, self.axis, self.others = array, axis, others
        self.low, self.high = min(offsets), max(offsets)
        self.named = named  # names bound to ``i + k`` in the loop

    def key(self) -> tuple:
        return (self.array, ", ".join(ast.unparse(p) for p in self.others))

    def offsets(self) -> range:
        return range(self.low, self.high + 1)

    def subscript(self, position: ast.expr, ctx) -> ast.Subscript:
        """The element of this row at index ``position``."""
        parts = [clone(p) for p in self.others]
        parts.insert(self.axis, cancel_offsets(position))
        index = parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())
        return ast.Subscript(ast.Name(self.array, ast.Load()), index, ctx)

    def holds(self, subscript: ast.Subscript, index: str) -> int | None:
        """The offset ``k`` of ``subscript`` in this row, or None if it is not in it."""
        if not (isinstance(subscript.value, ast.Name) and subscript.value.id == self.array):
            return None
        parts = _parts(subscript)
        others = parts[: self.axis] + parts[self.axis + 1 :]
        if [ast.dump(p) for p in others] != [ast.dump(p) for p in self.others]:
            return None
        return offset(parts[self.axis], index, self.named)


def loop_windows(loop: ast.stmt, own: set[str], ranks: dict, lower: dict) -> list[Window]:
    """The windows of ``loop`` (module docstring); ``own``: the unshared buffers, ``lower``:
    the least value of each enclosing loop's index, where known."""
    bounds = range_bounds(loop)
    if bounds is None or not all(
        isinstance(s, (ast.Assign, ast.AugAssign, Comment)) for s in loop.body
    ):
        return []
    start, stop, step = bounds
    index = loop.target.id
    body = ast.Module(loop.body, [])
    bound = names_written(body)
    if index in bound or names_read(ast.Tuple([start, stop], ast.Load())) & bound:
        return []
    if not (is_pure(start) and is_pure(stop)):
        return []  # the test before the loop evaluates the bounds again
    lowest = _lowest_index(start, stop, step)
    if lowest is None:
        return []
    lower = {**lower, index: lowest}
    named = _named_offsets(loop.body, index)
    arrays = {n.value.id for n in walk(body) if _named_subscript(n)} & own - bound
    windows = []
    for array in sorted(arrays):
        windows += _array_windows(body, array, ranks.get(array), index, bound, named, lower)
    return windows


def range_bounds(loop: ast.stmt):
    """``(start, stop, step)`` of ``for name in range(...)`` with step 1 or -1, else None."""
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name)) or loop.orelse:
        return None
    call = loop.iter
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    if call.func.id != "range" or call.keywords or not 1 <= len(call.args) <= 3:
        return None
    args = list(call.args)
    if len(args) == 1:
        args = [ast.Constant(0)] + args
    step = integer(args[2]) if len(args) == 3 else 1
    return (args[0], args[1], step) if step in (1, -1) else None


def loop_lower_bound(loop: ast.stmt) -> int | None:
    """The least value ``loop``'s index takes, when a constant bound gives it."""
    bounds = range_bounds(loop)
    return None if bounds is None else _lowest_index(*bounds)


def _lowest_index(start: ast.expr, stop: ast.expr, step: int) -> int | None:
    if step == 1:
        return integer(start)
    last = integer(stop)
    return None if last is None else last + 1  # range(p, q, -1) ends at q + 1


def _named_subscript(node: ast.AST) -> bool:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)


def _named_offsets(body: list[ast.stmt], index: str) -> dict[str, int]:
    """Names bound once in ``body``, before any read of them, to ``index + k``: ``k``."""
    counts: dict[str, int] = defaultdict(int)
    for stmt in body:
        for name in names_written(stmt):
            counts[name] += 1
    named, read = {}, set()
    for stmt in body:
        read |= names_read(stmt)
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            k = offset(stmt.value, index, {})
            if k is not None and counts[name] == 1 and name not in read:
                named[name] = k
    return named


def _array_windows(body, array: str, rank, index: str, bound, named, lower) -> list[Window]:
    """The windows of ``array`` in the loop ``body`` (module docstring)."""
    if rank is None:
        return []
    uses = [n for n in walk(body) if isinstance(n, ast.Name) and n.id == array]
    subscripts = [n for n in walk(body) if _named_subscript(n) and n.value.id == array]
    if len(uses) != len(subscripts):
        return []  # the array itself is read, passed or bound
    rows: dict[str, list] = defaultdict(list)
    for subscript in subscripts:
        place = _place(subscript, index, rank, bound, named)
        if place is None:
            return []
        rows[ast.dump(ast.Tuple(place[1], ast.Load()))].append((subscript, *place))
    if len({entries[0][1] for entries in rows.values()}) != 1:
        return []  # the index moves along different axes
    others = [entries[0][2] for entries in rows.values()]
    if not all(_apart(a, b, lower) for i, a in enumerate(others) for b in others[i + 1 :]):
        return []
    windows = []
    for entries in rows.values():
        offsets = {k for _, _, _, k in entries}
        written = any(not isinstance(s.ctx, ast.Load) for s, *_ in entries)
        if len(offsets) >= 2 and written and lower[index] + min(offsets) >= 0:
            windows.append(Window(array, entries[0][1], entries[0][2], offsets, named))
    return windows


def _place(subscript: ast.Subscript, index: str, rank: int, bound: set, named: dict):
    """``(axis, other indices, k)`` of an element ``a[..., index + k, ...]``, else None."""
    parts = _parts(subscript)
    if len(parts) != rank:
        return None
    moving = [
        (axis, k) for axis, p in enumerate(parts) if (k := offset(p, index, named)) is not None
    ]
    if len(moving) != 1:
        return None
    axis, k = moving[0]
    others = parts[:axis] + parts[axis + 1 :]
    for other in others:
        reads = names_read(other)
        if index in reads or reads & bound or not _plain_index(other):
            return None
    return axis, others, k


def _parts(subscript: ast.Subscript) -> list[ast.expr]:
    index = subscript.slice
    return list(index.elts) if isinstance(index, ast.Tuple) else [index]


def _apart(first: list, second: list, lower: dict) -> bool:
    """Whether two rows' indices differ on some axis by a constant, both at least 0:
    ``r`` and ``r + 1`` with ``r >= 0`` (``lower``), or two different constants >= 0."""
    for a, b in zip(first, second):
        base_a, k_a = _base_and_offset(a)
        base_b, k_b = _base_and_offset(b)
        if k_a == k_b or ast.dump(base_a) != ast.dump(base_b):
            continue
        least = 0 if isinstance(base_a, ast.Constant) else lower.get(getattr(base_a, "id", None))
        if least is not None and least + min(k_a, k_b) >= 0:
            return True
    return False


def _base_and_offset(part: ast.expr) -> tuple[ast.expr, int]:
    """``(b, k)`` for ``b + k`` or ``b - k``, ``(0, c)`` for a constant ``c``, else
    ``(part, 0)``."""
    value = integer(part)
    if value is not None:
        return ast.Constant(0), value
    if isinstance(part, ast.BinOp) and isinstance(part.op, (ast.Add, ast.Sub)):
        k = integer(part.right)
        if k is not None:
            return part.left, k if isinstance(part.op, ast.Add) else -k
    return part, 0


def offset(part: ast.expr, index: str, named: dict) -> int | None:
    """``k`` for ``index``, ``index + k`` or ``index - k`` (an integer ``k``) or a name
    of ``named`` bound to one, else None."""
    if isinstance(part, ast.Name):
        return 0 if part.id == index else named.get(part.id)
    if isinstance(part, ast.BinOp) and isinstance(part.left, ast.Name):
        if part.left.id == index and isinstance(part.op, (ast.Add, ast.Sub)):
            k = integer(part.right)
            if k is not None:
                return k if isinstance(part.op, ast.Add) else -k
    return None


def _plain_index(part: ast.expr) -> bool:
    """Names, integers and arithmetic on them: an index that is one number."""
    allowed = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop)
    return all(isinstance(n, allowed) for n in walk(part))

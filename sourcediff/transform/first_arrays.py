"""Bind an array adjoint to its first contribution instead of zeroing it and adding.

The reverse sweep allocates each array adjoint zeroed (``t_bar = np.zeros_like(t)``)
and adds every contribution into it. Where the adjoint is a private buffer
(forwarding.py: no other name ever holds its memory) that is certainly all zeros,
and the contribution is a new array of its shape, that array *is* its value:
``add_into(t_bar, e)`` becomes ``t_bar = e``, and the zeroing, now unread, goes
(cleanup.py). Where the contribution is another private buffer that nothing
mentions afterwards, the adjoint takes that buffer over. Shapes are the static
ones of ``analysis/static_shapes.py``; ``0.0 + e`` is ``e``, so the values are
bit for bit the same, up to the sign of zeros.

    >>> fn = ast.parse('''
    ... def f_vjp(x, w, g):
    ...     t_bar = np.zeros_like(t)
    ...     w_bar = np.zeros_like(w)
    ...     t_bar += (1.0 - h * h) * g
    ...     add_into(w_bar, matmul_adjoint_right(t_bar, x, w))
    ...     return (w_bar,)
    ... ''').body[0]
    >>> shape = (("class", "n"), ("class", "m"))
    >>> shapes = {"t": shape, "h": shape, "g": shape, "w": (("class", "k"),) + shape[1:]}
    >>> bind_first_contributions(fn, shapes)
    True
    >>> print(ast.unparse(fn.body[2]))
    t_bar = (1.0 - h * h) * g
    >>> print(ast.unparse(fn.body[3]))
    w_bar = matmul_adjoint_right(t_bar, x, w)
"""

from __future__ import annotations

import ast

from ..analysis.static_shapes import BINARY_UFUNCS, UNKNOWN, expression_shape
from ..astnodes import walk
from ..normalize.elements import UNARY_UFUNCS
from .effects import names_read
from .forwarding import (
    NO_REFERENCE_KEPT,
    ZeroBuffers,
    accumulation_of,
    buffers_written,
    fill_target,
    private_buffers,
    zeros_binding,
)

#: NumPy functions that always return a new array.
FRESH_NUMPY = UNARY_UFUNCS | BINARY_UFUNCS


def bind_first_contributions(function: ast.FunctionDef, shapes: dict) -> bool:
    """Rewrite, in place, as the module docstring says; whether anything changed.
    ``shapes`` gives the symbolic shapes of the names that have one."""
    ranks = _buffer_ranks(function, shapes)  # reading one element of a buffer is allowed
    private = private_buffers(function, returned=True, ranks=ranks)  # the return sees a rebinding
    if not private:
        return False
    likes = zeros_like_sources(function, private)
    shapes = dict(shapes)
    shapes |= {buffer: shapes[like] for buffer, like in likes.items() if like in shapes}
    analysis = _FirstContributions(private, shapes, function.body, likes)
    analysis.block(function.body, frozenset())
    return analysis.changed


def swap_first_contributions(function: ast.FunctionDef, shapes: dict) -> bool:
    """``add_into(a_bar, b_bar); b_bar.fill(0.0)`` where ``a_bar`` is certainly zero and
    both are private buffers of one static shape becomes ``a_bar, b_bar = b_bar, a_bar``:
    the adjoint of ``u = u2`` in a time loop, without two passes over two arrays. Run
    once, after the passes above reach their fixed point: a swap binds each name again,
    which their notion of a private buffer does not allow.

        >>> fn = ast.parse('''
        ... def f_vjp(u, t, g):
        ...     t_bar = np.zeros_like(t)
        ...     u_bar = np.zeros_like(u)
        ...     u_bar += g
        ...     for k in range(3):
        ...         add_into(t_bar, u_bar)
        ...         u_bar.fill(0.0)
        ...         u_bar += 2.0 * t_bar
        ...         t_bar.fill(0.0)
        ...     return u_bar
        ... ''').body[0]
        >>> swap_first_contributions(fn, {"t": (("class", "n"),), "u": (("class", "n"),)})
        True
        >>> print(ast.unparse(fn.body[3].body[0]))
        t_bar, u_bar = (u_bar, t_bar)
    """
    known = _buffer_shapes(function, shapes)
    analysis = _Swaps(private_buffers(function, returned=True, ranks=_ranks(known)), known)
    analysis.block(function.body, frozenset())
    return analysis.changed


class _Swaps(ZeroBuffers):
    """Where a private buffer is certainly zero, the swaps of the docstring above."""

    def __init__(self, private: set[str], shapes: dict):
        super().__init__(private)
        self.shapes = shapes

    def simple(self, stmt: ast.stmt, zero: frozenset) -> frozenset:
        pair = _swapped(stmt)
        if pair is None:
            return super().simple(stmt, zero)
        first, second = pair  # each now holds what the other held
        now_zero = {name for name, other in ((first, second), (second, first)) if other in zero}
        return (zero - {first, second}) | now_zero

    def rewrite_at(self, stmts: list[ast.stmt], index: int, zero: frozenset) -> bool:
        found = accumulation_of(stmts[index])
        if found is None or not isinstance(stmts[index], ast.Expr):
            return False
        if not all(isinstance(side, ast.Name) for side in found):
            return False
        buffer, source = found[0].id, found[1].id
        if buffer == source or buffer not in zero or source not in self.private:
            return False
        if index + 1 == len(stmts) or fill_target(stmts[index + 1]) != source:
            return False
        shape = self.shapes.get(buffer, UNKNOWN)
        if shape is UNKNOWN or self.shapes.get(source, UNKNOWN) != shape:
            return False
        swap = ast.parse(f"{buffer}, {source} = ({source}, {buffer})").body[0]
        ast.copy_location(swap, stmts[index])
        if hasattr(stmts[index], "origin"):
            swap.origin = stmts[index].origin
        stmts[index : index + 2] = [swap]
        return True


def _buffer_shapes(function: ast.FunctionDef, shapes: dict) -> dict:
    """The shape of each buffer bound as ``np.zeros_like(a)`` with ``a``'s shape known."""
    likes = zeros_like_sources(function, None)
    return {buffer: shapes[like] for buffer, like in likes.items() if like in shapes}


def _ranks(buffer_shapes: dict) -> dict[str, int]:
    return {buffer: len(shape) for buffer, shape in buffer_shapes.items() if shape is not UNKNOWN}


def _buffer_ranks(function: ast.FunctionDef, shapes: dict) -> dict[str, int]:
    return _ranks(_buffer_shapes(function, shapes))


def _swapped(stmt: ast.stmt) -> tuple[str, str] | None:
    """``(a, b)`` for ``a, b = (b, a)``; None for anything else."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    names = [ast.unparse(e) for e in stmt.targets[0].elts]
    values = [ast.unparse(e) for e in getattr(stmt.value, "elts", [])]
    if len(names) == 2 and values == names[::-1]:
        return names[0], names[1]
    return None


def zeros_like_sources(function: ast.FunctionDef, private: set[str] | None) -> dict[str, str]:
    """For each private buffer (each buffer, given None) bound as ``np.zeros_like(a)``,
    the name ``a``."""
    out = {}
    for stmt in walk(function):
        name = zeros_binding(stmt) if isinstance(stmt, ast.stmt) else ""
        if not name or (private is not None and name not in private):
            continue
        if ast.unparse(stmt.value.func) == "np.zeros_like":
            args = stmt.value.args
            if len(args) == 1 and isinstance(args[0], ast.Name):
                out[name] = args[0].id
    return out


def _summed_like(value: ast.expr, buffer: str) -> bool:
    """Whether ``value`` is ``sum_to(e, buffer)``: it reads the buffer for its shape."""
    if not (isinstance(value, ast.Call) and ast.unparse(value.func) == "sum_to"):
        return False
    return len(value.args) == 2 and ast.unparse(value.args[1]) == buffer


class _FirstContributions(ZeroBuffers):
    """Private buffers certainly zero before each statement; the first contributions."""

    def __init__(self, private: set[str], shapes: dict, top_level: list[ast.stmt], likes):
        super().__init__(private)
        self.shapes = shapes
        self.top_level = top_level
        self.likes = likes  # buffer -> the array it is np.zeros_like of, by name
        last = top_level[-1] if top_level else None
        self.results = names_read(last) if isinstance(last, ast.Return) else set()
        self.shared: set[str] = set()  # names that share an array after a takeover

    def rewrite_at(self, stmts: list[ast.stmt], index: int, zero: frozenset) -> bool:
        found = accumulation_of(stmts[index])
        if found is None or not isinstance(found[0], ast.Name) or found[0].id not in zero:
            return False
        buffer, value = found[0].id, found[1]
        shape = self.shapes.get(buffer, UNKNOWN)
        if shape is UNKNOWN or expression_shape(value, self.shapes) != shape:
            return False  # a contribution broadcast into the buffer: it keeps its zeros
        if not (self.fresh(value) or self.taken_over(stmts, index, value, buffer)):
            return False
        like = self.likes.get(buffer)
        if _summed_like(value, buffer) and like is not None:
            value.args[1] = ast.Name(like, ast.Load())  # its shape, not its zeros
        old = stmts[index]
        stmts[index] = ast.copy_location(ast.Assign([ast.Name(buffer, ast.Store())], value), old)
        if hasattr(old, "origin"):
            stmts[index].origin = old.origin
        return True

    def fresh(self, value: ast.expr) -> bool:
        """Whether ``value`` is a new array that no name holds."""
        if isinstance(value, (ast.BinOp, ast.UnaryOp)):
            return True  # array arithmetic allocates its result
        if not isinstance(value, ast.Call) or value.keywords:
            return False
        name = ast.unparse(value.func)
        if name in FRESH_NUMPY or (name in NO_REFERENCE_KEPT and name != "sum_to"):
            return True
        if name == "sum_to" and len(value.args) == 2:
            # A lower rank certainly sums into a new array. Other symbols that differ may
            # still be equal lengths at run time (np.zeros(4) and a vector of 4), and then
            # sum_to returns its argument itself.
            summed, like = (expression_shape(arg, self.shapes) for arg in value.args)
            reduces = UNKNOWN not in (summed, like) and len(summed) > len(like)
            return reduces or self.fresh(value.args[0])
        return False

    def taken_over(self, stmts: list[ast.stmt], index: int, value, buffer: str) -> bool:
        """Whether ``buffer`` may take over ``value``, another private buffer, at the
        function's top level (no later iteration reuses either): neither changes after
        this statement, and a result never shares its array with another name that is
        read afterwards or that already shares one."""
        if stmts is not self.top_level or not isinstance(value, ast.Name):
            return False
        source, later = value.id, stmts[index + 1 :]
        if source == buffer or source not in self.private or source in self.results:
            return False
        if buffer in self.results:
            mentioned = any(source in _names(stmt) for stmt in later)
            if mentioned or source in self.shared:
                return False
        for stmt in later:
            changed = {name for node in walk(stmt) for name in _written(node)}
            if {source, buffer} & changed:
                return False
        self.shared |= {source, buffer}
        return True


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _written(node: ast.AST) -> set[str]:
    """Buffers ``node`` changes, if it is a statement: bound, filled, added or stored into."""
    if not isinstance(node, ast.stmt):
        return set()
    return buffers_written(node) | {fill_target(node)}

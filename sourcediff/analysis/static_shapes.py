"""Symbolic shapes of arrays: which arrays provably have the same shape.

The adjoint of an elementwise operation ``t = a + b`` sums ``t_bar`` back to each
operand's shape (``sum_to(t_bar, a)``), which undoes broadcasting. When ``a``
provably has ``t``'s shape, that sum is the identity, and the adjoint is ``t_bar``
itself: no call, no helper for Numba to compile (a same-rank ``sum_to`` costs
about two seconds of compile on its own).

A shape is a tuple of length symbols. An argument the function never rebinds has
the caller's lengths, and equal argument dimensions share a symbol (the request's
``dims``, see ``normalize.elements.Shapes``); so do copies and fresh arrays of
known lengths. Through an assignment, an elementwise operation (arithmetic,
``np.tanh``, ``np.maximum``, ``np.where``...; never a constructor such as
``np.eye(n)``) has the broadcast shape of its operands, where each axis is known
to agree; a matrix product has its outer lengths. A name bound several times
(``u = u + dt * lap`` in a loop) has a shape when every binding gives the same
one, found by assuming it and checking it.

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> node = ast.parse('''
    ... def f(x, w, b):
    ...     t1 = matmul(x, w)
    ...     t2 = t1 + b
    ...     h = np.tanh(t2)
    ...     for i in range(3):
    ...         h = h * 2.0
    ...     return h
    ... ''').body[0]
    >>> m, v = VarType("array", "float64", 2), VarType("array", "float64", 1)
    >>> types = TypeTable({"x": m, "w": m, "b": v, "t1": m, "t2": m, "h": m}, m)
    >>> shapes = static_shapes(node, types, ["x", "w", "b"], (("a", "b"), ("b", "c"), ("c",)))
    >>> shapes["h"] == shapes["t1"] == (("class", "a"), ("class", "c"))
    True
"""

from __future__ import annotations

import ast

from .. import ir, rules
from ..astnodes import walk
from ..normalize.elements import FRESH, LIKE, UNARY_UFUNCS, Shapes, label_symbol

UNKNOWN = None
MATRIX_PRODUCTS = {"matmul", "np.dot", "np.matmul"}
#: NumPy functions whose result has the broadcast shape of all their arguments.
BINARY_UFUNCS = {
    f"np.{name}"
    for name in "maximum minimum fmax fmin where clip power hypot arctan2 copysign".split()
}
#: Generated calls whose result has the shape of one argument (its position).
SHAPE_OF_ARGUMENT = {
    "sum_to": 1,
    "matmul_adjoint_left": 1,
    "matmul_adjoint_right": 2,
    "dot_adjoint_left": 1,
    "dot_adjoint_right": 2,
    "np.roll": 0,
    "np.flip": 0,
    "roll_along": 0,
}
#: A new axis's length (``x[:, None]``, ``np.expand_dims``): broadcasts to any other.
ONE = ("constant", 1)
NEW_AXIS = {"np.expand_dims", "expand_axis"}
#: Reductions whose ``axis=`` drops that axis.
AXIS_REDUCTIONS = {"np.sum", "np.mean", "np.max", "np.min", "np.prod"}
#: Calls whose result is their first argument's elements in another order, same shape.
PERMUTATIONS = frozenset(call for call, position in SHAPE_OF_ARGUMENT.items() if position == 0)


def static_shapes(node: ast.FunctionDef, types, params: list[str], dims) -> dict[str, tuple]:
    """Each array name whose shape is the same symbolic tuple at every binding."""
    fixed = Shapes(params, dims, node, types).fixed
    fixed |= {n: () for n, kind in types.variables.items() if kind.kind in ("float", "int", "bool")}
    bindings = _bindings(node, types)
    callers = _caller_shapes(params, dims)
    for name in set(params) & set(bindings):
        # the caller's array: of the request's dimension classes (unknown without them)
        caller = ast.Name(_caller(name), ast.Load()) if name in callers else ast.Constant(None)
        bindings[name].append(caller)
    fixed |= {_caller(name): shape for name, shape in callers.items()}
    length_bindings = _length_bindings(node, types)
    poisoned: set[str] = set()
    while True:
        shapes, lengths = _assumed(bindings, fixed, poisoned, types, length_bindings)
        wrong = {
            name
            for name, values in bindings.items()
            if name in shapes
            and name not in fixed  # bound once, its shape read from that binding
            and any(expression_shape(value, shapes, lengths) != shapes[name] for value in values)
        }
        if not wrong:
            return {name: shape for name, shape in shapes.items() if "@" not in name}
        poisoned |= wrong


def fixed_lengths(node: ast.FunctionDef, types) -> set[str]:
    """Integers that hold one axis length at every binding (``n = u.shape[0]`` of an array
    of one static shape, ``types.shapes``): the same value wherever they are read."""
    return set(axis_lengths(node, types))


def axis_lengths(node: ast.FunctionDef, types) -> dict[str, tuple]:
    """Each integer of :func:`fixed_lengths` and the length symbol it holds."""
    return _lengths(_length_bindings(node, types), types.shapes)


def _caller(name: str) -> str:
    """The name standing for a rebound argument's array as the caller passed it."""
    return f"{name}@caller"


def _caller_shapes(params: list[str], dims) -> dict[str, tuple]:
    """Each array argument's shape as the request's dimension classes give it."""
    return {
        name: tuple(label_symbol(label) for label in axes)
        for name, axes in zip(params, dims or ())
        if axes is not None
    }


def _bindings(node: ast.FunctionDef, types) -> dict[str, list[ast.expr]]:
    """The values bound to each array name (a permutation binds each target its source)."""
    out: dict[str, list[ast.expr]] = {}
    for stmt in walk(node):
        if isinstance(stmt, (ast.For, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            out.setdefault(stmt.target.id, []).append(ast.Constant(None))  # unknown
        if not isinstance(stmt, ast.Assign):
            continue
        if ir.is_permutation(stmt):
            for target, source in ir.permutation_pairs(stmt):
                out.setdefault(target, []).append(ir.load(source))
        elif isinstance(stmt.targets[0], ast.Name):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and types[target.id].kind == "array":
                    out.setdefault(target.id, []).append(stmt.value)
    return out


def _length_bindings(node: ast.FunctionDef, types) -> dict[str, list]:
    """The values bound to each integer name (None where it is bound otherwise, the
    caller's value of an argument included)."""
    out: dict[str, list] = {arg.arg: [None] for arg in node.args.args}
    for stmt in walk(node):
        if isinstance(stmt, (ast.For, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
            out.setdefault(stmt.target.id, []).append(None)
        elif isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and types[t.id].kind == "int" for t in stmt.targets
        ):
            for target in stmt.targets:
                simple = len(stmt.targets) == 1 and isinstance(target, ast.Name)
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(stmt.value if simple else None)
        elif isinstance(stmt, ast.Assign):  # tuple targets: not a single length
            for target in walk(stmt.targets[0]):
                if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store):
                    out.setdefault(target.id, []).append(None)
    return out


def _lengths(length_bindings: dict, shapes: dict) -> dict[str, tuple]:
    """Integers that are one axis length at every binding (``n = u.shape[0]``)."""
    lengths: dict[str, tuple] = {}
    grew = True
    while grew:
        grew = False
        for name, values in length_bindings.items():
            found = {_length_symbol(v, shapes, lengths) for v in values}
            if name not in lengths and len(found) == 1 and None not in found:
                lengths[name] = found.pop()
                grew = True
    return lengths


def _length_symbol(value, shapes: dict, lengths: dict):
    """The symbol of the axis length ``value`` is: ``a.shape[k]``, ``max(n, 0)`` or
    ``len(range(n))`` of a length ``n``."""
    if value is None:
        return None
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return ("constant", value.value)  # np.zeros((n, 3))
    if isinstance(value, ast.Name):
        return lengths.get(value.id)
    if ir.shape_axis(value) is not None:
        array, k = ir.shape_axis(value)
        shape = shapes.get(array, UNKNOWN)
        return shape[k] if shape is not UNKNOWN and k < len(shape) else None
    call = rules.call_path(value.func) if isinstance(value, ast.Call) else ""
    if call == "max" and len(value.args) == 2 and _is_zero(value.args[1]):
        return _length_symbol(value.args[0], shapes, lengths)
    if call == "len" and len(value.args) == 1 and ir.len_range_args(value) is not None:
        bounds = ir.len_range_args(value)  # len(range(n)) of a length n is n
        return _length_symbol(bounds[0], shapes, lengths) if len(bounds) == 1 else None
    return None


def _is_zero(node: ast.expr) -> bool:
    """Whether ``node`` is the integer constant 0."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def _assumed(bindings: dict, fixed: dict, poisoned: set[str], types, length_bindings: dict):
    """Shapes found by propagating from the fixed ones, each name taking the shape of
    the first of its bindings that is known (checked against the others afterwards);
    and the integers that are axis lengths of those shapes."""
    shapes = dict(fixed)
    lengths: dict[str, tuple] = {}
    grew = True
    while grew:
        grew = False
        lengths = _lengths(length_bindings, shapes)
        for name, values in bindings.items():
            if name in shapes or name in poisoned:
                continue
            for value in values:
                shape = expression_shape(value, shapes, lengths)
                if shape is not UNKNOWN:
                    shapes[name] = shape
                    grew = True
                    break
    return shapes, lengths


def expression_shape(value: ast.expr, shapes: dict, lengths: dict | None = None):
    """The symbolic shape of ``value`` given those of the names it reads (``()`` for
    numbers) and the axis lengths integers hold, or UNKNOWN. Also for generated code:
    ``sum_to(g, like)`` has ``like``'s shape and the matrix-product adjoints that of the
    operand they belong to."""
    if isinstance(value, ast.Constant):
        return () if isinstance(value.value, (int, float)) else UNKNOWN
    if isinstance(value, ast.Name):
        return shapes.get(value.id, UNKNOWN)
    call = rules.call_path(value.func) if isinstance(value, ast.Call) else ""
    if call in LIKE and len(value.args) == 1 and not value.keywords:
        return expression_shape(value.args[0], shapes, lengths)
    if call in SHAPE_OF_ARGUMENT and not value.keywords:
        return expression_shape(value.args[SHAPE_OF_ARGUMENT[call]], shapes, lengths)
    if getattr(value, "shape_of", None) is not None:  # an outlined helper (outlined.py)
        return expression_shape(value.args[value.shape_of], shapes, lengths)
    if call in FRESH and len(value.args) == 1 and not value.keywords:
        return _fresh(value.args[0], shapes, lengths or {})
    if call in NEW_AXIS and len(value.args) == 2 and not value.keywords:
        return _with_new_axis(expression_shape(value.args[0], shapes, lengths), value.args[1])
    if call in AXIS_REDUCTIONS and len(value.args) == 1:
        return _reduced(expression_shape(value.args[0], shapes, lengths), value.keywords)
    matmul = isinstance(value, ast.BinOp) and isinstance(value.op, ast.MatMult)
    if call in MATRIX_PRODUCTS or matmul:
        return _product(rules.operands(value), shapes)
    elementwise = call in UNARY_UFUNCS | BINARY_UFUNCS
    elementwise |= isinstance(value, ast.BinOp) and type(value.op) in rules.BINOP_NAMES
    elementwise |= isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
    if not elementwise:
        return UNKNOWN  # a constructor (np.eye(n)), a reduction, a reshape...
    return _broadcast([expression_shape(arg, shapes, lengths) for arg in rules.operands(value)])


def _fresh(shape: ast.expr, shapes: dict, lengths: dict):
    """The shape of ``np.empty(shape)`` when each length is a known axis length."""
    parts = shape.elts if isinstance(shape, ast.Tuple) else [shape]
    found = tuple(_length_symbol(part, shapes, lengths) for part in parts)
    return UNKNOWN if None in found else found


def _product(operands: list[ast.expr], shapes: dict):
    """The shape of a matrix product of two arrays of rank 1 or 2."""
    if len(operands) != 2:
        return UNKNOWN
    left, right = (expression_shape(arg, shapes) for arg in operands)
    if left is UNKNOWN or right is UNKNOWN or not left or not right:
        return UNKNOWN
    if len(left) > 2 or len(right) > 2:
        return UNKNOWN
    return left[:-1] + right[1:]


def _broadcast(shapes: list):
    """NumPy's broadcast of symbolic shapes; UNKNOWN where an axis may differ. A new axis
    (length 1, :data:`ONE`) takes the other operands' length."""
    if any(shape is UNKNOWN for shape in shapes):
        return UNKNOWN
    rank = max(len(shape) for shape in shapes)
    out = []
    for axis in range(-rank, 0):
        lengths = {shape[axis] for shape in shapes if len(shape) >= -axis}
        if len(lengths) > 1:
            lengths.discard(ONE)
        if len(lengths) != 1:
            return UNKNOWN  # two symbols: equal, or one of them 1; not provably either
        out.append(lengths.pop())
    return tuple(out)


def _with_new_axis(shape, axis: ast.expr):
    """``np.expand_dims``' shape: a length 1 inserted at a constant ``axis``."""
    axis = _int_value(axis)
    if shape is UNKNOWN or axis is None:
        return UNKNOWN
    position = axis if axis >= 0 else axis + len(shape) + 1
    if not 0 <= position <= len(shape):
        return UNKNOWN
    return shape[:position] + (ONE,) + shape[position:]


def _reduced(shape, keywords: list):
    """A reduction's shape over one constant ``axis=`` (kept as length 1 with
    ``keepdims=True``); UNKNOWN for anything else."""
    options = {k.arg: k.value for k in keywords}
    axis = _int_value(options.pop("axis", None))
    keep = options.pop("keepdims", ast.Constant(False))
    if shape is UNKNOWN or options or axis is None or not isinstance(keep, ast.Constant):
        return UNKNOWN
    position = axis if axis >= 0 else axis + len(shape)
    if not 0 <= position < len(shape):
        return UNKNOWN
    return shape[:position] + ((ONE,) if keep.value is True else ()) + shape[position + 1 :]


def _int_value(node) -> int | None:
    """The integer a constant (``2``, ``-1``) is, else None."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand if negative else node
    if not (isinstance(value, ast.Constant) and type(value.value) is int):
        return None
    return -value.value if negative else value.value

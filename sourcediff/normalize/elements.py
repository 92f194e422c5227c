"""Elementwise array expressions read one element at a time, for :mod:`.scalarize`.

An array expression such as ``x[i, :] - means[c, :]`` has a symbolic shape
(``(x.shape[1],)``) and, at loop indices ``(j,)``, one element
(``x[i, j] - means[c, j]``). :class:`ElementReader` computes both for the
expressions scalarize can fuse: float64 arrays, their basic slices with constant
offsets, scalars, ``+ - * / **`` and NumPy's unary elementwise functions.
Anything else reads as ``None``: not fusible.

A length is a pair ``(symbol, offset)``: ``A[1:-1]`` has length
``(("shape", "A", 0), -2)``. Two arrays have provably equal shapes when their
pairs are equal. Equal argument dimensions the caller's arrays have (the
request's ``dims``: ``x.shape[1] == means.shape[1]``) share one symbol, for
parameters the function never rebinds.

    >>> import ast
    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> arr, i = VarType("array", "float64", 2), VarType("int", "int64")
    >>> types = TypeTable({"A": arr, "i": i}, arr)
    >>> reader = ElementReader(types, Shapes(["A"], None, None), {})
    >>> shape, element = reader.read(ast.parse("A[1:-1, :-2] * 2.0", mode="eval").body)
    >>> shape
    ((('shape', 'A', 0), -2), (('shape', 'A', 1), -2))
    >>> ast.unparse(element)
    'A[_sd_axis0 + 1, _sd_axis1] * 2.0'
"""

from __future__ import annotations

import ast
from collections import Counter

from .. import ir, rules
from ..analysis.liveness import binding_counts

SCALAR = "scalar"
LIKE = {"np.copy", "np.zeros_like", "np.empty_like", "np.ones_like"}
FRESH = {"np.zeros", "np.empty", "np.ones"}
UNARY_UFUNCS = {
    f"np.{name}"
    for name in (
        "exp expm1 log log1p log2 log10 sqrt square abs absolute fabs negative sin cos tan "
        "sinh cosh tanh arcsin arccos arctan arcsinh arctanh exp2 cbrt"
    ).split()
}
OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def elementwise_operands(value: ast.expr) -> list[ast.expr] | None:
    """The operands of ``+ - * / **``, a unary sign or a unary NumPy ufunc; else None.

    >>> [ast.unparse(o) for o in elementwise_operands(ast.parse("np.exp(-a)").body[0].value)]
    ['-a']
    """
    if isinstance(value, ast.BinOp) and isinstance(value.op, OPERATORS):
        return [value.left, value.right]
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return [value.operand]
    if isinstance(value, ast.Call) and rules.call_path(value.func) in UNARY_UFUNCS:
        return value.args if len(value.args) == 1 and not value.keywords else None
    return None


def is_number(operand: ast.expr | None, types) -> bool:
    """Whether ``operand`` is an int or float literal, or a name ``types`` knows to hold
    an int or a float."""
    if isinstance(operand, ast.Constant):
        return type(operand.value) in (int, float)
    named = isinstance(operand, ast.Name) and types is not None
    known = types.variables.get(operand.id) if named else None
    return known is not None and known.kind in ("float", "int")


def axis_index(k: int) -> str:
    """The placeholder name of loop axis ``k`` in element expressions."""
    return f"_sd_axis{k}"


def length_index(k: int) -> str:
    """The placeholder name of the loop's length along axis ``k`` (a roll's modulus)."""
    return f"_sd_length{k}"


class Shapes:
    """Symbolic lengths of the arrays a region reads, as they are when the region runs.

    An argument the function never rebinds has the caller's lengths (equal ones share a
    symbol). A name bound once, to a copy of such an array or a fresh array of its
    lengths (``A = np.copy(A0)``, ``f = np.zeros((n, 2))`` with ``n = x.shape[0]``), has
    them too, and so has a name ``known`` to keep one shape however often it is bound;
    any other array has its own symbols, read when the region runs.
    """

    def __init__(self, params: list[str], dims: tuple | None, node=None, types=None, known=None):
        stores = Counter(params) if node is None else Counter(binding_counts(node))
        self.types = types
        self.fixed: dict[str, tuple] = {}
        self.sources: dict[tuple, tuple[str, int]] = {}
        for name in params:
            kind = types[name] if types is not None else None
            if stores[name] == 1 and kind is not None and kind.kind == "array":
                self.fixed[name] = tuple(("shape", name, k) for k in range(kind.ndim))
        for name, axes in zip(params, dims or ()):
            if axes is not None and stores[name] == 1:
                self.fixed[name] = tuple(label_symbol(label) for label in axes)
                for k, label in enumerate(axes):
                    self.sources.setdefault(label_symbol(label), (name, k))
        self._rebound({n: s for n, s in (known or {}).items() if stores[n] > 1}, params)
        if node is not None:
            self._bound_once(node, {n for n, count in stores.items() if count == 1})

    def _rebound(self, known: dict, params: list[str]) -> None:
        """Arrays bound several times that have one symbolic shape at every binding
        (``known``, from ``analysis.static_shapes``: ``u = u + dt * lap`` in a loop)."""
        for name in params:  # such an argument's lengths can be read at any time
            for k, symbol in enumerate(known.get(name) or ()):
                if symbol[0] == "class":
                    self.sources.setdefault(symbol, (name, k))
        for name, shape in known.items():
            if (
                name not in self.fixed
                and shape
                and all(self._readable(symbol, params) for symbol in shape)
            ):
                self.fixed[name] = shape

    def _readable(self, symbol: tuple, params: list[str]) -> bool:
        """Whether :meth:`source` can name an array (or a constant) holding ``symbol``."""
        if symbol[0] == "class":
            return symbol in self.sources
        return symbol[0] == "constant" or (symbol[0] == "shape" and symbol[1] in params)

    def _bound_once(self, node: ast.FunctionDef, once: set[str]) -> None:
        bindings = [
            stmt
            for stmt in ast.walk(node)
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id in once
        ]
        lengths = {}
        grew = True
        while grew:
            grew = False
            for stmt in bindings:
                name = stmt.targets[0].id
                if name in self.fixed or name in lengths:
                    continue
                found = self._fixed_value(stmt.value, once, lengths)
                if found is not None:
                    (self.fixed if isinstance(found, tuple) else lengths)[name] = found
                    grew = True

    def _fixed_value(self, value: ast.expr, once: set[str], lengths: dict):
        """The symbols of an array (a tuple), or of one length (a list), or None."""
        call = rules.call_path(value.func) if isinstance(value, ast.Call) else ""
        if call in LIKE and value.args and isinstance(value.args[0], ast.Name):
            source = value.args[0].id
            return self.fixed.get(source) if source in once else None
        like = getattr(value, "shape_of", None)  # an outlined helper's call (outlined.py)
        if like is not None and isinstance(value.args[like], ast.Name):
            return self.fixed.get(value.args[like].id)  # one shape at every binding
        if call in FRESH and value.args:
            shape = value.args[0]
            parts = shape.elts if isinstance(shape, ast.Tuple) else [shape]
            dims = [_length(part, lengths) for part in parts]
            return None if None in dims else tuple(dims)
        if ir.shape_axis(value) is not None:
            name, k = ir.shape_axis(value)
            if name in self.fixed and k < len(self.fixed[name]):
                return [self.fixed[name][k]]
        return self._elementwise_shape(value)

    def _elementwise_shape(self, value: ast.expr) -> tuple | None:
        """The shape of an elementwise operation of arrays of one known shape and numbers
        (``np.exp(-log_sd)``, computed once for every row by ``normalize/rows.py``)."""
        shapes = set()
        for operand in elementwise_operands(value) or [None]:
            if isinstance(operand, ast.Name) and operand.id in self.fixed:
                shapes.add(self.fixed[operand.id])
            elif not is_number(operand, self.types):
                return None
        return shapes.pop() if len(shapes) == 1 else None

    def axis(self, name: str, k: int) -> tuple:
        """The symbol of ``name.shape[k]``."""
        if name in self.fixed and k < len(self.fixed[name]):
            return self.fixed[name][k]
        return ("shape", name, k)

    def source(self, symbol: tuple):
        """An array and axis whose length ``symbol`` is, or the constant length."""
        if symbol[0] == "constant":
            return symbol[1]
        if symbol[0] == "class":
            return self.sources[symbol]
        if symbol[0] == "shape":
            return symbol[1:]
        raise AssertionError(symbol)


class ElementReader:
    """Shapes and elements of expressions, with the region's names in ``env``.

    ``env`` maps a name the region defined to its ``(shape, element)``; every
    array read from outside is recorded in ``reads`` as ``(base, index text)``.
    """

    def __init__(self, types, shapes: Shapes, env: dict):
        self.types = types
        self.shapes = shapes
        self.env = env
        self.reads: list[tuple[str, str]] = []
        self.outer_reads: set[str] = set()  # names read from before the region
        self.rolls = False  # whether an element reads a rolled array (length_index)

    def read(self, node: ast.expr):
        """``(shape, element)`` of ``node``, shape ``SCALAR`` for a number; or ``None``."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return SCALAR, node
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Subscript):
            return self.view(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, OPERATORS):
            return self._combine([node.left, node.right], lambda a, b: ast.BinOp(a, node.op, b))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._combine([node.operand], lambda a: ast.UnaryOp(node.op, a))
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
            path = rules.call_path(node.func)
            if path in UNARY_UFUNCS:
                return self._combine(node.args, lambda a: ast.Call(node.func, [a], []))
        if isinstance(node, ast.Call) and rules.call_path(node.func) == "roll_along":
            return self.rolled(node)
        return None

    def rolled(self, node: ast.Call):
        """``roll_along(A, s, k)`` of an outside array: ``A[j0, (j1 - s) % n1]``, where
        ``n1`` is the loop's length along axis 1 (the region has A's shape)."""
        if len(node.args) != 3 or node.keywords or not isinstance(node.args[0], ast.Name):
            return None
        array, shift, axis = node.args
        kind = self.types[array.id] if array.id not in self.env else None
        axis = _int_constant(axis, None)
        if kind is None or not _float64_array(kind) or axis is None:
            return None
        if not -kind.ndim <= axis < kind.ndim:
            return None
        constant = _int_constant(shift, None)
        if constant is None and not self._integer_atom(shift):
            return None
        shape, element = self._name(array.id)  # a read of the whole array
        axis %= kind.ndim
        index = list(element.slice.elts) if kind.ndim > 1 else [element.slice]
        length = ast.Name(length_index(axis), ast.Load())
        if constant in (1, -1) and isinstance(index[axis], ast.Name):  # a loop variable
            index[axis] = wrapped_by_one(index[axis], -constant, length)
        else:
            moved = _offset(index[axis], -constant) if constant is not None else None
            if moved is None:
                moved = ast.BinOp(index[axis], ast.Sub(), ast.Name(shift.id, ast.Load()))
            index[axis] = ast.BinOp(moved, ast.Mod(), length)
        self.rolls = True
        return shape, _subscript(array.id, index)

    def _name(self, name: str):
        if name in self.env:
            return self.env[name]
        kind = self.types[name]
        self.outer_reads.add(name)
        if kind.kind in ("float", "int"):
            return SCALAR, ast.Name(name, ast.Load())
        if not _float64_array(kind):
            return None
        shape = tuple((self.shapes.axis(name, k), 0) for k in range(kind.ndim))
        self.reads.append((name, ""))
        index = [ast.Name(axis_index(k), ast.Load()) for k in range(kind.ndim)]
        return shape, _subscript(name, index)

    def view(self, node: ast.Subscript):
        """A basic slice of an outside array: ``A[i, 1:-1]`` -> ``A[i, j + 1]``."""
        if not isinstance(node.value, ast.Name) or node.value.id in self.env:
            return None
        base = node.value.id
        kind = self.types[base]
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not _float64_array(kind) or len(parts) != kind.ndim:
            return None
        shape, index = [], []
        for k, part in enumerate(parts):
            if isinstance(part, ast.Slice):
                bounds = _constant_bounds(part)
                if bounds is None:
                    return None
                start, stop = bounds
                shape.append((self.shapes.axis(base, k), -start + stop))
                index.append(_offset(ast.Name(axis_index(len(shape) - 1), ast.Load()), start))
            elif self._integer_atom(part):
                index.append(part)
            else:
                return None
        if not shape:
            return None
        self.outer_reads.add(base)
        self.reads.append((base, ast.dump(node.slice)))
        return tuple(shape), _subscript(base, index)

    def _integer_atom(self, part: ast.expr) -> bool:
        if isinstance(part, ast.Constant):
            return type(part.value) is int
        if isinstance(part, ast.Name) and part.id not in self.env:
            self.outer_reads.add(part.id)
            return self.types[part.id].kind == "int"
        return False

    def _combine(self, operands: list[ast.expr], build):
        shape, elements = SCALAR, []
        for operand in operands:
            found = self.read(operand)
            if found is None:
                return None
            if found[0] != SCALAR:
                if shape not in (SCALAR, found[0]):
                    return None  # not provably the same shape (maybe broadcasting)
                shape = found[0]
            elements.append(found[1])
        return shape, build(*elements)


def _float64_array(kind) -> bool:
    return kind.kind == "array" and kind.dtype == "float64" and kind.ndim >= 1


def _constant_bounds(part: ast.Slice):
    """``(start, stop)`` of ``a:b`` with ``a`` absent or >= 0 and ``b`` absent or < 0,
    whose length is ``n - a + b`` (clamped at 0 by NumPy and by ``range`` alike)."""
    if part.step is not None:
        return None
    start = _int_constant(part.lower, 0)
    stop = _int_constant(part.upper, 0)
    if start is None or stop is None or start < 0 or (part.upper is not None and stop >= 0):
        return None
    return start, stop


def _int_constant(node, default):
    if node is None:
        return default
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _offset(index: ast.expr, start: int) -> ast.expr:
    """``index + start`` (``index - 2`` for -2; ``index`` itself for 0)."""
    if start < 0:
        return ast.BinOp(index, ast.Sub(), ast.Constant(-start))
    return ast.BinOp(index, ast.Add(), ast.Constant(start)) if start else index


def wrapped_by_one(index: ast.expr, step: int, length: ast.Name) -> ast.expr:
    """``(index + step) % length`` for ``index`` in ``range(length)`` and a step of one
    either way, as a comparison instead of an integer division (twice as fast in a stencil,
    and it vectorizes).

    >>> n = ast.Name("n", ast.Load())
    >>> ast.unparse(wrapped_by_one(ast.Name("j", ast.Load()), -1, n))
    'j - 1 if j >= 1 else n - 1'
    >>> ast.unparse(wrapped_by_one(ast.Name("j", ast.Load()), 1, n))
    'j + 1 if j + 1 < n else 0'
    """
    moved = _offset(index, step)
    if step < 0:
        test = ast.Compare(index, [ast.GtE()], [ast.Constant(1)])
        return ast.IfExp(test, moved, ast.BinOp(length, ast.Sub(), ast.Constant(1)))
    test = ast.Compare(moved, [ast.Lt()], [length])
    return ast.IfExp(test, moved, ast.Constant(0))


def index_key(index: list[ast.expr]) -> ast.expr:
    """The subscript of ``a[i]`` or ``a[i, j]``."""
    return index[0] if len(index) == 1 else ast.Tuple(index, ast.Load())


def _subscript(base: str, index: list[ast.expr]) -> ast.Subscript:
    return ast.Subscript(ast.Name(base, ast.Load()), index_key(index), ast.Load())


def label_symbol(label) -> tuple:
    """The length symbol of a caller's axis label (``dispatch.dimension_classes``): a
    length the derivative is specialized on, ``("len", 3)``, is the constant 3 (as in
    ``np.zeros((n, 3))``); any other label is a class of equal lengths."""
    if isinstance(label, tuple) and label[0] == "len":
        return ("constant", label[1])
    return ("class", label)


def _length(part: ast.expr, lengths: dict):
    if isinstance(part, ast.Constant) and type(part.value) is int:
        return ("constant", part.value)
    if isinstance(part, ast.Name) and part.id in lengths:
        return lengths[part.id][0]
    return None

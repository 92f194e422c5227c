"""NumPy functions written in the differentiable subset (stage "parse").

A NumPy function with no rule of its own but a short definition in terms of functions
that have one is written here, as plain Python, and a call of it becomes a call of
that definition: a helper like the user's own, inlined and differentiated (or
outlined when called from several places). ``np.trapz(y, x)`` becomes
``numpy_trapezoid(y, x)``::

    >>> node = ast.parse("def f(y, t):\\n    return np.trapz(y * y, t) + np.median(y)").body[0]
    >>> library_calls_as_helpers(node, "np")
    >>> print(ast.unparse(node.body[0]))
    return numpy_trapezoid(y * y, t) + numpy_median(y)

Each definition checks the ranks it supports and raises otherwise: a call it does not
cover fails with NumPy's name in the message, never with a silently different result.
A new function is one definition and one entry in :data:`LIBRARY`.
"""

from __future__ import annotations

import ast

import numpy as np

from .library_norms import NORM_DEFINITIONS
from .transform.effects import statement_lists


def numpy_trapezoid(y, x=None, dx=1.0):
    """``np.trapezoid(y, x=None, dx=1.0)`` (also ``np.trapz``) of a vector."""
    if y.ndim != 1:
        raise ValueError("np.trapezoid: only a 1-D y (no axis=) is supported")
    if x is None:
        return dx * (np.sum(y) - 0.5 * (y[0] + y[-1]))
    return 0.5 * np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]))


def numpy_polyval(p, x):
    """``np.polyval(p, x)``: Horner's rule, highest power first."""
    y = 0.0 * x
    for c in p:
        y = y * x + c
    return y


def numpy_median(a):
    """``np.median(a)`` of a vector: the middle of the sorted values (the mean of the two
    middle ones for an even count)."""
    if a.ndim != 1:
        raise ValueError("np.median: only a 1-D array (no axis=) is supported")
    s = np.sort(a)
    n = s.shape[0]
    if n % 2 == 1:
        return s[n // 2]
    return 0.5 * (s[n // 2 - 1] + s[n // 2])


def numpy_quantile(a, q):
    """``np.quantile(a, q)`` of a vector at one ``q`` in [0, 1], NumPy's default "linear"
    method: between the two sorted values around ``q * (n - 1)``."""
    if a.ndim != 1:
        raise ValueError("np.quantile: only a 1-D array and one q (no axis=) are supported")
    if q < 0.0 or q > 1.0:
        raise ValueError("np.quantile: q must be in [0, 1]")
    s = np.sort(a)
    rank = q * (s.shape[0] - 1)
    low = int(np.floor(rank))
    high = min(low + 1, s.shape[0] - 1)
    return s[low] + (rank - low) * (s[high] - s[low])


def numpy_percentile(a, q):
    """``np.percentile(a, q)`` of a vector at one ``q`` in [0, 100]: the quantile at
    ``q / 100``."""
    if a.ndim != 1:  # its own checks: an error names the user's np.percentile call
        raise ValueError("np.percentile: only a 1-D array and one q (no axis=) are supported")
    if q < 0.0 or q > 100.0:
        raise ValueError("np.percentile: q must be in [0, 100]")
    return numpy_quantile(a, q / 100.0)


def numpy_cross(a, b):
    """``np.cross(a, b)`` of two 3-vectors."""
    if a.ndim != 1 or b.ndim != 1 or a.shape[0] != 3 or b.shape[0] != 3:
        raise ValueError("np.cross: only two 3-vectors are supported")
    # No named locals: inlined, a helper's names would show in the derivative.
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def numpy_tile(a, reps):
    """``np.tile(a, reps)`` of a vector and an integer count: ``reps`` rows of ``a``, read
    row after row."""
    if a.ndim != 1:
        raise ValueError("np.tile: only a 1-D array and an integer count are supported")
    return (np.ones((reps, 1)) * a[None, :]).ravel()


def numpy_repeat(a, repeats):
    """``np.repeat(a, repeats)`` of a vector and an integer count: a column of ``repeats``
    copies of each element, read row after row."""
    if a.ndim != 1:
        raise ValueError("np.repeat: only a 1-D array and an integer count are supported")
    return (a[:, None] * np.ones((1, repeats))).ravel()


def numpy_meshgrid(x, y, indexing="xy"):
    """``np.meshgrid(x, y)`` of two vectors (``indexing="xy"`` or ``"ij"``)."""
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError("np.meshgrid: only two 1-D arrays are supported")
    if indexing == "ij":
        first = np.empty((x.shape[0], y.shape[0]))
        second = np.empty((x.shape[0], y.shape[0]))
        for i in range(x.shape[0]):
            first[i, :] = x[i]
            second[i, :] = y
        return first, second
    first = np.empty((y.shape[0], x.shape[0]))
    second = np.empty((y.shape[0], x.shape[0]))
    for i in range(y.shape[0]):
        first[i, :] = x
        second[i, :] = y[i]
    return first, second


def numpy_float64(v):
    """``np.float64(v)`` (and ``np.float32``, computed in float64): ``float(v)``."""
    return float(v)


def numpy_heaviside(x1, x2):
    """``np.heaviside(x1, x2)``: 0 below zero, ``x2`` at zero, 1 above (derivative 0)."""
    return np.where(x1 > 0, 1.0, np.where(x1 < 0, 0.0, x2))


def numpy_add_at(a, indices, values):
    """``np.add.at(a, indices, values)`` into a vector: every index adds, repeated ones
    included (``a[indices] += values`` would keep one per index)."""
    if a.ndim != 1 or indices.ndim != 1:
        raise ValueError("np.add.at: only a 1-D array and 1-D indices are supported")
    spread = values + np.zeros(indices.shape[0])  # a number or one value per index
    for k in range(indices.shape[0]):
        a[indices[k]] += spread[k]


def numpy_triu_indices(n, k=0):
    """``np.triu_indices(n, k=0)``: the rows and columns of the upper triangle of an
    ``n`` by ``n`` matrix from diagonal ``k`` on, row after row."""
    count = 0
    for i in range(n):
        count += max(0, n - max(i + k, 0))
    rows = np.zeros(count, dtype=np.int64)
    cols = np.zeros(count, dtype=np.int64)
    at = 0
    for i in range(n):
        for j in range(max(i + k, 0), n):
            rows[at] = i
            cols[at] = j
            at += 1
    return rows, cols


def numpy_tril_indices(n, k=0):
    """``np.tril_indices(n, k=0)``: the lower triangle up to diagonal ``k``, row after row."""
    count = 0
    for i in range(n):
        count += max(0, min(i + k + 1, n))
    rows = np.zeros(count, dtype=np.int64)
    cols = np.zeros(count, dtype=np.int64)
    at = 0
    for i in range(n):
        for j in range(min(i + k + 1, n)):
            rows[at] = i
            cols[at] = j
            at += 1
    return rows, cols


def numpy_matrix_power(a, n):
    """``np.linalg.matrix_power(a, n)`` of a square matrix and an integer ``n >= 0``, by
    repeated squaring: ``log2(n)`` squarings and one product per further set bit."""
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError("np.linalg.matrix_power: only a square matrix is supported")
    if n < 0:
        raise ValueError("np.linalg.matrix_power: only n >= 0 is supported (invert first)")
    if n == 0:
        return np.eye(a.shape[0])
    if n == 1:
        return a.copy()  # a new array, as NumPy's
    base = a
    k = n
    while k % 2 == 0:  # squared up to the lowest set bit, which starts the product
        base = base @ base
        k = k // 2
    result = base
    k = k // 2
    while k > 0:
        base = base @ base
        if k % 2 == 1:
            result = result @ base
        k = k // 2
    return result


#: NumPy's name -> its definition here.
LIBRARY = {
    "trapezoid": numpy_trapezoid,
    "trapz": numpy_trapezoid,
    "polyval": numpy_polyval,
    "median": numpy_median,
    "quantile": numpy_quantile,
    "percentile": numpy_percentile,
    "cross": numpy_cross,
    "tile": numpy_tile,
    "repeat": numpy_repeat,
    "meshgrid": numpy_meshgrid,
    "float64": numpy_float64,
    "float32": numpy_float64,
    "heaviside": numpy_heaviside,
    "triu_indices": numpy_triu_indices,
    "tril_indices": numpy_tril_indices,
}

#: ``np.ufunc.method`` and ``np.submodule.function`` -> its definition here.
UFUNC_METHODS = {("add", "at"): numpy_add_at, ("linalg", "matrix_power"): numpy_matrix_power}

#: The definitions by their own names (what the rewritten calls resolve to).
DEFINITIONS = {f.__name__: f for f in [*LIBRARY.values(), *UFUNC_METHODS.values()]}
DEFINITIONS |= NORM_DEFINITIONS


def _definitions_by_spelling() -> dict[str, set[str]]:
    """NumPy's spelling (``np.median``, ``np.linalg.matrix_power``), which starts each
    message a definition raises, -> the names of the definitions spelled so."""
    spelled = [(f"np.{name}", f) for name, f in LIBRARY.items()]
    spelled += [(f"np.{owner}.{name}", f) for (owner, name), f in UFUNC_METHODS.items()]
    spelled += [("np.linalg.norm", f) for f in NORM_DEFINITIONS.values()]
    found: dict[str, set[str]] = {}
    for spelling, definition in spelled:
        found.setdefault(spelling, set()).add(definition.__name__)
    return found


DEFINITIONS_BY_SPELLING = _definitions_by_spelling()


def library_calls_as_helpers(node: ast.AST, numpy_name: str | None) -> None:
    """Rewrite, in place, each call ``np.name(...)`` of a function in :data:`LIBRARY`
    (``numpy_name`` is what the module calls numpy) into a call of its definition."""
    if numpy_name is None:
        return
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            continue
        owner, name = call.func.value, call.func.attr
        if isinstance(owner, ast.Name) and owner.id == numpy_name and name in LIBRARY:
            call.func = ast.copy_location(ast.Name(LIBRARY[name].__name__, ast.Load()), call.func)
        ufunc = owner.attr if isinstance(owner, ast.Attribute) else None
        if ufunc and _is_name(owner.value, numpy_name) and (ufunc, name) in UFUNC_METHODS:
            definition = UFUNC_METHODS[(ufunc, name)].__name__
            call.func = ast.copy_location(ast.Name(definition, ast.Load()), call.func)


def in_place_array_methods(node: ast.AST, numpy_name: str | None) -> None:
    """Rewrite, in place, each statement ``a.sort()`` into ``a[...] = np.sort(a)``: the
    same values in ``a``'s own memory, through a function with a derivative rule; and
    ``a.fill(v)`` into ``a[...] = v``.

    >>> tree = ast.parse("y = x.copy()\\ny.sort()\\nz = np.empty(3)\\nz.fill(y[0])")
    >>> in_place_array_methods(tree, "np")
    >>> print(ast.unparse(tree))
    y = x.copy()
    y[...] = np.sort(y)
    z = np.empty(3)
    z[...] = y[0]
    """
    if numpy_name is None:
        return
    for block in statement_lists(node):
        block[:] = [_sorted_in_place(stmt, numpy_name) for stmt in block]


def _sorted_in_place(stmt: ast.stmt, numpy_name: str) -> ast.stmt:
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return stmt
    array = call.func.value
    whole = ast.Subscript(array, ast.Constant(Ellipsis), ast.Store())
    if call.func.attr == "fill" and len(call.args) == 1 and not call.keywords:
        new = ast.Assign([whole], call.args[0])
    elif call.func.attr == "sort" and not call.args and not call.keywords:
        sort = ast.Attribute(ast.Name(numpy_name, ast.Load()), "sort", ast.Load())
        new = ast.Assign([whole], ast.Call(sort, [array], []))
    else:
        return stmt
    return ast.fix_missing_locations(ast.copy_location(new, stmt))


TRIANGLE_INDICES = ("numpy_triu_indices", "numpy_tril_indices")


def triangle_indices_unpacked(node: ast.FunctionDef, namer) -> None:
    """Bind ``iu = np.triu_indices(n)`` (or ``tril``) as two arrays and read ``M[iu]``
    as ``M[iu_rows, iu_cols]``, in place (run after :func:`library_calls_as_helpers`); a
    call written in the index, ``M[np.triu_indices(n)]``, is bound first (``namer``
    names it): the pipeline indexes with arrays, not with a tuple.

    >>> from sourcediff.naming import Namer
    >>> code = "def f(M):\\n    iu = numpy_triu_indices(3, 1)\\n    return M[iu]"
    >>> tree = ast.parse(code).body[0]
    >>> triangle_indices_unpacked(tree, Namer.for_tree(tree))
    >>> print(ast.unparse(tree.body))
    iu_rows, iu_cols = numpy_triu_indices(3, 1)
    return M[iu_rows, iu_cols]
    """
    for block in statement_lists(node):
        block[:] = [s for stmt in block for s in _bound_first(stmt, namer)]
    held = set()
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and _is_triangle_call(stmt.value):
                held.add(target.id)
                parts = [ast.Name(f"{target.id}_{p}", ast.Store()) for p in ("rows", "cols")]
                stmt.targets = [ast.copy_location(ast.Tuple(parts, ast.Store()), target)]
    if held:
        _HeldIndices(held).visit(node)
    ast.fix_missing_locations(node)


class _HeldIndices(ast.NodeTransformer):
    """``iu[0]`` is ``iu_rows``, ``iu[1]`` ``iu_cols``, any other ``iu`` the tuple of both."""

    def __init__(self, held: set[str]):
        self.held = held

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        index = node.slice
        if isinstance(node.value, ast.Name) and node.value.id in self.held:
            if isinstance(index, ast.Constant) and index.value in (0, 1):
                part = ("rows", "cols")[index.value]
                return ast.copy_location(ast.Name(f"{node.value.id}_{part}", ast.Load()), node)
        if isinstance(index, ast.Name) and index.id in self.held:  # M[iu]: a tuple index
            node.value = self.visit(node.value)
            node.slice = ast.copy_location(self._both(index.id), index)
            return node
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.held and isinstance(node.ctx, ast.Load):
            return ast.copy_location(self._both(node.id), node)
        return node

    @staticmethod
    def _both(name: str) -> ast.Tuple:
        return ast.Tuple(
            [ast.Name(f"{name}_{p}", ast.Load()) for p in ("rows", "cols")], ast.Load()
        )


def _is_triangle_call(value: ast.expr) -> bool:
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in TRIANGLE_INDICES
    )


def _bound_first(stmt: ast.stmt, namer) -> list[ast.stmt]:
    """``stmt`` after a binding of each triangle-indices call written in an index."""
    if isinstance(stmt, (ast.FunctionDef, ast.For, ast.While, ast.If)):
        return [stmt]  # their bodies are blocks of their own
    bindings = []
    for sub in ast.walk(stmt):
        if isinstance(sub, ast.Subscript) and _is_triangle_call(sub.slice):
            name = namer.fresh("triangle")
            bound = ast.Assign([ast.Name(name, ast.Store())], sub.slice)
            bindings.append(ast.copy_location(bound, stmt))
            sub.slice = ast.Name(name, ast.Load())
    return bindings + [stmt]


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def definition_of(library_path: str):
    """The definition standing for ``np.name`` imported by name (``from numpy import
    trapz``), or None."""
    module, _, name = library_path.rpartition(".")
    return LIBRARY.get(name) if module == "np" else None

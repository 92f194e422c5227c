r"""Which names may share memory, flow-insensitively (a union-find over the function).

``b = a``, a slice or row ``b = a[1:]``, ``a.T``, a swap ``u, v = v, u`` or an append
into a list join their names; arithmetic, shape queries and calls that return a fresh
array (``np.copy``, ``np.zeros``, ...) do not. Conservative: two names in one class may
never actually share memory. Used by the counting function's slicer, the recording and
recompute analyses and scalarization (:mod:`.aliases` is the flow-sensitive check that
refuses writes through an alias).

    >>> f = ast.parse("def f(x):\n    v = x[1:]\n    w = np.copy(x)\n    y = w * 2.0").body[0]
    >>> sorted(alias_classes(f)["x"]), sorted(alias_classes(f)["w"])
    (['v', 'x'], ['w'])
"""

from __future__ import annotations

import ast

from ..astnodes import walk
from ..transform.effects import names_written

SHAPE_ATTRIBUTES = frozenset({"shape", "nbytes", "ndim", "size", "dtype"})
# Calls that return a new array (or a number): the result shares no memory with an argument.
FRESH_CALLS = frozenset(
    {"copy", "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like"}
    | {"full_like", "len", "range", "float", "int", "max", "min", "abs", "sum", "exp", "log"}
    | {"sqrt", "sin", "cos", "tanh", "dot", "arange", "linspace", "prod", "mean"}
)


def alias_classes(function: ast.FunctionDef, types=None) -> dict[str, set[str]]:
    r"""Names that may share memory, each mapped to its whole class (union-find). Given
    the ``types`` table, a number (``m = v[k]``, ``k = np.argmax(v)``) is in no class:
    it holds no memory to share.

        >>> from sourcediff.analysis.types import TypeTable, VarType
        >>> f = ast.parse("def f(v):\n    k = np.argmax(v)\n    m = v[k]").body[0]
        >>> sorted(alias_classes(f)["v"])
        ['k', 'm', 'v']
        >>> flt, vec = VarType("float", "float64"), VarType("array", "float64", 1)
        >>> types = TypeTable({"v": vec, "k": VarType("int", "int64"), "m": flt}, flt)
        >>> sorted(alias_classes(f, types)["v"])
        ['v']
    """
    parent: dict[str, str] = {}
    numbers = _numbers(types)

    def find(name: str) -> str:
        while parent.get(name, name) != name:
            name = parent[name]
        return name

    def join(names: set[str]) -> None:
        ordered = sorted(names - numbers)
        for name in ordered:
            parent.setdefault(name, name)
        for name in ordered[1:]:
            parent[find(name)] = find(ordered[0])

    for node in walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = set().union(*(names_written(t) for t in targets))
            join(bound | (possible_views(node.value) if bound else set()))
        elif isinstance(node, ast.For):
            join(names_written(node.target) | possible_views(node.iter))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            # lst.append(a): a may come back out of lst. The called function's own name
            # holds no memory: add_into(u_bar, g) and add_into(v_bar, h) join nothing.
            join(passed_memory(node.value))
    classes: dict[str, set[str]] = {}
    for name in list(parent):
        classes.setdefault(find(name), set()).add(name)
    return {name: classes[find(name)] for name in parent}


def _numbers(types) -> set[str]:
    """The names ``types`` knows to hold a number (none without a table)."""
    if types is None:
        return set()
    return {n for n, t in types.variables.items() if t.kind in ("float", "int", "bool")}


def possible_views(value: ast.expr) -> set[str]:
    """Names whose memory the value of ``value`` may share (``x[i, :]``, ``x.T``, ``v``;
    not the indices of a subscript, nor arithmetic, nor a fresh array)."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.BoolOp):  # ``a or b`` is one of them
        return set().union(*(possible_views(v) for v in value.values))
    if isinstance(value, ast.BinOp) and _sequences(value):  # ``(a,) + (b,)`` holds both
        return possible_views(value.left) | possible_views(value.right)
    if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)):
        return set()
    if is_shape(value) or (isinstance(value, ast.Subscript) and is_shape(value.value)):
        return set()  # x.shape, x.shape[0]: numbers
    if isinstance(value, (ast.Subscript, ast.Attribute, ast.Starred)):
        return possible_views(value.value)
    if isinstance(value, (ast.Tuple, ast.List)):
        return set().union(*(possible_views(e) for e in value.elts))
    if isinstance(value, ast.IfExp):
        return possible_views(value.body) | possible_views(value.orelse)
    written = [k.value for k in getattr(value, "keywords", ()) if k.arg == "out"]
    if isinstance(value, ast.Call) and called_name(value) in FRESH_CALLS:
        return set().union(*(possible_views(out) for out in written))  # np.exp(a, out=b) is b
    if getattr(value, "fresh_result", False):  # an outlined helper's new array
        return set()
    if isinstance(value, ast.Call):
        return passed_memory(value)
    return every_name(value)


def passed_memory(call: ast.Call) -> set[str]:
    """The names whose memory ``call`` is given, so may write into or hand back: those its
    arguments may be views of, and a method's receiver; not the function's own name, a
    module's (``np.asarray``), nor the names of arithmetic (``top + 6 * len(range(i, n))``
    passes no memory of ``n``; ``(a,) + (b,)`` and ``a or b`` pass both).

    >>> sorted(passed_memory(ast.parse("reserve(tape, top + 6 * len(range(i, n)))").body[0].value))
    ['tape']
    >>> sorted(passed_memory(ast.parse("np.asarray(a[1:]).reshape(2, -1)").body[0].value))
    ['a']
    """
    func, names = call.func, set()
    if isinstance(func, ast.Attribute) and not (
        isinstance(func.value, ast.Name) and func.value.id in _MODULES
    ):
        names |= possible_views(func.value)
    for arg in call.args + [keyword.value for keyword in call.keywords]:
        names |= possible_views(arg)
    return names


# The names generated code imports its modules by (normalize spells NumPy ``np``).
_MODULES = frozenset({"np", "math"})


def _sequences(value: ast.BinOp) -> bool:
    """Whether ``value`` joins or repeats a tuple or list written out (``(a,) + t``)."""
    literal = (ast.Tuple, ast.List)
    return isinstance(value.left, literal) or isinstance(value.right, literal)


def is_shape(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in SHAPE_ATTRIBUTES


def called_name(node: ast.AST) -> str | None:
    """``f`` of a call ``f(...)`` or ``a.f(...)``, else None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def every_name(node: ast.AST) -> set[str]:
    """Every name in ``node``."""
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}

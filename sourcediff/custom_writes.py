r"""Refusal of custom-rule functions that write into their arguments.

A ``sd.custom_vjp`` or ``sd.custom_jvp`` function (and its ``fwd``, ``bwd`` or
``jvp`` rule) is called from the generated code as an opaque function: the
derivative's analyses never see its body, so a write into an argument would be
missed twice over. The caller's array would not show it (only the arrays the
user's function writes are written back), and the reverse sweep would run the
rule on the changed values. Such functions are refused at their line. The scan
follows the arrays the parameters hold through names, views (slices, ``.T``,
``np.reshape``, ``np.asarray``, rows of a loop), names unpacked from residual
tuples, and into the Python or ``@numba.njit`` helpers they are passed to:

    >>> import textwrap
    >>> src = textwrap.dedent('''
    ...     def scale(x, w):
    ...         y = x[1:]
    ...         y *= w
    ...         return x[0]
    ... ''')
    >>> write = argument_write(ast.parse(src).body[0])
    >>> write.lineno, ast.unparse(write)
    (4, 'y *= w')

It is a syntactic scan: ``x *= 2.0`` on a parameter, or on a name unpacked from a
residual tuple, is refused even where it holds a float (write ``x = x * 2.0``).
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np

from .errors import UnsupportedSyntaxError

# Attributes, methods and NumPy functions whose result may share the array's memory.
VIEW_ATTRIBUTES = {"T", "flat", "real", "imag", "mT"}
VIEW_METHODS = {"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze"}
VIEW_FUNCTIONS = {"asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "reshape"}
VIEW_FUNCTIONS |= {"ravel", "transpose", "swapaxes", "moveaxis", "squeeze", "expand_dims"}
VIEW_FUNCTIONS |= {"atleast_1d", "atleast_2d", "atleast_3d", "diagonal", "flip"}
# Methods and functions that write into their first argument.
WRITING_METHODS = {"fill", "sort", "put", "itemset", "resize", "partition", "setfield"}
WRITING_FUNCTIONS = {"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle"}
WRITING_FUNCTIONS |= {"put_along_axis"}
HELPER_DEPTH = 4  # helpers followed, nested


def refuse_argument_writes(func, what: str) -> None:
    """Raise an ``UnsupportedSyntaxError`` at the line where ``func`` (a custom
    function or rule, described by ``what``) or a helper it passes an argument to
    writes into one of its arguments."""
    found = _write_in(func, None, HELPER_DEPTH)
    if found is not None:
        function, write, first = found
        raise UnsupportedSyntaxError(
            f"{what} '{func.__name__}' writes into its argument: sourcediff calls it as an "
            "opaque function and cannot see the write; write into a copy (np.copy), and "
            "'x = x * c' instead of 'x *= c'",
            inspect.getsourcefile(function) or "<unknown>",
            first + write.lineno - 1,
        )


def _write_in(func, held_params, depth: int):
    """``(function, write, first line)`` of the first write into an argument in ``func``
    (an njit dispatcher is read through its Python function), or None."""
    func = getattr(func, "py_func", func)
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return None  # no source: nothing to read
    node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    if not isinstance(node, ast.FunctionDef):
        return None
    scope = getattr(func, "__globals__", {})
    write = argument_write(node, held_params, lambda name: scope.get(name), depth)
    return None if write is None else (func, write, first)


def argument_write(function: ast.FunctionDef, held_params=None, resolve=None, depth=0):
    """The first statement or call of ``function`` that writes into an array its
    parameters (or those named in ``held_params``) hold. ``resolve`` maps a called
    name to a function, whose body is then scanned too (``depth`` levels)."""
    params = [a.arg for a in function.args.args]
    views = set(params) if held_params is None else set(held_params)
    held = set(views)
    for statement in function.body:
        views, held = _held_names(statement, views, False), _held_names(statement, held, True)
        write = _first_write(statement, views, held, (resolve, depth))
        if write is not None:
            return write
        if isinstance(statement, ast.Assign) and not _rooted(statement.value, held):
            rebound = {n for t in statement.targets for n in _bound_names(t)}
            views, held = views - rebound, held - rebound
    return None


def returns_view(function: ast.FunctionDef) -> bool:
    """Whether a ``return`` of ``function`` may give back (a view of) an array one of its
    parameters holds: a caller writing into the result would write into the argument.

    >>> returns_view(ast.parse("def f(x):\\n    y = x[1:]\\n    return y").body[0])
    True
    >>> returns_view(ast.parse("def f(x):\\n    x = x * 2.0\\n    return x").body[0])
    False
    """
    views = {a.arg for a in function.args.args}
    for statement in function.body:
        views = _held_names(statement, views, False)
        returns = [n for n in ast.walk(statement) if isinstance(n, ast.Return)]
        if any(r.value is not None and _rooted(r.value, views, False) for r in returns):
            return True
        if isinstance(statement, ast.Assign) and not _rooted(statement.value, views):
            views = views - {n for t in statement.targets for n in _bound_names(t)}
    return False


def _first_write(statement: ast.stmt, views: set[str], held: set[str], helpers: tuple):
    """The first write in ``statement`` into what ``held`` names may hold; ``x *= c``
    counts for the names that hold (views of) the arrays themselves, ``views``."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Assign) and any(_writes_into(t, held) for t in node.targets):
            return node
        if isinstance(node, ast.AugAssign | ast.AnnAssign) and _writes_into(node.target, held):
            return node
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if node.target.id in views:
                return node  # in place for an array
        if isinstance(node, ast.Call) and _writing_call(node, held, *helpers):
            return node
    return None


def _held_names(statement: ast.stmt, held: set[str], elements: bool) -> set[str]:
    """``held`` and every name ``statement`` binds to what they hold, to a fixed point
    (the order inside a loop does not matter): a view, a name unpacked from a tuple, a
    loop's row, and with ``elements`` one element (``s = x[0]``: a float, or a row)."""
    held = set(held)
    while True:
        before = len(held)
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign) and _rooted(node.value, held, elements):
                held |= {n for t in node.targets for n in _bound_names(t)}
            elif isinstance(node, ast.For) and _rooted(node.iter, held):
                held |= _bound_names(node.target)
        if len(held) == before:
            return held


def _rooted(expr: ast.expr, held: set[str], elements: bool = True) -> bool:
    """Whether ``expr`` may be (a view of) an array a held name holds; with
    ``elements`` False, one element of it (``x[0]``, ``x[i, j]``) does not count."""
    if isinstance(expr, ast.Name):
        return expr.id in held
    if isinstance(expr, ast.Subscript):
        return (elements or _sliced(expr)) and _rooted(expr.value, held)
    if isinstance(expr, ast.Starred):
        return _rooted(expr.value, held)
    if isinstance(expr, ast.Attribute):
        return expr.attr in VIEW_ATTRIBUTES and _rooted(expr.value, held)
    if isinstance(expr, ast.IfExp):
        return _rooted(expr.body, held, elements) or _rooted(expr.orelse, held, elements)
    if isinstance(expr, ast.Tuple | ast.List):
        return any(_rooted(e, held) for e in expr.elts)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        if expr.func.attr in VIEW_METHODS and _rooted(expr.func.value, held):
            return True
        return expr.func.attr in VIEW_FUNCTIONS and bool(expr.args) and _rooted(expr.args[0], held)
    return False


def _sliced(subscript: ast.Subscript) -> bool:
    """Whether a subscript may keep dimensions: a slice, ``...`` or ``None`` in it."""
    index = subscript.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(
        isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value in (Ellipsis, None))
        for p in parts
    )


def _writes_into(target: ast.expr, held: set[str]) -> bool:
    """Whether assigning to ``target`` writes into a held array."""
    if isinstance(target, ast.Subscript):
        return _rooted(target.value, held)
    if isinstance(target, ast.Tuple | ast.List):
        return any(_writes_into(t, held) for t in target.elts)
    return isinstance(target, ast.Starred) and _writes_into(target.value, held)


def _bound_names(target: ast.expr) -> set[str]:
    """The names an assignment to ``target`` binds (not those of ``a[i] = ...``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return {n for t in target.elts for n in _bound_names(t)}
    return _bound_names(target.value) if isinstance(target, ast.Starred) else set()


def _writing_call(call: ast.Call, held: set[str], resolve, depth: int) -> bool:
    """``x.fill(..)``, ``np.copyto(x, ..)``, ``out=x``, a ufunc's output argument, or a
    helper (``resolve``) writing into the parameters it is passed held arrays as."""
    func, name = call.func, _called_name(call.func)
    if isinstance(func, ast.Attribute) and name in WRITING_METHODS and _rooted(func.value, held):
        return True
    if name in WRITING_FUNCTIONS and call.args and _rooted(call.args[0], held):
        return True
    if any(k.arg == "out" and _rooted(k.value, held) for k in call.keywords):
        return True
    ufunc = getattr(np, name, None) if isinstance(func, ast.Attribute) else None
    if isinstance(ufunc, np.ufunc) and any(_rooted(a, held) for a in call.args[ufunc.nin :]):
        return True
    return _helper_writes(call, held, resolve, depth)


def _helper_writes(call: ast.Call, held: set[str], resolve, depth: int) -> bool:
    """Whether the helper ``call`` names writes into a parameter given a held array."""
    if resolve is None or depth <= 0 or not isinstance(call.func, ast.Name):
        return False
    helper = resolve(call.func.id)
    target = getattr(helper, "py_func", helper)
    if not inspect.isfunction(target):
        return False
    params = list(inspect.signature(target).parameters)
    given = {params[k] for k, a in enumerate(call.args[: len(params)]) if _rooted(a, held)}
    given |= {k.arg for k in call.keywords if k.arg in params and _rooted(k.value, held)}
    return bool(given) and _write_in(target, given, depth - 1) is not None


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""

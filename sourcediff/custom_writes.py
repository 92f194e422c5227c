"""Refusal of custom-rule functions that write into their arguments.

A ``sd.custom_vjp`` or ``sd.custom_jvp`` function (and its ``fwd``, ``bwd`` or
``jvp`` rule) is called from the generated code as an opaque function: the
derivative's analyses never see its body, so a write into an argument would be
missed twice over. The caller's array would not show it (only the arrays the
user's function writes are written back), and the reverse sweep would run the
rule on the changed values. Such functions are refused at their line:

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
"""

from __future__ import annotations

import ast
import inspect
import textwrap

from .errors import UnsupportedSyntaxError

# Methods that return a view of their array (a write through it is a write into it).
VIEW_METHODS = {"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze", "T"}
# Methods and functions that write into their first argument.
WRITING_METHODS = {"fill", "sort", "put", "itemset", "resize", "partition"}
WRITING_FUNCTIONS = {"copyto", "put", "place", "putmask", "fill_diagonal"}


def refuse_argument_writes(func, what: str) -> None:
    """Raise a ``SourceDiffError`` at the line where ``func`` (a custom function or
    rule, described by ``what``) writes into one of its arguments."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return  # no source: Numba compiles it as it is; nothing to read
    node = ast.parse(textwrap.dedent("".join(lines))).body[0]
    write = argument_write(node) if isinstance(node, ast.FunctionDef) else None
    if write is not None:
        raise UnsupportedSyntaxError(
            f"{what} '{func.__name__}' writes into its argument: sourcediff calls it as "
            "an opaque function and cannot see the write; write into a copy (np.copy)",
            inspect.getsourcefile(func) or "<unknown>",
            first + write.lineno - 1,
        )


def argument_write(function: ast.FunctionDef) -> ast.stmt | ast.expr | None:
    """The first statement or call of ``function`` that writes into an array its
    parameters hold, directly, through a view, or through a name unpacked from them.
    ``x *= 2`` on a parameter or a slice of one counts: for an array it writes in place.
    A parameter rebound at the top level (``x = x * 2.0``) no longer holds the argument."""
    held = {a.arg for a in function.args.args}
    views = set(held)
    for statement in function.body:
        held = _held_names(statement, held)
        views = _view_names(statement, held, views)
        write = _first_write(statement, held, views)
        if write is not None:
            return write
        if isinstance(statement, ast.Assign) and not _rooted(statement.value, held):
            rebound = {n for t in statement.targets for n in _bound_names(t)}
            held, views = held - rebound, views - rebound
    return None


def _first_write(statement: ast.stmt, held: set[str], views: set[str]):
    for node in ast.walk(statement):
        if isinstance(node, ast.Assign) and any(_writes_into(t, held) for t in node.targets):
            return node
        if isinstance(node, ast.AugAssign | ast.AnnAssign) and _writes_into(node.target, held):
            return node
        if isinstance(node, ast.AugAssign) and _is_name(node.target) and node.target.id in views:
            return node
        if isinstance(node, ast.Call) and _writing_call(node, held):
            return node
    return None


def _held_names(statement: ast.stmt, held: set[str]) -> set[str]:
    """``held`` and every name ``statement`` binds to (a view of, or an element of)
    what they hold, to a fixed point: the order inside a loop does not matter."""
    held = set(held)
    while True:
        before = len(held)
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign) and _rooted(node.value, held):
                held |= {n for t in node.targets for n in _bound_names(t)}
            elif isinstance(node, ast.For) and _rooted(node.iter, held):
                held |= _bound_names(node.target)
        if len(held) == before:
            return held


def _view_names(statement: ast.stmt, held: set[str], views: set[str]) -> set[str]:
    """``views`` and the names ``statement`` binds to a slice or a view of what a held
    name holds: surely arrays (``row = x[0]`` is not one: for a vector it is a float)."""
    views = set(views)
    while True:
        before = len(views)
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                if _is_name(node.targets[0]) and _view_of(node.value, held, views):
                    views.add(node.targets[0].id)
        if len(views) == before:
            return views


def _view_of(expr: ast.expr, held: set[str], views: set[str]) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in views
    if isinstance(expr, ast.Subscript):
        sliced = any(isinstance(n, ast.Slice) for n in ast.walk(expr.slice))
        return sliced and _rooted(expr.value, held)
    if isinstance(expr, ast.Attribute):
        return expr.attr in VIEW_METHODS and _rooted(expr.value, held)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return expr.func.attr in VIEW_METHODS and _rooted(expr.func.value, held)
    return False


def _bound_names(target: ast.expr) -> set[str]:
    """The names an assignment to ``target`` binds (not those of ``a[i] = ...``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return {n for t in target.elts for n in _bound_names(t)}
    return _bound_names(target.value) if isinstance(target, ast.Starred) else set()


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Name)


def _rooted(expr: ast.expr, held: set[str]) -> bool:
    """Whether ``expr`` may be (a view of) an array a held name holds."""
    if isinstance(expr, ast.Name):
        return expr.id in held
    if isinstance(expr, ast.Subscript | ast.Starred):
        return _rooted(expr.value, held)
    if isinstance(expr, ast.Attribute):
        return expr.attr in VIEW_METHODS and _rooted(expr.value, held)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        return expr.func.attr in VIEW_METHODS and _rooted(expr.func.value, held)
    if isinstance(expr, ast.Tuple | ast.List):
        return any(_rooted(e, held) for e in expr.elts)
    return False


def _writes_into(target: ast.expr, held: set[str]) -> bool:
    """Whether assigning to ``target`` writes into a held array."""
    if isinstance(target, ast.Subscript):
        return _rooted(target.value, held)
    if isinstance(target, ast.Tuple | ast.List | ast.Starred):
        elements = target.elts if not isinstance(target, ast.Starred) else [target.value]
        return any(_writes_into(t, held) for t in elements)
    return False


def _writing_call(call: ast.Call, held: set[str]) -> bool:
    """``x.fill(..)``, ``np.copyto(x, ..)`` or ``out=x`` on a held array."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in WRITING_METHODS:
        if _rooted(func.value, held):
            return True
    if isinstance(func, ast.Attribute) and func.attr in WRITING_FUNCTIONS and call.args:
        if _rooted(call.args[0], held):
            return True
    return any(k.arg == "out" and _rooted(k.value, held) for k in call.keywords)

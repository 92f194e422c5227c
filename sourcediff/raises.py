"""Input checks and debug output: ``raise`` and ``assert`` kept in the function, with
constant messages; ``print`` calls dropped (stage "parse", before the fence).

Scientific code checks its inputs where it reads them::

    if x.shape[0] < 2:
        raise ValueError(f"need two points, got {x.shape[0]}")
    assert dt > 0.0, "the step must be positive"

The derivative runs the same checks in its forward sweep and raises the same
exception class; the reverse sweep never meets them (a raise ends the call). Numba
raises only constant messages, so a message computed from values becomes its
source text. ``assert test, msg`` becomes ``if not test: raise AssertionError(msg)``;
only the builtin exception classes can be raised (a generated module cannot see
the user's own). A ``print(...)`` statement (progress output: ``if i % 100 == 0:
print(i, e)``) is dropped: derivatives and ``sd.jit`` compute the same values without it.

    >>> node = ast.parse('''
    ... def f(x, n):
    ...     assert n > 0, "n must be positive"
    ...     if x < 0.0:
    ...         raise ValueError(f"negative x: {x}")
    ...     print("x is", x)
    ...     return x * n
    ... ''').body[0]
    >>> canonical_raises(node, "model.py")
    >>> print(ast.unparse(node))
    def f(x, n):
        if not n > 0:
            raise AssertionError('n must be positive')
        if x < 0.0:
            raise ValueError('negative x: {x}')
        return x * n
"""

from __future__ import annotations

import ast
import builtins

from .errors import UnsupportedSyntaxError


def is_exception_name(name: str) -> bool:
    """Whether ``name`` is a builtin exception class (``ValueError``...)."""
    value = getattr(builtins, name, None)
    return isinstance(value, type) and issubclass(value, Exception)


def canonical_raises(node: ast.AST, filename: str) -> None:
    """Rewrite, in place, every ``assert`` into an ``if``/``raise`` and every ``raise`` into
    ``raise Name(constant message)``, and drop ``print`` statements; refuse the forms that
    cannot be kept."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            kept = [_canonical(stmt, filename) for stmt in block if not _is_print(stmt)]
            setattr(node, field, kept or ([ast.Pass()] if field == "body" else []))


def _is_print(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "print"
    )


def _canonical(stmt: ast.stmt, filename: str) -> ast.stmt:
    canonical_raises(stmt, filename)
    if isinstance(stmt, ast.Assert):
        message = stmt.msg if stmt.msg is not None else ast.Constant(ast.unparse(stmt.test))
        test = ast.UnaryOp(ast.Not(), stmt.test)
        raised = ast.Raise(ast.Call(ast.Name("AssertionError", ast.Load()), [message], []))
        stmt = ast.copy_location(ast.If(test, [ast.copy_location(raised, stmt)], []), stmt)
        stmt.test = ast.copy_location(test, stmt)
        return _canonical(stmt, filename)
    if isinstance(stmt, ast.Raise):
        return ast.copy_location(ast.Raise(_exception(stmt, filename)), stmt)
    return stmt


def _exception(stmt: ast.Raise, filename: str) -> ast.Call:
    """``Name(constant)`` for the raised exception, or a refusal."""
    exc = stmt.exc
    call = exc if isinstance(exc, ast.Call) else ast.Call(exc, [], [])
    name = call.func.id if isinstance(call.func, ast.Name) else ""
    if exc is None or not is_exception_name(name) or call.keywords or stmt.cause is not None:
        raise UnsupportedSyntaxError(
            "only 'raise' of a builtin exception (ValueError(\"...\"), not a re-raise, a "
            "class of your own or 'from') is supported inside a differentiated function",
            filename,
            stmt.lineno,
            stmt.col_offset,
        )
    message = ast.copy_location(ast.Constant(", ".join(_text(a) for a in call.args)), stmt)
    raised = ast.Call(ast.Name(name, ast.Load()), [message] if call.args else [], [])
    return ast.fix_missing_locations(ast.copy_location(raised, stmt))


def _text(arg: ast.expr) -> str:
    """A message argument as text: a string as it is, an f-string with its fields as
    written (``{x.shape[0]}``), anything else as its source."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        return "".join(
            _text(part) if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
            for part in arg.values
        )
    return ast.unparse(arg)


def raise_if_it_always_raises(node: ast.FunctionDef) -> None:
    """Raise what ``node`` raises when every call of it raises: its body ends with a
    ``raise`` and nothing returns before (an option chose the ``else: raise``)."""
    last = node.body[-1]
    if not isinstance(last, ast.Raise) or any(isinstance(n, ast.Return) for n in ast.walk(node)):
        return
    exception = getattr(builtins, last.exc.func.id)
    raise RaisedByTheFunction(exception(*(a.value for a in last.exc.args)))


class RaisedByTheFunction(Exception):
    """Carries what the user's function raises out of the pipeline's stages (which report
    other exceptions as internal errors); ``pipeline.stage`` raises ``exception``."""

    def __init__(self, exception: Exception):
        super().__init__(str(exception))
        self.exception = exception


def raise_messages(node: ast.AST) -> set[int]:
    """The message constants of canonical raises (strings the fence lets through)."""
    return {
        id(arg)
        for sub in ast.walk(node)
        if isinstance(sub, ast.Raise) and isinstance(sub.exc, ast.Call)
        for arg in sub.exc.args
    }

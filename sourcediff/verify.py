"""Verifier mode: the reverse sweep checks every primal value it reads against a shadow log.

With ``SOURCEDIFF_VERIFY=1`` and ``jit=False``, a derivative is generated
with two additions:

- a *shadow* copy of the normalized primal that, after each statement whose
  adjoint reads primal values (and before each branch the reverse sweep
  replays), pushes those values onto one log;
- in the reverse sweep, before each such adjoint, a check that pops the log
  and compares: it must be the same statement (a wrong branch or trip count in
  the reverse sweep shows up as another statement) and every value equal,
  bit for bit, whether it was restored from a tape, recomputed or still live.

So staleness is caught even where the gradient happens to agree with finite
differences at the test points. A mismatch raises :class:`VerificationError`
naming the user's line::

    >>> log = ShadowLog()
    >>> with log:
    ...     verify_log(0, (1.5,))
    ...     verify_check(0, ("f.py", 3), ("x",), (1.5,))
    >>> log.remaining()
    0
"""

from __future__ import annotations

import ast
import contextvars
import os

import numpy as np

from .errors import SourceDiffError

# The log of the derivative being verified in this thread or task (None: no verification).
_ACTIVE_LOG: contextvars.ContextVar[ShadowLog | None] = contextvars.ContextVar(
    "sourcediff_active_log", default=None
)


class VerificationError(SourceDiffError):
    """The reverse sweep read a primal value that differs from the forward sweep's."""


def enabled(jit: bool) -> bool:
    """Whether derivatives built now are verified: ``SOURCEDIFF_VERIFY=1`` and ``jit=False``."""
    return not jit and os.environ.get("SOURCEDIFF_VERIFY", "") == "1"


class ShadowLog:
    """One stack of (statement id, values) entries, active inside a ``with`` block."""

    def __init__(self):
        self.entries: list[tuple[int, tuple]] = []
        self._outer: contextvars.Token | None = None

    def __enter__(self) -> ShadowLog:
        self._outer = _ACTIVE_LOG.set(self)  # a nested derivative logs into its own
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE_LOG.reset(self._outer)

    def remaining(self) -> int:
        """How many logged entries the reverse sweep has not checked."""
        return len(self.entries)


def _snapshot(value):
    return np.copy(value) if isinstance(value, np.ndarray) else value


def verify_log(sid: int, values: tuple) -> None:
    """Shadow primal: remember the values statement ``sid``'s adjoint will read."""
    log = _ACTIVE_LOG.get()
    if log is not None:
        log.entries.append((sid, tuple(_snapshot(v) for v in values)))


def verify_check(sid: int, where: tuple, names: tuple, values: tuple) -> None:
    """Reverse sweep: the values read for statement ``sid`` (at the user's ``(file, line)``
    ``where``) must equal the logged ones."""
    log = _ACTIVE_LOG.get()
    if log is None:
        return
    entries = log.entries
    if not entries:
        raise VerificationError("the reverse sweep reverses more than the forward ran", *where)
    logged_sid, logged = entries.pop()
    if logged_sid != sid:
        raise VerificationError(
            f"the reverse sweep is out of step with the forward sweep (it reverses statement "
            f"{sid} where the forward sweep last ran statement {logged_sid})",
            *where,
        )
    for name, value, expected in zip(names, values, logged):
        if not _same(value, expected):
            raise VerificationError(
                f"the reverse sweep reads '{name}' = {value!r}, but the forward sweep had "
                f"{expected!r} there (a stale or wrongly restored value)",
                *where,
            )


def _same(value, expected) -> bool:
    """Equal, NaN where NaN, up to rounding: the adjoint's forward sweep may compute a value
    through another route (a product of contiguous copies, an int64 loop index) than the
    plain primal, a few units in the last place apart; a stale value is far off."""
    numbers = (float, np.floating, np.ndarray)
    if not (isinstance(value, numbers) and isinstance(expected, numbers)):
        return value == expected
    a, b = np.asarray(value), np.asarray(expected)
    if a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return bool(np.all(a == b))
    return bool(np.all(np.isclose(a, b, rtol=1e-12, atol=1e-14, equal_nan=True)))


def run_verified(shadow, adjoint, n_params: int, *args):
    """Call ``adjoint(*args)`` after the shadow primal has logged what it will read."""
    primal_args = tuple(_snapshot(a) for a in args[:n_params])
    with ShadowLog() as log:
        shadow(*primal_args)
        result = adjoint(*args)
    if log.remaining():
        raise VerificationError(
            f"the reverse sweep left {log.remaining()} forward statements unreversed"
        )
    return result


def call(sid: int, function: str, *args: ast.expr) -> ast.stmt:
    """The statement ``function(sid, *args)`` (a log or a check in generated code)."""
    call_node = ast.Call(ast.Name(function, ast.Load()), [ast.Constant(sid), *args], [])
    return ast.Expr(call_node)


def names_tuple(names: list[str]) -> tuple[ast.expr, ast.expr]:
    """``("a", "b")`` and ``(a, b)``: the names and the values of a check."""
    strings = ast.Tuple([ast.Constant(n) for n in names], ast.Load())
    values = ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load())
    return strings, values


class Instrumentation:
    """Hands out statement ids while the reverse sweep is built, then builds the shadow."""

    def __init__(self):
        self.checked: dict[int, tuple[int, list[str]]] = {}  # id(stmt) -> (sid, names)

    def check(self, stmt: ast.stmt, names: set[str]) -> list[ast.stmt]:
        """The reverse sweep's check of the values ``stmt``'s adjoint reads."""
        if not names:
            return []
        sid, ordered = self.checked.setdefault(id(stmt), (len(self.checked), sorted(names)))
        where = ast.Constant(getattr(stmt, "origin", ("<generated>", 0)))
        return [call(sid, "verify_check", where, *names_tuple(ordered))]

    def shadow(self, node: ast.FunctionDef, name: str) -> ast.FunctionDef:
        """A copy of the normalized primal ``node`` that logs what each check will read."""
        return ast.FunctionDef(name, node.args, self._block(node.body), [], None)

    def _block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            logged = self.checked.get(id(stmt))
            log = []
            if logged is not None:
                log = [call(logged[0], "verify_log", names_tuple(logged[1])[1])]
            if isinstance(stmt, ast.If):
                # Logged after the branch: its test is read at the start of its reverse.
                stmt = ast.If(stmt.test, self._block(stmt.body), self._block(stmt.orelse))
            elif isinstance(stmt, (ast.For, ast.While)):
                fields = {f: getattr(stmt, f) for f in stmt._fields if hasattr(stmt, f)}
                stmt = type(stmt)(**{**fields, "body": self._block(stmt.body)})
            out += [stmt] + log
        return out

"""Errors raised while generated code runs, reported at the user's line.

Generated code can fail on values no stage could see: a division by zero run as
Python (``jit=False``; compiled code gives inf or NaN), or a call of a NumPy
function that sourcediff defines in :mod:`.library` with arguments that definition
does not cover (``np.linalg.matrix_power(A, -1)``, ``np.median`` of a matrix). The
exception comes out of the generated module; these functions turn it into a
:class:`~.errors.SourceDiffError` naming the user's file and line, as every other
refusal does.

    >>> import ast
    >>> from types import SimpleNamespace
    >>> node = ast.parse("def f(A):\\n    return numpy_median(A)").body[0]
    >>> user = SimpleNamespace(filename="stats.py", node=node)
    >>> parsed = SimpleNamespace(call_tree=lambda: [user])
    >>> error = library_error(ValueError("np.median: only a 1-D array is supported"), parsed)
    >>> print(error)
    stats.py:2: np.median: only a 1-D array is supported
    >>> isinstance(error, ValueError)
    True
"""

from __future__ import annotations

import ast
import re
import traceback

from . import library
from .errors import SourceDiffError, UnsupportedValueError

#: A generated statement's origin comment: ``# heat.py:14: u[i] += ...``.
ORIGIN = re.compile(r"#\s*(\S+?):(\d+):")


def division_error(exc: ZeroDivisionError, path: str, parsed) -> SourceDiffError:
    """A division by zero in generated code run as Python, reported at the user's line the
    generated statement comes from (its origin comment): the function or its derivative
    divides by zero there, where compiled code would give inf or NaN."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    filename, line = parsed.filename, parsed.node.lineno
    if frames:
        with open(path) as module:
            lines = module.read().splitlines()[: frames[-1].lineno]
        found = next((ORIGIN.search(text) for text in reversed(lines) if ORIGIN.search(text)), None)
        if found:
            filename, line = found.group(1), int(found.group(2))
    return SourceDiffError(
        "division by zero in the function or its derivative at this point (sqrt, log, "
        "x ** p or 1 / x at 0 are not differentiable there); compiled code (jit=True) gives "
        "inf or NaN instead",
        filename,
        line,
    )


def library_error(exc: ValueError, parsed) -> UnsupportedValueError | None:
    """A library definition's or runtime function's refusal of its arguments (its message
    starts with NumPy's name of the function, ``np.median: ...``) at the user's first
    call of it; None for any other ``ValueError`` (the user's own ``raise``, which keeps
    its message)."""
    spelling, colon, _ = str(exc).partition(": ")
    if not colon or not spelling.startswith("np."):
        return None
    sites = [
        (fn.filename, call.lineno, call.col_offset)
        for fn in parsed.call_tree()
        for call in ast.walk(fn.node)
        if isinstance(call, ast.Call) and _calls(call, spelling) and fn.filename != library.__file__
    ]
    if not sites:
        return None
    filename, line, col = min(sites)
    others = sorted({f"line {n}" for f, n, _ in sites if (f, n) != (filename, line)})
    also = f" (or its call at {', '.join(others)})" if others else ""
    return UnsupportedValueError(f"{exc}{also}", filename, line, col)


def _calls(call: ast.Call, spelling: str) -> bool:
    """Whether ``call`` calls NumPy's ``spelling``: the library definition parsing put in
    its place (``numpy_median``), or the attribute itself (``np.roll``, whatever NumPy's
    module is called there)."""
    definitions = library.DEFINITIONS_BY_SPELLING.get(spelling, set())
    if isinstance(call.func, ast.Name):
        return call.func.id in definitions
    attribute = ast.unparse(call.func).partition(".")[2]
    return not definitions and isinstance(call.func, ast.Attribute) and attribute == spelling[3:]

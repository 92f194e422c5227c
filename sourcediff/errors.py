"""Errors raised by sourcediff, each carrying the user's file, line and a caret excerpt.

Every refusal is a subclass of :class:`SourceDiffError`; its message reads like
Python's own SyntaxError: ``file.py:14: 'yield' is not supported ...`` followed by
the offending source line and a caret under the construct.
"""

from __future__ import annotations

import linecache


class SourceDiffError(Exception):
    """Base class of every error sourcediff raises about a user's function.

    Attributes ``filename``, ``lineno`` and ``col`` locate the construct in the
    user's source; ``reason`` is the bare message without the location.
    """

    def __init__(self, reason: str, filename: str = "<unknown>", lineno: int = 0, col: int = 0):
        self.reason = reason
        self.filename = filename
        self.lineno = lineno
        self.col = col
        super().__init__(self._format())

    def _format(self) -> str:
        if self.filename == "<unknown>":  # about the arguments of a call, not a source line
            return self.reason
        short = self.filename.rsplit("/", 1)[-1]
        head = f"{short}:{self.lineno}: {self.reason}" if self.lineno else f"{short}: {self.reason}"
        line = linecache.getline(self.filename, self.lineno) if self.lineno else ""
        if not line.strip():
            return head + f"\n  (in {self.filename})" if short != self.filename else head
        stripped = line.rstrip("\n")
        indent = len(stripped) - len(stripped.lstrip())
        caret = " " * max(self.col - indent, 0) + "^"
        where = f'  File "{self.filename}", line {self.lineno}'
        return f"{head}\n{where}\n    {stripped.strip()}\n    {caret}"


class UnsupportedSyntaxError(SourceDiffError):
    """A Python construct outside the differentiable subset (yield, try, lambda, ...)."""


class UnsupportedCallError(SourceDiffError):
    """A call to a function with neither a derivative rule nor Python source."""


class ArgumentError(SourceDiffError):
    """Bad arguments to a transformation: integer argnums, non-scalar grad output, ..."""


class TypeInferenceError(SourceDiffError):
    """A variable whose type cannot be inferred or changes kind inside the function."""


class ModeRefusedError(SourceDiffError):
    """A derivative rule that works in one mode only: forward mode through a
    ``custom_vjp`` rule, reverse mode of an array argument through a ``custom_jvp`` rule.
    ``sd.jacobian(mode="auto")`` takes the other mode then."""


class UnsupportedValueError(SourceDiffError, ValueError):
    """A call, found when the function runs, with argument values or ranks that
    sourcediff's definition of that NumPy function does not cover
    (``np.linalg.matrix_power(A, -1)``, ``np.median`` of a matrix). Also a
    ``ValueError``, as NumPy's own refusals are."""

"""Bind a number once where it is updated: ``x = e1; ...; x -= e2`` is ``x = e1 - e2``.

The reverse sweep builds an adjoint from several contributions, the first assigned and
the others added (``t16_bar = t18 * t42_bar``, later ``t16_bar += t76 * t34_bar``).
Written as one expression at the last update, the value reads as a hand adjoint does and
folds into its one reader. The operations and their order are the same, so the value is
bit for bit the same. A pass of ``fold.py``, which gives it the statements' summaries.
"""

from __future__ import annotations

import ast

from .effects import has_effects, names_changed, names_read, names_written


class _Facts:
    """Statement summaries as ``fold._Summaries`` gives them (for the doctest)."""

    def of(self, stmt: ast.stmt) -> tuple:
        return names_read(stmt), names_written(stmt), names_changed(stmt), has_effects(stmt)


def merge_into_update(stmts, index: int, name: str, summaries, movable: bool) -> bool:
    """``x = e1`` whose next mention is ``x += e2`` (any operator, ``x`` a number)
    becomes ``x = e1 + e2`` there: the same operations in the same order, one statement.
    A constant ``e1`` is left to ``zeros.py`` (``0.0 + e2`` is not ``e2`` for ``-0.0``).

    >>> fn = ast.parse("def f(a, b, c):\\n    x = a * b\\n    y = c\\n    x -= c * a\\n"
    ...                "    return x + y").body[0]
    >>> merge_into_update(fn.body, 0, "x", _Facts(), True)
    True
    >>> print(ast.unparse(fn.body[1]))
    x = a * b - c * a
    """
    value = stmts[index].value
    reads = names_read(value)
    for position in range(index + 1, len(stmts)):
        later = stmts[position]
        read, written, changed, effects = summaries.of(later)
        if name in read or name in written:
            if not _updates_name(later, name):
                return False
            merged = ast.Assign(
                [ast.Name(name, ast.Store())], ast.BinOp(value, later.op, later.value)
            )
            stmts[position] = ast.copy_location(merged, later)
            del stmts[index]
            return True
        if (effects and not movable) or reads & changed:
            return False
    return False


def _updates_name(stmt: ast.stmt, name: str) -> bool:
    """Whether ``stmt`` is ``name op= e`` with ``e`` not reading ``name``."""
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.target.id == name
        and name not in names_read(stmt.value)
    )

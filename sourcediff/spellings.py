r"""Everyday spellings rewritten at parse time into the ones the pipeline reads.

``float("inf")`` (also ``"-inf"``, ``"infinity"``, ``"nan"``) is the float itself, as
``math.inf`` is; ``for c in reversed(v)`` over anything but a ``range`` runs over
``v[::-1]``, which is what ``reversed`` yields for an array or a list:

>>> f = ast.parse('''
... def f(v):
...     best = float("inf")
...     for c in reversed(v):
...         best = min(best, c)
...     return best
... ''').body[0]
>>> plain_spellings(f)
>>> print(ast.unparse(f))
def f(v):
    best = 1e309
    for c in v[::-1]:
        best = min(best, c)
    return best
"""

from __future__ import annotations

import ast

from .ir import is_call

SPECIAL_FLOATS = ("inf", "-inf", "+inf", "infinity", "-infinity", "+infinity", "nan")


class _Spellings(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        (text,) = node.args if len(node.args) == 1 and not node.keywords else (None,)
        if is_call(node, "float") and isinstance(text, ast.Constant):
            if isinstance(text.value, str) and text.value.strip().lower() in SPECIAL_FLOATS:
                return ast.copy_location(ast.Constant(float(text.value)), node)
        return node

    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        it = node.iter
        if is_call(it, "reversed") and len(it.args) == 1 and not it.keywords:
            (over,) = it.args
            if not is_call(over, "range"):  # reversed(range(...)): normalize.arrays
                backwards = ast.Slice(None, None, ast.Constant(-1))
                node.iter = ast.copy_location(ast.Subscript(over, backwards, ast.Load()), it)
        return node


def plain_spellings(node: ast.FunctionDef) -> None:
    """Rewrite, in place, the spellings of the module docstring inside ``node``."""
    _Spellings().visit(node)
    ast.fix_missing_locations(node)

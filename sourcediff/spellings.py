r"""Everyday spellings rewritten at parse time into the ones the pipeline reads.

``float("inf")`` (also ``"-inf"``, ``"infinity"``, ``"nan"``) is the float itself, as
``math.inf`` is; ``for c in reversed(v)`` over anything but a ``range`` runs over
``v[::-1]``, which is what ``reversed`` yields for an array or a list; the builtin
``pow(a, b)`` is ``a ** b``; ``math.fsum(values)`` is ``sum(values)`` (the rounding of
the sum differs in the last bits); ``a.item()`` is ``a.ravel()[0]`` (an array of one
element, or NumPy's ``ValueError``):

>>> f = ast.parse('''
... def f(v):
...     best = float("inf")
...     for c in reversed(v):
...         best = min(best, c)
...     return pow(best, 2) + math.fsum([c * c for c in v]) + v[:1].item()
... ''').body[0]
>>> plain_spellings(f)
>>> print(ast.unparse(f))
def f(v):
    best = 1e309
    for c in v[::-1]:
        best = min(best, c)
    return best ** 2 + sum([c * c for c in v]) + v[:1].ravel()[0]
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
        if is_call(node, "pow") and len(node.args) == 2 and not node.keywords:
            return ast.copy_location(ast.BinOp(node.args[0], ast.Pow(), node.args[1]), node)
        if _is_method(node, "math", "fsum") and len(node.args) == 1 and not node.keywords:
            return ast.copy_location(ast.Call(ast.Name("sum", ast.Load()), node.args, []), node)
        item = isinstance(node.func, ast.Attribute) and node.func.attr == "item"
        if item and len(node.args) <= 1 and not node.keywords:  # a.item() or a.item(k)
            ravel = ast.Call(ast.Attribute(node.func.value, "ravel", ast.Load()), [], [])
            index = node.args[0] if node.args else ast.Constant(0)
            return ast.copy_location(ast.Subscript(ravel, index, ast.Load()), node)
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


def _is_method(node: ast.Call, module: str, name: str) -> bool:
    """Whether ``node`` calls ``module.name`` (``math.fsum``)."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == name
        and isinstance(func.value, ast.Name)
        and func.value.id == module
    )


def plain_spellings(node: ast.FunctionDef) -> None:
    """Rewrite, in place, the spellings of the module docstring inside ``node``."""
    _Spellings().visit(node)
    ast.fix_missing_locations(node)

r"""Give each top-level redefinition of a variable its own name (straight-line SSA).

In straight-line code a variable overwritten later would otherwise have to
be saved for the reverse sweep; naming each value separately means nothing is
recorded. Only variables that no ``if``/``for``/``while`` assigns are renamed,
so loop-carried and branch-merged variables keep one name::

    a = x * y                  a = x * y
    t1 = a * b        ->       t1 = a * b
    a = t1                     a_1 = t1
    t2 = a + y                 t2 = a_1 + y

    >>> from sourcediff.ir import block_source
    >>> node = ast.parse("def f(x, y, b):\n a = x * y\n t1 = a * b\n a = t1\n t2 = a + y").body[0]
    >>> version_straight_line(node, Namer.for_tree(node))
    >>> print(block_source(node.body))
    a = x * y
    t1 = a * b
    a_1 = t1
    t2 = a_1 + y
"""

from __future__ import annotations

import ast

from ..naming import Namer


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            node.id = self.names[node.id]
        return node


def version_straight_line(node: ast.FunctionDef, namer: Namer) -> None:
    """Rename, in place, top-level redefinitions of variables (see module docstring)."""
    in_compound = {
        n.id
        for stmt in node.body
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name))
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    in_compound |= {
        s.targets[0].id
        for s in node.body
        if isinstance(s, ast.Assign)
        and isinstance(s.value, ast.Call)
        and isinstance(s.value.func, ast.Name)
        and s.value.func.id == "inplace_update"
    }
    # Arrays written element by element keep one name: the writes update them in place.
    in_compound |= {
        s.targets[0].value.id
        for s in ast.walk(node)
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Subscript)
    }
    defined = {a.arg for a in node.args.args}
    current: dict[str, str] = {}
    counts: dict[str, int] = {}
    for stmt in node.body:
        _Rename(current).visit(stmt)
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.targets[0], ast.Name):
            continue
        name = stmt.targets[0].id
        if name in in_compound:
            continue
        if name in defined:
            counts[name] = counts.get(name, 0) + 1
            current[name] = namer.fresh(f"{name}_{counts[name]}")
            stmt.targets[0].id = current[name]
        defined.add(name)

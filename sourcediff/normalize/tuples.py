"""Tuple variables become one variable per element (scalar replacement of aggregates).

A name bound to a tuple literal, and only unpacked, indexed with a constant or
returned, is split into its elements, so that every later stage sees plain
variables::

    p = (x * y, z)            p_0, p_1 = x * y, z
    u, w = p          ->      u, w = p_0, p_1
    s = p[1]                  s = p_1
    return p                  return (p_0, p_1)

Any other use (a run-time index ``p[i]``, passing ``p`` to a function) is
refused with the line: a silent zero derivative would be the alternative.
"""

from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError


def split_tuple_variables(fn, node: ast.FunctionDef) -> ast.FunctionDef:
    """Rewrite ``node`` (in place) as in the module docstring; ``fn`` locates errors."""
    for name, size in tuple_variables(node).items():
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elements = [_fresh(f"{name}_{k}", used) for k in range(size)]
        _Split(fn, name, elements).visit(node)
    return node


def tuple_variables(node: ast.FunctionDef) -> dict[str, int]:
    """Names every assignment of which is a tuple literal of one length."""
    sizes: dict[str, set[int]] = {}
    others: set[str] = set()
    for stmt in ast.walk(node):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                if isinstance(target, ast.Name) and isinstance(stmt, ast.Assign):
                    if isinstance(stmt.value, ast.Tuple):
                        sizes.setdefault(target.id, set()).add(len(stmt.value.elts))
                        continue
                others |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    params = {a.arg for a in node.args.args}
    return {
        name: next(iter(found))
        for name, found in sizes.items()
        if len(found) == 1 and name not in others and name not in params
    }


def _fresh(name: str, used: set[str]) -> str:
    candidate, k = name, 1
    while candidate in used:
        candidate, k = f"{name}_{k}", k + 1
    used.add(candidate)
    return candidate


class _Split(ast.NodeTransformer):
    def __init__(self, fn, name: str, elements: list[str]):
        self.fn, self.name, self.elements = fn, name, elements

    def _names(self, ctx) -> ast.Tuple:
        return ast.Tuple([ast.Name(e, ctx()) for e in self.elements], ctx())

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == self.name:
            node.value = self.visit(node.value)
            node.targets = [self._names(ast.Store)]
            return node
        if isinstance(node.value, ast.Name) and node.value.id == self.name:
            if isinstance(target, ast.Tuple):
                node.value = self._names(ast.Load)
                return node
        return self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> ast.Return:
        if isinstance(node.value, ast.Name) and node.value.id == self.name:
            node.value = self._names(ast.Load)
            return node
        return self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if not (isinstance(node.value, ast.Name) and node.value.id == self.name):
            return self.generic_visit(node)
        index = node.slice
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
            index = ast.Constant(-index.operand.value) if _int(index.operand) else index
        if not _int(index) or not -len(self.elements) <= index.value < len(self.elements):
            raise self._refusal(node, f"'{self.name}[...]' needs a constant index in range")
        return ast.copy_location(ast.Name(self.elements[index.value], ast.Load()), node)

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id == self.name:
            raise self._refusal(
                node,
                f"the tuple '{self.name}' can only be unpacked, indexed with a constant "
                "or returned here",
            )
        return node

    def _refusal(self, node: ast.AST, reason: str) -> UnsupportedSyntaxError:
        return self.fn.error(node, reason, UnsupportedSyntaxError)


def _int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int

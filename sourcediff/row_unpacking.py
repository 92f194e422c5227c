r"""Unpacking of array rows, rewritten at parse time into element reads.

Graph, mesh and spring code unpacks index pairs from the rows of an integer array:
``i, j = edges[e]``, ``for i, j in edges``, ``for (i, j), rest in zip(edges, lengths)``,
``for k, (i, j) in enumerate(edges)``. Each is the row bound to one name and its
elements read one by one, which is what Python does for a NumPy row (the pipeline
unpacks tuples and helper results only):

>>> f = ast.parse('''
... def f(x, edges, lengths):
...     s = 0.0
...     for (i, j), rest in zip(edges, lengths):
...         a, b = x[i], x[j]
...         s += (b - a - rest) ** 2
...     p, q = edges[0]
...     return s * x[p] * x[q]
... ''').body[0]
>>> unpack_rows(f, Namer.for_tree(f))
>>> print(ast.unparse(f))
def f(x, edges, lengths):
    s = 0.0
    for edges_row, rest in zip(edges, lengths):
        i = edges_row[0]
        j = edges_row[1]
        a, b = (x[i], x[j])
        s += (b - a - rest) ** 2
    edges_row2 = edges[0]
    p = edges_row2[0]
    q = edges_row2[1]
    return s * x[p] * x[q]

A row of another length than the names is Python's ``ValueError``; compiled code does
not check it (as Numba does not check bounds).
"""

from __future__ import annotations

import ast

from .ir import is_call
from .naming import Namer

PAIRING_CALLS = ("zip", "enumerate")


class _RowUnpacking(ast.NodeTransformer):
    def __init__(self, namer: Namer):
        self.namer = namer

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        (target,) = node.targets if len(node.targets) == 1 else (None,)
        if not (_is_name_tuple(target) and isinstance(node.value, ast.Subscript)):
            return node
        row = self.namer.fresh(_row_name(node.value))
        bound = ast.Assign([ast.Name(row, ast.Store())], node.value)
        return [ast.copy_location(s, node) for s in [bound, *self._elements(target, row)]]

    def visit_For(self, node: ast.For) -> ast.For:
        self.generic_visit(node)
        iterable, target = node.iter, node.target
        unpacked: list[ast.stmt] = []
        if any(is_call(iterable, name) for name in PAIRING_CALLS):
            if isinstance(target, ast.Tuple):
                sources = iterable.args if is_call(iterable, "zip") else [None] + iterable.args
                for k, element in enumerate(target.elts):
                    over = sources[k] if k < len(sources) else None
                    pairing = any(is_call(over, name) for name in PAIRING_CALLS)
                    if _is_name_tuple(element) and not pairing:  # enumerate(zip(...)): tuples
                        row = self.namer.fresh(_row_name(over))
                        target.elts[k] = ast.Name(row, ast.Store())
                        unpacked += self._elements(element, row)
        elif _is_name_tuple(target) and isinstance(iterable, (ast.Name, ast.Subscript)):
            row = self.namer.fresh(_row_name(iterable))
            node.target = ast.Name(row, ast.Store())
            unpacked = self._elements(target, row)
        node.body = [ast.copy_location(s, node) for s in unpacked] + node.body
        return node

    def _elements(self, target: ast.Tuple, row: str) -> list[ast.stmt]:
        """``name_k = row[k]`` for each name of ``target``, nested tuples recursively."""
        out: list[ast.stmt] = []
        for k, element in enumerate(target.elts):
            read = ast.Subscript(ast.Name(row, ast.Load()), ast.Constant(k), ast.Load())
            if isinstance(element, ast.Name):
                out.append(ast.Assign([ast.Name(element.id, ast.Store())], read))
            else:
                inner = self.namer.fresh(f"{row}_{k}")
                out.append(ast.Assign([ast.Name(inner, ast.Store())], read))
                out += self._elements(element, inner)
        return out


def _is_name_tuple(target) -> bool:
    """Whether ``target`` is a tuple (or list) of names and such tuples, nothing starred."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return False
    return all(isinstance(e, ast.Name) or _is_name_tuple(e) for e in target.elts)


def _row_name(over) -> str:
    """``edges_row`` for rows of ``edges`` (or of ``edges[...]``), else ``row``."""
    while isinstance(over, ast.Subscript):
        over = over.value
    return f"{over.id}_row" if isinstance(over, ast.Name) else "row"


def unpack_rows(node: ast.FunctionDef, namer: Namer) -> None:
    """Rewrite, in place, the row unpackings of the module docstring inside ``node``."""
    _RowUnpacking(namer).visit(node)
    ast.fix_missing_locations(node)

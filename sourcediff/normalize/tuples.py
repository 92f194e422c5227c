"""Tuple variables become one variable per element (scalar replacement of aggregates).

A name every binding of which is a tuple of one length (written out, joined with
``+``, repeated with ``*`` or sliced from such tuples) is split into its elements, so
that every later stage sees plain variables; indexing it with a constant picks an
element, any other read is the tuple of its elements written out::

    p = (x * y, z)            p_0, p_1 = (x * y, z)
    q = p + (w,)              q_0, q_1, q_2 = (p_0, p_1, w)
    u, v = p          ->      u, v = (p_0, p_1)
    s = q[-1]                 s = q_2
    return np.stack(p)        return np.stack((p_0, p_1))

Indexed with a value known only at run time (``p[i]``), it is written out there too:
``tuple_displays`` unrolls the loop that gives ``i`` its values or refuses the line (a
silent zero derivative would be the alternative), once helpers are spliced in.
"""

from __future__ import annotations

import ast

from ..astnodes import clone


def split_tuple_variables(fn, node: ast.FunctionDef) -> ast.FunctionDef:
    """Rewrite ``node`` (in place) as in the module docstring; ``fn`` locates errors."""
    for name, size in tuple_variables(node).items():
        used = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elements = [_fresh(f"{name}_{k}", used) for k in range(size)]
        SplitTuple({name: elements}).visit(node)
    return node


def tuple_variables(node: ast.AST) -> dict[str, int]:
    """Names every assignment of which is a tuple of one length, by that length."""
    bindings: dict[str, list[ast.expr]] = {}
    others: set[str] = set(_parameters(node))
    for stmt in ast.walk(node):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                single = isinstance(stmt, ast.Assign) and len(stmt.targets) == 1  # not a = b = ..
                if isinstance(target, ast.Name) and single:
                    bindings.setdefault(target.id, []).append(stmt.value)
                else:
                    others |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    sizes: dict[str, int] = {}
    while True:  # a join of tuples is sized once its parts are
        found = {
            name: {tuple_size(value, sizes) for value in values}
            for name, values in bindings.items()
            if name not in others and name not in sizes
        }
        new = {name: s.pop() for name, s in found.items() if len(s) == 1 and None not in s}
        if not new:
            return sizes
        sizes |= new


def _parameters(node: ast.AST) -> list[str]:
    args = getattr(node, "args", None)
    return [a.arg for a in args.args] if isinstance(args, ast.arguments) else []


def tuple_size(expr: ast.expr, sizes: dict[str, int]) -> int | None:
    """The length of the tuple ``expr`` builds, given the lengths of tuple names; None
    when it is not a tuple of known length."""
    placeholders = {name: [ast.Constant(None)] * size for name, size in sizes.items()}
    display = as_display(expr, placeholders)
    return None if display is None else len(display.elts)


def as_display(expr: ast.expr, named: dict | None = None) -> ast.Tuple | None:
    """``expr``, built of tuples written out (and of the names ``named`` gives elements),
    as one tuple written out; None otherwise.

    >>> print(ast.unparse(as_display(ast.parse("((a, b) + (c,) * 2)[1:]").body[0].value)))
    (b, c, c)
    """
    named = named or {}
    if isinstance(expr, ast.Name) and expr.id in named:
        return ast.Tuple(list(named[expr.id]), ast.Load())
    if isinstance(expr, ast.Tuple):
        return None if any(isinstance(e, ast.Starred) for e in expr.elts) else expr
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = as_display(expr.left, named), as_display(expr.right, named)
        if left is not None and right is not None:
            return ast.Tuple(left.elts + right.elts, ast.Load())
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for seq, times in ((expr.left, expr.right), (expr.right, expr.left)):
            display = as_display(seq, named)
            if display is not None and _int(times) and times.value >= 0:
                elts = [clone(e) for _ in range(times.value) for e in display.elts]
                return ast.Tuple(elts, ast.Load())
    if isinstance(expr, ast.Subscript) and _constant_slice(expr.slice) is not None:
        display = as_display(expr.value, named)
        if display is not None:
            return ast.Tuple(display.elts[_constant_slice(expr.slice)], ast.Load())
    return None


def _fresh(name: str, used: set[str]) -> str:
    candidate, k = name, 1
    while candidate in used:
        candidate, k = f"{name}_{k}", k + 1
    used.add(candidate)
    return candidate


class SplitTuple(ast.NodeTransformer):
    """Split each tuple name of ``elements`` (name -> its element names); an index known
    only at run time is left on the tuple written out, for ``tuple_displays`` to unroll
    or refuse."""

    def __init__(self, elements: dict[str, list[str]]):
        self.elements = elements

    def _names(self, name: str, ctx) -> ast.Tuple:
        return ast.Tuple([ast.Name(e, ctx()) for e in self.elements[name]], ctx())

    def visit_Assign(self, node: ast.Assign) -> ast.Assign:
        self.generic_visit(node)
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in self.elements:
            node.value = as_display(node.value)
            node.targets = [self._names(target.id, ast.Store)]
            node.split_tuple = True  # elements bound at once (tuple_displays sequences them)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if not (isinstance(node.value, ast.Name) and node.value.id in self.elements):
            return self.generic_visit(node)
        elements = self.elements[node.value.id]
        index = constant_index(node.slice)
        if index is not None and -len(elements) <= index < len(elements):
            return ast.copy_location(ast.Name(elements[index], ast.Load()), node)
        if _constant_slice(node.slice) is not None:
            picked = elements[_constant_slice(node.slice)]
            return ast.copy_location(
                ast.Tuple([ast.Name(e, ast.Load()) for e in picked], ast.Load()), node
            )
        node.value = self._names(node.value.id, ast.Load)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.elements and isinstance(node.ctx, ast.Load):
            return ast.copy_location(self._names(node.id, ast.Load), node)
        return node


def constant_index(index: ast.expr) -> int | None:
    """The value of an integer constant index (``3``, ``-1``); None for any other."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub) and _int(index.operand):
        return -index.operand.value
    return index.value if _int(index) else None


def _constant_slice(index: ast.expr) -> slice | None:
    if not isinstance(index, ast.Slice):
        return None
    parts = [index.lower, index.upper, index.step]
    values = [None if p is None else constant_index(p) for p in parts]
    if any(v is None and p is not None for v, p in zip(values, parts)) or values[2] == 0:
        return None
    return slice(*values)


def _int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int

r"""Comprehensions and generator expressions, rewritten at parse time into the loops
they stand for, so that everything after parse sees ``for`` loops only.

``sum(<gen>)`` (also with a start), ``max(<gen>)`` and ``min(<gen>)`` become an
accumulating loop before the statement that holds them; a list comprehension assigned
to a name (``ys = [f(v) for v in x]``) or passed to a NumPy function becomes an array
filled by a loop (its length is that of the ``range`` or array it runs over), and the
name is then used as the array it is: indexed, iterated over, passed to ``len``, ``sum``
or a NumPy function. Anything else (a comprehension under ``and``/``or``/``if-else``, in
a ``while`` test, with an ``if`` filter building a list, a list used as a list) is left
for the fence, which refuses it with the line. Comprehension variables get fresh names:
they do not leak, as in Python 3.

>>> from .naming import Namer
>>> f = ast.parse("def f(x, w):\n    return sum(w[i] * x[i] for i in range(3) if x[i] > 0)").body[0]
>>> expand_comprehensions(f, Namer.for_tree(f, set()), "np")
>>> print(ast.unparse(f))
def f(x, w):
    total = 0.0
    for i2 in range(3):
        if x[i2] > 0:
            total = total + w[i2] * x[i2]
    return total
"""

from __future__ import annotations

import ast

from .astnodes import clone
from .errors import UnsupportedSyntaxError

COMPREHENSIONS = (ast.GeneratorExp, ast.ListComp)
LOWEST_FLOAT = "-1.7976931348623157e308"  # the start of a max: below every finite float
# Where hoisting a comprehension out of its statement would change when it runs.
_CONDITIONAL = (ast.BoolOp, ast.IfExp, ast.Lambda, ast.GeneratorExp, ast.ListComp)
_CONDITIONAL += (ast.SetComp, ast.DictComp)


def expand_comprehensions(node: ast.AST, namer, numpy_name: str | None, filename="") -> None:
    """Rewrite the comprehensions in ``node``'s statement lists, in place (``numpy_name``:
    what the user's module calls numpy, None if it does not import it; ``filename`` for
    the refusal of a built list used as a list)."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        new_block = []
        for stmt in block:
            expand_comprehensions(stmt, namer, numpy_name, filename)
            new_block += _Hoister(namer, numpy_name).statement(stmt)
        setattr(node, field, new_block)
    if isinstance(node, ast.FunctionDef):
        _arrays_from_lists(node, numpy_name, filename)


class _Hoister(ast.NodeTransformer):
    """Replaces eligible comprehensions in one statement by names computed before it."""

    def __init__(self, namer, numpy_name):
        self.namer, self.numpy_name, self.before = namer, numpy_name, []
        self.consumed = False  # the statement was ``ys = [...]``, now the loop filling ys

    def statement(self, stmt: ast.stmt) -> list[ast.stmt]:
        if isinstance(stmt, (ast.For, ast.While, ast.If, ast.FunctionDef)):
            parts = {"For": "iter", "If": "test"}.get(type(stmt).__name__)
            if parts:  # evaluated once, before the loop or branch: may be hoisted
                setattr(stmt, parts, self.visit(getattr(stmt, parts)))
        else:
            self.visit(stmt)
        for new in self.before:
            ast.fix_missing_locations(ast.copy_location(new, stmt))
            for sub in ast.walk(new):
                ast.copy_location(sub, stmt)
        return self.before + ([] if self.consumed else [stmt])

    def generic_visit(self, node):
        if isinstance(node, _CONDITIONAL):
            return node  # left alone: the fence refuses what remains
        return super().generic_visit(node)

    def visit_Call(self, call: ast.Call):
        self.generic_visit(call)
        reduced = _reduction(call)
        if reduced is not None and isinstance(call.args[0], COMPREHENSIONS):
            return self._accumulate(reduced, call)
        if _is_numpy_call(call, self.numpy_name) and _listable(call.args[:1]):
            call.args[0] = self._fill(call.args[0])
        return call

    def visit_Assign(self, stmt: ast.Assign):
        self.generic_visit(stmt)
        if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if self.numpy_name and _listable([stmt.value]):
                self._fill(stmt.value, stmt.targets[0].id)
                self.consumed = True
        return stmt

    def _accumulate(self, kind: str, call: ast.Call) -> ast.Name:
        comp = call.args[0]
        total = self.namer.fresh({"sum": "total", "max": "largest", "min": "smallest"}[kind])
        start = call.args[1] if len(call.args) > 1 else ast.Constant(0.0)
        if kind != "sum":
            start = ast.parse(LOWEST_FLOAT if kind == "max" else LOWEST_FLOAT[1:]).body[0].value
        self.before.append(_assign(total, start))
        if kind == "sum":
            update = ast.BinOp(ast.Name(total, ast.Load()), ast.Add(), comp.elt)
        else:
            pair = [ast.Name(total, ast.Load()), comp.elt]
            update = ast.Call(ast.Name(kind, ast.Load()), pair, [])
        self.before.append(self._loops(comp, [_assign(total, update)]))
        return ast.Name(total, ast.Load())

    def _fill(self, comp: ast.ListComp, name: str = "") -> ast.expr:
        values = name or self.namer.fresh("values")
        generator = comp.generators[0]
        counter = self.namer.fresh("k")
        zeros = ast.parse(f"{self.numpy_name}.zeros(1)").body[0].value
        zeros.args = [_length(generator.iter)]
        zeros.list_built = True  # sum(values) is then np.sum(values)
        self.before.append(_assign(values, zeros))
        self.before.append(_assign(counter, ast.Constant(0)))
        write = ast.parse(f"{values}[{counter}] = 0.0\n{counter} = {counter} + 1").body
        write[0].value = comp.elt
        self.before.append(self._loops(comp, write))
        return ast.Name(values, ast.Load())

    def _loops(self, comp, body: list[ast.stmt]) -> ast.For:
        """The nested loops (and ``if`` filters) of ``comp`` around ``body``, with fresh
        names for the comprehension's variables."""
        renames = {}
        for generator in comp.generators:
            for name in ast.walk(generator.target):
                if isinstance(name, ast.Name):
                    renames[name.id] = self.namer.fresh(name.id)
        renamed = _Renamer(renames)
        inner = [renamed.visit(stmt) for stmt in body]
        first = comp.generators[0]
        if not isinstance(first.iter, (ast.Name, ast.Call)):  # xs[:n]: a name, evaluated once
            items = self.namer.fresh("items")
            self.before.append(_assign(items, first.iter))
            first.iter = ast.Name(items, ast.Load())
        for generator in reversed(comp.generators):
            for test in reversed(generator.ifs):
                inner = [ast.If(renamed.visit(test), inner, [])]
            target = renamed.visit(clone(generator.target))
            inner = [ast.For(target, renamed.visit(generator.iter), inner, [])]
        return inner[0]


class _Renamer(ast.NodeTransformer):
    def __init__(self, renames: dict[str, str]):
        self.renames = renames

    def visit_Name(self, node: ast.Name):
        return ast.Name(self.renames.get(node.id, node.id), node.ctx)


def _reduction(call: ast.Call) -> str | None:
    """``'sum'``, ``'max'`` or ``'min'`` for such a builtin call over one comprehension."""
    if not (isinstance(call.func, ast.Name) and call.func.id in ("sum", "max", "min")):
        return None
    if call.keywords or not call.args or len(call.args) > (2 if call.func.id == "sum" else 1):
        return None
    return call.func.id


def _is_numpy_call(call: ast.Call, numpy_name: str | None) -> bool:
    func = call.func
    return bool(numpy_name) and (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == numpy_name
    )


def _listable(args: list[ast.expr]) -> bool:
    """One list comprehension over one sequence, without filters: its length is known."""
    if len(args) != 1 or not isinstance(args[0], ast.ListComp):
        return False
    generators = args[0].generators
    return len(generators) == 1 and not generators[0].ifs and not generators[0].is_async


def _length(sequence: ast.expr) -> ast.expr:
    """The number of items ``sequence`` yields, as an expression."""
    if isinstance(sequence, ast.Call) and isinstance(sequence.func, ast.Name):
        if sequence.func.id == "enumerate" and len(sequence.args) == 1:
            return _length(sequence.args[0])
        if sequence.func.id == "zip" and sequence.args:
            length = _length(sequence.args[0])
            for other in sequence.args[1:]:
                length = ast.Call(ast.Name("min", ast.Load()), [length, _length(other)], [])
            return length
    return ast.Call(ast.Name("len", ast.Load()), [clone(sequence)], [])


def _assign(name: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([ast.Name(name, ast.Store())], value)


def _arrays_from_lists(node: ast.FunctionDef, numpy_name: str | None, filename: str) -> None:
    """Check that each list a comprehension built is used as the array it now is, and make
    ``sum(ys)`` ``np.sum(ys)``; refuse list uses (``ys + zs``, ``ys.append(v)``)."""
    built = {
        stmt.targets[0].id
        for stmt in ast.walk(node)
        if isinstance(stmt, ast.Assign) and getattr(stmt.value, "list_built", False)
    }
    parents = {id(kid): parent for parent in ast.walk(node) for kid in ast.iter_child_nodes(parent)}
    for name in ast.walk(node):
        if not (isinstance(name, ast.Name) and name.id in built):
            continue
        parent = parents.get(id(name))
        if isinstance(name.ctx, ast.Store) and not isinstance(parent, ast.AugAssign):
            continue
        if isinstance(parent, ast.Call) and _reduction(parent) == "sum" and len(parent.args) == 1:
            parent.func = ast.Attribute(ast.Name(numpy_name, ast.Load()), "sum", ast.Load())
        elif not _array_use(name, parent, numpy_name):
            raise UnsupportedSyntaxError(
                f"'{name.id}' is built by a list comprehension, which sourcediff makes an array; "
                "use it as one (index it, loop over it, pass it to len, sum or a NumPy "
                "function), not as a list",
                filename,
                getattr(parent, "lineno", 0),
                getattr(parent, "col_offset", 0),
            )


def _array_use(name: ast.Name, parent: ast.AST, numpy_name: str | None) -> bool:
    """Whether ``name`` is used the same way as a list and as an array."""
    if isinstance(parent, ast.Subscript) and parent.value is name:
        return True
    if isinstance(parent, ast.For) and parent.iter is name:
        return True
    if isinstance(parent, ast.Call) and name in parent.args:
        func = parent.func
        builtin = isinstance(func, ast.Name) and func.id in ("len", "enumerate", "zip")
        return builtin or _is_numpy_call(parent, numpy_name)
    return False

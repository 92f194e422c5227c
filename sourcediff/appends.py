r"""Lists of floats built with ``append``, rewritten at parse time into a growing array
and a count, so that everything after parse sees arrays.

A list qualifies when it is created once, at the top of the function body (``xs = []`` or
``xs = [x0]``), grown only by ``xs.append(v)`` statements, and otherwise only read: indexed,
iterated over, passed to ``len``, ``sum`` or a NumPy function. Appends never overwrite an
element, so a value once appended stays where it is (``grow_list`` copies it into a larger
array when the room runs out, doubling). Anything else done to such a list (writing an
element, rebinding it, ``xs + ys``) is refused with the line.

>>> from .naming import Namer
>>> f = ast.parse("def f(x):\n    xs = [x]\n    for i in range(3):\n"
...               "        xs.append(xs[-1] * x)\n    return sum(xs) / len(xs)").body[0]
>>> expand_appends(f, Namer.for_tree(f, set()), "np", "f.py")
>>> print(ast.unparse(f))
def f(x):
    xs = np.zeros(17)
    xs_count = 0
    xs[xs_count] = x
    xs_count = xs_count + 1
    for i in range(3):
        xs = grow_list(xs, xs_count)
        xs[xs_count] = xs[:xs_count][-1] * x
        xs_count = xs_count + 1
    return np.sum(xs[:xs_count]) / xs_count
"""

from __future__ import annotations

import ast

from .errors import UnsupportedSyntaxError

GROW = "grow_list"  # the runtime function (sourcediff.special_arrays), a rule row
BUILTIN_READS = ("len", "sum", "max", "min", "enumerate", "zip")  # over the list's values
AS_NUMPY = {"sum": "sum", "max": "max", "min": "min"}  # builtin over values -> np.<name>


def expand_appends(node: ast.FunctionDef, namer, numpy_name: str | None, filename: str) -> None:
    """Rewrite every qualifying list of ``node`` in place (see the module docstring)."""
    if numpy_name is None:
        return
    for stmt in list(node.body):
        name = _list_created(stmt)
        if name and _appended_to(node, name):
            _check_uses(node, name, stmt, filename)
            _Rewriter(name, namer.fresh(f"{name}_count"), namer, numpy_name).rewrite(node, stmt)


def _list_created(stmt: ast.stmt) -> str:
    """``xs`` for ``xs = [...]`` (no ``*``), else ''."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return ""
    target, value = stmt.targets[0], stmt.value
    if isinstance(target, ast.Name) and isinstance(value, ast.List):
        if not any(isinstance(e, ast.Starred) for e in value.elts):
            return target.id
    return ""


def _is_append(stmt: ast.AST, name: str) -> bool:
    """Whether ``stmt`` is the statement ``name.append(v)``."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "append"
        and isinstance(func.value, ast.Name)
        and func.value.id == name
        and len(call.args) == 1
        and not call.keywords
    )


def _appended_to(node: ast.FunctionDef, name: str) -> bool:
    return any(_is_append(stmt, name) for stmt in ast.walk(node))


def _check_uses(node: ast.FunctionDef, name: str, created: ast.stmt, filename: str) -> None:
    """Refuse, with the line, any use of the list that an array would not mean the same."""
    parents = {id(kid): parent for parent in ast.walk(node) for kid in ast.iter_child_nodes(parent)}
    appends = {id(s.value.func.value) for s in ast.walk(node) if _is_append(s, name)}
    for use in ast.walk(node):
        if not (isinstance(use, ast.Name) and use.id == name) or id(use) in appends:
            continue
        if use is created.targets[0]:
            continue
        parent = parents.get(id(use))
        if not _reads_like_an_array(use, parent):
            raise UnsupportedSyntaxError(
                f"the list '{name}' is built with append; besides appending, only index it, "
                "loop over it or pass it to len, sum or a NumPy function",
                filename,
                getattr(parent, "lineno", getattr(use, "lineno", 0)),
                getattr(parent, "col_offset", 0),
            )


def _reads_like_an_array(use: ast.Name, parent: ast.AST) -> bool:
    if not isinstance(use.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Subscript):
        return parent.value is use and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is use
    if isinstance(parent, ast.Call) and use in parent.args:
        func = parent.func
        if isinstance(func, ast.Attribute):
            return True  # a NumPy function of the values
        name = func.id if isinstance(func, ast.Name) else ""
        single = len(parent.args) == 1 or name in ("enumerate", "zip")
        return name in BUILTIN_READS and single
    return False


class _Rewriter(ast.NodeTransformer):
    """The list ``name`` as an array ``name`` and a count ``count``."""

    def __init__(self, name: str, count: str, namer, numpy_name: str):
        self.name, self.count, self.namer, self.np = name, count, namer, numpy_name

    def rewrite(self, node: ast.FunctionDef, created: ast.Assign) -> None:
        self.created = created
        self.visit(node)
        ast.fix_missing_locations(node)

    def _located(self, source: str, where: ast.AST) -> list[ast.stmt]:
        stmts = ast.parse(source).body
        for stmt in stmts:
            for sub in ast.walk(stmt):
                ast.copy_location(sub, where)
        return stmts

    def visit_Assign(self, stmt: ast.Assign):
        if stmt is not self.created:
            return self.generic_visit(stmt)
        elements = [self.visit(e) for e in stmt.value.elts]
        new = self._located(
            f"{self.name} = {self.np}.zeros({len(elements) + 16})\n{self.count} = 0", stmt
        )
        for element in elements:
            new += self._store(element, stmt)
        return new

    def _store(self, value: ast.expr, where: ast.AST) -> list[ast.stmt]:
        store = self._located(
            f"{self.name}[{self.count}] = 0.0\n{self.count} = {self.count} + 1", where
        )
        store[0].value = value
        return store

    def visit_Expr(self, stmt: ast.Expr):
        if not _is_append(stmt, self.name):
            return self.generic_visit(stmt)
        value = self.visit(stmt.value.args[0])
        grow = self._located(f"{self.name} = {GROW}({self.name}, {self.count})", stmt)
        return grow + self._store(value, stmt)

    def visit_For(self, loop: ast.For):
        self.generic_visit(loop)
        if isinstance(loop.iter, ast.Subscript) and getattr(loop.iter, "whole_list", False):
            index = self.namer.fresh("k")
            header = self._located(f"for {index} in range({self.count}):\n    pass", loop)[0]
            read = ast.copy_location(ast.Assign([loop.target], self._element(index)), loop)
            loop.iter, loop.target = header.iter, header.target
            loop.body = [ast.fix_missing_locations(read), *loop.body]
        return loop

    def _element(self, index: str) -> ast.expr:
        return ast.Subscript(
            ast.Name(self.name, ast.Load()), ast.Name(index, ast.Load()), ast.Load()
        )

    def visit_Call(self, call: ast.Call):
        func = call.func
        if isinstance(func, ast.Name) and func.id == "len" and _is_the(call.args, self.name):
            return ast.copy_location(ast.Name(self.count, ast.Load()), call)
        self.generic_visit(call)
        if isinstance(func, ast.Name) and func.id in AS_NUMPY and len(call.args) == 1:
            if _of_the_list(call.args[0]):  # sum(xs), max(xs), sum(xs[1:])
                numpy = ast.Name(self.np, ast.Load())
                call.func = ast.Attribute(numpy, AS_NUMPY[func.id], ast.Load())
        return call

    def visit_Name(self, use: ast.Name):
        if use.id != self.name or not isinstance(use.ctx, ast.Load):
            return use
        prefix = ast.Slice(None, ast.Name(self.count, ast.Load()), None)
        whole = ast.Subscript(ast.Name(self.name, ast.Load()), prefix, ast.Load())
        whole.whole_list = True  # the appended values: xs[:xs_count]
        return ast.copy_location(whole, use)


def _of_the_list(arg: ast.expr) -> bool:
    """``xs[:n]`` (the list's values) or a slice of it (``xs[:n][1:]``)."""
    if getattr(arg, "whole_list", False):
        return True
    return (
        isinstance(arg, ast.Subscript)
        and isinstance(arg.slice, ast.Slice)
        and getattr(arg.value, "whole_list", False)
    )


def _is_the(args: list[ast.expr], name: str) -> bool:
    return len(args) == 1 and isinstance(args[0], ast.Name) and args[0].id == name

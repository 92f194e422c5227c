"""Stage 5, codegen: Python source text from the generated ASTs.

Output is stable (the same trees always give the same bytes), indented with
four spaces, and each run of statements that came from one line of the user's
code is preceded by an origin comment naming that line::

    # model.py:6: s += math.sin(x * i) * y
    t1 = x * i
    t2 = math.sin(t1)

``ast.unparse`` formats single statements; blocks are laid out here so that
comments can sit between statements.
"""

from __future__ import annotations

import ast
import linecache
import os
import re

import numpy as np

from . import runtime
from .astnodes import clone, walk


def _text(node: ast.AST) -> str:
    """``ast.unparse`` of ``node``, with a negative constant that is raised to a power
    written as a negation: ``ast.unparse`` would print ``Constant(-1.5) ** 2`` as
    ``-1.5 ** 2``, which Python reads as ``-(1.5 ** 2)``.

    >>> _text(ast.BinOp(ast.Constant(-1.5), ast.Pow(), ast.Constant(2)))
    '(-1.5) ** 2'
    """
    if not any(_signed_power_base(n) for n in walk(node)):
        return ast.unparse(node)  # nearly always: no copy
    return ast.unparse(_SignedPowerBases().visit(clone(node)))


def _signed_power_base(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow)
        and _is_negative_number(node.left)
    )


class _SignedPowerBases(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.BinOp:
        self.generic_visit(node)
        if _signed_power_base(node):
            node.left = ast.UnaryOp(ast.USub(), ast.Constant(-node.left.value))
        return node


def _is_negative_number(node: ast.expr) -> bool:
    value = getattr(node, "value", None) if isinstance(node, ast.Constant) else None
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0


class _Emitter:
    def __init__(self, comments: bool):
        self.lines: list[str] = []
        self.comments = comments
        self.last_origin: tuple[str, int] | None = None
        self.origins: dict[int, tuple[str, int]] = {}

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, stmts: list[ast.stmt], depth: int) -> None:
        if not stmts:
            self.line(depth, "pass")
            return
        for stmt in stmts:
            self.stmt(stmt, depth)

    def origin_comment(self, stmt: ast.stmt, depth: int) -> None:
        origin = getattr(stmt, "origin", None)
        if not self.comments or origin is None or origin == self.last_origin:
            return
        self.last_origin = origin
        filename, lineno = origin
        text = linecache.getline(filename, lineno).strip()
        self.line(depth, f"# {os.path.basename(filename)}:{lineno}: {text}".rstrip())

    def stmt(self, stmt: ast.stmt, depth: int) -> None:
        if isinstance(stmt, Comment):
            self.line(depth, f"# {stmt.text}")
            return
        self.origin_comment(stmt, depth)
        origin = getattr(stmt, "origin", None)
        if origin is not None:
            self.origins[len(self.lines) + 1] = origin
        if isinstance(stmt, ast.If):
            self.if_stmt(stmt, depth, "if")
        elif isinstance(stmt, ast.For):
            self.line(depth, f"for {_text(stmt.target)} in {_text(stmt.iter)}:")
            self.nested(stmt.body, depth + 1)
        elif isinstance(stmt, ast.While):
            self.line(depth, f"while {_text(stmt.test)}:")
            self.nested(stmt.body, depth + 1)
        else:
            self.line(depth, _text(stmt))

    def nested(self, stmts: list[ast.stmt], depth: int) -> None:
        saved = self.last_origin
        self.block(stmts, depth)
        self.last_origin = saved

    def if_stmt(self, stmt: ast.If, depth: int, keyword: str) -> None:
        self.line(depth, f"{keyword} {_text(stmt.test)}:")
        self.nested(stmt.body, depth + 1)
        orelse = stmt.orelse
        if len(orelse) == 1 and isinstance(orelse[0], ast.If):
            self.if_stmt(orelse[0], depth, "elif")
        elif orelse:
            self.line(depth, "else:")
            self.nested(orelse, depth + 1)


class Comment(ast.stmt):
    """A comment line in generated code (a statement node that codegen prints as ``# text``)."""

    _fields = ("text",)

    def __init__(self, text: str = "", **fields):
        super().__init__(**fields)
        self.text = text


def function_source(node: ast.FunctionDef, comments: bool = True) -> tuple[str, dict[int, tuple]]:
    """The source of one function and a map from its line numbers to user origins."""
    emitter = _Emitter(comments)
    ast.fix_missing_locations(node)
    args = ", ".join(_parameters(node.args))
    emitter.line(0, f"def {node.name}({args}):")
    doc = ast.get_docstring(node)
    body = node.body
    if doc is not None:
        emitter.line(1, '"""' + doc + '"""')
        body = body[1:]
    emitter.block(body, 1)
    return "\n".join(emitter.lines) + "\n", emitter.origins


def _parameters(args: ast.arguments) -> list[str]:
    """``x``, ``c=2.0``: defaults written only when each is a number or a bool (others,
    such as a module constant's name, mean nothing in the generated module)."""
    names = [a.arg for a in args.args]
    defaults = args.defaults
    literal = all(
        isinstance(d, ast.Constant) and type(d.value) in (bool, int, float) for d in defaults
    )
    if not defaults or not literal:
        return names
    first = len(names) - len(defaults)
    return names[:first] + [f"{n}={d.value!r}" for n, d in zip(names[first:], defaults)]


def with_local_array_constants(function: ast.FunctionDef, constants: dict) -> ast.FunctionDef:
    """``function`` reading each module-level array constant through a copy made on entry.

    Numba folds a global array into the machine code as a constant, and an index by a
    constant array (``a[EDGE]``) becomes a ``static_getitem`` holding the array, which
    its phi-node pass then compares with ``==`` and crashes on ("the truth value of an
    array ... is ambiguous"); a copy made on entry is an ordinary array.

        >>> fn = ast.parse("def f(a):\\n    return a[EDGE]").body[0]
        >>> print(ast.unparse(with_local_array_constants(fn, {"EDGE": np.arange(3)})))
        def f(a):
            EDGE_local = EDGE.copy()
            return a[EDGE_local]
    """
    found = [n for n in walk(function) if isinstance(n, ast.Name)]
    names = {n.id for n in found}
    rebound = {n.id for n in found if not isinstance(n.ctx, ast.Load)}
    rebound |= {a.arg for a in function.args.args}
    indices = {  # only an index is folded: other reads keep the constant (no copy per call)
        n.id
        for sub in walk(function)
        if isinstance(sub, ast.Subscript)
        for n in walk(sub.slice)
        if isinstance(n, ast.Name)
    }
    arrays = [n for n in sorted(constants) if isinstance(constants[n], np.ndarray)]
    renames = {}
    for name in arrays:
        if name in indices and name not in rebound:
            local = f"{name}_local"
            while local in names:
                local += "_"
            renames[name] = local
    if not renames:
        return function
    function = clone(function)
    for node in walk(function):
        if isinstance(node, ast.Name) and node.id in renames:
            node.id = renames[node.id]
    copies = [ast.parse(f"{local} = {name}.copy()").body[0] for name, local in renames.items()]
    function.body = copies + function.body
    return function


def constant_text(value) -> str:
    """``value`` as exact Python source (an array from its bytes, so nothing is rounded)."""
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        return (
            f'np.frombuffer(bytes.fromhex("{data.tobytes().hex()}"), np.{data.dtype.name})'
            f".reshape({data.shape}).copy()"
        )
    return repr(value)


def module_source(header: str, constants: dict[str, object], functions: list[str]) -> str:
    """A whole generated module: docstring header, imports, constants, functions."""
    parts = ['"""' + header.strip() + '\n"""', "", "import math", "", "import numpy as np", ""]
    called = re.compile(r"(?<![\w.])(\w+)\(")  # f(...), not np.f(...)
    names = {name for f in functions for name in called.findall(f)}
    used = [h for h in runtime.HELPERS if h in names]
    if used:
        parts += [f"from sourcediff.runtime import {', '.join(used)}", ""]
    if any("verify_check(" in f for f in functions):
        parts += ["from sourcediff.verify import verify_check, verify_log", ""]
    array_types = sorted(set(re.findall(r"\bARRAY_(\w+?)_(\d)D_([CFA])\b", "".join(functions))))
    if array_types:
        parts += ["from numba import types", "from numba.typed import List", ""]
    for dtype, ndim, layout in array_types:
        parts.append(
            f'ARRAY_{dtype}_{ndim}D_{layout} = types.Array(types.{dtype}, {ndim}, "{layout}")'
        )
    for name in sorted(constants):
        parts.append(f"{name} = {constant_text(constants[name])}")
    for source in functions:
        parts += ["", "", source.rstrip("\n")]
    return "\n".join(parts).rstrip("\n") + "\n"

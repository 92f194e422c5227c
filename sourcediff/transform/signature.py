"""The adjoint function's calling convention: seeds, private copies of written arrays.

``f_vjp(*params, f_bar)`` returns ``(value, (grads...))``. An argument array
the function writes into is worked on through a private copy, since the
reverse sweep restores overwritten elements; the primal's final state is
written back into the caller's array at the end of the forward sweep, so the
caller sees what the plain function would leave there.

>>> fn = ast.parse("def f(x, n):\\n    x[0] = 1.0\\n    return x[1]").body[0]
>>> sorted(written_arrays(fn))
['x']
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.sharing import possible_views
from ..astnodes import walk
from ..codegen import Comment
from .records import WriteBack
from .tape import placeholder


def seed_names(namer, name: str, outputs: int) -> list[str]:
    """The cotangent parameters: ``f_bar``, or ``f_bar0, f_bar1, ...`` for a tuple result."""
    if outputs > 1:
        return [namer.fresh(f"{name}_bar{k}") for k in range(outputs)]
    return [namer.fresh(f"{name}_bar")]


def private_copies(nf, types) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """Statements that put written argument arrays on private copies, and the
    write-backs (records that ``tape_size`` does not count) that end the forward sweep."""
    copies: list[ast.stmt] = [Comment("arrays written in place work on private copies")]
    write_back: list[ast.stmt] = []
    for param in written_params(nf.params, nf.node, types):
        caller, work = nf.namer.fresh(f"{param}_caller"), nf.namer.fresh(f"{param}_work")
        copies += [
            ir.statement(f"{caller} = {param}"),
            ir.statement(f"{work} = np.copy({param})"),
            ir.statement(f"{param} = {work}"),
        ]
        write_back.append(WriteBack(caller, work))
    return (copies, write_back) if write_back else ([], [])


def written_params(params, node: ast.FunctionDef, types=None) -> tuple[str, ...]:
    """The array parameters whose buffers the function writes into: the caller sees those
    writes, and an argument sharing memory with one of them would see them too. A
    parameter first rebound to a new array (``x = x.copy()``, ``x = x * 2.0``) before
    anything writes into it keeps the caller's buffer as it was.

    >>> fn = ast.parse("def f(x, y):\\n    x = np.copy(x)\\n    x[0] = y[0]").body[0]
    >>> written_params(["x", "y"], fn)
    ()
    """
    written = written_arrays(node)
    arrays = [p for p in params if types is None or types[p].kind == "array"]
    return tuple(p for p in arrays if p in written and not _fresh_before_written(p, node))


FRESH_CALLS = {"np.copy", "np.array", "np.zeros", "np.ones", "np.empty", "np.full"}
FRESH_CALLS |= {f"{name}_like" for name in FRESH_CALLS - {"np.copy", "np.array"}}


def _fresh_before_written(param: str, node: ast.FunctionDef) -> bool:
    """Whether a top-level statement rebinds ``param`` to a new array (directly, or through
    a name bound once to one) before any statement writes into it, and no other name is
    ever bound to ``param`` itself (which could write into its buffer later)."""
    fresh: set[str] = set()
    for stmt in node.body:
        if _writes_into(stmt, param):
            return False
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            value, target = stmt.value, stmt.targets[0].id
            new = isinstance(value, (ast.BinOp, ast.UnaryOp)) or fresh_call(value)
            if new or (isinstance(value, ast.Name) and value.id in fresh):
                if target == param:
                    return not _aliased_elsewhere(param, node)
                fresh.add(target)
    return False


def _writes_into(stmt: ast.stmt, param: str) -> bool:
    """Whether ``stmt`` may write into ``param``'s buffer or make another name of it."""
    for sub in walk(stmt):
        if ir.is_element_write(sub) and ir.target_name(sub) == param:
            return True
        if isinstance(sub, ast.Call) and any(_is_name(a, param) for a in sub.args):
            if not fresh_call(sub):  # a helper may write into its argument
                return True
    return False


def _aliased_elsewhere(param: str, node: ast.FunctionDef) -> bool:
    for stmt in walk(node):
        if isinstance(stmt, ast.Assign) and _is_name(stmt.value, param):
            return True
        if ir.is_permutation(stmt) and any(s == param for _, s in ir.permutation_pairs(stmt)):
            return True
    return False


def fresh_call(value: ast.expr) -> bool:
    """Whether ``value`` is a call that returns a new array (``np.zeros(n)``...)."""
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return False
    return ast.unparse(value.func) in FRESH_CALLS


def _is_name(value: ast.expr, name: str) -> bool:
    return isinstance(value, ast.Name) and value.id == name


def array_dummies(nf, types, active: set[str], saved: set[str]) -> list[ast.stmt]:
    """Define active local arrays first bound inside a loop or branch (for ``zeros_like``);
    ``saved`` are defined by the tapes' prologue already."""
    top_level = {ir.target_name(s) for s in nf.node.body if isinstance(s, ast.Assign)}
    defined = top_level | set(nf.params) | saved
    return [
        ir.statement(f"{name} = {placeholder(types[name])}")
        for name in sorted(active - defined)
        if types[name].kind == "array"
    ]


def written_arrays(node: ast.FunctionDef) -> set[str]:
    """Arrays whose buffer may be written: element writes, and the sources of reference
    copies (``b = a``), views (``b = a[1, :]``, ``a.T``) and name permutations (``a, b =
    b, a``) of such arrays."""
    written: set[str] = set()
    aliases: list[tuple[str, str]] = []
    for stmt in walk(node):
        if ir.is_element_write(stmt):
            written.add(ir.target_name(stmt))
        elif ir.is_permutation(stmt):
            aliases += ir.permutation_pairs(stmt)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            aliases += [(stmt.targets[0].id, base) for base in possible_views(stmt.value)]
    changed = True
    while changed:
        changed = False
        for target, source in aliases:
            if target in written and source not in written:
                written.add(source)
                changed = True
    return written

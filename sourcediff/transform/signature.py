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
    writes, and an argument sharing memory with one of them would see them too (without
    ``types``, a permuted scalar parameter may be named too)."""
    written = written_arrays(node)
    arrays = [p for p in params if types is None or types[p].kind == "array"]
    return tuple(p for p in arrays if p in written)


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
    """Arrays whose buffer may be written: element writes and permutations, and the
    sources of reference copies (``b = a``) of such arrays."""
    written: set[str] = set()
    aliases: list[tuple[str, str]] = []
    for stmt in ast.walk(node):
        if ir.is_element_write(stmt):
            written.add(ir.target_name(stmt))
        elif ir.is_permutation(stmt):
            written |= {t for t, _ in ir.permutation_pairs(stmt)}
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            aliases.append((stmt.targets[0].id, stmt.value.id))
    changed = True
    while changed:
        changed = False
        for target, source in aliases:
            if target in written and source not in written:
                written.add(source)
                changed = True
    return written

"""``for`` over ``enumerate(...)`` and ``zip(...)``, rewritten as loops over an index.

    for i, v in enumerate(x):        ->   for i in range(len(x)):
        ...                                    v = x[i]
                                               ...
    for a, b in zip(x, y):           ->   for k in range(min(len(x), len(y))):
        ...                                    a = x[k]
                                               b = y[k]

A sequence that is not a plain name is evaluated once, before the loop, into a
fresh name, as Python does. ``enumerate(zip(x, y))`` nests the two.

>>> from ..naming import Namer
>>> f = ast.parse("def f(x, y):\\n    for i, (a, b) in enumerate(zip(x, y * 2.0)):\\n"
...               "        s = i * a * b").body[0]
>>> expand_enumerate_zip(f, Namer.for_tree(f, set()))
>>> print(ast.unparse(f))
def f(x, y):
    items = y * 2.0
    for i in range(min(len(x), len(items))):
        a = x[i]
        b = items[i]
        s = i * a * b
"""

from __future__ import annotations

import ast

SUGAR = ("enumerate", "zip")


def is_sugar(it: ast.expr) -> bool:
    """``enumerate(seq)`` or ``zip(seq, ...)``, the forms this module rewrites."""
    return (
        isinstance(it, ast.Call)
        and isinstance(it.func, ast.Name)
        and it.func.id in SUGAR
        and not it.keywords
        and (len(it.args) == 1 if it.func.id == "enumerate" else len(it.args) >= 1)
    )


def target_fits(target: ast.expr, it: ast.expr) -> bool:
    """Whether ``target`` unpacks what ``it`` yields: ``i, v`` for enumerate, one name per
    sequence for zip (``i, (a, b)`` for enumerate of zip)."""
    if not isinstance(target, ast.Tuple):
        return False
    if it.func.id == "zip":
        elts = target.elts
        return len(elts) == len(it.args) and all(isinstance(e, ast.Name) for e in elts)
    if len(target.elts) != 2 or not isinstance(target.elts[0], ast.Name):
        return False
    inner, element = it.args[0], target.elts[1]
    return isinstance(element, ast.Name) or (is_sugar(inner) and target_fits(element, inner))


def expand_enumerate_zip(node: ast.AST, namer) -> None:
    """Rewrite every ``for`` over enumerate/zip in ``node``'s blocks, in place."""
    for field in ("body", "orelse"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        out: list[ast.stmt] = []
        for stmt in stmts:
            expand_enumerate_zip(stmt, namer)
            if isinstance(stmt, ast.For) and is_sugar(stmt.iter):
                out.extend(_expanded(stmt, namer))
            else:
                out.append(stmt)
        setattr(node, field, out)


def _expanded(loop: ast.For, namer) -> list[ast.stmt]:
    before: list[ast.stmt] = []
    index, reads, bound = _index_and_reads(loop.target, loop.iter, namer, before)
    loop.target = ast.Name(index, ast.Store())
    loop.iter = ast.Call(ast.Name("range", ast.Load()), [bound], [])
    for new in [*before, *reads, loop.target, loop.iter]:
        for sub in ast.walk(new):
            if not hasattr(sub, "lineno"):  # new nodes take the loop's line
                ast.copy_location(sub, loop)
    loop.body = reads + loop.body
    loop.over_rows = True  # a range sourcediff wrote: the flattener needs no user 'range'
    return [*before, loop]


def _index_and_reads(target, it: ast.Call, namer, before: list) -> tuple:
    """``(index name, element assignments, trip count)`` for ``target in it``."""
    if it.func.id == "enumerate":
        index = target.elts[0].id
        inner, element = it.args[0], target.elts[1]
        if isinstance(element, ast.Tuple):  # enumerate(zip(...))
            return _zipped(index, element.elts, inner.args, namer, before)
        return _zipped(index, [element], [inner], namer, before)
    return _zipped(namer.fresh("k"), target.elts, it.args, namer, before)


def _zipped(index: str, names: list, sequences: list, namer, before: list) -> tuple:
    seqs = [_named(seq, namer, before) for seq in sequences]
    reads = [
        ast.Assign([ast.Name(name.id, ast.Store())], _element(seq, index))
        for name, seq in zip(names, seqs)
    ]
    lengths = [ast.Call(ast.Name("len", ast.Load()), [ast.Name(s, ast.Load())], []) for s in seqs]
    bound = lengths[0]
    for length in lengths[1:]:
        bound = ast.Call(ast.Name("min", ast.Load()), [bound, length], [])
    return index, reads, bound


def _named(seq: ast.expr, namer, before: list) -> str:
    if isinstance(seq, ast.Name):
        return seq.id
    name = namer.fresh("items")
    named = ast.Assign([ast.Name(name, ast.Store())], seq)
    named.written_as = (name, ast.unparse(seq))  # what the user wrote, for messages
    before.append(named)
    return name


def _element(seq: str, index: str) -> ast.expr:
    return ast.Subscript(ast.Name(seq, ast.Load()), ast.Name(index, ast.Load()), ast.Load())

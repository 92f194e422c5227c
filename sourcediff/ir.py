"""The statement forms of normalized code, recognized in one place.

After normalization every assignment is one of:

- ``name = rhs`` where rhs is an atom, one operation, a call, an element read
  ``a[i, j]`` or a shape query (``a.shape``, ``a.shape[0]``, ``a.size``);
- an element write ``a[i, j] = atom``;
- a permutation of names ``a, b = b, a`` (swapped buffers), whose inverse
  is itself a permutation, so the reverse sweep undoes it without recording.
"""

from __future__ import annotations

import ast


def target_name(stmt: ast.Assign) -> str:
    """The variable an assignment changes: the name, or the array of an element write."""
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Subscript):
        return target.value.id
    return ""


def is_element_write(stmt: ast.stmt) -> bool:
    """``a[i] = v``."""
    return isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Subscript)


def is_permutation(stmt: ast.stmt) -> bool:
    """``a, b = b, a`` (and longer cycles)."""
    return isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Tuple)


def permutation_pairs(stmt: ast.Assign) -> list[tuple[str, str]]:
    """``(target, source)`` name pairs of a permutation."""
    return [(t.id, s.id) for t, s in zip(stmt.targets[0].elts, stmt.value.elts)]


def is_element_read(value: ast.expr) -> bool:
    """``a[i]`` on an array name (not a shape query)."""
    return isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)


def is_shape_query(value: ast.expr) -> bool:
    """``a.shape``, ``a.shape[k]``, ``a.size``, ``a.ndim``: integer-valued, never active."""
    if isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Attribute)


def shape_axis(value: ast.expr):
    """``(name, k)`` of ``name.shape[k]`` with a constant ``k``, else None."""
    if (
        isinstance(value, ast.Subscript)
        and isinstance(value.value, ast.Attribute)
        and value.value.attr == "shape"
        and isinstance(value.value.value, ast.Name)
        and isinstance(value.slice, ast.Constant)
        and type(value.slice.value) is int
    ):
        return value.value.value.id, value.slice.value
    return None


def index_names(subscript: ast.Subscript) -> set[str]:
    """Names used as indices in ``a[i, j]``."""
    return {n.id for n in ast.walk(subscript.slice) if isinstance(n, ast.Name)}


def loop_variables(tree: ast.AST, over_range: bool = False) -> frozenset[str]:
    """The variables of the ``for`` loops in ``tree`` (of those over ``range(...)`` only,
    with ``over_range``).

    >>> sorted(loop_variables(ast.parse("for i in range(3):\\n    for e in x: pass")))
    ['e', 'i']
    >>> sorted(loop_variables(ast.parse("for i in range(3):\\n    for e in x: pass"), True))
    ['i']
    """
    return frozenset(
        node.target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.For)
        and isinstance(node.target, ast.Name)
        and (not over_range or is_call(node.iter, "range"))
    )


def outermost_loops(stmts: list[ast.stmt]):
    """The loops of ``stmts`` not inside another loop (those inside branches included)."""
    for stmt in stmts:
        if isinstance(stmt, (ast.For, ast.While)):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from outermost_loops(stmt.body)
            yield from outermost_loops(stmt.orelse)


def is_self_copy(stmt: ast.stmt) -> bool:
    """``x = x`` (an identity helper inlined leaves these): changes nothing, reverses to nothing."""
    return (
        isinstance(stmt, ast.Assign)
        and isinstance(stmt.targets[0], ast.Name)
        and isinstance(stmt.value, ast.Name)
        and stmt.value.id == stmt.targets[0].id
    )


def block_source(stmts: list[ast.stmt]) -> str:
    """Python source of a statement list (for before/after examples in the passes' doctests)."""
    return ast.unparse(ast.Module(body=list(stmts), type_ignores=[]))


def statement(source: str) -> ast.stmt:
    """The one statement ``source`` spells (generated code is built from such snippets)."""
    return ast.parse(source).body[0]


def load(name: str) -> ast.Name:
    """A read of ``name``."""
    return ast.Name(name, ast.Load())


def located(node: ast.stmt, where: ast.stmt) -> ast.stmt:
    """``node``, generated for ``where``, carrying the user's line ``where`` came from."""
    origin = getattr(where, "origin", None)
    if origin is not None and not hasattr(node, "origin"):
        node.origin = origin
    return node


def is_call(node, name: str) -> bool:
    """Whether ``node`` is ``name(...)`` (a plain name called, no keywords)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == name
        and not node.keywords
    )


def len_range_args(node) -> list | None:
    """The arguments of ``range`` in ``len(range(...))`` (a loop's trip count), else None."""
    if is_call(node, "len") and len(node.args) == 1 and is_call(node.args[0], "range"):
        return node.args[0].args
    return None

r"""Drop a recomputation the reverse sweep already made, while its operands are unchanged.

Temporaries cheap enough to recompute (``t1 = dt * k``) are re-run before each
adjoint statement that reads them; two adjoints of one iteration then re-run the
same definition twice. Within a straight-line run of statements, a second
``t = e`` whose ``e`` is the same operation on names not assigned since is
dropped: ``t`` still holds that value, bit for bit. Only arithmetic on names and
numbers and ``math`` calls count (never a fresh array: it could have been written
into since)::

    t1 = dt * k            t1 = dt * k
    t2_bar = t3 * t4_bar   t2_bar = t3 * t4_bar
    t1 = dt * k      ->    t1_bar = y * t2_bar
    t1_bar = y * t2_bar

    >>> from sourcediff.ir import block_source
    >>> before = ast.parse("t1 = dt * k\na = t1 * g\nt1 = dt * k\nb = t1 * a").body
    >>> print(block_source(drop_repeated_computations(before)))
    t1 = dt * k
    a = t1 * g
    b = t1 * a
"""

from __future__ import annotations

import ast

from ..analysis.sharing import alias_classes
from ..astnodes import walk
from .effects import impure_calls


def _pure_scalar(value: ast.expr, elements: bool = False) -> bool:
    """Arithmetic of names and numbers, or a ``math`` function of them; with ``elements``,
    element reads ``x[i, j]`` (indexed by names and numbers, no slice) too."""
    for node in walk(value):
        if isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "math"):
                return False
        elif isinstance(node, ast.Subscript):
            if not (elements and isinstance(node.value, ast.Name)):
                return False
        elif not isinstance(node, _SCALAR_NODES + ((ast.Tuple,) if elements else ())):
            return False
    return True


_SCALAR_NODES = (
    ast.BinOp,
    ast.UnaryOp,
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.operator,
    ast.unaryop,
    ast.Load,
)


def _assigned(stmt: ast.stmt) -> set[str]:
    """Names ``stmt`` may change: those it binds, and the array of an element it writes
    (not the names of the index, which it only reads)."""
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    return set().union(*(_changed_by(t) for t in targets if t is not None))


def _changed_by(target: ast.expr) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _changed_by(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_changed_by(e) for e in target.elts))
    return {n.id for n in walk(target) if isinstance(n, ast.Name)}


def drop_repeated_computations(stmts: list[ast.stmt], sharing: dict | None = None, dropped=None):
    """``stmts`` without repeated pure definitions; nested blocks are treated alike. Given
    ``sharing`` (for each array, the names that may share its memory), element reads
    count as well: a write into an array forgets every value read from any name sharing
    its memory, and a call that may change memory forgets them all. Each statement dropped
    is appended to ``dropped`` when given."""
    elements = sharing is not None
    available: dict[str, tuple[str, set[str]]] = {}  # target -> (value text, names read)
    out = []
    for stmt in stmts:
        if isinstance(stmt, (ast.If, ast.For, ast.While)):
            for field in ("body", "orelse"):
                inner = getattr(stmt, field)
                setattr(stmt, field, drop_repeated_computations(inner, sharing, dropped))
            available.clear()  # the block may assign anything
            out.append(stmt)
            continue
        simple = isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
        if simple and _pure_scalar(stmt.value, elements):
            target, text = stmt.targets[0].id, ast.unparse(stmt.value)
            if available.get(target, ("",))[0] == text:
                if dropped is not None:
                    dropped.append(stmt)
                continue  # t already holds exactly this value
        if elements and impure_calls(stmt):
            available.clear()
        killed = _assigned(stmt)
        if elements:
            killed |= {n for name in killed for n in sharing.get(name, ())}
        for name in list(available):
            if name in killed or available[name][1] & killed:
                del available[name]
        if simple and _pure_scalar(stmt.value, elements) and target not in _reads(stmt.value):
            available[target] = (text, _reads(stmt.value))
        out.append(stmt)
    return out


def drop_repeated_reads(function: ast.FunctionDef, ranks: dict) -> bool:
    """:func:`drop_repeated_computations` over ``function``, element reads included (the
    optimizer's pass: the reverse sweep re-reads ``x[j, 1]`` before each adjoint that
    needs it); ``ranks``: the function's arrays. Whether any statement went."""
    classes = alias_classes(function)
    sharing = {name: classes.get(name, {name}) for name in ranks}
    dropped: list[ast.stmt] = []
    function.body = drop_repeated_computations(function.body, sharing, dropped)
    return bool(dropped)


def _reads(value: ast.expr) -> set[str]:
    return {n.id for n in walk(value) if isinstance(n, ast.Name)}

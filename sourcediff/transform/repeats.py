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


def _pure_scalar(value: ast.expr) -> bool:
    """Arithmetic of names and numbers, or a ``math`` function of them."""
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            func = node.func
            if not (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "math"):
                return False
        elif not isinstance(
            node,
            (
                ast.BinOp,
                ast.UnaryOp,
                ast.Name,
                ast.Constant,
                ast.Attribute,
                ast.operator,
                ast.unaryop,
                ast.Load,
            ),
        ):
            return False
    return True


def _assigned(stmt: ast.stmt) -> set[str]:
    """Names ``stmt`` may change (an element write changes its array); index names too,
    which only makes the table forget more."""
    targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}


def drop_repeated_computations(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """``stmts`` without repeated pure definitions; nested blocks are treated alike."""
    available: dict[str, tuple[str, set[str]]] = {}  # target -> (value text, names read)
    out = []
    for stmt in stmts:
        if isinstance(stmt, (ast.If, ast.For, ast.While)):
            for field in ("body", "orelse"):
                setattr(stmt, field, drop_repeated_computations(getattr(stmt, field)))
            available.clear()  # the block may assign anything
            out.append(stmt)
            continue
        simple = isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
        if simple and _pure_scalar(stmt.value):
            target, text = stmt.targets[0].id, ast.unparse(stmt.value)
            if available.get(target, ("",))[0] == text:
                continue  # t already holds exactly this value
        killed = _assigned(stmt)
        for name in list(available):
            if name in killed or available[name][1] & killed:
                del available[name]
        if simple and _pure_scalar(stmt.value) and target not in _reads(stmt.value):
            available[target] = (text, _reads(stmt.value))
        out.append(stmt)
    return out


def _reads(value: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}

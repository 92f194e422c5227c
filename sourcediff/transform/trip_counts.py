"""Pass ``replay_invariant_ranges``: reverse loops over bounds that never change.

The reverse of ``for j in range(a, b)`` replays the count the forward sweep
took, ``n_j = len(range(a, b))``, as ``range(a + (n_j - 1), a - 1, -1)``. When
``a`` and ``b`` are built from names with one value wherever they are read
(``t = x.shape[0]`` before any loop, an unchanged parameter, ``t = n - 1``
bound once inside a loop), the count is the same
wherever it is read, so the reverse loop can say what it iterates over,
``range(b - 1, a - 1, -1)``, and the count (an integer the loop nest would
otherwise keep) is dead::

    >>> fn = ast.parse('''
    ... def f(x):
    ...     t = x.shape[0]
    ...     n_j = len(range(1, t))
    ...     for j in range(1, t):
    ...         x[j] = x[j - 1]
    ...     for j in range(1 + (n_j - 1), 0, -1):
    ...         x[j - 1] = x[j]
    ... ''').body[0]
    >>> replay_invariant_ranges(fn)
    True
    >>> print(ast.unparse(fn.body[3].iter))
    range(t - 1, 0, -1)

Integer arithmetic only; an empty range stays empty (``b - 1 <= a - 1``).
"""

from __future__ import annotations

import ast
from collections import Counter

from .. import ir
from ..astnodes import clone, walk
from .simplify import tidy_reversed_ranges


def replay_invariant_ranges(function: ast.FunctionDef) -> bool:
    """Write reverse loops over invariant bounds without their recorded trip counts."""
    bindings = _bindings(function)
    stable = _stable_names(function, bindings)
    counts = _invariant_counts(function, bindings, stable)
    changed = False
    for loop in walk(function):
        if isinstance(loop, ast.For) and ir.is_call(loop.iter, "range"):
            changed |= _replay(loop.iter, counts)
    if changed:
        tidy_reversed_ranges(function)
    return changed


def _bindings(function: ast.FunctionDef) -> Counter:
    """How many statements bind each name, the parameters counted once."""
    bound = Counter(a.arg for a in function.args.args)
    for node in walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] += 1
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            bound[node.target.id] += 1  # its target is a Store too: counted twice, never stable
    return bound


def _stable_names(function: ast.FunctionDef, bindings: Counter) -> set[str]:
    """Names with one value wherever they are read: parameters never rebound, names bound
    once by a top-level ``name = value``, and names only ever bound (in a loop, or again
    where the reverse sweep recomputes them) to one integer expression of stable names."""
    stable = {a.arg for a in function.args.args if bindings[a.arg] == 1}
    values: dict[str, list[ast.Assign]] = {}
    for node in walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                values.setdefault(node.targets[0].id, []).append(node)
    top_level = {id(s) for s in function.body}
    grown = True
    while grown:
        grown = False
        for name, nodes in values.items():
            if name in stable or len(nodes) != bindings[name]:
                continue
            once_at_top = len(nodes) == 1 and id(nodes[0]) in top_level
            if once_at_top or _one_invariant_value(nodes, stable):
                stable.add(name)
                grown = True
    return stable


def _one_invariant_value(nodes: list[ast.Assign], stable: set[str]) -> bool:
    first = ast.dump(nodes[0].value)
    same = all(ast.dump(n.value) == first for n in nodes)
    return same and _invariant(nodes[0].value, stable)


def _invariant_counts(function, bindings: Counter, stable: set[str]) -> dict[str, ast.expr]:
    """``n -> len(range(...))`` for counts bound once from bounds built of stable names."""
    counts = {}
    for node in walk(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, bounds = node.targets[0], ir.len_range_args(node.value)
        if not isinstance(target, ast.Name) or bounds is None or bindings[target.id] != 1:
            continue
        downward = len(bounds) == 3 and _is_constant(bounds[2], -1)
        if (len(bounds) <= 2 or downward) and all(_invariant(b, stable) for b in bounds[:2]):
            counts[target.id] = node.value
    return counts


def _invariant(expr: ast.expr, stable: set[str]) -> bool:
    """Whether ``expr`` is integer arithmetic on constants, stable names and their shapes."""
    if isinstance(expr, ast.Constant):
        return type(expr.value) is int
    if isinstance(expr, ast.Name):
        return expr.id in stable
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult)):
        return _invariant(expr.left, stable) and _invariant(expr.right, stable)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute):
        shape = expr.value
        return (
            shape.attr == "shape"
            and isinstance(shape.value, ast.Name)
            and shape.value.id in stable
            and isinstance(expr.slice, ast.Constant)
        )
    return False


def _replay(call: ast.Call, counts: dict[str, ast.expr]) -> bool:
    """Put the count's ``len(range(...))`` in a reverse ``range`` that reads it."""
    if len(call.args) == 3 and _is_constant(call.args[2], 1):
        return _replay_upward(call, counts)
    if len(call.args) != 3 or not _is_constant(call.args[2], -1):
        return False
    first = call.args[0]
    count = _count_read(first, counts)
    if count is None or len(counts[count].args[0].args) > 2:
        return False
    if isinstance(first.op, ast.Sub):  # ``range(n - 1, -1, -1)``: ``range(b)`` reversed
        bounds = counts[count].args[0].args
        if not _is_constant(call.args[1], -1) or not (
            len(bounds) == 1 or _is_constant(bounds[0], 0)
        ):
            return False
        call.args[0] = ast.BinOp(clone(bounds[-1]), ast.Sub(), ast.Constant(1))
        return True
    first.right.left = clone(counts[count])  # ``a + (n - 1)``: tidied afterwards
    return True


def _replay_upward(call: ast.Call, counts: dict[str, ast.expr]) -> bool:
    """The reverse of ``for j in range(a, b, -1)``, ``range(a + (n - 1) * -1, a - -1, 1)``,
    as ``range(b + 1, a + 1)``: the same indices when ``n = len(range(a, b, -1))`` is
    not 0 (``a - n + 1 = b + 1``), and empty when it is (``a <= b``).

    >>> call = ast.parse("range(t + (n - 1) * -1, t - -1, 1)", mode="eval").body
    >>> counts = {"n": ast.parse("len(range(t, 0, -1))", mode="eval").body}
    >>> _replay_upward(call, counts), ast.unparse(call)
    (True, 'range(0 + 1, t + 1)')
    """
    first, stop = call.args[0], call.args[1]
    if not (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add)):
        return False
    scaled = first.right
    if not (
        isinstance(scaled, ast.BinOp)
        and isinstance(scaled.op, ast.Mult)
        and _is_constant(scaled.right, -1)
    ):
        return False
    count = _count_read(scaled.left, counts)
    if count is None or len(counts[count].args[0].args) != 3:
        return False
    start, end, _ = counts[count].args[0].args
    minus_one = isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Sub)
    if not (minus_one and _is_constant(stop.right, -1)):
        return False
    if ast.dump(start) != ast.dump(first.left) or ast.dump(start) != ast.dump(stop.left):
        return False
    one = ast.Constant(1)
    call.args = [ast.BinOp(clone(end), ast.Add(), one), ast.BinOp(clone(start), ast.Add(), one)]
    return True


def _count_read(first: ast.expr, counts: dict[str, ast.expr]) -> str | None:
    """``n`` when ``first`` is ``n - 1`` or ``a + (n - 1)`` with ``n`` an invariant count."""
    if isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
        first = first.right
    if not (isinstance(first, ast.BinOp) and isinstance(first.op, ast.Sub)):
        return None
    if not (isinstance(first.right, ast.Constant) and first.right.value == 1):
        return None
    name = first.left
    return name.id if isinstance(name, ast.Name) and name.id in counts else None


def _is_constant(expr: ast.expr, value: int) -> bool:
    """Whether ``expr`` is the integer ``value`` (``-1`` may be spelled ``-(1)``)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _is_constant(expr.operand, -value)
    return isinstance(expr, ast.Constant) and type(expr.value) is int and expr.value == value

"""Names that always hold an array of their own: allocated here, shared with no other name.

:mod:`.sharing` joins the two names of a swap ``u_bar, v_bar = (v_bar, u_bar)`` into one
class, as it must flow-insensitively: after the swap each name holds the other's buffer.
Yet at every point the two hold *different* buffers. A name is one of
:func:`unshared_buffers` when every binding of it is a fresh allocation
(``np.zeros_like(x)``, ``np.empty(n)``, ``np.copy(x)``), a tape growing into a copy of
itself (``t = reserve(t, k)``), or a permutation among such names, and its value never
goes anywhere else: no ``w = u`` or view ``w = u[1:]``, no call that may keep it
(``lst.append(u)``), no loop over it. Writes through such a name then change memory no
other name of the function reaches, and two such names never meet.

    >>> f = ast.parse('''
    ... def f_vjp(x, n):
    ...     u_bar = np.zeros_like(x)
    ...     v_bar = np.zeros_like(x)
    ...     w = np.empty(n)
    ...     view = w[1:]
    ...     for _ in range(n):
    ...         v_bar, u_bar = (u_bar, v_bar)
    ...     add_into(x, u_bar)
    ... ''').body[0]
    >>> sorted(unshared_buffers(f, {'x': 1, 'u_bar': 1, 'v_bar': 1, 'w': 1, 'view': 1}))
    ['u_bar', 'v_bar']
"""

from __future__ import annotations

import ast

from .. import ir
from ..astnodes import walk
from ..transform.effects import names_written
from .sharing import called_name, every_name, possible_views

# Calls returning an array no other name holds.
ALLOCATIONS = frozenset(
    {"zeros", "zeros_like", "empty", "empty_like", "ones", "ones_like", "full", "copy"}
)
# Statement calls that read or write their arguments' elements and keep no reference.
NOT_KEEPING = frozenset({"add_into", "fill"})


def unshared_buffers(function: ast.FunctionDef, ranks: dict) -> set[str]:
    """The names of ``function`` that always hold an unshared buffer (module docstring);
    ``ranks``: of its arrays, so that ``u[i]`` is known to read a number, not a row."""
    params = {a.arg for a in function.args.args}
    candidates = {_allocated(s) for s in walk(function) if isinstance(s, ast.Assign)} - {None}
    # One walk: what disqualifies a name whatever the other candidates are, and the
    # permutations, which keep their names only while all of them are still candidates.
    disqualified, permutations = _disqualifications(function, ranks)
    candidates -= params | disqualified
    while True:
        kept = set(candidates)
        for names, plain in permutations:
            if not (plain and names <= candidates):
                kept -= names
        if kept == candidates:
            return kept
        candidates = kept


def _disqualifications(function: ast.FunctionDef, ranks) -> tuple[set[str], list]:
    """The names some statement shares or lets escape, and the permutation statements as
    (their names, whether plain ``a, b = (b, a)``)."""
    disqualified: set[str] = set()
    permutations = []
    for node in walk(function):
        if isinstance(node, ast.Assign):
            bound = set().union(*(names_written(t) for t in node.targets))
            if ir.is_permutation(node) and isinstance(node.value, ast.Tuple):
                permutations.append((bound | every_name(node.value), _plain_permutation(node)))
                continue
            disqualified |= {n for n in bound if not _rebinds_own(node, n)}
            disqualified |= _views(node.value, ranks) - bound
        elif isinstance(node, (ast.For, ast.comprehension)):
            disqualified |= names_written(node.target) | _views(node.iter, ranks)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if called_name(node.value) not in NOT_KEEPING:
                disqualified |= every_name(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr, ast.With, ast.Delete)):
            disqualified |= every_name(node)
    return disqualified, permutations


def _rebinds_own(stmt: ast.Assign, name: str) -> bool:
    """Whether ``stmt`` binds ``name`` to a fresh allocation or its own grown tape."""
    return _allocated(stmt) == name or _reserved(stmt, name)


def _allocated(stmt: ast.Assign) -> str | None:
    """The name ``stmt`` binds to a fresh allocation (``np.zeros_like(x)``), else None."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return None
    value = stmt.value
    if not (isinstance(value, ast.Call) and called_name(value) in ALLOCATIONS):
        return None
    func = value.func
    if isinstance(func, ast.Attribute) and not (
        isinstance(func.value, ast.Name) and func.value.id == "np"
    ):
        return None  # x.copy() of a list, x.fill(): methods, not NumPy's functions
    return stmt.targets[0].id


def _views(value: ast.expr, ranks: dict) -> set[str]:
    """:func:`.sharing.possible_views`, knowing that an element ``u[i, j]`` of an array
    of known rank is a number."""
    if isinstance(value, ast.Subscript) and _element(value, ranks):
        return set()
    if isinstance(value, (ast.Tuple, ast.List)):
        return set().union(*(_views(e, ranks) for e in value.elts))
    if isinstance(value, ast.IfExp):
        return _views(value.body, ranks) | _views(value.orelse, ranks)
    return possible_views(value)


def _element(subscript: ast.Subscript, ranks: dict) -> bool:
    """Whether ``subscript`` reads one element: an integer index per axis, no slice."""
    if not isinstance(subscript.value, ast.Name) or subscript.value.id not in ranks:
        return False
    index = subscript.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) != ranks[subscript.value.id]:
        return False
    return not any(isinstance(n, (ast.Slice, ast.Starred)) for p in parts for n in walk(p))


def _plain_permutation(stmt: ast.Assign) -> bool:
    """``a, b = (b, a)``: names only, each once on either side."""
    targets, values = stmt.targets[0].elts, stmt.value.elts
    if not all(isinstance(e, ast.Name) for e in targets + values):
        return False
    ids = [e.id for e in targets]
    return len(set(ids)) == len(ids) and sorted(ids) == sorted(e.id for e in values)


def _reserved(stmt: ast.Assign, name: str) -> bool:
    """``t = reserve(t, k)``: the tape itself or a bigger copy of it."""
    value = stmt.value
    return (
        ir.is_call(value, "reserve")
        and isinstance(value.args[0], ast.Name)
        and value.args[0].id == name
        and name not in every_name(ast.Tuple(value.args[1:], ast.Load()))
    )

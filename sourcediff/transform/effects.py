"""What a generated statement reads, writes and changes: the facts the optimizer needs.

An expression is *pure* when evaluating it changes nothing: names, constants,
arithmetic, subscripts and attributes read, and calls to functions known to
return a new value (``np.exp``, ``math.log``, ``len``, ``sum_to``). A statement
has *effects* when it changes memory that a pure expression could read: a store
into a subscript or attribute, an augmented assignment (in place on arrays), a
call that is not pure (``add_into(x_bar, g)``, ``t_refs.pop()``), a jump, or a
compound statement (conservatively). Rebinding a name is not an effect; callers
compare :func:`names_written` with what they read.

    >>> is_pure(ast.parse("np.exp(-x[i]) * len(y)", mode="eval").body)
    True
    >>> is_pure(ast.parse("t_refs.pop()", mode="eval").body)
    False
    >>> has_effects(ast.parse("add_into(x_bar, g)").body[0])
    True
"""

from __future__ import annotations

import ast

from ..astnodes import names_read as names_read  # re-exported: the passes import both from here
from ..astnodes import names_written, walk
from ..codegen import Comment

PURE_MODULES = ("np", "math")
# NumPy functions that write into an argument or draw random numbers.
IMPURE_NUMPY = frozenset({"copyto", "put", "place", "fill_diagonal", "putmask", "random"})
PURE_BUILTINS = frozenset(
    {"len", "range", "min", "max", "abs", "float", "int", "bool", "round", "pow"}
)
# Runtime helpers (sourcediff/runtime.py) that only return a new value.
PURE_HELPERS = frozenset(
    {
        "sum_to",
        "first_extreme_mask",
        "dot",
        "dot_adjoint_left",
        "dot_adjoint_right",
        "matmul",
        "matmul_adjoint_left",
        "matmul_adjoint_right",
        "max_along",
        "min_along",
        "extreme_mask_along",
        "roll_along",
    }
)
PURE_METHODS = frozenset({"copy", "sum", "reshape", "ravel", "astype", "transpose", "dot"})
_SAFE_OPERATORS = (ast.Add, ast.Sub, ast.Mult)
#: Nodes that open a scope of their own: names there may be bound anew, and run later.
INNER_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
INNER_SCOPES += (ast.FunctionDef,)
_DIVISIONS = (ast.Div, ast.FloorDiv, ast.Mod)


def is_pure_call(call: ast.Call) -> bool:
    """Whether calling ``call.func`` returns a value and changes nothing."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in PURE_BUILTINS or func.id in PURE_HELPERS
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        if func.value.id in PURE_MODULES:
            return func.attr not in IMPURE_NUMPY
        return func.attr in PURE_METHODS
    return False


def is_pure(expr: ast.expr) -> bool:
    """Whether evaluating ``expr`` changes nothing (see the module docstring)."""
    for node in walk(expr):
        if isinstance(node, ast.Call) and not is_pure_call(node):
            return False
        if isinstance(node, (ast.NamedExpr, ast.Lambda, ast.Yield, ast.Await)):
            return False
    return True


def names_changed(stmt: ast.stmt) -> set[str]:
    """The names ``stmt`` binds, and for a record statement the tapes and lists it changes."""
    return names_written(stmt) | set(getattr(stmt, "record_writes", ()))


def has_effects(stmt: ast.stmt) -> bool:
    """Whether ``stmt`` may change memory that a pure expression reads (module docstring).
    A record statement (tape push or pop, marked by transform/tape.py) changes only the
    fresh names in its ``record_writes``, which :func:`names_changed` reports."""
    if isinstance(stmt, (ast.Pass, Comment)) or hasattr(stmt, "record_writes"):
        return False
    if not isinstance(stmt, ast.Assign):
        return True
    if not all(isinstance(t, ast.Name) for t in stmt.targets):
        return True
    return not is_pure(stmt.value)


def impure_calls(node: ast.AST) -> list[ast.Call]:
    """The calls inside ``node`` that may change something."""
    return [n for n in walk(node) if isinstance(n, ast.Call) and not is_pure_call(n)]


class NodeFacts:
    """Facts about AST nodes, keyed by identity, holding a reference to each node.

    A pass that replaces statements frees the old nodes, and CPython hands a freed
    node's ``id`` to the next node allocated: a plain ``dict`` keyed by ``id`` would
    give the new statement the old one's facts (a known-zero adjoint that is not).
    Keeping the node alive makes its ``id`` unique for the life of the map, and a
    lookup checks identity.

        >>> facts = NodeFacts()
        >>> stmt = ast.parse("x = 1").body[0]
        >>> facts[stmt] = {"x"}
        >>> facts.get(stmt), facts.get(ast.parse("x = 1").body[0])
        ({'x'}, None)
    """

    def __init__(self):
        self._entries: dict[int, tuple[ast.AST, object]] = {}

    def __setitem__(self, node: ast.AST, fact) -> None:
        self._entries[id(node)] = (node, fact)

    def get(self, node: ast.AST, default=None):
        """The fact recorded for this very node, else ``default``."""
        entry = self._entries.get(id(node))
        return entry[1] if entry is not None and entry[0] is node else default

    def __contains__(self, node: ast.AST) -> bool:
        entry = self._entries.get(id(node))
        return entry is not None and entry[0] is node

    def items(self) -> list[tuple[ast.AST, object]]:
        """Every (node, fact) pair recorded."""
        return list(self._entries.values())


def statement_lists(node: ast.AST):
    """Every statement list (bodies and else branches) inside ``node``, outermost first."""
    for stmts, _ in blocks_and_holders(node):
        yield stmts


def blocks_and_holders(node: ast.AST, holders: tuple = ()):
    """Every statement list inside ``node``, outermost first, with the compound statements
    holding it (inside ``node``); a list's statements are read once the caller has been
    given the list, so a caller may rewrite it first."""
    for field in ("body", "orelse"):
        stmts = getattr(node, field, None)
        if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
            yield stmts, holders
            for stmt in list(stmts):
                yield from blocks_and_holders(stmt, holders + (stmt,))


def cannot_fail(expr: ast.expr) -> bool:
    """Whether ``expr`` is arithmetic on names and numbers that raises nothing.

    >>> [cannot_fail(ast.parse(e, mode="eval").body) for e in ("dt / 6.0", "a / b", "x[0]")]
    [True, False, False]
    """
    for node in walk(expr):
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, _DIVISIONS):
                divisor = node.right
                if not (isinstance(divisor, ast.Constant) and _number(divisor.value)):
                    return False
                if divisor.value == 0:
                    return False
            elif not isinstance(node.op, _SAFE_OPERATORS):
                return False
        elif isinstance(node, ast.Constant):
            if not _number(node.value):
                return False
        elif isinstance(node, ast.Invert):
            return False  # ``~x`` of a float raises
        elif not isinstance(node, (ast.Name, ast.UnaryOp, ast.operator, ast.unaryop)):
            return False
    return True


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

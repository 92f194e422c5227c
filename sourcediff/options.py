"""Option parameters: a string or None that selects code, bound per call (stage "parse").

Scientific code picks a method with a string and makes an input optional with None::

    def integrate(u0, k, dt, steps, method="euler", weights=None):
        if weights is None:
            weights = np.ones(u0.shape[0])
        for _ in range(steps):
            if method == "euler":
                ...
            elif method == "midpoint":
                ...
            else:
                raise ValueError(method)

Such a parameter is an *option*: its default is a string or None, or the function
compares it with a string (``==``, ``!=``, ``in``) or with None (``is``). The
derivative is specialized on its value, as JAX specializes on ``static_argnums``:
:func:`bind_options` writes the value where the parameter is read, folds the tests
it decides and keeps only the branch taken, before the function is checked
(``fence``) and differentiated. The parameter stays in the signature, unread, so
argument positions do not change; callers pass :data:`PLACEHOLDER` for it.

    >>> node = ast.parse('''
    ... def f(x, method="a", w=None):
    ...     if w is None:
    ...         w = 2.0
    ...     if method == "a":
    ...         return w * x
    ...     raise ValueError(method)
    ... ''').body[0]
    >>> sorted(option_parameters(node))
    ['method', 'w']
    >>> print(ast.unparse(bind_options(node, {"method": "a", "w": None})))
    def f(x, method=0, w=0):
        w = 2.0
        return w * x
"""

from __future__ import annotations

import ast
import operator

from .astnodes import clone, names_written, walk

#: What the compiled derivative receives in place of an option's value (it never reads it).
PLACEHOLDER = 0


class _Number:
    """The value of an option parameter given a number or an array (``scale=None`` by
    default, ``2.0`` in this call): not None and no string, so the tests against those
    are decided, and the parameter is read as itself."""

    def __repr__(self) -> str:
        return "<number>"


NUMBER = _Number()

_COMPARISONS = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_UNDECIDED = object()


def is_option_value(value) -> bool:
    """Whether ``value`` is bound into the code as an option (a string or None)."""
    return value is None or isinstance(value, str)


def option_value(value):
    """What an option parameter is bound to for an argument ``value``: a string or None
    itself, :data:`NUMBER` for anything else."""
    return value if is_option_value(value) else NUMBER


def option_parameters(node: ast.FunctionDef) -> set[str]:
    """The parameters of ``node`` that are options: a string or None default, or compared
    with a string or None in the body."""
    arguments = node.args
    params = [a.arg for a in arguments.args]
    defaults = dict(zip(params[len(params) - len(arguments.defaults) :], arguments.defaults))
    found = {p for p, d in defaults.items() if _is_option_constant(d)}
    for sub in walk(node):
        if isinstance(sub, ast.Compare) and len(sub.ops) == 1:
            pair = (sub.left, sub.comparators[0])
            for this, other in (pair, pair[::-1]):
                if isinstance(this, ast.Name) and this.id in params and _option_side(other):
                    found.add(this.id)
    return found


def _is_option_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and is_option_value(node.value)


def _option_side(node: ast.expr) -> bool:
    """A string or None constant, or a tuple or list of strings."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_option_constant(e) for e in node.elts)
    return _is_option_constant(node)


def bind_options(node: ast.FunctionDef, values: dict) -> ast.FunctionDef:
    """A copy of ``node`` with each option's value written where it is read while it holds,
    and the ``if`` statements and conditional expressions it decides replaced by the
    branch taken. A name assigned a string or None (``w = None``) holds it too, until it
    is bound again."""
    bound = clone(node)
    bound.body = _block(bound.body, dict(values)) or [ast.Pass()]
    arguments = bound.args
    first_default = len(arguments.args) - len(arguments.defaults)
    for k, param in enumerate(arguments.args[first_default:]):
        if param.arg in values:  # never read now; what callers pass instead
            arguments.defaults[k] = ast.Constant(PLACEHOLDER)
    _drop_unread_option_assignments(bound)
    return bound


def _block(stmts: list[ast.stmt], known: dict) -> list[ast.stmt]:
    """``stmts`` with the options in ``known`` bound; ``known`` is updated in place to
    what holds after them."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        out += _statement(stmt, known)
        if out and isinstance(out[-1], (ast.Return, ast.Raise)):
            break  # the rest of the block is never reached
    return out


def _statement(stmt: ast.stmt, known: dict) -> list[ast.stmt]:
    if not known:
        return [stmt]
    if isinstance(stmt, ast.If):
        return _branch(stmt, known)
    if isinstance(stmt, (ast.For, ast.While)):
        return [_loop(stmt, known)]
    stmt = _Substitute(known).visit(stmt)
    for name in names_written(stmt):
        known.pop(name, None)
    if _option_assignment(stmt):  # w = None: w holds None from here on
        known[stmt.targets[0].id] = stmt.value.value
    return [stmt]


def _branch(stmt: ast.If, known: dict) -> list[ast.stmt]:
    test = _Substitute(known).visit(stmt.test)
    decided = _decide(test)
    if decided is not _UNDECIDED:
        return _block(stmt.body if decided else stmt.orelse, known)
    stmt.test = test
    after_body, after_else = dict(known), dict(known)
    stmt.body = _block(stmt.body, after_body) or [ast.Pass()]
    stmt.orelse = _block(stmt.orelse, after_else)
    known.clear()
    known.update({n: v for n, v in after_body.items() if n in after_else and after_else[n] is v})
    return [stmt]


def _loop(stmt: ast.For | ast.While, known: dict) -> ast.stmt:
    """A loop: what it binds anywhere is unknown throughout it (a later iteration reads
    what an earlier one wrote)."""
    for name in names_written(stmt):
        known.pop(name, None)
    if isinstance(stmt, ast.For):
        stmt.iter = _Substitute(known).visit(stmt.iter)
    else:
        stmt.test = _Substitute(known).visit(stmt.test)
    stmt.body = _block(stmt.body, dict(known)) or [ast.Pass()]
    stmt.orelse = _block(stmt.orelse, known)
    return stmt


def _option_assignment(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Assign)
        and len(stmt.targets) == 1
        and isinstance(stmt.targets[0], ast.Name)
        and _is_option_constant(stmt.value)
    )


class _Substitute(ast.NodeTransformer):
    """Reads of known options become their values; the conditional expressions and tests
    they decide are folded."""

    def __init__(self, known: dict):
        self.known = known

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and self.known.get(node.id, NUMBER) is not NUMBER:
            return ast.copy_location(ast.Constant(self.known[node.id]), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        decided = _decide(node.test)
        if decided is _UNDECIDED:
            return node
        return node.body if decided else node.orelse

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) == 1 and self._number(node.left) and _option_side(node.comparators[0]):
            return _constant_like(_is_negated(node.ops[0]), node)  # a number is no option
        if len(node.ops) == 1 and self._number(node.comparators[0]) and _option_side(node.left):
            return _constant_like(_is_negated(node.ops[0]), node)
        return _constant_like(_decide(node), node)

    def _number(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and self.known.get(node.id) is NUMBER

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        self.generic_visit(node)
        return _constant_like(_decide(node), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _constant_like(_decide(node), node)
        return node


def _is_negated(op: ast.cmpop) -> bool:
    """Whether ``op`` holds between a number and None or a string (``!=``, ``is not``,
    ``not in``)."""
    return isinstance(op, (ast.NotEq, ast.IsNot, ast.NotIn))


def _constant_like(decided, node: ast.expr) -> ast.expr:
    if decided is _UNDECIDED:
        return node
    return ast.copy_location(ast.Constant(decided), node)


def _decide(test: ast.expr):
    """True or False if ``test`` is decided by option constants alone, else _UNDECIDED.

    >>> _decide(ast.parse("'rk4' in ('rk4', 'euler') and not None is not None").body[0].value)
    True
    """
    if isinstance(test, ast.Constant) and (is_option_value(test.value) or test.value in (0, 1)):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand)
        return inner if inner is _UNDECIDED else not inner
    if isinstance(test, ast.BoolOp):
        return _decide_boolop(test)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _decide_compare(test.left, test.ops[0], test.comparators[0])
    return _UNDECIDED


def _decide_boolop(test: ast.BoolOp):
    parts = [_decide(v) for v in test.values]
    stop = isinstance(test.op, ast.Or)  # the value that decides the whole
    if stop in parts:
        return stop
    return not stop if all(p is not _UNDECIDED for p in parts) else _UNDECIDED


def _decide_compare(left: ast.expr, op: ast.cmpop, right: ast.expr):
    if not (_is_option_constant(left) and (_is_option_constant(right) or _option_side(right))):
        return _UNDECIDED
    a = left.value
    if isinstance(op, (ast.Is, ast.IsNot)):
        if not _is_option_constant(right) or (a is not None and right.value is not None):
            return _UNDECIDED  # `is` between strings is identity, not equality
        return (a is right.value) == isinstance(op, ast.Is)
    compare = _COMPARISONS.get(type(op))
    if compare is None:
        return _UNDECIDED
    b = [e.value for e in right.elts] if not isinstance(right, ast.Constant) else right.value
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(b, str) and a is None:
        return _UNDECIDED
    return bool(compare(a, b))


def _drop_unread_option_assignments(node: ast.FunctionDef) -> None:
    """``w = None`` statements whose name is never read afterwards: the value was written
    where it is read."""
    read = {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for sub in walk(node):
        for field in ("body", "orelse"):
            block = getattr(sub, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                kept = [s for s in block if not (_option_assignment(s) and _unread(s, read))]
                setattr(sub, field, kept or ([ast.Pass()] if field == "body" else []))


def _unread(stmt: ast.Assign, read: set[str]) -> bool:
    return stmt.targets[0].id not in read

"""The adjoint terms of a normalized statement: the one place that says what an adjoint reads.

The reverse emitter, the to-be-recorded analysis and the recompute analysis
all ask :func:`adjoint_terms` for a statement's contributions, and the last two
derive what the reverse sweep reads from exactly the expressions that will be
emitted (:func:`adjoint_reads`). They cannot disagree: when they did (the
analyses read a rule's ``partials`` while the emitter used its ``adjoints``
template), operands overwritten later were not recorded and gradients were
silently wrong.

A term ``Term(name, expr, index)`` means ``name_bar[index] += expr``; ``expr``
is in terms of primal names and the statement's result adjoint ``g``::

    >>> from sourcediff.analysis.types import TypeTable, VarType
    >>> types = TypeTable({"x": VarType("array", "float64", 1)}, VarType("float"))
    >>> stmt = ast.parse("t = np.tanh(x)").body[0]
    >>> [ast.unparse(t.expr) for t in adjoint_terms(stmt, {"t", "x"}, types, "{}_bar".format)]
    ['(1.0 - t * t) * t_bar']
    >>> sorted(adjoint_reads(stmt, {"t", "x"}, types).values)
    ['t']

A read of a name for its shape alone (``sum_to(e, x)``, ``x.shape``) is kept
apart: an element write into ``x`` does not change its shape, so it need not
be recorded for such a read.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from . import fancy, ir, joins, rules
from .analysis.known_calls import substitute_known
from .astnodes import clone, walk
from .errors import ModeRefusedError, SourceDiffError
from .transform.tape import is_region, readable, selects_region
from .transform.whole_regions import covers_every_axis

SHAPE_ATTRIBUTES = {"shape", "size", "ndim", "dtype"}
MODULES = {"math", "np"}


@dataclass(frozen=True)
class Term:
    """One contribution of a statement's adjoint: ``bar(name)[index] += expr``.

    With ``over`` (an integer index array) the contribution is made once per
    ``k`` in ``range(len(over))``, ``expr`` and ``index`` using the counter
    ``@k`` (backwards when ``backwards``), and ``zero``, an adjoint element, is
    zeroed after each (see :mod:`sourcediff.fancy`).
    """

    name: str
    expr: ast.expr
    index: ast.expr | None = None
    over: str | None = None
    backwards: bool = False
    zero: ast.expr | None = None


@dataclass
class Reads:
    """Primal names an adjoint reads: for their values, and for their shapes only."""

    values: set[str] = field(default_factory=set)
    shapes: set[str] = field(default_factory=set)

    def __or__(self, other: Reads) -> Reads:
        return Reads(self.values | other.values, self.shapes | other.shapes)

    def names(self) -> set[str]:
        """Every name read, for its value or its shape."""
        return self.values | self.shapes


def _name(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def adjoint_terms(stmt: ast.Assign, active, types, bar: Callable[[str], str]) -> list[Term]:
    """The contributions of ``stmt``'s adjoint to its active operands.

    ``types[name].kind`` says whether a name holds an array (broadcast
    adjoints are summed back to the operand's shape); ``bar(name)`` names
    the adjoint of ``name``. Permutations and inactive results have none.
    """
    if ir.is_permutation(stmt) or ir.target_name(stmt) not in active:
        return []
    _refuse_unsupported_index(stmt, types)
    if ir.is_element_write(stmt):
        terms = _element_write_terms(stmt, types, bar)
    else:
        terms = _assignment_terms(stmt, types, bar)
    terms = [_shape_from_adjoint(t, types, bar) for t in terms if t.name in active]
    terms = _merge_repeated(terms)
    rule = rules.lookup(rules.rule_name(stmt.value))
    if rule and rule.scalar_adjoints_only and any(types[t.name].kind == "array" for t in terms):
        raise ModeRefusedError(rule.scalar_adjoints_only, *getattr(stmt, "origin", ("", 0)))
    return terms


def _merge_repeated(terms: list[Term]) -> list[Term]:
    """One term for a contribution made twice (``t = x * x``: ``x_bar += x * g`` twice
    becomes ``x_bar += 2.0 * (x * g)``; ``e + e == 2.0 * e`` exactly).

    >>> g = ast.parse("x * g", mode="eval").body
    >>> [ast.unparse(t.expr) for t in _merge_repeated([Term("x", g), Term("x", g)])]
    ['2.0 * (x * g)']
    """
    counts: dict[tuple, list] = {}
    for term in terms:
        simple = term.index is None and term.over is None
        key = (term.name, ast.dump(term.expr)) if simple else (id(term),)
        counts.setdefault(key, [term, 0])[1] += 1
    merged = []
    for term, count in counts.values():
        if count > 1:
            scaled = _scaled(term.expr, float(count))
            term = dataclasses.replace(term, expr=scaled)
        merged.append(term)
    return merged


def _scaled(expr: ast.expr, factor: float) -> ast.expr:
    """``factor * expr``, inside a ``sum_to`` so that the reduction runs once."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "sum_to":
        inner = ast.BinOp(ast.Constant(factor), ast.Mult(), expr.args[0])
        return ast.Call(expr.func, [inner, *expr.args[1:]], [])
    return ast.BinOp(ast.Constant(factor), ast.Mult(), expr)


def _shape_from_adjoint(term: Term, types, bar) -> Term:
    """``x_bar += sum_to(e, x)`` reads ``x`` for its shape alone; when ``x`` keeps one
    shape (``types.reshaped``), ``x_bar`` has it too, and the reverse sweep need not
    restore or recompute ``x`` for it: ``x_bar += sum_to(e, x_bar)``."""
    expr = term.expr
    if term.index is not None or term.name in getattr(types, "reshaped", {term.name}):
        return term
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
        return term
    like = expr.args[1] if expr.func.id == "sum_to" and len(expr.args) == 2 else None
    if not (isinstance(like, ast.Name) and like.id == term.name):
        return term
    call = ast.Call(expr.func, [expr.args[0], _name(bar(term.name))], [])
    return dataclasses.replace(term, expr=call)


def _refuse_unsupported_index(stmt: ast.Assign, types) -> None:
    for node in (stmt.targets[0], stmt.value):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            reason = fancy.unsupported(node, types)
            if reason:
                raise SourceDiffError(
                    f"'{ast.unparse(node)}': {reason}", *getattr(stmt, "origin", ("", 0))
                )


def _element_write_terms(stmt: ast.Assign, types, bar) -> list[Term]:
    """``a[i] = v``: ``v_bar += a_bar[i]`` (summed back to ``v``'s shape for regions)."""
    element = stmt.targets[0]
    value = stmt.value
    if not isinstance(value, ast.Name):
        return []
    split = fancy.split_fancy(element, types)
    if split is not None:
        return _scatter_terms(stmt, value.id, split, types, bar)
    bar_element = readable(ast.Subscript(_name(bar(element.value.id)), element.slice, ast.Load()))
    whole = _whole(element, types) and types.same_shape(element.value.id, value.id)
    if selects_region(element, types) and not whole:  # a[1:] = c, a[mask] = c: summed to c
        bar_element = reduce_broadcast(bar_element, value.id, types)
    return [Term(value.id, bar_element)]


def _whole(element: ast.Subscript, types) -> bool:
    """Whether ``element`` is ``a[:]`` or ``a[:, :]``...: every axis of ``a``, in full."""
    return covers_every_axis(element, types[element.value.id].ndim)


def _scatter_terms(stmt, value: str, split, types, bar) -> list[Term]:
    """``u[idx] = v``: backwards over ``k``, ``v_bar += u_bar[idx[k]]``, then zero it."""
    element, origin = stmt.targets[0], getattr(stmt, "origin", ("", 0))
    source = ast.Subscript(_name(bar(element.value.id)), split.bar_index, ast.Load())
    region = is_region(source)
    value_type = types[value]
    loop = {"over": split.array_index, "backwards": True, "zero": clone(source)}
    if value_type.kind != "array":
        expr = reduce_broadcast(source, value, types) if region else source
        return [Term(value, expr, **loop)]
    if value_type.ndim == split.result_ndim:
        return [Term(value, source, _clamped(split.result_index, value), **loop)]
    if value_type.ndim == split.result_ndim - 1 and _gathered_axis_first(split):
        return [Term(value, reduce_broadcast(source, value, types), **loop)]
    raise SourceDiffError(
        f"'{ast.unparse(element)} = {value}' broadcasts '{value}' in a way sourcediff "
        "cannot differentiate; give it the shape of the selection",
        *origin,
    )


def _clamped(result_index: ast.expr, value: str) -> ast.expr:
    """``result_index`` with ``@k`` as ``min(@k, value.shape[axis] - 1)``: a value of
    length 1 along the gathered axis is broadcast to every ``k``."""
    parts = fancy.parts_of(clone(result_index))
    axis = next(p for p, part in enumerate(parts) if isinstance(part, ast.Name))
    parts[axis] = ast.parse(f"min(k, {value}.shape[{axis}] - 1)", mode="eval").body
    parts[axis].args[0] = ast.Name(fancy.COUNTER, ast.Load())
    return parts[0] if len(parts) == 1 else ast.Tuple(parts, ast.Load())


def _gathered_axis_first(split) -> bool:
    first = fancy.parts_of(split.result_index)[0]
    return isinstance(first, ast.Name)


def _assignment_terms(stmt: ast.Assign, types, bar) -> list[Term]:
    target = stmt.targets[0].id
    value = stmt.value
    out_bar = _name(bar(target))
    if isinstance(value, ast.Name):
        return [] if value.id == target else [Term(value.id, out_bar)]
    if joins.is_join(value):
        return [Term(name, slab) for name, slab in joins.join_terms(stmt, types, out_bar)]
    if ir.is_element_read(value):
        split = fancy.split_fancy(value, types)
        if split is None:
            return [Term(value.value.id, out_bar, value.slice)]
        gathered = ast.Subscript(out_bar, split.result_index, ast.Load())
        return [Term(value.value.id, gathered, split.bar_index, over=split.array_index)]
    return _rule_terms(stmt, out_bar, types)


def _rule_terms(stmt: ast.Assign, out_bar: ast.expr, types) -> list[Term]:
    """Terms of ``target = f(args)`` from the rule table's row for ``f``."""
    target, value = stmt.targets[0].id, stmt.value
    rule = rules.lookup(rules.rule_name(value))
    if rule is None:
        return []

    args = rules.operands(value)
    holes = {p: ast.Constant(None) for p in rule.params}
    holes |= dict(zip(rule.params, args))
    holes |= {kw.arg: kw.value for kw in getattr(value, "keywords", [])}
    holes["out"] = _name(target)
    holes["g"] = out_bar
    array_result = types[target].kind == "array"
    adjoints = rule.adjoints or (None,) * len(rule.params)
    elementwise = rule.adjoints is None and array_result and len(rule.params) > 1
    known = getattr(stmt, "known_calls", None)  # values the primal holds (known_calls.py)
    terms = []
    for param, partial, adjoint in zip(rule.params, rule.partials_for(array_result), adjoints):
        arg = holes[param]
        if partial is None or not isinstance(arg, ast.Name):
            continue
        if adjoint is not None:
            expr = substitute_known(rules.instantiate(adjoint, holes), known)
            expr = _shapes_alone(expr, getattr(value, "shape_only", ()))
            if rule.summed_over_result and array_result:  # a float's share of every element
                expr = reduce_broadcast(expr, arg.id, types)
        else:
            partial_expr = substitute_known(rules.instantiate(partial, holes), known)
            expr = rules.times_seed(partial_expr, out_bar)
            of_array = array_result or getattr(stmt, "of_array", False)
            if rules.strong_zero_applies(rule, holes, of_array):
                expr = rules.zero_where_no_change(expr, out_bar, array_result)
        if elementwise and not types.same_shape(arg.id, target):
            expr = reduce_broadcast(expr, arg.id, types)  # undo broadcasting
        terms.append(Term(arg.id, expr))
    return terms


def _shapes_alone(expr: ast.expr, positions: tuple) -> ast.expr:
    """``expr`` with the arguments at ``positions`` of its outlined helper's vjp call given
    as ``np.empty(a.shape)``: the vjp reads their shape alone (``outlined.shape_only_params``),
    so the reverse sweep need not record their values.

    >>> e = ast.parse("f_vjp(x, out, g)[0]", mode="eval").body
    >>> ast.unparse(_shapes_alone(e, (1,)))
    'f_vjp(x, np.empty(out.shape), g)[0]'
    """
    for node in walk(expr) if positions else ():
        if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("_vjp"):
            for k in positions:
                if isinstance(node.args[k], ast.Name):
                    shape = f"np.empty({node.args[k].id}.shape)"
                    node.args[k] = ast.parse(shape, mode="eval").body
    return expr


def reduce_broadcast(expr: ast.expr, operand: str, types) -> ast.expr:
    """Sum an elementwise adjoint back to the operand's shape (undo broadcasting)."""
    if types[operand].kind != "array":
        return ast.Call(ast.Attribute(_name("np"), "sum", ast.Load()), [expr], [])
    return ast.Call(_name("sum_to"), [expr, _name(operand)], [])


def _placeholder_bar(name: str) -> str:
    return f"@{name}"  # not an identifier: can never be mistaken for a primal name


def adjoint_reads(stmt: ast.Assign, active, types) -> Reads:
    """Primal names the adjoint of ``stmt`` reads, exactly as it will be emitted.

    An element write also reads its index when its adjoint zeroes ``a_bar[i]``.
    """
    reads = Reads()
    if ir.is_element_write(stmt) and ir.target_name(stmt) in active:
        reads.values |= ir.index_names(stmt.targets[0])
    for term in adjoint_terms(stmt, active, types, _placeholder_bar):
        reads = reads | expression_reads(term.expr)
        if term.over is not None:
            reads.values.add(term.over)
        if term.index is not None:
            reads = reads | expression_reads(term.index)
    return reads


def expression_reads(expr: ast.expr) -> Reads:
    """Names ``expr`` reads, split into value and shape-only reads (function names excluded)."""
    reads = Reads()
    shape_only: set[int] = set()
    called: set[int] = set()
    for node in walk(expr):
        if isinstance(node, ast.Attribute) and node.attr in SHAPE_ATTRIBUTES:
            shape_only.add(id(node.value))
        if isinstance(node, ast.Call):
            called.add(id(node.func))
            if isinstance(node.func, ast.Name) and node.func.id == "sum_to":
                shape_only.add(id(node.args[1]))
    for node in walk(expr):
        if not isinstance(node, ast.Name) or id(node) in called or node.id in MODULES:
            continue
        if node.id.startswith("@"):
            continue
        (reads.shapes if id(node) in shape_only else reads.values).add(node.id)
    reads.shapes -= reads.values
    return reads

"""Forward mode: tangent statements beside each primal statement.

For ``v = f(a, b)`` the tangent function runs the primal statement and then::

    v_dot = <partial of f wrt a> * a_dot + <partial of f wrt b> * b_dot

from the same rule-table row as reverse mode (rows whose adjoint is not a
product carry a ``tangents`` template instead). Control flow is the primal's;
nothing is recorded. Element writes write tangents (``a_dot[i] = v_dot``),
swaps swap tangents, and a variable with no varied operand gets a zero
tangent. The output is ordinary Python in the subset sourcediff accepts, so it
can be differentiated again (forward over forward gives Hessians).
"""

from __future__ import annotations

import ast
import copy

from .. import ir, joins, rules
from ..analysis.activity import dependencies
from ..analysis.known_calls import known_after, substitute_known
from ..analysis.static_shapes import UNKNOWN, expression_shape
from ..analysis.types import TypeTable
from ..astnodes import walk
from ..errors import ModeRefusedError
from ..normalize import NormalizedFunction
from .simplify import simplify


def _parse(source: str) -> ast.stmt:
    return ast.parse(source).body[0]


def _merge_repeated(terms: list[ast.expr]) -> list[ast.expr]:
    """One term for a term made twice (``t = x * x``: ``x * x_dot`` twice becomes
    ``2.0 * (x * x_dot)``; ``e + e == 2.0 * e`` exactly), in first-seen order.

    >>> term = ast.parse("x * x_dot", mode="eval").body
    >>> [ast.unparse(t) for t in _merge_repeated([term, copy.deepcopy(term)])]
    ['2.0 * (x * x_dot)']
    """
    counts: dict[str, list] = {}
    for term in terms:
        counts.setdefault(ast.dump(term), [term, 0])[1] += 1
    return [
        term if count == 1 else ast.BinOp(ast.Constant(float(count)), ast.Mult(), term)
        for term, count in counts.values()
    ]


def varied_variables(node: ast.FunctionDef, types: TypeTable, wrt: list[str]) -> set[str]:
    """Float variables that depend differentiably on ``wrt``."""
    floats = {n for n, t in types.variables.items() if t.is_float}
    varied = set(wrt) & floats
    edges = dependencies(node)
    changed = True
    while changed:
        changed = False
        for target, operands in edges:
            if target in floats and target not in varied and any(o in varied for o in operands):
                varied.add(target)
                changed = True
    return varied


class ForwardBuilder:
    """Builds the tangent (Jacobian-vector product) function of a normalized function."""

    def __init__(self, nf: NormalizedFunction, types: TypeTable, varied: set[str]):
        self.nf = nf
        self.types = types
        self.varied = varied
        self.dots: dict[str, str] = {}

    def dot(self, name: str) -> str:
        """The tangent's name of ``name``: ``x`` -> ``x_dot``."""
        if name not in self.dots:
            self.dots[name] = self.nf.namer.fresh(f"{name}_dot")
        return self.dots[name]

    def zero(self, name: str) -> str:
        return f"np.zeros_like({name})" if self.types[name].kind == "array" else "0.0"

    def block(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for stmt in stmts:
            out += self.stmt(stmt)
        return out

    def stmt(self, stmt: ast.stmt) -> list[ast.stmt]:
        if isinstance(stmt, ast.If):
            new = copy.copy(stmt)
            new.body, new.orelse = self.block(stmt.body) or [ast.Pass()], self.block(stmt.orelse)
            return [new]
        if isinstance(stmt, (ast.For, ast.While)):
            new = copy.copy(stmt)
            new.body = self.block(stmt.body)
            return [new]
        if isinstance(stmt, ast.Assign):
            return [stmt] + [_at(s, stmt) for s in self.tangent(stmt)]
        return [stmt]

    def tangent(self, stmt: ast.Assign) -> list[ast.stmt]:
        if ir.is_permutation(stmt):
            pairs = [(t, s) for t, s in ir.permutation_pairs(stmt) if t in self.varied]
            if not pairs:
                return []
            targets = ", ".join(self.dot(t) for t, _ in pairs)
            return [_parse(f"{targets} = {', '.join(self.dot(s) for _, s in pairs)}")]
        target = ir.target_name(stmt)
        if target not in self.varied:
            return []
        if ir.is_element_write(stmt):
            element = ast.Subscript(_name(self.dot(target)), stmt.targets[0].slice, ast.Store())
            value = stmt.value
            source = _name(self.dot(value.id)) if _is_varied_name(value, self.varied) else None
            return [ast.Assign([element], source or ast.Constant(0.0))]
        rule = rules.lookup(rules.rule_name(stmt.value))
        if rule is not None and rule.forward_refusal:
            raise ModeRefusedError(rule.forward_refusal, *getattr(stmt, "origin", ("<unknown>", 0)))
        of_array = getattr(stmt, "of_array", False)
        expr = self.tangent_expression(target, stmt.value, known_after(stmt), of_array)
        if expr is None:
            return [_parse(f"{self.dot(target)} = {self.zero(target)}")]
        expr = simplify(expr)
        if self.types[target].kind == "array" and self.broadcast(expr, target):
            # ``Y = X * 2.0 + beta`` with only ``beta`` varied: its tangent, ``beta_dot``,
            # has the shape of ``beta``, and ``np.sum(Y_dot)`` must count every row.
            spread = ast.parse(f"np.broadcast_to(e, {target}.shape).copy()", mode="eval").body
            spread.func.value.args[0] = expr
            return [ast.Assign([ast.Name(self.dot(target), ast.Store())], spread)]
        fresh_array = self.types[target].kind == "array" and not isinstance(stmt.value, ast.Name)
        if fresh_array and isinstance(expr, ast.Name):
            # The primal made a new array (np.copy, ...): its tangent must not alias.
            expr = ast.Call(ast.Attribute(expr, "copy", ast.Load()), [], [])
        return [ast.Assign([ast.Name(self.dot(target), ast.Store())], expr)]

    def broadcast(self, expr: ast.expr, target: str) -> bool:
        """Whether the tangent ``expr`` of the array ``target`` may have fewer axes or
        another shape than ``target``: NumPy broadcast an operand it was computed from."""
        primal = {dot: name for name, dot in self.dots.items()}
        names = [primal.get(n.id, n.id) for n in walk(expr) if isinstance(n, ast.Name)]
        ranks = [self.types[n].ndim or 0 for n in names if n in self.types.variables]
        if max(ranks, default=0) < (self.types[target].ndim or 0):
            return True
        shapes = dict(self.types.shapes or {})
        shapes |= {dot: shapes[name] for name, dot in self.dots.items() if name in shapes}
        wanted, found = shapes.get(target, UNKNOWN), expression_shape(expr, shapes)
        return UNKNOWN not in (wanted, found) and wanted != found

    def varied_dot(self, name: str) -> ast.Name | None:
        """The tangent of ``name``, or None when it carries none."""
        return _name(self.dot(name)) if name in self.varied else None

    def tangent_expression(
        self, target: str, value: ast.expr, known=None, of_array=False
    ) -> ast.expr | None:
        """The tangent of ``target = value``; a partial whose call a number holds
        (``known``, see ``analysis/known_calls.py``) reads the number; ``of_array``: the
        statement is one element of an array operation (``rules.strong_zero_applies``)."""
        if isinstance(value, ast.Name):
            return _name(self.dot(value.id)) if value.id in self.varied else None
        if ir.is_element_read(value):
            if value.value.id not in self.varied:
                return None
            return ast.Subscript(_name(self.dot(value.value.id)), value.slice, ast.Load())
        if joins.is_join(value):
            return joins.join_tangent(value, self.varied_dot)
        rule = rules.lookup(rules.rule_name(value))
        if rule is None:
            return None
        args = rules.operands(value)
        holes = {p: ast.Constant(None) for p in rule.params}
        holes |= dict(zip(rule.params, args))
        holes |= {kw.arg: kw.value for kw in getattr(value, "keywords", [])}
        holes["out"] = _name(target)
        array_result = self.types[target].kind == "array"
        tangents = rule.tangents or (None,) * len(rule.params)
        terms = []
        for param, partial, template in zip(rule.params, rule.partials_for(array_result), tangents):
            arg = holes[param]
            if partial is None or not _is_varied_name(arg, self.varied):
                continue
            arg_dot = _name(self.dot(arg.id))
            if template is not None:
                terms.append(rules.instantiate(template, holes | {"tangent": arg_dot}))
            else:
                partial_expr = substitute_known(rules.instantiate(partial, holes), known)
                term = rules.times_seed(partial_expr, arg_dot)
                if rules.strong_zero_applies(rule, holes, array_result or of_array):
                    term = rules.zero_where_no_change(term, arg_dot, array_result)
                terms.append(term)
        if not terms:
            return None
        terms = _merge_repeated(terms)
        total = terms[0]
        for term in terms[1:]:
            total = ast.BinOp(total, ast.Add(), term)
        return total

    def build(self, name: str, wrt: list[str]) -> ast.FunctionDef:
        body = self.nf.node.body
        ret = body[-1]
        # Tangents of array inputs are copied: the function may write into its arrays.
        out = [
            _parse(f"{self.dot(w)} = {self.dot(w)}.copy()")
            for w in wrt
            if self.types[w].kind == "array"
        ]
        for param in self.nf.params:
            if param in self.varied and param not in wrt:  # an output array written in place
                out.append(_parse(f"{self.dot(param)} = {self.zero(param)}"))
        out += self.block(body[:-1])
        atoms = ret.value.elts if isinstance(ret.value, ast.Tuple) else [ret.value]
        dots = []
        for atom in atoms:
            if _is_varied_name(atom, self.varied):
                dots.append(self.dot(atom.id))
            elif isinstance(atom, ast.Name) and self.types[atom.id].kind == "array":
                dots.append(f"np.zeros_like({atom.id})")
            else:
                dots.append("0.0")
        value = ast.unparse(ret.value)
        tangent = dots[0] if len(dots) == 1 else f"({', '.join(dots)},)"
        out.append(_parse(f"return {value}, {tangent}"))
        params = self.nf.params + [self.dot(w) for w in wrt]
        arguments = ast.arguments([], [ast.arg(p) for p in params], None, [], [], None, [])
        return ast.FunctionDef(name, arguments, out, [])


def _name(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _is_varied_name(node: ast.expr, varied: set[str]) -> bool:
    return isinstance(node, ast.Name) and node.id in varied


def _at(node: ast.stmt, where: ast.stmt) -> ast.stmt:
    origin = getattr(where, "origin", None)
    if origin is not None:
        node.origin = origin
    return node


def build_tangent(nf: NormalizedFunction, types: TypeTable, wrt: list[str], name: str):
    """The tangent function ``name(params..., wrt_dots...) -> (value, value_dot)``."""
    varied = varied_variables(nf.node, types, wrt)
    return ForwardBuilder(nf, types, varied).build(name, wrt)

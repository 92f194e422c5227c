"""The one table of derivatives.

A row gives, for a primitive operation, the partial derivative of its result
with respect to each argument as a short expression template. Holes are the
row's parameter names and ``out`` (the primal result, reused where the
derivative is a function of it: exp, tanh, sqrt, ...). ``None`` marks an
argument the result does not depend on smoothly; a row whose partials are all
``None`` (floor, comparisons, ``//``) makes its result inactive. Reverse mode
emits ``arg_bar += partial * out_bar`` and forward mode
``out_dot = sum(partial * arg_dot)`` from the same row, so they cannot drift.

Non-differentiable points get a documented one-sided value, never NaN:
``abs`` and ``fabs`` have derivative +1 at 0, ``min``/``max`` give the whole
derivative to the first argument on a tie, ``hypot`` has derivative 0 at the
origin, and ``x ** y`` has derivative 0 with respect to ``y`` where ``x <= 0``.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import functools

from . import rule as shared
from .astnodes import clone
from .rule import POW_X, POW_Y, POW_Y_ARRAY, UNARY_MATH, WHERE_SIGN, Rule, row
from .rules_numpy import array_rows, numpy_rows

ROWS = [
    # Operators, named by their Python spelling.
    row("+", "a b", "1", "1"),
    row("-", "a b", "1", "-1"),
    row("*", "a b", "b", "a"),
    row("/", "a b", "1.0 / b", "-out / b"),
    Rule("**", ("x", "y"), (POW_X, POW_Y), array_partials=(POW_X, POW_Y_ARRAY)),
    Rule("%", ("a", "b"), ("1", "-math.floor(a / b)"), array_partials=("1", "-np.floor(a / b)")),
    row("//", "a b", None, None),
    row("neg", "x", "-1"),
    row("not", "x", None),
    row("~", "x", None),
    *[row(op, "a b", None, None) for op in ("&", "|", "^")],
    *[row(op, "a b", None, None) for op in ("<", "<=", ">", ">=", "==", "!=")],
    # Builtins.
    Rule("abs", ("x",), ("1.0 if x >= 0 else -1.0",), array_partials=(WHERE_SIGN,)),
    row("min", "a b", "1.0 if a <= b else 0.0", "0.0 if a <= b else 1.0"),
    row("max", "a b", "1.0 if a >= b else 0.0", "0.0 if a >= b else 1.0"),
    row("float", "x", "1"),
    row("int", "x", None),
    row("bool", "x", None),
    Rule("round", ("x", "ndigits"), (None, None), min_args=1),
    row("len", "x", None),
    Rule("range", ("a", "b", "c"), (None, None, None), min_args=1),
    # The math module.
    *[row(f"math.{name}", "x", d) for name, d in UNARY_MATH.items()],
    row("math.lgamma", "x", "digamma(x)"),
    row("log_gamma", "x", "digamma_of_each(x)"),  # math.lgamma of an array too (special_arrays.py)
    row("erf_of_each", "x", f"{shared.TWO_OVER_SQRT_PI} * np.exp(-x * x)"),  # and of arrays
    row("erfc_of_each", "x", f"-{shared.TWO_OVER_SQRT_PI} * np.exp(-x * x)"),
    row("math.gamma", "x", "out * digamma(x)"),
    row("math.atan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"),
    row("math.hypot", "x y", "x / out if out > 0 else 0.0", "y / out if out > 0 else 0.0"),
    row("math.pow", "x y", POW_X, POW_Y),
    row("math.radians", "x", shared.RADIANS_PER_DEGREE),
    row("math.degrees", "x", shared.DEGREES_PER_RADIAN),
    row("math.copysign", "x y", "math.copysign(1.0, x) * math.copysign(1.0, y)", None),
]


def _join_rows() -> list[Rule]:
    from .joins import rows  # joins' derivatives are not templates: see sourcediff.joins

    return rows()


TABLE: dict[str, Rule] = {
    rule.name: dataclasses.replace(rule, strong_zero=shared.STRONG_ZERO.get(rule.name, ""))
    for rule in ROWS + numpy_rows() + array_rows() + _join_rows()
}


def times_seed(partial: ast.expr, seed: ast.expr) -> ast.expr:
    """A partial derivative times the seed it scales (``out_bar`` or ``arg_dot``): a
    reciprocal partial ``1.0 / b`` divides instead, one rounding for two, as a hand
    adjoint writes it.

    >>> ast.unparse(times_seed(ast.parse("1.0 / b", mode="eval").body, _template("g")))
    'g / b'
    >>> ast.unparse(times_seed(ast.parse("-out / b", mode="eval").body, _template("g")))
    '-out / b * g'
    """
    if (
        isinstance(partial, ast.BinOp)
        and isinstance(partial.op, ast.Div)
        and isinstance(partial.left, ast.Constant)
        and partial.left.value == 1.0
        and type(partial.left.value) is float
    ):
        return ast.BinOp(seed, ast.Div(), partial.right)
    return ast.BinOp(partial, ast.Mult(), seed)


def strong_zero_applies(rule: Rule, holes: dict[str, ast.expr], of_array: bool) -> bool:
    """Whether ``rule``'s contributions need a zero-cotangent select on this call;
    ``of_array``: the call computes an array, or one element of an array operation
    (a loop ``normalize/scalarize.py`` fused, ``stmt.of_array``).

    A power with a constant exponent that is 0 or at least 1 has a bounded partial.
    """
    if not rule.strong_zero or (rule.strong_zero == "arrays" and not of_array):
        return False
    exponent = holes.get("y") if rule.name in ("**", "np.power") else None
    if isinstance(exponent, ast.Constant) and isinstance(exponent.value, (int, float)):
        return 0 < exponent.value < 1 or exponent.value < 0
    return True


def zero_where_no_change(expr: ast.expr, change: ast.expr, array_result: bool) -> ast.expr:
    """``expr`` where the cotangent or tangent ``change`` is nonzero, else exactly 0.0.

    >>> print(ast.unparse(zero_where_no_change(ast.parse("0.5 / r * r_bar", mode="eval").body,
    ...                                        ast.Name("r_bar"), False)))
    0.5 / r * r_bar if r_bar != 0.0 else 0.0
    """
    nonzero = ast.Compare(clone(change), [ast.NotEq()], [ast.Constant(0.0)])
    if array_result:
        where = ast.Attribute(ast.Name("np", ast.Load()), "where", ast.Load())
        return ast.Call(where, [nonzero, expr, ast.Constant(0.0)], [])
    return ast.IfExp(nonzero, expr, ast.Constant(0.0))


# Names a template may use besides its row's parameters and ``out``: ``g`` (the result's
# adjoint) in ``adjoints``, ``tangent`` in ``tangents``, modules, and the runtime helpers.
TEMPLATE_MODULES = {"math", "np"}
TEMPLATE_FUNCTIONS = {"dot", "dot_adjoint_left", "dot_adjoint_right", "first_extreme_mask"}
TEMPLATE_FUNCTIONS |= {"digamma", "prod_adjoint", "linalg_solve", "linalg_inv", "linalg_det"}
TEMPLATE_FUNCTIONS |= {"det_cofactors"}
TEMPLATE_FUNCTIONS |= {"linalg_cholesky", "cholesky_adjoint", "cholesky_tangent", "diag_adjoint"}
TEMPLATE_FUNCTIONS |= {"extreme_mask_along", "diff_adjoint", "diag_offset", "diag_offset_adjoint"}
TEMPLATE_FUNCTIONS |= {"literal_buffer", "digamma_of_each", "eigvalsh_adjoint", "eigvalsh_tangent"}
TEMPLATE_FUNCTIONS |= {"eigh_vectors_adjoint", "eigh_vectors_tangent"}
TEMPLATE_FUNCTIONS |= {"linalg_slogdet_sign", "linalg_slogdet_logabs"}
TEMPLATE_FUNCTIONS |= {"covariance", "covariance_adjoint", "covariance_tangent"}
TEMPLATE_FUNCTIONS |= {"sort_adjoint", "sort_tangent"}
TEMPLATE_FUNCTIONS |= {"prod_along_adjoint", "cumprod_adjoint", "cumprod_tangent", "flattened_copy"}
TEMPLATE_FUNCTIONS |= {"grow_list", "as_vector", "as_vector_adjoint"}
TEMPLATE_FUNCTIONS |= {"interp_adjoint_x", "interp_adjoint_xp", "interp_adjoint_fp"}
TEMPLATE_FUNCTIONS |= {"cumsum_along", "cumsum_along_adjoint", "cumprod_along_adjoint"}
TEMPLATE_FUNCTIONS |= {"cumprod_along_tangent", "expand_axis", "roll_along", "sum_to"}
TEMPLATE_FUNCTIONS |= {"interp_tangent_xp", "matmul", "matmul_adjoint_left", "matmul_adjoint_right"}


def template_errors(rule: Rule) -> list[str]:
    """What is wrong with ``rule``'s templates: names that are neither holes nor known."""
    kinds = [("partials", rule.partials, set()), ("array_partials", rule.array_partials, set())]
    kinds += [("adjoints", rule.adjoints, {"g"}), ("tangents", rule.tangents, {"tangent"})]
    errors = []
    for kind, templates, extra in kinds:
        allowed = set(rule.params) | {"out"} | extra | TEMPLATE_MODULES
        for template in templates or ():
            if template is None:
                continue
            tree = ast.parse(template, mode="eval")
            called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id not in allowed:
                    if id(node) in called and node.id in TEMPLATE_FUNCTIONS:
                        continue
                    errors.append(f"{rule.name} {kind}: '{node.id}' in {template!r}")
    return errors


def _validate(table: dict[str, Rule]) -> None:
    """Refuse to load a table whose templates read names no statement can supply."""
    errors = [error for rule in table.values() for error in template_errors(rule)]
    if errors:
        raise ImportError("invalid derivative templates: " + "; ".join(errors))


_validate(TABLE)

BINOP_NAMES = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
    ast.Mod: "%",
    ast.FloorDiv: "//",
    ast.BitAnd: "&",  # on bools and masks (and ints): no derivative
    ast.BitOr: "|",
    ast.BitXor: "^",
}
COMPARE_NAMES = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}


_CUSTOM: contextvars.ContextVar[tuple[tuple[str, Rule], ...]] = contextvars.ContextVar(
    "custom", default=()
)


@contextlib.contextmanager
def custom_rules(rows: dict[str, Rule]):
    """Add the user's rows (``sd.custom_vjp``/``custom_jvp``) to the table for one build."""
    token = _CUSTOM.set(tuple(rows.items()) + _CUSTOM.get())
    try:
        yield
    finally:
        _CUSTOM.reset(token)


def rule_functions() -> set[str]:
    """The functions the adjoint templates of this build's user rows call first (a
    ``sd.custom_vjp``'s ``bwd``, an outlined helper's vjp): pure, so one call may serve
    every argument's term (``transform/rule_calls.py``)."""
    found = set()
    for _, rule in _CUSTOM.get():
        for template in rule.adjoints or ():
            node = ast.parse(template, mode="eval").body if template else None
            while isinstance(node, ast.Subscript):
                node = node.value
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found.add(node.func.id)
    return found


def lookup(name: str) -> Rule | None:
    """The rule for ``name`` ('math.sin', '+', 'neg', ...), or None if there is none."""
    for custom_name, rule in _CUSTOM.get():
        if custom_name == name:
            return rule
    return TABLE.get(name)


def rule_name(expr: ast.expr) -> str:
    """The table key of a normalized right-hand side, '' for atoms and copies."""
    if isinstance(expr, ast.BinOp):
        return BINOP_NAMES.get(type(expr.op), "")
    if isinstance(expr, ast.UnaryOp):
        return {ast.USub: "neg", ast.Not: "not", ast.Invert: "~"}.get(type(expr.op), "")
    if isinstance(expr, ast.Compare):
        return COMPARE_NAMES.get(type(expr.ops[0]), "")
    if isinstance(expr, ast.Call):
        return call_path(expr.func)
    return ""


def call_path(func: ast.expr) -> str:
    """'math.sin' for ``math.sin``, 'abs' for ``abs``."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    if isinstance(func, ast.Name):
        return func.id
    return ""


def operands(expr: ast.expr) -> list[ast.expr]:
    """The atoms a normalized right-hand side reads, in the rule's parameter order."""
    if isinstance(expr, ast.BinOp):
        return [expr.left, expr.right]
    if isinstance(expr, ast.UnaryOp):
        return [expr.operand]
    if isinstance(expr, ast.Compare):
        return [expr.left, expr.comparators[0]]
    if isinstance(expr, ast.Call):
        return list(expr.args) + [kw.value for kw in expr.keywords]
    return [expr]


@functools.cache
def _template(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def instantiate(template: str, holes: dict[str, ast.expr]) -> ast.expr:
    """The template's expression with each hole name replaced by a copy of its value.

    Only the rule's own hole names are replaced, so a user variable that happens
    to share a name with something in the template can never be captured.
    """

    class Fill(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return clone(holes[node.id]) if node.id in holes else node

    return _decide_none_tests(Fill().visit(clone(_template(template))))


def _decide_none_tests(expr: ast.expr) -> ast.expr:
    """``expr`` with each ``v is None`` a template asks of a hole decided where the hole's
    value says: a variable of generated code is never None (options bound to None are
    constants by then), so ``g if axis is None else expand_axis(g, axis)`` with a
    variable ``axis`` is the ``else`` branch alone, which Numba can type.

    >>> holes = {"g": ast.Name("g_bar"), "axis": ast.Name("k")}
    >>> print(ast.unparse(instantiate("g if axis is None else expand_axis(g, axis)", holes)))
    expand_axis(g_bar, k)
    """

    class Decide(ast.NodeTransformer):
        def visit_Compare(self, node: ast.Compare) -> ast.expr:
            self.generic_visit(node)
            left, ops, right = node.left, node.ops, node.comparators
            if not (len(ops) == 1 and isinstance(ops[0], (ast.Is, ast.IsNot))):
                return node
            if not (isinstance(right[0], ast.Constant) and right[0].value is None):
                return node
            if not isinstance(left, (ast.Constant, ast.Name)):
                return node
            is_none = isinstance(left, ast.Constant) and left.value is None
            return ast.Constant(is_none if isinstance(ops[0], ast.Is) else not is_none)

        def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
            self.generic_visit(node)
            if isinstance(node.test, ast.Constant) and isinstance(node.test.value, bool):
                return node.body if node.test.value else node.orelse
            return node

    return Decide().visit(expr)

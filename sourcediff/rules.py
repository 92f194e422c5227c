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
import copy
import functools
from dataclasses import dataclass

LN2 = "0.6931471805599453"
WHERE_SIGN_ARRAY = "np.where(x >= 0, 1.0, -1.0)"
LN10 = "2.302585092994046"
TWO_OVER_SQRT_PI = "1.1283791670955126"


@dataclass(frozen=True)
class Rule:
    """Partial derivatives of one primitive: ``partials[k]`` is d out / d ``params[k]``.

    ``adjoints``, when given, replaces ``partial * g`` for functions whose
    adjoint is not a product, such as reductions: ``np.sum(x)`` has adjoint
    ``g`` (broadcast back over ``x``); ``tangents`` then gives forward mode's
    contribution of each argument in terms of its tangent ``tangent``.
    ``min_args`` allows trailing optional parameters (array constructors).
    """

    name: str
    params: tuple[str, ...]
    partials: tuple[str | None, ...]
    adjoints: tuple[str | None, ...] | None = None
    tangents: tuple[str | None, ...] | None = None
    array_partials: tuple[str | None, ...] | None = None
    min_args: int = -1
    # User rules (sourcediff.custom): why a mode cannot use the row, when it cannot.
    forward_refusal: str = ""
    scalar_adjoints_only: str = ""

    def partials_for(self, array_result: bool) -> tuple[str | None, ...]:
        """The partials to use: array-safe ones (no ``if``) when the result is an array."""
        return self.array_partials if array_result and self.array_partials else self.partials

    def __post_init__(self):
        if self.min_args < 0:
            object.__setattr__(self, "min_args", len(self.params))

    @property
    def differentiable(self) -> bool:
        """Whether any argument can carry a derivative to the result."""
        return any(p is not None for p in self.partials)


def _row(name: str, params: str, *partials: str | None) -> Rule:
    return Rule(name, tuple(params.split()), partials)


_UNARY_MATH = {
    "sin": "math.cos(x)",
    "cos": "-math.sin(x)",
    "tan": "1.0 + out * out",
    "asin": "1.0 / math.sqrt(1.0 - x * x)",
    "acos": "-1.0 / math.sqrt(1.0 - x * x)",
    "atan": "1.0 / (1.0 + x * x)",
    "sinh": "math.cosh(x)",
    "cosh": "math.sinh(x)",
    "tanh": "1.0 - out * out",
    "exp": "out",
    "expm1": "out + 1.0",
    "log": "1.0 / x",
    "log1p": "1.0 / (1.0 + x)",
    "log2": f"1.0 / (x * {LN2})",
    "log10": f"1.0 / (x * {LN10})",
    "sqrt": "0.5 / out",
    "erf": f"{TWO_OVER_SQRT_PI} * math.exp(-x * x)",
    "erfc": f"-{TWO_OVER_SQRT_PI} * math.exp(-x * x)",
    "fabs": "1.0 if x >= 0 else -1.0",
    "floor": None,
    "ceil": None,
    "trunc": None,
}

POW_X = "y * x ** (y - 1)"
POW_Y = "out * math.log(x) if x > 0 else 0.0"
POW_Y_ARRAY = "np.where(x > 0, out * np.log(np.where(x > 0, x, 1.0)), 0.0)"

ROWS = [
    # Operators, named by their Python spelling.
    _row("+", "a b", "1", "1"),
    _row("-", "a b", "1", "-1"),
    _row("*", "a b", "b", "a"),
    _row("/", "a b", "1.0 / b", "-out / b"),
    Rule("**", ("x", "y"), (POW_X, POW_Y), array_partials=(POW_X, POW_Y_ARRAY)),
    Rule("%", ("a", "b"), ("1", "-math.floor(a / b)"), array_partials=("1", "-np.floor(a / b)")),
    _row("//", "a b", None, None),
    _row("neg", "x", "-1"),
    _row("not", "x", None),
    *[_row(op, "a b", None, None) for op in ("<", "<=", ">", ">=", "==", "!=")],
    # Builtins.
    Rule("abs", ("x",), ("1.0 if x >= 0 else -1.0",), array_partials=(WHERE_SIGN_ARRAY,)),
    _row("min", "a b", "1.0 if a <= b else 0.0", "0.0 if a <= b else 1.0"),
    _row("max", "a b", "1.0 if a >= b else 0.0", "0.0 if a >= b else 1.0"),
    _row("float", "x", "1"),
    _row("int", "x", None),
    _row("bool", "x", None),
    _row("round", "x", None),
    _row("len", "x", None),
    Rule("range", ("a", "b", "c"), (None, None, None), min_args=1),
    # The math module.
    *[_row(f"math.{name}", "x", d) for name, d in _UNARY_MATH.items()],
    _row("math.lgamma", "x", "digamma(x)"),
    _row("math.gamma", "x", "out * digamma(x)"),
    _row("math.atan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"),
    _row("math.hypot", "x y", "x / out if out > 0 else 0.0", "y / out if out > 0 else 0.0"),
    _row("math.pow", "x y", POW_X, POW_Y),
    _row("math.copysign", "x y", "math.copysign(1.0, x) * math.copysign(1.0, y)", None),
]


def _numpy_template(partial: str | None) -> str | None:
    return partial.replace("math.", "np.") if partial else partial


WHERE_SIGN = "np.where(x >= 0, 1.0, -1.0)"


def _numpy_rows() -> list[Rule]:
    """NumPy functions, on scalars and (elementwise) on arrays."""
    rows = []
    names = {name: name for name in _UNARY_MATH if name not in ("erf", "erfc", "fabs")}
    names |= {"arcsin": "asin", "arccos": "acos", "arctan": "atan"}
    names.pop("asin"), names.pop("acos"), names.pop("atan")
    for np_name, math_name in names.items():
        rows.append(_row(f"np.{np_name}", "x", _numpy_template(_UNARY_MATH[math_name])))
    for np_name in ("abs", "absolute", "fabs"):
        rows.append(
            Rule(f"np.{np_name}", ("x",), (_UNARY_MATH["fabs"],), array_partials=(WHERE_SIGN,))
        )
    rows.append(_row("np.arctan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"))
    rows.append(_row("np.square", "x", "2.0 * x"))
    rows.append(_row("np.negative", "x", "-1"))
    # NumPy's spellings of the arithmetic operators: the same rows as + - * /.
    rows.append(_row("np.add", "a b", "1", "1"))
    rows.append(_row("np.subtract", "a b", "1", "-1"))
    rows.append(_row("np.multiply", "a b", "b", "a"))
    for name in ("divide", "true_divide"):
        rows.append(_row(f"np.{name}", "a b", "1.0 / b", "-out / b"))
    rows.append(
        Rule(
            "np.hypot",
            ("x", "y"),
            ("x / out if out > 0 else 0.0", "y / out if out > 0 else 0.0"),
            array_partials=("np.where(out > 0, x / out, 0.0)", "np.where(out > 0, y / out, 0.0)"),
        )
    )
    rows.append(Rule("np.power", ("x", "y"), (POW_X, POW_Y), array_partials=(POW_X, POW_Y_ARRAY)))
    rows.append(
        Rule(
            "np.maximum",
            ("a", "b"),
            ("1.0 if a >= b else 0.0", "0.0 if a >= b else 1.0"),
            array_partials=("np.where(a >= b, 1.0, 0.0)", "np.where(a >= b, 0.0, 1.0)"),
        )
    )
    rows.append(
        Rule(
            "np.minimum",
            ("a", "b"),
            ("1.0 if a <= b else 0.0", "0.0 if a <= b else 1.0"),
            array_partials=("np.where(a <= b, 1.0, 0.0)", "np.where(a <= b, 0.0, 1.0)"),
        )
    )
    rows.append(
        Rule(
            "np.where",
            ("c", "a", "b"),
            (None, "1.0 if c else 0.0", "0.0 if c else 1.0"),
            array_partials=(None, "np.where(c, 1.0, 0.0)", "np.where(c, 0.0, 1.0)"),
        )
    )
    rows.append(
        Rule(
            "np.clip",
            ("x", "lo", "hi"),
            (
                "1.0 if lo <= x <= hi else 0.0",
                "1.0 if x < lo else 0.0",
                "1.0 if x > hi else 0.0",
            ),
            array_partials=(
                "np.where((x >= lo) & (x <= hi), 1.0, 0.0)",
                "np.where(x < lo, 1.0, 0.0)",
                "np.where(x > hi, 1.0, 0.0)",
            ),
        )
    )
    for name in ("floor", "ceil", "trunc", "round", "sign", "logical_not", "isnan", "isfinite"):
        rows.append(_row(f"np.{name}", "x", None))
    for name in ("logical_and", "logical_or", "logical_xor"):
        rows.append(_row(f"np.{name}", "a b", None, None))
    return rows


def _array_rows() -> list[Rule]:
    """Array constructors (fresh, no derivative) and whole-array functions."""
    fresh = [
        "zeros",
        "ones",
        "empty",
        "zeros_like",
        "ones_like",
        "empty_like",
    ]
    fresh += ["eye", "identity"]
    rows = [Rule(f"np.{name}", ("a", "dtype"), (None, None), min_args=1) for name in fresh]
    # np.arange(start, stop, step) (flatten always passes all three): start + k * step.
    rows.append(
        Rule(
            "np.arange",
            ("start", "stop", "step"),
            ("1", None, "1"),
            adjoints=("np.sum(g)", None, "np.sum(g * np.arange(0, out.size, 1))"),
            tangents=("tangent + 0.0 * out", None, "tangent * np.arange(0, out.size, 1)"),
        )
    )
    # np.linspace(a, b, n): a + (b - a) * k / (n - 1).
    rows.append(
        Rule(
            "np.linspace",
            ("a", "b", "n"),
            ("1", "1", None),
            adjoints=(
                "np.sum(g * (1.0 - np.linspace(0.0, 1.0, out.size)))",
                "np.sum(g * np.linspace(0.0, 1.0, out.size))",
                None,
            ),
            tangents=(
                "tangent * (1.0 - np.linspace(0.0, 1.0, out.size))",
                "tangent * np.linspace(0.0, 1.0, out.size)",
                None,
            ),
        )
    )
    rows.append(
        Rule(
            "np.full",
            ("shape", "v", "dtype"),
            (None, "1", None),
            adjoints=(None, "np.sum(g)", None),
            tangents=(None, "np.full(shape, tangent)", None),
            min_args=2,
        )
    )
    rows.append(Rule("np.copy", ("x",), ("1",)))
    rows.append(
        Rule(
            "np.sum",
            ("x", "axis"),
            ("1", None),
            adjoints=(SUM_ADJOINT, None),
            tangents=("np.sum(tangent) if axis is None else np.sum(tangent, axis=axis)", None),
            min_args=1,
        )
    )
    rows.append(
        Rule(
            "np.mean",
            ("x", "axis"),
            ("1", None),
            adjoints=(MEAN_ADJOINT, None),
            tangents=("np.mean(tangent)", None),
            min_args=1,
        )
    )
    rows.append(
        Rule(
            "np.prod",
            ("x",),
            ("1",),
            adjoints=("prod_adjoint(x, g)",),  # exact where elements are 0
            tangents=("np.sum(prod_adjoint(x, 1.0) * tangent)",),
        )
    )
    rows.append(
        Rule(
            "np.var",
            ("x",),
            ("1",),
            adjoints=("2.0 * (x - np.mean(x)) / x.size * g",),
            tangents=("2.0 * np.sum((x - np.mean(x)) * tangent) / x.size",),
        )
    )
    rows.append(
        Rule(
            "np.std",
            ("x",),
            ("1",),
            adjoints=("(x - np.mean(x)) / (x.size * out) * g if out > 0 else 0.0 * x",),
            tangents=("np.sum((x - np.mean(x)) * tangent) / (x.size * out) if out > 0 else 0.0",),
        )
    )
    rows.append(
        Rule(
            "np.trace",
            ("A",),
            ("1",),
            adjoints=("g * np.eye(A.shape[0], A.shape[1])",),
            tangents=("np.trace(tangent)",),
        )
    )
    rows.append(
        Rule(
            "np.diff",
            ("x",),
            ("1",),
            adjoints=("diff_adjoint(g, x)",),
            tangents=("np.diff(tangent)",),
        )
    )
    rows.append(
        Rule("np.flip", ("x",), ("1",), adjoints=("np.flip(g)",), tangents=("np.flip(tangent)",))
    )
    extreme = ("first_extreme_mask(x, out) * g",)
    extreme_tangent = ("np.sum(first_extreme_mask(x, out) * tangent)",)
    rows.append(Rule("np.max", ("x",), ("1",), adjoints=extreme, tangents=extreme_tangent))
    rows.append(Rule("np.min", ("x",), ("1",), adjoints=extreme, tangents=extreme_tangent))
    # np.max(x, axis=k), spelled max_along(x, k): Numba has no axis= for np.max.
    along = ("extreme_mask_along(x, out, axis) * np.expand_dims(g, axis)", None)
    along_tangent = ("np.sum(extreme_mask_along(x, out, axis) * tangent, axis=axis)", None)
    for name in ("max_along", "min_along"):
        rows.append(Rule(name, ("x", "axis"), ("1", None), along, along_tangent))
    rows.append(
        Rule(
            "np.cumsum",
            ("x",),
            ("1",),
            adjoints=("np.cumsum(g[::-1])[::-1]",),
            tangents=("np.cumsum(tangent)",),
        )
    )
    rows.append(
        Rule(
            "dot",
            ("a", "b"),
            ("1", "1"),
            adjoints=(DOT_LEFT, DOT_RIGHT),
            tangents=("dot(tangent, b)", "dot(a, tangent)"),
        )
    )
    rows.append(
        Rule(
            "np.outer",
            ("a", "b"),
            ("1", "1"),
            adjoints=("dot(g, b)", "dot(a, g)"),
            tangents=("np.outer(tangent, b)", "np.outer(a, tangent)"),
        )
    )
    rows.append(
        Rule(
            "norm",
            ("x",),
            ("1",),
            adjoints=("x / out * g if out > 0 else 0.0 * x",),
            tangents=("np.sum(x * tangent) / out if out > 0 else 0.0",),
        )
    )
    rows += _linalg_rows()
    rows.append(
        Rule(
            "np.transpose",
            ("x",),
            ("1",),
            adjoints=("np.transpose(g)",),
            tangents=("np.transpose(tangent)",),
        )
    )
    rows.append(
        Rule(
            "np.expand_dims",
            ("x", "axis"),
            ("1", None),
            adjoints=(RESHAPE_BACK, None),
            tangents=("np.expand_dims(tangent, axis)", None),
        )
    )
    rows.append(
        Rule("np.ravel", ("x",), ("1",), adjoints=(RESHAPE_BACK,), tangents=("np.ravel(tangent)",))
    )
    rows.append(
        Rule(
            "np.reshape",
            ("x", "shape"),
            ("1", None),
            adjoints=(RESHAPE_BACK, None),
            tangents=("np.reshape(np.ascontiguousarray(tangent), shape)", None),
        )
    )
    return rows


def _linalg_rows() -> list[Rule]:
    """Linear algebra (LAPACK through NumPy, SciPy's under Numba): X = solve(A, B) has
    B_bar = solve(A.T, G) and A_bar = -B_bar X.T; inv and det by the inverse transpose."""
    solved = "linalg_solve(np.transpose(A), g)"
    return [
        Rule(
            "linalg_solve",
            ("A", "B"),
            ("1", "1"),
            adjoints=(f"-dot_adjoint_left({solved}, A, out)", solved),
            tangents=("-linalg_solve(A, dot(tangent, out))", "linalg_solve(A, tangent)"),
        ),
        Rule(
            "linalg_inv",
            ("A",),
            ("1",),
            adjoints=("-dot(dot(np.transpose(out), g), np.transpose(out))",),
            tangents=("-dot(dot(out, tangent), out)",),
        ),
        Rule(
            "linalg_det",
            ("A",),
            ("1",),
            adjoints=("g * out * np.transpose(linalg_inv(A))",),
            tangents=("out * np.sum(np.transpose(linalg_inv(A)) * tangent)",),
        ),
    ]


SUM_ADJOINT = "g if axis is None else np.expand_dims(g, axis)"
MEAN_ADJOINT = "g / x.size if axis is None else np.expand_dims(g, axis) / x.shape[axis]"
DOT_LEFT = "dot_adjoint_left(g, a, b)"
DOT_RIGHT = "dot_adjoint_right(g, a, b)"
RESHAPE_BACK = "np.reshape(np.ascontiguousarray(g), x.shape)"


def _join_rows() -> list[Rule]:
    from .joins import rows  # joins' derivatives are not templates: see sourcediff.joins

    return rows()


TABLE: dict[str, Rule] = {
    rule.name: rule for rule in ROWS + _numpy_rows() + _array_rows() + _join_rows()
}

# Names a template may use besides its row's parameters and ``out``: ``g`` (the result's
# adjoint) in ``adjoints``, ``tangent`` in ``tangents``, modules, and the runtime helpers.
TEMPLATE_MODULES = {"math", "np"}
TEMPLATE_FUNCTIONS = {"dot", "dot_adjoint_left", "dot_adjoint_right", "first_extreme_mask"}
TEMPLATE_FUNCTIONS |= {"digamma", "prod_adjoint", "linalg_solve", "linalg_inv", "linalg_det"}
TEMPLATE_FUNCTIONS |= {"extreme_mask_along", "diff_adjoint"}


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
        return {ast.USub: "neg", ast.Not: "not"}.get(type(expr.op), "")
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
            return copy.deepcopy(holes[node.id]) if node.id in holes else node

    return Fill().visit(copy.deepcopy(_template(template)))

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
import copy
import functools
from dataclasses import dataclass

LN2 = "0.6931471805599453"
LN10 = "2.302585092994046"
TWO_OVER_SQRT_PI = "1.1283791670955126"


@dataclass(frozen=True)
class Rule:
    """Partial derivatives of one primitive: ``partials[k]`` is d out / d ``params[k]``.

    ``adjoints``, when given, replaces ``partial * g`` for functions whose
    adjoint is not a product, such as reductions: ``np.sum(x)`` has adjoint
    ``g`` (broadcast back over ``x``). ``min_args`` allows trailing optional
    parameters (array constructors).
    """

    name: str
    params: tuple[str, ...]
    partials: tuple[str | None, ...]
    adjoints: tuple[str | None, ...] | None = None
    min_args: int = -1

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

_NUMPY_SCALAR = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "abs": "fabs",
    "absolute": "fabs",
}

POW_X = "y * x ** (y - 1)"
POW_Y = "out * math.log(x) if x > 0 else 0.0"

ROWS = [
    # Operators, named by their Python spelling.
    _row("+", "a b", "1", "1"),
    _row("-", "a b", "1", "-1"),
    _row("*", "a b", "b", "a"),
    _row("/", "a b", "1.0 / b", "-out / b"),
    _row("**", "x y", POW_X, POW_Y),
    _row("%", "a b", "1", "-math.floor(a / b)"),
    _row("//", "a b", None, None),
    _row("neg", "x", "-1"),
    _row("not", "x", None),
    *[_row(op, "a b", None, None) for op in ("<", "<=", ">", ">=", "==", "!=")],
    # Builtins.
    _row("abs", "x", "1.0 if x >= 0 else -1.0"),
    _row("min", "a b", "1.0 if a <= b else 0.0", "0.0 if a <= b else 1.0"),
    _row("max", "a b", "1.0 if a >= b else 0.0", "0.0 if a >= b else 1.0"),
    _row("float", "x", "1"),
    _row("int", "x", None),
    _row("bool", "x", None),
    _row("round", "x", None),
    _row("len", "x", None),
    # The math module.
    *[_row(f"math.{name}", "x", d) for name, d in _UNARY_MATH.items()],
    _row("math.atan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"),
    _row("math.hypot", "x y", "x / out if out > 0 else 0.0", "y / out if out > 0 else 0.0"),
    _row("math.pow", "x y", POW_X, POW_Y),
    _row("math.copysign", "x y", "math.copysign(1.0, x) * math.copysign(1.0, y)", None),
    _row("math.fmod", "a b", "1", "-math.trunc(a / b)"),
    # NumPy functions applied to scalars.
    *[_row(f"np.{name}", "x", d) for name, d in _UNARY_MATH.items() if name in ("sin", "cos")],
]


def _numpy_rows() -> list[Rule]:
    rows = []
    names = {name: name for name in _UNARY_MATH} | _NUMPY_SCALAR
    for np_name, math_name in names.items():
        if math_name in ("erf", "erfc", "fabs", "asin", "acos", "atan") and np_name == math_name:
            continue
        partial = _UNARY_MATH[math_name]
        rows.append(_row(f"np.{np_name}", "x", partial))
    rows.append(_row("np.arctan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"))
    rows.append(
        _row("np.hypot", "x y", "x / out if out > 0 else 0.0", "y / out if out > 0 else 0.0")
    )
    rows.append(_row("np.power", "x y", POW_X, POW_Y))
    return rows


def _array_rows() -> list[Rule]:
    """Array constructors (fresh, no derivative) and whole-array functions."""
    fresh = ["zeros", "ones", "empty", "zeros_like", "ones_like", "empty_like", "arange", "linspace"]
    rows = [Rule(f"np.{name}", ("a", "b", "c"), (None, None, None), min_args=1) for name in fresh]
    rows.append(Rule("np.full", ("shape", "v"), (None, "1"), adjoints=(None, "np.sum(g)")))
    rows.append(Rule("np.copy", ("x",), ("1",)))
    rows.append(Rule("np.sum", ("x",), ("1",), adjoints=("g",)))
    return rows


TABLE: dict[str, Rule] = {rule.name: rule for rule in ROWS + _numpy_rows() + _array_rows()}

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


def lookup(name: str) -> Rule | None:
    """The rule for ``name`` ('math.sin', '+', 'neg', ...), or None if there is none."""
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
        return list(expr.args)
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

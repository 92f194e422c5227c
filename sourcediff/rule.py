"""A row of the derivative table: the partials (and, where no product fits, the adjoint and
tangent templates) of one primitive, with the shared templates rows are written from.

``sourcediff.rules`` assembles the table from the scalar rows there and the NumPy rows
in ``sourcediff.rules_numpy``; the two modules never disagree on how a row reads.
"""

from __future__ import annotations

from dataclasses import dataclass

LN2 = "0.6931471805599453"
WHERE_SIGN = "np.where(x >= 0, 1.0, -1.0)"  # the array form of abs's partial
LN10 = "2.302585092994046"
TWO_OVER_SQRT_PI = "1.1283791670955126"
RADIANS_PER_DEGREE = "0.017453292519943295"
DEGREES_PER_RADIAN = "57.29577951308232"


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
    # A custom_jvp row: each adjoint is the tangent along one (float) argument times
    # ``g``, summed over the elements of an array result.
    summed_over_result: bool = False
    # "always" or "arrays": some partial is infinite (or NaN) at a finite input, as sqrt's
    # at 0, so a zero cotangent or tangent must contribute exactly 0, not 0 * inf = NaN
    # (Enzyme's "strong zero"); see ``strong_zero_applies`` in sourcediff.rules.
    strong_zero: str = ""

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


# Rows whose partial is unbounded at a finite input, and on which results: a masked pairwise
# distance's self-distance ``np.sqrt(0.0)`` that nothing reads, ``np.where(x > 0, np.log(x),
# 0.0)``, ``np.where(d != 0, 1.0 / d, 0.0)``. Scalar division and powers are left out: their
# scalar form raises or is guarded by a branch in code as people write it, and a select on
# every scalar quotient would cost readability for nothing.
def numpy_spelling(math_name: str) -> str:
    """NumPy's name for a ``math`` function: ``np.arcsin`` for ``asin``, ``np.log`` for ``log``."""
    inverse = math_name.startswith("a") and math_name != "abs"
    return f"np.arc{math_name[1:]}" if inverse else f"np.{math_name}"


_UNBOUNDED_UNARY = ("sqrt", "log", "log1p", "log2", "log10", "asin", "acos", "atanh", "acosh")
STRONG_ZERO = {f"math.{name}": "always" for name in _UNBOUNDED_UNARY}
STRONG_ZERO |= {numpy_spelling(name): "always" for name in _UNBOUNDED_UNARY}
STRONG_ZERO |= {"np.cbrt": "always"}
STRONG_ZERO |= {name: "arrays" for name in ("/", "np.divide", "np.true_divide", "np.reciprocal")}
STRONG_ZERO |= {name: "arrays" for name in ("**", "np.power")}


def row(name: str, params: str, *partials: str | None) -> Rule:
    return Rule(name, tuple(params.split()), partials)


UNARY_MATH = {
    "sin": "math.cos(x)",
    "cos": "-math.sin(x)",
    "tan": "1.0 + out * out",
    "asin": "1.0 / math.sqrt(1.0 - x * x)",
    "acos": "-1.0 / math.sqrt(1.0 - x * x)",
    "atan": "1.0 / (1.0 + x * x)",
    "sinh": "math.cosh(x)",
    "cosh": "math.sinh(x)",
    "tanh": "1.0 - out * out",
    "asinh": "1.0 / math.sqrt(x * x + 1.0)",
    "acosh": "1.0 / math.sqrt(x * x - 1.0)",
    "atanh": "1.0 / (1.0 - x * x)",
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

# ``y - 1 + (y == 0)``: the exponent ``y - 1``, but 0 for ``y == 0``, whose partial is
# ``0 * x ** 0 = 0`` (JAX's choice), not ``0 * 0.0 ** -1``: no division by zero at x = 0,
# and the rule differentiated again (Hessians) meets the same guard at ``y == 1``.
POW_X = "y * x ** (y - 1 + (y == 0))"
POW_Y = "out * math.log(x) if x > 0 else 0.0"
POW_Y_ARRAY = "np.where(x > 0, out * np.log(np.where(x > 0, x, 1.0)), 0.0)"

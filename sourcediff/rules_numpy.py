"""The NumPy rows of the derivative table: elementwise functions, constructors, reductions,
products, shapes and linear algebra (``sourcediff.rules`` assembles the table)."""

from __future__ import annotations

from .rule import (
    DEGREES_PER_RADIAN,
    LN2,
    POW_X,
    POW_Y,
    POW_Y_ARRAY,
    RADIANS_PER_DEGREE,
    UNARY_MATH,
    WHERE_SIGN,
    Rule,
    numpy_spelling,
    row,
)
from .rules_linalg import product_rows
from .rules_rewrites import rewrite_rows


def _numpy_template(partial: str | None) -> str | None:
    return partial.replace("math.", "np.") if partial else partial


def numpy_rows() -> list[Rule]:
    """NumPy functions, on scalars and (elementwise) on arrays."""
    rows = []
    plain = [name for name in UNARY_MATH if name not in ("erf", "erfc", "fabs")]
    names = {numpy_spelling(name)[3:]: name for name in plain}  # np.arcsin is math.asin
    for np_name, math_name in names.items():
        rows.append(row(f"np.{np_name}", "x", _numpy_template(UNARY_MATH[math_name])))
    for np_name in ("abs", "absolute", "fabs"):
        rows.append(
            Rule(f"np.{np_name}", ("x",), (UNARY_MATH["fabs"],), array_partials=(WHERE_SIGN,))
        )
    rows.append(row("np.arctan2", "y x", "x / (x * x + y * y)", "-y / (x * x + y * y)"))
    rows.append(row("np.square", "x", "2.0 * x"))
    rows.append(row("np.fmod", "x y", "1", "-np.trunc(x / y)"))  # x - trunc(x / y) * y
    rows += _more_elementwise_rows()
    rows.append(row("np.negative", "x", "-1"))
    # NumPy's spellings of the arithmetic operators: the same rows as + - * /.
    rows.append(row("np.add", "a b", "1", "1"))
    rows.append(row("np.subtract", "a b", "1", "-1"))
    rows.append(row("np.multiply", "a b", "b", "a"))
    for name in ("divide", "true_divide"):
        rows.append(row(f"np.{name}", "a b", "1.0 / b", "-out / b"))
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
    for extreme, test in (("fmax", ">="), ("fmin", "<=")):  # as maximum/minimum, NaN aside
        rows.append(
            Rule(
                f"np.{extreme}",
                ("a", "b"),
                (f"1.0 if a {test} b else 0.0", f"0.0 if a {test} b else 1.0"),
                array_partials=(
                    f"np.where(a {test} b, 1.0, 0.0)",
                    f"np.where(a {test} b, 0.0, 1.0)",
                ),
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
    for name in ("floor", "ceil", "trunc", "sign", "logical_not", "isnan", "isfinite"):
        rows.append(row(f"np.{name}", "x", None))
    for name in ("round", "around"):
        rows.append(Rule(f"np.{name}", ("x", "decimals"), (None, None), min_args=1))
    for name in ("logical_and", "logical_or", "logical_xor"):
        rows.append(row(f"np.{name}", "a b", None, None))
    sort = ("sort_adjoint(x, g)",), ("sort_tangent(x, tangent)",)
    rows.append(Rule("np.sort", ("x",), ("1",), adjoints=sort[0], tangents=sort[1]))
    rows.append(row("np.argsort", "x", None))  # integer results: indices, no derivative
    rows.append(row("np.nonzero", "x", None))  # also np.where(c): a tuple of index arrays
    rows.append(row("np.flatnonzero", "x", None))
    for name in ("argmax", "argmin"):
        rows.append(Rule(f"np.{name}", ("x", "axis"), (None, None), min_args=1))
    # Truth values, counts and insertion points: integer or boolean results.
    for name in ("any", "all", "count_nonzero"):
        rows.append(row(f"np.{name}", "x", None))
    rows.append(Rule("np.searchsorted", ("a", "v", "side"), (None, None, None), min_args=2))
    return rows


def _more_elementwise_rows() -> list[Rule]:
    """Scalings, powers of two, roots and ``logaddexp``; ``safe_sqrt`` is the square root
    of a reduction rewritten by ``normalize.reductions`` (derivative 0 at 0)."""
    rows = []
    for name, scale in [("radians", RADIANS_PER_DEGREE), ("deg2rad", RADIANS_PER_DEGREE)]:
        rows.append(row(f"np.{name}", "x", scale))
    for name, scale in [("degrees", DEGREES_PER_RADIAN), ("rad2deg", DEGREES_PER_RADIAN)]:
        rows.append(row(f"np.{name}", "x", scale))
    rows.append(row("np.exp2", "x", f"out * {LN2}"))
    rows.append(row("np.cbrt", "x", "1.0 / (3.0 * out * out)"))
    rows.append(row("np.reciprocal", "x", "-out * out"))
    rows.append(row("np.logaddexp", "a b", "np.exp(a - out)", "np.exp(b - out)"))
    root = ("0.5 / out if out > 0 else 0.0",)
    root_array = ("np.where(out > 0, 0.5 / np.where(out > 0, out, 1.0), 0.0)",)
    rows.append(Rule("safe_sqrt", ("x",), root, array_partials=root_array))
    return rows


def _constructor_rows() -> list[Rule]:
    """Array constructors: fresh arrays (no derivative), ranges and fills."""
    fresh = [
        "zeros",
        "ones",
        "empty",
        "zeros_like",
        "ones_like",
        "empty_like",
    ]
    fresh.append("identity")
    rows = [Rule(f"np.{name}", ("a", "dtype"), (None, None), min_args=1) for name in fresh]
    rows.append(Rule("np.eye", ("N", "M", "k", "dtype"), (None,) * 4, min_args=1))
    rows.append(Rule("literal_buffer", ("count", "first"), (None, None)))  # normalize/arrays.py
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
    rows.append(
        Rule(
            "np.full_like",
            ("a", "v", "dtype"),
            (None, "1", None),
            adjoints=(None, "np.sum(g)", None),
            tangents=(None, "np.full_like(a, tangent)", None),
            min_args=2,
        )
    )
    rows.append(Rule("np.copy", ("x",), ("1",)))
    return rows


def _reduction_rows() -> list[Rule]:
    """Reductions and scans: sums, means, products, moments, extremes (whole or along an axis)."""
    rows: list[Rule] = []
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
            "np.diag",
            ("x",),
            ("1",),
            adjoints=("diag_adjoint(x, g)",),
            tangents=("np.diag(tangent)",),
        )
    )
    rows.append(  # np.diag(x, k), spelled so (normalize/calls.py)
        Rule(
            "diag_offset",
            ("x", "k"),
            ("1", None),
            adjoints=("diag_offset_adjoint(x, g, k)", None),
            tangents=("diag_offset(tangent, k)", None),
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
    # np.roll(x, shift) without axis= (Numba has none): rolls the flattened array.
    roll_back, roll_on = ("np.roll(g, -shift)", None), ("np.roll(tangent, shift)", None)
    rows.append(Rule("np.roll", ("x", "shift"), ("1", None), roll_back, roll_on))
    extreme = ("first_extreme_mask(x, out) * g",)
    extreme_tangent = ("np.sum(first_extreme_mask(x, out) * tangent)",)
    rows.append(Rule("np.max", ("x",), ("1",), adjoints=extreme, tangents=extreme_tangent))
    rows.append(Rule("np.min", ("x",), ("1",), adjoints=extreme, tangents=extreme_tangent))
    # np.max(x, axis=k), spelled max_along(x, k): Numba has no axis= for np.max.
    along = ("extreme_mask_along(x, out, axis) * expand_axis(g, axis)", None)
    along_tangent = ("np.sum(extreme_mask_along(x, out, axis) * tangent, axis=axis)", None)
    for name in ("max_along", "min_along"):
        rows.append(Rule(name, ("x", "axis"), ("1", None), along, along_tangent))
    # The masks are piecewise constant: a second derivative through np.max (reverse mode
    # over the tangent above) sees no contribution from them.
    rows.append(Rule("first_extreme_mask", ("x", "extreme"), (None, None)))
    rows.append(Rule("extreme_mask_along", ("x", "extreme", "axis"), (None, None, None)))
    product_back = ("prod_along_adjoint(x, g, axis)", None)
    product_on = ("np.sum(prod_along_adjoint(x, np.ones(out.shape), axis) * tangent, axis)", None)
    rows.append(Rule("prod_along", ("x", "axis"), ("1", None), product_back, product_on))
    scan = ("cumprod_adjoint(x, g)",), ("cumprod_tangent(x, tangent)",)
    rows.append(Rule("np.cumprod", ("x",), ("1",), adjoints=scan[0], tangents=scan[1]))
    rows.append(
        Rule(
            "np.cumsum",
            ("x",),
            ("1",),
            adjoints=(
                "np.reshape(np.ascontiguousarray(np.cumsum(np.ravel(g)[::-1])[::-1]), x.shape)",
            ),
            tangents=("np.cumsum(tangent)",),
        )
    )
    return rows


def _shape_rows() -> list[Rule]:
    """Transposes, new axes and reshapes: the adjoint undoes the change of shape."""
    rows: list[Rule] = []
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
    # Forward mode writes a broadcast operand's tangent at the result's shape with it.
    spread = ("sum_to(g, x)", None), ("np.broadcast_to(tangent, shape).copy()", None)
    rows.append(Rule("np.broadcast_to", ("x", "shape"), ("1", None), spread[0], spread[1]))
    # np.expand_dims that also takes a number (a vector's reduction along its only axis).
    expanded = ("as_vector_adjoint(g, x)", None), ("expand_axis(tangent, axis)", None)
    rows.append(Rule("expand_axis", ("x", "axis"), ("1", None), expanded[0], expanded[1]))
    rows.append(
        Rule("np.ravel", ("x",), ("1",), adjoints=(RESHAPE_BACK,), tangents=("np.ravel(tangent)",))
    )
    rows.append(
        Rule(
            "flattened_copy",
            ("x",),
            ("1",),
            adjoints=(RESHAPE_BACK,),
            tangents=("flattened_copy(tangent)",),
        )
    )
    for name in ("triu", "tril"):  # the flattener always passes k
        back, on = (f"np.{name}(g, k)", None), (f"np.{name}(tangent, k)", None)
        rows.append(Rule(f"np.{name}", ("x", "k"), ("1", None), back, on))
    for rank in (1, 2, 3):  # new axes of length 1 only: the adjoint reshapes back
        name = f"np.atleast_{rank}d"
        rows.append(
            Rule(name, ("x",), ("1",), adjoints=(RESHAPE_BACK,), tangents=(f"{name}(tangent)",))
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


def array_rows() -> list[Rule]:
    """Array constructors and whole-array functions."""
    rows = _constructor_rows() + _reduction_rows() + product_rows() + _shape_rows()
    return rows + rewrite_rows()


SUM_ADJOINT = "g if axis is None else expand_axis(g, axis)"
MEAN_ADJOINT = "g / x.size if axis is None else expand_axis(g, axis) / x.shape[axis]"
# np.cumsum(x) runs over the flattened x: sums from the end, put back in x's shape.
CUMSUM_ADJOINT = "np.reshape(np.ascontiguousarray(np.cumsum(np.ravel(g)[::-1])[::-1]), x.shape)"
RESHAPE_BACK = "np.reshape(np.ascontiguousarray(g), x.shape)"

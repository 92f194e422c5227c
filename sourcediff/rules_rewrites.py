"""Rows of the runtime functions that sourcediff's rewrites call (the array behind a list
built with append, a value made a vector for ``np.append``, cumulative sums and products
along an axis) and of ``np.interp``, whose derivatives live in ``sourcediff.interp``
(``sourcediff.rules`` assembles the table)."""

from __future__ import annotations

from .rule import Rule


def rewrite_rows() -> list[Rule]:
    """``grow_list``, ``np.interp``, ``as_vector``, ``cumsum_along``, ``cumprod_along``
    and ``roll_along``."""
    rows: list[Rule] = []
    # The array behind a list built with append (sourcediff.appends): the old values stay.
    grown = ("g[:buffer.shape[0]]", None), ("grow_list(tangent, count)", None)
    rows.append(Rule("grow_list", ("buffer", "count"), ("1", None), grown[0], grown[1]))
    rows.append(
        Rule(
            "np.interp",
            ("x", "xp", "fp"),
            ("1", "1", "1"),
            adjoints=tuple(f"interp_adjoint_{p}(x, xp, fp, g)" for p in ("x", "xp", "fp")),
            tangents=(
                "interp_adjoint_x(x, xp, fp, tangent)",
                "interp_tangent_xp(x, xp, fp, tangent)",
                "np.interp(x, xp, tangent)",
            ),
        )
    )
    vector = ("as_vector_adjoint(g, v)",), ("as_vector(tangent)",)
    rows.append(Rule("as_vector", ("v",), ("1",), adjoints=vector[0], tangents=vector[1]))
    # np.cumsum/np.cumprod(x, axis=k), spelled so by the flattener (sourcediff.scans).
    summed = ("cumsum_along_adjoint(g, axis)", None), ("cumsum_along(tangent, axis)", None)
    rows.append(Rule("cumsum_along", ("x", "axis"), ("1", None), summed[0], summed[1]))
    product = ("cumprod_along_adjoint(x, g, axis)", None)
    product_on = ("cumprod_along_tangent(x, tangent, axis)", None)
    rows.append(Rule("cumprod_along", ("x", "axis"), ("1", None), product, product_on))
    # np.roll(x, s, axis=k): a permutation, undone by rolling the adjoint back.
    rolled = ("roll_along(g, -shift, axis)", None, None)
    rolled_on = ("roll_along(tangent, shift, axis)", None, None)
    rows.append(Rule("roll_along", ("x", "shift", "axis"), ("1", None, None), rolled, rolled_on))
    return rows

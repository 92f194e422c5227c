"""The rows of products and linear algebra in the derivative table (``sourcediff.rules``
assembles it)."""

from __future__ import annotations

from .rule import Rule, row

INV_T = "np.transpose(linalg_inv(A))"


def linalg_rows() -> list[Rule]:
    """Linear algebra (LAPACK through NumPy, SciPy's under Numba): X = solve(A, B) has
    B_bar = solve(A.T, G) and A_bar = -B_bar X.T; inv by the inverse transpose, det by
    its cofactors (``special.det_cofactors``: finite where A is singular);
    Cholesky by Murray's triangular formula (``special.cholesky_adjoint``)."""
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
            adjoints=("g * det_cofactors(A, out)",),
            tangents=("np.sum(det_cofactors(A, out) * tangent)",),
        ),
        # The cofactors the det rows use, as the second derivatives (Hessians) read them:
        # ``det * inv(A)^T`` with ``det`` a variable of its own.
        Rule(
            "det_cofactors",
            ("A", "det"),
            ("1", "1"),
            adjoints=(
                f"-det * dot(dot({INV_T}, np.transpose(g)), {INV_T})",
                f"np.sum({INV_T} * g)",
            ),
            tangents=(
                "-det * np.transpose(dot(dot(linalg_inv(A), tangent), linalg_inv(A)))",
                f"{INV_T} * tangent",
            ),
        ),
        row("linalg_slogdet_sign", "A", None),
        Rule(
            "covariance",
            ("x",),
            ("1",),
            adjoints=("covariance_adjoint(x, g)",),
            tangents=("covariance_tangent(x, tangent)",),
        ),
        Rule(
            "linalg_slogdet_logabs",
            ("A",),
            ("1",),
            adjoints=("g * np.transpose(linalg_inv(A))",),
            tangents=("np.sum(np.transpose(linalg_inv(A)) * tangent)",),
        ),
        Rule(
            "linalg_cholesky",
            ("A",),
            ("1",),
            adjoints=("cholesky_adjoint(out, g)",),
            tangents=("cholesky_tangent(out, tangent)",),
        ),
        Rule(
            "linalg_eigvalsh",
            ("A",),
            ("1",),
            adjoints=("eigvalsh_adjoint(A, g)",),
            tangents=("eigvalsh_tangent(A, tangent)",),
        ),
        Rule(
            "linalg_eigh_vectors",
            ("A",),
            ("1",),
            adjoints=("eigh_vectors_adjoint(A, g)",),
            tangents=("eigh_vectors_tangent(A, tangent)",),
        ),
    ]


def product_rows() -> list[Rule]:
    """Vector and matrix products, norms and linear algebra."""
    rows: list[Rule] = []
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
            "matmul",
            ("a", "b"),
            ("1", "1"),
            adjoints=("matmul_adjoint_left(g, a, b)", "matmul_adjoint_right(g, a, b)"),
            tangents=("matmul(tangent, b)", "matmul(a, tangent)"),
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
    rows += linalg_rows()
    return rows


DOT_LEFT = "dot_adjoint_left(g, a, b)"
DOT_RIGHT = "dot_adjoint_right(g, a, b)"

"""The NPBench/PolyBench-style kernels of ``tests/npbench_cases.py`` ported to JAX, for
``benchmarks/run_corpus.py``.

Each port takes the kernel's arguments and returns the same number, written the way a JAX
user writes it: whole-array ``jnp`` operations instead of element loops, ``.at[].set()``
where an in-place write is the point, ``lax.fori_loop`` or ``lax.scan`` for time loops and
sequential recurrences (trisolv, cholesky, lu, deriche_like) so that they are traced once,
not unrolled. Triangular factorizations update whole columns under masks, in the order
that vectorizes; they compute the same factors as the row-by-row loops, so the results
agree to rounding. Integer arguments (step and bin counts) are static under ``jax.jit``.

JAX must run in float64 (``jax.config.update("jax_enable_x64", True)``) before a port is
called. ``python benchmarks/ports_corpus.py`` checks every port's value against its kernel
at the corpus's arguments.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy.signal import correlate2d


def gemm(alpha, beta, C, A, B):
    C = beta * C + alpha * (A @ B)
    return jnp.sum(C * C)


def atax(A, x):
    y = A.T @ (A @ x)
    return jnp.sum(y * y)


def bicg(A, p, r):
    s = A.T @ r
    q = A @ p
    return jnp.sum(s * s) + jnp.sum(jnp.sin(q))


def gesummv(alpha, beta, A, B, x):
    return jnp.sum(jnp.tanh(alpha * A @ x + beta * B @ x))


def trisolv(L, b):
    """Forward substitution: ``x[i:]`` is still zero when row ``i`` is solved."""

    def solve_row(i, x):
        return x.at[i].set((b[i] - L[i] @ x) / L[i, i])

    x = lax.fori_loop(0, b.shape[0], solve_row, jnp.zeros_like(b))
    return jnp.sum(x * x)


def cholesky(A):
    """Column by column (left-looking); only the lower triangle of ``A`` is used."""
    rows = jnp.arange(A.shape[0])

    def factor_column(j, L):  # L holds the columns before j, zeros elsewhere
        s = A[:, j] - L @ L[j]
        d = jnp.sqrt(s[j])
        column = jnp.where(rows > j, s / d, jnp.where(rows == j, d, 0.0))
        return L.at[:, j].set(column)

    L = lax.fori_loop(0, A.shape[0], factor_column, jnp.zeros_like(A))
    return 2.0 * jnp.sum(jnp.log(jnp.diag(L)))


def lu(A):
    """Right-looking Doolittle without pivoting: both factors stored in one matrix."""
    index = jnp.arange(A.shape[0])

    def eliminate(k, A):
        below = index > k
        multipliers = jnp.where(below, A[:, k] / A[k, k], 0.0)
        A = A - jnp.outer(multipliers, jnp.where(below, A[k], 0.0))
        return A.at[:, k].set(jnp.where(below, multipliers, A[:, k]))

    A = lax.fori_loop(0, A.shape[0], eliminate, A)
    return jnp.sum(A * A)


def syrk(alpha, beta, C, A):
    lower = jnp.tri(C.shape[0], dtype=bool)
    C = jnp.where(lower, beta * C + alpha * (A @ A.T), C)
    return jnp.sum(C * C)


def softmax_loss(x, w):
    z = x @ w
    e = jnp.exp(z - jnp.max(z, axis=1, keepdims=True))
    p = e / jnp.sum(e, axis=1, keepdims=True)
    return -jnp.sum(jnp.log(p[:, 0]))


def cnn_layer(image, kernel, bias):
    out = jnp.maximum(correlate2d(image, kernel, mode="valid") + bias, 0.0)
    return jnp.mean(out * out)


def resnet_block(x, k1, k2):
    h = jnp.maximum(correlate2d(jnp.pad(x, 1), k1, mode="valid"), 0.0)
    y = correlate2d(jnp.pad(h, 1), k2, mode="valid") + x
    return jnp.sum(jnp.maximum(y, 0.0) ** 2)


def _average_neighbours(a):
    """``a`` with every interior point replaced by the mean of its neighbours in ``a``."""
    return a.at[1:-1].set(0.5 * (a[:-2] + a[2:]))


def jacobi_1d(a, steps):
    def step(_, a):
        return _average_neighbours(_average_neighbours(a))

    a = lax.fori_loop(0, steps, step, a)
    return jnp.sum(a * a)


def _heat_step(A):
    inner = A[1:-1, 1:-1, 1:-1]
    neighbours = (
        A[2:, 1:-1, 1:-1]
        + A[:-2, 1:-1, 1:-1]
        + A[1:-1, 2:, 1:-1]
        + A[1:-1, :-2, 1:-1]
        + A[1:-1, 1:-1, 2:]
        + A[1:-1, 1:-1, :-2]
    )
    return A.at[1:-1, 1:-1, 1:-1].set(inner + 0.125 * (neighbours - 6.0 * inner))


def heat_3d(A, steps):
    """The boundary never changes, so the two buffers of the kernel are one array here."""
    A = lax.fori_loop(0, steps, lambda _, A: _heat_step(A), A)
    return jnp.sum(A * A)


def azimint(data, radius, n_bins):
    """All bins at once: one mask row per bin; empty bins add nothing."""
    r_max = jnp.max(radius)
    k = jnp.arange(n_bins)[:, None]
    masks = (radius >= r_max * k / n_bins) & (radius < r_max * (k + 1) / n_bins)
    counts = jnp.sum(masks, axis=1)
    sums = jnp.sum(jnp.where(masks, data, 0.0), axis=1)
    means = sums / jnp.maximum(counts, 1)
    return jnp.sum(jnp.where(counts > 0, means * means, 0.0))


def deriche_like(image, alpha):
    """Both passes scan the columns, all rows at once; the anti-causal one from the right."""
    a = jnp.exp(-alpha)

    def causal(prev, column):
        prev = (1.0 - a) * column + a * prev
        return prev, prev

    def anti_causal(prev, column):
        return (1.0 - a) * column + a * prev, prev

    start = jnp.zeros(image.shape[0])
    _, y1 = lax.scan(causal, start, image.T)
    _, y2 = lax.scan(anti_causal, start, image.T, reverse=True)
    return jnp.sum((y1 + y2) ** 2)


def go_fast(a):
    trace = jnp.sum(jnp.tanh(jnp.diag(a)))
    return jnp.sum((a + trace) ** 2)


#: Kernel name -> port, for every kernel of ``npbench_cases.CASES``.
PORTS = {
    "gemm": gemm,
    "atax": atax,
    "bicg": bicg,
    "gesummv": gesummv,
    "trisolv": trisolv,
    "cholesky": cholesky,
    "lu": lu,
    "syrk": syrk,
    "softmax_loss": softmax_loss,
    "cnn_layer": cnn_layer,
    "resnet_block": resnet_block,
    "jacobi_1d": jacobi_1d,
    "heat_3d": heat_3d,
    "azimint": azimint,
    "deriche_like": deriche_like,
    "go_fast": go_fast,
}


def check_values():
    """Every port's value against its kernel's at the corpus's arguments (relative 1e-12)."""
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from npbench_cases import CASES

    jax.config.update("jax_enable_x64", True)
    worst = 0.0
    for func, args, _ in CASES:
        want = func(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        inputs = (jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        got = float(PORTS[func.__name__](*inputs))
        error = abs(got - want) / max(abs(want), 1e-300)
        worst = max(worst, error)
        print(f"{func.__name__:14} kernel {want:+.15e}  port {got:+.15e}  rel. {error:.1e}")
    assert worst <= 1e-12, f"a port disagrees with its kernel: {worst:.1e}"


if __name__ == "__main__":
    check_values()

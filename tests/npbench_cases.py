"""Kernels written in the style of NPBench and PolyBench (our own code): BLAS-like loops,
triangular solves and decompositions, stencils with slices on rank 1 to 3, a small CNN
layer and a residual block, softmax, an azimuthal integration, a recursive filter, and
helpers writing into arrays their caller passed. Each returns a float loss."""

import math

import numpy as np

RNG = np.random.default_rng(2026)


def gemm(alpha, beta, C, A, B):
    """C = alpha A B + beta C, written as PolyBench does, row by row."""
    for i in range(C.shape[0]):
        C[i, :] *= beta
        for k in range(A.shape[1]):
            C[i, :] += alpha * A[i, k] * B[k, :]
    return np.sum(C * C)


def atax(A, x):
    """y = A^T (A x), with the temporaries PolyBench uses."""
    tmp = A @ x
    y = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        y += A[i, :] * tmp[i]
    return np.sum(y * y)


def bicg(A, p, r):
    """s = A^T r and q = A p in one sweep over the rows."""
    s = np.zeros(A.shape[1])
    q = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        s += r[i] * A[i, :]
        q[i] = np.dot(A[i, :], p)
    return np.sum(s * s) + np.sum(np.sin(q))


def gesummv(alpha, beta, A, B, x):
    """y = alpha A x + beta B x."""
    return np.sum(np.tanh(alpha * A @ x + beta * B @ x))


def trisolv(L, b):
    """Forward substitution, a slice whose length changes with the row."""
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return np.sum(x * x)


def cholesky(A):
    """In-place Cholesky by loops (PolyBench's cholesky); the log-determinant."""
    A = A.copy()
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = math.sqrt(A[i, i])
    logdet = 0.0
    for i in range(n):
        logdet += 2.0 * math.log(A[i, i])
    return logdet


def lu(A):
    """Doolittle LU in place, no pivoting; the sum of squares of both factors."""
    A = A.copy()
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[i, j] -= A[i, :i] @ A[:i, j]
    return np.sum(A * A)


def syrk(alpha, beta, C, A):
    """Lower triangle of C = alpha A A^T + beta C."""
    n = C.shape[0]
    for i in range(n):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += alpha * A[i, k] * A[: i + 1, k]
    return np.sum(C * C)


def syr2k(alpha, beta, C, A, B):
    """NPBench's syr2k: lower triangle of C = alpha (A B^T + B A^T) + beta C, rows whose
    length grows with the loop index."""
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += A[: i + 1, k] * alpha * B[i, k] + B[: i + 1, k] * alpha * A[i, k]
    return np.sum(C * C)


def doitgen(A, C4):
    """NPBench's doitgen: every fibre A[r, q, :] of a rank-3 array times a matrix, through
    a buffer."""
    n_r, n_q, n_p = A.shape
    s = np.zeros(n_p)
    for r in range(n_r):
        for q in range(n_q):
            s[:] = A[r, q, :] @ C4
            A[r, q, :] = s
    return np.sum(A * A)


def hdiff(in_field, coeff):
    """NPBench's hdiff: fourth-order horizontal diffusion with flux limiting (np.where on
    rank-3 slices)."""
    n_i, n_j = in_field.shape[0] - 4, in_field.shape[1] - 4
    lap = 4.0 * in_field[1 : n_i + 3, 1 : n_j + 3, :] - (
        in_field[2 : n_i + 4, 1 : n_j + 3, :]
        + in_field[0 : n_i + 2, 1 : n_j + 3, :]
        + in_field[1 : n_i + 3, 2 : n_j + 4, :]
        + in_field[1 : n_i + 3, 0 : n_j + 2, :]
    )
    res = lap[1:, 1 : n_j + 1, :] - lap[:-1, 1 : n_j + 1, :]
    step = in_field[2 : n_i + 3, 2 : n_j + 2, :] - in_field[1 : n_i + 2, 2 : n_j + 2, :]
    flx = np.where(res * step > 0, 0.0, res)
    res = lap[1 : n_i + 1, 1:, :] - lap[1 : n_i + 1, :-1, :]
    step = in_field[2 : n_i + 2, 2 : n_j + 3, :] - in_field[2 : n_i + 2, 1 : n_j + 2, :]
    fly = np.where(res * step > 0, 0.0, res)
    out = in_field[2 : n_i + 2, 2 : n_j + 2, :] - coeff * (
        flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :]
    )
    return np.sum(out * out)


def softmax_loss(x, w):
    """Row-wise softmax, max subtracted, of x w; cross-entropy against class 0."""
    z = x @ w
    m = np.max(z, axis=1)
    e = np.exp(z - m[:, None])
    p = e / np.sum(e, axis=1)[:, None]
    return -np.sum(np.log(p[:, 0]))


def _conv2d(image, kernel):
    """Valid 2-D cross-correlation by loops."""
    h = image.shape[0] - kernel.shape[0] + 1
    w = image.shape[1] - kernel.shape[1] + 1
    out = np.zeros((h, w))
    for i in range(h):
        for j in range(w):
            out[i, j] = np.sum(image[i : i + kernel.shape[0], j : j + kernel.shape[1]] * kernel)
    return out


def cnn_layer(image, kernel, bias):
    """Convolution, bias, ReLU, then the mean activation."""
    out = np.maximum(_conv2d(image, kernel) + bias, 0.0)
    return np.mean(out * out)


def resnet_block(x, k1, k2):
    """Two same-size convolutions (padded input) with a ReLU between and a skip."""
    n = x.shape[0]
    padded = np.zeros((n + 2, n + 2))
    padded[1:-1, 1:-1] = x
    h = np.maximum(_conv2d(padded, k1), 0.0)
    padded[1:-1, 1:-1] = h
    y = _conv2d(padded, k2) + x
    return np.sum(np.maximum(y, 0.0) ** 2)


def _average_neighbours(out, a):
    """A helper writing into the array its caller passed."""
    out[1:-1] = 0.5 * (a[:-2] + a[2:])


def jacobi_1d(a, steps):
    """PolyBench's jacobi-1d with the half steps in a helper."""
    a = a.copy()
    b = a.copy()
    for _ in range(steps):
        _average_neighbours(b, a)
        _average_neighbours(a, b)
    return np.sum(a * a)


def heat_3d(A, steps):
    """Seven-point heat stencil on a rank-3 grid, two buffers."""
    A = A.copy()
    B = A.copy()
    for _ in range(steps):
        B[1:-1, 1:-1, 1:-1] = A[1:-1, 1:-1, 1:-1] + 0.125 * (
            A[2:, 1:-1, 1:-1]
            + A[:-2, 1:-1, 1:-1]
            + A[1:-1, 2:, 1:-1]
            + A[1:-1, :-2, 1:-1]
            + A[1:-1, 1:-1, 2:]
            + A[1:-1, 1:-1, :-2]
            - 6.0 * A[1:-1, 1:-1, 1:-1]
        )
        A, B = B, A
    return np.sum(A * A)


def azimint(data, radius, n_bins):
    """Mean of the data in each radial bin (boolean masks), then their squares summed."""
    r_max = np.max(radius)
    total = 0.0
    for k in range(n_bins):
        lower = r_max * k / n_bins
        upper = r_max * (k + 1) / n_bins
        mask = np.logical_and(radius >= lower, radius < upper)
        count = np.sum(mask)
        if count > 0:
            mean = np.sum(np.where(mask, data, 0.0)) / count
            total += mean * mean
    return total


def deriche_like(image, alpha):
    """Causal then anti-causal first-order recursive filter along each row."""
    h, w = image.shape
    a = math.exp(-alpha)
    y1 = np.zeros((h, w))
    y2 = np.zeros((h, w))
    for i in range(h):
        prev = 0.0
        for j in range(w):
            prev = (1.0 - a) * image[i, j] + a * prev
            y1[i, j] = prev
        prev = 0.0
        for j in range(w - 1, -1, -1):
            y2[i, j] = prev
            prev = (1.0 - a) * image[i, j] + a * prev
    return np.sum((y1 + y2) ** 2)


def go_fast(a):
    """NPBench's go_fast: a trace of tanh added to every element."""
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return np.sum((a + trace) ** 2)


def _spd(n):
    m = RNG.uniform(-1.0, 1.0, (n, n))
    return m @ m.T + n * np.eye(n)


def _lower(n):
    return np.tril(RNG.uniform(0.2, 1.0, (n, n))) + 2.0 * np.eye(n)


def _random(*shape):
    return RNG.uniform(-1.0, 1.0, shape)


#: (kernel, arguments, argnums): small sizes, every float argument differentiated.
CASES = [
    (gemm, (0.7, 1.3, _random(4, 5), _random(4, 3), _random(3, 5)), (0, 1, 2, 3, 4)),
    (atax, (_random(5, 4), _random(4)), (0, 1)),
    (bicg, (_random(5, 4), _random(4), _random(5)), (0, 1, 2)),
    (gesummv, (0.6, 1.2, _random(4, 4), _random(4, 4), _random(4)), (0, 1, 2, 3, 4)),
    (trisolv, (_lower(5), _random(5)), (0, 1)),
    (cholesky, (_spd(5),), (0,)),
    (lu, (_spd(4),), (0,)),
    (syrk, (0.8, 1.1, _random(4, 4), _random(4, 3)), (0, 1, 2, 3)),
    (syr2k, (0.8, 1.1, _random(4, 4), _random(4, 3), _random(4, 3)), (0, 1, 2, 3, 4)),
    (doitgen, (_random(2, 3, 4), _random(4, 4)), (0, 1)),
    (hdiff, (_random(7, 8, 2), RNG.uniform(0.1, 0.3, (3, 4, 2))), (0, 1)),
    (softmax_loss, (_random(6, 3), _random(3, 4)), (0, 1)),
    (cnn_layer, (_random(6, 6), _random(3, 3), 0.1), (0, 1, 2)),
    (resnet_block, (_random(4, 4), _random(3, 3), _random(3, 3)), (0, 1, 2)),
    (jacobi_1d, (_random(8), 3), (0,)),
    (heat_3d, (_random(4, 4, 4), 2), (0,)),
    (azimint, (_random(20), RNG.uniform(0.0, 1.0, 20), 4), (0,)),
    (deriche_like, (_random(3, 5), 0.4), (0, 1)),
    (go_fast, (_random(4, 4),), (0,)),
]

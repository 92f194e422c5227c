"""Regressions: damaged caches, high-rank broadcasting, row writes, run-time tuple indices,
fancy indexing and writes through row views."""

import importlib.util
import json
import os
import pickle
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

import sourcediff as sd

# --- A: a damaged cache entry is rebuilt, never reported ------------------------------------

CACHE_MODEL = textwrap.dedent(
    """
    import math

    def cached_model(x, y):
        s = 0.0
        for i in range(3):
            s += math.sin(x * y * i) + x * x
        return s
    """
)

CACHE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    import cache_model
    import sourcediff as sd

    print(json.dumps(sd.grad(cache_model.cached_model, argnums=(0, 1))(1.5, 2.0)))
    """
)


def _expected_cache_grad():
    x, y = 1.5, 2.0
    dx = sum(np.cos(x * y * i) * y * i + 2 * x for i in range(3))
    dy = sum(np.cos(x * y * i) * x * i for i in range(3))
    return [dx, dy]


def _in_subprocess(folder, cache) -> list:
    env = dict(os.environ, SOURCEDIFF_CACHE_DIR=str(cache))
    env.pop("NUMBA_CACHE_DIR", None)  # Numba's cache then sits beside the modules
    out = subprocess.run(
        [sys.executable, "-c", CACHE_SCRIPT, str(folder)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _in_this_process(folder, cache, monkeypatch, name) -> list:
    monkeypatch.setenv("SOURCEDIFF_CACHE_DIR", str(cache))
    spec = importlib.util.spec_from_file_location(name, folder / "cache_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(sd.grad(module.cached_model, argnums=(0, 1))(1.5, 2.0))


def _truncate_modules(cache):
    modules = list(cache.glob("cached_model_*.py"))
    assert modules
    for path in modules:
        text = path.read_text()
        path.write_text(text[: len(text) // 2])


def _garble_numba_files(cache):
    files = list(cache.rglob("*.nbi")) + list(cache.rglob("*.nbc"))
    assert files
    for number, path in enumerate(files):
        if number % 2:
            path.write_bytes(b"\x80\x09 not a pickle")  # ValueError: unsupported protocol
        else:
            path.write_bytes(pickle.dumps(numba.__version__) + b"garbage")


def _delete_metadata(cache):
    files = list(cache.glob("cached_model_*.json"))
    assert files
    for path in files:
        path.unlink()


def _garble_metadata(cache):
    files = list(cache.glob("cached_model_*.json"))
    assert files
    for path in files:
        path.write_text('{"outputs": 1, "res')


@pytest.mark.parametrize(
    "damage", [_truncate_modules, _garble_numba_files, _delete_metadata, _garble_metadata]
)
def test_a_damaged_cache_entry_is_rebuilt(tmp_path, monkeypatch, damage):
    (tmp_path / "cache_model.py").write_text(CACHE_MODEL)
    cache = tmp_path / "cache"
    expected = _expected_cache_grad()
    np.testing.assert_allclose(_in_subprocess(tmp_path, cache), expected)
    damage(cache)
    here = _in_this_process(tmp_path, cache, monkeypatch, f"cache_model_{damage.__name__}")
    np.testing.assert_allclose(here, expected)
    damage(cache)
    np.testing.assert_allclose(_in_subprocess(tmp_path, cache), expected)
    np.testing.assert_allclose(_in_subprocess(tmp_path, cache), expected)


def test_a_module_writes_leave_no_temporary_files(tmp_path, monkeypatch):
    (tmp_path / "cache_model.py").write_text(CACHE_MODEL)
    cache = tmp_path / "cache"
    _in_subprocess(tmp_path, cache)
    assert not list(cache.glob("*.tmp")) and not list(cache.glob(".*"))


# --- B: broadcasting arithmetic on arrays of rank 3 and more ------------------------------


def times_summed(a, w):
    return np.sum(a * w)


def sine_broadcast(a, w):
    return np.sum(np.sin(a + w) * a)


RANK_CASES = [
    ((2, 3, 4), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (3, 4)),
    ((2, 3, 4), ()),
    ((2, 3, 4, 2), (2, 3, 4, 2)),
    ((2, 3, 4), (1, 3, 1)),
    ((2, 1, 4), (3, 1)),
    ((4,), (2, 3, 4)),
]


# Numba compiles are slow at rank 3-4 (about 20 s each): every case runs as Python, one compiled.
BROADCASTS = [(a, w, False) for a, w in RANK_CASES] + [(*RANK_CASES[1], True)]


@pytest.mark.parametrize(("a_shape", "w_shape", "jit"), BROADCASTS)
def test_b_high_rank_broadcasting(a_shape, w_shape, jit):
    rng = np.random.default_rng(3)
    a = rng.normal(size=a_shape)
    w = rng.normal(size=w_shape) if w_shape else 0.7
    sd.check_grad(times_summed, a, w, argnums=(0, 1), jit=jit)
    sd.check_grad(sine_broadcast, a, w, argnums=(0, 1), jit=jit)


def test_b_sum_to_any_rank_in_numba():
    from sourcediff.runtime import sum_to

    @numba.njit
    def compiled_sum_to(g, like):
        return sum_to(g, like)

    rng = np.random.default_rng(4)
    g = rng.normal(size=(4, 3, 2)).transpose()  # not contiguous
    for like_shape in [(2, 3, 4), (1, 3, 1), (3, 1), (4,), (2, 1, 1, 4)]:
        like = np.zeros(like_shape)
        np.testing.assert_allclose(compiled_sum_to(g, like), sum_to(g, like))
    # A matrix or a vector summed to a vector: loops of their own (a bias, a number spread),
    # checked against NumPy's own sums; a shape that does not broadcast raises as NumPy does.
    matrix, column, vector = rng.normal(size=(5, 3)), rng.normal(size=(5, 1)), rng.normal(size=5)
    cases = [(matrix, (3,), matrix.sum(axis=0)), (matrix, (1,), [matrix.sum()])]
    cases += [(column, (4,), np.full(4, column.sum())), (vector, (1,), [vector.sum()])]
    cases += [(vector[:1], (3,), np.full(3, vector[0])), (vector, (5,), vector)]
    for g, like_shape, expected in cases:
        np.testing.assert_allclose(compiled_sum_to(g, np.zeros(like_shape)), expected)
    for g, like_shape in [(matrix, (2,)), (vector, (3,))]:
        with pytest.raises(ValueError, match="broadcast"):
            compiled_sum_to(g, np.zeros(like_shape))


# --- C: arrays kept in a loop whose layout at run time is not the inferred one -----------


def kalman_like(x, H, n):
    P = np.eye(2) * x
    for _k in range(n):
        P = H.T @ H + P * 0.5
    return np.sum(P)


def _kalman_like_grad(x, H, n):
    """Closed form: sum(P) = 2 x / 2**n + (1 - 1/2**n) * 2 * sum_k (sum_i H[k, i])**2."""
    carried = 2.0 * (1.0 - 0.5**n)
    return 2.0 * 0.5**n, 2.0 * carried * H.sum(axis=1, keepdims=True) * np.ones_like(H)


# H.T of a (1, 2) array is inferred Fortran-ordered but is contiguous both ways at run time,
# so Numba's typeof calls it C: run as Python, the typed list of Fortran arrays that keeps it
# raised a bare AssertionError inside Numba (policies "store" and "auto").
KALMAN_POINTS = [
    (1.3, np.array([[0.3, 0.7]]), 3),
    (-0.4, np.array([[-1.2, 0.5]]), 5),
    (0.9, np.array([[0.3, 0.7], [2.0, -0.1], [0.4, 0.4]]), 2),  # H.T Fortran-ordered only
]


@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(2), "auto"], ids=str)
def test_c_arrays_kept_in_a_loop_with_either_layout(policy, jit):
    df = sd.grad(kalman_like, argnums=(0, 1), policy=policy, jit=jit)
    for x, H, n in KALMAN_POINTS:
        dx, dH = df(x, H, n)
        expected_dx, expected_dH = _kalman_like_grad(x, H, n)
        assert dx == pytest.approx(expected_dx, rel=1e-12)
        assert dH.shape == H.shape
        np.testing.assert_allclose(dH, expected_dH, rtol=1e-12)


# --- D: Fortran-ordered arguments ----------------------------------------------------------


def exp_steps(u0, c, n):
    u = u0
    for _k in range(n):
        w = np.exp(u) * c
        u = w
    return np.sum(u * u) + u[0, 1]


def _exp_steps_grad(u0, c, n):
    """Closed form for n = 0 (u = u0) and n = 1 (u = exp(u0) * c)."""
    corner = np.zeros_like(u0)
    corner[0, 1] = 1.0
    if n == 0:
        return 2.0 * u0 + corner, np.zeros_like(c)
    u = np.exp(u0) * c
    outer = 2.0 * u + corner
    return outer * u, outer * np.exp(u0)


# u = u0 (Fortran-ordered) then u = <new C array> gives u Numba's layout 'A', and Numba
# cannot allocate an array expression of that layout (np.exp(u) alone in the adjoint):
# the derivative crashed inside Numba under every policy. Arrays are now passed in C order.
@pytest.mark.parametrize("jit", [False, True], ids=["python", "compiled"])
@pytest.mark.parametrize("policy", ["store", "recompute", sd.Checkpoint(2), "auto"], ids=str)
def test_d_fortran_ordered_argument_rebound_in_a_loop(policy, jit):
    rng = np.random.default_rng(5)
    df = sd.grad(exp_steps, argnums=(0, 1), policy=policy, jit=jit)
    for n in (1, 0, 1):
        u0 = np.asfortranarray(rng.uniform(-1.0, 1.0, (3, 4)))
        c = rng.uniform(-2.0, 2.0, (3, 4))
        du0, dc = df(u0, c, n)
        expected_du0, expected_dc = _exp_steps_grad(u0, c, n)
        np.testing.assert_allclose(du0, expected_du0, rtol=1e-13)
        np.testing.assert_allclose(dc, expected_dc, rtol=1e-13, atol=1e-15)


def scale_corner(x, s):
    x[0, 1] = x[0, 1] * s
    return np.sum(x * x)


def test_d_a_fortran_ordered_argument_written_in_place_sees_the_write():
    x = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    before = x.copy()
    dx, ds = sd.grad(scale_corner, argnums=(0, 1))(x, 3.0)
    assert x.flags.f_contiguous and x[0, 1] == 3.0 * before[0, 1]
    expected_dx = 2.0 * before
    expected_dx[0, 1] = 2.0 * 9.0 * before[0, 1]
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-14)
    assert ds == pytest.approx(2.0 * 3.0 * before[0, 1] ** 2, rel=1e-14)


def test_d_fortran_ordered_arguments_from_njit_code():
    df = sd.grad(exp_steps)

    @numba.njit
    def descend(u0, c, n):
        return u0 - 0.1 * df(u0, c, n)

    u0 = np.asfortranarray(np.linspace(-0.5, 0.5, 6).reshape(2, 3))
    c = np.full((2, 3), 0.7)
    expected, _ = _exp_steps_grad(u0, c, 1)
    np.testing.assert_allclose(descend(u0, c, 1), u0 - 0.1 * expected, rtol=1e-13)


XG = np.linspace(-1.0, 1.0, 12)  # a module global: read-only inside njit code


def test_d_a_read_only_strided_array_from_njit_code_is_not_written_back():
    df = sd.grad(exp_steps)

    @numba.njit
    def on_global_rows(c, n):
        return df(XG.reshape(3, 4)[:, ::2], c, n)

    c = np.full((3, 2), 0.7)
    expected, _ = _exp_steps_grad(XG.reshape(3, 4)[:, ::2], c, 1)
    np.testing.assert_allclose(on_global_rows(c, 1), expected, rtol=1e-13)

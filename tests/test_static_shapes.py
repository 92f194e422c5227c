"""Static shapes (sourcediff/analysis/static_shapes.py): an elementwise adjoint is summed
back to its operand's shape only where broadcasting may have happened."""

import ast
import textwrap

import numpy as np

import sourcediff as sd
from sourcediff.analysis.static_shapes import fixed_lengths, static_shapes
from sourcediff.analysis.types import TypeTable, VarType

MATRIX, VECTOR, FLOAT = (
    VarType("array", "float64", 2),
    VarType("array", "float64", 1),
    VarType("float"),
)


def _shapes(source: str, variables: dict, params: list[str], dims=None):
    node = ast.parse(textwrap.dedent(source)).body[0]
    return static_shapes(node, TypeTable(variables, FLOAT), params, dims)


def test_two_arguments_of_unrelated_lengths_broadcast_to_no_known_shape():
    shapes = _shapes(
        """
        def f(a, b):
            t = a + b
            return t
        """,
        {"a": VECTOR, "b": VECTOR, "t": VECTOR},
        ["a", "b"],
    )
    assert "t" not in shapes  # len(a) == 1 or len(b) == 1 would broadcast


def test_equal_argument_lengths_and_scalars_keep_the_shape():
    shapes = _shapes(
        """
        def f(a, b, s):
            t = a * s
            u = t - b
            return u
        """,
        {"a": VECTOR, "b": VECTOR, "t": VECTOR, "u": VECTOR, "s": FLOAT},
        ["a", "b", "s"],
        dims=(("n",), ("n",), None),
    )
    assert shapes["t"] == shapes["u"] == shapes["a"] == (("class", "n"),)


def test_a_name_rebound_to_another_shape_has_none():
    shapes = _shapes(
        """
        def f(m, v):
            x = np.copy(v)
            for i in range(3):
                x = matmul(m, x)
            return x
        """,
        {"m": MATRIX, "v": VECTOR, "x": VECTOR},
        ["m", "v"],
        dims=(("r", "c"), ("c",)),
    )
    assert "x" not in shapes  # (c,) before the loop, (r,) after one product


def test_a_rebound_argument_has_no_shape_from_its_new_values():
    shapes = _shapes(
        """
        def f(u, v):
            t = u * 2.0
            u = v * 2.0
            return t
        """,
        {"u": VECTOR, "v": VECTOR, "t": VECTOR},
        ["u", "v"],
        dims=(("n",), ("m",)),
    )
    assert "u" not in shapes and "t" not in shapes  # u arrives with the caller's shape


def test_an_array_sliced_by_the_loop_variable_has_no_shape():
    shapes = _shapes(
        """
        def f(a):
            s = 0.0
            for i in range(3):
                t = a[:i]
                s = s + np.sum(t)
            return s
        """,
        {"a": VECTOR, "t": VECTOR, "s": FLOAT, "i": VarType("int")},
        ["a"],
        dims=(("n",),),
    )
    assert "t" not in shapes  # a new length every iteration


def test_an_argument_rebound_in_a_loop_keeps_the_callers_shape():
    """``u = u + c * lap`` keeps the caller's shape, and a fresh array allocated from
    lengths read in the loop (``np.empty((max(k, 0),))``, as scalarize writes) has it too;
    such lengths are the same at every assignment (``fixed_lengths``)."""
    node = ast.parse(
        textwrap.dedent(
            """
            def f(u, c):
                for i in range(3):
                    lap = roll_along(u, 1, 0) - u
                    k = u.shape[0]
                    w = np.empty((max(k, 0),))
                    u = u + c * lap + w
                return u
            """
        )
    ).body[0]
    int_ = VarType("int")
    variables = {"u": VECTOR, "c": FLOAT, "lap": VECTOR, "w": VECTOR, "k": int_, "i": int_}
    types = TypeTable(variables, FLOAT)
    shapes = static_shapes(node, types, ["u", "c"], (("n",), None))
    assert shapes["u"] == shapes["lap"] == shapes["w"] == (("class", "n"),)
    types.shapes = shapes
    assert fixed_lengths(node, types) == {"k"}


def mlp(w1, b1, w2, x, y):
    h = np.tanh(x @ w1 + b1)
    r = h @ w2 - y
    return np.sum(r * r)


def _mlp_gradient(w1, b1, w2, x, y):
    t = x @ w1 + b1
    h = np.tanh(t)
    r = h @ w2 - y
    r_bar = 2.0 * r
    h_bar = r_bar @ w2.T
    t_bar = (1.0 - h * h) * h_bar
    return x.T @ t_bar, t_bar.sum(axis=0), h.T @ r_bar


def test_the_adjoint_of_a_same_shape_operation_is_not_reduced_and_is_right():
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=(5, 2)))
    args += (rng.normal(size=(7, 3)), rng.normal(size=(7, 2)))
    source = sd.adjoint_source(mlp, argnums=(0, 1, 2), args=args)
    reverse = source[source.index("def mlp_vjp") : source.index("def mlp_record_bytes")]
    assert reverse.count("sum_to(") == 1  # only the bias, broadcast over the batch
    assert "add_into" not in reverse  # every adjoint bound to its one contribution
    for jit in (True, False):
        got = sd.grad(mlp, argnums=(0, 1, 2), jit=jit)(*args)
        for g, expected in zip(got, _mlp_gradient(*args)):
            np.testing.assert_allclose(g, expected, rtol=1e-10, atol=1e-12)


def scaled_identity(s, K):
    n = K.shape[0]
    M = K + s * np.eye(n)
    return np.sum(M * M) + np.sum(s * np.identity(3) @ K[0])


def test_a_number_times_a_constructed_array_is_summed_back_to_a_number():
    """A constructor (np.eye) is not elementwise in its arguments: s * np.eye(n) has
    the shape of the matrix, and s's adjoint is summed over it."""
    K = np.arange(9.0).reshape(3, 3)
    for s in (0.5, -1.25):
        expected = 2.0 * np.trace(K + s * np.eye(3)) + np.sum(K[0])
        for jit in (True, False):
            got = sd.grad(scaled_identity, jit=jit)(s, K)
            assert np.ndim(got) == 0 and abs(got - expected) < 1e-10 * abs(expected)


def test_new_axes_broadcast_and_axis_reductions_drop_their_axis():
    """``pos[:, None, :] - pos[None, :, :]`` has shape (n, n, d) (a new axis broadcasts to
    any length); ``np.sum(.., axis=-1)`` drops the last axis, ``keepdims`` keeps it as 1;
    the sum over every axis and an unknown axis have none."""
    cube = VarType("array", "float64", 3)
    shapes = _shapes(
        """
        def f(pos, k):
            t1 = np.expand_dims(pos, 1)
            t2 = np.expand_dims(pos, 0)
            diff = t1 - t2
            r2 = np.sum(diff, axis=-1)
            kept = np.sum(diff, axis=2, keepdims=True)
            other = np.sum(diff, axis=k)
            return r2
        """,
        {
            "pos": MATRIX,
            "t1": cube,
            "t2": cube,
            "diff": cube,
            "r2": MATRIX,
            "kept": cube,
            "other": MATRIX,
            "k": VarType("int", "int64"),
        },
        ["pos", "k"],
        (("n", "d"), None),
    )
    n, d, one = ("class", "n"), ("class", "d"), ("constant", 1)
    assert shapes["t1"] == (n, one, d) and shapes["t2"] == (one, n, d)
    assert shapes["diff"] == (n, n, d)
    assert shapes["r2"] == (n, n) and shapes["kept"] == (n, n, one)
    assert "other" not in shapes

"""Types without example values: ``adjoint_source``/``tangent_source`` and the CLI take a
Numba signature string."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sourcediff as sd


def mlp(w1, b1, w2, x, y):
    h = np.tanh(w1 @ x + b1)
    d = w2 @ h - y
    return np.sum(d * d)


SIGNATURE = "float64[:, :], float64[:], float64[:, :], float64[:], float64[:]"


def test_adjoint_and_tangent_source_from_a_signature():
    source = sd.adjoint_source(mlp, argnums=(0, 1, 2), signature=SIGNATURE)
    assert "w1: array(float64, 2d, C)" in source and "def mlp_vjp(" in source
    tangent = sd.tangent_source(mlp, argnums=0, signature="float32[:, :], " + SIGNATURE[14:])
    assert "w1: array(float32, 2d, C)" in tangent and "def mlp_jvp(" in tangent


def test_a_fortran_signature_shows_the_derivative_that_runs_on_c_ordered_copies():
    """Derivatives run on C-ordered copies of other layouts (dispatch.c_ordered: a
    Fortran-ordered array bound to a name that later holds a new one crashed Numba), so
    the source shown for a Fortran signature is the one that runs."""
    source = sd.adjoint_source(mlp, signature="float64[::1, :], " + SIGNATURE[14:])
    assert "w1: array(float64, 2d, C)" in source
    assert source == sd.adjoint_source(mlp, signature=SIGNATURE)


def scaled_sines(x, c=2.0, n=3):
    s = 0.0
    for _ in range(n):
        s += np.sum(np.sin(c * x))
    return s


@pytest.mark.parametrize("signature", ["float64[:]", "float64[:], float64", "(float64[:],)"])
def test_parameters_with_defaults_may_be_left_out_of_a_signature(signature):
    """The defaults' own types are used, as for a call that leaves them out."""
    source = sd.adjoint_source(scaled_sines, signature=signature)
    assert "c: float64" in source and "n: int64" in source
    assert source == sd.adjoint_source(scaled_sines, args=(np.zeros(4),))


@pytest.mark.parametrize(
    ("signature", "message"),
    [("float64, int64", "gives 2 types for the 5 parameters"), ("floot64", "not a Numba")],
)
def test_a_bad_signature_is_refused_with_the_function_line(signature, message):
    with pytest.raises(sd.ArgumentError, match=message) as info:
        sd.adjoint_source(mlp, signature=signature)
    assert "test_signatures.py:14" in str(info.value)


def test_cli_show_takes_a_signature():
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run(
        [sys.executable, "-m", "sourcediff", "show", "examples/heat.py:simulate"]
        + ["--wrt", "u0", "--signature", "float64[:], float64, int64"],
        capture_output=True,
        text=True,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    assert "u0: array(float64, 1d, C)" in result.stdout


def _loss_with_enclosing_defaults():
    k = 3.0
    w = np.array([1.0, 2.0])

    def loss(x, c=k, v=w):
        return x * x * c + np.sum(v * x)

    return loss


@pytest.mark.parametrize("jit", [False, True])
def test_defaults_naming_variables_of_an_enclosing_function(jit):
    """``c=k`` was evaluated where ``loss`` was defined; ``k`` need not be a global."""
    loss = _loss_with_enclosing_defaults()
    assert sd.grad(loss, jit=jit)(2.0) == 2.0 * 2.0 * 3.0 + 3.0
    assert sd.grad(loss, argnums=(0, 1), jit=jit)(2.0, 1.0) == (7.0, 4.0)

"""Input checks and progress output: ``raise``, ``assert`` and ``print`` inside a
differentiated function (``sourcediff.raises``).

The derivative runs the checks in its forward sweep and raises what the function
raises; where no check fires, the gradient is the function's (Richardson differences,
every policy, compiled and as plain Python).
"""

import math

import numpy as np
import pytest
from reference import assert_gradient_matches

import sourcediff as sd


def chain_energy(x, k, steps):
    if x.shape[0] < 2:
        raise ValueError(f"need two points, got {x.shape[0]}")
    assert k > 0.0, "k must be positive"
    s = 0.0
    for _ in range(steps):
        for i in range(x.shape[0] - 1):
            d = x[i + 1] - x[i]
            if d * d > 1e6:
                raise OverflowError("the chain blew up")
            s += k * d * d + math.sin(x[i])
        if steps > 100:
            print("energy", s, "at", x[0])
        x = x * 0.9
    return s


def checked_norm(v):
    assert v.shape[0] > 0
    return math.sqrt(np.sum(v * v) + 1.0)


def calls_a_checked_helper(x, k):
    return checked_norm(x * k) + chain_energy(x, k, 2)


X = np.array([0.3, -0.2, 0.9, 0.4])
POLICIES = ["store", "recompute", sd.Checkpoint(2)]


@pytest.mark.parametrize("policy", POLICIES, ids=str)
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_gradient_where_no_check_fires(jit, policy):
    assert_gradient_matches(chain_energy, (X.copy(), 1.5, 3), (0, 1), policy, jit)
    assert_gradient_matches(calls_a_checked_helper, (X.copy(), 0.7), (0, 1), policy, jit)


BAD_INPUTS = [
    ((np.array([1.0]), 1.5, 3), ValueError, "need two points, got {x.shape[0]}"),
    ((X, -1.0, 3), AssertionError, "k must be positive"),
    ((X * 1e4, 1.0, 2), OverflowError, "the chain blew up"),
]


@pytest.mark.parametrize("args, error, message", BAD_INPUTS, ids=["raise", "assert", "in-loop"])
@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_every_transformation_raises_what_the_function_raises(args, error, message, jit):
    with pytest.raises(error, match="blew up|positive|two points"):
        chain_energy(*args)
    with pytest.raises(error) as raised:
        sd.grad(chain_energy, jit=jit)(*args)
    assert str(raised.value) == message
    with pytest.raises(error):
        sd.jvp(chain_energy, args, (np.ones_like(args[0]), 0.0, 0))
    with pytest.raises(error):
        sd.jit(chain_energy)(*args)


def test_assert_without_message_names_its_test():
    with pytest.raises(AssertionError, match=r"v.shape\[0\] > 0"):
        sd.grad(checked_norm)(np.zeros(0))


def test_checks_are_in_the_source_and_only_forward():
    text = sd.adjoint_source(chain_energy, args=(X, 1.5, 3))
    vjp = text[text.index("def chain_energy_vjp") : text.index("# reverse sweep")]
    reverse = text[text.index("# reverse sweep") : text.index("def chain_energy_record")]
    assert "raise ValueError('need two points, got {x.shape[0]}')" in vjp
    assert "raise AssertionError('k must be positive')" in vjp
    assert "raise" not in reverse


def test_print_is_dropped(capsys):
    args = (X, 1.5, 101)
    chain_energy(*args)
    assert capsys.readouterr().out.count("energy") == 101
    sd.grad(chain_energy)(*args)
    sd.jit(chain_energy)(*args)
    assert capsys.readouterr().out == ""

"""Options: parameters that select code with a string or None (``method="rk2"``,
``weights=None``), bound per call (``sourcediff.options``).

Each choice is its own derivative; gradients are checked against Richardson-extrapolated
central differences under every policy, compiled and as plain Python, and the other
transformations (jit, jvp, jacobian, hessian) against the same references.
"""

import numpy as np
import pytest
from reference import array_central_difference, assert_gradient_matches

import sourcediff as sd


def rate(u, k, kind):
    if kind == "linear":
        return -k * u
    return -k * u * u * u


def step(u, k, dt, method="euler", kind="linear"):
    if method == "euler":
        return u + dt * rate(u, k, kind)
    if method in ("rk2", "midpoint"):
        half = u + 0.5 * dt * rate(u, k, kind)
        return u + dt * rate(half, k, kind)
    raise ValueError("unknown method " + method)


def integrate(u0, k, dt, steps, method="euler", kind="linear", scale=None):
    """Options read in a helper (passed on), in a loop, in a conditional expression, and
    an optional number."""
    u = u0.copy()
    if scale is None:
        scale = 1.0
    for _ in range(steps):
        u = step(u, k, dt, method, kind)
    return scale * np.sum(u * u) if method != "euler" else scale * np.sum(np.abs(u))


def weighted_loss(x, y, weights=None, reduction="mean"):
    r = x - y
    if weights is not None:
        r = r * weights
    if reduction == "sum":
        return np.sum(r * r)
    elif reduction == "mean":
        return np.mean(r * r)
    else:
        raise ValueError(reduction)


U0 = np.array([1.0, 0.5, -0.3, 0.8])
CHOICES = [
    ("euler", "linear", None),
    ("rk2", "cubic", None),
    ("midpoint", "linear", 2.5),
]
POLICIES = ["store", "recompute", sd.Checkpoint(2)]


# Every policy as Python, each choice compiled under one (the fuzzer's options programs
# run every policy compiled).
RUNS = [(policy, False) for policy in POLICIES] + [("auto", True)]


@pytest.mark.parametrize("policy, jit", RUNS, ids=lambda r: str(r))
@pytest.mark.parametrize("choice", CHOICES, ids=lambda c: "-".join(map(str, c)))
def test_integrator_options(choice, jit, policy):
    method, kind, scale = choice
    args = (U0.copy(), 0.5, 0.1, 4, method, kind, scale)
    argnums = (0, 1) if scale is None else (0, 1, 6)
    assert_gradient_matches(integrate, args, argnums, policy, jit)


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_optional_array_and_reduction(jit):
    x, y = np.array([0.3, -1.2, 2.0]), np.array([0.1, 0.4, -0.5])
    weights = np.array([1.0, 0.5, 2.0])
    for args, argnums in [
        ((x, y), 0),
        ((x, y, None, "sum"), (0, 1)),
        ((x, y, weights), (0, 2)),
        ((x, y, weights, "sum"), (0, 1, 2)),
    ]:
        full = args + (None, "mean")[len(args) - 2 :]
        assert_gradient_matches(weighted_loss, full, argnums, "auto", jit)


def test_each_choice_is_its_own_derivative():
    grad = sd.grad(integrate)
    euler = grad(U0, 0.5, 0.1, 4)
    rk2 = grad(U0, 0.5, 0.1, 4, "rk2")
    np.testing.assert_allclose(euler, array_central_difference(integrate, (U0, 0.5, 0.1, 4), 0))
    assert not np.allclose(euler, rk2)
    assert len(grad.bound) == 2  # one binding per choice, reused on later calls
    grad(U0 + 1.0, 0.5, 0.1, 4, "rk2")
    assert len(grad.bound) == 2


def test_other_transformations():
    args = (U0, 0.5, 0.1, 3, "rk2", "cubic", None)
    assert sd.jit(integrate)(*args) == pytest.approx(integrate(*args), rel=1e-14)
    expected = array_central_difference(integrate, args, 0)
    np.testing.assert_allclose(sd.jacobian(integrate)(*args), expected, rtol=1e-7)
    direction = np.array([1.0, -2.0, 0.5, 0.25])
    value, tangent = sd.jvp(integrate, args, (direction, 0.0, 0.0, 0, "rk2", "cubic", None))
    assert value == pytest.approx(integrate(*args), rel=1e-14)
    assert tangent == pytest.approx(expected @ direction, rel=1e-7)
    grad = sd.grad(integrate)
    hessian = np.empty((4, 4))
    for i in range(4):
        grad_i = lambda x, i=i: grad(x, *args[1:])[i]  # noqa: E731
        hessian[i] = array_central_difference(grad_i, (U0.copy(),), 0)
    np.testing.assert_allclose(sd.hessian(integrate)(*args), hessian, rtol=1e-6, atol=1e-9)


def test_source_shows_the_choice_only():
    text = sd.adjoint_source(integrate, args=(U0, 0.5, 0.1, 3, "rk2", "cubic", None))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    code = code.split('"""', 2)[2]  # after the header
    for word in ("euler", "linear", "rk2", "None", "raise", "if "):
        assert word not in code


def twice_with_different_options(u, k):
    return np.sum(step(u, k, 0.1, "euler") + step(u, k, 0.1, "rk2"))


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_a_helper_called_with_two_choices(jit):
    """Each choice is its own binding of the helper, under a name of its own."""
    assert_gradient_matches(twice_with_different_options, (U0.copy(), 0.5), (0, 1), "auto", jit)
    text = sd.adjoint_source(twice_with_different_options, args=(U0, 0.5))
    assert "step_2" in text


def not_an_option(u, k):
    """A number given to an option: read as itself, the string tests decided false."""
    return np.sum(rate(u, k, 3.0))


def scaled(u, c):
    return c * u


def string_to_a_number_parameter(u):
    return np.sum(scaled(u, "fast"))


def test_refusals():
    args = (U0, 0.5, 0.1, 3, "rk2")
    with pytest.raises(sd.SourceDiffError, match="'method'.*option that selects code"):
        sd.grad(integrate, argnums=4)(*args)
    with pytest.raises(ValueError, match="unknown method ' \\+ method"):
        sd.grad(integrate)(U0, 0.5, 0.1, 3, "rk9")  # as the function: step raises
    with pytest.raises(sd.SourceDiffError, match="numba.njit.*cannot choose the options"):
        sd.grad(integrate).numba_stub()
    with pytest.raises(sd.SourceDiffError, match="'scaled' is called with 'fast'"):
        sd.grad(string_to_a_number_parameter)(U0)
    with pytest.raises(sd.SourceDiffError, match="njit code cannot call it"):
        sd.jit(integrate).numba_stub()


@pytest.mark.parametrize("jit", [True, False], ids=["jit", "py"])
def test_a_number_given_to_an_option(jit):
    assert_gradient_matches(not_an_option, (U0.copy(), 0.5), (0, 1), "auto", jit)


def writes_through_an_alias(u):
    v = u
    v[0] = 2.0 * v[1]
    return np.sum(u * u)


def test_jit_falls_back_to_the_untyped_primal_where_typing_refuses():
    """Derivatives refuse writing through a second name of an array; ``sd.jit`` computes
    the function all the same (the untyped primal, as Numba compiles it)."""
    with pytest.raises(sd.SourceDiffError):
        sd.grad(writes_through_an_alias)(U0.copy())
    given, expected = U0.copy(), U0.copy()
    assert sd.jit(writes_through_an_alias)(given) == writes_through_an_alias(expected)
    np.testing.assert_array_equal(given, expected)  # the write reaches the caller's array

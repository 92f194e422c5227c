"""``scipy.special`` functions, written in the subset (``library_scipy.py``), however
the module names SciPy: a logistic regression through ``expit``, ``logsumexp`` along an
axis and of everything, ``softmax``/``log_softmax``, ``gammaln`` of numbers and of
arrays (a Poisson likelihood), ``xlogy``/``logit``/``erf``. Each gradient is checked
against Richardson-extrapolated central differences at two points, under store and
recompute, compiled and as plain Python; values against SciPy itself."""

import math

import numpy as np
import pytest
import scipy
import scipy.special as sp
from reference import assert_case_matches
from scipy import special
from scipy.special import expit, gammaln, log_softmax, logsumexp, softmax, xlogy

import sourcediff as sd


def logistic_nll(w, X, y):
    p = expit(X @ w)
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def log_sum_exps(a):
    return np.sum(logsumexp(a, axis=1)) + sp.logsumexp(a) + special.log_expit(a[0, 0])


def softmaxes(a):
    rows = np.sum(np.sin(softmax(a, axis=0)))
    return rows + np.sum(log_softmax(a[0]) ** 2) + np.sum(scipy.special.softmax(a) ** 2)


def poisson_loglik(lam, k):
    s = np.sum(k * np.log(lam) - lam - gammaln(k + 1.0))
    for i in range(k.shape[0]):
        s -= gammaln(lam[i] + 0.5 * k[i])
    return s


def entropy_like(p):
    return -np.sum(xlogy(p, p)) + sp.logit(p[1]) + sp.erf(p[0]) + math.erfc(p[2])


def error_functions_of_arrays(x):
    return np.sum(sp.erf(x * 1.5) * x) + np.sum(sp.erfc(x - 0.2) ** 2)


RNG = np.random.default_rng(3)
CASES = {
    "logistic_nll": (
        logistic_nll,
        lambda: (RNG.normal(size=3), RNG.normal(size=(6, 3)), (RNG.random(6) > 0.5) * 1.0),
    ),
    "log_sum_exps": (log_sum_exps, lambda: (RNG.normal(size=(3, 4)) * 3.0,)),
    "softmaxes": (softmaxes, lambda: (RNG.normal(size=(3, 4)),)),
    "poisson_loglik": (
        poisson_loglik,
        lambda: (RNG.uniform(0.5, 3.0, size=4), np.array([1.0, 3.0, 0.0, 2.0])),
    ),
    "entropy_like": (entropy_like, lambda: (RNG.uniform(0.1, 0.9, size=4),)),
    "error_functions_of_arrays": (error_functions_of_arrays, lambda: (RNG.normal(size=5),)),
}


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_through_scipy_special(case, jit):
    func, make = CASES[case]
    assert_case_matches(func, make, jit)


def test_expit_and_logsumexp_stay_finite_where_the_naive_formulas_overflow():
    x = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    value, gradient = sd.value_and_grad(expit_sum)(x)
    assert value == pytest.approx(np.sum(sp.expit(x)))
    e = np.exp(-np.abs(x))  # expit' = e / (1 + e)^2 without the cancellation of 1 - expit
    np.testing.assert_allclose(gradient, e / (1.0 + e) ** 2, rtol=1e-12, atol=1e-300)
    assert sd.grad(logsumexp_of)(x * 2.0)[-1] == pytest.approx(1.0)


def expit_sum(x):
    return np.sum(expit(x))


def logsumexp_of(x):
    return logsumexp(x)


def test_forward_mode_through_scipy_special():
    args = CASES["poisson_loglik"][1]()
    direction = RNG.normal(size=4)
    _, tangent = sd.jvp(poisson_loglik, args, (direction, np.zeros(4)))
    assert tangent == pytest.approx(float(sd.grad(poisson_loglik)(*args) @ direction), rel=1e-10)


def uses_beta(x):
    return np.sum(sp.beta(x, 2.0))


def test_a_scipy_function_not_written_is_refused_naming_the_ones_that_are():
    with pytest.raises(sd.SourceDiffError, match="test_scipy_special.py:.*logsumexp"):
        sd.grad(uses_beta)(np.ones(3))


@pytest.mark.parametrize("jit", [False, True], ids=["py", "jit"])
def test_erf_and_erfc_of_an_array_match_their_closed_form(jit):
    """d/dx sum(erf(1.5 x) x + erfc(x - 0.2)^2), with erf' = 2 / sqrt(pi) exp(-x^2); once
    refused (``math.erf`` of an array), found by the fuzzer's special_functions form."""
    x = np.array([-1.3, -0.2, 0.0, 0.4, 2.1])
    bump = 2.0 / math.sqrt(math.pi)
    erf, erfc = sp.erf, sp.erfc
    want = erf(1.5 * x) + 1.5 * bump * np.exp(-2.25 * x * x) * x
    want -= 2.0 * erfc(x - 0.2) * bump * np.exp(-((x - 0.2) ** 2))
    got = sd.grad(error_functions_of_arrays, jit=jit)(x)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    direction = np.linspace(-1.0, 1.0, 5)  # forward mode reads the same rule row
    _, tangent = sd.jvp(error_functions_of_arrays, (x,), (direction,), jit=jit)
    assert tangent == pytest.approx(want @ direction, rel=1e-13)

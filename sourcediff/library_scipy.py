"""``scipy.special`` functions written in the differentiable subset (stage "parse").

Numba compiles no SciPy function, and SciPy's own ``logsumexp`` is Python that the subset
does not cover (a ``with`` block, keyword handling). The definitions below are the same
mathematics in the subset, written to stay finite where the naive formula overflows:
``expit(x)`` is ``exp(-logaddexp(0, -x))`` (its derivative ``out * (1 - out)`` never reads
an ``inf``), ``logsumexp`` subtracts the maximum first. A call resolves to them however
the module names SciPy: ``from scipy.special import expit``, ``special.expit``,
``sp.expit`` or ``scipy.special.expit``::

    >>> import scipy.special
    >>> code = "def f(x):\\n    return scipy.special.logsumexp(x) + sp.expit(x[0])"
    >>> node = ast.parse(code).body[0]
    >>> scipy_calls_as_helpers(node, {"scipy": scipy, "sp": scipy.special})
    >>> print(ast.unparse(node.body[0]))
    return scipy_logsumexp(x) + scipy_expit(x[0])

A new function is one definition and one entry in :data:`SCIPY_SPECIAL`; options the
definitions lack (``logsumexp(a, b=w)``, ``return_sign``) are refused at the call, by
name, as any helper's unknown keyword is.
"""

from __future__ import annotations

import ast

import numpy as np

from .special_arrays import erf_of_each, erfc_of_each, log_gamma


def scipy_expit(x):
    """``scipy.special.expit(x)``: the logistic sigmoid ``1 / (1 + exp(-x))``."""
    return np.exp(-np.logaddexp(0.0, -x))


def scipy_log_expit(x):
    """``scipy.special.log_expit(x)``: ``log(expit(x))`` without underflow."""
    return -np.logaddexp(0.0, -x)


def scipy_logit(p):
    """``scipy.special.logit(p)``: ``log(p / (1 - p))``."""
    return np.log(p) - np.log1p(-p)


def scipy_logsumexp(a, axis=None):
    """``scipy.special.logsumexp(a, axis=None)``: ``log(sum(exp(a)))``, shifted by the
    maximum so that no ``exp`` overflows."""
    if axis is None:
        top = np.max(a)
        return top + np.log(np.sum(np.exp(a - top)))
    top = np.max(a, axis=axis, keepdims=True)
    return np.sum(top, axis=axis) + np.log(np.sum(np.exp(a - top), axis=axis))


def scipy_softmax(x, axis=None):
    """``scipy.special.softmax(x, axis=None)``: ``exp(x) / sum(exp(x))`` along ``axis``."""
    if axis is None:
        e = np.exp(x - np.max(x))
        return e / np.sum(e)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def scipy_log_softmax(x, axis=None):
    """``scipy.special.log_softmax(x, axis=None)``: ``x - logsumexp(x)`` along ``axis``."""
    if axis is None:
        shifted = x - np.max(x)
        return shifted - np.log(np.sum(np.exp(shifted)))
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def scipy_xlogy(x, y):
    """``scipy.special.xlogy(x, y)``: ``x * log(y)``, and 0 where ``x`` is 0."""
    return np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y)))


def scipy_gammaln(x):
    """``scipy.special.gammaln(x)``: ``log(abs(gamma(x)))`` of a number or an array."""
    return log_gamma(x)


def scipy_erf(x):
    """``scipy.special.erf(x)`` of a number or an array: ``math.erf`` of each."""
    return erf_of_each(x)


def scipy_erfc(x):
    """``scipy.special.erfc(x)`` of a number or an array: ``math.erfc`` of each."""
    return erfc_of_each(x)


#: scipy.special's name -> its definition here.
SCIPY_SPECIAL = {
    "expit": scipy_expit,
    "log_expit": scipy_log_expit,
    "logit": scipy_logit,
    "logsumexp": scipy_logsumexp,
    "softmax": scipy_softmax,
    "log_softmax": scipy_log_softmax,
    "xlogy": scipy_xlogy,
    "gammaln": scipy_gammaln,
    "erf": scipy_erf,
    "erfc": scipy_erfc,
}

#: The definitions by their own names (what the rewritten calls resolve to).
SCIPY_DEFINITIONS = {f.__name__: f for f in SCIPY_SPECIAL.values()}


def scipy_definition(value):
    """The definition standing for the SciPy object ``value`` (``scipy.special.expit``
    imported under any name), or None."""
    name = getattr(value, "__name__", None)
    if name not in SCIPY_SPECIAL:
        return None
    import scipy.special  # a runtime dependency; imported when a module may use it

    return SCIPY_SPECIAL[name] if getattr(scipy.special, name, None) is value else None


def scipy_calls_as_helpers(node: ast.AST, scope: dict) -> None:
    """Rewrite, in place, each call ``module.special.name(...)`` or ``alias.name(...)`` that
    reaches a function of :data:`SCIPY_SPECIAL` through the names of ``scope`` (the
    function's globals) into a call of its definition."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            definition = scipy_definition(_object_of(call.func, scope))
            if definition is not None:
                name = ast.Name(definition.__name__, ast.Load())
                call.func = ast.copy_location(name, call.func)


def _object_of(chain: ast.expr, scope: dict):
    """What the attribute chain ``a.b.c`` names when ``a`` is a module in ``scope``."""
    if isinstance(chain, ast.Name):
        value = scope.get(chain.id)
        return value if type(value).__name__ == "module" else None
    if isinstance(chain, ast.Attribute):
        owner = _object_of(chain.value, scope)
        return getattr(owner, chain.attr, None) if owner is not None else None
    return None

"""Every row of the rule table, checked numerically against central differences."""

import math

import numpy as np
import pytest

from sourcediff import rules, runtime
from sourcediff.joins import JOINS

# A point inside each function's domain, away from kinks, per arity.
POINTS = {
    1: [(0.37,), (0.81,), (-0.45,)],
    2: [(0.7, 1.3), (1.9, 0.6), (-0.8, 2.1)],
    3: [(0.5, 0.2, 0.9), (0.1, 0.2, 0.9), (1.3, 0.2, 0.9)],
}
POSITIVE_ONLY = {
    "math.log",
    "math.log2",
    "math.log10",
    "math.sqrt",
    "np.log",
    "np.log2",
    "np.log10",
    "np.sqrt",
    "**",
    "math.pow",
    "np.power",
    "safe_sqrt",
}
ABOVE_ONE = {"math.acosh", "np.arccosh"}  # defined from 1 up
OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "%": lambda a, b: a % b,
    "neg": lambda a: -a,
}
BUILTINS = {"abs": abs, "min": min, "max": max, "float": float}


def _function(name: str):
    if name in OPERATORS:
        return OPERATORS[name]
    if name in BUILTINS:
        return BUILTINS[name]
    if "." not in name:  # a runtime function of generated code (safe_sqrt)
        return getattr(runtime, name)
    module, attr = name.split(".")
    return getattr(math if module == "math" else np, attr)


def _points(rule):
    points = POINTS[len(rule.params)]
    if rule.name in POSITIVE_ONLY:
        points = [tuple(abs(v) for v in p) for p in points]
    if rule.name in ABOVE_ONE:
        points = [tuple(1.0 + abs(v) for v in p) for p in points]
    return points


def _evaluate(template: str, args: dict, out: float) -> float:
    """The partial-derivative template evaluated with its holes bound to numbers."""
    helpers = {name: getattr(runtime, name) for name in runtime.HELPERS}
    return float(eval(template, {"math": math, "np": np, "out": out, **helpers, **args}))


# Whole-array rows are checked on arrays in test_arrays.py.
DIFFERENTIABLE = [
    r
    for r in rules.TABLE.values()
    if r.differentiable
    and r.adjoints is None
    and r.name not in ("np.where", "np.copy")
    and r.name not in JOINS  # tuple operands: derivatives in sourcediff.joins, tested there
]
WITH_ARRAY_PARTIALS = [r for r in DIFFERENTIABLE if r.array_partials]


@pytest.mark.parametrize("rule", DIFFERENTIABLE, ids=[r.name for r in DIFFERENTIABLE])
def test_rule_partials_match_finite_differences(rule):
    func = _function(rule.name)
    for point in _points(rule):
        out = float(func(*point))
        for k, partial in enumerate(rule.partials):
            if partial is None:
                continue
            h = 1e-6 * max(1.0, abs(point[k]))
            plus, minus = list(point), list(point)
            plus[k] += h
            minus[k] -= h
            expected = (float(func(*plus)) - float(func(*minus))) / (2 * h)
            actual = _evaluate(partial, dict(zip(rule.params, point)), out)
            assert actual == pytest.approx(expected, rel=1e-6, abs=1e-8), (
                f"{rule.name} d/d{rule.params[k]} at {point}"
            )


def test_safe_sqrt_has_derivative_zero_at_zero():
    """The square root of a rewritten ``np.std``/``np.linalg.norm`` along an axis: derivative
    0 where the root is 0 (a constant row), as the whole-array rules have, never inf."""
    rule = rules.lookup("safe_sqrt")
    assert _evaluate(rule.partials[0], {"x": 0.0}, 0.0) == 0.0
    env = {"np": np, "out": np.array([0.0, 2.0]), "x": np.array([0.0, 4.0])}
    np.testing.assert_array_equal(eval(rule.array_partials[0], env), [0.0, 0.25])


def test_piecewise_constant_rules_have_no_partials():
    for name in ("math.floor", "math.ceil", "//", "<", "==", "not", "int", "round"):
        assert not rules.lookup(name).differentiable


def test_one_sided_values_at_kinks_are_documented_and_finite():
    assert _evaluate(rules.lookup("abs").partials[0], {"x": 0.0}, 0.0) == 1.0
    assert _evaluate(rules.lookup("max").partials[0], {"a": 1.0, "b": 1.0}, 1.0) == 1.0
    assert _evaluate(rules.lookup("max").partials[1], {"a": 1.0, "b": 1.0}, 1.0) == 0.0
    assert _evaluate(rules.lookup("math.hypot").partials[0], {"x": 0.0, "y": 0.0}, 0.0) == 0.0
    assert _evaluate(rules.lookup("**").partials[1], {"x": 0.0, "y": 2.0}, 0.0) == 0.0


@pytest.mark.parametrize("rule", WITH_ARRAY_PARTIALS, ids=[r.name for r in WITH_ARRAY_PARTIALS])
def test_array_partials_agree_with_scalar_partials(rule):
    """The array-safe form of a row gives, elementwise, what the scalar form gives."""
    points = _points(rule)
    columns = [np.array(column) for column in zip(*points)]
    func = _function(rule.name)
    out = np.array([float(func(*p)) for p in points])
    for k, (scalar, array) in enumerate(zip(rule.partials, rule.array_partials)):
        if scalar is None:
            continue
        env = {"math": math, "np": np, "out": out, **dict(zip(rule.params, columns))}
        actual = np.broadcast_to(eval(array, env), out.shape)
        expected = [_evaluate(scalar, dict(zip(rule.params, p)), o) for p, o in zip(points, out)]
        np.testing.assert_allclose(actual, expected, rtol=1e-14, err_msg=f"{rule.name} arg {k}")


def test_every_template_reads_only_its_holes():
    from sourcediff.rules import TABLE, Rule, template_errors

    assert [e for rule in TABLE.values() for e in template_errors(rule)] == []
    stray = Rule("f", ("x",), ("1",), adjoints=("y * g",), tangents=("g * tangent",))
    assert template_errors(stray) == [
        "f adjoints: 'y' in 'y * g'",
        "f tangents: 'g' in 'g * tangent'",
    ]
